"""A catalogue of wrong backward rules, each beside its right twin, written once and built
for three engines: diffcompare's (``ag.Function``), PyTorch's (``torch.autograd.Function``)
and JAX's (``jax.custom_vjp``).

A kind is a function f of scalar inputs whose derivative comes from a custom rule: the
forward, the right backward and a wrong one, in terms of a small namespace of operations
(``ops``) that each engine provides. ``changes(point)`` says, by hand-derived mathematics
and not by running any tool, whether the wrong rule changes the derivative there. Every
kind also comes with a forward that branches on the value (the rule only on one side).

Nothing here imports the tool's judging code: the catalogue is the question, not an answer.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field


@dataclass
class Kind:
    name: str
    arity: int
    forward: object            # forward(ops, *x) -> value
    right: object              # right(ops, g, *x) -> tuple of input gradients
    wrong: object              # the same, wrong
    domain: tuple              # (low, high) for every input
    changes: object            # changes(*x) -> bool: the wrong rule changes the derivative asked for
    check: str = "gradient"    # or "hessian": the bug shows in second derivatives only
    notes: str = ""
    branch: float | None = None     # set on the branching variants: the rule applies where x0 > branch
    tags: list = field(default_factory=list)


def _scaled(factor):
    return lambda ops, g, x: (g * (ops.sin(x) + x * ops.cos(x)) * factor,)


def _x_sin_x(ops, x):
    return x * ops.sin(x)


def _right_x_sin_x(ops, g, x):
    return (g * (ops.sin(x) + x * ops.cos(x)),)


def _d_x_sin_x(x):
    return math.sin(x) + x * math.cos(x)


KINDS = [
    Kind("sign flip", 1, _x_sin_x, _right_x_sin_x, lambda ops, g, x: (-(g * (ops.sin(x) + x * ops.cos(x))),),
         (-3, 3), lambda x: _d_x_sin_x(x) != 0),
    Kind("missing factor", 1, lambda ops, x: x * x, lambda ops, g, x: (g * 2 * x,), lambda ops, g, x: (g * x,),
         (-3, 3), lambda x: x != 0, notes="d(x²) written as x"),
    Kind("constant off by 1e-3", 1, _x_sin_x, _right_x_sin_x, _scaled(1 + 1e-3), (-3, 3),
         lambda x: _d_x_sin_x(x) != 0),
    Kind("constant off by 1e-6", 1, _x_sin_x, _right_x_sin_x, _scaled(1 + 1e-6), (-3, 3),
         lambda x: _d_x_sin_x(x) != 0),
    Kind("constant off by 1e-9", 1, _x_sin_x, _right_x_sin_x, _scaled(1 + 1e-9), (-3, 3),
         lambda x: _d_x_sin_x(x) != 0),
    Kind("wrong only for negative inputs", 1, lambda ops, x: x / (1 + ops.abs(x)),
         lambda ops, g, x: (g / ((1 + ops.abs(x)) * (1 + ops.abs(x))),),
         lambda ops, g, x: (g / ((1 + x) * (1 + x)),), (-0.9, 3), lambda x: x < 0,
         notes="softsign's backward with 1 + x for 1 + |x|"),
    Kind("wrong only for large inputs", 1, lambda ops, x: ops.tanh(x),
         lambda ops, g, x: (g * (1 - ops.tanh(x) * ops.tanh(x)),),
         lambda ops, g, x: (g * ops.where(ops.abs(x) > 2, 1 - ops.tanh(x) * ops.tanh(x) + 1e-4,
                                         1 - ops.tanh(x) * ops.tanh(x)),),
         (-4, 4), lambda x: abs(x) > 2),
    Kind("swapped inputs", 2, lambda ops, x, y: x * y * y, lambda ops, g, x, y: (g * y * y, g * 2 * x * y),
         lambda ops, g, x, y: (g * 2 * x * y, g * y * y), (0.5, 3), lambda x, y: y * y != 2 * x * y),
    Kind("float32 backward", 1, lambda ops, x: ops.exp(x) * ops.sin(x),
         lambda ops, g, x: (g * ops.exp(x) * (ops.sin(x) + ops.cos(x)),),
         lambda ops, g, x: (ops.f32(g * ops.exp(x) * (ops.sin(x) + ops.cos(x))),), (-2, 2),
         lambda x: _f32_changes(math.exp(x) * (math.sin(x) + math.cos(x))),
         notes="the right formula, evaluated in float32"),
    Kind("broadcast reduced the wrong way", 2, lambda ops, x, y: x * y + y,
         lambda ops, g, x, y: (g * y, g * (x + 1)), lambda ops, g, x, y: (g * y, g * (x + 1) / 2),
         (0.5, 3), lambda x, y: True, notes="the bias's gradient averaged over a batch of 2 instead of summed"),
    Kind("wrong second derivative", 1, lambda ops, x: x * x * x, lambda ops, g, x: (g * 3 * ops.square(x),),
         lambda ops, g, x: (g * 3 * ops.wrong_square(x),), (-2, 2), lambda x: x != 0, check="hessian",
         notes="the gradient is right, but it is built from a square whose own backward is x, not 2x"),
    Kind("detached second derivative", 1, lambda ops, x: x * x * x, lambda ops, g, x: (g * 3 * x * x,),
         lambda ops, g, x: (g * 3 * ops.detach(x) * ops.detach(x),), (-2, 2), lambda x: x != 0,
         check="hessian", notes="the backward reads x detached: double backward gives 0"),
]

BRANCH = 0.25       # the branching variants apply the rule where the first input exceeds this


def _f32_changes(value: float) -> bool:
    """Whether rounding ``value`` to binary32 changes it (by hand: its significand needs
    more than 24 bits)."""
    import struct
    return struct.unpack("f", struct.pack("f", value))[0] != value


def _value(x) -> float:
    """A tensor's number, read without touching its graph."""
    return float(x.detach() if hasattr(x, "detach") else x)


