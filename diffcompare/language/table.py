"""The one table of functions: every operator, function and constant the expression
language knows, with its meaning in each world.

A row says what ``name`` means as float64 NumPy (``numpy``), as an analytic extension
to complex numbers for the complex step (``complex``; ``None`` when there is none), as
SymPy (``sympy``), as mpmath (``mpmath``) and as the autograd engine (``engine``). The
parser accepts exactly the callable names and constants here; every evaluator reads
the world's column. Adding a function is adding a row: ``tests/test_function_table.py``
walks the whole table and checks that the worlds agree with each other.

>>> float(ROWS["hypot"].numpy(3.0, 4.0))
5.0
>>> ROWS["sin"].arity, ROWS["atan2"].arity
(1, 2)
>>> sorted(name for name, row in ROWS.items() if row.complex is None)
['abs', 'clamp', 'max', 'min', 'relu', 'sign']
"""

from __future__ import annotations

import math
import operator
from dataclasses import dataclass
from typing import Callable

import numpy as np

from diffcompare.autograd import ops as _ag
from diffcompare.autograd.ops import special
from diffcompare.autograd.tensor import Tensor, as_tensor
from diffcompare.lazy import LazyModule


sp = LazyModule("sympy")          # SymPy alone takes ~0.3 s to import
mp = LazyModule("mpmath")
_cfunctions = LazyModule("sympy.codegen.cfunctions")


@dataclass(frozen=True)
class Row:
    """One function in every world. ``kink(*args)`` says whether float64 arguments sit
    on a point where the function is not differentiable; ``samples`` are argument
    tuples inside the domain, used by the table's own test."""
    name: str
    arity: int
    numpy: Callable
    complex: Callable | None
    sympy: Callable
    mpmath: Callable
    engine: Callable
    doc: str
    domain: str = "all reals"
    samples: tuple = ((0.7,), (-1.3,), (2.5,))
    symbol: str | None = None            # the operator spelling, for operator rows
    kink: Callable | None = None
    # quantities whose zeros are the kinks, as a function of the arguments in any world (a
    # SymPy expression for SymPy arguments), so that a kink can be searched for; None where
    # the kinks are not the zeros of one quantity (atan2's half-line, hypot's point)
    kink_zeros: Callable | None = None
    kink_note: str = ""
    # which smooth piece the arguments lie on; a finite-difference stencil whose ends lie on
    # different pieces straddles a kink, jump or pole
    piece: Callable | None = None
    not_complex_safe: str = ""
    engine_convention: str = ""
    sympy_convention: str = ""
    structural: bool = False             # acts on whole arrays (sum, @): never mapped element by element
    syntax: str = ""                     # written with brackets, not called by name (x[0], [a, b])
    # the row in PyTorch, as a function of the torch module giving the row's function;
    # None: torch's function of the row's name (torch.sin for sin)
    torch: Callable | None = None
    jax: Callable | None = None           # jax -> the row's function on JAX arrays; None: jax.numpy's of its name
    # an operator row's Python operator (operator.pow for **): what plain code written with the symbol
    # runs. The single-precision world calls it, so that float32 scalars take NumPy's scalar arithmetic,
    # as plain float32 code does (np.float32 ** 3 is not np.power's loop, and differs in the last bit)
    python: Callable | None = None

    @property
    def is_constant(self):
        return self.arity == 0

    @property
    def is_operator(self):
        return self.symbol is not None


# -- complex-analytic extensions NumPy lacks ------------------------------------------------

def _c_cbrt(z):
    """Real cube root continued analytically off the real axis (np.cbrt is real-only)."""
    z = np.asarray(z, dtype=complex)
    s = np.where(z.real < 0, -1.0, 1.0)
    return s * (s * z) ** (1 / 3)


def _c_erf(z):
    """erf of complex arguments by mpmath, as ±(1 - erfc(±z)): erfc keeps full relative
    precision where erf is close to ±1, so the tiny imaginary part of erf(x + 1e-20i)
    stays accurate even at x = 30 (where it is 1e-411)."""
    def one(w):
        with mp.workdps(60):
            sign = 1 if w.real >= 0 else -1
            try:
                tail = mp.erfc(mp.mpc(sign * w.real, sign * w.imag))
                return complex(sign * (1 - mp.re(tail)), -sign * mp.im(tail))
            except OverflowError:       # far out along the axis mpmath overflows: erf is ±1 there
                return complex(sign, 0.0)
    z = np.asarray(z, dtype=complex)
    return np.vectorize(one, otypes=[complex])(z) if z.ndim else one(complex(z))


