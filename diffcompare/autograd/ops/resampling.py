"""Resampling and rearranging of images, recorded under PyTorch's node names: ``interpolate``
(nearest, nearest-exact, linear, bilinear, bicubic, trilinear: ``UpsampleNearest2DBackward0``, ...;
area: adaptive average pooling), reflection and replication padding (``ReflectionPad2DBackward0``,
...), circular padding (slices copied, as PyTorch), ``channel_shuffle`` (``ChannelShuffleBackward0``)
and ``unfold``/``fold`` (``Im2ColBackward0``/``Col2ImBackward0``).

Upsampling and the non-constant paddings are separable linear maps (:mod:`.separable`): each
output place of an axis reads one to four input places, with PyTorch's source indices and weights.

>>> from diffcompare import autograd as ag
>>> import diffcompare.autograd.nn.functional as F
>>> x = ag.tensor([[[1.0, 2.0]]], requires_grad=True)
>>> y = F.interpolate(x, scale_factor=2, mode="linear")
>>> y.detach(), y.grad_fn.name()
(tensor([[[1.0000, 1.2500, 1.7500, 2.0000]]]), 'UpsampleLinear1DBackward0')
>>> F.pad(ag.tensor([[[1.0, 2.0, 3.0]]]), (2, 1), mode="reflect")
tensor([[[3., 2., 1., 2., 3., 2.]]])
"""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np

from ..tensor import Tensor
from .convolution import windows
from .pooling import adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d, pool_param
from .recording import Op, apply
from .separable import Taps, separable, separable_ops

_RANK = {1: "1D", 2: "2D", 3: "3D"}


# -- interpolation ------------------------------------------------------------------------------

def _scale(size, out, scale, align_corners=False):
    """PyTorch's ``area_pixel_compute_scale`` (double precision)."""
    if align_corners:
        return (size - 1) / (out - 1) if out > 1 else 0.0
    return 1.0 / scale if scale is not None and scale > 0 else size / out


def _nearest_taps(size, out, scale, exact, d):
    """PyTorch's nearest source indices of one axis: the forward's and the backward's, which can
    differ. The backward (and the 2-d forward) use ``nearest_idx``: the scale in single precision,
    and a copy when the sizes are equal or doubled; the 1-d and 3-d forwards use the generic
    kernel: the scale in double precision, the index floored in single."""
    dst = np.arange(out)
    ratio = 1.0 / scale if scale is not None and scale > 0 else size / out
    real = ratio * (dst + 0.5) if exact else ratio * dst
    forward = np.minimum(np.floor(real.astype(np.float32)).astype(np.int64), size - 1)
    if not exact and out == size:
        backward = dst
    elif not exact and out == 2 * size:
        backward = dst >> 1
    else:
        s = np.float32(1.0 / scale) if scale is not None and scale > 0 else np.float32(size) / np.float32(out)
        real = ((dst + 0.5) * np.float64(s)).astype(np.float32) if exact else dst.astype(np.float32) * s
        backward = np.minimum(np.floor(real).astype(np.int64), size - 1)
    if d == 2:
        forward = backward
    return Taps(forward[:, None], None, size), Taps(backward[:, None], None, size)


def _guard(real, size):
    """PyTorch's ``guard_index_and_lambda``: the index (floored in single precision, at most the
    last) and the weight of the next place, in [0, 1]."""
    index = np.minimum(np.floor(real.astype(np.float32)).astype(np.int64), size - 1)
    return index, np.clip(real - index, 0.0, 1.0)


def _linear_taps(size, out, scale, align_corners):
    if out == size:                      # PyTorch copies
        return Taps(np.arange(out)[:, None], None, size)
    ratio = _scale(size, out, scale, align_corners)
    dst = np.arange(out, dtype=np.float64)
    real = ratio * dst if align_corners else np.maximum(ratio * (dst + 0.5) - 0.5, 0.0)
    i0, lam1 = _guard(real, size)
    i1 = i0 + (i0 < size - 1)
    return Taps(np.stack([i0, i1], 1), np.stack([1.0 - lam1, lam1], 1), size)


CUBIC_A = -0.75     # PyTorch's cubic convolution parameter


def cubic_coefficients(t, a=CUBIC_A):
    """The weights of the four places around a point a fraction ``t`` past the second, PyTorch's
    ``get_cubic_upsample_coefficients`` (arithmetic only: ``t`` may be an array or a tensor).

    >>> [float(w) for w in cubic_coefficients(0.0)]
    [0.0, 1.0, 0.0, 0.0]
    """
    def near(x):
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return [far(t + 1.0), near(t), near(1.0 - t), far(2.0 - t)]


