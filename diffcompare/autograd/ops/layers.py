"""The fused ops of neural-network layers, recorded under PyTorch's node names (``nn.Linear``'s
``addmm`` is :mod:`.linalg`'s): ``max_pool2d``
(MaxPool2DWithIndicesBackward0), batch normalisation (NativeBatchNormBackward0) and the
losses ``mse_loss`` (MseLossBackward0) and ``binary_cross_entropy_with_logits``.

>>> from diffcompare import autograd as ag
>>> x = ag.ones(1, 1, 3, 3, requires_grad=True)
>>> y = ag.conv2d(x, ag.ones(1, 1, 2, 2))
>>> y, y.grad_fn.name()
(tensor([[[[4., 4.],
          [4., 4.]]]], grad_fn=<ConvolutionBackward0>), 'ConvolutionBackward0')
"""

from __future__ import annotations

import math

import numpy as np

from ..tensor import Tensor
from .dual import D
from .indexing import index_add_zeros
from .convolution import windows
from .recording import Op, apply, sum_to
from .reductions import mean


def _pair(value, name):
    if isinstance(value, (tuple, list)):
        if len(value) != 2:
            raise RuntimeError(f"expected {name} to be a single integer value or a list of 2 values to match the "
                               f"convolution dimensions, but got {name}={list(value)}")
        return tuple(int(v) for v in value)
    return (int(value), int(value))


# nn.Linear's node, AddmmBackward0, is linalg's addmm


# -- max pooling ------------------------------------------------------------------------------

class MaxPool2DWithIndicesBackward0(Op):
    """The input's elements at the windows' maxima; the gradient goes back to those places."""

    @staticmethod
    def forward(x, index, in_shape):
        return x[index]

    def backward(self, g):
        return (index_add_zeros(g, self.index, self.in_shape),)


MaxPool2DWithIndicesBackward0.tangent = "linear"