def _c_softplus(z):
    z = np.asarray(z, dtype=complex)
    pos = z.real > 0
    return np.where(pos, z + np.log1p(np.exp(-np.where(pos, z, 0))), np.log1p(np.exp(np.where(pos, 0, z))))


def _c_atan2(y, x):
    """atan2 continued off the real axis: the real parts pick the branch, as real atan2 does."""
    y, x = np.asarray(y, dtype=complex), np.asarray(x, dtype=complex)
    near_x = np.abs(x.real) >= np.abs(y.real)
    via_x = np.arctan(y / np.where(near_x, x, 1)) + np.where(x.real > 0, 0.0, np.where(y.real >= 0, np.pi, -np.pi))
    via_y = np.where(y.real > 0, np.pi / 2, -np.pi / 2) - np.arctan(x / np.where(near_x, 1, y))
    return np.where(near_x, via_x, via_y)


def _mp_cbrt(x):
    return mp.sign(x) * mp.cbrt(abs(x))


def _mp_sign(x):
    return mp.mpf(mp.sign(x))


def _sp_cbrt(x):
    # the real cube root (SymPy's cbrt is the principal, complex one for x < 0)
    return sp.sign(x) * sp.Abs(x) ** sp.Rational(1, 3)


_BINARY64_CONSTANTS = {}


def binary64_constant(name: str, value: float, latex: str):
    """A SymPy number that prints as ``name`` but is exactly the binary64 ``value`` the
    numerical worlds use: sin(pi) stays sin(pi) and evaluates to sin(3.141592653589793)
    = 1.22e-16, not 0, so the reference differentiates the function the other methods
    compute. Built on first use (SymPy loads lazily)."""
    if name not in _BINARY64_CONSTANTS:
        from mpmath.libmp import from_float
        from sympy import Float, Symbol
        from sympy.core.numbers import NumberSymbol

        def evalf(self, prec):
            return Float._new(from_float(value), prec)

        cls = type(f"Binary64_{name}", (NumberSymbol,), {
            "__slots__": (), "is_real": True, "is_positive": True, "is_number": True,
            "__new__": lambda cls: NumberSymbol.__new__(cls),
            "__hash__": lambda self: hash(("binary64", name)),
            "_as_mpf_val": lambda self, prec: from_float(value),
            "_eval_evalf": evalf,
            "_sympystr": lambda self, printer: name,
            "_latex": lambda self, printer: latex,
            "_pretty": lambda self, printer: printer._print_Symbol(Symbol(name)),
            "_numpycode": lambda self, printer: repr(value),
            "_pythoncode": lambda self, printer: repr(value),
            "_mpmathcode": lambda self, printer: f"mpf({value!r})",
        })
        _BINARY64_CONSTANTS[name] = cls()
    return _BINARY64_CONSTANTS[name]


def _sp_pow(a, b):
    """a ** b in SymPy, except that an exact power of numbers too large to compute (2 **
    10**30 would run for ever, beyond any alarm's reach) becomes a floating one."""
    if getattr(a, "is_Number", False) and getattr(b, "is_Rational", False) and abs(b.p) > 4096:
        return sp.Float(a, 17) ** b
    return a ** b


def _engine_const(value):
    return lambda *args: value


def _as_tensor(v):
    # a single-precision constant stays single: float32 runs are not promoted to float64
    return v if isinstance(v, Tensor) else as_tensor(v if isinstance(v, np.floating) else np.float64(v))


def _on_tensors(func):
    """Engine functions take tensors; a number argument (max(x, 0)) becomes a constant tensor."""
    return lambda *args: func(*map(_as_tensor, args))


def _engine_clamp(x, lo, hi):
    """Bounds given as numbers clamp as PyTorch's clamp(x, min, max) does (ClampBackward1);
    bounds that are tensors receive gradient too (ClampBackward0)."""
    if isinstance(lo, Tensor) or isinstance(hi, Tensor):
        return _ag.clamp(_as_tensor(x), _as_tensor(lo), _as_tensor(hi))
    return _ag.clamp(_as_tensor(x), lo, hi)


def _zero_at(x):
    return np.asarray(x) == 0


def _pow_kink_zeros(a, b):
    # a ** b has an infinite slope at a = 0 when b < 1 and b != 0: a constant b >= 1 has none
    try:
        exponent = float(b)
    except (TypeError, ValueError):       # b varies
        return [a]
    return [a] if exponent < 1 and exponent != 0 else []


def _itself(x):
    return [x]


def _difference(a, b):
    return [a - b]


