"""The gamma-function family and the inverse error function, ``torch.lgamma``, ``digamma``,
``polygamma`` (of the Hurwitz zeta function, as PyTorch's), ``erfinv`` and ``mvlgamma`` (also Tensor methods and in ``torch.special``) as differentiable ops (LgammaBackward0,
DigammaBackward0, PolygammaBackward0, as PyTorch names them), with PyTorch's CPU formulas for
digamma and trigamma (the same series, so the same values to the last bits or nearly).

>>> from diffcompare import autograd as ag
>>> x = ag.tensor([1.0, 2.5], requires_grad=True)
>>> lgamma(x).sum().backward(); x.grad     # digamma(1) = -Euler's constant
tensor([-0.5772,  0.7032])
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from .dual import D
from .outputs import write_out
from .recording import Op, apply
from .sampling import digamma_array
from .special import erf, erfc
from ..tensor import Tensor


def _lgamma_scalar(v):
    try:
        return math.lgamma(v)
    except ValueError:        # a pole (0, -1, -2, ...)
        return math.inf


_lgamma_ufunc = np.frompyfunc(_lgamma_scalar, 1, 1)


def lgamma_array(x):
    """log|Gamma(x)| elementwise (inf at the poles), in ``x``'s float dtype."""
    x = np.asarray(x)
    dtype = x.dtype if x.dtype.kind == "f" else np.float64
    return np.asarray(_lgamma_ufunc(x.astype(np.float64)), dtype=np.float64).astype(dtype)


def trigamma_array(x):
    """polygamma(1, x) elementwise as PyTorch's ``calc_trigamma`` computes it."""
    x = np.asarray(x)
    dtype = x.dtype if x.dtype.kind == "f" else np.float64
    v = np.array(x, dtype=np.float64)
    with np.errstate(all="ignore"):
        low = v < 0.5
        sign = np.where(low, -1.0, 1.0)
        result = np.where(low, -(math.pi ** 2) / np.sin(math.pi * v) ** 2, 0.0)
        v = np.where(low, 1 - v, v)
        for _ in range(6):
            result = result + 1 / (v * v)
            v = v + 1
        ixx = 1 / (v * v)
        result = result + (1 + 1 / (2 * v) + ixx * (1. / 6 - ixx * (1. / 30 - ixx * (1. / 42)))) / v
    return (sign * result).astype(dtype)


def polygamma_array(n, x):
    """polygamma(n, x): digamma for n = 0, trigamma for n = 1, else PyTorch's
    (-1)^(n+1) n! zeta(n + 1, x)."""
    if n == 0:
        return digamma_array(x)
    if n == 1:
        return trigamma_array(x)
    x = np.asarray(x)
    dtype = x.dtype if x.dtype.kind == "f" else np.float64
    sign = 1.0 if n % 2 else -1.0
    with np.errstate(all="ignore"):
        return (sign * math.exp(math.lgamma(n + 1.0)) * zeta_array(n + 1.0, x)).astype(dtype)


def _euler_maclaurin_divisors():
    """(2j)! / B_2j for j = 1..12: the Euler-Maclaurin correction terms' divisors, from the
    exact Bernoulli numbers."""
    import mpmath
    return tuple(float(Fraction(math.factorial(2 * j)) / Fraction(*mpmath.bernfrac(2 * j))) for j in range(1, 13))


_EM_DIVISORS = None
_MACHEP = 2.0 ** -53


def zeta_array(x, q, dtype=np.float64):
    """zeta(x, q), the Hurwitz zeta function sum over k >= 0 of (q + k)^-x, as PyTorch's Cephes
    kernel computes it (in float64 whatever ``dtype``): the terms summed until they are
    negligible or q + k > 9 after nine of them, then the Euler-Maclaurin tail with twelve
    Bernoulli corrections at most. inf at x = 1 and at the poles q = 0, -1, ...; NaN for
    x < 1, and for q < 0 with x not an integer."""
    global _EM_DIVISORS
    if _EM_DIVISORS is None:
        _EM_DIVISORS = _euler_maclaurin_divisors()
    x, q = np.broadcast_arrays(np.asarray(x, dtype=np.float64), np.asarray(q, dtype=np.float64))
    out = np.full(x.shape, np.nan)
    with np.errstate(all="ignore"):
        pole = (x == 1) | ~(x < 1) & (q <= 0) & (q == np.floor(q))
        out[pole] = np.inf
        todo = np.flatnonzero(~pole & ~(x < 1) & ~((q <= 0) & (x != np.floor(x))))
        xs, qs = x.flat[todo], q.flat[todo]
        s, a, b, i = np.power(qs, -xs), qs.copy(), np.zeros_like(qs), 0
        while todo.size:        # the direct sum: an element leaves when its term is negligible
            looping = (i < 9) | (a <= 9)
            if not looping.any():
                break
            a = np.where(looping, a + 1, a)
            b = np.where(looping, np.power(a, -xs), b)
            s = np.where(looping, s + b, s)
            negligible = looping & (-_MACHEP * s < b) & (b < _MACHEP * s)
            out.flat[todo[negligible]] = s[negligible]
            keep = ~negligible
            todo, xs, s, a, b = todo[keep], xs[keep], s[keep], a[keep], b[keep]
            i += 1
        w = a                   # the Euler-Maclaurin tail from w = q + N
        s = s + b * w / (xs - 1)
        s = s - 0.5 * b
        factor, k = np.ones_like(s), 0.0
        for divisor in _EM_DIVISORS:
            if not todo.size:
                break
            factor = factor * (xs + k)
            b = b / w
            t = factor * b / divisor
            s = s + t
            small = np.abs(t / s) < _MACHEP
            out.flat[todo[small]] = s[small]
            keep = ~small
            todo, xs, s, b, w, factor = todo[keep], xs[keep], s[keep], b[keep], w[keep], factor[keep]
            k += 1.0
            factor = factor * (xs + k)
            b = b / w
            k += 1.0
        out.flat[todo] = s
    return out.astype(dtype)