def _pool_size(size, k, s, p, d, ceil_mode):
    span = size + 2 * p - d * (k - 1) - 1
    out = (-(-span // s) if ceil_mode else span // s) + 1
    if ceil_mode and (out - 1) * s >= size + p:     # the last window must start inside the input
        out -= 1
    return out


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """2-d max pooling as ``torch.nn.functional.max_pool2d`` (NaN wins, as in PyTorch; ties
    go to the first position).

    >>> from diffcompare import autograd as ag
    >>> ag.max_pool2d(ag.arange(16.0).reshape(1, 4, 4), 2)
    tensor([[[ 5.,  7.],
             [13., 15.]]])
    """
    if input.ndim not in (3, 4):
        raise RuntimeError(f"non-empty 3D or 4D (batch mode) tensor expected for input, got {list(input.shape)}")
    kernel = _pair(kernel_size, "kernel_size")
    stride = kernel if stride is None or stride == [] or stride == () else _pair(stride, "stride")
    pad, dilation = _pair(padding, "padding"), _pair(dilation, "dilation")
    if pad[0] > kernel[0] // 2 or pad[1] > kernel[1] // 2:
        raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={pad[0]}, "
                           f"kernel_size={kernel[0]} and dilation={dilation[0]}")
    data = input._data
    h, w = data.shape[-2:]
    oh, ow = (_pool_size(n, k, s, p, d, ceil_mode) for n, k, s, p, d in zip((h, w), kernel, stride, pad, dilation))
    # pad with -inf: to the left by the padding, to the right as far as the last window reaches
    right = [max(0, (o - 1) * s + d * (k - 1) + 1 - n - p) for o, s, d, k, n, p in
             zip((oh, ow), stride, dilation, kernel, (h, w), pad)]
    lead = data.shape[:-2]
    flat = data.reshape((-1, 1) + (h, w))
    fill = -np.inf if data.dtype.kind == "f" else np.iinfo(data.dtype).min
    xp = np.pad(flat, ((0, 0), (0, 0), (pad[0], right[0]), (pad[1], right[1])), constant_values=fill)
    cols = windows(xp, kernel, stride, dilation)[:, 0, :oh, :ow].reshape(flat.shape[0], oh, ow, -1)
    pick = np.where(np.isnan(cols).any(axis=-1), np.isnan(cols).argmax(axis=-1), cols.argmax(axis=-1)) \
        if data.dtype.kind == "f" else cols.argmax(axis=-1)
    ki, kj = np.divmod(pick, kernel[1])
    rows = np.arange(oh).reshape(-1, 1) * stride[0] + ki * dilation[0] - pad[0]
    columns = np.arange(ow) * stride[1] + kj * dilation[1] - pad[1]
    plane = np.arange(flat.shape[0]).reshape(-1, 1, 1)
    index = tuple(np.broadcast_to(i, pick.shape) for i in (plane, rows, columns))
    index = tuple(i.reshape(lead + (oh, ow)) for i in np.unravel_index(
        np.ravel_multi_index(index, (flat.shape[0], h, w)), data.shape))
    out = apply(MaxPool2DWithIndicesBackward0, (input,), {"index": index, "in_shape": data.shape})
    if return_indices:
        return out, Tensor._make((index[-2] * w + index[-1]).astype(np.int64))
    return out


# -- average pooling --------------------------------------------------------------------------

class _SeparablePool(Op):
    """A pooling that averages over rectangles: ``rows @ x @ cols.T`` on the last two axes,
    with ``rows`` (OH, H) and ``cols`` (OW, W) holding each window's weights. Linear, so its
    VJP is the transposed product (an op itself, so that it differentiates again)."""
    transpose = None

    @staticmethod
    def forward(x, rows, cols):
        return rows @ x @ cols.T

    def backward(self, g):
        if isinstance(g, Tensor):
            return (apply(self.transpose, (g,), {"rows": self.rows, "cols": self.cols}),)
        return (self.rows.T @ g @ self.cols,)


class _SeparablePoolTransposed(Op):
    """The VJP of a :class:`_SeparablePool`: ``rows.T @ g @ cols``."""
    pool = None

    @staticmethod
    def forward(g, rows, cols):
        return rows.T @ g @ cols

    def backward(self, gg):
        if isinstance(gg, Tensor):
            return (apply(self.pool, (gg,), {"rows": self.rows, "cols": self.cols}),)
        return (self.rows @ gg @ self.cols.T,)


class AvgPool2DBackward0(_SeparablePool):
    """2-d average pooling (``avg_pool2d``)."""


class AvgPool2DBackwardBackward0(_SeparablePoolTransposed):
    pool = AvgPool2DBackward0


class AdaptiveAvgPool2DBackward0(_SeparablePool):
    """2-d adaptive average pooling (``adaptive_avg_pool2d``)."""


class AdaptiveAvgPool2DBackwardBackward0(_SeparablePoolTransposed):
    pool = AdaptiveAvgPool2DBackward0


AvgPool2DBackward0.transpose = AvgPool2DBackwardBackward0
AdaptiveAvgPool2DBackward0.transpose = AdaptiveAvgPool2DBackwardBackward0
for _cls in (AvgPool2DBackward0, AvgPool2DBackwardBackward0, AdaptiveAvgPool2DBackward0,
             AdaptiveAvgPool2DBackwardBackward0):
    _cls.tangent = "linear"
    _cls.batched_backward = _cls.backward


def _avg_weights(size, out, k, s, p, ceil_mode, count_include_pad, divisor, dtype):
    """The (out, size) window weights of one axis of ``avg_pool2d``, PyTorch's divisor rule:
    the window clipped to the padded input (or, without ``count_include_pad``, to the input)."""
    weights = np.zeros((out, size), dtype=dtype)
    for i in range(out):
        start = i * s - p
        end = min(start + k, size + p)
        lo, hi = max(start, 0), min(end, size)
        weights[i, lo:hi] = 1.0 / (divisor if divisor is not None else (end - start) if count_include_pad
                                   else (hi - lo))
    return weights


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """2-d average pooling as ``torch.nn.functional.avg_pool2d``, recorded as AvgPool2DBackward0.

    >>> from diffcompare import autograd as ag
    >>> ag.nn.functional.avg_pool2d(ag.arange(16.0).reshape(1, 4, 4), 2)
    tensor([[[ 2.5000,  4.5000],
             [10.5000, 12.5000]]])
    """
    if input.ndim not in (3, 4):
        raise RuntimeError(f"non-empty 3D or 4D (batch mode) tensor expected for input, got {list(input.shape)}")
    kernel = _pair(kernel_size, "kernel_size")
    stride = kernel if stride is None or stride == [] or stride == () else _pair(stride, "stride")
    pad = _pair(padding, "padding")
    if pad[0] > kernel[0] // 2 or pad[1] > kernel[1] // 2:
        raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={pad[0]}, "
                           f"kernel_size={kernel[0]} and dilation=1")
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    h, w = input.shape[-2:]
    # the divisor is a product of one factor per axis; an overriding one goes on the rows alone
    rows, cols = (_avg_weights(n, _pool_size(n, k, s, p, 1, ceil_mode), k, s, p, ceil_mode, count_include_pad,
                               divisor, input.dtype)
                  for n, k, s, p, divisor in zip((h, w), kernel, stride, pad, (divisor_override, divisor_override
                                                                              and 1)))
    return apply(AvgPool2DBackward0, (input,), {"rows": rows, "cols": cols})


