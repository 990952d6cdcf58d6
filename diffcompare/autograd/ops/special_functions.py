"""The special functions of ``torch.special`` beyond the gamma family: modified Bessel functions
(``i0``, ``i0e``, ``i1``, ``i1e``), the error-function family (``erfcx``, ``ndtr``, ``ndtri``,
``log_ndtr``), ``entr``, ``xlog1py``, the incomplete gamma functions (``gammainc``,
``gammaincc``, as ``torch.igamma`` and ``igammac``) and the Hurwitz ``zeta``, each with
PyTorch's node and derivatives.yaml's rule; and the functions PyTorch declares not
differentiable (their results never require grad): Bessel functions of the first and second
kind, the modified Bessel functions of the second kind, Airy's Ai, the spherical Bessel
function j0 and the orthogonal polynomials (Chebyshev, shifted Chebyshev, Hermite, Laguerre,
Legendre) of a tensor degree.

Values are NumPy formulas where they are accurate to the last bits (``np.i0``, the erfc of
:mod:`.special`, the polynomials' recurrences as PyTorch runs them, so the same roundings),
and otherwise mpmath per element at double precision or better, with PyTorch's values at the
edges (infinities, NaN, the poles, arguments outside the domain).

>>> from diffcompare import autograd as ag
>>> x = ag.tensor([0.5, 2.0], requires_grad=True)
>>> y = i0e(x)
>>> y.grad_fn.name(), y.detach().numpy().round(6).tolist()
('SpecialI0EBackward0', [0.645035, 0.308508])
"""

from __future__ import annotations

import math

import numpy as np

from ..tensor import Tensor
from .dual import D
from .elementwise import erf as erf_op
from .gamma_functions import erfinv_array, lgamma, zeta_array
from .losses import add_scalar, mul_scalar
from .pointwise import x_log_family
from .recording import RESULT, Op, apply, array_of, floating_dtype
from .special import erfc

_SQRT1_2 = math.sqrt(0.5)
_2_SQRT_PI = 2.0 / math.sqrt(math.pi)
_SQRT_2PI = math.sqrt(2.0 * math.pi)
_MACHEP = 2.0 ** -53
_MAXLOG = math.log(np.finfo(np.float64).max)


# -- how values are computed ---------------------------------------------------------------------

def _floating(x):
    """``x`` as float64 to compute on, and the dtype of the result (``x``'s floating dtype, or
    the default dtype for integers and bools, as PyTorch promotes them)."""
    x = np.asarray(x)
    dtype = x.dtype if x.dtype.kind == "f" else floating_dtype(x)
    return x.astype(np.float64), dtype


def per_element(scalar, *arrays, dtype, prec=80):
    """``scalar`` (Python floats to a float) applied to every element of the broadcast
    ``arrays`` with mpmath working at ``prec`` bits, the result in ``dtype``.

    >>> import mpmath
    >>> per_element(lambda v: float(mpmath.besselj(0, v)), np.array([0.0, 2.0]), dtype=np.float32)
    array([1.        , 0.22389078], dtype=float32)
    """
    import mpmath
    arrays = [np.asarray(a, dtype=np.float64) for a in arrays]
    with mpmath.workprec(prec), np.errstate(all="ignore"):
        values = np.frompyfunc(scalar, len(arrays), 1)(*arrays)
    return np.asarray(values, dtype=np.float64).astype(dtype)


def _mp():
    import mpmath
    return mpmath


def _same_shape(x, *rest, **params):
    """The result's (shape, dtype) on meta inputs: the input's shape, a floating dtype."""
    x = np.asarray(x)
    return x.shape, x.dtype if x.dtype.kind == "f" else floating_dtype(x)


# -- modified Bessel functions of the first kind --------------------------------------------------

def _exp_overflows(v, dtype):
    """Where exp(|v|) overflows in ``dtype``, as in PyTorch's kernels, which scale a Chebyshev
    series by it: I0 and I1 are inf there (though they are themselves a little smaller)."""
    with np.errstate(over="ignore"):
        return np.isinf(np.exp(np.abs(v).astype(dtype)))


def i0_array(x):
    """I0(x), the modified Bessel function of the first kind of order 0 (NumPy's, the same
    Cephes series as PyTorch's); inf where PyTorch's exp(|x|) overflows, NaN at +-inf (inf /
    inf in its kernel)."""
    v, dtype = _floating(x)
    with np.errstate(all="ignore"):
        out = np.where(_exp_overflows(v, dtype), np.inf, np.i0(v))
    return np.where(np.isinf(v), np.nan, out).astype(dtype)


def _i0e_scalar(v):
    mp = _mp()
    return float(mp.besseli(0, v) * mp.exp(-abs(v))) if math.isfinite(v) else (0.0 if v == v else v)


