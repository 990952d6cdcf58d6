"""The orthogonal polynomials of ``torch.special`` at a tensor degree: Chebyshev of the four
kinds (T, U, V, W) and their shifted forms on [0, 1], Hermite (physicists' H and
probabilists' He), Laguerre L and Legendre P. PyTorch declares them not differentiable: the
results never require grad.

Each is evaluated as PyTorch's kernel evaluates it, so with the same roundings: the degree
truncated to an integer (NaN, infinite or out-of-range degrees count as negative, giving 0),
the closed values at the ends of the interval, the trigonometric form inside it for high
degrees (Chebyshev), and otherwise the three-term recurrence, in the result's dtype.

>>> from diffcompare import autograd as ag
>>> legendre_polynomial_p(ag.tensor([0.5, 2.0]), 2)           # (3x^2 - 1) / 2
tensor([-0.1250,  5.5000])
>>> hermite_polynomial_h(ag.tensor([1.0]), ag.tensor([0, 1, 2, 3]))
tensor([ 1.,  2.,  2., -4.])
"""

from __future__ import annotations

import numbers

import numpy as np

from ..tensor import Tensor
from .recording import floating_dtype


def _degrees(n):
    """PyTorch's cast of a degree to int64: truncated toward 0; NaN, +-inf and values beyond
    int64's range negative."""
    n = np.asarray(n)
    if n.dtype.kind in "iub":
        return n.astype(np.int64)
    with np.errstate(invalid="ignore"):
        fits = np.abs(n) < 2.0 ** 63
    return np.where(fits, np.trunc(np.where(fits, n, 0)), -1).astype(np.int64)


def _recurrence(x, n, first, step):
    """P_n(x) for degrees n >= 2 from P_0 = 1, P_1 = ``first`` and P_d = step(d, x, P_{d-2},
    P_{d-1}); an element stops at its degree, or as soon as its value is NaN."""
    out = np.empty_like(x)
    todo = np.arange(x.size)
    x, n, p, q = x.ravel(), n.ravel(), np.ones_like(x).ravel(), first.ravel()
    stopped = np.isnan(q)               # PyTorch's loop does not start on a NaN P_1: NaN
    out.flat[todo[stopped]] = np.nan
    todo, x, n, p, q = todo[~stopped], x[~stopped], n[~stopped], p[~stopped], q[~stopped]
    d = 2
    while todo.size:
        r = step(d, x, p, q)
        done = (n == d) | np.isnan(r)
        out.flat[todo[done]] = r[done]
        keep = ~done
        todo, x, n, p, q = todo[keep], x[keep], n[keep], q[keep], r[keep]
        d += 1
    return out


def _evaluate(x, n, cases, first, step):
    """The polynomial at ``x`` (float arrays of the result's dtype) and degrees ``n`` (int64):
    the first of ``cases`` ((condition, value or a function giving it) pairs, in PyTorch's
    order) that holds, else the recurrence."""
    x, n = np.broadcast_arrays(x, n)
    with np.errstate(all="ignore"):
        found = list(cases(x, n))
        out = np.zeros(x.shape, dtype=x.dtype)
        rest = ~np.logical_or.reduce([condition for condition, _ in found])
        if rest.any():
            out[rest] = _recurrence(x[rest], n[rest], np.asarray(first(x[rest]), dtype=x.dtype), step)
        for condition, value in reversed(found):         # the first case that holds is written last
            if condition.any():
                value = np.asarray(value() if callable(value) else value, dtype=x.dtype)
                out[condition] = np.broadcast_to(value, x.shape)[condition]
    return out


def _odd_sign(n, value):
    """``value`` for an even degree, ``-value`` for an odd one."""
    return np.where(n % 2 == 0, value, -value)


def _chebyshev_step(d, x, p, q):
    return (x + x) * q - p


# -- the Chebyshev polynomials on [-1, 1] -----------------------------------------------------------

def _t_cases(x, n):
    t = x.dtype.type
    yield n < 0, t(0)
    yield np.abs(x) == 1, np.where((x > 0) | (n % 2 == 0), t(1), t(-1))
    yield (n > 6) & (np.abs(x) < 1), lambda: np.cos(n.astype(x.dtype) * np.arccos(x))
    yield n == 0, t(1)
    yield n == 1, x


def _u_cases(x, n):
    t = x.dtype.type
    m = (n + 1).astype(x.dtype)
    yield n < 0, t(0)
    yield np.abs(x) == 1, np.where((x > 0) | (n % 2 == 0), m, -m)

    def trig():
        a = np.arccos(x)
        return np.where(np.sin(a) != 0, np.sin(m * a) / np.sin(a), m * np.cos(m * a) / x)
    yield (n > 8) & (np.abs(x) < 1), trig
    yield n == 0, t(1)
    yield n == 1, x + x


