"""Pooling of every spatial rank, recorded as PyTorch records it: max pooling
(``MaxPool2DWithIndicesBackward0``, ``MaxPool3DWithIndicesBackward0``; 1-d through 2-d between an
unsqueeze and a squeeze, as PyTorch), adaptive and fractional max pooling, average pooling (plain
and adaptive: separable maps of :mod:`.separable`), max unpooling and power-average (LP) pooling.

One kernel does every max pooling: each output place has, along each axis, a few candidate
positions (its window: strided and dilated, adaptive, or fractional); the maximum over them is
taken as PyTorch's loops take it (a larger value or a NaN replaces the one kept, so ties go to the
first position and the last NaN wins; a window's first position inside the input starts it).

>>> from diffcompare import autograd as ag
>>> import diffcompare.autograd.nn.functional as F
>>> x = ag.arange(8.0).reshape(1, 1, 8).requires_grad_()
>>> y = F.max_pool1d(x, 2)
>>> y, y.grad_fn.name()
(tensor([[[1., 3., 5., 7.]]], grad_fn=<SqueezeBackward1>), 'SqueezeBackward1')
>>> F.avg_pool1d(ag.tensor([[[1.0, 2, 3, 4, 5, 6, 7]]]), 3, stride=2)
tensor([[[2., 4., 6.]]])
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from ..tensor import Tensor
from .indexing import index_add_zeros
from .recording import Op, apply
from .reductions import mean
from .separable import Taps, separable, separable_ops
from .shape import squeeze, unsqueeze

def pool_param(value, d, name, function):
    """A pooling argument (an int or a sequence of ``d`` ints) as a tuple of ``d`` ints."""
    if isinstance(value, (tuple, list)) or (isinstance(value, Tensor) and value.ndim == 1):
        value = tuple(int(v) for v in value)
        if len(value) == 1:
            return value * d
        if len(value) != d:
            words = {1: "one int", 2: "two ints", 3: "three ints"}[d]
            raise RuntimeError(f"{function}: {name} must either be a single int, or a tuple of {words}")
        return value
    return (int(value),) * d


def pool_size(size, k, s, p, d, ceil_mode):
    """PyTorch's ``pooling_output_shape``: windows of span ``d (k - 1) + 1`` every ``s`` over the
    input padded by ``p``; with ``ceil_mode`` a last partial window if it starts inside."""
    span = size + 2 * p - d * (k - 1) - 1
    out = (-(-span // s) if ceil_mode else span // s) + 1
    if ceil_mode and (out - 1) * s >= size + p:     # the last window must start inside the input
        out -= 1
    return out


# -- the max kernel -----------------------------------------------------------------------------

def window_max(data, d, positions, fallback=None):
    """The flat spatial index (into the trailing ``d`` axes of ``data``) of each window's maximum.

    ``positions[a]`` (P_a, O_a, K_a) holds, along axis ``a``, the candidate positions of every
    output place (P_a 1, or one row per plane of the leading axes flattened); a position outside
    the input is skipped. A window with no position inside (dilated, in the padding) gets, as in
    PyTorch, the index made of ``fallback[a]`` (O_a,) — its first place at or past 0 — and is
    marked in the second result. Returns (planes, *O) int64 and that (planes, *O) bool mask."""
    spatial = data.shape[data.ndim - d:]
    flat = data.reshape(-1, math.prod(spatial))
    planes = flat.shape[0]
    out = tuple(p.shape[1] for p in positions)
    strides = [math.prod(spatial[a + 1:]) for a in range(d)]
    plane = np.arange(planes).reshape((planes,) + (1,) * d)
    floating = data.dtype.kind in "fc"
    best = np.zeros((planes,) + out, dtype=data.dtype)
    index = np.full((planes,) + out, -1, dtype=np.int64)
    for ks in itertools.product(*(range(p.shape[2]) for p in positions)):
        lin, ok = 0, True
        for a, k in enumerate(ks):
            shape = [positions[a].shape[0]] + [1] * d
            shape[1 + a] = out[a]
            pos = positions[a][:, :, k].reshape(shape)
            inside = (pos >= 0) & (pos < spatial[a])
            lin = lin + np.clip(pos, 0, spatial[a] - 1) * strides[a]
            ok = ok & inside
        values = flat[plane, lin]
        take = ok & ((index < 0) | (values > best))
        if floating:
            take |= ok & np.isnan(values)
        best = np.where(take, values, best)
        index = np.where(take, lin, index)
    empty = index < 0
    if empty.any():
        lin = 0
        for a in range(d):
            shape = [1] * (d + 1)
            shape[1 + a] = out[a]
            lin = lin + fallback[a].reshape(shape) * strides[a]
        index = np.where(empty, lin, index)
    return index, empty


class _MaxPool(Op):
    """The input's elements at the windows' maxima (``index``); the gradient goes back to them.
    A window with no place inside the input (``empty``) is -inf; its gradient goes where its
    index points if that is inside the input, as PyTorch's does, else nowhere (``dropped``)."""

    @staticmethod
    def forward(x, index, in_shape, empty=None, dropped=None):
        out = x[index]
        return out if empty is None else np.where(empty, -np.inf, out).astype(out.dtype)

    def backward(self, g):
        if self.dropped is not None:
            g = g * (~self.dropped).astype(g.dtype if isinstance(g, np.ndarray) else np.float64)
        return (index_add_zeros(g, self.index, self.in_shape),)