def i0e_array(x):
    """exp(-|x|) I0(x), by NumPy's I0 where it does not overflow and mpmath beyond; 0 at +-inf."""
    v, dtype = _floating(x)
    with np.errstate(all="ignore"):
        out = np.i0(v) * np.exp(-np.abs(v))
    far = ~(np.abs(v) <= 700)
    if far.any():
        out[far] = per_element(_i0e_scalar, v[far], dtype=np.float64)
    return out.astype(dtype)


def _i1_scalar(v):
    return float(_mp().besseli(1, v)) if not abs(v) >= 720 else math.copysign(math.inf, v)


def i1_array(x):
    """I1(x), the modified Bessel function of the first kind of order 1 (odd): +-inf where
    PyTorch's exp(|x|) overflows, NaN at +-inf (inf / inf in its kernel)."""
    v, dtype = _floating(x)
    out = np.where(_exp_overflows(v, dtype), np.copysign(np.inf, v), per_element(_i1_scalar, v, dtype=np.float64))
    return np.where(np.isinf(v), np.nan, out).astype(dtype)


def _i1e_scalar(v):
    mp = _mp()
    return float(mp.besseli(1, v) * mp.exp(-abs(v))) if math.isfinite(v) else (math.copysign(0.0, v) if v == v else v)


def i1e_array(x):
    """exp(-|x|) I1(x) (odd; +-0 at +-inf)."""
    v, dtype = _floating(x)
    return per_element(_i1e_scalar, v, dtype=dtype)


class I0Backward0(Op):
    """i0(x); VJP grad * i1(x)."""
    saves = (0,)
    tangent = "elementwise"
    forward = staticmethod(i0_array)

    def backward(self, g, x):
        return (g * i1(x),)


class SpecialI0EBackward0(Op):
    """i0e(x) = exp(-|x|) i0(x); VJP grad * (i1e(x) - sgn(x) result)."""
    saves = (0, RESULT)
    tangent = "elementwise"
    infer = staticmethod(_same_shape)
    forward = staticmethod(i0e_array)

    def backward(self, g, x, result):
        return (g * (i1e(x) - result * np.sign(array_of(x))),)


def _divided_by_x(g, x, result, lead, shift):
    """PyTorch's i1_backward and i1e_backward: g (lead(x) - result shift(x)), with x taken as
    eps where |x| <= eps (and at NaN), where the derivative is its limit 1/2."""
    xa = array_of(x)
    eps = np.finfo(xa.dtype).eps
    tiny = ~(np.abs(xa) > eps)
    safe = D.where(tiny, eps, x)
    return g * D.where(tiny, 0.5, lead(safe) - result * shift(safe))


class SpecialI1Backward0(Op):
    """i1(x); VJP grad (i0(x) - result / x), 1/2 near 0."""
    saves = (0, RESULT)
    tangent = "elementwise"
    infer = staticmethod(_same_shape)
    forward = staticmethod(i1_array)

    def backward(self, g, x, result):
        return (_divided_by_x(g, x, result, i0, lambda s: 1 / s),)


class SpecialI1EBackward0(Op):
    """i1e(x); VJP grad (i0e(x) - result (sgn(x) + 1 / x)), 1/2 near 0."""
    saves = (0, RESULT)
    tangent = "elementwise"
    infer = staticmethod(_same_shape)
    forward = staticmethod(i1e_array)

    def backward(self, g, x, result):
        return (_divided_by_x(g, x, result, i0e, lambda s: 1 / s + np.sign(array_of(s))),)


def i0(input):
    """``torch.i0`` (``special.i0``, ``special.modified_bessel_i0`` without a gradient): the
    modified Bessel function of the first kind of order 0 (I0Backward0; a tensor or an array).

    >>> from diffcompare import autograd as ag
    >>> i0(ag.tensor([0.0, 1.0]))
    tensor([1.0000, 1.2661])
    """
    return apply(I0Backward0, (input,)) if isinstance(input, Tensor) else i0_array(input)


def i0e(input):
    """``torch.special.i0e``: exp(-|x|) I0(x), finite where I0 overflows (SpecialI0EBackward0).

    >>> from diffcompare import autograd as ag
    >>> i0e(ag.tensor([0.0, 1000.0]))
    tensor([1.0000, 0.0126])
    """
    return apply(SpecialI0EBackward0, (input,)) if isinstance(input, Tensor) else i0e_array(input)


def i1(input):
    """``torch.special.i1``: the modified Bessel function of the first kind of order 1
    (SpecialI1Backward0).

    >>> from diffcompare import autograd as ag
    >>> i1(ag.tensor([-1.0, 1.0]))
    tensor([-0.5652,  0.5652])
    """
    return apply(SpecialI1Backward0, (input,)) if isinstance(input, Tensor) else i1_array(input)