def _v_cases(x, n):
    t = x.dtype.type
    odd = _odd_sign(n, (n + n + 1).astype(x.dtype))
    yield n < 0, t(0)
    yield np.abs(x) == 1, np.where(x > 0, t(1), odd)

    def trig():
        a = np.arccos(x)
        return np.where(np.sin(a / t(2)) != 1, np.cos((n.astype(x.dtype) + t(0.5)) * a) / np.cos(a / t(2)), odd)
    yield (n > 8) & (np.abs(x) < 1), trig
    yield n == 0, t(1)
    yield n == 1, x + x - t(1)


def _w_cases(x, n):
    t = x.dtype.type
    ends = np.where(x > 0, (n + n + 1).astype(x.dtype), _odd_sign(n, t(1)))
    yield n < 0, t(0)
    yield np.abs(x) == 1, ends

    def trig():
        a = np.arccos(x)
        return np.where(np.cos(a / t(2)) != 1, np.sin((n.astype(x.dtype) + t(0.5)) * a) / np.sin(a / t(2)), ends)
    yield (n > 8) & (np.abs(x) < 1), trig
    yield n == 0, t(1)
    yield n == 1, x + x + t(1)


# -- the shifted Chebyshev polynomials on [0, 1]: of y = 2x - 1 -----------------------------------

def _shifted(x):
    return x + x - x.dtype.type(1)


def _shifted_t_cases(x, n):
    t, y = x.dtype.type, _shifted(x)
    yield n < 0, t(0)
    yield x == 1, t(1)
    yield x == 0, _odd_sign(n, t(1))
    yield (n > 6) & (np.abs(y) < 1), lambda: np.cos(n.astype(x.dtype) * np.arccos(y))
    yield n == 0, t(1)
    yield n == 1, y


def _shifted_u_cases(x, n):
    t, y = x.dtype.type, _shifted(x)
    m = (n + 1).astype(x.dtype)
    yield n < 0, t(0)
    yield x == 1, m
    yield x == 0, _odd_sign(n, m)

    def trig():
        a = np.arccos(y)
        return np.where(np.sin(a) != 0, np.sin(m * a) / np.sin(a), m * np.cos(m * a) / y)
    yield (n > 6) & (np.abs(y) < 1), trig
    yield n == 0, t(1)
    yield n == 1, y + y


def _shifted_v_cases(x, n):
    t, y = x.dtype.type, _shifted(x)
    odd = _odd_sign(n, (n + n + 1).astype(x.dtype))
    yield n < 0, t(0)
    yield x == 1, t(1)
    yield x == 0, odd

    def trig():
        a = np.arccos(y)
        return np.where(np.sin(a / t(2)) != 1, np.cos((n.astype(x.dtype) + t(0.5)) * a) / np.cos(a / t(2)), odd)
    yield (n > 6) & (np.abs(y) < 1), trig
    yield n == 0, t(1)
    yield n == 1, y + y - t(1)


def _shifted_w_cases(x, n):
    t, y = x.dtype.type, _shifted(x)
    yield n < 0, t(0)
    yield x == 1, (n + n + 1).astype(x.dtype)
    yield x == 0, _odd_sign(n, t(1))

    def trig():
        a = np.arccos(y)
        return np.where(np.cos(a / t(2)) != 1, np.sin((n.astype(x.dtype) + t(0.5)) * a) / np.sin(a / t(2)),
                        _odd_sign(n, t(1)))
    yield (n > 4) & (np.abs(y) < 1), trig
    yield n == 0, t(1)
    yield n == 1, y + y + t(1)


def _shifted_step(d, x, p, q):
    y = _shifted(x)
    return (y + y) * q - p


# -- Hermite, Laguerre, Legendre ------------------------------------------------------------------

def _hermite_cases(first):
    def cases(x, n):
        t = x.dtype.type
        yield n < 0, t(0)
        yield n == 0, t(1)
        yield n == 1, first(x)
        yield n > (512 if x.dtype == np.float64 else 128), t(np.nan)      # PyTorch's limit on the degree
    return cases


def _laguerre_cases(x, n):
    t = x.dtype.type
    yield n < 0, t(0)
    yield x == 0, t(1)
    yield n == 0, t(1)
    yield n == 1, t(1) - x


def _legendre_cases(x, n):
    t = x.dtype.type
    yield n < 0, t(0)
    yield np.abs(x) == 1, np.where((x > 0) | (n % 2 == 0), t(1), t(-1))
    yield n == 0, t(1)
    yield n == 1, x