def _at_plus_minus_one(x):
    return [x - 1, x + 1]


def _sign_of(x):
    return float(np.sign(x))


def _sign_of_difference(a, b):
    return float(np.sign(np.asarray(a) - np.asarray(b)))


def _pow_piece(a, b):
    # a non-integer or negative exponent makes 0 a boundary or a pole in the base
    b = float(b)
    return float(np.sign(a)) if (b != int(b) or b < 0) else 0.0


def _atan2_piece(y, x):
    # atan2 jumps by 2π across the negative x axis (the sign of a zero y picks the side)
    y, x = float(y), float(x)
    if x == 0 and y == 0:
        return "origin"
    return math.copysign(1.0, y) if x < 0 else 0.0


def _hypot_piece(a, b):
    return (float(np.sign(a)) if float(b) == 0 else 0.0, float(np.sign(b)) if float(a) == 0 else 0.0)


def _tan_piece(x):
    return float(np.floor(float(x) / np.pi + 0.5))     # which branch between poles


_POS = ((0.7,), (1.3,), (2.5,))
_UNIT = ((0.3,), (-0.6,), (0.85,))

# kink/convention texts are shown in reports at non-differentiable points
ROWS: dict[str, Row] = {}
# worlds defined outside the table, registered by their module when it is imported (the
# torch world, only when PyTorch is installed): world -> (row -> its function, or None)
EXTRA_WORLDS: dict[str, Callable] = {}


def implementation(row: Row, world: str):
    """``row``'s function in ``world`` (a column, or a registered extra world); None
    where the row has no meaning there."""
    extra = EXTRA_WORLDS.get(world)
    return extra(row) if extra is not None else getattr(row, world)


def single_precision_form(row: Row):
    """``row`` in NumPy single precision as plain code computes it: an operator row is
    Python's operator (NumPy's scalar arithmetic on float32 scalars, its array operator on
    arrays), any other row its NumPy function.

    >>> single_precision_form(ROWS["pow"]) is operator.pow, single_precision_form(ROWS["sin"]) is np.sin
    (True, True)
    """
    return row.python or row.numpy


def _row(name, arity, numpy, complex, sympy, mpmath, engine, doc, **kw):
    ROWS[name] = Row(name, arity, numpy, complex, sympy, mpmath, engine, doc, **kw)


# -- operators --------------------------------------------------------------------------------
_row("add", 2, np.add, np.add, lambda a, b: a + b, lambda a, b: a + b, lambda a, b: a + b,
     "a + b", symbol="+", torch=lambda t: operator.add, jax=lambda j: operator.add, python=operator.add, samples=((0.7, -1.2), (2.0, 3.5)))
_row("sub", 2, np.subtract, np.subtract, lambda a, b: a - b, lambda a, b: a - b, lambda a, b: a - b,
     "a - b", symbol="-", torch=lambda t: operator.sub, jax=lambda j: operator.sub, python=operator.sub, samples=((0.7, -1.2), (2.0, 3.5)))
_row("mul", 2, np.multiply, np.multiply, lambda a, b: a * b, lambda a, b: a * b, lambda a, b: a * b,
     "a * b", symbol="*", torch=lambda t: operator.mul, jax=lambda j: operator.mul, python=operator.mul, samples=((0.7, -1.2), (2.0, 3.5)))
_row("div", 2, np.true_divide, np.true_divide, lambda a, b: a / b, lambda a, b: a / b, lambda a, b: a / b,
     "a / b", domain="b ≠ 0", symbol="/", torch=lambda t: operator.truediv, jax=lambda j: operator.truediv, python=operator.truediv, samples=((0.7, -1.2), (2.0, 3.5)),
     piece=lambda a, b: _sign_of(b))
_row("neg", 1, np.negative, np.negative, lambda a: -a, lambda a: -a, lambda a: -a,
     "-a", symbol="-", torch=lambda t: operator.neg, jax=lambda j: operator.neg, python=operator.neg)
_row("pow", 2, np.power, np.power, _sp_pow, lambda a, b: a ** b, _ag.pow,
     "a ** b (also a ^ b): a power; a > 0 unless b is an integer", domain="a > 0, or b an integer",
     symbol="**", torch=lambda t: operator.pow, jax=lambda j: operator.pow, python=operator.pow, samples=((0.7, 2.5), (2.0, -1.5), (1.5, 3.0)),
     kink=lambda a, b: (np.asarray(a) == 0) & (np.asarray(b) < 1) & (np.asarray(b) != 0), kink_zeros=_pow_kink_zeros,
     kink_note="a ** b with a = 0 and b < 1 has an infinite slope in a", piece=_pow_piece)