def i1e(input):
    """``torch.special.i1e``: exp(-|x|) I1(x) (SpecialI1EBackward0).

    >>> from diffcompare import autograd as ag
    >>> i1e(ag.tensor([1.0, 1000.0]))
    tensor([0.2079, 0.0126])
    """
    return apply(SpecialI1EBackward0, (input,)) if isinstance(input, Tensor) else i1e_array(input)


# -- the error-function family ----------------------------------------------------------------------

def _erfcx_scalar(v):
    if v != v:
        return v
    if v > 5e7:                 # 1/(sqrt(pi) x) to the last bit; no erfc that small is needed
        return 1.0 / (math.sqrt(math.pi) * v)
    if v < -26.7:               # 2 exp(x^2) overflows
        return math.inf
    mp = _mp()
    return float(mp.erfc(v) * mp.exp(mp.mpf(v) ** 2))


def erfcx_array(x):
    """exp(x^2) erfc(x), the scaled complementary error function; inf below -26.7."""
    v, dtype = _floating(x)
    return per_element(_erfcx_scalar, v, dtype=dtype)


class SpecialErfcxBackward0(Op):
    """erfcx(x); VJP grad (2 x result - 2/sqrt(pi))."""
    saves = (0, RESULT)
    tangent = "elementwise"
    infer = staticmethod(_same_shape)
    forward = staticmethod(erfcx_array)

    def backward(self, g, x, result):
        return ((2.0 * x * result - _2_SQRT_PI) * g,)


def erfcx(input):
    """``torch.special.erfcx``: exp(x^2) erfc(x) (SpecialErfcxBackward0).

    >>> from diffcompare import autograd as ag
    >>> erfcx(ag.tensor([0.0, 30.0]))
    tensor([1.0000, 0.0188])
    """
    return apply(SpecialErfcxBackward0, (input,)) if isinstance(input, Tensor) else erfcx_array(input)


def log_ndtr_array(x):
    """log of the standard normal CDF by PyTorch's formulas: log1p(-erfc(x/sqrt 2)/2) from
    x = -1 up, log(erfcx(-x/sqrt 2)/2) - x^2/2 below (-inf where x^2 overflows)."""
    v, dtype = _floating(x)
    t = v * _SQRT1_2
    with np.errstate(all="ignore"):
        out = np.log1p(-erfc(t) / 2)
        low = v < -1
        if low.any():
            out[low] = np.log(erfcx_array(-t[low]) / 2) - t[low] * t[low]
    return out.astype(dtype)


class SpecialLogNdtrBackward0(Op):
    """log_ndtr(x); VJP grad / sqrt(2 pi) exp(-(result + x^2 / 2))."""
    saves = (0, RESULT)
    tangent = "elementwise"
    infer = staticmethod(_same_shape)
    forward = staticmethod(log_ndtr_array)

    def backward(self, g, x, result):
        return (g / _SQRT_2PI * D.exp(-(result + x * x / 2)),)


def log_ndtr(input):
    """``torch.special.log_ndtr``: the log of the standard normal CDF, accurate far in the lower
    tail, where the CDF underflows (SpecialLogNdtrBackward0).

    >>> from diffcompare import autograd as ag
    >>> log_ndtr(ag.tensor([0.0, -10.0]))
    tensor([ -0.6931, -53.2313])
    """
    return apply(SpecialLogNdtrBackward0, (input,)) if isinstance(input, Tensor) else log_ndtr_array(input)


def ndtr(input):
    """``torch.special.ndtr``: the standard normal CDF, composed as PyTorch composes it,
    (1 + erf(x / sqrt 2)) / 2 (MulBackward1 of AddBackward1 of ErfBackward0 of MulBackward1).

    >>> from diffcompare import autograd as ag
    >>> ndtr(ag.tensor([0.0, 1.0]))
    tensor([0.5000, 0.8413])
    """
    _unary_tensor("special_ndtr", input)
    if input.dtype.kind != "f":
        input = input.to(floating_dtype(input))
    return mul_scalar(add_scalar(erf_op(mul_scalar(input, _SQRT1_2)), 1), 0.5)


def _ndtri_tail_scalar(p):
    """The x < 0 with ndtr(x) = p, for 0 < p < 0.14: Newton on log ndtr from Abramowitz and
    Stegun's 26.2.23 (within 4.5e-4)."""
    mp = _mp()
    t = math.sqrt(-2.0 * math.log(p))
    x = mp.mpf(-(t - (2.515517 + 0.802853 * t + 0.010328 * t * t) / (1 + 1.432788 * t + 0.189269 * t * t
                                                                         + 0.001308 * t ** 3)))
    target = mp.log(p)
    for _ in range(20):
        cdf = mp.ncdf(x)
        step = (mp.log(cdf) - target) * cdf / mp.npdf(x)
        x -= step
        if abs(step) < abs(x) * mp.mpf(2) ** -70:
            break
    return float(x)


