"""A catalogue of wrong backward rules, each beside a correct control, for three engines:
diffcompare's (``ag.Function``), PyTorch's (``torch.autograd.Function``) and JAX's
(``jax.custom_vjp``).

A kind is a custom operation (its forward, a right backward and a wrong one, written once
against a small namespace of operations that each engine provides), the function f built
around it, its variables and a domain to sample, and the check that sees the bug
(``gradient``, or ``hessian`` when only second derivatives are wrong). Each kind comes in
four entries: smooth or branching (a forward with a Python ``if`` on the value of the
first input: the custom operation above a cut, a plain formula differentiated by the
engine's own rules below it), and wrong or the control (the same forward, the right
backward).

Every entry answers, by hand-derived mathematics and without running any tool:

- ``changes(point)``: whether the bug changes the derivative the check asks for there;
- ``exact(point)``: the right entries and the ones the wrong rule computes, in mpmath
  (``shift(point)``: their largest difference over the largest right entry).

The engine's callables take engine tensors and, for the tools' other worlds (NumPy,
mpmath, SymPy), whatever ``diffcompare.functions`` takes: their forwards are written with
those functions, so SymPy traces the smooth entries for the exact reference, and the
branching ones fall back to mpmath. PyTorch and JAX are imported only when asked for.
Nothing here imports the tool's judging code.
"""

from __future__ import annotations

import inspect
import math
from dataclasses import dataclass
from fractions import Fraction

import mpmath
import numpy as np
from common import LazyEngines

DPS = 50
TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)

# the broadcast kinds: a batch of 3 rows of 3 features, Y = x W + b C (the bias b C broadcast
# over the rows), f = sum(V * Y * Y); W, C and V are not symmetric, so a sum over the wrong
# axis changes the bias's gradient
W = ((1.0, -0.5, 0.25), (0.5, 2.0, -1.0), (-1.5, 0.75, 1.25))
C = (1.0, -0.5, 2.0)
V = ((0.5, -1.0, 2.0), (1.5, 0.25, -0.75), (-2.0, 1.0, 0.5))


@dataclass(frozen=True, eq=False)
class Kind:
    """One kind of wrong backward rule. ``forward(ops, *inputs)`` is the custom operation;
    ``right`` and ``wrong`` are ``backward(ops, grad, *saved inputs) -> tuple``; ``outer(ops,
    op, *variables)`` builds f around the operation ``op`` (default: f = op(variables));
    ``changes(point)`` and ``exact(point)`` are the hand-derived answers for the smooth
    entry (see the module docstring)."""
    name: str
    variables: tuple
    domain: dict                    # variable -> (low, high)
    forward: object
    right: object
    wrong: object
    changes: object                 # changes(point) -> bool
    exact: object                   # exact(point) -> (right entries, wrong entries), mpmath numbers
    example: dict                   # a point where the bug changes the derivative (for the tests)
    check: str = "gradient"
    outer: object = None
    cut: float | None = None        # the branching entry's cut on the first variable (default: 30 % into its domain)
    story: str = ""

    @property
    def branch_cut(self) -> float:
        if self.cut is not None:
            return self.cut
        low, high = self.domain[self.variables[0]]
        return low + 0.3 * (high - low)


# -- the hand-derived mathematics (mpmath, DPS digits) --------------------------------------

def _mp(point, *names):
    return [mpmath.mpf(point[n]) for n in names]


def _nearest_float32(value):
    """The binary32 number nearest to ``value`` (to the precision of a float64 value)."""
    return mpmath.mpf(float(np.float32(float(value))))


def _sign_flip(point):
    with mpmath.workdps(DPS):
        (x,) = _mp(point, "x")
        right = mpmath.sin(x) + x * mpmath.cos(x)
        return [right], [-right]


def _missing_factor(point):
    with mpmath.workdps(DPS):
        (x,) = _mp(point, "x")
        return [2 * x * mpmath.cos(x * x)], [x * mpmath.cos(x * x)]


