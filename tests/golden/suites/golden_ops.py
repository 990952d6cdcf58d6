"""Custom engine ops for the golden audit suite: a cube whose backward is right (3x²) and
one whose backward is wrong (2x²)."""

from diffcompare import autograd as ag


def _cube(name: str, factor: float):
    """A custom op computing x³ whose backward sends ``factor`` · x² · g."""
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * factor * x ** 2
    return type(name, (ag.Function,), {"forward": staticmethod(forward), "backward": staticmethod(backward)})


Cube = _cube("Cube", 3)
WrongCube = _cube("WrongCube", 2)


def cube_right(x):
    return Cube.apply(x)


def cube_wrong(x):
    return WrongCube.apply(x)