def _cubic_taps(size, out, scale, align_corners, a=CUBIC_A):
    ratio = _scale(size, out, scale, align_corners)
    dst = np.arange(out, dtype=np.float64)
    real = ratio * dst if align_corners else ratio * (dst + 0.5) - 0.5
    i, t = _guard(real, size)
    weight = np.stack(cubic_coefficients(t, a), 1)
    index = np.clip(i[:, None] + np.arange(-1, 3)[None, :], 0, size - 1)
    return Taps(index, weight, size)


_UPSAMPLE = {}
for _name in ("Nearest1D", "Nearest2D", "Nearest3D", "NearestExact1D", "NearestExact2D", "NearestExact3D",
              "Linear1D", "Bilinear2D", "Bicubic2D", "Trilinear3D"):
    _UPSAMPLE[_name] = separable_ops(f"Upsample{_name}Backward0")
    globals()[f"Upsample{_name}Backward0"], globals()[f"Upsample{_name}BackwardBackward0"] = _UPSAMPLE[_name]

_LINEAR_MODES = {"linear": (1, "Linear1D"), "bilinear": (2, "Bilinear2D"), "bicubic": (2, "Bicubic2D"),
                 "trilinear": (3, "Trilinear3D")}


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None, recompute_scale_factor=None,
                antialias=False):
    """``torch.nn.functional.interpolate``: resampling of the trailing 1, 2 or 3 axes to ``size``
    or by ``scale_factor``, with PyTorch's source places and weights for each mode."""
    d = input.ndim - 2
    if d < 1:
        raise ValueError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.ndim}D) for the input "
                         f"dimensions")
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: "
                             "linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    if antialias:
        raise NotImplementedError("interpolate(antialias=True) is not supported by this engine")
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    spatial = tuple(input.shape[2:])
    if size is not None:
        sizes = tuple(int(s) for s in size) if isinstance(size, (tuple, list)) else (int(size),) * d
        if len(sizes) != d:
            raise ValueError(f"Input and output must have the same number of spatial dimensions, but got input with "
                             f"spatial dimensions of {list(spatial)} and output size of {list(sizes)}. Please provide "
                             f"input tensor in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) "
                             f"format.")
        scales = (None,) * d
    elif scale_factor is not None:
        scales = tuple(float(s) for s in scale_factor) if isinstance(scale_factor, (tuple, list)) \
            else (float(scale_factor),) * d
        if len(scales) != d:
            raise ValueError(f"Input and scale_factor must have the same number of spatial dimensions, but got input "
                             f"with spatial dimensions of {list(spatial)} and scale_factor of shape {list(scales)}. "
                             f"Please provide input tensor in (N, C, d1, d2, ...,dK) format and scale_factor in "
                             f"(s1, s2, ...,sK) format.")
        sizes = tuple(int(math.floor(n * s)) for n, s in zip(spatial, scales))
        if recompute_scale_factor:
            scales = (None,) * d
    else:
        raise ValueError("either size or scale_factor should be defined")
    if min(sizes) <= 0 and mode != "area":
        names = ("D", "H", "W")[3 - d:]
        joined = " and " if d == 1 else " "
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input "
                           f"({', '.join(f'{a}: {n}' for a, n in zip(names, spatial))}){joined}output "
                           f"({', '.join(f'{a}: {n}' for a, n in zip(names, sizes))})")
    if mode == "area":
        return (adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d)[d - 1](input, sizes)
    if mode in ("nearest", "nearest-exact"):
        if d > 3:
            raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.ndim}D) "
                                      f"for the modes: nearest | linear | bilinear | bicubic | trilinear | area | "
                                      f"nearest-exact (got {mode})")
        exact = mode == "nearest-exact"
        forward, backward = zip(*(_nearest_taps(n, o, s, exact, d) for n, o, s in zip(spatial, sizes, scales)))
        return separable(_UPSAMPLE[("NearestExact" if exact else "Nearest") + _RANK[d]][0], input, forward, backward)
    if mode not in _LINEAR_MODES:
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.ndim}D) for "
                                  f"the modes: nearest | linear | bilinear | bicubic | trilinear | area | "
                                  f"nearest-exact (got {mode})")
    rank, name = _LINEAR_MODES[mode]
    if rank != d:
        raise NotImplementedError(f"Got {input.ndim}D input, but {mode} mode needs {rank + 2}D input")
    make = _cubic_taps if mode == "bicubic" else _linear_taps
    taps = [make(n, o, s, align_corners) for n, o, s in zip(spatial, sizes, scales)]
    back = None
    if mode == "bicubic" and sizes == spatial:      # PyTorch's bicubic backward copies (its forward does not)
        back = [Taps(np.arange(n)[:, None], None, n) for n in spatial]
    return separable(_UPSAMPLE[name][0], input, taps, back)