def ndtri_array(y):
    """The inverse of the standard normal CDF: sqrt(2) erfinv(2y - 1) where 2y - 1 is exact
    and erfinv accurate (0.135 < y < 0.865), mpmath's Newton in the tails; -inf, inf at 0, 1
    and NaN outside [0, 1]."""
    v, dtype = _floating(y)
    with np.errstate(all="ignore"):
        out = math.sqrt(2.0) * erfinv_array(2 * v - 1)
        tail_mass = np.minimum(v, 1 - v)          # exact: 1 - y is, for y >= 1/2
        tails = (tail_mass > 0) & (tail_mass <= 0.135)
        if tails.any():
            x = per_element(_ndtri_tail_scalar, tail_mass[tails], dtype=np.float64)
            out[tails] = np.where(v[tails] > 0.5, -x, x)
        out = np.where(v == 0, -np.inf, np.where(v == 1, np.inf, out))
        out = np.where((v < 0) | (v > 1), np.nan, out)
    return out.astype(dtype)


class SpecialNdtriBackward0(Op):
    """ndtri(p); VJP grad sqrt(2 pi) exp(result^2 / 2)."""
    saves = (RESULT,)
    tangent = "elementwise"
    infer = staticmethod(_same_shape)
    forward = staticmethod(ndtri_array)

    def backward(self, g, result):
        return (g * _SQRT_2PI * D.exp(result * result / 2),)


def ndtri(input):
    """``torch.special.ndtri``: the x with ndtr(x) = p (SpecialNdtriBackward0).

    >>> from diffcompare import autograd as ag
    >>> ndtri(ag.tensor([0.5, 0.975, 1e-300]))
    tensor([  0.0000,   1.9600, -37.0471])
    """
    return apply(SpecialNdtriBackward0, (input,)) if isinstance(input, Tensor) else ndtri_array(input)


def entr_array(x):
    """-x log x; 0 at 0, -inf below 0, NaN at NaN."""
    v, dtype = _floating(x)
    with np.errstate(all="ignore"):
        out = np.where(v > 0, -v * np.log(np.where(v > 0, v, 1.0)), np.where(v == 0, 0.0, -np.inf))
    return np.where(np.isnan(v), v, out).astype(dtype)


class SpecialEntrBackward0(Op):
    """entr(x) = -x log x; VJP grad * -(1 + log x)."""
    saves = (0,)
    tangent = "elementwise"
    forward = staticmethod(entr_array)

    def backward(self, g, x):
        return (g * -(1 + D.log(x)),)


def entr(input):
    """``torch.special.entr``: the elementwise entropy -x log x (SpecialEntrBackward0).

    >>> from diffcompare import autograd as ag
    >>> entr(ag.tensor([0.0, 0.5, -1.0]))
    tensor([0.0000, 0.3466,   -inf])
    """
    return apply(SpecialEntrBackward0, (input,)) if isinstance(input, Tensor) else entr_array(input)


# -- xlog1py, the incomplete gamma functions and the Hurwitz zeta -----------------------------------

xlog1py, (SpecialXlog1PyBackward0, SpecialXlog1PyBackward1, SpecialXlog1PyBackward2) = \
    x_log_family("xlog1py", "SpecialXlog1Py", np.log1p, -1.0)
xlog1py.__doc__ = """``torch.special.xlog1py``: ``input * log1p(other)``, 0 where ``input`` is 0 unless
    ``other`` is NaN; either may be a number (SpecialXlog1PyBackward0, 1 or 2).

    >>> from diffcompare import autograd as ag
    >>> xlog1py(ag.tensor([0.0, 2.0]), ag.tensor([-1.0, 1.0]))
    tensor([0.0000, 1.3863])
    """


def _binary_arrays(input, other):
    """The arrays of a function of two tensors, in the promoted floating dtype."""
    dtype = floating_dtype(input, other)
    return np.asarray(array_of(input), dtype=np.float64), np.asarray(array_of(other), dtype=np.float64), dtype


_PI_FLOAT32 = float(np.float32(math.pi))


