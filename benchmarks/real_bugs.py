"""A corpus of REAL wrong backward (derivative) rules: each one shipped in a public library
and was reported in that library's public tracker (the URL is in ``source``; ``fix`` is the
URL of the PR, or of the thread, where the fix landed: empty for the bugs still open, whose
control is the fix proposed in their thread). It is the counterpart of ``wrong_rules.py``, whose
rules are invented: the same three engines, the same style. Every URL was found in the public
trackers' stored copies (issues and code search), none is reconstructed.

A bug is a custom operation written once against a small namespace of operations (``ops``)
that each engine provides: its forward, the backward rule as it SHIPPED (``shipped``) and the
rule as the fix made it (``fixed``); so each rule exists as a diffcompare ``ag.Function``, a
``torch.autograd.Function`` and a ``jax.custom_vjp``. Around the operation, ``outer`` builds
the function f of named variables (scalar output) that users differentiated when they hit the
bug. ``points`` are where they hit it (zeros, ties, a zero element in a vector, singular
matrices, huge magnitudes, ...; the first ``special`` of them) and a few ordinary points;
``domain`` is the box (per element, with ``shapes`` for arrays) in which an audit may choose
its own points.

Every bug answers, by hand-derived mathematics in mpmath (never by running a tool; where the
bug is an overflow, with binary64's thresholds, e.g. exp(x) = inf for x > 709.78):

- ``changes(point)``: whether the shipped rule's derivative differs from the true derivative
  of f there (NaN or inf where the true derivative is finite counts; at a kink, a value
  outside the subgradient interval counts);
- ``exact(point)``: the true derivative's entries, flattened in the order of the variables
  (arrays row-major); at a kink an entry is the interval ``(low, high)`` of the one-sided
  derivatives (the subgradient's projection on that entry); for ``check="hessian"`` the
  Hessian's entries;
- ``control_changes(point)``: whether the FIXED rule is itself wrong there (a fix that was
  incomplete), and ``inaccurate(point)``: whether both rules share a float64 breakdown there
  (a cancellation in a formula that is mathematically right), so that an alarm at such a
  point is not counted as false.

Forwards are written with the namespace's functions, which in the engine's namespace are
``diffcompare.functions`` (mapped over object arrays): the same forward runs on floats, NumPy
arrays, mpmath numbers, SymPy symbols and engine tensors, as the tool's exact reference needs.
A Python ``if`` on a value (``ops.select``) is used where a function is defined piecewise
(sinc at 0, a Bessel function's series near 0, softplus's threshold); JAX, which cannot branch
on a traced value, takes both branches with ``jnp.where`` instead. PyTorch and JAX are imported
only when asked for. Nothing here imports the tool's judging code: only ``diffcompare.autograd``
and ``diffcompare.functions``.

``verify()`` checks the corpus against itself: at every point, the shipped rule run by the
engine differs from ``exact`` exactly where ``changes`` says so, and the fixed rule agrees with
it (except where ``control_changes`` or ``inaccurate`` say otherwise); ``verify_engines()``
that the PyTorch and JAX versions compute what the engine's do. ``python real_bugs.py`` runs both.
"""

from __future__ import annotations

import inspect
import math
import operator
from dataclasses import dataclass, field
from fractions import Fraction
from functools import reduce

import mpmath
import numpy as np
from common import LazyEngines

DPS = 50
PI = math.pi                            # f is defined with binary64 π in every world
LN_MAX = 709.782712893384               # the largest binary64 x whose exp(x) is finite
LN_MIN_SUBNORMAL = -745.1332191019412   # at or below this, exp(x) rounds to 0 in binary64
KINDS = {
    "nan-smooth": "NaN/inf at a special point where f is differentiable",
    "nan-kink": "NaN at a kink",
    "wrong-value": "wrong finite value at a special point (an odd element, a singular matrix, a zero)",
    "ties": "double counting at ties (max)",
    "range": "wrong over a whole range of inputs",
    "overflow": "overflow/underflow in the backward formula at huge inputs",
    "second-order": "wrong second derivative",
}


@dataclass(frozen=True, eq=False)
class Bug:
    """One real wrong backward rule (see the module docstring). ``forward(ops, *inputs)`` is
    the custom operation; ``shipped`` and ``fixed`` are ``backward(ops, grad, *inputs) ->
    tuple``; ``outer(ops, op, *variables)`` builds f around the operation ``op`` (default:
    f = op(*variables))."""
    name: str
    library: str
    kind: str                       # a key of KINDS
    source: str                     # the issue or PR where the bug was reported
    story: str
    variables: tuple
    domain: dict                    # variable -> (low, high), per element for arrays
    forward: object
    shipped: object
    fixed: object
    points: tuple                   # the special points first, then ordinary ones
    special: int                    # how many of ``points`` are special
    exact: object                   # exact(point) -> [mpf or (low, high)]
    changes: object                 # changes(point) -> bool
    fix: str = ""                   # the PR or thread where the fix landed ("" when it did not)
    shapes: dict = field(default_factory=dict)      # array variables -> shape
    outer: object = None
    check: str = "gradient"
    control_changes: object = None  # control_changes(point) -> bool (the fix itself is wrong there)
    inaccurate: object = None       # inaccurate(point) -> bool (both rules break down in float64 there)

    @property
    def status(self) -> str:
        return "fixed" if self.fix else "unfixed"

    def shape(self, name) -> tuple:
        return tuple(self.shapes.get(name, ()))

    def control_wrong(self, point) -> bool:
        return bool(self.control_changes(point)) if self.control_changes else False

    def shared_breakdown(self, point) -> bool:
        return bool(self.inaccurate(point)) if self.inaccurate else False

    def is_special(self, point) -> bool:
        return any(point is p for p in self.points[:self.special])


# -- the hand-derived mathematics ------------------------------------------------------------------

def _mp(value):
    """A point's value (a float, a list, nested lists) as mpmath numbers (lists kept)."""
    if isinstance(value, (list, tuple)):
        return [_mp(v) for v in value]
    return mpmath.mpf(value)


def _flat(value):
    if isinstance(value, (list, tuple)):
        return [e for v in value for e in _flat(v)]
    return [value]


def _exp_overflows(t: float) -> bool:
    """Whether binary64 exp(t) is inf."""
    return t > LN_MAX


def _sigmoid(x):
    return 1 / (1 + mpmath.exp(-x))


def _interval(a, b):
    return (min(a, b), max(a, b))


def _sinc_d(x):
    """d/dx sin(πx)/(πx) (binary64 π), 0 at 0."""
    if x == 0:
        return mpmath.mpf(0)
    u = mpmath.mpf(PI) * x
    return mpmath.mpf(PI) * (u * mpmath.cos(u) - mpmath.sin(u)) / (u * u)


def _sinc_dd(x):
    p = mpmath.mpf(PI)
    if x == 0:
        return -p * p / 3
    u = p * x
    return p * p * (-mpmath.sin(u) / u - 2 * mpmath.cos(u) / u ** 2 + 2 * mpmath.sin(u) / u ** 3)


def _sinc_cancels(p, limit=1e-5):
    """Both sinc rules evaluate (πx cos πx − sin πx)/(πx²), whose relative rounding error is
    about 3u/(πx)² (JAX #34139): above 1e-6 for 0 < |x| < 1e-5."""
    return 0 < abs(p["x"]) < limit


# -- the namespaces of operations ------------------------------------------------------------------

def _each(f):
    """f applied element by element to an object array (mpmath numbers, SymPy symbols), as is
    to anything else (floats, float arrays and tensors, which f takes whole)."""
    def apply(x):
        if isinstance(x, np.ndarray) and x.dtype == object:
            out = np.empty(x.shape, dtype=object)
            for index, element in np.ndenumerate(x):
                out[index] = f(element)
            return out
        return f(x)
    return apply


class _Ops:
    """What every engine provides; ``function(bug, rule)`` is f built with the rule."""

    pi = PI

    def rule(self, bug: Bug, which: str):
        raise NotImplementedError

    def function(self, bug: Bug, which: str):
        """f in this engine with the ``which`` rule ("shipped" or "fixed"): a callable of the
        bug's variables."""
        cache = self.__dict__.setdefault("_built", {})
        key = (bug.name, which)
        if key not in cache:
            op = self.rule(bug, which)
            outer = bug.outer or (lambda ops, op, *args: op(*args))
            ops = self

            def f(*args):
                return outer(ops, op, *args)
            f.__signature__ = inspect.Signature([inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD)
                                                 for n in bug.variables])
            f.__name__ = f.__qualname__ = f"{bug.name}_{which}"
            cache[key] = f
        return cache[key]


def _class_name(bug: Bug, which: str) -> str:
    return "".join(w[:1].upper() + w[1:] for w in bug.name.split("_")) + ("Fixed" if which == "fixed" else "")


class FunctionOps(_Ops):
    """An engine whose custom operations subclass a PyTorch-style ``Function`` (the engine,
    PyTorch)."""

    def __init__(self, function_base):
        self.function_base = function_base

    def rule(self, bug: Bug, which: str):
        backward = bug.fixed if which == "fixed" else bug.shipped
        ops = self

        def forward(ctx, *inputs):
            ctx.save_for_backward(*inputs)
            return bug.forward(ops, *inputs)

        def backward_(ctx, g):
            grads = backward(ops, g, *ctx.saved_tensors)
            return grads[0] if len(grads) == 1 else tuple(grads)
        cls = type(_class_name(bug, which), (self.function_base,),
                   {"forward": staticmethod(forward), "backward": staticmethod(backward_)})
        return cls.apply