def _max_op(name):
    cls = type(name, (_MaxPool,), {"__doc__": _MaxPool.__doc__})
    cls.tangent = "linear"
    return cls


MaxPool2DWithIndicesBackward0 = _max_op("MaxPool2DWithIndicesBackward0")
MaxPool3DWithIndicesBackward0 = _max_op("MaxPool3DWithIndicesBackward0")
AdaptiveMaxPool2DBackward0 = _max_op("AdaptiveMaxPool2DBackward0")
AdaptiveMaxPool3DBackward0 = _max_op("AdaptiveMaxPool3DBackward0")
FractionalMaxPool2DBackward0 = _max_op("FractionalMaxPool2DBackward0")
FractionalMaxPool3DBackward0 = _max_op("FractionalMaxPool3DBackward0")


def _record_max(cls, input, d, positions, return_indices, fallback=None):
    data = input._data
    flat_index, empty = window_max(data, d, positions, fallback)
    spatial = data.shape[data.ndim - d:]
    volume = math.prod(spatial)
    lead = data.shape[:data.ndim - d]
    out_shape = lead + flat_index.shape[1:]
    params = {"in_shape": data.shape, "empty": None, "dropped": None}
    inside = flat_index
    plane = np.arange(flat_index.shape[0]).reshape((-1,) + (1,) * d)
    where = plane * volume + flat_index
    if empty.any():     # PyTorch's gradient goes to the index counted from the plane's start, past it too
        dropped = where >= data.size
        where = np.where(dropped, 0, where)
        params["empty"], params["dropped"] = empty.reshape(out_shape), dropped.reshape(out_shape)
    index = np.unravel_index(where, data.shape)
    params["index"] = tuple(np.broadcast_to(i, flat_index.shape).reshape(out_shape) for i in index)
    out = apply(cls, (input,), params)
    if return_indices:
        return out, Tensor._make(flat_index.reshape(out_shape))
    return out


def _through_2d(function, input, *args):
    """A 1-d pooling as PyTorch runs it: the 2-d one on ``input.unsqueeze(-2)``, then squeezed."""
    result = function(unsqueeze(input, -2), *args)
    if isinstance(result, tuple):
        return squeeze(result[0], -2), Tensor._make(result[1]._data.squeeze(-2))
    return squeeze(result, -2)


def _check_rank(input, d, name):
    if d == 1:
        if input.ndim not in (2, 3):
            raise RuntimeError(f"{name}: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for "
                               f"input, but got:{list(input.shape)}")
    elif input.ndim not in (d + 1, d + 2) or 0 in input.shape[1:]:
        raise RuntimeError(f"non-empty {d + 1}D or {d + 2}D (batch mode) tensor expected for input")


def _too_small(input, d, out):
    lead = input.shape[-d - 1]
    raise RuntimeError(f"Given input size: ({'x'.join(map(str, (lead,) + tuple(input.shape[-d:])))}). Calculated "
                       f"output size: ({'x'.join(map(str, (lead,) + tuple(out)))}). Output size is too small")