def _incomplete_gamma(a, x):
    """(P(a, x), Q(a, x)) as mpmath numbers: the smaller tail by mpmath (the other one if its
    series does not converge; a quadrature if neither does), the other as 1 minus it."""
    mp = _mp()
    if a < 1e-17:                       # Q = a E1(x) (1 + O(a)): mpmath's upper function is slow there
        value = a * mp.e1(x)
        return 1 - value, value
    lower = (lambda: mp.gammainc(a, 0, x, regularized=True))
    upper = (lambda: mp.gammainc(a, x, mp.inf, regularized=True))
    # (below x = 1.1 the callers want Q only where it is the larger tail, and mpmath's upper
    # function is slow for small x)
    order = ((lower, False), (upper, True)) if x < a or x <= 1.1 else ((upper, True), (lower, False))
    for compute, is_upper in order:
        try:
            value = compute()
        except mp.libmp.NoConvergence:
            continue
        return (1 - value, value) if is_upper else (value, 1 - value)
    log_gamma = mp.loggamma(a)
    density = (lambda t: mp.exp((a - 1) * mp.log(t) - t - log_gamma))
    value = mp.quad(density, [x, max(x, a - 1), max(x, a - 1) + 60 * mp.sqrt(a), mp.inf])
    return 1 - value, value


def _igamc_series(a, x):
    """Q(a, x) for small x by DLMF 8.7.3, as PyTorch's (SciPy's) kernel sums it, lgamma(1 + a)
    included: for a below 1e-8 or so 1 + a rounds, which PyTorch's values keep."""
    fac, total = 1.0, 0.0
    for n in range(1, 2000):
        fac *= -x / n
        term = fac / (a + n)
        total += term
        if abs(term) <= _MACHEP * abs(total):
            break
    log_x = math.log(x)
    lgamma = (lambda v: float(_mp().loggamma(v)))     # as accurate as C's lgamma near 1 (math.lgamma is not)
    return -math.expm1(a * log_x - lgamma(1 + a)) - math.exp(a * log_x - lgamma(a)) * total


def _uniform_asymptotic(a, x):
    """Whether PyTorch's kernel takes Temme's uniform asymptotic expansion (a ~ x, a large)."""
    ratio = abs(x - a) / a
    return 20 < a < 200 and ratio < 0.3 or a > 200 and ratio < 4.5 / math.sqrt(a)


def _igamma_scalar(a, x, upper, maxlog=_MAXLOG):
    """The regularized lower (upper) incomplete gamma function P(a, x) (Q(a, x)), with PyTorch's
    values at the edges of its domain, its series where it is less accurate than mpmath (a
    below 1e-8 or so, x <= 1.1), and its float32 pi in Temme's expansion."""
    if x < 0 or a < 0:
        return math.nan
    if a == 0:
        return (0.0 if upper else 1.0) if x > 0 else math.nan
    if x == 0:
        return 1.0 if upper else 0.0
    if math.isinf(a):
        return math.nan if math.isinf(x) else (1.0 if upper else 0.0)
    if math.isinf(x):
        return 0.0 if upper else 1.0
    if a != a or x != x:
        return math.nan
    if _uniform_asymptotic(a, x):
        # PyTorch divides the expansion's series by sqrt(2 pi a) with pi in float32: its value
        # is the leading erfc term plus the rest scaled by sqrt(pi / float32(pi))
        sigma = (x - a) / a
        eta = math.copysign(math.sqrt(-2 * (math.log1p(sigma) - sigma)), x - a) if x != a else 0.0
        head = 0.5 * math.erfc((1 if upper else -1) * eta * math.sqrt(a / 2))
        exact = _incomplete_gamma(a, x)[1 if upper else 0]
        return float(head + (exact - head) * _mp().sqrt(_mp().pi / _PI_FLOAT32))
    if not upper and x > 1 and x > a:
        return 1.0 - _igamma_scalar(a, x, True, maxlog)
    if upper and (x <= 0.5 and not -0.4 / math.log(x) < a or 0.5 < x <= 1.1 and not x * 1.1 < a):
        return _igamc_series(a, x)
    direct = (x > 1.1 and x >= a) if upper else True      # PyTorch's continued fraction, or its series
    if direct and abs(a - x) > 0.4 * abs(a) and a * math.log(x) - x - math.lgamma(a) < -maxlog:
        return 0.0                      # both scale by x^a e^-x / Gamma(a), taken as 0 when it underflows
    return float(_incomplete_gamma(a, x)[1 if upper else 0])


def igamma_array(a, x, dtype=np.float64):
    """P(a, x), the regularized lower incomplete gamma function; NaN for a < 0 or x < 0."""
    maxlog = math.log(np.finfo(dtype).max)
    return per_element(lambda p, q: _igamma_scalar(p, q, False, maxlog), a, x, dtype=dtype)


def igammac_array(a, x, dtype=np.float64):
    """Q(a, x) = 1 - P(a, x), the regularized upper incomplete gamma function."""
    maxlog = math.log(np.finfo(dtype).max)
    return per_element(lambda p, q: _igamma_scalar(p, q, True, maxlog), a, x, dtype=dtype)