class EngineOps(FunctionOps):
    """diffcompare's engine. Its forwards also run on floats, NumPy arrays, mpmath numbers and
    SymPy symbols (``diffcompare.functions``, mapped over object arrays), as the reference
    needs; backwards run on engine tensors only."""

    name = "diffcompare"

    def __init__(self):
        from diffcompare import autograd as ag
        from diffcompare import functions as fn
        super().__init__(ag.Function)
        self.ag, self.fn = ag, fn
        for name in ("sin", "cos", "sinh", "cosh", "exp", "log", "log1p", "sqrt", "abs", "relu", "softplus", "sign"):
            setattr(self, name, _each(getattr(fn, name)))

    def _is_tensor(self, x):
        return isinstance(x, self.ag.Tensor)

    def where(self, cond, a, b):
        return self.ag.where(cond, a, b)

    def select(self, cond, a, b):
        """A Python ``if`` on the value (SymPy traces it as a branch)."""
        return a() if cond else b()

    def sum(self, v):
        if self._is_tensor(v):
            return v.sum()
        if isinstance(v, np.ndarray):
            return v.sum() if v.dtype != object else reduce(operator.add, list(v.flat))
        return v

    def prod(self, v):
        if self._is_tensor(v):
            return v.prod()
        if isinstance(v, np.ndarray):
            return np.prod(v) if v.dtype != object else reduce(operator.mul, list(v.flat))
        return v

    def vmax(self, v):
        if self._is_tensor(v):
            return v.max()
        return reduce(self.fn.max, list(np.asarray(v, dtype=object).flat))

    def stack(self, items):
        if any(self._is_tensor(i) for i in items):
            return self.ag.stack([i if self._is_tensor(i) else self.ag.tensor(float(i)) for i in items])
        if all(isinstance(i, (int, float, np.floating, np.integer))
               or (isinstance(i, np.ndarray) and i.dtype != object) for i in items):
            return np.array([np.asarray(i, dtype=float) for i in items], dtype=float)
        out = np.empty((len(items),) + np.shape(items[0]), dtype=object)
        for k, i in enumerate(items):
            out[k] = i
        return out

    def const(self, values, like):
        if self._is_tensor(like):
            return self.ag.tensor(np.array(values, dtype=float), dtype=like.dtype)
        if isinstance(like, (float, np.floating)) or (isinstance(like, np.ndarray) and like.dtype != object):
            return np.array(values, dtype=float)
        return np.array(values, dtype=object)


class TorchOps(FunctionOps):
    name = "torch"

    def __init__(self, torch):
        super().__init__(torch.autograd.Function)
        self.torch = torch
        for name in ("sin", "cos", "sinh", "cosh", "exp", "log", "log1p", "sqrt", "abs", "relu", "sign"):
            setattr(self, name, getattr(torch, name))

    def softplus(self, x):
        return self.torch.logaddexp(x, self.torch.zeros_like(x))

    def where(self, cond, a, b):
        t = self.torch
        if not isinstance(a, t.Tensor) and not isinstance(b, t.Tensor):     # two numbers: float64, not float32
            a = t.tensor(a, dtype=t.float64)
        return t.where(cond, a, b)

    def select(self, cond, a, b):
        return a() if bool(cond) else b()

    def sum(self, v):
        return v.sum()

    def prod(self, v):
        return v.prod()

    def vmax(self, v):
        return v.max()

    def stack(self, items):
        t = self.torch
        return t.stack([i if isinstance(i, t.Tensor) else t.tensor(float(i), dtype=t.float64) for i in items])

    def const(self, values, like):
        return self.torch.tensor(values, dtype=like.dtype)

    def inputs(self, bug: Bug, point: dict):
        t = self.torch
        return tuple(t.tensor(point[n], dtype=t.float64, requires_grad=True) for n in bug.variables)


class JaxOps(_Ops):
    name = "jax"

    def __init__(self, jax):
        import jax.numpy as jnp
        self.jax, self.jnp = jax, jnp
        for name in ("sin", "cos", "sinh", "cosh", "exp", "log", "log1p", "sqrt", "abs", "sign"):
            setattr(self, name, getattr(jnp, name))

    def relu(self, x):
        return self.jnp.maximum(x, 0.0)

    def softplus(self, x):
        return self.jnp.logaddexp(x, 0.0)

    def where(self, cond, a, b):
        return self.jnp.where(cond, a, b)

    def select(self, cond, a, b):
        """JAX cannot branch on a traced value: both branches, then where."""
        return self.jnp.where(cond, a(), b())

    def sum(self, v):
        return self.jnp.sum(v)

    def prod(self, v):
        return self.jnp.prod(v)

    def vmax(self, v):
        return self.jnp.max(v)

    def stack(self, items):
        return self.jnp.stack([self.jnp.asarray(i, dtype=self.jnp.float64) for i in items])

    def const(self, values, like):
        return self.jnp.asarray(values, dtype=self.jnp.result_type(like))

    def inputs(self, bug: Bug, point: dict):
        return tuple(self.jnp.asarray(point[n], dtype=self.jnp.float64) for n in bug.variables)

    def rule(self, bug: Bug, which: str):
        backward = bug.fixed if which == "fixed" else bug.shipped
        ops = self

        def primal(*inputs):
            return bug.forward(ops, *inputs)
        op = self.jax.custom_vjp(primal)
        op.defvjp(lambda *inputs: (bug.forward(ops, *inputs), inputs),
                  lambda inputs, g: tuple(backward(ops, g, *inputs)))
        return op


class Engines(LazyEngines):
    """The three engines, each built on first use (None where not installed)."""
    ENGINE, TORCH, JAX = EngineOps, TorchOps, JaxOps


# ==============================================================================================
# The bugs. Each block: the forward, the shipped rule (as it shipped), the fixed rule (as the
# fix made it), the hand-derived answers, and the Bug.
# ==============================================================================================

# -- PyTorch: norm at zero -------------------------------------------------------------------------

def _norm(ops, x):
    return ops.sqrt(ops.sum(x * x))


def _norm_shipped(ops, g, x):
    return (g * x / _norm(ops, x),)                      # NaN = 0/0 at x = 0


def _norm_fixed(ops, g, x):
    n = _norm(ops, x)
    return (ops.where(n == 0, 0.0, g * x / ops.where(n == 0, 1.0, n)),)     # the subgradient 0 at 0


def _norm_exact(p):
    with mpmath.workdps(DPS):
        x = _mp(p["x"])
        r = mpmath.sqrt(sum(v * v for v in x))
        if r == 0:
            return [(-1, 1)] * len(x)
        return [v / r for v in x]


def _all_zero(name):
    return lambda p: all(v == 0 for v in _flat(p[name]))


def _any_zero(name):
    return lambda p: any(v == 0 for v in _flat(p[name]))


# -- PyTorch: std of a constant vector -------------------------------------------------------------

def _std(ops, x):
    m = ops.sum(x) / 3.0
    d = x - m
    return ops.sqrt(ops.sum(d * d) / 2.0)


def _std_shipped(ops, g, x):
    s = _std(ops, x)
    m = ops.sum(x) / 3.0
    return ((g / (2.0 * s)) * (2.0 * (x - m) / 2.0),)   # var_backward(grad / (2 * result)): 0/0 at a constant x


def _std_fixed(ops, g, x):
    s = _std(ops, x)
    m = ops.sum(x) / 3.0
    return (ops.where(s == 0, 0.0, (g / (2.0 * ops.where(s == 0, 1.0, s))) * (2.0 * (x - m) / 2.0)),)


def _std_exact(p):
    with mpmath.workdps(DPS):
        x = _mp(p["x"])
        n = len(x)
        m = sum(x) / n
        s = mpmath.sqrt(sum((v - m) ** 2 for v in x) / (n - 1))
        if s == 0:                          # std = ||x - m|| / sqrt(n - 1): the ball's projection, ±1/sqrt(n)
            h = 1 / mpmath.sqrt(n)
            return [(-h, h)] * n
        return [(v - m) / ((n - 1) * s) for v in x]


def _constant(name):
    return lambda p: len(set(_flat(p[name]))) == 1


# -- PyTorch: x.pow(0) at x = 0 (polynomial features) ----------------------------------------------

POWERS = (0.0, 1.0, 2.0)


def _powers(ops, x):
    return ops.stack([x ** 0, x ** 1, x ** 2])


def _powers_shipped(ops, g, x):
    k = ops.const(POWERS, g)
    return (ops.sum(g * k * x ** (k - 1)),)              # grad * exponent * self.pow(exponent - 1): 0 * inf at 0


def _powers_fixed(ops, g, x):
    k = ops.const(POWERS, g)
    return (ops.sum(ops.where(k == 0, 0.0, g * k * x ** (k - 1))),)


def _powers_exact(p):
    with mpmath.workdps(DPS):
        x, w = _mp(p["x"]), _mp(p["w"])
        return [w[1] + 2 * w[2] * x, mpmath.mpf(1), x, x * x]


# -- PyTorch: d/db a**b at a = 0 -------------------------------------------------------------------

BASES = (0.0, 2.0)


def _base_pow(ops, b):
    # a ** b with the constant base (0, 2): 0 ** b = 0 for b > 0 (the domain), written so that
    # SymPy's derivative of it is 0 rather than 0**b * log(0)
    return ops.stack([b[0] * 0.0, BASES[1] ** b[1]])


def _base_pow_shipped(ops, g, b):
    a = ops.const(BASES, b)
    return (g * _base_pow(ops, b) * ops.log(a),)         # grad * result * self.log(): 0 * -inf = NaN


def _base_pow_fixed(ops, g, b):
    a = ops.const(BASES, b)
    formula = g * _base_pow(ops, b) * ops.log(ops.where(a == 0, 1.0, a))
    return (ops.where(a == 0, ops.where(b >= 0, 0.0, formula), formula),)   # cond = self == 0 & exponent >= 0


def _base_pow_exact(p):
    with mpmath.workdps(DPS):
        b = _mp(p["b"])
        return [mpmath.mpf(0), mpmath.mpf(2) ** b[1] * mpmath.log(2)]


# -- sinc at 0 (PyTorch, JAX) ----------------------------------------------------------------------

def _sinc(ops, x):
    return ops.select(x == 0, lambda: x * 0.0 + 1.0, lambda: ops.sin(PI * x) / (PI * x))


def _torch_sinc_shipped(ops, g, x):
    return (g * ((PI * x * ops.cos(PI * x) - ops.sin(PI * x)) / (PI * x * x)),)     # 0/0 at 0


def _torch_sinc_fixed(ops, g, x):
    t = PI * x * x
    out = g * ((PI * x * ops.cos(PI * x) - ops.sin(PI * x)) / ops.where(t == 0, 1.0, t))
    return (ops.where(t == 0, 0.0, out),)                # where(self_squared_pi == 0, 0, out)


def _sinc_quotient_d(ops, x):
    """d/dx sin(πx)/(πx) as JAX's autodiff of the quotient computes it."""
    u = PI * x
    return PI * ops.cos(u) / u - ops.sin(u) * PI / (u * u)


def _jax_sinc_shipped(ops, g, x):
    # where(x == 0, 1, sin(πx)/(πx)): the cotangent of the unselected branch is 0, times the
    # quotient's derivative at 0, NaN: 0 * NaN
    return (ops.where(x == 0, 0.0, g) * _sinc_quotient_d(ops, x),)