# -- constants --------------------------------------------------------------------------------
_row("pi", 0, _engine_const(np.pi), _engine_const(complex(np.pi)), lambda: binary64_constant("pi", np.pi, r"\pi"),
     lambda: mp.mpf(np.pi),
     _engine_const(np.pi), "π as binary64: 3.141592653589793", samples=((),), torch=lambda t: _engine_const(math.pi), jax=lambda j: _engine_const(math.pi))
_row("e", 0, _engine_const(np.e), _engine_const(complex(np.e)), lambda: binary64_constant("e", np.e, "e"),
     lambda: mp.mpf(np.e),
     _engine_const(np.e), "Euler's number e as binary64: 2.718281828459045", samples=((),),
     torch=lambda t: _engine_const(math.e), jax=lambda j: _engine_const(math.e))

# -- trigonometric and hyperbolic --------------------------------------------------------------
_row("sin", 1, np.sin, np.sin, lambda x: sp.sin(x), lambda x: mp.sin(x), _on_tensors(_ag.sin), "sine")
_row("cos", 1, np.cos, np.cos, lambda x: sp.cos(x), lambda x: mp.cos(x), _on_tensors(_ag.cos), "cosine")
_row("tan", 1, np.tan, np.tan, lambda x: sp.tan(x), lambda x: mp.tan(x), _on_tensors(_ag.tan), "tangent",
     domain="x ≠ π/2 + kπ", piece=_tan_piece)
_row("asin", 1, np.arcsin, np.arcsin, lambda x: sp.asin(x), lambda x: mp.asin(x), _on_tensors(_ag.asin),
     "inverse sine", domain="-1 ≤ x ≤ 1 (differentiable inside)", samples=_UNIT,
     kink=lambda x: np.abs(x) == 1, kink_zeros=_at_plus_minus_one, kink_note="asin has an infinite slope at ±1")
_row("acos", 1, np.arccos, np.arccos, lambda x: sp.acos(x), lambda x: mp.acos(x), _on_tensors(_ag.acos),
     "inverse cosine", domain="-1 ≤ x ≤ 1 (differentiable inside)", samples=_UNIT,
     kink=lambda x: np.abs(x) == 1, kink_zeros=_at_plus_minus_one, kink_note="acos has an infinite slope at ±1")
_row("atan", 1, np.arctan, np.arctan, lambda x: sp.atan(x), lambda x: mp.atan(x), _on_tensors(_ag.atan),
     "inverse tangent")
_row("atan2", 2, np.arctan2, _c_atan2, lambda y, x: sp.atan2(y, x), lambda y, x: mp.atan2(y, x),
     _on_tensors(_ag.atan2), "atan2(y, x): the angle of the point (x, y)",
     domain="(x, y) ≠ (0, 0); jumps by 2π across x < 0, y = 0", samples=((0.7, 1.2), (-1.3, 0.4), (2.0, -0.5)),
     kink=lambda y, x: (np.asarray(x) == 0) & (np.asarray(y) == 0) | (np.asarray(y) == 0) & (np.asarray(x) < 0),
     kink_note="atan2 is not differentiable at the origin and jumps across the negative x axis",
     piece=_atan2_piece)
_row("sinh", 1, np.sinh, np.sinh, lambda x: sp.sinh(x), lambda x: mp.sinh(x), _on_tensors(_ag.sinh),
     "hyperbolic sine")
_row("cosh", 1, np.cosh, np.cosh, lambda x: sp.cosh(x), lambda x: mp.cosh(x), _on_tensors(_ag.cosh),
     "hyperbolic cosine")
_row("tanh", 1, np.tanh, np.tanh, lambda x: sp.tanh(x), lambda x: mp.tanh(x), _on_tensors(_ag.tanh),
     "hyperbolic tangent")
_row("asinh", 1, np.arcsinh, np.arcsinh, lambda x: sp.asinh(x), lambda x: mp.asinh(x),
     _on_tensors(_ag.asinh), "inverse hyperbolic sine")
_row("acosh", 1, np.arccosh, np.arccosh, lambda x: sp.acosh(x), lambda x: mp.acosh(x),
     _on_tensors(_ag.acosh), "inverse hyperbolic cosine", domain="x ≥ 1 (differentiable for x > 1)",
     samples=((1.2,), (2.5,), (7.0,)), kink=lambda x: np.asarray(x) == 1, kink_zeros=lambda x: [x - 1],
     kink_note="acosh has an infinite slope at 1")
