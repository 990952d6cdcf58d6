"""Custom engine ops for the golden audit suite: a cube with the right backward and one
with a wrong backward (2x² instead of 3x²)."""

from diffcompare import autograd as ag


class Cube(ag.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * 3 * x ** 2


class WrongCube(ag.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * 2 * x ** 2


def cube_right(x):
    return Cube.apply(x)


def cube_wrong(x):
    return WrongCube.apply(x)