def _jax_sinc_fixed(ops, g, x):
    safe = ops.where(x == 0, 1.0, x)                     # the double-where trick
    return (ops.where(x == 0, 0.0, g) * _sinc_quotient_d(ops, safe),)


def _sinc_exact(p):
    with mpmath.workdps(DPS):
        return [_sinc_d(mpmath.mpf(p["x"]))]


def _sinc_d_at(ops, x):
    safe = ops.where(x == 0, 1.0, x)
    u = PI * safe
    return (u * ops.cos(u) - ops.sin(u)) / (PI * safe * safe)


def _sinc2_shipped(ops, g, x):
    # sinc = where(x == 0, 1, ...): at 0 the derivative of the constant, so the rule's own
    # derivative at 0 (the second derivative) is 0
    return (g * ops.where(x == 0, 0.0 * x, _sinc_d_at(ops, x)),)


def _sinc2_fixed(ops, g, x):
    # the Maclaurin series at 0 (custom_jvp): sinc'(x) ~ -π²x/3, whose derivative is -π²/3
    return (g * ops.where(x == 0, -(PI * PI / 3.0) * x, _sinc_d_at(ops, x)),)


def _sinc2_exact(p):
    with mpmath.workdps(DPS):
        return [_sinc_dd(mpmath.mpf(p["x"]))]


# -- PyTorch: prod with a zero element (MXNet: the same formula) -----------------------------------

def _prod(ops, x):
    return ops.prod(x)


def _prod_shipped(ops, g, x):
    return (g * ops.prod(x) / x,)                        # result / input: 0/0 at a zero


def _prod_fixed(ops, g, x):
    zero = ops.where(x == 0, 1.0, 0.0)
    count = ops.sum(zero)
    safe = ops.where(x == 0, 1.0, x)
    none = g * ops.prod(x) / safe
    one = ops.where(x == 0, g * ops.prod(safe), 0.0)
    return (ops.where(count == 0, none, ops.where(count == 1, one, 0.0 * x)),)


def _prod_exact(p):
    with mpmath.workdps(DPS):
        x = _mp(p["x"])
        return [reduce(operator.mul, [v for j, v in enumerate(x) if j != i], mpmath.mpf(1)) for i in range(len(x))]


# -- PyTorch: xlogy at x = 0 -----------------------------------------------------------------------

def _xlogy(ops, x, y):
    return x * ops.log(y)


def _xlogy_shipped(ops, g, x, y):
    return (g * ops.where(x != 0, ops.log(y), 0.0), g * x / y)     # xlogy(self != 0, other): 0 at x = 0


def _xlogy_fixed(ops, g, x, y):
    return (g * ops.log(y), g * x / y)                   # xlogy(grad, other)


def _xlogy_exact(p):
    with mpmath.workdps(DPS):
        x, y = _mp(p["x"]), _mp(p["y"])
        return [mpmath.log(v) for v in y] + [a / b for a, b in zip(x, y)]


# -- PyTorch: softplus(beta=3, threshold=1), backward tests the output -----------------------------

BETA, THRESHOLD = 3.0, 1.0


def _softplus_thr(ops, x):
    return ops.select(x * BETA > THRESHOLD, lambda: x, lambda: ops.log1p(ops.exp(x * BETA)) / BETA)


def _softplus_thr_shipped(ops, g, x):
    out = ops.where(x * BETA > THRESHOLD, x, ops.log1p(ops.exp(x * BETA)) / BETA)
    z = ops.exp(out * BETA)
    return (ops.where(out * BETA > THRESHOLD, g, g * (z - 1.0) / z),)   # (b * beta) > threshold, b the OUTPUT


def _softplus_thr_fixed(ops, g, x):
    z = ops.exp(x * BETA)
    return (ops.where(x * BETA > THRESHOLD, g, g * z / (z + 1.0)),)     # the input decides


def _softplus_thr_exact(p):
    with mpmath.workdps(DPS):
        x = mpmath.mpf(p["x"])
        return [mpmath.mpf(1) if BETA * x > THRESHOLD else _sigmoid(BETA * x)]


def _softplus_thr_changes(p):
    with mpmath.workdps(DPS):
        x = mpmath.mpf(p["x"])
        # linear cut-off by the input at 3x > 1; the shipped rule switches where the OUTPUT
        # crosses it: log1p(exp(3x)) > 1, i.e. x > ln(e - 1)/3 = 0.1804...
        return not BETA * x > THRESHOLD and mpmath.log1p(mpmath.exp(BETA * x)) > THRESHOLD


# -- PyTorch: smooth_l1_loss with beta = 0 ---------------------------------------------------------

def _l1(ops, x, y):
    return ops.abs(x - y)


def _smooth_l1_shipped(ops, g, x, y):
    d = x - y
    gx = g * ops.where(d < 0, -1.0, ops.where(d > 0, 1.0, d / 0.0))   # x / beta with beta = 0: 0/0
    return (gx, -gx)


def _smooth_l1_fixed(ops, g, x, y):
    d = x - y
    gx = g * ops.where(d > 0, 1.0, ops.where(d < 0, -1.0, 0.0))        # l1_loss's backward: sign
    return (gx, -gx)


def _l1_exact(p):
    with mpmath.workdps(DPS):
        d = mpmath.mpf(p["x"]) - mpmath.mpf(p["y"])
        if d == 0:
            return [(-1, 1), (-1, 1)]
        s = mpmath.sign(d)
        return [s, -s]


# -- JAX: softplus at 0 ----------------------------------------------------------------------------

def _softplus(ops, x):
    return ops.softplus(x)


def _softplus_shipped(ops, g, x):
    # logaddexp(x, 0) = max(x, 0) + log1p(exp(-|x - 0|)) differentiated with JAX's rules of the
    # time: max at a tie 0.5, abs'(0) = 1; at 0: 0.5 - 0.5 = 0
    e = ops.exp(-ops.abs(x))
    d_max = ops.where(x > 0, 1.0, ops.where(x == 0, 0.5, 0.0))
    d_abs = ops.where(x >= 0, 1.0, -1.0)
    return (g * (d_max - d_abs * e / (1.0 + e)),)


def _softplus_fixed(ops, g, x):
    out = ops.where(x > 0, x, 0.0) + ops.log1p(ops.exp(-ops.abs(x)))
    return (g * ops.exp(x - out),)                        # logaddexp's JVP: t * exp(x - out)


def _softplus_exact(p):
    with mpmath.workdps(DPS):
        return [_sigmoid(mpmath.mpf(p["x"]))]


# -- determinant of a singular matrix (JAX, PyTorch) -----------------------------------------------

def _det(ops, A):
    return A[0, 0] * A[1, 1] - A[0, 1] * A[1, 0]


def _adj_t(ops, A):
    return ops.stack([ops.stack([A[1, 1], -A[1, 0]]), ops.stack([-A[0, 1], A[0, 0]])])


def _jax_det_shipped(ops, g, A):
    d = _det(ops, A)
    return (g * d * (_adj_t(ops, A) / d),)               # det * A^{-T}: 0 * inf (or 0/0) when singular


def _det_fixed(ops, g, A):
    return (g * _adj_t(ops, A),)                          # the cofactor (adjugate), defined for every A


def _torch_det_shipped(ops, g, A):
    # det * solve(LU, ...) with the zero pivots of a singular LU replaced by eps: det = 0 makes it 0
    d = _det(ops, A)
    return (g * d * _adj_t(ops, A) / ops.where(d == 0, 2.0 ** -52, d),)


def _det_exact(p):
    with mpmath.workdps(DPS):
        (a, b), (c, d) = _mp(p["A"])
        return [d, -c, -b, a]


def _det_zero(p):
    (a, b), (c, d) = [[Fraction(v) for v in row] for row in p["A"]]
    return a * d == b * c


def _det_zero_nonzero_adj(p):
    return _det_zero(p) and any(v != 0 for v in _flat(p["A"]))


# -- JAX: logsumexp with a masked (where=False) huge entry -----------------------------------------

LSE_MASK = (1.0, 1.0, 0.0)


def _lse_masked(ops, v):
    return ops.log(ops.exp(v[0]) + ops.exp(v[1]))        # the third entry is masked out


def _lse_masked_shipped(ops, g, v):
    m = ops.const(LSE_MASK, v)
    amax = ops.where(v[0] > v[1], v[0], v[1])
    e = ops.exp(v - amax)                                 # exp of the masked entry too: inf when it is huge
    s = e[0] + e[1]
    return (ops.where(m == 1, g / s, 0.0) * e,)           # 0 * inf = NaN


def _lse_masked_fixed(ops, g, v):
    m = ops.const(LSE_MASK, v)
    amax = ops.where(v[0] > v[1], v[0], v[1])
    e = ops.exp(ops.where(m == 1, v, amax) - amax)        # the input projected first
    s = e[0] + e[1]
    return (ops.where(m == 1, g / s, 0.0) * e,)


def _lse_masked_outer(ops, op, a, m):
    return op(ops.stack([a[0], a[1], m]))


def _lse_masked_exact(p):
    with mpmath.workdps(DPS):
        a = _mp(p["a"])
        s = mpmath.exp(a[0]) + mpmath.exp(a[1])
        return [mpmath.exp(a[0]) / s, mpmath.exp(a[1]) / s, mpmath.mpf(0)]


def _lse_masked_changes(p):
    return _exp_overflows(p["m"] - max(p["a"]))


# -- JAX: logsumexp(0, b=b) with a zero b ----------------------------------------------------------

def _lse_b(ops, b):
    return ops.log(b[0] + b[1])                           # logsumexp([0, 0], b=b)


def _lse_b_shipped(ops, g, b):
    out = ops.log(b[0] + b[1])
    return (g * ops.where(b != 0, ops.exp(0.0 - out), 0.0),)   # a -> -inf where b == 0: exp(-inf) = 0


def _lse_b_fixed(ops, g, b):
    out = ops.log(b[0] + b[1])
    return (g * ops.exp(0.0 - out) + 0.0 * b,)            # exp(a - out) for every entry


def _lse_b_exact(p):
    with mpmath.workdps(DPS):
        b = _mp(p["b"])
        return [1 / (b[0] + b[1])] * 2


# -- TensorFlow: xlog1py at x = 0 ------------------------------------------------------------------

def _xlog1py(ops, x, y):
    return x * ops.log1p(y)


def _xlog1py_shipped(ops, g, x, y):
    return (g * ops.where(x != 0, ops.log1p(y), 0.0), g * x / (1.0 + y))   # xlog1py(not_zero_x, y)


