"""Custom engine ops shared by the tests: a cube with the right backward (3x²) and one
with a wrong backward (2x²); a square with the right backward and one whose backward reads
x detached (right first derivative, no second)."""

from diffcompare import autograd as ag


class WrongCube(ag.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 2 * x ** 2            # should be 3 x^2


class Cube(WrongCube):
    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 3 * x ** 2


class Square(ag.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 2 * x


class DetachedSquare(Square):
    """x², whose backward reads x detached: the gradient is right, the second derivative lost."""
    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 2 * x.detach()
