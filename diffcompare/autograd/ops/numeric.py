"""Elementwise functions outside the function table that ported code calls as Tensor methods
and torch functions: ``trunc``/``fix``, ``frac``, ``exp2``, ``sgn``, ``deg2rad``,
``rad2deg``, ``erfc``, ``sinc``, ``logaddexp2``, ``fmax``, ``fmin``, ``copysign``,
``float_power``, each recording PyTorch's node with its derivative beside the forward; and
a few reductions and rearrangements with their own nodes: ``nansum``, ``kthvalue``,
``vdot``, ``rot90``.

>>> from diffcompare import autograd as ag
>>> x = ag.tensor([-1.5, 2.25], requires_grad=True)
>>> x.frac(), ag.exp2(ag.tensor(3.0))
(tensor([-0.5000,  0.2500], grad_fn=<FracBackward0>), tensor(8.))
>>> ag.fmax(ag.tensor([1.0, float("nan")]), ag.tensor([float("nan"), 2.0]))
tensor([1., 2.])
"""

from __future__ import annotations

import math

import numpy as np

from ..dtypes import default_dtype
from ..return_types import return_type
from ..tensor import Tensor
from .dual import D, register
from .elementwise import real_sign
from .factorizations import MultiOutputOp, output_grads, record_outputs
from .indexing import IndexBackward0
from .recording import RESULT, Op, apply, array_of, check_dim
from .special import erfc as erfc_array

_LN2 = math.log(2.0)
_2_SQRT_PI = 2.0 / math.sqrt(math.pi)


def _unary(name, forward, rule, saves=(0,), doc=""):
    """An elementwise op of one input: ``rule(g, *saved)`` is its VJP."""
    cls = type(name, (Op,), {"__doc__": doc, "saves": saves, "forward": staticmethod(forward),
                             "backward": lambda self, g, *saved: (rule(g, *saved),), "tangent": "elementwise"})
    cls.batched_backward = cls.backward
    return cls


TruncBackward0 = _unary("TruncBackward0", np.trunc, lambda g, x: g * 0.0, doc="Rounded toward zero: zero gradient.")
FracBackward0 = _unary("FracBackward0", lambda x: x - np.trunc(x), lambda g: g, saves=(),
                       doc="The fractional part, ``x - trunc(x)``: the gradient passes.")
Exp2Backward0 = _unary("Exp2Backward0", np.exp2, lambda g, y: g * y * _LN2, saves=(RESULT,), doc="2^x.")
Deg2RadBackward0 = _unary("Deg2RadBackward0", lambda x: x * (math.pi / 180), lambda g: g * (math.pi / 180), saves=())
Rad2DegBackward0 = _unary("Rad2DegBackward0", lambda x: x * (180 / math.pi), lambda g: g * (180 / math.pi), saves=())
ErfcBackward0 = _unary("ErfcBackward0", erfc_array, lambda g, x: g * (-_2_SQRT_PI * D.exp(-(x * x))),
                       doc="1 - erf(x), to full relative precision in the upper tail.")


def _sgn(x):
    """sign(x) for real x, 0 at NaN as PyTorch's; x/|x| for complex x (0 at 0)."""
    if x.dtype.kind != "c":
        return real_sign(x)
    return np.where(x == 0, 0, x / np.where(x == 0, 1, np.abs(x)))


SgnBackward0 = _unary("SgnBackward0", _sgn, lambda g, x: g * 0.0, doc="The sign (x/|x| for complex): zero gradient "
                      "for real inputs.")


def _sinc(x):
    if x.dtype.kind in "biu":               # integers promote to the default dtype
        x = x.astype(default_dtype())
    px = np.pi * x
    return np.where(x == 0, 1.0, np.sin(px) / np.where(x == 0, 1.0, px)).astype(x.dtype)