def _xlog1py_fixed(ops, g, x, y):
    return (g * ops.log1p(y), g * x / (1.0 + y))


def _xlog1py_exact(p):
    with mpmath.workdps(DPS):
        x, y = mpmath.mpf(p["x"]), mpmath.mpf(p["y"])
        return [mpmath.log1p(y), x / (1 + y)]


# -- TensorFlow: pow's gradient with respect to the exponent at x = 0 ------------------------------

def _pow(ops, x, y):
    return x ** y


def _tf_pow_shipped(ops, g, x, y):
    z = x ** y
    return (g * y * x ** (y - 1.0), g * z * ops.log(x))  # z * log(x): 0 * -inf at x = 0


def _tf_pow_fixed(ops, g, x, y):
    z = x ** y
    mask = x > 0                                          # "Avoid false singularity at x = 0"
    log_x = ops.where(mask, ops.log(ops.where(mask, x, 1.0)), 0.0)
    return (g * y * x ** (y - 1.0), g * z * log_x)


def _tf_pow_exact(p):
    with mpmath.workdps(DPS):
        x, y = mpmath.mpf(p["x"]), mpmath.mpf(p["y"])
        if x == 0:
            return [mpmath.mpf(0), mpmath.mpf(0)]        # y > 1: x^(y-1) -> 0; x^y = 0 for every y > 0
        return [y * x ** (y - 1), x ** y * mpmath.log(x)]


# -- TensorFlow.js: pow's gradient with respect to the base divides by the base --------------------

TFJS_EXPONENTS = (2.0, 3.0, 2.5)


def _tfjs_pow(ops, a):
    return a ** ops.const(TFJS_EXPONENTS, a)


def _tfjs_pow_shipped(ops, g, a):
    b = ops.const(TFJS_EXPONENTS, a)
    return (g * b * a ** b / a,)                          # b * pow(a, b) / a: 0/0 at a = 0


def _tfjs_pow_fixed(ops, g, a):
    b = ops.const(TFJS_EXPONENTS, a)
    return (g * b * a ** (b - 1.0),)                      # the power rule


def _tfjs_pow_exact(p):
    with mpmath.workdps(DPS):
        a = _mp(p["a"])
        return [mpmath.mpf(b) * v ** (mpmath.mpf(b) - 1) for v, b in zip(a, TFJS_EXPONENTS)]


# -- HIPS autograd: abs at 0 -----------------------------------------------------------------------

def _abs(ops, x):
    return ops.abs(x)


def _hips_abs_shipped(ops, g, x):
    return (g * x / ops.abs(x),)                          # g * conj(x) / ans


def _hips_abs_fixed(ops, g, x):
    ans = ops.abs(x)
    return (g * x / ops.where(ans == 0, 1.0, ans),)       # np.where around the division: 0 at 0


def _abs_exact(p):
    with mpmath.workdps(DPS):
        return [(-1, 1) if v == 0 else mpmath.sign(v) for v in _mp(p["x"])]


# -- max with ties: HIPS autograd (duplicated entries), MXNet and Theano (a tie between branches) ---

def _vmax(ops, v):
    return ops.vmax(v)


def _max_shipped(ops, g, v):
    return (g * ops.where(v == ops.vmax(v), 1.0, 0.0),)  # every entry equal to the max gets the whole gradient


def _max_fixed(ops, g, v):
    loc = ops.where(v == ops.vmax(v), 1.0, 0.0)
    return (g * loc / ops.sum(loc),)                      # split evenly among the ties


def _max_dup_outer(ops, op, x, y):
    return op(ops.stack([x, y, x]))


def _max_dup_exact(p):
    x, y = p["x"], p["y"]
    if x > y:
        return [mpmath.mpf(1), mpmath.mpf(0)]
    if x < y:
        return [mpmath.mpf(0), mpmath.mpf(1)]
    return [(0, 1), (0, 1)]


def _branches_exact(branches):
    """f(w) = max of branches (value, slope) of one variable: the active slope, or at a tie the
    interval of the active slopes (f is convex: a max of convex functions)."""
    def exact(p):
        with mpmath.workdps(DPS):
            w = mpmath.mpf(p["w"])
            values = [(value(w), slope(w)) for value, slope in branches]
            top = max(v for v, _ in values)
            active = [s for v, s in values if v == top]
            return [active[0] if len(active) == 1 else (min(active), max(active))]
    return exact


def _branches_changes(branches):
    """The shipped rule sums the active slopes; the subgradient is [min, max] of them: outside
    it whenever two or more positive slopes tie."""
    def changes(p):
        with mpmath.workdps(DPS):
            w = mpmath.mpf(p["w"])
            values = [(value(w), slope(w)) for value, slope in branches]
            top = max(v for v, _ in values)
            active = [s for v, s in values if v == top]
            return len(active) > 1 and not (min(active) <= sum(active) <= max(active))
    return changes


MXNET_BRANCHES = ((lambda w: w, lambda w: 1), (lambda w: 2 * w - 1, lambda w: 2), (lambda w: w * w, lambda w: 2 * w))
THEANO_BRANCHES = ((lambda w: w, lambda w: 1), (lambda w: 3 * w - 2, lambda w: 3))


def _mxnet_max_outer(ops, op, w):
    return op(ops.stack([w, 2.0 * w - 1.0, w * w]))


def _theano_max_outer(ops, op, w):
    return op(ops.stack([w, 3.0 * w - 2.0]))


# -- Chainer: normalize (x / (||x|| + eps)) --------------------------------------------------------

EPS_NORMALIZE = 1e-5
WEIGHTS = (0.5, -1.0, 2.0)


def _normalize(ops, x):
    return x / (ops.sqrt(ops.sum(x * x)) + EPS_NORMALIZE)


def _normalize_outer(ops, op, x):
    return ops.sum(ops.const(WEIGHTS, x) * op(x))


def _normalize_before_4190(ops, g, x):
    n = ops.sqrt(ops.sum(x * x)) + EPS_NORMALIZE
    return ((g * n - ops.sum(x * g) * x / n) / (n * n),)  # divides x·g by norm + eps, not by norm


def _normalize_4190(ops, g, x):
    r = ops.sqrt(ops.sum(x * x))
    n = r + EPS_NORMALIZE
    return ((g * n - (ops.sum(x * g) / r) * x) / (n * n),)    # x_gy_reduced /= norm_noeps: 0/0 at x = 0


def _normalize_4769(ops, g, x):
    r = ops.sqrt(ops.sum(x * x))
    n = r + EPS_NORMALIZE
    reduced = ops.where(r == 0, 0.0, ops.sum(x * g) / ops.where(r == 0, 1.0, r))
    return ((g * n - reduced * x) / (n * n),)


def _normalize_exact(p):
    with mpmath.workdps(DPS):
        x = _mp(p["x"])
        w = [mpmath.mpf(v) for v in WEIGHTS]
        r = mpmath.sqrt(sum(v * v for v in x))
        n = r + mpmath.mpf(EPS_NORMALIZE)
        if r == 0:
            return [wi / n for wi in w]
        xw = sum(a * b for a, b in zip(x, w))
        return [wi / n - xi * xw / (r * n * n) for wi, xi in zip(w, x)]


def _normalize_eps_changes(p):
    x = [Fraction(v) for v in p["x"]]
    return any(v != 0 for v in x) and sum(a * Fraction(b) for a, b in zip(x, WEIGHTS)) != 0


# -- SciPy: derivatives of the spherical Bessel functions j1 and i1 at 0 ---------------------------

SERIES = 0.01            # below it the forwards use their Maclaurin series (no cancellation)


def _j1(ops, z):
    return ops.select(z * z < SERIES * SERIES,           # not abs(z): abs would be read as a kink at 0
                      lambda: z / 3.0 - z ** 3 / 30.0 + z ** 5 / 840.0 - z ** 7 / 45360.0,
                      lambda: ops.sin(z) / (z * z) - ops.cos(z) / z)


def _i1(ops, z):
    return ops.select(z * z < SERIES * SERIES,
                      lambda: z / 3.0 + z ** 3 / 30.0 + z ** 5 / 840.0 + z ** 7 / 45360.0,
                      lambda: ops.cosh(z) / z - ops.sinh(z) / (z * z))


def _bessel_recurrence(ops, z, sign):
    """j_1' = j_0 - 2 j_1/z (sign -1) or i_1' = i_0 - 2 i_1/z (sign +1), the values of j_0, j_1
    (i_0, i_1) accurate near 0 (SciPy computes them accurately); z = 0 is the caller's case."""
    small = ops.abs(z) < SERIES
    safe = ops.where(z == 0, 1.0, z)
    if sign < 0:
        f0 = ops.where(small, 1.0 - z * z / 6.0 + z ** 4 / 120.0, ops.sin(safe) / safe)
        f1 = ops.where(small, z / 3.0 - z ** 3 / 30.0 + z ** 5 / 840.0 - z ** 7 / 45360.0,
                       ops.sin(safe) / (safe * safe) - ops.cos(safe) / safe)
    else:
        sinh = (ops.exp(safe) - ops.exp(-safe)) / 2.0
        cosh = (ops.exp(safe) + ops.exp(-safe)) / 2.0
        f0 = ops.where(small, 1.0 + z * z / 6.0 + z ** 4 / 120.0, sinh / safe)
        f1 = ops.where(small, z / 3.0 + z ** 3 / 30.0 + z ** 5 / 840.0 + z ** 7 / 45360.0,
                       cosh / safe - sinh / (safe * safe))
    return f0 - 2.0 * f1 / safe


def _jn_shipped(ops, g, z):
    return (g * ops.where(z == 0, 0.0, _bessel_recurrence(ops, z, -1)),)    # if x == 0: return 0


def _jn_fixed(ops, g, z):
    return (g * ops.where(z == 0, 1.0 / 3.0, _bessel_recurrence(ops, z, -1)),)   # n == 1: 1/3


def _in_shipped(ops, g, z):
    return (g * ops.where(z == 0, 0.0, _bessel_recurrence(ops, z, 1)),)


def _in_fixed(ops, g, z):
    return (g * ops.where(z == 0, 1.0 / 3.0, _bessel_recurrence(ops, z, 1)),)


def _j1_exact(p):
    with mpmath.workdps(DPS):
        z = mpmath.mpf(p["z"])
        if z == 0:
            return [mpmath.mpf(1) / 3]
        j0, j1 = mpmath.sin(z) / z, mpmath.sin(z) / z ** 2 - mpmath.cos(z) / z
        return [j0 - 2 * j1 / z]