_row("atanh", 1, np.arctanh, np.arctanh, lambda x: sp.atanh(x), lambda x: mp.atanh(x),
     _on_tensors(_ag.atanh), "inverse hyperbolic tangent", domain="-1 < x < 1", samples=_UNIT)

# -- exponentials and logarithms --------------------------------------------------------------
_row("exp", 1, np.exp, np.exp, lambda x: sp.exp(x), lambda x: mp.exp(x), _on_tensors(_ag.exp), "e ** x")
_row("expm1", 1, np.expm1, np.expm1, lambda x: _cfunctions.expm1(x), lambda x: mp.expm1(x),
     _on_tensors(_ag.expm1), "exp(x) - 1, accurate for small x")
_row("log", 1, np.log, np.log, lambda x: sp.log(x), lambda x: mp.log(x), _on_tensors(_ag.log),
     "natural logarithm", domain="x > 0", samples=_POS)
_row("log1p", 1, np.log1p, np.log1p, lambda x: _cfunctions.log1p(x), lambda x: mp.log1p(x),
     _on_tensors(_ag.log1p), "log(1 + x), accurate for small x", domain="x > -1",
     samples=((0.7,), (-0.4,), (2.5,)))
_row("log2", 1, np.log2, np.log2, lambda x: _cfunctions.log2(x), lambda x: mp.log(x, 2),
     _on_tensors(_ag.log2), "base-2 logarithm", domain="x > 0", samples=_POS)
_row("log10", 1, np.log10, np.log10, lambda x: _cfunctions.log10(x), lambda x: mp.log10(x),
     _on_tensors(_ag.log10), "base-10 logarithm", domain="x > 0", samples=_POS)
_row("sqrt", 1, np.sqrt, np.sqrt, lambda x: sp.sqrt(x), lambda x: mp.sqrt(x), _on_tensors(_ag.sqrt),
     "square root", domain="x ≥ 0 (differentiable for x > 0)", samples=_POS, kink=_zero_at, kink_zeros=_itself,
     kink_note="sqrt has an infinite slope at 0", piece=_sign_of)
_row("cbrt", 1, np.cbrt, _c_cbrt, _sp_cbrt, _mp_cbrt, _on_tensors(_ag.cbrt),
     "real cube root (negative for x < 0)", kink=_zero_at, kink_zeros=_itself, kink_note="cbrt has an infinite slope at 0", piece=_sign_of,
     torch=lambda t: lambda x: t.sign(x) * t.abs(x) ** (1 / 3))

# -- activation functions and friends --------------------------------------------------------
_row("sigmoid", 1, special.sigmoid, lambda z: 1 / (1 + np.exp(-np.asarray(z, dtype=complex))),
     lambda x: 1 / (1 + sp.exp(-x)), lambda x: 1 / (1 + mp.exp(-x)), _on_tensors(_ag.sigmoid),
     "logistic function 1 / (1 + exp(-x))", jax=lambda j: j.nn.sigmoid)
_row("softplus", 1, lambda x: np.logaddexp(0, x), _c_softplus, lambda x: sp.log(1 + sp.exp(x)),
     lambda x: mp.log1p(mp.exp(x)), _on_tensors(lambda t: _ag.softplus(t, threshold=math.inf)),
     "log(1 + exp(x)) (without PyTorch's linear cut-off above 20)",
     torch=lambda t: lambda x: t.logaddexp(t.zeros_like(x), x), jax=lambda j: lambda x: j.numpy.logaddexp(0.0, x))
_row("relu", 1, lambda x: np.maximum(x, 0.0), None, lambda x: sp.Max(0, x), lambda x: max(x, 0),
     _on_tensors(_ag.relu), "max(x, 0)", jax=lambda j: j.nn.relu, kink=_zero_at, kink_zeros=_itself, kink_note="relu has a kink at 0: slope 0 left, 1 right", piece=_sign_of,
     not_complex_safe="relu is not analytic (it compares values)",
     engine_convention="relu'(0) = 0 (PyTorch)", sympy_convention="d/dx Max(0, x) = Heaviside(x), Heaviside(0) = 1/2")
_row("abs", 1, np.abs, None, lambda x: sp.Abs(x), lambda x: abs(x), _on_tensors(_ag.abs), "absolute value",
     kink=_zero_at, kink_zeros=_itself, kink_note="abs has a kink at 0: slope -1 left, +1 right", piece=_sign_of,
     not_complex_safe="abs is not analytic (NumPy's abs of a complex number is its modulus)",
     engine_convention="abs'(0) = sign(0) = 0 (PyTorch)", sympy_convention="d/dx Abs(x) = sign(x), sign(0) = 0")