def _constant(delta):
    def exact(point):
        with mpmath.workdps(DPS):
            (x,) = _mp(point, "x")
            right = 2 / mpmath.sqrt(mpmath.pi) * mpmath.exp(-x * x)
            return [right], [right * (1 + mpmath.mpf(delta))]
    return exact


def _negative_only(point):
    with mpmath.workdps(DPS):
        (x,) = _mp(point, "x")
        return [1 / (1 + abs(x)) ** 2], [1 / (1 + x) ** 2]


def _large_only(point):
    with mpmath.workdps(DPS):
        (x,) = _mp(point, "x")
        right = 1 / (1 + x * x)
        return [right], [1 / (x * x) if abs(x) > 2 else right]


def _swapped(point):
    with mpmath.workdps(DPS):
        x, y = _mp(point, "x", "y")
        return [y * y, 2 * x * y], [2 * x * y, y * y]


def _broadcast_terms(point):
    """G[i][j] = ∂f/∂Y[i][j] = 2 V[i][j] Y[i][j], Y[i][j] = W[i][j] x + C[j] b, exactly (W, C, V
    and the binary64 point are rationals)."""
    x, b = Fraction(point["x"]), Fraction(point["b"])
    return [[2 * Fraction(V[i][j]) * (Fraction(W[i][j]) * x + Fraction(C[j]) * b) for j in range(3)]
            for i in range(3)]


def _broadcast_right(g):
    d_x = sum(Fraction(W[i][j]) * g[i][j] for i in range(3) for j in range(3))
    d_b = sum(Fraction(C[j]) * sum(g[i][j] for i in range(3)) for j in range(3))     # the bias: summed over the rows
    return d_x, d_b


def _broadcast_wrong_axis(g):
    return sum(Fraction(C[j]) * sum(g[j][k] for k in range(3)) for j in range(3))      # summed over the features


def _to_mp(values):
    with mpmath.workdps(DPS):
        return [mpmath.mpf(v.numerator) / v.denominator for v in values]


def _broadcast_axis(point):
    g = _broadcast_terms(point)
    d_x, d_b = _broadcast_right(g)
    return _to_mp([d_x, d_b]), _to_mp([d_x, _broadcast_wrong_axis(g)])


def _broadcast_mean(point):
    d_x, d_b = _broadcast_right(_broadcast_terms(point))
    return _to_mp([d_x, d_b]), _to_mp([d_x, d_b / 3])


def _broadcast_axis_changes(point):
    """Σ_j C[j] (Σ_i G[i][j] - Σ_k G[j][k]) ≠ 0: linear in x and b, decided in exact rationals."""
    g = _broadcast_terms(point)
    return _broadcast_wrong_axis(g) != _broadcast_right(g)[1]


def _broadcast_mean_changes(point):
    """The mean is a third of the sum: changed wherever ∂f/∂b ≠ 0 (exact rationals)."""
    return _broadcast_right(_broadcast_terms(point))[1] != 0


def _float32(point):
    with mpmath.workdps(DPS):
        (x,) = _mp(point, "x")
        right = mpmath.exp(x) * (mpmath.sin(x) + mpmath.cos(x))
        # the rule returns a binary32 number; the nearest one to the exact value is the
        # least it can be off by (a lower bound of the change)
        return [right], [_nearest_float32(right)]


def _hessian_entries(x, y):
    return [6 * x * y, 3 * x * x, 3 * x * x, 0 * x]      # row-major: ∂²/∂x², ∂²/∂x∂y, ∂²/∂y∂x, ∂²/∂y²


def _wrong_second(point):
    with mpmath.workdps(DPS):
        x, y = _mp(point, "x", "y")
        # ∂f/∂x = 3 sq(x) y and ∂f/∂y = x sq(x), where sq's own backward gives x for 2x:
        # ∂/∂x of the first is 3 x y, of the second sq(x) + x·x = 2x²
        return _hessian_entries(x, y), [3 * x * y, 3 * x * x, 2 * x * x, 0 * x]