class LgammaBackward0(Op):
    """lgamma(x); VJP grad * digamma(x)."""
    saves = (0,)
    tangent = "elementwise"

    @staticmethod
    def forward(x):
        return lgamma_array(x)

    def backward(self, g, x):
        return (g * digamma(x),)


class DigammaBackward0(Op):
    """digamma(x); VJP grad * polygamma(1, x)."""
    saves = (0,)
    tangent = "elementwise"

    @staticmethod
    def forward(x):
        return digamma_array(x)

    def backward(self, g, x):
        return (g * polygamma(1, x),)


class PolygammaBackward0(Op):
    """polygamma(n, x); VJP grad * polygamma(n + 1, x)."""
    saves = (0,)

    @staticmethod
    def forward(x, n):
        return polygamma_array(n, x)

    def backward(self, g, x):
        return (g * polygamma(self.n + 1, x),)


def lgamma(x):
    """``torch.lgamma``: log|Gamma(x)| (a tensor or an array)."""
    return apply(LgammaBackward0, (x,)) if isinstance(x, Tensor) else lgamma_array(x)


def digamma(x):
    """``torch.digamma``: d/dx lgamma(x) (a tensor or an array)."""
    return apply(DigammaBackward0, (x,)) if isinstance(x, Tensor) else digamma_array(x)


def polygamma(n, input, *, out=None):
    """``torch.polygamma(n, x)``: the n-th derivative of digamma (a tensor or an array)."""
    x = input
    if n == 0:
        result = digamma(x)
    else:
        result = apply(PolygammaBackward0, (x,), {"n": n}) if isinstance(x, Tensor) else polygamma_array(n, x)
    return result if out is None else write_out(result, out, "polygamma")


def erfinv_array(y):
    """The inverse of erf elementwise: Giles' single-precision approximation polished by Newton
    steps on ``erf`` (to double precision); +-inf at +-1, NaN outside [-1, 1]."""
    y = np.asarray(y)
    dtype = y.dtype if y.dtype.kind == "f" else np.float64
    v = y.astype(np.float64)
    with np.errstate(all="ignore"):
        w = -np.log((1.0 - v) * (1.0 + v))
        small = w < 5.0
        ws, wl = w - 2.5, np.sqrt(w) - 3.0
        ps = 2.81022636e-08
        for c in (3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503, -0.00417768164,
                  0.246640727, 1.50140941):
            ps = c + ps * ws
        pl = -0.000200214257
        for c in (0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613, 0.00943887047,
                  1.00167406, 2.83297682):
            pl = c + pl * wl
        x = np.where(small, ps, pl) * v
        # Newton on erf near 0, on erfc in the tails (1 - |y| exact there, erfc(|x|) accurate)
        tail = np.abs(v) > 0.5
        for _ in range(8):
            residual = np.where(tail, np.sign(v) * ((1.0 - np.abs(v)) - erfc(np.abs(x))), erf(x) - v)
            x = x - residual / (2.0 / math.sqrt(math.pi) * np.exp(-x * x))
        x = np.where(v == 1, np.inf, np.where(v == -1, -np.inf, x))
        x = np.where(np.abs(v) > 1, np.nan, x)
    return x.astype(dtype)


class ErfinvBackward0(Op):
    """erfinv(x); VJP grad * sqrt(pi)/2 * exp(erfinv(x)^2)."""
    saves = (0,)

    @staticmethod
    def forward(x):
        return erfinv_array(x)

    def backward(self, g, x):
        r = erfinv(x)
        return (g * (0.5 * math.sqrt(math.pi)) * D.exp(r * r),)


def erfinv(x):
    """``torch.erfinv``: the inverse of erf (a tensor or an array)."""
    return apply(ErfinvBackward0, (x,)) if isinstance(x, Tensor) else erfinv_array(x)


def mvlgamma(a, p):
    """``torch.mvlgamma(a, p)``: the multivariate log-gamma function of dimension ``p``."""
    result = p * (p - 1) / 4 * math.log(math.pi)
    for i in range(1, p + 1):
        result = result + lgamma(a + (1 - i) / 2)
    return result


PUBLIC = ('lgamma', 'digamma', 'polygamma', 'erfinv', 'mvlgamma')
__all__ = ['zeta_array', 'LgammaBackward0', 'DigammaBackward0', 'PolygammaBackward0', 'ErfinvBackward0', 'lgamma', 'digamma', 'polygamma',
           'erfinv', 'mvlgamma']