def max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, d):
    """Max pooling over the trailing ``d`` axes (``max_pool1d/2d/3d``)."""
    name = f"max_pool{d}d"
    _check_rank(input, d, name)
    kernel = pool_param(kernel_size, d, "kernel_size", name)
    stride = kernel if stride is None or (isinstance(stride, (tuple, list)) and not len(stride)) \
        else pool_param(stride, d, "stride", name)
    pad, dilation = pool_param(padding, d, "padding", name), pool_param(dilation, d, "dilation", name)
    if min(kernel) <= 0:
        raise RuntimeError(f"{name}: kernel_size must be greater than zero, but got {list(kernel)}")
    if min(stride) <= 0:
        raise RuntimeError("stride should be greater than zero")
    if min(dilation) <= 0:
        raise RuntimeError("dilation should be greater than zero")
    for p, k in zip(pad, kernel):
        if p > k // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={p}, "
                               f"kernel_size={k} and dilation={dilation[0]}")
    if d == 1:
        return _through_2d(lambda x: max_pool(x, (1,) + kernel, (1,) + stride, (0,) + pad, (1,) + dilation,
                                              ceil_mode, return_indices, 2), input)
    spatial = input.shape[-d:]
    out = [pool_size(n, k, s, p, dl, ceil_mode) for n, k, s, p, dl in zip(spatial, kernel, stride, pad, dilation)]
    if min(out) <= 0:
        _too_small(input, d, out)
    starts = [np.arange(o) * s - p for o, s, p in zip(out, stride, pad)]
    positions = [(start[:, None] + np.arange(k)[None, :] * dl)[None] for start, k, dl in zip(starts, kernel, dilation)]
    # PyTorch's start of a window that begins in the padding: moved right by dilations until at or past 0
    fallback = [np.where(start < 0, start + (-start + dl - 1) // dl * dl, start) for start, dl in zip(starts, dilation)]
    cls = MaxPool2DWithIndicesBackward0 if d == 2 else MaxPool3DWithIndicesBackward0
    return _record_max(cls, input, d, positions, return_indices, fallback)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """1-d max pooling as ``torch.nn.functional.max_pool1d``; ``input`` (N, C, L) or (C, L)."""
    return max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, 1)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """2-d max pooling as ``torch.nn.functional.max_pool2d`` (a NaN is the maximum, as in PyTorch;
    ties go to the first position).

    >>> from diffcompare import autograd as ag
    >>> ag.max_pool2d(ag.arange(16.0).reshape(1, 4, 4), 2)
    tensor([[[ 5.,  7.],
             [13., 15.]]])
    """
    return max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, 2)


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """3-d max pooling as ``torch.nn.functional.max_pool3d``; ``input`` (N, C, D, H, W) or (C, D, H, W)."""
    return max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, 3)


# -- adaptive pooling ---------------------------------------------------------------------------

def adaptive_output_size(input, output_size, d):
    size = output_size if isinstance(output_size, (tuple, list)) else (output_size,) * d
    if len(size) != d:
        raise ValueError(f"Input dimension should be at least {d + 1}")
    return tuple(n if o is None else int(o) for o, n in zip(size, input.shape[-d:]))


def adaptive_windows(size, out):
    """PyTorch's adaptive windows of one axis: start ``floor(i n / o)``, end ``ceil((i + 1) n / o)``."""
    i = np.arange(out)
    return (i * size) // out, -(-((i + 1) * size) // out)


def _adaptive_positions(size, out):
    start, end = adaptive_windows(size, out)
    k = int((end - start).max()) if out else 1
    pos = start[:, None] + np.arange(k)[None, :]
    return np.where(pos < end[:, None], pos, -1)[None]      # past the window's end: skipped


def _adaptive_check(input, d, name):
    if input.ndim not in (d + 1, d + 2):
        raise RuntimeError(f"{name}(): Expected {d + 1}D or {d + 2}D tensor, but got {list(input.shape)}")
    for i in range(1, input.ndim):
        if input.shape[i] == 0:
            raise RuntimeError(f"{name}(): Expected input to have non-zero size for non-batch dimensions, but "
                               f"input has sizes {list(input.shape)} with dimension {i} being empty")