def _adaptive_weights(size, out, dtype):
    weights = np.zeros((out, size), dtype=dtype)
    for i in range(out):
        lo, hi = (i * size) // out, -(-((i + 1) * size) // out)
        weights[i, lo:hi] = 1.0 / (hi - lo)
    return weights


def adaptive_avg_pool2d(input, output_size):
    """Average pooling to a given output size (``None`` keeps that axis), windows as in
    PyTorch (start ``floor(i H / OH)``, end ``ceil((i + 1) H / OH)``), recorded as
    AdaptiveAvgPool2DBackward0.

    >>> from diffcompare import autograd as ag
    >>> ag.nn.functional.adaptive_avg_pool2d(ag.arange(16.0).reshape(1, 4, 4), 1)
    tensor([[[7.5000]]])
    """
    if input.ndim not in (3, 4):
        raise RuntimeError(f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got {list(input.shape)}")
    size = output_size if isinstance(output_size, (tuple, list)) else (output_size, output_size)
    h, w = input.shape[-2:]
    size = tuple(n if o is None else int(o) for o, n in zip(size, (h, w)))
    if size == (1, 1):              # PyTorch takes the mean (MeanBackward1)
        return mean(input, (-2, -1), True)
    rows, cols = (_adaptive_weights(n, o, input.dtype) for n, o in zip((h, w), size))
    return apply(AdaptiveAvgPool2DBackward0, (input,), {"rows": rows, "cols": cols})


# -- batch normalisation ----------------------------------------------------------------------

class NativeBatchNormBackward0(Op):
    """(x - mean) / sqrt(var + eps) * weight + bias over the batch (and length) axes: with the
    batch's own statistics in training, the running ones in evaluation."""
    saves = (0, 1)

    @staticmethod
    def forward(x, weight, bias, mean, invstd, axes, training, eps):
        shape = (1, -1) + (1,) * (x.ndim - 2)
        y = (x - mean.reshape(shape)) * invstd.reshape(shape)
        if weight is not None:
            y = y * weight.reshape(shape)
        if bias is not None:
            y = y + bias.reshape(shape)
        return y

    def backward(self, g, x, weight):
        axes, shape = self.axes, (1, -1) + (1,) * (x.ndim - 2)
        if self.training:
            # the statistics depend on x: recomputed from it, so that the rule differentiates again
            mean = D.mean(x, axes, True)
            centred = x - mean
            invstd = 1 / D.sqrt(D.mean(centred * centred, axes, True) + self.eps)
        else:
            centred = x - self.mean.reshape(shape)
            invstd = self.invstd.reshape(shape)
        xhat = centred * invstd
        gx = gw = gb = None
        if self.needs(0):
            scale = invstd if weight is None else invstd * weight.reshape(shape)
            if self.training:
                count = x.size if isinstance(x, np.ndarray) else x.numel()
                count //= x.shape[1]
                gx = scale * (g - g.sum(axis=axes, keepdims=True) / count
                              - xhat * (g * xhat).sum(axis=axes, keepdims=True) / count)
            else:
                gx = g * scale
        if self.needs(1):
            gw = (g * xhat).sum(axis=axes)
        if self.needs(2):
            gb = g.sum(axis=axes)
        return gx, gw, gb


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5):
    """Batch normalisation as ``torch.nn.functional.batch_norm``: in training the batch's
    statistics normalise and update ``running_mean``/``running_var`` in place (the variance
    unbiased, as PyTorch keeps it); in evaluation the running ones normalise.

    >>> from diffcompare import autograd as ag
    >>> import diffcompare.autograd.nn.functional as F
    >>> F.batch_norm(ag.tensor([[1.0], [3.0]]), None, None, training=True, eps=0.0)
    tensor([[-1.],
            [ 1.]])
    """
    data = input._data
    axes = (0,) + tuple(range(2, data.ndim))
    count = data.size // data.shape[1]
    if training:
        if count <= 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input size "
                             f"{list(input.shape)}")
        mean = data.mean(axis=axes)
        var = data.var(axis=axes)
        if running_mean is not None:
            running_mean._data[...] = (1 - momentum) * running_mean._data + momentum * mean
            running_mean._bump()
        if running_var is not None:
            running_var._data[...] = (1 - momentum) * running_var._data + momentum * var * count / (count - 1)
            running_var._bump()
    else:
        mean, var = running_mean._data, running_var._data
    invstd = 1 / np.sqrt(var + eps)
    return apply(NativeBatchNormBackward0, (input, weight, bias),
                 {"mean": mean, "invstd": invstd, "axes": axes, "training": bool(training), "eps": eps})