def _sinc_grad(g, x):
    """PyTorch's sinc_backward: g (pi x cos(pi x) - sin(pi x)) / (pi x^2), 0 where pi x^2 is 0
    (at 0, and where x^2 underflows)."""
    px = x * math.pi
    pxx = x * x * math.pi
    at_zero = array_of(pxx) == 0
    slope = (px * D.cos(px) - D.sin(px)) / D.where(at_zero, 1.0, pxx)
    return D.where(at_zero, 0.0, g * slope)


SincBackward0 = _unary("SincBackward0", _sinc, _sinc_grad, doc="sin(pi x) / (pi x), 1 at 0.")


def trunc(input):
    """``input`` rounded toward zero (TruncBackward0)."""
    return apply(TruncBackward0, (input,))


fix = trunc


def frac(input):
    """``input - trunc(input)`` (FracBackward0)."""
    return apply(FracBackward0, (input,))


def exp2(input):
    """2 to the power ``input`` (Exp2Backward0)."""
    return apply(Exp2Backward0, (input,))


def deg2rad(input):
    return apply(Deg2RadBackward0, (input,))


def rad2deg(input):
    return apply(Rad2DegBackward0, (input,))


def erfc(input):
    """The complementary error function (ErfcBackward0)."""
    return apply(ErfcBackward0, (input,))


def sgn(input):
    """The sign, ``x / |x|`` for complex numbers (SgnBackward0)."""
    return apply(SgnBackward0, (input,))


register(sgn=sgn)      # D.sgn on a tensor: abs's gradient under create_graph


def sinc(input):
    """The normalised sinc, ``sin(pi x) / (pi x)`` (SincBackward0)."""
    return apply(SincBackward0, (input,))


def signbit(input):
    """Whether the sign bit is set (-0.0 included), as a bool tensor."""
    return Tensor._make(np.signbit(array_of(input)))


# -- two inputs ---------------------------------------------------------------------------------

class Logaddexp2Backward0(Op):
    """log2(2^a + 2^b)."""
    saves = (0, 1)
    broadcasts = True
    tangent = "elementwise"
    forward = staticmethod(np.logaddexp2)

    def backward(self, g, a, b):
        ga = g / (1 + D.pow(2.0, b - a)) if self.needs(0) else None
        gb = g / (1 + D.pow(2.0, a - b)) if self.needs(1) else None
        return ga, gb


class FmaxBackward0(Op):
    """The larger of a and b, a NaN losing to a number; the gradient goes to the one picked."""
    saves = (0, 1)
    broadcasts = True
    tangent = "elementwise"
    forward = staticmethod(np.fmax)
    first_wins = staticmethod(lambda a, b: (a >= b) | np.isnan(b))

    def backward(self, g, a, b):
        first = self.first_wins(np.asarray(array_of(a)), np.asarray(array_of(b)))
        return (D.where(first, g, 0.0) if self.needs(0) else None), (D.where(first, 0.0, g) if self.needs(1) else None)


class FminBackward0(FmaxBackward0):
    """The smaller of a and b, a NaN losing to a number."""
    forward = staticmethod(np.fmin)
    first_wins = staticmethod(lambda a, b: (a <= b) | np.isnan(b))


class CopysignBackward0(Op):
    """|a| with b's sign: d a = g * sign(a) sign(result) (0 where a is 0); none for b."""
    saves = (0, RESULT)
    broadcasts = True
    tangent = "elementwise"
    forward = staticmethod(np.copysign)

    def backward(self, g, a, out):
        ratio = D.where(a == 0, 0.0, out / D.where(a == 0, 1.0, a))
        return (g * ratio if self.needs(0) else None), (g * 0.0 if self.needs(1) else None)


class CopysignBackward1(CopysignBackward0):
    """``copysign`` with a number for the sign."""

    def backward(self, g, a, out):
        return (CopysignBackward0.backward(self, g, a, out)[0],)


def logaddexp2(input, other):
    return apply(Logaddexp2Backward0, (input, other))


def fmax(input, other):
    """The elementwise maximum ignoring NaN (FmaxBackward0)."""
    return apply(FmaxBackward0, (input, other))


def fmin(input, other):
    """The elementwise minimum ignoring NaN (FminBackward0)."""
    return apply(FminBackward0, (input, other))