def adaptive_max_pool(input, output_size, return_indices, d):
    name = f"adaptive_max_pool{d}d"
    if d == 1:
        if input.ndim not in (2, 3):
            raise RuntimeError(f"{name}(): Expected 2D or 3D tensor, but got {list(input.shape)}")
        size = adaptive_output_size(input, output_size, 1)
        return _through_2d(lambda x: adaptive_max_pool(x, (1,) + size, return_indices, 2), input)
    _adaptive_check(input, d, name)
    size = adaptive_output_size(input, output_size, d)
    positions = [_adaptive_positions(n, o) for n, o in zip(input.shape[-d:], size)]
    cls = AdaptiveMaxPool2DBackward0 if d == 2 else AdaptiveMaxPool3DBackward0
    return _record_max(cls, input, d, positions, return_indices)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """Max pooling to ``output_size`` places, windows as ``adaptive_avg_pool1d``'s."""
    return adaptive_max_pool(input, output_size, return_indices, 1)


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """2-d adaptive max pooling (AdaptiveMaxPool2DBackward0); ``None`` keeps that axis."""
    return adaptive_max_pool(input, output_size, return_indices, 2)


def adaptive_max_pool3d(input, output_size, return_indices=False):
    """3-d adaptive max pooling (AdaptiveMaxPool3DBackward0)."""
    return adaptive_max_pool(input, output_size, return_indices, 3)


AvgPool2DBackward0, AvgPool2DBackwardBackward0 = separable_ops("AvgPool2DBackward0")
AvgPool3DBackward0, AvgPool3DBackwardBackward0 = separable_ops("AvgPool3DBackward0")
AdaptiveAvgPool2DBackward0, AdaptiveAvgPool2DBackwardBackward0 = separable_ops("AdaptiveAvgPool2DBackward0")
AdaptiveAvgPool3DBackward0, AdaptiveAvgPool3DBackwardBackward0 = separable_ops("AdaptiveAvgPool3DBackward0")


def _window_taps(size, starts, ends, divisors):
    """The taps of windows [start, end) (clipped to the input), the sums divided by ``divisors``."""
    lo, hi = np.maximum(starts, 0), np.minimum(ends, size)
    k = max(int((hi - lo).max()), 1) if len(starts) else 1
    index = lo[:, None] + np.arange(k)[None, :]
    inside = index < hi[:, None]
    return Taps(np.where(inside, index, size), inside.astype(np.float64), size, np.asarray(divisors, np.float64))


def adaptive_avg_pool(input, output_size, d):
    name = f"adaptive_avg_pool{d}d"
    if d == 1:
        if input.ndim not in (2, 3):
            raise RuntimeError(f"{name}(): Expected 2D or 3D tensor, but got {list(input.shape)}")
        size = adaptive_output_size(input, output_size, 1)
        return _through_2d(lambda x: adaptive_avg_pool(x, (1,) + size, 2), input)
    _adaptive_check(input, d, name)
    size = adaptive_output_size(input, output_size, d)
    if size == (1,) * d:            # PyTorch takes the mean (MeanBackward1)
        return mean(input, tuple(range(-d, 0)), True)
    taps = []
    for n, o in zip(input.shape[-d:], size):
        start, end = adaptive_windows(n, o)
        taps.append(_window_taps(n, start, end, end - start))
    return separable(AdaptiveAvgPool2DBackward0 if d == 2 else AdaptiveAvgPool3DBackward0, input, taps)


def adaptive_avg_pool1d(input, output_size):
    """Average pooling to ``output_size`` places (start ``floor(i L / O)``, end ``ceil((i + 1) L / O)``)."""
    return adaptive_avg_pool(input, output_size, 1)


def adaptive_avg_pool2d(input, output_size):
    """Average pooling to a given output size (``None`` keeps that axis), windows as in
    PyTorch, recorded as AdaptiveAvgPool2DBackward0 (MeanBackward1 for a 1 x 1 output).

    >>> from diffcompare import autograd as ag
    >>> ag.nn.functional.adaptive_avg_pool2d(ag.arange(16.0).reshape(1, 4, 4), 1)
    tensor([[[7.5000]]])
    """
    return adaptive_avg_pool(input, output_size, 2)