def _i1_exact(p):
    with mpmath.workdps(DPS):
        z = mpmath.mpf(p["z"])
        if z == 0:
            return [mpmath.mpf(1) / 3]
        i0, i1 = mpmath.sinh(z) / z, mpmath.cosh(z) / z - mpmath.sinh(z) / z ** 2
        return [i0 - 2 * i1 / z]


# -- PaddlePaddle: sigmoid_cross_entropy_with_logits with pos_weight -------------------------------

PADDLE_LABEL = (0.3, 0.8, 0.5)
PADDLE_POS_WEIGHT = (0.5, 2.0, 1.0)


def _paddle_bce(ops, x):
    label, weight = ops.const(PADDLE_LABEL, x), ops.const(PADDLE_POS_WEIGHT, x)
    return ops.relu(x) - x * label + weight * ops.log1p(ops.exp(-ops.abs(x)))


def _paddle_shipped(ops, g, x):
    label, weight = ops.const(PADDLE_LABEL, x), ops.const(PADDLE_POS_WEIGHT, x)
    return (g * (weight / (1.0 + ops.exp(-x)) - label),)         # sigmoid(x) * pos_weight - label


def _paddle_fixed(ops, g, x):
    label, weight = ops.const(PADDLE_LABEL, x), ops.const(PADDLE_POS_WEIGHT, x)
    e = ops.exp(-ops.abs(x))
    term1 = ops.where(x > 0, 1.0, 0.0)
    abs_grad = ops.where(x >= 0, 1.0, -1.0)
    return (g * (term1 - label + (-e * abs_grad * weight) / (1.0 + e)),)


def _paddle_exact(p):
    with mpmath.workdps(DPS):
        out = []
        for x, label, weight in zip(_mp(p["x"]), PADDLE_LABEL, PADDLE_POS_WEIGHT):
            label, weight = mpmath.mpf(label), mpmath.mpf(weight)
            if x == 0:
                out.append(_interval(weight / 2 - label, 1 - label - weight / 2))
            else:
                e = mpmath.exp(-abs(x))
                out.append((1 if x > 0 else 0) - label - mpmath.sign(x) * weight * e / (1 + e))
        return out


def _paddle_changes(p):
    return any(x > 0 and w != 1 for x, w in zip(p["x"], PADDLE_POS_WEIGHT))


# -- tinygrad: sigmoid's backward through exp at large negative inputs -----------------------------

def _sigmoid_fwd(ops, x):
    return 1.0 / (1.0 + ops.exp(-x))


def _tinygrad_sigmoid_shipped(ops, g, x):
    e = ops.exp(-x)                                       # Exp's backward multiplies by its output e
    gr = -g / ((1.0 + e) * (1.0 + e))                     # reciprocal's backward: -0.0 once (1+e)² overflows
    return (-(gr * e),)                                   # -0.0 * inf = NaN (or 0 where e is finite)


def _tinygrad_sigmoid_fixed(ops, g, x):
    ret = 1.0 / (1.0 + ops.exp(-x))
    return (g * ret * (1.0 - ret),)                       # the Sigmoid mlop: ret * (1 - ret)


def _sigmoid_d_exact(p):
    with mpmath.workdps(DPS):
        x = mpmath.mpf(p["x"])
        s = _sigmoid(x)
        return [s * (1 - s)]


def _float_exp(t: float) -> float:
    return math.inf if _exp_overflows(t) else math.exp(t)


def _tinygrad_changes(p):
    """In binary64: e = exp(-x); once (1 + e)² overflows (x < -354.89) the shipped rule gives
    0 (e finite) or NaN (e = inf) where the derivative e^x/(1 + e^x)² is a nonzero binary64
    number (x > -745.13) or rounds to 0 but NaN is returned."""
    e = _float_exp(-p["x"])
    if (1.0 + e) * (1.0 + e) != math.inf:
        return False
    return e == math.inf or p["x"] > LN_MIN_SUBNORMAL


def _tinygrad_control_changes(p):
    """The fixed rule ret * (1 - ret) returns exactly 0 for a nonzero derivative at both ends:
    ret = 1/(1 + e) is 0 once e = inf (x < -709.78), where e^x is still a nonzero subnormal down
    to -745.13; and 1 - ret is 0 once 1 + e rounds to 1 (e <= 2^-53, x >= 53 ln 2 = 36.74), the
    cancellation TensorFlow's sigmoid gradient has too (tensorflow#126060). (Between x = 5 and
    36.7 it loses digits to that cancellation without reaching 0.)"""
    x = p["x"]
    return (_exp_overflows(-x) and x > LN_MIN_SUBNORMAL) or 1.0 + _float_exp(-x) == 1.0


# -- TensorFlow: cumprod with a zero element -------------------------------------------------------

def _cumprod(ops, x):
    return ops.stack([x[0], x[0] * x[1], x[0] * x[1] * x[2]])


def _cumprod_shipped(ops, g, x):
    p = _cumprod(ops, x)
    s = p * g
    out = ops.stack([s[0] + s[1] + s[2], s[1] + s[2], s[2]])   # cumsum(prod * grad, reverse)
    return (ops.where(x == 0, 0.0, out / ops.where(x == 0, 1.0, x)),)   # div_no_nan(out, x)


def _cumprod_fixed(ops, g, x):
    r2 = g[2]
    r1 = g[1] + x[2] * r2
    r0 = g[0] + x[1] * r1
    return (ops.stack([r0, x[0] * r1, x[0] * x[1] * r2]),)   # exclusive prefix product times the tail


def _cumprod_exact_fraction(x):
    return [1 + x[1] + x[1] * x[2], x[0] + x[0] * x[2], x[0] * x[1]]


def _cumprod_exact(p):
    with mpmath.workdps(DPS):
        return _cumprod_exact_fraction(_mp(p["x"]))


def _cumprod_changes(p):
    x = [Fraction(v) for v in p["x"]]
    exact = _cumprod_exact_fraction(x)
    return any(v == 0 and d != 0 for v, d in zip(x, exact))


# -- HIPS autograd: exp(-norm(x)²) at 0 ------------------------------------------------------------

def _exp_norm_outer(ops, op, x):
    n = op(x)
    return ops.exp(-(n * n))


def _exp_norm_exact(p):
    with mpmath.workdps(DPS):
        x = _mp(p["x"])
        e = mpmath.exp(-sum(v * v for v in x))
        return [-2 * v * e for v in x]


# ==============================================================================================
# The corpus
# ==============================================================================================

def _x(value):
    return {"x": value}