def copysign(input, other):
    """``|input|`` with the sign of ``other`` (CopysignBackward0, CopysignBackward1 for a number)."""
    if isinstance(other, Tensor):
        return apply(CopysignBackward0, (input, other))
    return apply(CopysignBackward1, (input, float(other)))


def float_power(input, exponent):
    """``input ** exponent`` in double precision (PowBackward0/1 on the float64 values)."""
    def as_double(v):
        return v.to(np.complex128 if v.dtype.kind == "c" else np.float64) if isinstance(v, Tensor) else v
    return as_double(input) ** as_double(exponent) if isinstance(input, Tensor) else \
        as_double(exponent).__rpow__(input)


def floor_divide(input, other):
    """``input // other`` rounded down (DivBackward2: no gradient)."""
    return input // other if isinstance(input, Tensor) else other.__rfloordiv__(input)


# -- reductions and rearrangements ----------------------------------------------------------------

class NansumBackward0(Op):
    """The sum with NaNs as zeros: the gradient is zero where the input is NaN."""
    saves = (0,)
    tangent = "reduction"

    @staticmethod
    def forward(x, axis, keepdims):
        return np.nansum(x, axis=axis, keepdims=keepdims)

    def backward(self, g, x):
        if self.axis is not None and not self.keepdims:
            for d in sorted(self.axis):
                g = D.unsqueeze(g, d)
        return (D.where(np.isnan(np.asarray(array_of(x))), 0.0, D.expand(g, tuple(x.shape))),)


def nansum(input, dim=None, keepdim=False, *, dtype=None):
    """The sum of the elements that are not NaN (NansumBackward0)."""
    if dtype is not None:
        input = input.to(dtype)
    axis = None if dim is None else tuple(check_dim(d, input.ndim) for d in ((dim,) if isinstance(dim, int)
                                                                           else dim))
    return apply(NansumBackward0, (input,), {"axis": axis, "keepdims": bool(keepdim)})


def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    """The mean of the elements that are not NaN: ``nansum / count`` (DivBackward0, as PyTorch's composition)."""
    count = (~np.isnan(np.asarray(array_of(input)))).sum(
        axis=None if dim is None else (dim if isinstance(dim, int) else tuple(dim)), keepdims=keepdim)
    return nansum(input, dim, keepdim, dtype=dtype) / Tensor._make(np.asarray(count, dtype=input.dtype))


class KthvalueBackward0(IndexBackward0):
    """The k-th smallest value along a dimension: the gradient goes back to where it was."""


KthvalueResult = return_type("kthvalue", ["values", "indices"])


def kthvalue(input, k, dim=-1, keepdim=False):
    """The ``k``-th smallest value along ``dim`` and its index (KthvalueBackward0)."""
    d = check_dim(dim, input.ndim)
    a = np.asarray(array_of(input))
    size = a.shape[d] if a.ndim else 1
    if not 1 <= k <= size:
        raise IndexError(f"kthvalue(): selected number k out of range for dimension {d}")
    if a.ndim == 0:
        values = apply(KthvalueBackward0, (input,), {"index": (Ellipsis,), "in_shape": input.shape})
        return KthvalueResult(values, Tensor._make(np.zeros((), np.int64)))
    index = np.take(np.argsort(a, axis=d, kind="stable"), k - 1, axis=d)
    if keepdim:
        index = np.expand_dims(index, d)
        grid = list(np.indices(index.shape, sparse=True))
        grid[d] = index
    else:
        grid = list(np.indices(index.shape, sparse=True))
        grid.insert(d, index)
    values = apply(KthvalueBackward0, (input,), {"index": tuple(grid), "in_shape": input.shape})
    return KthvalueResult(values, Tensor._make(np.asarray(index, dtype=np.int64)))