def _detached_second(point):
    with mpmath.workdps(DPS):
        x, y = _mp(point, "x", "y")
        # ∂f/∂x = 3 x̄² y and ∂f/∂y = x̄³ with x̄ detached: nothing flows back to x
        return _hessian_entries(x, y), [0 * x, 3 * x * x, 0 * x, 0 * x]


# -- the kinds ------------------------------------------------------------------------------

def _x_sin_x(ops, x):
    return x * ops.sin(x)


def _d_x_sin_x(ops, x):
    return ops.sin(x) + x * ops.cos(x)


def _erf_rule(delta):
    def backward(ops, g, x):
        return (g * (TWO_OVER_SQRT_PI * (1 + delta)) * ops.exp(-(x * x)),)
    return backward


def _bias_outer(ops, op, x, b):
    return ops.total(V, op(ops.const(W, x) * x, ops.const(C, b) * b))


def _x3y(ops, x, y):
    return x * x * x * y


def _square_rule(square):
    def backward(ops, g, x, y):
        sq = getattr(ops, square)
        return g * 3 * sq(x) * y, g * x * sq(x)
    return backward


X = {"x": (-3.0, 3.0)}

KINDS = [
    Kind("sign flip", ("x",), X, _x_sin_x,
         lambda ops, g, x: (g * _d_x_sin_x(ops, x),),
         lambda ops, g, x: (-(g * _d_x_sin_x(ops, x)),),
         # sin x + x cos x vanishes at 0 and where tan x = -x: for x ≠ 0 algebraic, tan x is
         # transcendental (Lindemann), so no binary64 number but 0 is a root
         lambda p: p["x"] != 0, _sign_flip, {"x": 1.3},
         story="x sin x: the backward returns -(sin x + x cos x)"),
    Kind("missing factor", ("x",), {"x": (-2.0, 2.0)}, lambda ops, x: x * x,
         lambda ops, g, x: (g * 2 * x,), lambda ops, g, x: (g * x,),
         # f = sin(x²): cos(x²) ≠ 0 at every binary64 x (x² rational, π/2 + kπ is not)
         lambda p: p["x"] != 0, _missing_factor, {"x": 0.9}, outer=lambda ops, op, x: ops.sin(op(x)),
         story="sin(x²) with d(x²) written as x"),
    *[Kind(f"constant off by {delta:g}", ("x",), {"x": (-2.5, 2.5)}, lambda ops, x: ops.erf(x),
           _erf_rule(0.0), _erf_rule(delta), lambda p: True, _constant(delta), {"x": 0.7},
           story=f"erf, whose backward's 2/√π is off by a relative {delta:g}")
      for delta in (1e-3, 1e-6, 1e-9)],
    Kind("wrong only for negative inputs", ("x",), {"x": (-3.0, 2.0)}, lambda ops, x: x / (1 + ops.abs(x)),
         lambda ops, g, x: (g / ((1 + ops.abs(x)) * (1 + ops.abs(x))),),
         lambda ops, g, x: (g / ((1 + x) * (1 + x)),),
         # (1 + x)² = (1 + |x|)² exactly when x ≥ 0
         lambda p: p["x"] < 0, _negative_only, {"x": -0.6}, cut=-2.0,
         story="softsign x/(1 + |x|), whose backward writes 1 + x for 1 + |x|"),
    Kind("wrong only for large inputs", ("x",), {"x": (-4.0, 4.0)}, lambda ops, x: ops.atan(x),
         lambda ops, g, x: (g / (1 + x * x),),
         lambda ops, g, x: (g / ops.where(ops.abs(x) > 2, x * x, 1 + x * x),),
         # 1/x² ≠ 1/(1 + x²) for every x
         lambda p: abs(p["x"]) > 2, _large_only, {"x": 2.7}, cut=-2.5,
         story="atan, whose backward takes the asymptote 1/x² for 1/(1 + x²) where |x| > 2"),
    Kind("swapped inputs", ("x", "y"), {"x": (-2.0, 2.0), "y": (-2.0, 2.0)}, lambda ops, x, y: x * y * y,
         lambda ops, g, x, y: (g * y * y, g * 2 * x * y),
         lambda ops, g, x, y: (g * 2 * x * y, g * y * y),
         # y² - 2xy = y (y - 2x)
         lambda p: p["y"] != 0 and p["y"] != 2 * p["x"], _swapped, {"x": 0.8, "y": -1.1},
         story="x y², whose backward returns (∂f/∂y, ∂f/∂x)"),
    Kind("broadcast summed over the wrong axis", ("x", "b"), {"x": (-1.5, 1.5), "b": (-1.5, 1.5)},
         lambda ops, z, bias: z + bias,
         lambda ops, g, z, bias: (g, g.sum(0)),
         lambda ops, g, z, bias: (g, g.sum(1)),
         _broadcast_axis_changes, _broadcast_axis, {"x": 0.4, "b": -0.3}, outer=_bias_outer,
         story="sum(V * Y²), Y = x W + a bias b C added to each of 3 rows: its gradient summed over the features, "
               "not the rows"),
    Kind("broadcast averaged instead of summed", ("x", "b"), {"x": (-1.5, 1.5), "b": (-1.5, 1.5)},
         lambda ops, z, bias: z + bias,
         lambda ops, g, z, bias: (g, g.sum(0)),
         lambda ops, g, z, bias: (g, g.mean(0)),
         _broadcast_mean_changes, _broadcast_mean, {"x": 0.4, "b": -0.3}, outer=_bias_outer,
         story="sum(V * Y²), Y = x W + a bias b C added to each of 3 rows: its gradient the mean over the rows, "
               "not the sum"),
    Kind("float32 backward", ("x",), {"x": (-2.0, 2.0)}, lambda ops, x: ops.exp(x) * ops.sin(x),
         lambda ops, g, x: (g * ops.exp(x) * (ops.sin(x) + ops.cos(x)),),
         lambda ops, g, x: (g * ops.in_float32(lambda t: ops.exp(t) * (ops.sin(t) + ops.cos(t)), x),),
         # for x ≠ 0, eˣ(sin x + cos x) is transcendental (Lindemann-Weierstrass): never a binary32
         # number; at 0 it is exactly 1 in every precision
         lambda p: p["x"] != 0, _float32, {"x": 0.7},
         story="eˣ sin x, whose backward is the right formula evaluated in float32"),
    Kind("wrong second derivative", ("x", "y"), {"x": (-2.0, 2.0), "y": (-2.0, 2.0)}, _x3y,
         _square_rule("square"), _square_rule("wrong_square"),
         # the wrong ∂²f/∂y∂x is 2x² for 3x²
         lambda p: p["x"] != 0, _wrong_second, {"x": 1.2, "y": -0.8}, check="hessian",
         story="x³ y, whose backward is right but built from a square whose own backward gives x for 2x"),
    Kind("detached second derivative", ("x", "y"), {"x": (-2.0, 2.0), "y": (-2.0, 2.0)}, _x3y,
         lambda ops, g, x, y: (g * 3 * x * x * y, g * x * x * x),
         lambda ops, g, x, y: (g * 3 * ops.detach(x) * ops.detach(x) * y,
                               g * ops.detach(x) * ops.detach(x) * ops.detach(x)),
         # the wrong ∂²f/∂y∂x is 0 for 3x²
         lambda p: p["x"] != 0, _detached_second, {"x": 1.2, "y": -0.8}, check="hessian",
         story="x³ y, whose backward reads x detached: double backward through x gives 0"),
]