def adaptive_avg_pool3d(input, output_size):
    """3-d adaptive average pooling (AdaptiveAvgPool3DBackward0)."""
    return adaptive_avg_pool(input, output_size, 3)


# -- average pooling ----------------------------------------------------------------------------

def avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, d):
    """Average pooling over the trailing ``d`` axes: PyTorch's divisor (the window clipped to the
    padded input, or without ``count_include_pad`` to the input; or ``divisor_override``) is a
    product of one factor per axis, so the pooling is separable."""
    name = f"avg_pool{d}d"
    _check_rank(input, d, name)
    kernel = pool_param(kernel_size, d, "kernel_size", name)
    stride = kernel if stride is None or (isinstance(stride, (tuple, list)) and not len(stride)) \
        else pool_param(stride, d, "stride", name)
    pad = pool_param(padding, d, "padding", name)
    if min(stride) <= 0:
        raise RuntimeError("stride should be greater than zero")
    for p, k in zip(pad, kernel):
        if p > k // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={p}, "
                               f"kernel_size={k} and dilation=1")
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    if d == 1:
        return _through_2d(lambda x: avg_pool(x, (1,) + kernel, (1,) + stride, (0,) + pad, ceil_mode,
                                              count_include_pad, divisor_override, 2), input)
    spatial = input.shape[-d:]
    if d == 3 and any(n < k for n, k in zip(spatial, kernel)):        # PyTorch's avg_pool3d checks this first
        raise RuntimeError(f"input image (T: {spatial[0]} H: {spatial[1]} W: {spatial[2]}) smaller than kernel "
                           f"size (kT: {kernel[0]} kH: {kernel[1]} kW: {kernel[2]})")
    out = [pool_size(n, k, s, p, 1, ceil_mode) for n, k, s, p in zip(spatial, kernel, stride, pad)]
    if min(out) <= 0:
        _too_small(input, d, out)
    taps = []
    for a, (n, o, k, s, p) in enumerate(zip(spatial, out, kernel, stride, pad)):
        start = np.arange(o) * s - p
        end = np.minimum(start + k, n + p)
        if divisor_override is not None:       # one axis carries the whole divisor
            divisors = np.full(o, float(divisor_override) if a == 0 else 1.0)
        elif count_include_pad:
            divisors = end - start
        else:
            divisors = np.minimum(end, n) - np.maximum(start, 0)
        taps.append(_window_taps(n, start, end, divisors))
    return separable(AvgPool2DBackward0 if d == 2 else AvgPool3DBackward0, input, taps)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    """1-d average pooling as ``torch.nn.functional.avg_pool1d`` (through AvgPool2DBackward0)."""
    return avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, None, 1)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """2-d average pooling as ``torch.nn.functional.avg_pool2d``, recorded as AvgPool2DBackward0.

    >>> from diffcompare import autograd as ag
    >>> ag.nn.functional.avg_pool2d(ag.arange(16.0).reshape(1, 4, 4), 2)
    tensor([[[ 2.5000,  4.5000],
             [10.5000, 12.5000]]])
    """
    return avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, 2)


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """3-d average pooling as ``torch.nn.functional.avg_pool3d`` (AvgPool3DBackward0)."""
    return avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, 3)


# -- power-average pooling ----------------------------------------------------------------------

def lp_pool(input, norm_type, kernel_size, stride, ceil_mode, d):
    """PyTorch's ``lp_pool{d}d``: ``(sign(a) relu(|a|) * prod(kernel)) ** (1 / p)`` with ``a`` the
    average pooling of ``input ** p``."""
    kernel = pool_param(kernel_size, d, "kernel_size", f"lp_pool{d}d")
    out = avg_pool(input ** norm_type, kernel_size, stride, 0, ceil_mode, True, None, d)
    return ((out.sign() * out.abs().relu()) * math.prod(kernel)) ** (1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """The p-norm of each window (``torch.nn.functional.lp_pool1d``)."""
    return lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 1)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """The p-norm of each 2-d window (``torch.nn.functional.lp_pool2d``)."""
    return lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 2)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """The p-norm of each 3-d window (``torch.nn.functional.lp_pool3d``)."""
    return lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 3)