class IgammaBackward0(Op):
    """igamma(a, x) = P(a, x); VJP for x: grad x^(a-1) e^-x / Gamma(a); for a: not implemented
    in PyTorch (backward raises its error)."""
    broadcasts = True
    saves = (0, 1)
    tangent = "elementwise"
    sign = 1.0
    forward = staticmethod(igamma_array)

    def backward(self, g, a, x):
        if self.needs(0):
            name = type(self).__name__[:-len("Backward0")].lower()
            raise NotImplementedError(f"the derivative for '{name}: input' is not implemented.")
        return None, g * self.sign * D.exp((a - 1) * D.log(x) - x - lgamma(a))


class IgammacBackward0(IgammaBackward0):
    """igammac(a, x) = Q(a, x); VJP for x: -grad x^(a-1) e^-x / Gamma(a); for a: not implemented."""
    sign = -1.0
    forward = staticmethod(igammac_array)


def _tensor_arguments(name, input, other):
    """PyTorch's TypeError for a function of two tensors given something else."""
    for position, (label, value) in enumerate((("input", input), ("other", other)), 1):
        if not isinstance(value, Tensor):
            raise TypeError(f"{name}(): argument '{label}' (position {position}) must be Tensor, "
                            f"not {type(value).__name__}")


def _igamma(cls, name, input, other):
    _tensor_arguments(f"special_{name}", input, other)
    if input.dtype.kind != "f" and other.dtype.kind != "f":
        kernel = "igamma" if cls is IgammaBackward0 else "igammac"
        raise NotImplementedError(f"\"{kernel}_cpu\" not implemented for '{_TYPE_NAMES.get(input.dtype.kind, 'Long')}'")
    return apply(cls, (input, other), {"dtype": floating_dtype(input, other)})


_TYPE_NAMES = {"b": "Bool", "u": "Byte", "i": "Long"}


def gammainc(input, other):
    """``torch.special.gammainc`` (``torch.igamma``): the regularized lower incomplete gamma
    function P(input, other) of two tensors (IgammaBackward0; no gradient for ``input``).

    >>> from diffcompare import autograd as ag
    >>> gammainc(ag.tensor([1.0, 2.0]), ag.tensor([1.0, 1.0]))
    tensor([0.6321, 0.2642])
    """
    return _igamma(IgammaBackward0, "gammainc", input, other)


def gammaincc(input, other):
    """``torch.special.gammaincc`` (``torch.igammac``): 1 - gammainc, computed directly
    (IgammacBackward0; no gradient for ``input``).

    >>> from diffcompare import autograd as ag
    >>> gammaincc(ag.tensor([1.0, 2.0]), ag.tensor([1.0, 1.0]))
    tensor([0.3679, 0.7358])
    """
    return _igamma(IgammacBackward0, "gammaincc", input, other)


def igamma(input, other):
    """``torch.igamma``: :func:`gammainc` (the error messages name ``igamma``).

    >>> from diffcompare import autograd as ag
    >>> igamma(ag.tensor([1.0]), ag.tensor([1.0]))
    tensor([0.6321])
    """
    return _igamma(IgammaBackward0, "igamma", input, other)


def igammac(input, other):
    """``torch.igammac``: :func:`gammaincc`.

    >>> from diffcompare import autograd as ag
    >>> igammac(ag.tensor([1.0]), ag.tensor([1.0]))
    tensor([0.3679])
    """
    return _igamma(IgammacBackward0, "igammac", input, other)


class SpecialZetaBackward0(Op):
    """zeta(x, q) of two tensors; VJP for q: grad * -x zeta(x + 1, q); for x: not implemented."""
    broadcasts = True
    saves = (0, 1)
    tangent = "elementwise"
    forward = staticmethod(zeta_array)

    def backward(self, g, x, q):
        if self.needs(0):
            raise NotImplementedError("the derivative for 'zeta' is not implemented.")
        return None, g * -x * zeta(x + 1.0, q)


class SpecialZetaBackward1(Op):
    """zeta(x, q) of a number x; VJP for q: grad * -x zeta(x + 1, q)."""
    saves = (0,)
    tangent = "elementwise"

    @staticmethod
    def forward(q, scalar, dtype):
        return zeta_array(scalar, q, dtype)

    def backward(self, g, q):
        return (g * -self.scalar * zeta(self.scalar + 1.0, q),)


class SpecialZetaBackward2(Op):
    """zeta(x, q) of a number q; for x: not implemented."""
    tangent = "elementwise"

    @staticmethod
    def forward(x, scalar, dtype):
        return zeta_array(x, scalar, dtype)

    def backward(self, g):
        raise NotImplementedError("the derivative for 'zeta' is not implemented.")


