"""Convolutions of any spatial rank, recorded as PyTorch records them, ``ConvolutionBackward0``:
``conv1d``/``conv2d``/``conv3d`` (cross-correlation) and ``conv_transpose1d/2d/3d`` (the
gradient of a convolution with respect to its input, run forward).

Three array kernels do all the work, for a convolution ``y = conv(x, w)`` with stride,
padding, dilation and groups: the forward (im2col windows contracted with the kernel), the
input gradient (the gradient scattered back through the kernel) and the weight gradient (the
gradient contracted with the windows). A transposed convolution's forward is the input
gradient; its gradients are the forward (input) and the weight gradient with the roles of
input and gradient swapped.

>>> from diffcompare import autograd as ag
>>> x = ag.ones(1, 1, 3, requires_grad=True)
>>> y = ag.conv1d(x, ag.ones(1, 1, 2))
>>> y, y.grad_fn.name()
(tensor([[[2., 2.]]], grad_fn=<ConvolutionBackward0>), 'ConvolutionBackward0')
>>> ag.conv_transpose1d(ag.ones(1, 1, 2), ag.ones(1, 1, 2))
tensor([[[1., 2., 1.]]])
"""

from __future__ import annotations

import itertools

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ..tensor import Tensor, scalar_name
from .recording import Op, apply
from .shape import squeeze, unsqueeze

_LETTERS = "ABCDEFGHIJKL"   # einsum letters for the spatial axes (output) and kernel axes (shifted)


def expand_param(value, d, name):
    """A convolution's int-or-sequence argument as a tuple of ``d`` ints (PyTorch's message)."""
    if isinstance(value, (tuple, list)):
        if len(value) == 1 and d > 1:
            return tuple(int(value[0]) for _ in range(d))
        if len(value) != d:
            raise RuntimeError(f"expected {name} to be a single integer value or a list of {d} values to match the "
                               f"convolution dimensions, but got {name}={list(value)}")
        return tuple(int(v) for v in value)
    return (int(value),) * d


def windows(x, kernel, stride, dilation):
    """(N, C, *out, *kernel) views of ``x`` (N, C, *spatial) under every kernel position."""
    d = len(kernel)
    span = tuple(dl * (k - 1) + 1 for k, dl in zip(kernel, dilation))
    view = sliding_window_view(x, span, axis=tuple(range(2, 2 + d)))
    index = (slice(None), slice(None)) + tuple(slice(None, None, s) for s in stride) \
        + tuple(slice(None, None, dl) for dl in dilation)
    return view[index]


def _pad(x, padding):
    return np.pad(x, ((0, 0), (0, 0)) + tuple(padding)) if any(map(any, padding)) else x