_row("sign", 1, np.sign, None, lambda x: sp.sign(x), _mp_sign, _on_tensors(_ag.sign),
     "sign: -1, 0 or 1", kink=_zero_at, kink_zeros=_itself, kink_note="sign jumps at 0", piece=_sign_of,
     not_complex_safe="sign is not analytic (it compares values)",
     engine_convention="sign' = 0 everywhere (PyTorch)", sympy_convention="d/dx sign(x) = 2 DiracDelta(x), undefined at 0")
_row("erf", 1, special.erf, _c_erf, lambda x: sp.erf(x), lambda x: mp.erf(x), _on_tensors(_ag.erf), "error function",
     jax=lambda j: j.scipy.special.erf)
_row("hypot", 2, np.hypot, lambda a, b: np.sqrt(np.asarray(a, dtype=complex) ** 2 + np.asarray(b, dtype=complex) ** 2),
     lambda a, b: sp.sqrt(a ** 2 + b ** 2), lambda a, b: mp.hypot(a, b), _on_tensors(_ag.hypot),
     "sqrt(a² + b²) without overflow", samples=((0.7, 1.2), (-1.3, 0.4), (3.0, -4.0)),
     kink=lambda a, b: (np.asarray(a) == 0) & (np.asarray(b) == 0),
     kink_note="hypot has a cone point at the origin", piece=_hypot_piece, engine_convention="nan at the origin (PyTorch)")
_row("min", 2, np.minimum, None, lambda a, b: sp.Min(a, b), lambda a, b: min(a, b), _on_tensors(_ag.minimum),
     "the smaller of a and b", torch=lambda t: t.minimum, jax=lambda j: j.numpy.minimum, samples=((0.7, 1.2), (-1.3, 0.4), (3.0, -4.0)),
     kink=lambda a, b: np.asarray(a) == np.asarray(b), kink_zeros=_difference, kink_note="min has a kink where a = b", piece=_sign_of_difference,
     not_complex_safe="min is not analytic (it compares values)",
     engine_convention="a tie sends half the gradient to each side (PyTorch)",
     sympy_convention="d/da Min(a, b) = Heaviside(b - a), Heaviside(0) = 1/2")
_row("max", 2, np.maximum, None, lambda a, b: sp.Max(a, b), lambda a, b: max(a, b), _on_tensors(_ag.maximum),
     "the larger of a and b", torch=lambda t: t.maximum, jax=lambda j: j.numpy.maximum, samples=((0.7, 1.2), (-1.3, 0.4), (3.0, -4.0)),
     kink=lambda a, b: np.asarray(a) == np.asarray(b), kink_zeros=_difference, kink_note="max has a kink where a = b", piece=_sign_of_difference,
     not_complex_safe="max is not analytic (it compares values)",
     engine_convention="a tie sends half the gradient to each side (PyTorch)",
     sympy_convention="d/da Max(a, b) = Heaviside(a - b), Heaviside(0) = 1/2")

_row("clamp", 3, np.clip, None, lambda x, lo, hi: sp.Min(sp.Max(x, lo), hi), lambda x, lo, hi: min(max(x, lo), hi),
     _engine_clamp, "x limited to [lo, hi]: max(lo, min(x, hi)) for lo ≤ hi", jax=lambda j: j.numpy.clip,
     samples=((0.5, 0.0, 1.0), (-1.3, -1.0, 2.0), (2.5, 0.0, 1.0)),
     kink=lambda x, lo, hi: (np.asarray(x) == np.asarray(lo)) | (np.asarray(x) == np.asarray(hi)),
     kink_zeros=lambda x, lo, hi: [x - lo, x - hi],
     kink_note="clamp has a kink at each bound", piece=lambda x, lo, hi: (_sign_of_difference(x, lo),
                                                                          _sign_of_difference(x, hi)),
     not_complex_safe="clamp is not analytic (it compares values)",
     engine_convention="clamp'(x) = 1 at a bound given as a number: the bounds are inclusive (PyTorch)",
     sympy_convention="d/dx Min(Max(x, lo), hi) = Heaviside(x - lo) Heaviside(hi - x) away from lo = hi, "
                      "Heaviside(0) = 1/2")

# -- arrays: reductions, products and the bracket syntax ----------------------------------------
# These rows act on whole arrays (NumPy arrays, engine tensors, and in SymPy and mpmath
# object arrays holding one symbol or number per element), so they are never mapped
# element by element as the rows above are.

def _flat(a):
    return list(np.ravel(a)) if isinstance(a, np.ndarray) else [a]


