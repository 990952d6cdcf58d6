"""Custom engine ops shared by the tool's tests: a cube with the right backward (3x²) and
one with a wrong backward (2x²)."""

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


class DetachedSquare(ag.Function):
    """x², whose backward reads x detached: the gradient is right, the second derivative lost."""
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 2 * x.detach()