BUGS = [
    Bug("torch_norm_zero", "PyTorch", "nan-kink", "https://github.com/pytorch/pytorch/issues/2421",
        "torch.norm's backward was grad * x / norm (reduce.py, 2017): at x = 0 it divides 0 by 0 and every "
        "entry is NaN, where 0 is a subgradient; zkolter hit it in exact line searches. albanD's PR #2775 "
        "masks the entries where the norm is 0 (\"Special case at 0 where we return a subgradient containing 0\").",
        ("x",), {"x": (-2.0, 2.0)}, _norm, _norm_shipped, _norm_fixed,
        (_x([0.0, 0.0, 0.0]), _x([0.6, -0.8, 0.0]), _x([1.5, 0.3, -1.1])), 1,
        _norm_exact, _all_zero("x"), fix="https://github.com/pytorch/pytorch/pull/2775", shapes={"x": (3,)}),
    Bug("torch_std_constant", "PyTorch", "nan-kink", "https://github.com/pytorch/pytorch/issues/4320",
        "torch.std's backward, var_backward(grad / (2 * result)), divides by the result: for any constant input "
        "(not only zeros, as rwebb noted) std is 0 and the gradient NaN, where 0 is a subgradient (albanD: "
        "'the exact same thing as the norm'). PR #45468 returns 0 there (torch 2.13 does, checked here).",
        ("x",), {"x": (-2.0, 2.0)}, _std, _std_shipped, _std_fixed,
        (_x([1.0, 1.0, 1.0]), _x([0.0, 0.0, 0.0]), _x([-0.5, -0.5, -0.5]), _x([0.3, -1.2, 1.9])), 3,
        _std_exact, _constant("x"), fix="https://github.com/pytorch/pytorch/pull/45468", shapes={"x": (3,)}),
    Bug("torch_pow_zero_exponent", "PyTorch", "nan-smooth", "https://github.com/pytorch/pytorch/pull/8945",
        "x.pow(exponent) had the backward grad * exponent * x.pow(exponent - 1): for the exponent 0 at x = 0 "
        "that is 0 * 0^-1 = 0 * inf = NaN, though x^0 = 1 is constant (issue #8940). Polynomial features "
        "w0 x^0 + w1 x + w2 x^2 (f here) then have a NaN gradient at x = 0. PR #8945 returns zeros where the "
        "exponent is 0 (at::where(exponent == 0.0, zeros, ...)).",
        ("x", "w"), {"x": (-2.0, 2.0), "w": (-2.0, 2.0)}, _powers, _powers_shipped, _powers_fixed,
        ({"x": 0.0, "w": [0.5, -1.0, 2.0]}, {"x": 0.0, "w": [1.0, 1.0, 1.0]},
         {"x": 0.7, "w": [0.5, -1.0, 2.0]}, {"x": -1.3, "w": [2.0, 0.5, -1.0]}), 2,
        _powers_exact, lambda p: p["x"] == 0, fix="https://github.com/pytorch/pytorch/pull/8945",
        shapes={"w": (3,)}, outer=lambda ops, op, x, w: ops.sum(w * op(x))),
    Bug("torch_pow_exponent_zero_base", "PyTorch", "nan-smooth", "https://github.com/pytorch/pytorch/issues/27134",
        "The gradient of a**b with respect to the exponent was grad * result * log(a): for a = 0 that is "
        "0 * -inf = NaN, while d/db 0^b = 0 for b > 0 ('works in tf'). The issue's own example sums a**b for "
        "a = [0, 2]. The fix in pow_backward_exponent returns 0 where self == 0 and exponent >= 0 (the guard "
        "visible in the diff of PR #95198).",
        ("b",), {"b": (0.25, 3.0)}, _base_pow, _base_pow_shipped, _base_pow_fixed,
        ({"b": [1.0, 1.0]}, {"b": [2.5, 0.5]}, {"b": [0.3, 1.7]}), 3,
        _base_pow_exact, lambda p: True, fix="https://github.com/pytorch/pytorch/pull/95198",
        shapes={"b": (2,)}, outer=lambda ops, op, b: ops.sum(op(b))),
    Bug("torch_sinc_zero", "PyTorch", "nan-smooth", "https://github.com/pytorch/pytorch/issues/56760",
        "torch.sinc's derivative was the quotient rule (πx cos πx - sin πx)/(πx²) of derivatives.yaml: 0/0 = NaN "
        "at x = 0, where sinc' = 0 (also issue #53989); filter-design networks stopped training. PR #56763 returns "
        "0 at x = 0, and #56986 extends it to tiny x whose x² underflows; the formula itself still cancels for "
        "tiny x (as JAX's does, #34139).",
        ("x",), {"x": (-3.0, 3.0)}, _sinc, _torch_sinc_shipped, _torch_sinc_fixed,
        (_x(0.0), _x(0.3), _x(-1.7), _x(2.5)), 1, _sinc_exact, lambda p: p["x"] == 0,
        fix="https://github.com/pytorch/pytorch/pull/56763", inaccurate=_sinc_cancels),
    Bug("torch_prod_zero", "PyTorch", "nan-smooth", "https://github.com/pytorch/pytorch/issues/773",
        "prod's backward was grad * result / input: with a zero element that is 0/0 = NaN at the zero (and NaN "
        "at every zero when there are two), though the derivative is the product of the other elements. "
        "apaszke's PR #1026 counts the zeros: none, the division; one, the product of the others there; more, 0.",
        ("x",), {"x": (-2.0, 2.0)}, _prod, _prod_shipped, _prod_fixed,
        (_x([1.5, 0.0, -1.2, 0.8]), _x([0.0, 0.0, 1.5, -0.5]), _x([0.5, -1.2, 1.7, 1.1])), 2,
        _prod_exact, _any_zero("x"), fix="https://github.com/pytorch/pytorch/pull/1026", shapes={"x": (4,)}),
    Bug("torch_xlogy_zero", "PyTorch", "wrong-value", "https://github.com/pytorch/pytorch/issues/80770",
        "xlogy's gradient with respect to x was grad * xlogy(x != 0, y): 0 at x = 0, where d/dx x log y = log y "
        "(gradcheck says so, the reporter showed). One zero element in a vector gets a wrong, finite value. "
        "Lezcano's PR #82713 makes it xlogy(grad, y).",
        ("x", "y"), {"x": (-2.0, 2.0), "y": (0.1, 3.0)}, _xlogy, _xlogy_shipped, _xlogy_fixed,
        ({"x": [0.0, 0.5, -1.0], "y": [2.0, 3.0, 0.5]}, {"x": [0.0, 0.0, 0.0], "y": [0.7, 1.5, 2.5]},
         {"x": [0.3, -1.2, 1.5], "y": [0.7, 2.2, 1.3]}), 2,
        _xlogy_exact, lambda p: any(x == 0 and y != 1 for x, y in zip(p["x"], p["y"])),
        fix="https://github.com/pytorch/pytorch/pull/82713", shapes={"x": (3,), "y": (3,)},
        outer=lambda ops, op, x, y: ops.sum(op(x, y))),
    Bug("torch_softplus_threshold", "PyTorch", "range", "https://github.com/pytorch/pytorch/issues/55587",
        "Softplus(beta, threshold) is linear where input * beta > threshold, but its backward tested "
        "output * beta > threshold: for beta = 3, threshold = 1 every x in (0.1804, 1/3] got the gradient 1 "
        "instead of sigmoid(3x) (#61568 found 1.0 for 0.694 at x = 0.2736). Fixed by PR #56484, which passes "
        "the input (so says the #61568 thread, linked as 'fixed in'); torch 2.13 gives 0.694 (checked here).",
        ("x",), {"x": (-2.0, 2.0)}, _softplus_thr, _softplus_thr_shipped, _softplus_thr_fixed,
        (_x(0.2736), _x(0.25), _x(0.3), _x(-0.5), _x(0.1), _x(0.9)), 3,
        _softplus_thr_exact, _softplus_thr_changes, fix="https://github.com/pytorch/pytorch/issues/61568"),
    Bug("torch_smooth_l1_beta0", "PyTorch", "nan-kink", "https://github.com/pytorch/pytorch/issues/96813",
        "smooth_l1_loss with beta = 0 is the L1 loss, but its (GPU) backward divided x by beta in the quadratic "
        "zone: at input == target that is 0/0 = NaN, where sign(0) = 0 is the subgradient L1 gives. PR #97022 "
        "computes the L1 loss (and its backward) when beta is 0.",
        ("x", "y"), {"x": (-2.0, 2.0), "y": (-2.0, 2.0)}, _l1, _smooth_l1_shipped, _smooth_l1_fixed,
        ({"x": 0.7, "y": 0.7}, {"x": 0.0, "y": 0.0}, {"x": -1.25, "y": -1.25}, {"x": 0.3, "y": -0.4},
         {"x": -1.0, "y": 0.5}), 3,
        _l1_exact, lambda p: p["x"] == p["y"], fix="https://github.com/pytorch/pytorch/pull/97022"),
    Bug("torch_det_singular", "PyTorch", "wrong-value", "https://github.com/pytorch/pytorch/issues/104675",
        "torch.det's backward for a singular matrix returns 0 (issue #104675: [[0, 1], [0, 1]] gets zeros): it is "
        "det * A^{-T} from an LU whose zero pivots are nudged by eps (PR #79487 'leaves a note on how to "
        "implement it properly for singular matrices'), and det = 0. The derivative of det is the adjugate, "
        "nonzero for rank n - 1 (here [[1, 2], [2, 4]] -> [[4, -2], [-2, 1]]). Still so in torch 2.13 (checked "
        "here); the control is the adjugate JAX uses.",
        ("A",), {"A": (-2.0, 2.0)}, _det, _torch_det_shipped, _det_fixed,
        ({"A": [[1.0, 2.0], [2.0, 4.0]]}, {"A": [[0.0, 1.0], [0.0, 1.0]]}, {"A": [[0.0, 0.0], [0.0, 0.0]]},
         {"A": [[1.5, -0.5], [0.25, 1.0]]}), 3,
        _det_exact, _det_zero_nonzero_adj, shapes={"A": (2, 2)}),
    Bug("jax_sinc_zero", "JAX", "nan-smooth", "https://github.com/jax-ml/jax/pull/1722",
        "jnp.sinc was where(x == 0, 1, sin(πx)/(πx)): reverse mode sends the unselected branch a zero cotangent, "
        "times the quotient's derivative at 0, which is NaN, and 0 * NaN = NaN. PR #1722 applies the "
        "double-where trick (the quotient evaluated at a safe x).",
        ("x",), {"x": (-3.0, 3.0)}, _sinc, _jax_sinc_shipped, _jax_sinc_fixed,
        (_x(0.0), _x(0.3), _x(-1.7), _x(2.5)), 1, _sinc_exact, lambda p: p["x"] == 0,
        fix="https://github.com/jax-ml/jax/pull/1722", inaccurate=_sinc_cancels),
    Bug("jax_sinc_second_derivative", "JAX", "second-order", "https://github.com/jax-ml/jax/pull/5077",
        "After #1722, jnp.sinc at x = 0 was the constant 1: its first derivative is right (0) by luck, but the "
        "second is 0 instead of -π²/3 (issue #5054). mattjj's PR #5077 replaces the constant by a Maclaurin "
        "series with a custom_jvp that yields every order's coefficient.",
        ("x",), {"x": (-3.0, 3.0)}, _sinc, _sinc2_shipped, _sinc2_fixed,
        (_x(0.0), _x(0.3), _x(-1.7), _x(2.5)), 1, _sinc2_exact, lambda p: p["x"] == 0,
        fix="https://github.com/jax-ml/jax/pull/5077", check="hessian",
        inaccurate=lambda p: 0 < abs(p["x"]) < 1e-3),
    Bug("jax_softplus_zero", "JAX", "wrong-value", "https://github.com/jax-ml/jax/issues/2107",
        "jax.nn.softplus = logaddexp(x, 0) = max(x, 0) + log1p(exp(-|x|)), differentiated with max's tie rule "
        "(0.5) and abs'(0) = 1: the gradient at 0 came out 0.0 instead of 0.5 (shoyer's plot), correct "
        "everywhere else. The thread proposed a custom JVP for logaddexp (PRs #2195, #2356, #2357); the issue "
        "is closed and jax 0.10.2 (installed here) returns 0.5.",
        ("x",), {"x": (-3.0, 3.0)}, _softplus, _softplus_shipped, _softplus_fixed,
        (_x(0.0), _x(-1.5), _x(0.7), _x(2.9)), 1, _softplus_exact, lambda p: p["x"] == 0,
        fix="https://github.com/jax-ml/jax/issues/2107"),
    Bug("jax_det_singular", "JAX", "nan-smooth", "https://github.com/jax-ml/jax/issues/2380",
        "jnp.linalg.det's JVP was det * trace(solve(A, dA)): for a singular A the solve divides by a zero pivot "
        "and the gradient is NaN, though det is a polynomial whose gradient is the adjugate (dpfau's cofactor "
        "code in the thread). JAX now differentiates det through a cofactor solve; tests of singular matrices "
        "of corank 1 and 2 followed (PR #2845); jax 0.10.2 gives [[4, -2], [-2, 1]] for [[1, 2], [2, 4]].",
        ("A",), {"A": (-2.0, 2.0)}, _det, _jax_det_shipped, _det_fixed,
        ({"A": [[1.0, 2.0], [2.0, 4.0]]}, {"A": [[0.0, 1.0], [0.0, 1.0]]}, {"A": [[0.0, 0.0], [0.0, 0.0]]},
         {"A": [[1.5, -0.5], [0.25, 1.0]]}), 3,
        _det_exact, _det_zero, fix="https://github.com/jax-ml/jax/issues/2380", shapes={"A": (2, 2)}),
    Bug("jax_logsumexp_where", "JAX", "overflow", "https://github.com/jax-ml/jax/issues/23842",
        "logsumexp(x, where=mask) computed exp(x - max) for every entry, masked ones included, then zeroed their "
        "cotangent: a huge masked entry gives 0 * exp(huge) = 0 * inf = NaN ([1, nan] in the issue, float32 at "
        "100; float64 needs 710). mattjj's PR #25791 projects the input first.",
        ("a", "m"), {"a": (-3.0, 3.0), "m": (-1000.0, 1000.0)}, _lse_masked, _lse_masked_shipped,
        _lse_masked_fixed,
        ({"a": [0.0, 0.0], "m": 800.0}, {"a": [0.5, -1.0], "m": 1000.0}, {"a": [-2.9, 2.5], "m": 720.0},
         {"a": [0.3, -0.7], "m": 2.0}, {"a": [1.0, 1.0], "m": -50.0}), 3,
        _lse_masked_exact, _lse_masked_changes, fix="https://github.com/jax-ml/jax/pull/25791",
        shapes={"a": (2,)}, outer=_lse_masked_outer),
    Bug("jax_logsumexp_b_zero", "JAX", "wrong-value", "https://github.com/jax-ml/jax/issues/22398",
        "logsumexp(a, b=b) replaces a by -inf where b == 0, so the derivative with respect to such a b_i is "
        "exp(-inf) = 0 instead of exp(a_i - out): at b = (1, 0), log(b0 + b1) gets (1, 0) for (1, 1). A custom "
        "JVP (PR #22836) was merged and rolled back (superbobry: internal breakages); PR #37729 is open; jax "
        "0.10.2 (installed here) still returns (1, 0). The control is #22836's rule.",
        ("b",), {"b": (0.0, 2.0)}, _lse_b, _lse_b_shipped, _lse_b_fixed,
        ({"b": [1.0, 0.0]}, {"b": [0.0, 2.5]}, {"b": [0.5, 1.5]}, {"b": [1.2, 0.3]}), 2,
        _lse_b_exact, lambda p: 0 in p["b"] and sum(p["b"]) > 0, shapes={"b": (2,)}),
    Bug("tf_xlog1py_zero", "TensorFlow", "wrong-value", "https://github.com/tensorflow/tensorflow/issues/56873",
        "tf.math.xlog1py's gradient with respect to x was xlog1py(x != 0, y): 0 at x = 0 instead of log1p(y) "
        "(the reporter: 0.0 for 0.6931472 at y = 1); xlogy had the same mask (#119476). PR #119869 uses "
        "log(y) and log1p(y).",
        ("x", "y"), {"x": (-2.0, 2.0), "y": (-0.5, 3.0)}, _xlog1py, _xlog1py_shipped, _xlog1py_fixed,
        ({"x": 0.0, "y": 1.0}, {"x": 0.0, "y": 2.5}, {"x": 0.0, "y": -0.3}, {"x": 0.7, "y": 0.3},
         {"x": -1.2, "y": -0.3}), 3,
        _xlog1py_exact, lambda p: p["x"] == 0 and p["y"] != 0,
        fix="https://github.com/tensorflow/tensorflow/pull/119869"),
    Bug("tf_pow_zero_base", "TensorFlow", "nan-smooth", "https://github.com/tensorflow/tensorflow/issues/2295",
        "tf.pow's gradient with respect to the exponent was grad * z * log(x): at x = 0 that is 0 * -inf = NaN "
        "(the reporter clamped gamma-corrected pixels to [0, 1]), though 0^y = 0 for every y > 0. The fix in "
        "_PowGrad ('Avoid false singularity at x = 0') masks log(x) to 0 where x <= 0.",
        ("x", "y"), {"x": (0.0, 2.0), "y": (1.5, 3.0)}, _pow, _tf_pow_shipped, _tf_pow_fixed,
        ({"x": 0.0, "y": 2.4}, {"x": 0.0, "y": 2.0}, {"x": 0.5, "y": 2.2}, {"x": 1.7, "y": 1.6}), 2,
        _tf_pow_exact, lambda p: p["x"] == 0, fix="https://github.com/tensorflow/tensorflow/issues/2295"),
    Bug("tfjs_pow_zero_base", "TensorFlow.js", "nan-smooth", "https://github.com/tensorflow/tfjs/issues/346",
        "tf.pow's gradient with respect to the base was b * pow(a, b) / a: 0/0 = NaN at a = 0 even for b = 2, "
        "whose derivative there is 0 (issue #346, 'when the base is 0, both the gradient of the base and the "
        "exponent will be NaN'). PR #1376 uses the power rule b * pow(a, b - 1).",
        ("a",), {"a": (0.0, 2.0)}, _tfjs_pow, _tfjs_pow_shipped, _tfjs_pow_fixed,
        ({"a": [0.0, 1.2, 0.7]}, {"a": [0.5, 0.0, 0.0]}, {"a": [0.3, 1.1, 1.9]}), 2,
        _tfjs_pow_exact, _any_zero("a"), fix="https://github.com/tensorflow/tfjs-core/pull/1376",
        shapes={"a": (3,)}, outer=lambda ops, op, a: ops.sum(op(a))),
    Bug("hips_abs_zero", "HIPS autograd", "nan-kink", "https://github.com/HIPS/autograd/issues/100",
        "anp.abs's gradient was g * conj(x) / ans (the complex modulus' rule): 0/0 = NaN at x = 0. mattjj added "
        "np.where around the division (derivative 0 at 0, a subgradient); anp.absolute kept the old rule until "
        "PR #712 (2025).",
        ("x",), {"x": (-2.0, 2.0)}, _abs, _hips_abs_shipped, _hips_abs_fixed,
        (_x([0.0, 1.5, -2.0]), _x([0.0, 0.0, 0.0]), _x([0.3, -1.1, 1.9])), 2,
        _abs_exact, _any_zero("x"), fix="https://github.com/HIPS/autograd/issues/100", shapes={"x": (3,)},
        outer=lambda ops, op, x: ops.sum(op(x))),
    Bug("hips_max_duplicates", "HIPS autograd", "ties", "https://github.com/HIPS/autograd/issues/138",
        "np.max's gradient gave the whole gradient to every entry equal to the max: max over an array holding "
        "the same variable twice counts it twice (issue #138: 4 for 3; duvenaud: np.max(np.stack([x, x])) has "
        "derivative 2 for 1). f = max(x, y, x) is smooth where x > y, and gets 2. Dougal's fix in the thread of "
        "PR #141 divides by the number of maxima (grad_chooser today).",
        ("x", "y"), {"x": (-2.0, 2.0), "y": (-2.0, 2.0)}, _vmax, _max_shipped, _max_fixed,
        ({"x": 0.5, "y": -0.3}, {"x": 1.0, "y": 1.0}, {"x": 1.5, "y": 0.2}, {"x": -0.4, "y": 0.9}), 3,
        _max_dup_exact, lambda p: p["x"] >= p["y"], fix="https://github.com/HIPS/autograd/pull/141",
        outer=_max_dup_outer),
    Bug("hips_norm_zero", "HIPS autograd", "nan-smooth", "https://github.com/HIPS/autograd/issues/183",
        "np.linalg.norm's gradient is g * x / norm: exp(-norm(x)**2), smooth with gradient 0 at x = 0, gets "
        "[nan, nan] there (issue #183, folded into the open #151). PR #393 (open) returns 0 where the norm is 0; "
        "that is the control.",
        ("x",), {"x": (-2.0, 2.0)}, _norm, _norm_shipped, _norm_fixed,
        (_x([0.0, 0.0]), _x([0.3, -0.4]), _x([1.0, 1.5])), 1,
        _exp_norm_exact, _all_zero("x"), shapes={"x": (2,)}, outer=_exp_norm_outer),
    Bug("chainer_normalize_eps", "Chainer", "range", "https://github.com/chainer/chainer/pull/4190",
        "F.normalize computes x / (||x|| + eps); its backward divided x·gy by ||x|| + eps where the derivative "
        "needs ||x||: wrong wherever x·gy != 0, by about eps/||x|| relative (1e-5 at ||x|| = 1, 10% at "
        "||x|| = 1e-4). toslunar's PR #4190: 'The backward computation of NormalizeL2 was wrong (for "
        "non-negligible eps)'.",
        ("x",), {"x": (-2.0, 2.0)}, _normalize, _normalize_before_4190, _normalize_4190,
        (_x([1e-4, -2e-4, 5e-5]), _x([0.002, 0.001, -0.003]), _x([0.6, -0.8, 0.1]), _x([1.5, 0.2, -0.7])), 2,
        _normalize_exact, _normalize_eps_changes, fix="https://github.com/chainer/chainer/pull/4190",
        shapes={"x": (3,)}, outer=_normalize_outer, control_changes=_all_zero("x")),
    Bug("chainer_normalize_zero", "Chainer", "nan-smooth", "https://github.com/chainer/chainer/issues/4765",
        "PR #4190's backward divides x·gy by ||x||: 0/0 = NaN at a zero vector, where x / (||x|| + eps) is "
        "smooth with derivative I/eps (toslunar: 'PR #4190, I wrote, caused this. Sorry.'). PR #4769 skips the "
        "division where the norm is 0.",
        ("x",), {"x": (-2.0, 2.0)}, _normalize, _normalize_4190, _normalize_4769,
        (_x([0.0, 0.0, 0.0]), _x([0.6, -0.8, 0.1]), _x([1e-3, 0.0, 0.0])), 1,
        _normalize_exact, _all_zero("x"), fix="https://github.com/chainer/chainer/pull/4769",
        shapes={"x": (3,)}, outer=_normalize_outer),
    Bug("scipy_spherical_jn_derivative", "SciPy", "wrong-value", "https://github.com/scipy/scipy/issues/8184",
        "scipy.special.spherical_jn(1, z, derivative=True) is j_0 - 2 j_1 / z, and 'if x == 0: return 0' for "
        "every n >= 1: j_1'(0) came out 0 instead of 1/3 (the existing test expected the wrong value). PR #8186 "
        "returns 1/3 for n == 1.",
        ("z",), {"z": (-4.0, 4.0)}, _j1, _jn_shipped, _jn_fixed,
        ({"z": 0.0}, {"z": 0.5}, {"z": -2.2}, {"z": 3.7}), 1, _j1_exact, lambda p: p["z"] == 0,
        fix="https://github.com/scipy/scipy/pull/8186"),
    Bug("scipy_spherical_in_derivative", "SciPy", "wrong-value", "https://github.com/scipy/scipy/issues/20506",
        "spherical_in kept the same 'if x == 0: return 0' after spherical_jn's fix: i_1'(0) was 0 instead of 1/3 "
        "until 2024 (the reporter's plot of numerical against analytical derivatives). PR #20527 returns 1/3.",
        ("z",), {"z": (-4.0, 4.0)}, _i1, _in_shipped, _in_fixed,
        ({"z": 0.0}, {"z": 0.5}, {"z": -2.2}, {"z": 3.7}), 1, _i1_exact, lambda p: p["z"] == 0,
        fix="https://github.com/scipy/scipy/pull/20527"),
    Bug("paddle_bce_pos_weight", "PaddlePaddle", "range", "https://github.com/PaddlePaddle/Paddle/issues/64226",
        "sigmoid_cross_entropy_with_logits with pos_weight is max(x, 0) - x*label + pos_weight*log(1 + "
        "exp(-|x|)); its grad kernel returned sigmoid(x)*pos_weight - label, which is that derivative only for "
        "x < 0 or pos_weight = 1: off by 1 - pos_weight for every x > 0 (found when decomposing the op). PR "
        "#64253 differentiates the forward term by term; at x = 0 (a kink when pos_weight != 1) it gives "
        "-label - pos_weight/2, outside the subgradient, so the control is itself wrong there.",
        ("x",), {"x": (-3.0, 3.0)}, _paddle_bce, _paddle_shipped, _paddle_fixed,
        (_x([0.7, 1.5, -0.4]), _x([2.0, -1.0, 0.5]), _x([-0.5, -1.0, 2.0]), _x([-2.0, -0.3, -1.1])), 2,
        _paddle_exact, _paddle_changes, fix="https://github.com/PaddlePaddle/Paddle/pull/64253",
        shapes={"x": (3,)}, outer=lambda ops, op, x: ops.sum(op(x)), control_changes=_any_zero("x")),
    Bug("tinygrad_sigmoid_large_negative", "tinygrad", "overflow", "https://github.com/tinygrad/tinygrad/pull/1113",
        "tinygrad's sigmoid was 1/(1 + exp(-x)) differentiated op by op: for large negative x, exp's output is "
        "inf and the incoming gradient -0.0, whose product is NaN (PR #1113); before that, once (1 + e)² "
        "overflows (x < -354.9) the rule returns 0 for a representable e^x. PR #1113 adds a Sigmoid op with "
        "backward ret * (1 - ret), which is itself 0 where 1 + exp(-x) rounds to 1 (x >= 36.74): the control "
        "is wrong there.",
        ("x",), {"x": (-1000.0, 40.0)}, _sigmoid_fwd, _tinygrad_sigmoid_shipped, _tinygrad_sigmoid_fixed,
        (_x(-800.0), _x(-400.0), _x(-720.0), _x(-3.0), _x(0.0), _x(5.0), _x(38.0)), 3,
        _sigmoid_d_exact, _tinygrad_changes, fix="https://github.com/tinygrad/tinygrad/pull/1113",
        control_changes=_tinygrad_control_changes),
    Bug("tf_cumprod_zero", "TensorFlow", "wrong-value", "https://github.com/tensorflow/tensorflow/issues/119430",
        "tf.math.cumprod's gradient divides a reversed cumsum by x ('TODO This fails when x contains 0'): NaN at "
        "a zero in 2016 (#3862), then div_no_nan, which returns 0 there: [0, 2, 3] gets [0, 0, 0] for [9, 0, 0]. "
        "PR #120282 computes it without division (exclusive prefix products times a reverse recurrence).",
        ("x",), {"x": (-2.0, 2.0)}, _cumprod, _cumprod_shipped, _cumprod_fixed,
        (_x([1.5, 0.0, -1.2]), _x([0.0, 1.5, -0.5]), _x([1.2, -0.7, 0.0]), _x([0.5, -1.2, 1.9])), 3,
        _cumprod_exact, _cumprod_changes, fix="https://github.com/tensorflow/tensorflow/pull/120282",
        shapes={"x": (3,)}, outer=lambda ops, op, x: ops.sum(op(x))),
    Bug("mxnet_prod_zero", "MXNet", "nan-smooth", "https://github.com/apache/mxnet/issues/18078",
        "mx.symbol.prod's gradient of [[x, y]] is [[(x*y)/x, (x*y)/y]]: [[4, 0]] gets [[0, nan]] for [[0, 4]] "
        "(issue #17864, moved to #18078; open, MXNet is retired). The control is the zero-aware rule PyTorch "
        "adopted (#1026).",
        ("x",), {"x": (-5.0, 5.0)}, _prod, _prod_shipped, _prod_fixed,
        (_x([4.0, 0.0]), _x([0.0, 0.0]), _x([1.5, -2.0])), 2,
        _prod_exact, _any_zero("x"), shapes={"x": (2,)}),
    Bug("mxnet_max_ties", "MXNet", "ties", "https://github.com/apache/mxnet/issues/18563",
        "nd.max's backward (ReduceAxesBackwardUseInOut with eq) gives the gradient 1 to every entry equal to the "
        "max: a column of ones gets 1 everywhere (wkcn: 'I think it is a bug'; open). With per-entry "
        "subgradient intervals a plain tie hides it (each 1 lies in [0, 1]), so f here is max(w, 2w - 1, w²), "
        "whose three branches tie at w = 1 with slopes 1, 2, 2: the rule sums them (5) outside [1, 2]. The "
        "control splits the gradient evenly (TensorFlow's, PyTorch's amax).",
        ("w",), {"w": (-2.0, 3.0)}, _vmax, _max_shipped, _max_fixed,
        ({"w": 1.0}, {"w": 0.5}, {"w": 2.5}, {"w": -1.0}), 1,
        _branches_exact(MXNET_BRANCHES), _branches_changes(MXNET_BRANCHES), outer=_mxnet_max_outer),
    Bug("theano_max_ties", "Theano", "ties", "https://github.com/Theano/Theano/issues/4568",
        "T.max's gradient is eq(x, max) * gz: at a tie every maximal entry gets the whole gradient, (1, 1) for "
        "max(x1, x2) at x1 = x2, which is not in the subdifferential (TobyPDE; open, Theano is retired). f here "
        "is max(w, 3w - 2): the tie at w = 1 gets 1 + 3 = 4, outside [1, 3]. The control splits evenly.",
        ("w",), {"w": (-2.0, 3.0)}, _vmax, _max_shipped, _max_fixed,
        ({"w": 1.0}, {"w": 0.0}, {"w": 2.0}), 1,
        _branches_exact(THEANO_BRANCHES), _branches_changes(THEANO_BRANCHES), outer=_theano_max_outer),
]

