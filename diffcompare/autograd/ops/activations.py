"""The activation functions of ``torch.nn.functional`` that ATen computes as one kernel, each
recorded as the node PyTorch records (``LeakyReluBackward0``, ``EluBackward0``,
``GeluBackward0``, ...). Their rules are written once for arrays and tensors (the masks of
the piecewise ones are constants), so they differentiate twice; the composite activations
(``softsign``, ``tanhshrink``, ``glu``, ``softmin``) are in ``nn.functional``.

>>> from diffcompare import autograd as ag
>>> x = ag.tensor([-2.0, 0.5], requires_grad=True)
>>> y = leaky_relu(x, 0.1)
>>> y.sum().backward()
>>> y.detach(), y.grad_fn.name(), x.grad
(tensor([-0.2000,  0.5000]), 'LeakyReluBackward0', tensor([0.1000, 1.0000]))
"""

from __future__ import annotations

import math

import numpy as np

from . import special
from .dual import D, define, register
from .elementwise import backward_op, erf, tanh, threshold_backward
from .recording import Op, apply, array_of
from .shape import cat

SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_ONE_SIXTH_F32 = float(np.float32(1.0) / np.float32(6.0))   # PyTorch's hardsigmoid rule: 1.0f / 6.0f

define("tanh", np.tanh)
define("erf", special.erf)
register(tanh=tanh, erf=erf)


def _where(mask, a, b):
    """``a`` where ``mask``, else ``b`` (arrays, tensors or numbers), in the input's kind."""
    return D.where(mask, a, b)


def _dtype(x):
    return np.asarray(x).dtype


class LeakyReluBackward0(Op):
    """x above 0, ``negative_slope`` x below."""
    saves = (0,)

    @staticmethod
    def forward(x, negative_slope=0.01):
        return np.where(x > 0, x, x * negative_slope).astype(_dtype(x))

    def backward(self, g, x):
        return (leaky_relu_backward(g, x, self.negative_slope),)


class LeakyReluBackwardBackward0(Op):
    """The backward of leaky_relu as an op of its own (PyTorch's ``leaky_relu_backward``): the
    gradient where x > 0, ``negative_slope`` times it elsewhere; linear in the gradient, of zero
    derivative in x, which is an input all the same (see ThresholdBackwardBackward0)."""
    saves = (1,)

    @staticmethod
    def forward(g, x, negative_slope):
        return np.where(x > 0, g, g * negative_slope)

    def backward(self, gg, x):
        return leaky_relu_backward(gg, x, self.negative_slope), (D.zeros_like(gg) if self.needs(1) else None)


def leaky_relu_backward(g, x, negative_slope):
    return backward_op(LeakyReluBackwardBackward0, g, x, negative_slope=negative_slope)


class EluBackward0(Op):
    """scale x above 0, scale alpha (exp(input_scale x) - 1) below (elu, selu)."""
    saves = (0,)

    @staticmethod
    def forward(x, alpha=1.0, scale=1.0, input_scale=1.0):
        negative = scale * alpha * np.expm1(np.minimum(x, 0) * input_scale)
        return np.where(x > 0, scale * x, negative).astype(_dtype(x))

    def backward(self, g, x):
        below = self.scale * self.alpha * self.input_scale * D.exp(x * self.input_scale)
        return (g * _where(array_of(x) > 0, self.scale, below),)


class CeluBackward0(EluBackward0):
    """elu with input_scale = 1/alpha; its rule, as PyTorch's, takes that scale as 1 / alpha
    rounded to float32 (``1.0 / alpha.toFloat()``)."""

    def backward(self, g, x):
        input_scale = 1.0 / float(np.float32(self.alpha))
        return (g * _where(array_of(x) > 0, 1.0, self.alpha * input_scale * D.exp(x * input_scale)),)


class GeluBackward0(Op):
    """x Φ(x) (``approximate='none'``) or its tanh approximation (``'tanh'``)."""
    saves = (0,)

    @staticmethod
    def forward(x, approximate="none"):
        if approximate == "tanh":
            return (0.5 * x * (1.0 + np.tanh(_SQRT_2_OVER_PI * (x + 0.044715 * x ** 3)))).astype(_dtype(x))
        return (0.5 * x * (1.0 + special.erf(x / math.sqrt(2.0)))).astype(_dtype(x))

    def backward(self, g, x):
        if self.approximate == "tanh":
            t = D.tanh(_SQRT_2_OVER_PI * (x + 0.044715 * x * x * x))
            slope = 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * _SQRT_2_OVER_PI * (1 + 3 * 0.044715 * x * x)
        else:
            slope = 0.5 * (1 + D.erf(x * (1 / math.sqrt(2.0)))) + x * D.exp(-0.5 * x * x) * _INV_SQRT_2PI
        return (g * slope,)