# -- fractional max pooling ---------------------------------------------------------------------

def fractional_intervals(sample, size, out, k):
    """PyTorch's ``generate_intervals``: the window starts of one axis for a sample in [0, 1)."""
    starts = np.empty(out, dtype=np.int64)
    if out > 1:
        alpha = (size - k) / (out - 1)
        i = np.arange(out - 1)
        starts[:-1] = ((i + sample) * alpha).astype(np.int64) - int(sample * alpha)
    starts[-1] = size - k
    return starts


def fractional_max_pool(input, kernel_size, output_size, output_ratio, return_indices, random_samples, d):
    name = f"fractional_max_pool{d}d"
    if output_size is None and output_ratio is None:
        raise ValueError(f"{name} requires specifying either an output_size or an output_ratio")
    kernel = pool_param(kernel_size, d, "kernel_size", name)
    spatial = tuple(input.shape[-d:])
    if output_size is None:
        ratio = output_ratio if isinstance(output_ratio, (tuple, list)) else (output_ratio,) * d
        output_size = tuple(int(n * r) for n, r in zip(spatial, ratio))
    out = pool_param(output_size, d, "output_size", name)
    if input.ndim not in (d + 1, d + 2):
        raise RuntimeError(f"{name}(): Expected {d + 1}D or {d + 2}D tensor, but got: {list(input.shape)}")
    for n, o, k in zip(spatial, out, kernel):
        if o + k - 1 > n:
            raise RuntimeError(f"{name}_out(): pool height {k} too large relative to input height {n}")
    batch = 1 if input.ndim == d + 1 else input.shape[0]
    channels = input.shape[-d - 1]
    if random_samples is None:      # as torch.rand draws: U[0, 1) in order
        random_samples = Tensor._make(np.empty((batch, channels, d), dtype=input.dtype)).uniform_()
    samples = np.asarray(random_samples._data if isinstance(random_samples, Tensor) else random_samples,
                         dtype=np.float64).reshape(batch * channels, d)
    # PyTorch's sample order: (W, H) in 2-d, (T, H, W) in 3-d
    order = (1, 0) if d == 2 else (0, 1, 2)
    positions = []
    for a, (n, o, k) in enumerate(zip(spatial, out, kernel)):
        starts = np.stack([fractional_intervals(s, n, o, k) for s in samples[:, order[a]]])
        positions.append(starts[:, :, None] + np.arange(k)[None, None, :])
    cls = FractionalMaxPool2DBackward0 if d == 2 else FractionalMaxPool3DBackward0
    return _record_max(cls, input, d, positions, return_indices)


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    """Fractional max pooling (Graham), windows placed by one uniform draw per plane and axis
    (``torch.rand(N, C, 2)``, as PyTorch draws it)."""
    return fractional_max_pool(input, kernel_size, output_size, output_ratio, return_indices, _random_samples, 2)


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    """3-d fractional max pooling (``torch.rand(N, C, 3)`` drawn for the windows)."""
    return fractional_max_pool(input, kernel_size, output_size, output_ratio, return_indices, _random_samples, 3)


# -- max unpooling ------------------------------------------------------------------------------

class _MaxUnpool(Op):
    """Each value put at its index in a zero output; the gradient is read back from there."""

    @staticmethod
    def forward(x, index, out_shape):
        out = np.zeros(out_shape, dtype=x.dtype)
        out[index] = x
        return out

    def backward(self, g):
        return (g[self.index],)


MaxUnpool2DBackward0 = type("MaxUnpool2DBackward0", (_MaxUnpool,), {"__doc__": _MaxUnpool.__doc__})
MaxUnpool3DBackward0 = type("MaxUnpool3DBackward0", (_MaxUnpool,), {"__doc__": _MaxUnpool.__doc__})
MaxUnpool2DBackward0.tangent = MaxUnpool3DBackward0.tangent = "linear"