def _named(kind: Kind, f):
    """``f(*xs)`` as a function of named inputs x (and y), as the tools read them."""
    if kind.arity == 1:
        def one(x):
            return f(x)
        one.__name__ = kind.name.replace(" ", "_").replace(",", "")
        return one

    def two(x, y):
        return f(x, y)
    two.__name__ = kind.name.replace(" ", "_").replace(",", "")
    return two


def branching(kind: Kind) -> Kind:
    """The kind with a forward that branches on the value: the rule where x0 > BRANCH,
    a plain smooth formula (2 x0 + the other inputs) elsewhere."""
    return Kind(kind.name + ", branching forward", kind.arity, kind.forward, kind.right, kind.wrong, kind.domain,
                lambda *x: x[0] > BRANCH and kind.changes(*x), kind.check, kind.notes, BRANCH, ["branching"])


CATALOGUE = KINDS + [branching(k) for k in KINDS]


# -- the three engines ------------------------------------------------------------------

class FunctionOps:
    """An engine whose custom rules subclass a PyTorch-style ``Function`` (diffcompare's
    and PyTorch's share the interface): the square with a right and a wrong backward, and
    the catalogue's rules."""

    def __init__(self, function_base):
        self.function_base = function_base

        class Square(function_base):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return g * 2 * x

        class WrongSquare(Square):
            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return g * x

        self.square, self.wrong_square = Square.apply, WrongSquare.apply

    def detach(self, x):
        return x.detach()

    def f32(self, x):
        return x.float().double()

    def rule(self, kind: Kind, wrong: bool):
        ops = self
        backward = kind.wrong if wrong else kind.right

        class Rule(self.function_base):
            @staticmethod
            def forward(ctx, *xs):
                ctx.save_for_backward(*xs)
                return kind.forward(ops, *xs)

            @staticmethod
            def backward(ctx, g):
                out = backward(ops, g, *ctx.saved_tensors)
                return out[0] if len(out) == 1 else out

        def f(*xs):
            if kind.branch is not None and _value(xs[0]) <= kind.branch:
                return 2 * xs[0] + sum(xs[1:])
            return Rule.apply(*xs)
        return _named(kind, f)


class EngineOps(FunctionOps):
    """diffcompare's engine."""

    def __init__(self):
        from diffcompare import autograd as ag
        from diffcompare import functions as fn
        super().__init__(ag.Function)
        self.sin, self.cos, self.exp, self.tanh, self.abs = fn.sin, fn.cos, fn.exp, fn.tanh, fn.abs
        self.where = ag.where


class TorchOps(FunctionOps):
    """PyTorch."""

    def __init__(self, torch):
        super().__init__(torch.autograd.Function)
        self.torch = torch
        self.sin, self.cos, self.exp, self.tanh, self.abs = torch.sin, torch.cos, torch.exp, torch.tanh, torch.abs
        self.where = torch.where


class JaxOps:
    """JAX (a branch on the value by lax.cond, which JAX differentiates)."""

    def __init__(self, jax):
        import jax.numpy as jnp
        self.jax, self.jnp = jax, jnp
        self.sin, self.cos, self.exp, self.tanh, self.abs = jnp.sin, jnp.cos, jnp.exp, jnp.tanh, jnp.abs
        self.where = jnp.where

        @jax.custom_vjp
        def square(x):
            return x * x
        square.defvjp(lambda x: (x * x, x), lambda x, g: (g * 2 * x,))

        @jax.custom_vjp
        def wrong_square(x):
            return x * x
        wrong_square.defvjp(lambda x: (x * x, x), lambda x, g: (g * x,))
        self.square, self.wrong_square = square, wrong_square

    def detach(self, x):
        return self.jax.lax.stop_gradient(x)

    def f32(self, x):
        return x.astype(self.jnp.float32).astype(self.jnp.float64)

    def rule(self, kind: Kind, wrong: bool):
        jax, ops = self.jax, self
        backward = kind.wrong if wrong else kind.right

        @jax.custom_vjp
        def rule(*xs):
            return kind.forward(ops, *xs)
        rule.defvjp(lambda *xs: (kind.forward(ops, *xs), xs), lambda xs, g: tuple(backward(ops, g, *xs)))

        def f(*xs):
            if kind.branch is None:
                return rule(*xs)
            return jax.lax.cond(xs[0] > kind.branch, lambda v: rule(*v), lambda v: 2 * v[0] + sum(v[1:]), xs)
        return f


def load_torch():
    try:
        import torch
    except ImportError:
        return None
    torch.set_num_threads(1)
    return TorchOps(torch)


def load_jax():
    try:
        import jax
    except ImportError:
        return None
    jax.config.update("jax_enable_x64", True)
    return JaxOps(jax)