def _sp_sum(a):
    return sp.Add(*_flat(a))


def _mp_sum(a):
    return mp.fsum(_flat(a))


def _objects(values):
    """A list of world scalars or object arrays, broadcast and stacked on a new first axis."""
    arrays = np.broadcast_arrays(*[np.asarray(v, dtype=object) for v in values])
    out = np.empty((len(values),) + arrays[0].shape, dtype=object)
    for i, a in enumerate(arrays):
        out[i, ...] = a        # element by element: a 0-d array must not be stored as an object
    return out


def _stack(values):
    """[a, b, ...] in NumPy: broadcast (a constant beside a batch of points) and stack."""
    return np.stack(np.broadcast_arrays(*[np.asarray(v) for v in values]))


def _engine_stack(*values):
    tensors = [_as_tensor(v) for v in values]
    shape = np.broadcast_shapes(*(t.shape for t in tensors))
    return _ag.stack([t if t.shape == shape else t.expand(*shape) for t in tensors])


def _object_matmul(add):
    """a @ b for object arrays of 1 or 2 dimensions, each entry one n-term sum (``add``),
    not a chain of n two-term sums (which SymPy would flatten n times over)."""
    def matmul(a, b):
        _matmul_shapes(a, b)
        a, b = np.asarray(a, dtype=object), np.asarray(b, dtype=object)
        a2 = a.reshape(1, -1) if a.ndim == 1 else a
        b2 = b.reshape(-1, 1) if b.ndim == 1 else b
        out = np.empty((a2.shape[0], b2.shape[1]), dtype=object)
        for i in range(out.shape[0]):
            for j in range(out.shape[1]):
                out[i, j] = add([a2[i, k] * b2[k, j] for k in range(a2.shape[1])])
        if a.ndim == 1:
            out = out[0]
        if b.ndim == 1:
            out = out[..., 0]
        return out if out.ndim else out[()]
    return matmul


def _matmul_shapes(a, b):
    sa, sb = np.shape(a), np.shape(b)
    if not sa or not sb:
        raise ValueError("matmul: both operands must be vectors or matrices, not numbers (use * to scale)")
    inner_a, inner_b = sa[-1], (sb[0] if len(sb) == 1 else sb[-2])
    if inner_a != inner_b:
        raise ValueError(f"matmul: shapes {sa} and {sb} do not fit ({inner_a} ≠ {inner_b})")


def _np_matmul(a, b):
    _matmul_shapes(a, b)
    return np.matmul(a, b)


def _np_dot(a, b):
    a, b = np.asarray(a), np.asarray(b)
    if a.ndim != 1 or b.ndim != 1 or a.shape != b.shape:
        raise ValueError(f"dot takes two vectors of the same length, not shapes {a.shape} and {b.shape}")
    return np.dot(a, b)


def _object_dot(add):
    def dot(a, b):
        _np_dot(np.zeros(np.shape(a)), np.zeros(np.shape(b)))       # the same shape checks
        return add([u * v for u, v in zip(_flat(a), _flat(b))])
    return dot


def _all_zero(a):
    return bool(np.all(np.asarray(a) == 0))


_VECTORS = ((np.array([0.7, -1.3, 2.5]),), (np.array([[1.5, -0.5], [0.25, 2.0]]),))
_PAIRS = ((np.array([0.7, -1.3, 2.5]), np.array([1.2, 0.4, -2.0])),)


def _row_on_arrays(name, arity, numpy, complex, sympy_add, mpmath_add, engine, doc, **kw):
    _row(name, arity, numpy, complex, sympy_add, mpmath_add, engine, doc, structural=True, **kw)


_row_on_arrays("sum", 1, np.sum, np.sum, _sp_sum, _mp_sum, _on_tensors(_ag.sum), "sum of all elements",
               samples=_VECTORS)
_row_on_arrays("prod", 1, np.prod, np.prod, lambda a: sp.Mul(*_flat(a)), lambda a: mp.fprod(_flat(a)),
               _on_tensors(_ag.prod), "product of all elements", samples=_VECTORS)
_row_on_arrays("mean", 1, np.mean, np.mean, lambda a: _sp_sum(a) / len(_flat(a)),
               lambda a: _mp_sum(a) / len(_flat(a)), _on_tensors(_ag.mean), "mean of all elements",
               samples=_VECTORS)