BY_NAME = {b.name: b for b in BUGS}
QUICK = ("torch_norm_zero", "torch_xlogy_zero", "torch_softplus_threshold", "jax_softplus_zero",
         "jax_det_singular", "hips_max_duplicates", "chainer_normalize_eps", "scipy_spherical_jn_derivative",
         "tinygrad_sigmoid_large_negative", "tf_cumprod_zero")


# -- checking the corpus against itself ------------------------------------------------------------

def _engine_gradient(engines, bug, which, point):
    """The derivative the rule gives at ``point`` (the Hessian for check="hessian"), flattened,
    as the engine computes it (plain autograd, no judging)."""
    ag = engines.engine.ag
    f = engines.engine.function(bug, which)
    xs = [ag.tensor(np.array(point[n], dtype=float), requires_grad=True) for n in bug.variables]
    with np.errstate(all="ignore"):
        out = f(*xs)
        if bug.check == "hessian":
            (g,) = ag.grad(out, xs, create_graph=True)
            (h,) = ag.grad(g, xs)
            return [float(v) for v in np.ravel(h.detach().numpy())]
        grads = ag.grad(out, xs)
    return [float(v) for g in grads for v in np.ravel(g.detach().numpy())]


def _differs(value: float, exact, scale) -> bool:
    """Whether a rule's entry is wrong: NaN/inf, outside a kink's interval, or off by more than
    1e-9 of the point's scale (far above rounding; far below every real bug here)."""
    if not math.isfinite(value):
        return True
    if isinstance(exact, tuple):
        return not (float(exact[0]) - 1e-12 <= value <= float(exact[1]) + 1e-12)
    return abs(value - float(exact)) > 1e-9 * scale      # against the nearest binary64 of the exact value