def conv_forward(x, w, stride, padding, dilation, groups):
    """``y = conv(x, w)`` on arrays, without bias."""
    d = w.ndim - 2
    cols = windows(_pad(x, padding), w.shape[2:], stride, dilation)
    n, c = cols.shape[:2]
    out = cols.shape[2:2 + d]
    cols = cols.reshape((n, groups, c // groups) + cols.shape[2:])
    wg = w.reshape((groups, w.shape[0] // groups, c // groups) + w.shape[2:])
    sp, kr = _LETTERS[:d], _LETTERS[d:2 * d]
    y = np.einsum(f"ngc{sp}{kr},goc{kr}->ngo{sp}", cols, wg, optimize=True)
    return y.reshape((n, w.shape[0]) + out)


def conv_input_grad(g, w, spatial, stride, padding, dilation, groups):
    """The gradient of ``conv(x, w)`` with respect to ``x`` (spatial size ``spatial``), given ``g``."""
    d = w.ndim - 2
    n, o = g.shape[:2]
    out, kernel = g.shape[2:], w.shape[2:]
    cg = w.shape[1]
    gg = g.reshape((n, groups, o // groups) + out)
    wg = w.reshape((groups, o // groups, cg) + kernel)
    sp, kr = _LETTERS[:d], _LETTERS[d:2 * d]
    cols = np.einsum(f"ngo{sp},goc{kr}->ngc{sp}{kr}", gg, wg, optimize=True)
    cols = cols.reshape((n, groups * cg) + out + kernel)
    padded = tuple(s + lo + hi for s, (lo, hi) in zip(spatial, padding))
    gxp = np.zeros((n, groups * cg) + padded, dtype=cols.dtype)
    for offsets in itertools.product(*(range(k) for k in kernel)):
        target = (slice(None), slice(None)) + tuple(
            slice(i * dl, i * dl + s * (m - 1) + 1, s) for i, dl, s, m in zip(offsets, dilation, stride, out))
        gxp[target] += cols[(Ellipsis,) + offsets]
    return gxp[(slice(None), slice(None)) + tuple(slice(lo, lo + s) for s, (lo, _) in zip(spatial, padding))]


def conv_weight_grad(g, x, kernel, stride, padding, dilation, groups):
    """The gradient of ``conv(x, w)`` with respect to ``w`` (kernel size ``kernel``), given ``g``."""
    d = len(kernel)
    n, o = g.shape[:2]
    out = g.shape[2:]
    c = x.shape[1]
    cols = windows(_pad(x, padding), kernel, stride, dilation)
    cols = cols[(slice(None), slice(None)) + tuple(slice(0, m) for m in out)]
    cols = cols.reshape((n, groups, c // groups) + cols.shape[2:])
    gg = g.reshape((n, groups, o // groups) + out)
    sp, kr = _LETTERS[:d], _LETTERS[d:2 * d]
    gw = np.einsum(f"ngo{sp},ngc{sp}{kr}->goc{kr}", gg, cols, optimize=True)
    return gw.reshape((o, c // groups) + tuple(kernel))


class ConvolutionBackward0(Op):
    """Convolution (``transposed=False``: cross-correlation of ``input`` (N, C, *S) with
    ``weight`` (O, C/groups, *K); ``transposed=True``: its input gradient, weight (C, O/groups,
    *K)), plus ``bias`` (O,)."""
    saves = (0, 1)

    @staticmethod
    def forward(x, w, b, stride, padding, dilation, groups, transposed=False, output_size=None):
        if transposed:
            out = conv_input_grad(x, w, output_size, stride, padding, dilation, groups)
        else:
            out = conv_forward(x, w, stride, padding, dilation, groups)
        out = np.ascontiguousarray(out)         # PyTorch's layout (its strides, the order its *_like draws fill)
        if b is not None:
            out = out + b.reshape((-1,) + (1,) * (out.ndim - 2))
        return out

    @staticmethod
    def infer(x, w, b, stride, padding, dilation, groups, transposed=False, output_size=None):
        """The result's shape and dtype on meta inputs (any size: nothing computed)."""
        if transposed:
            sizes, channels = tuple(output_size), w.shape[1] * groups
        else:
            sizes = tuple((n + lo + hi - d * (k - 1) - 1) // s + 1 for n, (lo, hi), k, s, d in
                          zip(x.shape[2:], padding, w.shape[2:], stride, dilation))
            channels = w.shape[0]
        dtype = np.result_type(x.dtype, w.dtype) if b is None else np.result_type(x.dtype, w.dtype, b.dtype)
        return (x.shape[0], channels) + sizes, dtype

    def backward(self, g, x, w):
        if isinstance(g, Tensor):      # with a graph (create_graph=True): ops/convolution_grads.py's rule
            return self.graph_backward(g, x, w)
        args = (self.stride, self.padding, self.dilation, self.groups)
        gx = gw = gb = None
        if self.transposed:
            if self.needs(0):
                gx = conv_forward(g, w, *args)
            if self.needs(1):
                gw = conv_weight_grad(x, g, w.shape[2:], *args)
        else:
            if self.needs(0):
                gx = conv_input_grad(g, w, x.shape[2:], *args)
            if self.needs(1):
                gw = conv_weight_grad(g, x, w.shape[2:], *args)
        if self.needs(2):
            gb = g.sum(axis=(0,) + tuple(range(2, g.ndim)))
        return gx, gw, gb


def _padding(padding, kernel, dilation, stride, d):
    if isinstance(padding, str):
        if padding == "valid":
            return ((0, 0),) * d
        if padding != "same":
            raise ValueError(f"Invalid padding string '{padding}', should be one of {{'valid', 'same'}}")
        if any(s != 1 for s in stride):
            raise RuntimeError("padding='same' is not supported for strided convolutions")
        pads = []
        for k, dl in zip(kernel, dilation):
            total = dl * (k - 1)
            pads.append((total // 2, total - total // 2))
        return tuple(pads)
    pads = expand_param(padding, d, "padding")
    if min(pads) < 0:
        raise RuntimeError("negative padding is not supported")
    return tuple((p, p) for p in pads)


def _check(input, weight, bias, stride, dilation, groups, d, name, transposed=False):
    if weight.ndim != d + 2 or input.ndim != d + 2:
        raise RuntimeError(f"Expected {d + 1}D (unbatched) or {d + 2}D (batched) input to {name}, but got input of "
                           f"size: {list(input.shape)}")
    if weight.dtype != input.dtype:
        raise RuntimeError(f"expected scalar type {scalar_name(input.dtype, True)} but found "
                           f"{scalar_name(weight.dtype, True)}")
    if bias is not None and bias.dtype != input.dtype:
        raise RuntimeError(f"Input type ({scalar_name(input.dtype)}) and bias type ({scalar_name(bias.dtype)}) should "
                           "be the same")
    if min(stride) <= 0:
        raise RuntimeError("non-positive stride is not supported")
    if min(dilation) <= 0:
        raise RuntimeError("dilation should be greater than zero")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if transposed:
        if input.shape[1] != weight.shape[0]:
            raise RuntimeError(f"Given transposed=1, weight of size {list(weight.shape)}, expected input"
                               f"{list(input.shape)} to have {weight.shape[0]} channels, but got {input.shape[1]} "
                               f"channels instead")
        return
    if weight.shape[0] % groups:
        raise RuntimeError("Given groups, expected weight to be divisible by groups")
    if input.shape[1] != weight.shape[1] * groups:
        raise RuntimeError(f"Given groups={groups}, weight of size {list(weight.shape)}, expected input"
                           f"{list(input.shape)} to have {weight.shape[1] * groups} channels, but got "
                           f"{input.shape[1]} channels instead")


def convolution(input, weight, bias, stride, padding, dilation, groups, d, name):
    """``conv{d}d``: the checks PyTorch makes, then ConvolutionBackward0."""
    if input.ndim == d + 1:
        return squeeze(convolution(unsqueeze(input, 0), weight, bias, stride, padding, dilation, groups, d, name), 0)
    stride, dilation = expand_param(stride, d, "stride"), expand_param(dilation, d, "dilation")
    _check(input, weight, bias, stride, dilation, groups, d, name)
    pads = _padding(padding, weight.shape[2:], dilation, stride, d)
    for size, (lo, hi), k, dl in zip(input.shape[2:], pads, weight.shape[2:], dilation):
        if size + lo + hi < dl * (k - 1) + 1:
            padded = " x ".join(str(s + a + b) for s, (a, b) in zip(input.shape[2:], pads))
            kernel = " x ".join(str(k) for k in weight.shape[2:])
            raise RuntimeError(f"Calculated padded input size per channel: ({padded}). Kernel size: ({kernel}). "
                               f"Kernel size can't be greater than actual input size")
    return apply(ConvolutionBackward0, (input, weight, bias),
                 {"stride": stride, "padding": pads, "dilation": dilation, "groups": groups, "transposed": False,
                  "output_size": None})


def transposed_convolution(input, weight, bias, stride, padding, output_padding, groups, dilation, d, name):
    """``conv_transpose{d}d``: the checks PyTorch makes, then ConvolutionBackward0 (transposed)."""
    if input.ndim == d + 1:
        return squeeze(transposed_convolution(unsqueeze(input, 0), weight, bias, stride, padding, output_padding,
                                              groups, dilation, d, name), 0)
    stride, dilation = expand_param(stride, d, "stride"), expand_param(dilation, d, "dilation")
    pads, extra = expand_param(padding, d, "padding"), expand_param(output_padding, d, "output_padding")
    _check(input, weight, bias, stride, dilation, groups, d, name, transposed=True)
    for e, s, dl in zip(extra, stride, dilation):
        if e >= s and e >= dl:
            raise RuntimeError("output padding must be smaller than either stride or dilation, but got "
                               f"output_padding: {', '.join(map(str, extra))}, stride: {', '.join(map(str, stride))}, "
                               f"dilation: {', '.join(map(str, dilation))}")
    size = tuple((n - 1) * s - 2 * p + dl * (k - 1) + e + 1 for n, s, p, dl, k, e in
                 zip(input.shape[2:], stride, pads, dilation, weight.shape[2:], extra))
    if min(size) <= 0:
        raise RuntimeError(f"Given input size per channel: ({' x '.join(map(str, input.shape[2:]))}). Calculated output "
                           f"size per channel: ({' x '.join(map(str, size))}). Output size is too small")
    return apply(ConvolutionBackward0, (input, weight, bias),
                 {"stride": stride, "padding": tuple((p, p) for p in pads), "dilation": dilation, "groups": groups,
                  "transposed": True, "output_size": size})


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-d convolution as ``torch.nn.functional.conv1d``; ``input`` (N, C, L) or (C, L)."""
    return convolution(input, weight, bias, stride, padding, dilation, groups, 1, "conv1d")


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-d convolution (cross-correlation) as ``torch.nn.functional.conv2d``; ``input`` is
    (N, C, H, W) or unbatched (C, H, W).

    >>> from diffcompare import autograd as ag
    >>> ag.conv2d(ag.arange(16.0).reshape(1, 1, 4, 4), ag.ones(1, 1, 2, 2), stride=2)
    tensor([[[[10., 18.],
              [42., 50.]]]])
    """
    return convolution(input, weight, bias, stride, padding, dilation, groups, 2, "conv2d")


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """3-d convolution as ``torch.nn.functional.conv3d``; ``input`` (N, C, D, H, W) or (C, D, H, W)."""
    return convolution(input, weight, bias, stride, padding, dilation, groups, 3, "conv3d")


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """1-d transposed convolution as ``torch.nn.functional.conv_transpose1d``."""
    return transposed_convolution(input, weight, bias, stride, padding, output_padding, groups, dilation, 1,
                                  "conv_transpose1d")


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """2-d transposed convolution as ``torch.nn.functional.conv_transpose2d``."""
    return transposed_convolution(input, weight, bias, stride, padding, output_padding, groups, dilation, 2,
                                  "conv_transpose2d")


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """3-d transposed convolution as ``torch.nn.functional.conv_transpose3d``."""
    return transposed_convolution(input, weight, bias, stride, padding, output_padding, groups, dilation, 3,
                                  "conv_transpose3d")


PUBLIC = ('conv1d', 'conv2d', 'conv3d', 'conv_transpose1d', 'conv_transpose2d', 'conv_transpose3d')
# what the family exports to `ops`
__all__ = ['ConvolutionBackward0', 'conv1d', 'conv2d', 'conv3d', 'conv_transpose1d', 'conv_transpose2d',
           'conv_transpose3d']