# -- entries: a kind, smooth or branching, wrong or the control -----------------------------

@dataclass(frozen=True)
class Entry:
    kind: Kind
    branching: bool = False
    control: bool = False

    @property
    def name(self) -> str:
        return self.kind.name + (", branching" if self.branching else "") + (" (control)" if self.control else "")

    @property
    def variables(self) -> tuple:
        return self.kind.variables

    @property
    def domain(self) -> dict:
        return self.kind.domain

    @property
    def check(self) -> str:
        return self.kind.check

    def on_rule(self, point) -> bool:
        """Whether f goes through the custom operation at ``point``."""
        return not self.branching or point[self.variables[0]] > self.kind.branch_cut

    def changes(self, point) -> bool:
        """Whether the bug changes the derivative the check asks for at ``point``."""
        return not self.control and self.on_rule(point) and bool(self.kind.changes(point))

    def exact(self, point):
        """(right entries, the entries this entry's rule gives) at ``point``, by hand (None
        on the plain side of a branching entry, whose derivative is the engine's own)."""
        if not self.on_rule(point):
            return None
        right, wrong = self.kind.exact(point)
        return right, (right if self.control else wrong)

    def shift(self, point) -> float:
        """How much the bug changes the derivative at ``point``: the largest change of an
        entry over the largest right entry (0 where it changes nothing)."""
        found = self.exact(point)
        if found is None or not self.changes(point):
            return 0.0
        right, wrong = found
        with mpmath.workdps(DPS):
            scale = max(abs(r) for r in right)
            change = max(abs(w - r) for r, w in zip(right, wrong))
            return float(change / scale) if scale else math.inf

    @property
    def example(self) -> dict:
        return self.kind.example

    def sample(self, rng, count: int) -> list:
        """``count`` random points of the domain, as the tools read them ({name: float})."""
        return [{n: rng.uniform(*self.domain[n]) for n in self.variables} for _ in range(count)]