def rule_differs(engines, bug, which, point) -> bool:
    exact = bug.exact(point)
    got = _engine_gradient(engines, bug, which, point)
    scale = max([abs(float(e)) for e in exact if not isinstance(e, tuple)] + [1e-330])
    return any(_differs(v, e, scale) for v, e in zip(got, exact))


def verify(bugs=None) -> list:
    """Every disagreement between the corpus' hand-derived answers and what its rules compute
    (through the engine): [] when the corpus is consistent."""
    engines, problems = Engines(), []
    for bug in bugs or BUGS:
        for point in bug.points:
            if bug.shared_breakdown(point):
                continue
            if rule_differs(engines, bug, "shipped", point) != bool(bug.changes(point)):
                problems.append((bug.name, "shipped", point))
            if rule_differs(engines, bug, "fixed", point) != bug.control_wrong(point):
                problems.append((bug.name, "fixed", point))
    return problems


def _derivative_in(ops, bug, which, point):
    """The rule's derivative (Hessian) at ``point`` through PyTorch or JAX, flattened."""
    f, args = ops.function(bug, which), ops.inputs(bug, point)
    if ops.name == "torch":
        torch = ops.torch
        if bug.check == "hessian":
            (g,) = torch.autograd.grad(f(*args), args, create_graph=True)
            grads = torch.autograd.grad(g, args)
        else:
            grads = torch.autograd.grad(f(*args), args)
        return [float(v) for g in grads for v in g.detach().numpy().ravel()]
    jax = ops.jax
    if bug.check == "hessian":
        return [float(v) for v in np.ravel(jax.hessian(f)(*args))]
    grads = jax.grad(f, argnums=tuple(range(len(args))))(*args)
    return [float(v) for g in grads for v in np.ravel(g)]


def verify_engines(bugs=None) -> list:
    """Every point where the PyTorch or JAX version of a rule computes another derivative than
    the engine's (NaN equal to NaN): [] when the three are the same rules."""
    engines, problems = Engines(), []

    def same(a, b):
        return len(a) == len(b) and all((math.isnan(x) and math.isnan(y)) or x == y
                                        or abs(x - y) <= 1e-12 * max(1.0, abs(x), abs(y)) for x, y in zip(a, b))
    for ops in (engines.torch, engines.jax):
        if ops is None:
            continue
        for bug in bugs or BUGS:
            for which in ("shipped", "fixed"):
                for point in bug.points:
                    with np.errstate(all="ignore"):
                        if not same(_engine_gradient(engines, bug, which, point),
                                    _derivative_in(ops, bug, which, point)):
                            problems.append((ops.name, bug.name, which, point))
    return problems


if __name__ == "__main__":
    found = verify() + verify_engines()
    print("corpus consistent (hand-derived answers against the rules; engine, PyTorch and JAX rules alike)"
          if not found else "\n".join(map(str, found)))