_row_on_arrays("norm", 1, lambda a: np.sqrt(np.sum(np.square(a))),
               lambda z: np.sqrt(np.sum(np.square(z))),        # analytic: no modulus
               lambda a: sp.sqrt(sp.Add(*[v ** 2 for v in _flat(a)])),
               lambda a: mp.sqrt(mp.fsum(v ** 2 for v in _flat(a))),
               _on_tensors(_ag.norm), "Euclidean norm sqrt(sum(x**2)) of all elements", samples=_VECTORS,
               torch=lambda t: t.linalg.vector_norm, jax=lambda j: j.numpy.linalg.norm,
               domain="all arrays (differentiable where not all zero)", kink=_all_zero,
               kink_note="norm has a cone point where every element is 0",
               engine_convention="the gradient of norm at 0 is 0 (PyTorch)")
_row_on_arrays("dot", 2, _np_dot, _np_dot, _object_dot(lambda t: sp.Add(*t)), _object_dot(lambda t: mp.fsum(t)),
               _on_tensors(_ag.dot), "dot(a, b): the sum of a * b for two vectors of the same length",
               samples=_PAIRS)
_row_on_arrays("matmul", 2, _np_matmul, _np_matmul, _object_matmul(lambda t: sp.Add(*t)),
               _object_matmul(lambda t: mp.fsum(t)), _on_tensors(_ag.matmul),
               "a @ b: matrix product (vector @ vector is the dot product)", symbol="@", torch=lambda t: operator.matmul,
               jax=lambda j: operator.matmul,
               samples=_PAIRS + ((np.array([[1.5, -0.5], [0.25, 2.0]]), np.array([0.3, -0.7])),))
def _select(a, key):
    """a[key], refusing a slice that selects nothing (x[5:] of a 2-vector: a sum over it
    would be a silent 0, and every method would agree on nothing)."""
    result = a[key]
    shape = tuple(getattr(result, "shape", ()))
    if 0 in shape:
        raise IndexError(f"the subscript selects no element of an array of shape {tuple(getattr(a, 'shape', ()))}")
    return result


_row_on_arrays("index", 2, _select, _select, _select, _select, lambda a, key: _select(_as_tensor(a), key),
               "x[i], x[i:j], A[i, j]: an element or a slice (integer constants)", syntax="x[...]",
               torch=lambda t: operator.getitem, jax=lambda j: operator.getitem,
               samples=())
_row_on_arrays("vector", -1, lambda *a: _stack(a), lambda *a: _stack(a), lambda *a: _objects(a),
               lambda *a: _objects(a), _engine_stack, "[a, b, ...]: a vector (or, of vectors, a matrix)",
               syntax="[...]", samples=(), torch=lambda t: lambda *values: t.stack(
                   [v if isinstance(v, t.Tensor) else t.tensor(float(v), dtype=t.float64) for v in values]),
               jax=lambda j: lambda *values: j.numpy.stack([j.numpy.asarray(v, dtype=j.numpy.float64) for v in values]))

OPERATORS = {row.symbol: row for row in ROWS.values() if row.is_operator and row.name != "neg"}
CALLABLE = {name: row for name, row in ROWS.items()
            if not row.is_operator and not row.is_constant and not row.syntax}
CALLABLE["pow"] = ROWS["pow"]
CONSTANTS = {name: row for name, row in ROWS.items() if row.is_constant}
KNOWN_NAMES = sorted(CALLABLE) + sorted(CONSTANTS)


# -- what SymPy's derivatives hold that no world defines ----------------------------------------

@dataclass(frozen=True)
class Special:
    """A function that appears only in SymPy's derivatives of rows (sign'(x) is 2 DiracDelta(x)),
    in the worlds that evaluate those derivatives: NumPy arrays and mpmath numbers, and the
    size the error model gives it (``bound``)."""
    name: str
    numpy: Callable
    mpmath: Callable
    bound: Callable


def _dirac_numpy(argument, *order):
    a = np.asarray(argument, dtype=float)
    return np.where(a == 0, np.nan, 0.0)[()]


def _dirac_mpmath(argument, *order):
    return mp.mpf(0) if argument != 0 else mp.nan


SPECIALS = {
    # 0 away from 0, undefined at 0: a derivative holding it is undefined on the kink; the error
    # model's local derivatives count it as 0 (the kink itself is judged by the differentiability
    # analysis, not by a band)
    "DiracDelta": Special("DiracDelta", numpy=_dirac_numpy, mpmath=_dirac_mpmath, bound=lambda *a: mp.mpf(0)),
}


def specials(world: str) -> dict:
    """{name: the special function in ``world`` ("numpy", "mpmath" or "bound")}, for lambdify."""
    return {name: getattr(special, world) for name, special in SPECIALS.items()}