def zeta(input, other):
    """``torch.special.zeta``: the Hurwitz zeta function sum over k >= 0 of (other + k)^-input;
    either may be a number (SpecialZetaBackward0, 1 or 2; no gradient for ``input``).

    >>> from diffcompare import autograd as ag
    >>> zeta(ag.tensor([2.0, 4.0]), 1.0)
    tensor([1.6449, 1.0823])
    """
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        return zeta_array(input, other, np.result_type(input, other, np.float16))
    dtype = floating_dtype(input, other)
    if not isinstance(input, Tensor):
        return apply(SpecialZetaBackward1, (other,), {"scalar": input, "dtype": dtype})
    if not isinstance(other, Tensor):
        return apply(SpecialZetaBackward2, (input,), {"scalar": other, "dtype": dtype})
    return apply(SpecialZetaBackward0, (input, other), {"dtype": dtype})


# -- functions without a derivative -----------------------------------------------------------------

def _unary_tensor(name, input):
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    return input._data


def _no_gradient(name, scalar, doc):
    """A function of one tensor that PyTorch declares not differentiable: ``scalar`` per
    element (mpmath; or an array function, given as ``("array", function)``), its result a
    tensor that does not require grad."""
    if isinstance(scalar, tuple):
        array = scalar[1]
    else:
        def array(x):
            v, dtype = _floating(x)
            return per_element(scalar, v, dtype=dtype)

    def function(input):
        return Tensor._make(array(_unary_tensor(f"special_{name}", input)))
    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc
    return function


def _bessel_j0(v):
    return float(_mp().besselj(0, v)) if math.isfinite(v) else math.nan


def _bessel_j1(v):
    return float(_mp().besselj(1, v)) if math.isfinite(v) else math.nan


def _bessel_y(order):
    def scalar(v):
        if v < 0 or v != v:
            return math.nan
        if v == 0:
            return -math.inf
        return float(_mp().bessely(order, v)) if v < math.inf else math.nan
    return scalar


def _bessel_k(order, scaled):
    def scalar(v):
        if v < 0 or v != v:
            return math.nan
        if v == 0:
            return math.inf
        if v == math.inf:
            return 0.0
        mp = _mp()
        return float(mp.besselk(order, v) * mp.exp(v)) if scaled else float(mp.besselk(order, v))
    return scalar


def _airy_ai(v):
    if not math.isfinite(v) or v < 0 and math.isinf(-2.0 * v * math.sqrt(-v) / 3.0):
        return math.nan                     # PyTorch's phase 2/3 (-x)^3/2 is inf there: sin(inf)
    return 0.0 if v > 103.892 else float(_mp().airyai(v))


def _airy_ai_array(x):
    """Ai(x), 0 where PyTorch's kernel divides by 2 x^1/4 exp(2/3 x^3/2) and that overflows in
    the result's dtype (float32: from x = 25.7 on, where Ai is subnormal)."""
    v, dtype = _floating(x)
    with np.errstate(all="ignore"):
        t = v.astype(dtype)
        divisor = dtype.type(2) * np.sqrt(np.sqrt(t)) * np.exp(dtype.type(2) * t * np.sqrt(t) / dtype.type(3))
        out = per_element(_airy_ai, v, dtype=np.float64)
        return np.where((v >= 2.09) & (v < np.inf) & np.isinf(divisor), 0.0, out).astype(dtype)


bessel_j0 = _no_gradient("bessel_j0", _bessel_j0, """``torch.special.bessel_j0``: the Bessel function of the first kind of order 0 (no
    gradient; NaN at +-inf, as PyTorch's kernel gives).

    >>> from diffcompare import autograd as ag
    >>> bessel_j0(ag.tensor([0.0, 2.0]))
    tensor([1.0000, 0.2239])
    """)
bessel_j1 = _no_gradient("bessel_j1", _bessel_j1, """``torch.special.bessel_j1``: the Bessel function of the first kind of order 1 (no gradient).

    >>> from diffcompare import autograd as ag
    >>> bessel_j1(ag.tensor([-2.0, 2.0]))
    tensor([-0.5767,  0.5767])
    """)
bessel_y0 = _no_gradient("bessel_y0", _bessel_y(0), """``torch.special.bessel_y0``: the Bessel function of the second kind of order 0 (no
    gradient; -inf at 0, NaN below).

    >>> from diffcompare import autograd as ag
    >>> bessel_y0(ag.tensor([0.0, 2.0, -1.0]))
    tensor([  -inf, 0.5104,    nan])
    """)
bessel_y1 = _no_gradient("bessel_y1", _bessel_y(1), """``torch.special.bessel_y1``: the Bessel function of the second kind of order 1 (no gradient).

    >>> from diffcompare import autograd as ag
    >>> bessel_y1(ag.tensor([0.0, 2.0]))
    tensor([   -inf, -0.1070])
    """)