def entries(kinds=None) -> list:
    """Every entry: each kind smooth and branching, wrong and its control."""
    return [Entry(k, branching, control) for k in (kinds or KINDS) for branching in (False, True)
            for control in (False, True)]


# -- the engines ----------------------------------------------------------------------------

def _class_name(entry: Entry) -> str:
    words = entry.kind.name.replace("/", " ").replace("-", " ").split()
    return "".join(w[:1].upper() + w[1:] for w in words if w[:1].isalnum()) + ("Control" if entry.control else "")


def _named(entry: Entry, f):
    """``f(*args)`` with the entry's variables as its parameters (the tools read them)."""
    f.__signature__ = inspect.Signature([inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD)
                                         for n in entry.variables])
    f.__name__ = f.__qualname__ = _class_name(entry).lower() + ("_branching" if entry.branching else "")
    return f


class _Ops:
    """What every engine provides: the functions the kinds use, and f built from an entry."""

    def rule(self, entry: Entry):
        raise NotImplementedError

    def function(self, entry: Entry):
        """The entry's f in this engine: a callable of the entry's variables."""
        cache = self.__dict__.setdefault("_built", {})
        if entry not in cache:
            kind, ops = entry.kind, self
            op = self.rule(entry)

            def plain(*inputs):
                return kind.forward(ops, *inputs)
            outer = kind.outer or (lambda ops, op, *args: op(*args))
            cut = kind.branch_cut

            def f(*args):
                if entry.branching and not args[0] > cut:        # a Python if on the value
                    return 0.5 * outer(ops, plain, *args) + args[0]
                return outer(ops, op, *args)
            cache[entry] = _named(entry, f)
        return cache[entry]