# -- losses -----------------------------------------------------------------------------------

REDUCTIONS = ("mean", "sum", "none")


def _check_reduction(reduction):
    if reduction not in REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")


def _reduce(loss, reduction):
    if reduction == "none":
        return loss
    return np.asarray(loss.mean() if reduction == "mean" else loss.sum())


class MseLossBackward0(Op):
    """Mean (or sum, or none) of the squared differences."""
    saves = (0, 1)

    @staticmethod
    def forward(x, target, reduction):
        d = x - target
        return _reduce(d * d, reduction)

    def backward(self, g, x, target):
        d = x - target
        scale = 2 / math.prod(d.shape) if self.reduction == "mean" else 2
        grad = d * (g * scale)
        return (sum_to(grad, x.shape) if self.needs(0) else None,
                sum_to(-grad, target.shape) if self.needs(1) else None)


def mse_loss(input, target, reduction="mean"):
    """The squared error ``(input - target)²``, averaged (or summed, or not reduced).

    >>> from diffcompare import autograd as ag
    >>> import diffcompare.autograd.nn.functional as F
    >>> F.mse_loss(ag.tensor([1.0, 3.0]), ag.tensor([0.0, 0.0]))
    tensor(5.)
    """
    _check_reduction(reduction)
    return apply(MseLossBackward0, (input, target), {"reduction": reduction})


class BinaryCrossEntropyWithLogitsBackward0(Op):
    """-w [y log σ(x) + (1 - y) log(1 - σ(x))] (with ``pos_weight`` p: the first term times p),
    computed stably as (1 - y) x + (1 + (p - 1) y) softplus(-x)."""
    saves = (0, 1)

    @staticmethod
    def forward(x, target, weight, pos_weight, reduction):
        softplus = np.log1p(np.exp(-np.abs(x))) + np.maximum(-x, 0)
        log_weight = 1 if pos_weight is None else (pos_weight - 1) * target + 1
        loss = (1 - target) * x + log_weight * softplus
        if weight is not None:
            loss = loss * weight
        return _reduce(loss, reduction)

    def backward(self, g, x, target):
        count = math.prod(np.broadcast_shapes(x.shape, target.shape))
        if self.reduction == "mean":
            g = g / count
        if self.weight is not None:
            g = g * self.weight
        gx = gt = None
        p = self.pos_weight
        if self.needs(0):
            log_weight = 1 if p is None else (p - 1) * target + 1
            gx = sum_to(g * ((1 - target) - log_weight * D.sigmoid(-x)), x.shape)
        if self.needs(1):
            slope = -x if p is None else -x - (p - 1) * D.log(D.sigmoid(x))
            gt = sum_to(g * slope, target.shape)
        return gx, gt


def binary_cross_entropy_with_logits(input, target, weight=None, reduction="mean", pos_weight=None):
    """Binary cross-entropy of logits ``input`` against probabilities ``target``.

    >>> from diffcompare import autograd as ag
    >>> import diffcompare.autograd.nn.functional as F
    >>> round(F.binary_cross_entropy_with_logits(ag.tensor([0.0]), ag.tensor([1.0])).item(), 6)   # log 2
    0.693147
    """
    _check_reduction(reduction)
    if input.shape != target.shape:
        raise ValueError(f"Target size ({tuple(target.shape)}) must be the same as input size "
                         f"({tuple(input.shape)})".replace("(", "torch.Size([").replace(")", "])"))
    weight = None if weight is None else np.asarray(weight._data if isinstance(weight, Tensor) else weight)
    pos_weight = None if pos_weight is None else np.asarray(
        pos_weight._data if isinstance(pos_weight, Tensor) else pos_weight)
    return apply(BinaryCrossEntropyWithLogitsBackward0, (input, target),
                 {"weight": weight, "pos_weight": pos_weight, "reduction": reduction})