modified_bessel_k0 = _no_gradient("modified_bessel_k0", _bessel_k(0, False), """``torch.special.modified_bessel_k0``: the modified Bessel function of the second kind of
    order 0 (no gradient; inf at 0, NaN below).

    >>> from diffcompare import autograd as ag
    >>> modified_bessel_k0(ag.tensor([0.0, 1.0]))
    tensor([   inf, 0.4210])
    """)
modified_bessel_k1 = _no_gradient("modified_bessel_k1", _bessel_k(1, False), """``torch.special.modified_bessel_k1``: the modified Bessel function of the second kind of
    order 1 (no gradient).

    >>> from diffcompare import autograd as ag
    >>> modified_bessel_k1(ag.tensor([1.0]))
    tensor([0.6019])
    """)
scaled_modified_bessel_k0 = _no_gradient("scaled_modified_bessel_k0", _bessel_k(0, True), """``torch.special.scaled_modified_bessel_k0``: exp(x) K0(x) (no gradient).

    >>> from diffcompare import autograd as ag
    >>> scaled_modified_bessel_k0(ag.tensor([1.0, 1000.0]))
    tensor([1.1445, 0.0396])
    """)
scaled_modified_bessel_k1 = _no_gradient("scaled_modified_bessel_k1", _bessel_k(1, True), """``torch.special.scaled_modified_bessel_k1``: exp(x) K1(x) (no gradient).

    >>> from diffcompare import autograd as ag
    >>> scaled_modified_bessel_k1(ag.tensor([1.0]))
    tensor([1.6362])
    """)
airy_ai = _no_gradient("airy_ai", ("array", _airy_ai_array), """``torch.special.airy_ai``: Airy's function Ai (no gradient; NaN at +-inf and 0 above
    103.892, as PyTorch's kernel gives).

    >>> from diffcompare import autograd as ag
    >>> airy_ai(ag.tensor([0.0, -2.0]))
    tensor([0.3550, 0.2274])
    """)


def modified_bessel_i0(input):
    """``torch.special.modified_bessel_i0``: I0 as :func:`i0`, without a gradient.

    >>> from diffcompare import autograd as ag
    >>> modified_bessel_i0(ag.tensor([1.0], requires_grad=True))
    tensor([1.2661])
    """
    return Tensor._make(i0_array(_unary_tensor("special_modified_bessel_i0", input)))


def modified_bessel_i1(input):
    """``torch.special.modified_bessel_i1``: I1 as :func:`i1`, without a gradient.

    >>> from diffcompare import autograd as ag
    >>> modified_bessel_i1(ag.tensor([1.0]))
    tensor([0.5652])
    """
    return Tensor._make(i1_array(_unary_tensor("special_modified_bessel_i1", input)))


def spherical_bessel_j0(input):
    """``torch.special.spherical_bessel_j0``: sin(x) / x, its Taylor series below |x| = 1/2,
    0 at +-inf (no gradient).

    >>> from diffcompare import autograd as ag
    >>> spherical_bessel_j0(ag.tensor([0.0, 3.0]))
    tensor([1.0000, 0.0470])
    """
    v, dtype = _floating(_unary_tensor("special_spherical_bessel_j0", input))
    with np.errstate(all="ignore"):
        x2 = v * v
        inner = 1.0 / math.factorial(13)
        for k in range(5, 0, -1):               # 1 + sum over k <= 6 of (-x^2)^k / (2k + 1)!, by Horner
            inner = (-1.0) ** k / math.factorial(2 * k + 1) + x2 * inner
        out = np.where(np.abs(v) < 0.5, 1.0 + x2 * inner, np.sin(v) / v)
    return Tensor._make(np.where(np.isinf(v), 0.0, out).astype(dtype))


# the torch-level functions of this family (`ag.<name>`, as `torch.<name>`); the rest live in `torch.special`
PUBLIC = ("i0", "igamma", "igammac")
# what the family exports to `ops`
__all__ = ["I0Backward0", "IgammaBackward0", "IgammacBackward0", "SpecialEntrBackward0", "SpecialErfcxBackward0",
           "SpecialI0EBackward0", "SpecialI1Backward0", "SpecialI1EBackward0", "SpecialLogNdtrBackward0",
           "SpecialNdtriBackward0", "SpecialXlog1PyBackward0", "SpecialXlog1PyBackward1", "SpecialXlog1PyBackward2",
           "SpecialZetaBackward0", "SpecialZetaBackward1", "SpecialZetaBackward2", "airy_ai", "bessel_j0", "bessel_j1",
           "bessel_y0", "bessel_y1", "entr", "erfcx", "gammainc", "gammaincc", "i0", "i0e", "i1", "i1e", "igamma",
           "igammac", "log_ndtr", "modified_bessel_i0", "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1",
           "ndtr", "ndtri", "per_element", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1",
           "spherical_bessel_j0", "xlog1py", "zeta"]