# name -> (cases, P_1, the recurrence's step from degree d - 2 and d - 1 to d, what it is)
POLYNOMIALS = {
    "chebyshev_polynomial_t": (_t_cases, lambda x: x, _chebyshev_step, "the Chebyshev polynomial of the first kind T_n"),
    "chebyshev_polynomial_u": (_u_cases, lambda x: x + x, _chebyshev_step,
                               "the Chebyshev polynomial of the second kind U_n"),
    "chebyshev_polynomial_v": (_v_cases, lambda x: x + x - 1, _chebyshev_step,
                               "the Chebyshev polynomial of the third kind V_n"),
    "chebyshev_polynomial_w": (_w_cases, lambda x: x + x + 1, _chebyshev_step,
                               "the Chebyshev polynomial of the fourth kind W_n"),
    "shifted_chebyshev_polynomial_t": (_shifted_t_cases, _shifted, _shifted_step, "T_n(2x - 1), T_n on [0, 1]"),
    "shifted_chebyshev_polynomial_u": (_shifted_u_cases, lambda x: _shifted(x) + _shifted(x), _shifted_step,
                                       "U_n(2x - 1)"),
    "shifted_chebyshev_polynomial_v": (_shifted_v_cases, lambda x: _shifted(x) + _shifted(x) - 1, _shifted_step,
                                       "V_n(2x - 1)"),
    "shifted_chebyshev_polynomial_w": (_shifted_w_cases, lambda x: _shifted(x) + _shifted(x) + 1, _shifted_step,
                                       "W_n(2x - 1)"),
    "hermite_polynomial_h": (_hermite_cases(lambda x: x + x), lambda x: x + x,
                             lambda d, x, p, q: (x + x) * q - (2 * (d - 1)) * p,
                             "the physicists' Hermite polynomial H_n (NaN above degree 512, 128 in float32)"),
    "hermite_polynomial_he": (_hermite_cases(lambda x: x), lambda x: x, lambda d, x, p, q: x * q - (d - 1) * p,
                              "the probabilists' Hermite polynomial He_n (NaN above degree 512, 128 in float32)"),
    "laguerre_polynomial_l": (_laguerre_cases, lambda x: 1 - x,
                              lambda d, x, p, q: ((2 * (d - 1) + (1 - x)) * q - (d - 1) * p) / d,
                              "the Laguerre polynomial L_n"),
    "legendre_polynomial_p": (_legendre_cases, lambda x: x,
                              lambda d, x, p, q: ((2 * d - 1) * x * q - (d - 1) * p) / d, "the Legendre polynomial P_n"),
}


def polynomial_array(name, x, n, dtype):
    """The polynomial ``name`` of :data:`POLYNOMIALS` at arrays ``x`` and ``n`` in ``dtype``."""
    cases, first, step, _ = POLYNOMIALS[name]
    return _evaluate(np.asarray(x).astype(dtype), _degrees(n), cases, first, step)


def _polynomial(name):
    def function(input, n):
        if not isinstance(input, Tensor) and not isinstance(n, Tensor):
            raise TypeError(f"special_{name}() received an invalid combination of arguments - got "
                            f"({type(input).__name__}, {type(n).__name__}), but expected one of:\n"
                            " * (Tensor x, Tensor n, *, Tensor out = None)\n"
                            " * (Number x, Tensor n, *, Tensor out = None)\n"
                            " * (Tensor x, Number n, *, Tensor out = None)\n")
        for value in (input, n):
            if not isinstance(value, (Tensor, numbers.Number)):
                raise TypeError(f"special_{name}(): expected a Tensor or a number, got {type(value).__name__}")
        arrays = [v._data if isinstance(v, Tensor) else np.asarray(v) for v in (input, n)]
        return Tensor._make(polynomial_array(name, *arrays, floating_dtype(input, n)))

    what = POLYNOMIALS[name][3]
    function.__name__ = function.__qualname__ = name
    function.__doc__ = (f"``torch.special.{name}(input, n)``: {what} at ``input``, of the degree ``n`` "
                        f"(either may be a number; no gradient).\n\n"
                        f"    >>> from diffcompare import autograd as ag\n"
                        f"    >>> ag.special.{name}(ag.tensor([0.25]), ag.tensor([0, 1]))[0]\n"
                        f"    tensor(1.)\n    ")
    return function


chebyshev_polynomial_t = _polynomial("chebyshev_polynomial_t")
chebyshev_polynomial_u = _polynomial("chebyshev_polynomial_u")
chebyshev_polynomial_v = _polynomial("chebyshev_polynomial_v")
chebyshev_polynomial_w = _polynomial("chebyshev_polynomial_w")
shifted_chebyshev_polynomial_t = _polynomial("shifted_chebyshev_polynomial_t")
shifted_chebyshev_polynomial_u = _polynomial("shifted_chebyshev_polynomial_u")
shifted_chebyshev_polynomial_v = _polynomial("shifted_chebyshev_polynomial_v")
shifted_chebyshev_polynomial_w = _polynomial("shifted_chebyshev_polynomial_w")
hermite_polynomial_h = _polynomial("hermite_polynomial_h")
hermite_polynomial_he = _polynomial("hermite_polynomial_he")
laguerre_polynomial_l = _polynomial("laguerre_polynomial_l")
legendre_polynomial_p = _polynomial("legendre_polynomial_p")

# what the family exports to `ops` (the functions live in `torch.special` only)
__all__ = ["POLYNOMIALS", "polynomial_array", *POLYNOMIALS]