class NativeLayerNormBackward0(Op):
    """(x - mean) / sqrt(var + eps) over the last ``len(normalized_shape)`` axes, times
    ``weight`` plus ``bias`` (either may be None)."""
    saves = (0, 1)

    @staticmethod
    def forward(x, weight, bias, axes=(-1,), eps=1e-5):
        mu = x.mean(axis=axes, keepdims=True)
        out = (x - mu) / np.sqrt(((x - mu) ** 2).mean(axis=axes, keepdims=True) + eps)
        if weight is not None:
            out = out * weight
        if bias is not None:
            out = out + bias
        return out.astype(x.dtype)

    def backward(self, g, x, weight):
        axes, n = self.axes, math.prod(x.shape[a] for a in self.axes)
        centred = x - x.sum(axis=axes, keepdims=True) * (1.0 / n)
        rstd = 1 / D.sqrt((centred * centred).sum(axis=axes, keepdims=True) * (1.0 / n) + self.eps)
        xhat = centred * rstd
        lead = tuple(range(x.ndim - len(axes)))
        gxhat = g if weight is None else g * weight
        gx = rstd * (gxhat - gxhat.sum(axis=axes, keepdims=True) * (1.0 / n)
                     - xhat * (gxhat * xhat).sum(axis=axes, keepdims=True) * (1.0 / n)) if self.needs(0) else None
        gw = (g * xhat).sum(axis=lead) if weight is not None and self.needs(1) else None
        gb = g.sum(axis=lead) if self.needs(2) else None
        return gx, gw, gb


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    normalized_shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    k = len(normalized_shape)
    if tuple(input.shape[input.ndim - k:]) != normalized_shape or input.ndim < k:
        raise RuntimeError(f"Given normalized_shape={list(normalized_shape)}, expected input with shape "
                           f"[*, {', '.join(map(str, normalized_shape))}], but got input of size{list(input.shape)}")
    axes = tuple(range(input.ndim - k, input.ndim))
    return apply(NativeLayerNormBackward0, (input, weight, bias), {"axes": axes, "eps": eps})


class EmbeddingBackward0(Op):
    """Rows of ``weight`` picked by integer ``indices``; the gradient of a row is the sum of the
    gradients of its picks (none for ``padding_idx``)."""

    @staticmethod
    def forward(weight, indices, padding_idx=None, num_weights_shape=None):
        return weight[indices]

    def backward(self, g):
        indices = self.indices
        if self.padding_idx is not None:
            keep = indices != self.padding_idx
            indices, g = indices[keep], g[keep] if not isinstance(g, Tensor) else g[Tensor._make(keep)]
        return (index_add_zeros(g, (indices,), self.num_weights_shape),)


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
              sparse=False):
    indices = np.asarray(input._data if isinstance(input, Tensor) else input)
    if indices.dtype.kind not in "iu":
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got torch.{'DoubleTensor' if indices.dtype == np.float64 else indices.dtype} "
                           "instead (while checking arguments for embedding)")
    if padding_idx is not None and padding_idx < 0:
        padding_idx += weight.shape[0]
    if max_norm is not None:
        rows = np.unique(indices)
        norms = np.linalg.norm(weight._data[rows], ord=norm_type, axis=1)
        scale = np.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
        weight._data[rows] *= scale[:, None].astype(weight._data.dtype)
    return apply(EmbeddingBackward0, (weight,), {"indices": indices, "padding_idx": padding_idx,
                                                 "num_weights_shape": tuple(weight.shape)})