def _deprecated(name):
    warnings.warn(f"`nn.functional.{name}` is deprecated. Use `nn.functional.interpolate` instead.", stacklevel=3)


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """``torch.nn.functional.upsample``: ``interpolate``, with PyTorch's deprecation warning."""
    _deprecated("upsample")
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    """``interpolate`` in "nearest" mode, with PyTorch's deprecation warning."""
    _deprecated("upsample_nearest")
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """``interpolate`` in "bilinear" mode with corners aligned, with PyTorch's deprecation warning."""
    _deprecated("upsample_bilinear")
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


# -- reflection, replication and circular padding -----------------------------------------------

_PADS = {}
for _kind in ("Reflection", "Replication"):
    for _d in (1, 2, 3):
        _PADS[_kind, _d] = separable_ops(f"{_kind}Pad{_d}DBackward0")
        globals()[f"{_kind}Pad{_d}DBackward0"], globals()[f"{_kind}Pad{_d}DBackwardBackward0"] = _PADS[_kind, _d]


def _pad_taps(size, lo, hi, kind):
    i = np.arange(size + lo + hi) - lo
    if kind == "Reflection":
        i = np.abs(i)
        i = np.where(i >= size, 2 * (size - 1) - i, i)
    else:
        i = np.clip(i, 0, size - 1)
    return Taps(i[:, None], None, size)


def _check_pad(input, pad, mode):
    d = len(pad) // 2
    if len(pad) % 2 or d not in (1, 2, 3) or input.ndim not in (d + 1, d + 2):
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {input.ndim}D input tensor.\nSupported combinations for "
            "non-constant padding:\n  - 2D or 3D input: padding size = 2 (pads last dimension)\n  - 3D or 4D input: "
            "padding size = 4 (pads last 2 dimensions)\n  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")
    return d


def nonconstant_pad(input, pad, mode):
    """``F.pad`` in "reflect", "replicate" or "circular" mode."""
    pad = tuple(int(p) for p in pad)
    d = _check_pad(input, pad, mode)
    pairs = [(pad[2 * k], pad[2 * k + 1]) for k in range(d)][::-1]       # first spatial axis first
    spatial = input.shape[-d:]
    if mode == "circular":
        return _circular_pad(input, pad, d)
    kind = "Reflection" if mode == "reflect" else "Replication"
    for a, (n, (lo, hi)) in enumerate(zip(spatial, pairs)):
        if kind == "Reflection" and (lo >= n or hi >= n):
            raise RuntimeError(f"Argument #4: Padding size should be less than the corresponding input dimension, "
                               f"but got: padding ({lo}, {hi}) at dimension {input.ndim - d + a} of input "
                               f"{list(input.shape)}")
        if d == 1 and n + lo + hi < 1:
            raise RuntimeError(f"input (W: {n}) is too small. Calculated output W: {n + lo + hi}")
        if n + lo + hi < 0:
            raise RuntimeError(f"input ({' x '.join(map(str, spatial))}) is too small. Calculated output "
                               f"{' x '.join(str(m + p + q) for m, (p, q) in zip(spatial, pairs))}")
    taps = [_pad_taps(n, lo, hi, kind) for n, (lo, hi) in zip(spatial, pairs)]
    return separable(_PADS[kind, d][0], input, taps)


def _circular_pad(input, pad, d):
    """PyTorch's ``_pad_circular``: the input copied into the middle of a new tensor, then each
    axis's ends copied from the opposite side (corners written twice), each copy a CopySlices."""
    shape = list(input.shape)
    nd = input.ndim
    for i in range(d):
        dim = nd - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        if lo > shape[dim] or hi > shape[dim]:
            raise RuntimeError("Padding value causes wrapping around more than once.")
        shape[dim] += lo + hi
    out = Tensor._make(np.zeros(shape, dtype=input.dtype))
    out_index, in_index = [slice(None)] * nd, [slice(None)] * nd
    for i in range(d):
        dim = nd - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        out_index[dim] = slice(max(lo, 0), shape[dim] - max(hi, 0))
        in_index[dim] = slice(max(-lo, 0), input.shape[dim] - max(-hi, 0))
    out[tuple(out_index)] = input[tuple(in_index)]
    for i in range(d):
        dim = nd - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        full = [slice(None)] * nd
        if lo > 0:
            target, source = list(full), list(full)
            target[dim] = slice(0, lo)
            source[dim] = slice(shape[dim] - lo - max(hi, 0), shape[dim] - max(hi, 0))
            out[tuple(target)] = out[tuple(source)].clone()
        if hi > 0:
            target, source = list(full), list(full)
            target[dim] = slice(shape[dim] - hi, shape[dim])
            source[dim] = slice(max(lo, 0), max(lo, 0) + hi)
            out[tuple(target)] = out[tuple(source)].clone()
    return out


