"""Functions and custom operations audited by examples/audit_suite.toml.

Each custom operation (an ``ag.Function`` with its own backward) computes its forward
with diffcompare.functions, so SymPy traces it for the exact reference, while autograd
runs the hand-written backward. Two of the backwards are wrong on purpose.
"""

from diffcompare import autograd as ag
from diffcompare.functions import abs, sigmoid, tanh


class WrongSwish(ag.Function):
    """x · sigmoid(x), whose backward forgets the x · sigmoid'(x) term."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * sigmoid(x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * sigmoid(x)                      # wrong: + x sigmoid(x) (1 - sigmoid(x)) is missing


class Swish(WrongSwish):
    """The same operation with the right backward."""

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        s = sigmoid(x)
        return grad * (s + x * s * (1 - s))


def wrong_swish_layer(x, w):
    return tanh(WrongSwish.apply(w * x + 0.5)) * x


def swish_layer(x, w):
    return tanh(Swish.apply(w * x + 0.5)) * x


class Softsign(ag.Function):
    """x / (1 + |x|), whose backward writes 1 + x for 1 + |x|: right for x ≥ 0 only."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x / (1 + abs(x))

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad / (1 + x) ** 2                     # wrong for x < 0: (1 + |x|) ** 2


def softsign_scaled(x, y):
    return Softsign.apply(x) * y