def _pad_widths(ndim, pad):
    """PyTorch's pad list (last dimension first, (left, right) pairs) as per-dimension pairs."""
    widths = [(0, 0)] * ndim
    for k in range(len(pad) // 2):
        widths[ndim - 1 - k] = (int(pad[2 * k]), int(pad[2 * k + 1]))
    return widths


def _constant_pad(a, pad, value):
    """``a`` padded with ``value`` (a negative width crops), on arrays."""
    widths = _pad_widths(a.ndim, pad)
    crop = tuple(slice(-lo if lo < 0 else 0, n + hi if hi < 0 else n) for (lo, hi), n in zip(widths, a.shape))
    a = a[crop]
    return np.pad(a, [(max(lo, 0), max(hi, 0)) for lo, hi in widths], constant_values=value)


class ConstantPadNdBackward0(Op):
    """Constant padding; its gradient is g with the padding taken off (and zeros where the
    input was cropped): the same padding, negated."""

    @staticmethod
    def forward(x, pad, value):
        return _constant_pad(np.asarray(x), pad, value)

    def backward(self, g):
        back = [-w for w in self.pad]
        if isinstance(g, Tensor):
            return (constant_pad_nd(g, back, 0),)
        return (_constant_pad(g, back, 0),)


def constant_pad_nd(input, pad, value=0):
    """``input`` padded by ``pad`` (last dimension first, (left, right) pairs) with ``value``."""
    if len(pad) % 2:
        raise RuntimeError("Length of pad must be even but instead it equals " + str(len(pad)))
    if len(pad) // 2 > input.ndim:
        raise RuntimeError(f"Length of pad should be no more than twice the number of dimensions of the input. "
                           f"Pad length is {len(pad)} while the input has {input.ndim} dimensions.")
    return apply(ConstantPadNdBackward0, (input,), {"pad": tuple(int(w) for w in pad), "value": value})


def _shuffle(a, r, up):
    """Pixel shuffle (``up``: channels into space by ``r``) or its inverse, on arrays or tensors."""
    *lead, c, h, w = a.shape
    n = len(lead)
    if up:
        a = a.reshape(*lead, c // (r * r), r, r, h, w)
        a = D.permute(a, tuple(range(n)) + (n, n + 3, n + 1, n + 4, n + 2))
        return a.reshape(*lead, c // (r * r), h * r, w * r)
    a = a.reshape(*lead, c, h // r, r, w // r, r)
    a = D.permute(a, tuple(range(n)) + (n, n + 2, n + 4, n + 1, n + 3))
    return a.reshape(*lead, c * r * r, h // r, w // r)


class PixelShuffleBackward0(Op):
    """(*, C r^2, H, W) -> (*, C, H r, W r); the gradient is the inverse rearrangement of g."""

    @staticmethod
    def forward(x, r):
        return np.ascontiguousarray(_shuffle(np.asarray(x), r, True))

    def backward(self, g):
        return (_shuffle(g, self.r, False),)


class PixelUnshuffleBackward0(Op):
    """(*, C, H r, W r) -> (*, C r^2, H, W)."""

    @staticmethod
    def forward(x, r):
        return np.ascontiguousarray(_shuffle(np.asarray(x), r, False))

    def backward(self, g):
        return (_shuffle(g, self.r, True),)


def pixel_shuffle(input, upscale_factor):
    """Channels rearranged into an ``upscale_factor`` times larger image."""
    r = int(upscale_factor)
    if input.ndim < 3:
        raise RuntimeError(f"pixel_shuffle expects input to have at least 3 dimensions, but got input with "
                           f"{input.ndim} dimension(s)")
    if input.shape[-3] % (r * r):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
                           f"upscale_factor, but input.size(-3)={input.shape[-3]} is not divisible by {r * r}")
    return apply(PixelShuffleBackward0, (input,), {"r": r})


def pixel_unshuffle(input, downscale_factor):
    """An image folded into ``downscale_factor`` squared times more channels."""
    r = int(downscale_factor)
    if input.ndim < 3:
        raise RuntimeError(f"pixel_unshuffle expects input to have at least 3 dimensions, but got input with "
                           f"{input.ndim} dimension(s)")
    if input.shape[-2] % r or input.shape[-1] % r:
        raise RuntimeError(f"pixel_unshuffle expects height and width to be divisible by downscale_factor, but "
                           f"input.size(-2)={input.shape[-2]} and input.size(-1)={input.shape[-1]}")
    return apply(PixelUnshuffleBackward0, (input,), {"r": r})

# the torch-level functions of this family (`ag.<name>`, as `torch.<name>`)
PUBLIC = ('constant_pad_nd', 'embedding', 'layer_norm', 'max_pool2d', 'pixel_shuffle', 'pixel_unshuffle')
# what the family exports to `ops`
__all__ = ['AdaptiveAvgPool2DBackward0', 'AdaptiveAvgPool2DBackwardBackward0', 'AvgPool2DBackward0',
           'AvgPool2DBackwardBackward0', 'BinaryCrossEntropyWithLogitsBackward0',
           'MaxPool2DWithIndicesBackward0', 'MseLossBackward0', 'NativeBatchNormBackward0', 'adaptive_avg_pool2d',
           'avg_pool2d', 'batch_norm',
           'binary_cross_entropy_with_logits', 'max_pool2d', 'mse_loss', 'NativeLayerNormBackward0',
           'layer_norm', 'EmbeddingBackward0', 'embedding', 'ConstantPadNdBackward0', 'PixelShuffleBackward0',
           'PixelUnshuffleBackward0', 'constant_pad_nd', 'pixel_shuffle', 'pixel_unshuffle']
