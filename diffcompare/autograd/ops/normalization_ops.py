"""Normalisations beside batch and layer normalisation (:mod:`.layers`), recorded as PyTorch
records them: group normalisation (one fused node, ``NativeGroupNormBackward0``), and the ones
PyTorch composes of other ops — instance normalisation (batch normalisation of a (1, N C, ...)
view), RMS normalisation and local response normalisation.

>>> from diffcompare import autograd as ag
>>> x = ag.tensor([[1.0, 3.0, 0.0, 4.0]], requires_grad=True)
>>> y = ag.group_norm(x, 2, eps=0.0)
>>> y, y.grad_fn.name()
(tensor([[-1.,  1., -1.,  1.]], grad_fn=<NativeGroupNormBackward0>), 'NativeGroupNormBackward0')
>>> ag.rms_norm(ag.tensor([3.0, 4.0]), [2], eps=0.0)           # x / sqrt(mean(x²))
tensor([0.8485, 1.1314])
"""

from __future__ import annotations

import math

import numpy as np

from ..tensor import Tensor
from .dual import D
from .layers import batch_norm
from .pooling import avg_pool2d, avg_pool3d
from .layers import constant_pad_nd
from .recording import Op, apply
from .reductions import mean


class NativeGroupNormBackward0(Op):
    """(x - mean) / sqrt(var + eps) within each of ``groups`` groups of channels (statistics over
    a group's channels and places, per sample), times ``weight`` plus ``bias`` per channel."""
    saves = (0, 1)

    @staticmethod
    def forward(x, weight, bias, groups, eps):
        n, c = x.shape[:2]
        xg = x.reshape(n, groups, -1)
        mu = xg.mean(axis=2, keepdims=True)
        var = ((xg - mu) ** 2).mean(axis=2, keepdims=True)
        y = ((xg - mu) / np.sqrt(var + eps)).reshape(x.shape)
        shape = (1, c) + (1,) * (x.ndim - 2)
        if weight is not None:
            y = y * weight.reshape(shape)
        if bias is not None:
            y = y + bias.reshape(shape)
        return y

    def backward(self, g, x, weight):
        n, c = x.shape[:2]
        groups, shape = self.groups, (1, c) + (1,) * (x.ndim - 2)
        xg = x.reshape(n, groups, -1)
        m = xg.shape[2]
        centred = xg - xg.sum(axis=2, keepdims=True) * (1.0 / m)
        rstd = 1 / D.sqrt((centred * centred).sum(axis=2, keepdims=True) * (1.0 / m) + self.eps)
        xhat = centred * rstd
        channel_axes = (0,) + tuple(range(2, x.ndim))
        gx = gw = gb = None
        if self.needs(0):
            gxhat = (g if weight is None else g * weight.reshape(shape)).reshape(n, groups, -1)
            gx = (rstd * (gxhat - gxhat.sum(axis=2, keepdims=True) * (1.0 / m)
                          - xhat * (gxhat * xhat).sum(axis=2, keepdims=True) * (1.0 / m))).reshape(x.shape)
        if self.needs(1):
            gw = (g * xhat.reshape(x.shape)).sum(axis=channel_axes)
        if self.needs(2):
            gb = g.sum(axis=channel_axes)
        return gx, gw, gb


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """Group normalisation as ``torch.nn.functional.group_norm`` (NativeGroupNormBackward0):
    the channels of (N, C, *) split into ``num_groups`` groups, each normalised per sample."""
    if input.ndim < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.ndim}")
    c = input.shape[1]
    if c % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, but got input of "
                           f"shape {list(input.shape)} and num_groups={num_groups}")
    size = [input.shape[0] * c // num_groups, num_groups] + list(input.shape[2:])
    if size[0] * math.prod(size[2:]) == 1:       # PyTorch's _verify_batch_size
        raise ValueError(f"Expected more than 1 value per channel when training, got input size {size}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t.ndim != 1 or t.shape[0] != c):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of channels in input, "
                               f"but got {name} of shape {list(t.shape)} and input of shape {list(input.shape)}")
    return apply(NativeGroupNormBackward0, (input, weight, bias), {"groups": int(num_groups), "eps": eps})


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                  momentum=0.1, eps=1e-5):
    """Instance normalisation as PyTorch computes it: batch normalisation of the (1, N C, *) view
    (weight, bias and running statistics repeated N times), viewed back; the running statistics
    become the mean over the batch of the repeated ones."""
    if use_input_stats and math.prod(input.shape[2:]) <= 1:
        raise ValueError(f"Expected more than 1 spatial element when training, got input size "
                         f"{list(input.shape)}")
    b, c = input.shape[:2]
    repeated = [None if t is None else t.repeat(b) for t in (weight, bias)]
    stats = [None if t is None else Tensor._make(np.tile(t._data, b)) for t in (running_mean, running_var)]
    out = batch_norm(input.reshape((1, b * c) + tuple(input.shape[2:])), stats[0], stats[1], repeated[0],
                     repeated[1], use_input_stats, momentum, eps)
    for kept, new in zip((running_mean, running_var), stats):
        if kept is not None:
            kept._data[...] = new._data.reshape(b, c).mean(axis=0)
            kept._bump()
    return out.reshape(input.shape)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """RMS normalisation as PyTorch composes it: ``input * rsqrt(mean(input², trailing axes) +
    eps)`` (times ``weight``), ``eps`` by default the dtype's machine epsilon."""
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    k = len(shape)
    if input.ndim < k or tuple(input.shape[input.ndim - k:]) != shape:
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape "
                           f"[*, {', '.join(map(str, shape))}], but got input of size{list(input.shape)}")
    if eps is None:
        eps = float(np.finfo(input.dtype).eps)
    dims = tuple(range(input.ndim - k, input.ndim))
    out = input * (mean(input ** 2, dims, True) + eps).rsqrt()
    return out if weight is None else out * weight


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """Local response normalisation as ``torch.nn.functional.local_response_norm`` composes it:
    each value divided by ``(k + alpha * mean of the squares of the `size` neighbouring channels)
    ** beta``."""
    dim = input.ndim
    if dim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality input (got {dim} dimensions)")
    if input.numel() == 0:
        return input
    div = input * input
    if dim == 3:
        div = div.unsqueeze(1)
        div = constant_pad_nd(div, (0, 0, size // 2, (size - 1) // 2))
        div = avg_pool2d(div, (size, 1), stride=1).squeeze(1)
    else:
        sizes = tuple(input.shape)
        div = div.view(sizes[0], 1, sizes[1], sizes[2], -1)
        div = constant_pad_nd(div, (0, 0, 0, 0, size // 2, (size - 1) // 2))
        div = avg_pool3d(div, (size, 1, 1), stride=1).squeeze(1)
        div = div.view(sizes)
    div = (div * alpha + k) ** beta
    return input / div


PUBLIC = ('group_norm', 'instance_norm', 'rms_norm')
__all__ = ['NativeGroupNormBackward0', 'group_norm', 'instance_norm', 'local_response_norm', 'rms_norm']