# -- channel shuffle ----------------------------------------------------------------------------

def _shuffle_channels(a, groups):
    n, c = a.shape[:2]
    rest = tuple(a.shape[2:])
    return a.reshape((n, groups, c // groups) + rest).swapaxes(1, 2).reshape((n, c) + rest)


class ChannelShuffleBackward0(Op):
    """The channels (C = g k) read as a (g, k) grid and transposed; the gradient is shuffled back
    (the same rearrangement with k groups)."""

    @staticmethod
    def forward(x, groups):
        return np.ascontiguousarray(_shuffle_channels(np.asarray(x), groups))

    def backward(self, g):
        k = g.shape[1] // self.groups
        if isinstance(g, Tensor):
            return (apply(ChannelShuffleBackward0, (g,), {"groups": k}),)
        return (np.ascontiguousarray(_shuffle_channels(g, k)),)


ChannelShuffleBackward0.tangent = "linear"


def channel_shuffle(input, groups):
    """The channels of (N, C, *) split into ``groups`` groups and interleaved (ShuffleNet)."""
    groups = int(groups)
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    if input.ndim <= 2:
        raise RuntimeError(f"channel_shuffle expects input to have at least 3 dimensions, but got input with "
                           f"{input.ndim} dimension(s)")
    c = input.shape[1]
    if c % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels and {groups} groups.")
    return apply(ChannelShuffleBackward0, (input,), {"groups": groups})


# -- unfold and fold (im2col, col2im) -----------------------------------------------------------

def _im2col(x, kernel, dilation, padding, stride):
    n, c = x.shape[:2]
    xp = np.pad(x, ((0, 0), (0, 0)) + tuple((p, p) for p in padding))
    cols = windows(xp, kernel, stride, dilation)          # (N, C, oh, ow, kh, kw)
    oh, ow = cols.shape[2:4]
    return np.ascontiguousarray(cols.transpose(0, 1, 4, 5, 2, 3)).reshape(n, c * kernel[0] * kernel[1], oh * ow)


def _col2im(cols, output_size, kernel, dilation, padding, stride):
    n = cols.shape[0]
    kh, kw = kernel
    c = cols.shape[1] // (kh * kw)
    blocks = [(o + 2 * p - dl * (k - 1) - 1) // s + 1 for o, p, dl, k, s in
              zip(output_size, padding, dilation, kernel, stride)]
    cols = cols.reshape(n, c, kh, kw, blocks[0], blocks[1])
    out = np.zeros((n, c, output_size[0] + 2 * padding[0], output_size[1] + 2 * padding[1]), dtype=cols.dtype)
    for i, j in itertools.product(range(kh), range(kw)):
        out[:, :, i * dilation[0]: i * dilation[0] + stride[0] * (blocks[0] - 1) + 1: stride[0],
            j * dilation[1]: j * dilation[1] + stride[1] * (blocks[1] - 1) + 1: stride[1]] += cols[:, :, i, j]
    return out[:, :, padding[0]: padding[0] + output_size[0], padding[1]: padding[1] + output_size[1]]


class Im2ColBackward0(Op):
    """Every kernel-sized block of (N, C, H, W) as a column of (N, C kh kw, L); the VJP is col2im."""

    @staticmethod
    def forward(x, kernel, dilation, padding, stride, in_size):
        return _im2col(x, kernel, dilation, padding, stride)

    def backward(self, g):
        args = {"output_size": self.in_size, "kernel": self.kernel, "dilation": self.dilation,
                "padding": self.padding, "stride": self.stride}
        if isinstance(g, Tensor):
            return (apply(Col2ImBackward0, (g,), args),)
        return (_col2im(g, **args),)


class Col2ImBackward0(Op):
    """The columns of (N, C kh kw, L) summed back into their blocks of (N, C, H, W); the VJP is im2col."""

    @staticmethod
    def forward(cols, output_size, kernel, dilation, padding, stride):
        return _col2im(cols, output_size, kernel, dilation, padding, stride)

    def backward(self, g):
        args = {"kernel": self.kernel, "dilation": self.dilation, "padding": self.padding, "stride": self.stride}
        if isinstance(g, Tensor):
            return (apply(Im2ColBackward0, (g,), dict(args, in_size=self.output_size)),)
        return (_im2col(g, **args),)


Im2ColBackward0.tangent = Col2ImBackward0.tangent = "linear"


def _fold_params(kernel_size, dilation, padding, stride, name):
    return tuple(pool_param(v, 2, label, name) for v, label in
                 ((kernel_size, "kernel_size"), (dilation, "dilation"), (padding, "padding"), (stride, "stride")))


def im2col(input, kernel_size, dilation=1, padding=0, stride=1):
    """``torch.nn.functional.unfold`` (im2col) of a (N, C, H, W) or (C, H, W) input."""
    if input.ndim not in (3, 4):
        raise NotImplementedError(f"Input Error: Only 3D or 4D input Tensors are supported (got {input.ndim}D)")
    if input.ndim == 3:
        return im2col(input.unsqueeze(0), kernel_size, dilation, padding, stride).squeeze(0)
    kernel, dilation, padding, stride = _fold_params(kernel_size, dilation, padding, stride, "unfold")
    blocks = [(n + 2 * p - dl * (k - 1) - 1) // s + 1 for n, p, dl, k, s in
              zip(input.shape[2:], padding, dilation, kernel, stride)]
    if min(blocks) < 1:
        raise RuntimeError(f"Given input with spatial size ({input.shape[2]}, {input.shape[3]}), kernel_size="
                           f"({kernel[0]}, {kernel[1]}), dilation=({dilation[0]}, {dilation[1]}), padding=("
                           f"{padding[0]}, {padding[1]}), calculated shape of the array of sliding blocks as "
                           f"({blocks[0]}, {blocks[1]}), but its components must be at least one.")
    return apply(Im2ColBackward0, (input,), {"kernel": kernel, "dilation": dilation, "padding": padding,
                                             "stride": stride, "in_size": tuple(input.shape[2:])})


def col2im(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """``torch.nn.functional.fold`` (col2im): columns (N, C kh kw, L) summed into (N, C, H, W)."""
    if input.ndim not in (2, 3):
        raise NotImplementedError(f"Input Error: Only unbatched (2D) or batched (3D) input Tensors are supported "
                                  f"(got {input.ndim}D)")
    if input.ndim == 2:
        return col2im(input.unsqueeze(0), output_size, kernel_size, dilation, padding, stride).squeeze(0)
    size = pool_param(output_size, 2, "output_size", "fold")
    kernel, dilation, padding, stride = _fold_params(kernel_size, dilation, padding, stride, "fold")
    if input.shape[1] % (kernel[0] * kernel[1]):
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the product of kernel_size, but "
                           f"got input.size(1)={input.shape[1]} and kernel_size=({kernel[0]}, {kernel[1]})")
    blocks = [(o + 2 * p - dl * (k - 1) - 1) // s + 1 for o, p, dl, k, s in
              zip(size, padding, dilation, kernel, stride)]
    if blocks[0] * blocks[1] != input.shape[2]:
        raise RuntimeError(f"Given output_size=({size[0]}, {size[1]}), kernel_size=({kernel[0]}, {kernel[1]}), "
                           f"dilation=({dilation[0]}, {dilation[1]}), padding=({padding[0]}, {padding[1]}), stride=("
                           f"{stride[0]}, {stride[1]}), expected size of input's dimension 2 to match the calculated "
                           f"number of sliding blocks {blocks[0]} * {blocks[1]} = {blocks[0] * blocks[1]}, but got "
                           f"input.size(2)={input.shape[2]}.")
    return apply(Col2ImBackward0, (input,), {"output_size": size, "kernel": kernel, "dilation": dilation,
                                             "padding": padding, "stride": stride})


PUBLIC = ('channel_shuffle', 'native_channel_shuffle')
native_channel_shuffle = channel_shuffle
__all__ = ['CUBIC_A', 'ChannelShuffleBackward0', 'Col2ImBackward0', 'Im2ColBackward0', 'channel_shuffle', 'col2im',
           'cubic_coefficients', 'im2col', 'interpolate',
           'native_channel_shuffle', 'nonconstant_pad', 'upsample', 'upsample_bilinear',
           'upsample_nearest'] + [f"Upsample{n}Backward{b}0" for n in _UPSAMPLE for b in ("", "Backward")] \
    + [f"{k}Pad{d}DBackward{b}0" for k, d in _PADS for b in ("", "Backward")]