def max_unpool(input, indices, kernel_size, stride, padding, output_size, d):
    name = f"max_unpool{d}d"
    kernel = pool_param(kernel_size, d, "kernel_size", name)
    stride = kernel if stride is None else pool_param(stride, d, "stride", name)
    pad = pool_param(padding, d, "padding", name)
    spatial = input.shape[-d:]
    default = tuple((n - 1) * s + k - 2 * p for n, s, k, p in zip(spatial, stride, kernel, pad))
    if output_size is None:
        size = default
    else:
        size = tuple(int(v) for v in output_size)
        if len(size) == d + 2 or (len(size) == d + 1 and input.ndim == d + 1):
            size = size[-d:]
        if len(size) != d:
            raise ValueError(f"output_size should be a sequence containing {d} or {d + 2} elements, but it has a "
                             f"length of '{len(size)}'")
        for n, lo, hi in zip(size, default, (dv + s for dv, s in zip(default, stride))):
            if not lo <= n < hi:
                raise ValueError(f"invalid output_size \"{list(size)}\" (dim {size.index(n)} must be between {lo} "
                                 f"and {hi - 1})")
    if d == 1:
        result = max_unpool(unsqueeze(input, -1), Tensor._make(indices._data[..., None]), (kernel[0], 1),
                            (stride[0], 1), (pad[0], 0), size + (1,), 2)
        return squeeze(result, -1)
    idx = np.asarray(indices._data if isinstance(indices, Tensor) else indices)
    if tuple(idx.shape) != tuple(input.shape):
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor ({list(input.shape)}) "
                           f"but got indices tensor with shape: {list(idx.shape)}")
    lead = tuple(input.shape[:-d])
    volume = math.prod(size)
    if idx.size and (idx.min() < 0 or idx.max() >= volume):
        bad = int(idx[(idx < 0) | (idx >= volume)].flat[0])
        raise RuntimeError(f"Found an invalid max index: {bad} (output volumes are of size {'x'.join(map(str, size))}")
    planes = np.arange(math.prod(lead)).reshape(lead + (1,) * d)
    index = np.unravel_index(planes * volume + idx, lead + size)
    index = tuple(np.broadcast_to(i, idx.shape) for i in index)
    cls = MaxUnpool2DBackward0 if d == 2 else MaxUnpool3DBackward0
    return apply(cls, (input,), {"index": index, "out_shape": lead + size})


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The inverse of ``max_pool1d`` given its indices: zeros but at the maxima."""
    return max_unpool(input, indices, kernel_size, stride, padding, output_size, 1)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The inverse of ``max_pool2d`` given its indices (MaxUnpool2DBackward0)."""
    return max_unpool(input, indices, kernel_size, stride, padding, output_size, 2)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The inverse of ``max_pool3d`` given its indices (MaxUnpool3DBackward0)."""
    return max_unpool(input, indices, kernel_size, stride, padding, output_size, 3)


PUBLIC = ('adaptive_avg_pool1d', 'adaptive_max_pool1d', 'avg_pool1d', 'max_pool1d', 'max_pool2d', 'max_pool3d')
__all__ = ['AdaptiveAvgPool2DBackward0', 'AdaptiveAvgPool2DBackwardBackward0', 'AdaptiveAvgPool3DBackward0',
           'AdaptiveAvgPool3DBackwardBackward0', 'AdaptiveMaxPool2DBackward0', 'AdaptiveMaxPool3DBackward0',
           'AvgPool2DBackward0', 'AvgPool2DBackwardBackward0', 'AvgPool3DBackward0', 'AvgPool3DBackwardBackward0',
           'FractionalMaxPool2DBackward0', 'FractionalMaxPool3DBackward0', 'MaxPool2DWithIndicesBackward0',
           'MaxPool3DWithIndicesBackward0', 'MaxUnpool2DBackward0', 'MaxUnpool3DBackward0', 'adaptive_avg_pool1d',
           'adaptive_avg_pool2d', 'adaptive_avg_pool3d', 'adaptive_max_pool1d', 'adaptive_max_pool2d',
           'adaptive_max_pool3d', 'avg_pool1d', 'avg_pool2d', 'avg_pool3d', 'fractional_max_pool2d',
           'fractional_max_pool3d', 'lp_pool1d', 'lp_pool2d', 'lp_pool3d', 'max_pool1d', 'max_pool2d', 'max_pool3d',
           'max_unpool1d', 'max_unpool2d', 'max_unpool3d']