class AminmaxBackward0(MultiOutputOp):
    """The smallest and largest elements (along ``dim``): each gradient shared evenly among
    the elements equal to its result."""
    keeps = (0, "out0", "out1")

    @staticmethod
    def forward(x):
        return x

    def backward(self, grads, x, low, high):
        total = None
        xa = np.asarray(array_of(x))
        for g, value in zip(output_grads(grads, 2), (low, high)):
            if g is None:
                continue
            va = np.asarray(array_of(value))
            if self.axis is not None and not self.keepdims:
                g, va = D.unsqueeze(g, self.axis), np.expand_dims(va, self.axis)
            hit = (xa == va).astype(xa.dtype)
            count = hit.sum(axis=self.axis, keepdims=True) if self.axis is not None else hit.sum()
            part = g * (hit / count)
            total = part if total is None else total + part
        return (total,)


AminmaxResult = return_type("aminmax", ["min", "max"])


def aminmax(input, *, dim=None, keepdim=False):
    """``(min, max)`` of ``input`` (along ``dim``), one AminmaxBackward0 node for both."""
    a = np.asarray(array_of(input))
    axis = None if dim is None else check_dim(dim, input.ndim)
    if a.size == 0:
        raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation has no "
                           "identity.")
    low = np.amin(a, axis=axis, keepdims=keepdim and axis is not None)
    high = np.amax(a, axis=axis, keepdims=keepdim and axis is not None)
    outs = record_outputs(AminmaxBackward0, (input,), {"axis": axis, "keepdims": bool(keepdim)},
                          [np.asarray(low), np.asarray(high)], [0, 1])
    return AminmaxResult(*outs)


class VarMeanBackward0(MultiOutputOp):
    """``(var, mean)`` in one node: d var = 2 (x - mean) / (N - correction), d mean = 1 / N."""
    keeps = (0, "out0", "out1")
    spread = "var"

    @staticmethod
    def forward(x):
        return x

    def backward(self, grads, x, first, mean):
        g_first, g_mean = output_grads(grads, 2)
        n = int(np.prod(x.shape)) // max(1, int(np.prod(np.shape(mean))))
        total = None
        if g_first is not None:
            centred = x - self._back(mean)
            if self.spread == "var":
                part = self._back(g_first) * centred * (2.0 / (n - self.correction))
            else:
                std = self._back(first)
                part = D.where(std == 0, 0.0, self._back(g_first) * centred / ((n - self.correction) * std))
            total = part
        if g_mean is not None:
            part = D.expand(self._back(g_mean), tuple(x.shape)) / n
            total = part if total is None else total + part
        return (total,)

    def _back(self, v):
        """A reduced value with its reduced dimensions back (size 1)."""
        if self.axis is None:
            return v
        if not self.keepdims:
            for d in sorted(self.axis):
                v = D.unsqueeze(v, d)
        return v


class StdMeanBackward0(VarMeanBackward0):
    """``(std, mean)`` in one node: d std = (x - mean) / ((N - correction) std), d mean = 1 / N."""
    spread = "std"


def _moments(cls, input, dim, unbiased, keepdim, correction):
    if isinstance(dim, bool):            # var_mean(x, unbiased): PyTorch's older positional form
        dim, unbiased = None, dim
    correction = correction if correction is not None else (1 if unbiased in (None, True) else 0)
    a = np.asarray(array_of(input))
    axis = None if dim is None else tuple(check_dim(d, input.ndim) for d in ((dim,) if isinstance(dim, int)
                                                                           else dim))
    keep = bool(keepdim) and axis is not None
    mean = np.mean(a, axis=axis, keepdims=keep)
    first = np.var(a, axis=axis, keepdims=keep, ddof=correction)
    if cls is StdMeanBackward0:
        first = np.sqrt(first)
    outs = record_outputs(cls, (input,), {"axis": axis, "keepdims": keep, "correction": correction},
                          [np.asarray(first), np.asarray(mean)], [0, 1])
    return tuple(outs)


def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """``(var, mean)`` of ``input`` (along ``dim``), one VarMeanBackward0 node for both."""
    return _moments(VarMeanBackward0, input, dim, unbiased, keepdim, correction)