class SiluBackward0(Op):
    """x sigmoid(x)."""
    saves = (0,)

    @staticmethod
    def forward(x):
        return (x * special.sigmoid(x)).astype(_dtype(x))

    def backward(self, g, x):
        s = D.sigmoid(x)
        return (g * (s * (1 + x * (1 - s))),)


class MishBackward0(Op):
    """x tanh(softplus(x))."""
    saves = (0,)

    @staticmethod
    def forward(x):
        return (x * np.tanh(np.logaddexp(0, x))).astype(_dtype(x))

    def backward(self, g, x):
        t = D.tanh(D.log(1 + D.exp(x)))
        return (g * (t + x * D.sigmoid(x) * (1 - t * t)),)


class HardtanhBackward0(Op):
    """x clamped to [min_val, max_val]; the gradient passes strictly inside (hardtanh, relu6)."""
    saves = (0,)

    @staticmethod
    def forward(x, min_val=-1.0, max_val=1.0):
        return np.clip(x, min_val, max_val).astype(_dtype(x))

    def backward(self, g, x):
        return (hardtanh_backward(g, x, self.min_val, self.max_val),)


class HardtanhBackwardBackward0(Op):
    """The backward of hardtanh and relu6 as an op of its own (PyTorch's ``hardtanh_backward``):
    the gradient strictly between min_val and max_val, else 0 (also at NaN); linear in the
    gradient, of zero derivative in x, which is an input all the same (see
    ThresholdBackwardBackward0)."""
    saves = (1,)

    @staticmethod
    def forward(g, x, min_val, max_val):
        return np.where((x > min_val) & (x < max_val), g, 0)

    def backward(self, gg, x):
        return hardtanh_backward(gg, x, self.min_val, self.max_val), (D.zeros_like(gg) if self.needs(1) else None)


def hardtanh_backward(g, x, min_val, max_val):
    return backward_op(HardtanhBackwardBackward0, g, x, min_val=min_val, max_val=max_val)


class HardsigmoidBackward0(Op):
    """relu6(x + 3) / 6."""
    saves = (0,)

    @staticmethod
    def forward(x):
        return (np.clip(x + 3.0, 0.0, 6.0) / 6.0).astype(_dtype(x))

    def backward(self, g, x):
        a = array_of(x)
        return (g * (((a > -3.0) & (a < 3.0)) * _ONE_SIXTH_F32).astype(a.dtype),)


class HardswishBackward0(Op):
    """x relu6(x + 3) / 6."""
    saves = (0,)

    @staticmethod
    def forward(x):
        return (x * np.clip(x + 3.0, 0.0, 6.0) / 6.0).astype(_dtype(x))

    def backward(self, g, x):
        a = array_of(x)     # PyTorch 2.13: x/3 + 1/2 strictly inside (-3, 3); 0 at -3, 1 at 3
        inside = ((a > -3.0) & (a < 3.0)).astype(a.dtype)
        return (g * (inside * (x * (1 / 3.0) + 0.5) + (a >= 3.0).astype(a.dtype)),)


class _Shrink(Op):
    saves = (0,)

    def backward(self, g, x):
        a = array_of(x)
        return (g * ((a < -self.lambd) | (a > self.lambd)).astype(a.dtype),)


class HardshrinkBackward0(_Shrink):
    """x where |x| > lambd, else 0."""

    @staticmethod
    def forward(x, lambd=0.5):
        return np.where((x < -lambd) | (x > lambd), x, 0).astype(_dtype(x))


class SoftshrinkBackward0(_Shrink):
    """x - lambd above lambd, x + lambd below -lambd, else 0."""

    @staticmethod
    def forward(x, lambd=0.5):
        return np.where(x > lambd, x - lambd, np.where(x < -lambd, x + lambd, 0)).astype(_dtype(x))


class ThresholdBackward0(Op):
    """``value`` where x <= threshold, else x (NaN passes)."""
    saves = (0,)

    @staticmethod
    def forward(x, threshold=0.0, value=0.0):
        return np.where(x <= threshold, value, x).astype(_dtype(x))

    def backward(self, g, x):
        return (threshold_backward(g, x, self.threshold),)


class PreluKernelBackward0(Op):
    """x above 0, weight x below (weight broadcast along the channel axis)."""
    saves = (0, 1)
    broadcasts = True

    @staticmethod
    def forward(x, w):
        return np.where(x > 0, x, w * x).astype(_dtype(x))

    def backward(self, g, x, w):
        positive = array_of(x) > 0
        return g * _where(positive, 1.0, w), g * _where(positive, 0.0, x)