class FunctionOps(_Ops):
    """An engine whose custom operations subclass a PyTorch-style ``Function``: the engine
    and PyTorch (their interfaces are the same)."""

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
                return g * x                     # d(x²) is 2x

        self.square, self.wrong_square = Square.apply, WrongSquare.apply

    def detach(self, x):
        return x.detach()

    def in_float32(self, compute, x):
        return compute(x.float()).to(x.dtype)

    def rule(self, entry: Entry):
        kind, ops = entry.kind, self
        backward = kind.right if entry.control else kind.wrong

        def forward(ctx, *inputs):
            ctx.save_for_backward(*inputs)
            return kind.forward(ops, *inputs)

        def backward_(ctx, g):
            grads = backward(ops, g, *ctx.saved_tensors)
            return grads[0] if len(grads) == 1 else tuple(grads)
        cls = type(_class_name(entry), (self.function_base,),
                   {"forward": staticmethod(forward), "backward": staticmethod(backward_)})
        return cls.apply


class EngineOps(FunctionOps):
    """diffcompare's engine; f also runs on floats, NumPy arrays, mpmath numbers and SymPy
    symbols (through ``diffcompare.functions``), as the tool's reference needs."""

    name = "diffcompare"

    def __init__(self):
        from diffcompare import autograd as ag
        from diffcompare import functions as fn
        super().__init__(ag.Function)
        self.ag, self.fn = ag, fn
        self.sin, self.cos, self.exp, self.erf, self.tanh = fn.sin, fn.cos, fn.exp, fn.erf, fn.tanh
        self.atan, self.abs = fn.atan, fn.abs
        self.where = ag.where

    def const(self, values, like):
        if isinstance(like, self.ag.Tensor):
            return self.ag.tensor(np.array(values), dtype=like.dtype)
        return np.array(values)              # times a float, an mpmath number or a symbol: element by element

    def total(self, weights, y):
        """sum(weights * y * y): NumPy's arithmetic on object arrays where y is not a tensor (mpmath, SymPy)."""
        return (self.const(weights, y) * y * y).sum()


class TorchOps(FunctionOps):
    name = "torch"

    def __init__(self, torch):
        super().__init__(torch.autograd.Function)
        self.torch = torch
        self.sin, self.cos, self.exp, self.erf, self.tanh = torch.sin, torch.cos, torch.exp, torch.erf, torch.tanh
        self.atan, self.abs, self.where = torch.atan, torch.abs, torch.where

    def const(self, values, like):
        return self.torch.tensor(values, dtype=like.dtype)

    def total(self, weights, y):
        return (self.const(weights, y) * y * y).sum()

    def inputs(self, point: dict, variables):
        return tuple(self.torch.tensor(point[n], dtype=self.torch.float64, requires_grad=True) for n in variables)


class JaxOps(_Ops):
    name = "jax"

    def __init__(self, jax):
        import jax.numpy as jnp
        from jax.scipy import special
        self.jax, self.jnp = jax, jnp
        self.sin, self.cos, self.exp, self.erf, self.tanh = jnp.sin, jnp.cos, jnp.exp, special.erf, jnp.tanh
        self.atan, self.abs, self.where = jnp.arctan, jnp.abs, jnp.where

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

    def in_float32(self, compute, x):
        return compute(x.astype(self.jnp.float32)).astype(x.dtype)

    def const(self, values, like):
        return self.jnp.asarray(values, dtype=self.jnp.result_type(like))

    def total(self, weights, y):
        return self.jnp.sum(self.const(weights, y) * y * y)

    def inputs(self, point: dict, variables):
        return tuple(self.jnp.asarray(point[n], dtype=self.jnp.float64) for n in variables)

    def rule(self, entry: Entry):
        kind, ops = entry.kind, self
        backward = kind.right if entry.control else kind.wrong

        def op(*inputs):
            return kind.forward(ops, *inputs)
        op = self.jax.custom_vjp(op)
        op.defvjp(lambda *inputs: (kind.forward(ops, *inputs), inputs),
                  lambda inputs, g: tuple(backward(ops, g, *inputs)))
        return op


class Engines(LazyEngines):
    """The three engines, each built on first use (None where not installed)."""
    ENGINE, TORCH, JAX = EngineOps, TorchOps, JaxOps


ENTRIES = entries()
