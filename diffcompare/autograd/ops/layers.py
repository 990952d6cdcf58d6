"""The fused ops of neural-network layers, recorded under PyTorch's node names (``nn.Linear``'s
``addmm`` is :mod:`.linalg`'s, pooling :mod:`.pooling`'s): batch and layer normalisation
(NativeBatchNormBackward0, NativeLayerNormBackward0), embeddings and embedding bags (EmbeddingBackward0,
EmbeddingBagBackward0), constant padding, pixel shuffles, and the losses ``mse_loss`` (MseLossBackward0)
and ``binary_cross_entropy_with_logits``.

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
from .recording import Op, apply, sum_to
from .reductions import reduction_name


# nn.Linear's node, AddmmBackward0, is linalg's addmm; pooling is :mod:`.pooling`'s


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
    reduction = reduction_name(reduction)
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
    reduction = reduction_name(reduction)
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


class EmbeddingBagBackward0(Op):
    """Each bag of rows of ``weight`` reduced to one row: summed (times ``per_sample_weights``),
    averaged or maximised per column; ``padding_idx`` rows left out of every bag."""
    saves = (0, 1)

    @staticmethod
    def forward(weight, psw, indices, bag, keep, counts, mode, arg):
        out = np.zeros((len(counts), weight.shape[1]), dtype=weight.dtype)
        if mode == "max":
            rows = np.maximum(arg, 0)
            return np.where(arg >= 0, weight[rows, np.arange(weight.shape[1])], 0).astype(weight.dtype)
        rows = weight[indices[keep]]
        if psw is not None:
            rows = rows * psw[keep, None]
        np.add.at(out, bag[keep], rows)
        if mode == "mean":
            out /= np.maximum(counts, 1)[:, None]
        return out

    def backward(self, g, weight, psw):
        if isinstance(g, Tensor):
            raise NotImplementedError("the double backward of embedding_bag is not implemented")
        gw = gp = None
        if self.needs(0):
            gw = np.zeros_like(weight)
            if self.mode == "max":
                cols = np.broadcast_to(np.arange(weight.shape[1]), self.arg.shape)
                found = self.arg >= 0
                np.add.at(gw, (self.arg[found], cols[found]), g[found])
            else:
                keep = self.keep
                rows = g[self.bag[keep]]
                if self.mode == "mean":
                    rows = rows / np.maximum(self.counts, 1)[self.bag[keep], None]
                if psw is not None:
                    rows = rows * psw[keep, None]
                np.add.at(gw, self.indices[keep], rows)
        if psw is not None and self.needs(1):
            gp = np.where(self.keep, (g[self.bag] * weight[self.indices]).sum(axis=1), 0).astype(psw.dtype)
        return gw, gp


def embedding_bag(weight, indices, offsets, mode="mean", per_sample_weights=None, include_last_offset=False,
                  padding_idx=None):
    """``torch.embedding_bag`` on a 1-d ``indices`` split into bags at ``offsets``: one row per
    bag (EmbeddingBagBackward0); an empty bag gives zeros."""
    idx = np.asarray(indices._data if isinstance(indices, Tensor) else indices).astype(np.int64).reshape(-1)
    starts = np.asarray(offsets._data if isinstance(offsets, Tensor) else offsets).astype(np.int64).reshape(-1)
    if idx.size and (idx.min() < 0 or idx.max() >= weight.shape[0]):
        bad = int(idx[(idx < 0) | (idx >= weight.shape[0])][0])
        raise IndexError(f"index out of range in self (index {bad})")
    if include_last_offset:
        if starts.size < 1:
            raise RuntimeError("include_last_offset: number of offset should be at least 1")
        starts = starts[:-1]            # PyTorch's CPU kernel: the last bag still runs to the end of the input
    if starts.size and starts[0] != 0:
        raise RuntimeError(f"offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from "
                           f"position 0. However, got {starts[0]}")
    n_bags = starts.size
    position = np.arange(idx.size)
    bag = np.searchsorted(starts, position, side="right") - 1
    keep = np.ones(idx.size, dtype=bool)
    if padding_idx is not None:
        padding_idx = padding_idx % weight.shape[0]
        keep &= idx != padding_idx
    counts = np.bincount(bag[keep], minlength=n_bags)[:n_bags]
    arg = None
    if mode == "max":
        w = weight._data
        arg = np.full((n_bags, w.shape[1]), -1, dtype=np.int64)
        best = np.zeros((n_bags, w.shape[1]), dtype=w.dtype)
        for p in np.flatnonzero(keep):
            b, row = bag[p], w[idx[p]]
            better = (arg[b] < 0) | (row > best[b])
            best[b] = np.where(better, row, best[b])
            arg[b] = np.where(better, idx[p], arg[b])
    psw_data = None if per_sample_weights is None else per_sample_weights
    return apply(EmbeddingBagBackward0, (weight, psw_data),
                 {"indices": idx, "bag": bag, "keep": keep, "counts": counts, "mode": mode, "arg": arg})


# the torch-level functions of this family (`ag.<name>`, as `torch.<name>`)
PUBLIC = ('constant_pad_nd', 'layer_norm', 'pixel_shuffle', 'pixel_unshuffle')
# what the family exports to `ops`
__all__ = ['BinaryCrossEntropyWithLogitsBackward0', 'MseLossBackward0', 'NativeBatchNormBackward0', 'batch_norm',
           'binary_cross_entropy_with_logits', 'mse_loss', 'NativeLayerNormBackward0',
           'layer_norm', 'EmbeddingBackward0', 'embedding', 'ConstantPadNdBackward0', 'PixelShuffleBackward0',
           'PixelUnshuffleBackward0', 'constant_pad_nd', 'pixel_shuffle', 'pixel_unshuffle', 'EmbeddingBagBackward0',
           'embedding_bag']