def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """``(std, mean)`` of ``input`` (along ``dim``), one StdMeanBackward0 node for both."""
    return _moments(StdMeanBackward0, input, dim, unbiased, keepdim, correction)


class LogcumsumexpBackward0(Op):
    """log(cumsum(exp(x))) along a dimension: d x_i = sum over j >= i of g_j exp(x_i - out_j),
    summed in reverse with the first result as the scale (no overflow for ordinary values)."""
    saves = (0, RESULT)

    @staticmethod
    def forward(x, dim):
        return np.logaddexp.accumulate(x, axis=dim) if x.shape[dim] else np.array(x)

    def backward(self, g, x, out):
        d = self.dim
        first = out[(slice(None),) * d + (slice(0, 1),)]
        weighted = g * D.exp(first - out)
        tail = D.flip(D.cumsum(D.flip(weighted, [d]), d), [d])
        return (tail * D.exp(x - first),)


def logcumsumexp(input, dim):
    """The running log-sum-exp along ``dim`` (LogcumsumexpBackward0).

    >>> from diffcompare import autograd as ag
    >>> ag.logcumsumexp(ag.tensor([0.0, 0.0]), 0)
    tensor([0.0000, 0.6931])
    """
    if input.ndim == 0:
        return apply(LogcumsumexpBackward0, (input.reshape(1),), {"dim": 0}).reshape(())
    return apply(LogcumsumexpBackward0, (input,), {"dim": check_dim(dim, input.ndim)})


class VdotBackward0(Op):
    """conj(a) . b of two vectors."""
    saves = (0, 1)
    tangent = "elementwise"
    holomorphic = False

    @staticmethod
    def forward(a, b):
        return np.asarray(np.vdot(a, b))

    def backward(self, g, a, b):
        ga = D.conj(g) * b if self.needs(0) else None
        gb = g * a if self.needs(1) else None
        return ga, gb


def vdot(input, other):
    """The dot product with ``input`` conjugated (VdotBackward0)."""
    if input.ndim != 1 or other.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.ndim}D and {other.ndim}D tensors")
    return apply(VdotBackward0, (input, other))


class Rot90Backward0(Op):
    """A quarter turn ``k`` times in the plane of ``dims``: the gradient turns back."""
    tangent = "linear"

    @staticmethod
    def forward(x, k, dims):
        return np.ascontiguousarray(np.rot90(x, k, dims))

    def backward(self, g):
        if isinstance(g, Tensor):
            return (rot90(g, -self.k, self.dims),)
        return (np.rot90(g, -self.k, self.dims),)


def rot90(input, k=1, dims=(0, 1)):
    """``input`` turned by 90 degrees ``k`` times from the first toward the second of ``dims``
    (Rot90Backward0)."""
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.ndim}")
    d0, d1 = (check_dim(d, input.ndim) for d in dims)
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {d0} and dim1 = {d1}")
    return apply(Rot90Backward0, (input,), {"k": int(k) % 4, "dims": (d0, d1)})


# the torch-level functions of this family (`ag.<name>`, as `torch.<name>`)
PUBLIC = ("aminmax", "copysign", "deg2rad", "erfc", "exp2", "fix", "float_power", "floor_divide", "fmax", "fmin", "frac",
          "kthvalue", "logaddexp2", "logcumsumexp", "nanmean", "nansum", "rad2deg", "rot90", "sgn", "signbit", "sinc", "std_mean",
          "trunc", "var_mean", "vdot")
# what the family exports to `ops`
__all__ = ["AminmaxBackward0", "CopysignBackward0", "CopysignBackward1", "Deg2RadBackward0", "ErfcBackward0", "Exp2Backward0",
           "FmaxBackward0", "FminBackward0", "FracBackward0", "KthvalueBackward0", "Logaddexp2Backward0", "LogcumsumexpBackward0",
           "NansumBackward0", "Rad2DegBackward0", "Rot90Backward0", "SgnBackward0", "SincBackward0",
           "StdMeanBackward0", "TruncBackward0", "VarMeanBackward0", "VdotBackward0", *PUBLIC]