for _cls in (LeakyReluBackward0, EluBackward0, CeluBackward0, GeluBackward0, SiluBackward0, MishBackward0,
             HardtanhBackward0, HardsigmoidBackward0, HardswishBackward0, HardshrinkBackward0, SoftshrinkBackward0,
             ThresholdBackward0, PreluKernelBackward0, LeakyReluBackwardBackward0, HardtanhBackwardBackward0):
    _cls.batched_backward = _cls.backward
    _cls.tangent = "elementwise"
del _cls


def leaky_relu(x, negative_slope=0.01):
    return apply(LeakyReluBackward0, (x,), {"negative_slope": negative_slope})


def elu(x, alpha=1.0):
    return apply(EluBackward0, (x,), {"alpha": alpha, "scale": 1.0, "input_scale": 1.0})


def selu(x):
    return apply(EluBackward0, (x,), {"alpha": SELU_ALPHA, "scale": SELU_SCALE, "input_scale": 1.0})


def celu(x, alpha=1.0):
    return apply(CeluBackward0, (x,), {"alpha": alpha, "scale": 1.0, "input_scale": 1.0 / alpha})


def gelu(x, approximate="none"):
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    return apply(GeluBackward0, (x,), {"approximate": approximate})


def silu(x):
    return apply(SiluBackward0, (x,))


def mish(x):
    return apply(MishBackward0, (x,))


def hardtanh(x, min_val=-1.0, max_val=1.0):
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return apply(HardtanhBackward0, (x,), {"min_val": min_val, "max_val": max_val})


def hardsigmoid(x):
    return apply(HardsigmoidBackward0, (x,))


def hardswish(x):
    return apply(HardswishBackward0, (x,))


def hardshrink(x, lambd=0.5):
    return apply(HardshrinkBackward0, (x,), {"lambd": lambd})


def softshrink(x, lambd=0.5):
    return apply(SoftshrinkBackward0, (x,), {"lambd": lambd})


def threshold(x, threshold, value):
    return apply(ThresholdBackward0, (x,), {"threshold": threshold, "value": value})


def prelu(input, weight):
    """PReLU with one slope, or one per channel (axis 1): the weight is viewed to broadcast
    along that axis (ViewBackward0, as PyTorch's), then PreluKernelBackward0."""
    x = input
    channels = weight.numel()
    if channels != 1 and (x.ndim < 2 or x.shape[1] != channels):
        raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found parameter numbers = "
                           f"{channels} and channel size = {x.shape[1] if x.ndim >= 2 else 1}.")
    shape = (channels,) + (1,) * (x.ndim - 2) if x.ndim >= 2 else (channels,)
    return apply(PreluKernelBackward0, (x, weight.view(shape)))


PUBLIC = ("celu", "hardshrink", "prelu", "selu", "threshold")

__all__ = [*PUBLIC, "CeluBackward0", "EluBackward0", "GeluBackward0", "HardshrinkBackward0", "HardsigmoidBackward0",
           "HardswishBackward0", "HardtanhBackward0", "HardtanhBackwardBackward0", "LeakyReluBackward0",
           "LeakyReluBackwardBackward0", "MishBackward0", "PreluKernelBackward0",
           "SELU_ALPHA", "SELU_SCALE", "SiluBackward0", "SoftshrinkBackward0", "ThresholdBackward0", "elu", "gelu",
           "hardsigmoid", "hardswish", "hardtanh", "leaky_relu", "mish", "silu", "softshrink"]


class GluBackward0(Op):
    """a sigmoid(b), a and b the two halves of the input along ``dim``."""
    saves = (0,)

    @staticmethod
    def forward(x, dim=-1):
        a, b = np.split(x, 2, axis=dim)
        return (a * special.sigmoid(b)).astype(_dtype(x))

    def backward(self, g, x):
        half = array_of(x).shape[self.dim] // 2
        index = [slice(None)] * array_of(x).ndim
        index[self.dim] = slice(0, half)
        a = x[tuple(index)]
        index[self.dim] = slice(half, None)
        s = D.sigmoid(x[tuple(index)])
        parts = (g * s, g * a * s * (1 - s))
        if isinstance(parts[0], np.ndarray) and isinstance(parts[1], np.ndarray):
            return (np.concatenate(parts, axis=self.dim),)
        return (cat(parts, self.dim),)


def glu(input, dim=-1):
    x = input
    if x.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    if x.shape[dim] % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {dim % x.ndim} is size {x.shape[dim]}")
    return apply(GluBackward0, (x,), {"dim": dim})


__all__ += ["GluBackward0", "glu"]
