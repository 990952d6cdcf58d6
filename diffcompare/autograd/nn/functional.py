"""``torch.nn.functional``'s part that the engine has: activations, softmax, dropout, the
layers' functions (``linear``, ``conv2d``, ``max_pool2d``, ``batch_norm``) and the losses, so
that ``import torch.nn.functional as F`` ports as ``import diffcompare.autograd.nn.functional as F``.
Each records the node PyTorch records (``AddmmBackward0``, ``MseLossBackward0``, ...).

>>> from diffcompare import autograd as ag
>>> import diffcompare.autograd.nn.functional as F
>>> F.mse_loss(ag.tensor([1.0, 3.0]), ag.tensor([0.0, 0.0])).item()      # (1 + 9) / 2
5.0
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from .. import ops
from ..tensor import Tensor, empty_like, ones_like, zeros_like
from ..ops import (adaptive_avg_pool2d, avg_pool2d, batch_norm,  # noqa: F401
                   conv1d, conv2d, conv3d, conv_transpose1d, conv_transpose2d, conv_transpose3d, embedding,
                   layer_norm, max_pool2d, pixel_shuffle, pixel_unshuffle)
from ..ops import (adaptive_avg_pool1d, adaptive_avg_pool3d, adaptive_max_pool1d, adaptive_max_pool2d,  # noqa: F401
                   adaptive_max_pool3d, avg_pool1d, avg_pool3d, channel_shuffle, ctc_loss, fractional_max_pool2d,
                   fractional_max_pool3d, group_norm, instance_norm, interpolate, local_response_norm, lp_pool1d,
                   lp_pool2d, lp_pool3d, max_pool1d, max_pool3d, max_unpool1d, max_unpool2d, max_unpool3d,
                   native_channel_shuffle, rms_norm, upsample, upsample_bilinear, upsample_nearest)
from ..ops import col2im as fold, im2col as unfold  # noqa: F401
from ..ops import pdist  # noqa: F401  (torch.nn.functional.pdist)
from ..ops.reductions import reduction_name

tanh = ops.tanh
sigmoid = ops.sigmoid
softplus = ops.softplus


def _softmax_dim(ndim, stacklevel):
    warnings.warn("Implicit dimension choice for softmax has been deprecated. Change the call to include dim=X "
                  "as an argument.", UserWarning, stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """``exp(input)`` normalised along ``dim`` (SoftmaxBackward0); without ``dim``, PyTorch's
    implicit choice and its deprecation warning."""
    if dim is None:
        dim = _softmax_dim(input.ndim, _stacklevel)
    if dtype is not None:
        input = input.to(dtype)
    return ops.softmax(input, dim)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """``log(softmax(input, dim))`` computed stably (LogSoftmaxBackward0)."""
    if dim is None:
        dim = _softmax_dim(input.ndim, _stacklevel)
    if dtype is not None:
        input = input.to(dtype)
    return ops.log_softmax(input, dim)


def _legacy_reduction(size_average, reduce, reduction, named=True):
    """``reduction`` (``reduction_name``'s reading of it, unless ``named`` is False: the losses
    that check the name themselves), or what PyTorch's deprecated ``size_average``/``reduce``
    make of it when either is given (with PyTorch's warning)."""
    if size_average is None and reduce is None:
        return reduction_name(reduction, stacklevel=4) if named else reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    legacy = "none" if not reduce else "mean" if size_average else "sum"
    warnings.warn(f"size_average and reduce args will be deprecated, please use reduction='{legacy}' instead.",
                  UserWarning, stacklevel=3)
    return legacy


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    """Negative log-likelihood of log-probabilities ``input`` (N, C) or (C,) at the class
    indices ``target``, weighted per class, ``ignore_index`` left out (NllLossBackward0).

    >>> from diffcompare import autograd as ag
    >>> import diffcompare.autograd.nn.functional as F
    >>> F.nll_loss(ag.tensor([[-1.0, -2.0], [-3.0, -4.0]]), ag.tensor([1, 0]))
    tensor(2.5000)
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if input.ndim < 3:
        return ops.nll_loss(input, target, reduction, weight, ignore_index)
    target = np.asarray(target._data if isinstance(target, Tensor) else target)
    if input.ndim == 4:
        if target.ndim != 3:
            raise RuntimeError(f"only batches of spatial targets supported (3D tensors) but got targets of "
                               f"dimension: {target.ndim}")
        return ops.nll_loss2d(input, target, reduction, weight, ignore_index)
    # (N, C, d1, ...) other than 4-d: through a (N, C, 1, d1*...) view, as PyTorch
    n, c = input.shape[:2]
    if target.shape != (n,) + input.shape[2:]:
        raise RuntimeError(f"Expected target size {[n, *input.shape[2:]]}, got {list(target.shape)}")
    out = ops.nll_loss2d(input.reshape(n, c, 1, -1), target.reshape(n, 1, -1), reduction, weight, ignore_index)
    return out.reshape((n,) + input.shape[2:]) if reduction == "none" else out


def _reduce(loss, reduction):
    reduction = reduction_name(reduction, stacklevel=4)
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def _as_tensor(value, like):
    return value if isinstance(value, Tensor) else Tensor._make(np.asarray(value, dtype=like.dtype))


def linear(input, weight, bias=None):
    """``input @ weight.T + bias``, recorded as PyTorch does: AddmmBackward0 for a matrix input
    with a bias (viewed to and from a matrix for other ranks), MmBackward0 without one.

    >>> from diffcompare import autograd as ag
    >>> import diffcompare.autograd.nn.functional as F
    >>> F.linear(ag.ones(2, 3, requires_grad=True), ag.ones(4, 3), ag.zeros(4)).grad_fn.name()
    'AddmmBackward0'
    """
    if input.shape[-1] != weight.shape[-1]:
        rows = "x".join(map(str, input.shape[:-1] or (1,)))
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({rows}x{input.shape[-1]} and "
                           f"{weight.shape[-1]}x{weight.shape[0]})")
    if bias is None:
        return ops.matmul(input, ops.t(weight))
    if input.ndim == 2:
        return ops.addmm(bias, input, ops.t(weight))
    out = ops.addmm(bias, ops.reshape(input, (-1, input.shape[-1])), ops.t(weight))
    return ops.reshape(out, input.shape[:-1] + (weight.shape[0],))


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """The mean (or sum, or none) of ``(input - target)²``, recorded as MseLossBackward0; a target
    of another shape is broadcast, with PyTorch's warning. With ``weight`` (input's shape) each
    squared error is weighted and the mean divides by the weights' sum, as PyTorch 2.13."""
    target = _as_tensor(target, input)
    if input.shape != target.shape:
        warnings.warn(f"Using a target size ({_size(target.shape)}) that is different to the input size "
                      f"({_size(input.shape)}). This will likely lead to incorrect results due to broadcasting. "
                      "Please ensure they have the same size.", UserWarning, stacklevel=2)
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if weight is None:
        return ops.mse_loss(input, target, reduction)
    if weight.shape != input.shape:
        raise ValueError("Weights and input must have the same size.")
    expanded_input, expanded_target = ops.broadcast_tensors(input, target)
    weighted = ops.pow(expanded_input - expanded_target, 2) * weight
    if reduction == "none":
        return weighted
    if reduction == "sum":
        return ops.sum(weighted)
    if reduction == "mean":
        return ops.sum(weighted) / ops.sum(weight)
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None, reduction="mean",
                                     pos_weight=None):
    """Binary cross-entropy of logits against ``target`` (BinaryCrossEntropyWithLogitsBackward0),
    with PyTorch's arguments in PyTorch's order."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    return ops.binary_cross_entropy_with_logits(input, target, weight, reduction, pos_weight)


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """``input`` divided by its ``p``-norm along ``dim`` (at least ``eps``), recorded as PyTorch
    composes it: NormBackward1, ClampMinBackward0, ExpandBackward0, DivBackward0.

    >>> from diffcompare import autograd as ag
    >>> ag.nn.functional.normalize(ag.tensor([[3.0, 4.0]]))
    tensor([[0.6000, 0.8000]])
    """
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    return input / denom if out is None else ops.div(input, denom, out=out)


def _size(shape):
    return f"torch.Size({list(shape)})"


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
                  label_smoothing=0.0):
    """Cross-entropy of logits ``input`` (N, C) against class indices (N,) or probabilities (N, C),
    recorded as PyTorch does: LogSoftmaxBackward0 then NllLossBackward0; with ``label_smoothing``
    the targets are mixed with the uniform distribution (PyTorch's
    ``cross_entropy_loss_label_smoothing``)."""
    if label_smoothing > 1.0:           # PyTorch checks the upper end only; <= 0 smooths nothing
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    reduction = _legacy_reduction(size_average, reduce, reduction)
    class_dim = 0 if input.ndim == 1 else 1
    logp = ops.log_softmax(input, dim=class_dim)
    target_data = target._data if isinstance(target, Tensor) else np.asarray(target)
    if target_data.dtype.kind in "iu":
        nll = nll_loss(logp, target_data, weight, ignore_index=ignore_index, reduction=reduction)
        if label_smoothing <= 0:
            return nll
        return _smoothed(nll, logp, target_data, weight, ignore_index, reduction, label_smoothing, class_dim)
    reduction = reduction_name(reduction)
    if target_data.shape != tuple(input.shape):
        raise RuntimeError(f"Expected floating point type target {list(target_data.shape)} to have the same "
                           f"shape as input {list(input.shape)}")
    target = target if isinstance(target, Tensor) else Tensor._make(target_data.astype(input.dtype))
    if label_smoothing > 0:
        target = target * (1 - label_smoothing) + label_smoothing / input.shape[class_dim]
    # PyTorch's cross_entropy_loss_prob_target: -(logp * target [* weight]) summed, divided by N
    picked = logp * target
    if weight is not None:
        shape = [1] * input.ndim
        shape[class_dim] = input.shape[class_dim]
        picked = picked * _as_tensor(weight, input).reshape(shape)
    if reduction == "none":
        return -picked.sum(class_dim)
    if reduction == "sum":
        return -picked.sum()
    return ops.div_scalar(-picked.sum(), math.prod(input.shape) // input.shape[class_dim])


def _smoothed(nll, logp, target, weight, ignore_index, reduction, label_smoothing, class_dim):
    """``(1 - ls) nll + ls / C * smooth``, where ``smooth`` is minus the (weighted) sum of the
    log-probabilities of every class, left out at ignored places and reduced as ``nll`` is
    (its weighted mean divides by the targets' weights)."""
    n_classes = logp.shape[class_dim]
    if weight is not None:
        shape = [1] * logp.ndim
        shape[class_dim] = n_classes
        smooth = -(logp * _as_tensor(weight, logp).reshape(shape)).sum(class_dim)
    else:
        smooth = -logp.sum(class_dim)
    ignored = target == ignore_index
    smooth = smooth.masked_fill(Tensor._make(ignored), 0.0)
    if reduction == "mean":
        if weight is not None:
            w = np.asarray(weight._data if isinstance(weight, Tensor) else weight)
            total = Tensor._make(np.asarray(w[target[~ignored]].sum(), dtype=logp.dtype))
        else:
            total = Tensor._make(np.asarray((~ignored).sum()))
        smooth = smooth.sum() / total
    elif reduction == "sum":
        smooth = smooth.sum()
    return (1 - label_smoothing) * nll + smooth * (label_smoothing / n_classes)


def linear_cross_entropy(input, linear_weight, target, *, linear_bias=None, weight=None, reduction="mean",
                         ignore_index=None, label_smoothing=0.0, options=None):
    """Cross-entropy of the logits ``linear(input, linear_weight, linear_bias)`` against ``target``,
    composed as PyTorch's reference path (``options=None``): ``linear_weight`` (C, *out_features,
    in_features) gives K-dimensional logits (N, C, *out_features); ``ignore_index=None`` means -100.

    >>> from diffcompare import autograd as ag
    >>> x, w = ag.tensor([[1.0, 0.0]]), ag.tensor([[2.0, 0.0], [0.0, 1.0]])
    >>> round(linear_cross_entropy(x, w, ag.tensor([0])).item(), 6)      # -log(e^2 / (e^2 + 1))
    0.126928
    """
    if options is not None:
        raise NotImplementedError("linear_cross_entropy(options=...): the chunked path is not supported by this "
                                  "engine; options=None computes the same loss")
    if input.dim() < 1 or input.dim() > 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.dim()}")
    if linear_weight.dim() < 2:
        raise RuntimeError(f"expected linear_weight with dimensionality at least 2, got {linear_weight.dim()}")
    batch, in_features = tuple(input.shape[:-1]), input.shape[-1]
    if in_features != linear_weight.shape[-1]:
        raise RuntimeError("expected equal input and linear_weight last dimensions (in_features), "
                           f"got {input.shape[-1]} and {linear_weight.shape[-1]}, respectively")
    num_classes, out_features = linear_weight.shape[0], tuple(linear_weight.shape[1:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != (num_classes, *out_features):
        raise RuntimeError(f"expected linear_bias shape {(num_classes, *out_features)}, got "
                           f"{tuple(linear_bias.shape)}")
    if out_features and not batch:
        raise RuntimeError(f"K-dimensional loss defined by linear_weight shape {tuple(linear_weight.shape)} requires"
                           f" batched input, (N, {in_features}), got unbatched input with shape {tuple(input.shape)}")
    logits_shape = (*batch, num_classes, *out_features)
    if tuple(target.shape) == logits_shape and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains probabilities")
    ignore_index = -100 if ignore_index is None else ignore_index
    if out_features:
        linear_weight = linear_weight.reshape((math.prod(out_features, start=num_classes), in_features))
        if linear_bias is not None:
            linear_bias = linear_bias.reshape(math.prod(out_features, start=num_classes))
    logits = linear(input, linear_weight, linear_bias).reshape(logits_shape)
    return cross_entropy(logits, target, weight=weight, reduction=reduction, ignore_index=ignore_index,
                         label_smoothing=label_smoothing)


def dropout(input, p=0.5, training=True, inplace=False):
    """Zero each element with probability ``p`` and scale the rest by 1/(1 - p) (training);
    the input itself otherwise. As PyTorch on the CPU: a noise tensor drawn with
    ``bernoulli_(1 - p)``, divided by 1 - p, multiplied in (MulBackward0).

    >>> from diffcompare import autograd as ag
    >>> import diffcompare.autograd.nn.functional as F
    >>> x = ag.ones(3)
    >>> F.dropout(x, 0.5, training=False) is x, F.dropout(x, 1.0)
    (True, tensor([0., 0., 0.]))
    """
    _check_p(p)
    return _dropout_noise(input, p, training, inplace, tuple(input.shape))


def _dropout_noise(input, p, training, inplace, noise_shape):
    """``input`` times Bernoulli(1 - p) noise of ``noise_shape`` scaled by 1/(1 - p), as ATen's
    ``_dropout_impl``; the input itself when not training, ``p == 0`` or empty."""
    if p == 0 or not training or input.numel() == 0:
        return input
    if p == 1:
        noise = Tensor._make(np.zeros((), dtype=input.dtype))
    else:
        # laid out in memory as the input (ATen's empty_like), so the draws fill it in PyTorch's order
        same = noise_shape == tuple(input.shape) and type(input._data) is np.ndarray
        empty = np.empty_like(input._data) if same else np.empty(noise_shape, dtype=input.dtype)
        noise = Tensor._make(empty).bernoulli_(1 - p)
        noise.div_(1 - p)
    return input.mul_(noise) if inplace else input * noise


def flatten(input, start_dim=0, end_dim=-1):
    return ops.flatten(input, start_dim, end_dim)


logsigmoid = ops.logsigmoid


def _size_warning(input, target):
    if tuple(input.shape) != tuple(target.shape):
        warnings.warn(f"Using a target size ({_size(target.shape)}) that is different to the input size "
                      f"({_size(input.shape)}). This will likely lead to incorrect results due to broadcasting. "
                      "Please ensure they have the same size.", UserWarning, stacklevel=3)


def _broadcast(input, target):
    shape = np.broadcast_shapes(tuple(input.shape), tuple(target.shape))
    return (input if input.shape == shape else input.expand(*shape),
            target if target.shape == shape else target.expand(*shape))


def _weighted(loss, weight, reduction, mean_over_weight):
    """PyTorch's Python-level weighted L1 and Huber losses."""
    if tuple(weight.shape) != tuple(loss.shape):
        raise ValueError("Weights and input must have the same size.")
    loss = loss * weight
    if reduction == "none":
        return loss
    if reduction == "sum":
        return loss.sum()
    if reduction == "mean":
        return loss.sum() / weight.sum() if mean_over_weight else loss.mean()
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """The mean (or sum, or none) of ``|input - target|``: AbsBackward0 then MeanBackward0 or
    SumBackward0, as PyTorch records it; with ``weight`` the weighted sum over the weights' sum."""
    target = _as_tensor(target, input)
    _size_warning(input, target)
    reduction = _legacy_reduction(size_average, reduce, reduction)
    input, target = _broadcast(input, target)
    if weight is not None:
        return _weighted((input - target).abs(), _as_tensor(weight, input), reduction, True)
    return _reduce((input - target).abs(), reduction)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """0.5 d²/β for |d| < β, |d| - β/2 elsewhere (SmoothL1LossBackward0); ``l1_loss`` at β = 0."""
    target = _as_tensor(target, input)
    _size_warning(input, target)
    reduction = _legacy_reduction(size_average, reduce, reduction)
    input, target = _broadcast(input, target)
    if beta == 0.0:
        return l1_loss(input, target, reduction=reduction)
    return ops.smooth_l1_loss(input, target, reduction, beta)


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """0.5 d² for |d| < δ, δ(|d| - δ/2) elsewhere (HuberLossBackward0); with ``weight``,
    weighted after the unreduced loss."""
    target = _as_tensor(target, input)
    _size_warning(input, target)
    input, target = _broadcast(input, target)
    if weight is None:
        return ops.huber_loss(input, target, reduction, delta)
    return _weighted(ops.huber_loss(input, target, "none", delta), _as_tensor(weight, input), reduction, False)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """Binary cross-entropy of probabilities ``input`` (BinaryCrossEntropyBackward0), each log
    clamped at -100 as PyTorch's."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    target = _as_tensor(target, input)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Using a target size ({_size(target.shape)}) that is different to the input size "
                         f"({_size(input.shape)}) is deprecated. Please ensure they have the same size.")
    return ops.binary_cross_entropy(input, target, weight, reduction)


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """Pointwise KL divergence of log-probabilities ``input`` from ``target`` (probabilities,
    or log-probabilities with ``log_target``); 'batchmean' divides the sum by the batch size."""
    target = _as_tensor(target, input)
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce, reduction)
    elif reduction == "mean":
        warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the support size."
                      "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                      "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
                      UserWarning, stacklevel=2)
    inner = "sum" if reduction == "batchmean" else reduction
    inner = reduction_name(inner)
    if log_target:
        loss = ops.exp(target) * (target - input)
    else:
        loss = ops.xlogy(target, target) - target * input
    loss = _reduce(loss, inner)
    if reduction == "batchmean" and input.ndim != 0:
        loss = loss / input.shape[0]
    return loss


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """log(1 + exp(-y x)) (SoftMarginLossBackward0)."""
    return ops.soft_margin_loss(input, target, _legacy_reduction(size_average, reduce, reduction))


def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    """max(0, -y (x1 - x2) + margin), as PyTorch's: ClampMinBackward0, then the reduction."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    target = _as_tensor(target, input1)
    if input1.ndim != input2.ndim or input1.ndim != target.ndim:
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
                           f"input1: {_size(input1.shape)}, input2: {_size(input2.shape)}, "
                           f"target: {_size(target.shape)} ")
    return _reduce(ops.add_scalar(-target * (input1 - input2), margin).clamp_min(0), reduction)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"):
    """x where y = 1, max(0, margin - x) where y = -1 (AddBackward0 of the two parts)."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    y = np.asarray(target._data if isinstance(target, Tensor) else target)
    zeros = zeros_like(input)
    clamped = (margin - input).clamp_min(0)
    out = ops.where(Tensor._make(y != 1), clamped, zeros) + ops.where(Tensor._make(y != -1), input, zeros)
    return _reduce(out, reduction)


def _cosine_check(input1, input2, target):
    if target.ndim not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    want = 2 if target.ndim == 1 else 1
    if input1.ndim != want or input2.ndim != want:
        raise RuntimeError(f"{target.ndim}D target tensor expects {want}D input tensors, but found inputs with "
                           f"sizes {list(input1.shape)} and {list(input2.shape)}.")


def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    """1 - cos(x1, x2) where y = 1, max(0, cos(x1, x2) - margin) where y = -1, cos computed as
    PyTorch's (squared norms plus 1e-12)."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    target = _as_tensor(target, input1)
    _cosine_check(input1, input2, target)
    dim = target.ndim
    prod_sum = (input1 * input2).sum(dim)
    mag1 = (input1 * input1).sum(dim) + 1e-12
    mag2 = (input2 * input2).sum(dim) + 1e-12
    cos = prod_sum / (mag1 * mag2).sqrt()
    zeros = zeros_like(cos)
    y = target._data
    out = ops.where(Tensor._make(y == 1), 1 - cos, zeros) + \
        ops.where(Tensor._make(y == -1), (cos - margin).clamp_min(0), zeros)
    return _reduce(out, reduction)


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                     reduction="mean"):
    """Poisson negative log-likelihood: exp(x) - y x (``log_input``) or x - y log(x + eps),
    plus Stirling's term for y > 1 when ``full``."""
    reduction = _legacy_reduction(size_average, reduce, reduction, named=False)
    if reduction not in ("none", "mean", "sum"):          # (PyTorch's own check: no "elementwise_mean" here)
        raise ValueError(f"{reduction} is not a valid value for reduction")
    target = _as_tensor(target, input)
    loss = ops.exp(input) - target * input if log_input else input - target * ops.log(input + eps)
    if full:
        y = target._data
        with np.errstate(divide="ignore", invalid="ignore"):
            stirling = y * np.log(y) - y + 0.5 * np.log(2 * math.pi * y)
        loss = loss + Tensor._make(np.where(y <= 1, 0, stirling).astype(input.dtype))
    return _reduce(loss, reduction)


def _clamped_below(t, eps):
    """``t`` with its values raised to ``eps``, the gradient passing through unchanged (PyTorch's
    ``clamp_`` under ``no_grad`` of a clone)."""
    low = t._data < eps
    if not low.any():
        return t
    return t + Tensor._make(np.where(low, eps - t._data, 0).astype(t.dtype))


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """0.5 (log var + (x - y)² / var) (+ 0.5 log 2π with ``full``), var raised to ``eps``."""
    target = _as_tensor(target, input)
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * ones_like(input)
    elif (var._data < 0).any():
        raise ValueError("var has negative entry/entries")
    if tuple(var.shape) != tuple(input.shape):
        if tuple(input.shape[:-1]) == tuple(var.shape):
            var = var.unsqueeze(-1)
        elif not (input.ndim == var.ndim and sum(b for a, b in zip(input.shape, var.shape) if a != b) == 1):
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    var = _clamped_below(var, eps)
    loss = 0.5 * (ops.log(var) + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """Per sample, the mean over classes of the logistic loss of each label."""
    reduction = _legacy_reduction(size_average, reduce, reduction, named=False)
    target = _as_tensor(target, input)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * _as_tensor(weight, input)
    class_dim = input.ndim - 1
    loss = loss.sum(class_dim) / input.shape[class_dim]
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    return _reduce(loss, reduction)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """The p-norm of ``x1 - x2 + eps`` along the last dimension (NormBackward1)."""
    dim = max(x1.ndim, x2.ndim) - 1
    return ops.norm_dim(ops.add_scalar(x1 - x2, eps), p, dim, keepdim)


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """The cosine of ``x1`` and ``x2`` along ``dim``: each divided by its norm (raised to
    ``eps``), multiplied, summed (SumBackward1)."""
    x1, x2 = _broadcast(x1, x2)
    n1 = _clamped_below(ops.vector_norm(x1, 2, dim, True), eps)
    n2 = _clamped_below(ops.vector_norm(x2, 2, dim, True), eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, size_average=None,
                        reduce=None, reduction="mean"):
    """max(0, margin + d(a, p) - d(a, n)), d the pairwise distance (with ``swap``, d(a, n)
    replaced by d(p, n) where smaller)."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    return _triplet(anchor, positive, negative, lambda a, b: pairwise_distance(a, b, p, eps), margin, swap, reduction)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None, margin=1.0, swap=False,
                                      reduction="mean"):
    """``triplet_margin_loss`` with a distance of the caller's (``distance_function(x, y)``,
    by default ``pairwise_distance``), as PyTorch composes it.

    >>> from diffcompare import autograd as ag
    >>> a, p, n = ag.zeros(1, 2), ag.tensor([[3.0, 4.0]]), ag.tensor([[0.0, 1.0]])
    >>> float(triplet_margin_with_distance_loss(a, p, n, distance_function=lambda x, y: (x - y).norm(dim=1)))
    5.0
    """
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return _triplet(anchor, positive, negative, distance_function or pairwise_distance, margin, swap, reduction)


def _triplet(anchor, positive, negative, distance, margin, swap, reduction):
    """max(0, margin + d(a, p) - d(a, n)), reduced; with ``swap``, d(a, n) replaced by d(p, n)
    where smaller."""
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    if not anchor.ndim == positive.ndim == negative.ndim:
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {anchor.ndim}D, positive {positive.ndim}D, and negative "
                           f"{negative.ndim}D inputs")
    d_pos = distance(anchor, positive)
    d_neg = distance(anchor, negative)
    if swap:
        d_neg = ops.minimum(d_neg, distance(positive, negative))
    return _reduce((ops.add_scalar(d_pos, margin) - d_neg).clamp_min(0), reduction)


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None,
                      reduction="mean"):
    """Multi-class hinge loss (MultiMarginLossBackward0)."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.ndim != 1:
        raise ValueError("weight must be one-dimensional")
    return ops.multi_margin_loss(input, target, p, margin, weight, reduction)


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """Multi-class multi-label hinge loss (MultilabelMarginLossBackward0); ``target`` holds each
    sample's class indices, ended by the first -1."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    return ops.multilabel_margin_loss(input, target, reduction)


def _feature_dropout(input, p, training, inplace):
    """Zero whole channels (dims 0 and 1 drawn, the rest shared) with probability ``p``, the rest
    scaled by 1/(1 - p): MulBackward0, as PyTorch's ``feature_dropout``."""
    return _dropout_noise(input, p, training, inplace, tuple(input.shape[:2]) + (1,) * (input.ndim - 2))


def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Channel-wise dropout of (N, C, L) or (C, L) inputs."""
    _check_p(p)
    if input.ndim not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {input.ndim}D input. Note that "
                           "dropout1d exists to provide channel-wise dropout on inputs with 1 spatial dimension, a "
                           "channel dimension, and an optional batch dimension (i.e. 2D or 3D inputs).")
    if input.ndim == 2:
        return _feature_dropout(input.unsqueeze(0), p, training, False).squeeze(0)
    return _feature_dropout(input, p, training, inplace)


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Channel-wise dropout of (N, C, H, W) inputs (a 3-d input taken as (N, C, L), with
    PyTorch's warning)."""
    _check_p(p)
    if input.ndim not in (3, 4):
        warnings.warn(f"dropout2d: Received a {input.ndim}-D input to dropout2d, which is deprecated and will "
                      "result in an error in a future release. To retain the behavior and silence this warning, "
                      "please use dropout instead. Note that dropout2d exists to provide channel-wise dropout on "
                      "inputs with 2 spatial dimensions, a channel dimension, and an optional batch dimension "
                      "(i.e. 3D or 4D inputs).", UserWarning, stacklevel=2)
    if input.ndim == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout "
                      "behavior is desired - input is interpreted as shape (N, C, L), where C is the channel dim. "
                      "This behavior will change in a future release to interpret the input as one without a "
                      "batch dimension, i.e. shape (C, H, W). To maintain the 1D channel-wise dropout behavior, "
                      "please switch to using dropout1d instead.", UserWarning, stacklevel=2)
    return _feature_dropout(input, p, training, inplace)


def dropout3d(input, p=0.5, training=True, inplace=False):
    """Channel-wise dropout of (N, C, D, H, W) or (C, D, H, W) inputs."""
    _check_p(p)
    if input.ndim not in (4, 5):
        warnings.warn(f"dropout3d: Received a {input.ndim}-D input to dropout3d, which is deprecated and will "
                      "result in an error in a future release. To retain the behavior and silence this warning, "
                      "please use dropout instead. Note that dropout3d exists to provide channel-wise dropout on "
                      "inputs with 3 spatial dimensions, a channel dimension, and an optional batch dimension "
                      "(i.e. 4D or 5D inputs).", UserWarning, stacklevel=2)
    if input.ndim != 5:
        return _feature_dropout(input.unsqueeze(0), p, training, False).squeeze(0)
    return _feature_dropout(input, p, training, inplace)


# -- activations: one kernel each in ATen (ops.activations), or composed as PyTorch composes them --
# ``inplace=True`` writes into the input and records PyTorch's node for the in-place form
# (``LeakyReluBackward1``; the same name where PyTorch keeps it)

def relu(input, inplace=False):
    return ops.in_place(input, ops.relu) if inplace else ops.relu(input)


def relu_(input):
    return input.relu_()


def leaky_relu(input, negative_slope=0.01, inplace=False):
    if inplace:
        return ops.in_place(input, ops.leaky_relu, negative_slope, node_name="LeakyReluBackward1")
    return ops.leaky_relu(input, negative_slope)


def leaky_relu_(input, negative_slope=0.01):
    return leaky_relu(input, negative_slope, True)


def elu(input, alpha=1.0, inplace=False):
    return ops.in_place(input, ops.elu, alpha, node_name="EluBackward1") if inplace else ops.elu(input, alpha)


def elu_(input, alpha=1.0):
    return elu(input, alpha, True)


def selu(input, inplace=False):
    return ops.in_place(input, ops.selu, node_name="EluBackward1") if inplace else ops.selu(input)


def selu_(input):
    return selu(input, True)


def celu(input, alpha=1.0, inplace=False):
    return ops.in_place(input, ops.celu, alpha, node_name="CeluBackward1") if inplace else ops.celu(input, alpha)


def celu_(input, alpha=1.0):
    return celu(input, alpha, True)


def gelu(input, approximate="none"):
    return ops.gelu(input, approximate)


def silu(input, inplace=False):
    return ops.in_place(input, ops.silu) if inplace else ops.silu(input)


def mish(input, inplace=False):
    return ops.in_place(input, ops.mish) if inplace else ops.mish(input)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    return ops.in_place(input, ops.hardtanh, min_val, max_val) if inplace else ops.hardtanh(input, min_val, max_val)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    return hardtanh(input, min_val, max_val, True)


def relu6(input, inplace=False):
    return hardtanh(input, 0.0, 6.0, inplace)


def hardsigmoid(input, inplace=False):
    return ops.in_place(input, ops.hardsigmoid) if inplace else ops.hardsigmoid(input)


def hardswish(input, inplace=False):
    return ops.in_place(input, ops.hardswish) if inplace else ops.hardswish(input)


def hardshrink(input, lambd=0.5):
    return ops.hardshrink(input, lambd)


def softshrink(input, lambd=0.5):
    return ops.softshrink(input, lambd)


def threshold(input, threshold, value, inplace=False):
    return threshold_(input, threshold, value) if inplace else ops.threshold(input, threshold, value)


def threshold_(input, threshold, value):
    return ops.in_place(input, ops.threshold, threshold, value, node_name="ThresholdBackward1")


prelu = ops.prelu
glu = ops.glu


def tanhshrink(input):
    """input - tanh(input) (SubBackward0)."""
    return input - input.tanh()


def softsign(input):
    """input / (1 + |input|) (DivBackward0)."""
    return input / (input.abs() + 1)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """softmax(-input) along ``dim``."""
    return softmax(-input, dim, _stacklevel + 1, dtype)


def pad(input, pad, mode="constant", value=None):
    """``input`` padded by ``pad`` (last dimension first, (left, right) pairs): with ``value``
    (default 0) in "constant" mode (ConstantPadNdBackward0); "reflect", "replicate"
    (ReflectionPad2DBackward0, ...) and "circular" over the last 1 to 3 dimensions."""
    if mode == "constant":
        return ops.constant_pad_nd(input, pad, 0 if value is None else value)
    if value is not None and value != 0:
        raise RuntimeError(f"Padding mode \"{mode}\" doesn't take in value argument")
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    return ops.nonconstant_pad(input, pad, mode)


_ALIGN_CORNERS_WARNING = ("Default grid_sample and affine_grid behavior has changed to align_corners=False since "
                          "1.3.0. Please specify align_corners=True if the old behavior is desired. See the "
                          "documentation of grid_sample for details.")


def affine_grid(theta, size, align_corners=None):
    """The sampling grid of the affine maps ``theta`` (N, 2, 3) or (N, 3, 4) for an output of
    ``size`` (N, C, H, W) or (N, C, D, H, W), for ``grid_sample`` (AffineGridGeneratorBackward0);
    ``align_corners=None`` means False, with PyTorch's warning.

    >>> from diffcompare import autograd as ag
    >>> affine_grid(ag.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]]), (1, 1, 1, 2), align_corners=False)
    tensor([[[[-0.5000,  0.0000],
              [ 0.5000,  0.0000]]]])
    """
    if align_corners is None:
        warnings.warn(_ALIGN_CORNERS_WARNING, UserWarning, stacklevel=2)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got torch.{theta.dtype}")
    if len(size) in (4, 5):
        d = len(size) - 2
        if theta.dim() != 3 or theta.shape[-2] != d or theta.shape[-1] != d + 1:
            shape = "Nx2x3" if d == 2 else "Nx3x4"
            raise ValueError(f"Expected a batch of {d}D affine matrices of shape {shape} for size {size}. "
                             f"Got torch.Size({list(theta.shape)}).")
    else:
        raise NotImplementedError(f"affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                                  f"respectively. Got size {size}.")
    if align_corners and min(size[2:]) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
                      "align_corners=True. This is not an intended use case of affine_grid. See the documentation "
                      "of affine_grid for details.", UserWarning, stacklevel=2)
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    return ops.affine_grid_generator(theta, size, align_corners)


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """``input`` (N, C, H, W) or (N, C, D, H, W) read at the normalised places of ``grid``
    (x, y[, z] in [-1, 1]), "bilinear", "nearest" or "bicubic" (4-D), outside the image
    "zeros", "border" or "reflection" (GridSampler2DBackward0 / GridSampler3DBackward0);
    ``align_corners=None`` means False, with PyTorch's warning.

    >>> from diffcompare import autograd as ag
    >>> image = ag.tensor([[[[0.0, 1.0], [2.0, 3.0]]]])
    >>> grid_sample(image, ag.tensor([[[[0.0, 0.0], [1.0, 1.0]]]]), align_corners=True)
    tensor([[[[1.5000, 3.0000]]]])
    """
    if mode not in ops.grid_sampling.MODES:
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', "
                         f"but got: '{mode}'")
    if padding_mode not in ops.grid_sampling.PADDINGS:
        raise ValueError(f"nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warnings.warn(_ALIGN_CORNERS_WARNING, UserWarning, stacklevel=2)
        align_corners = False
    return ops.grid_sampler(input, grid, ops.grid_sampling.MODES.index(mode),
                            ops.grid_sampling.PADDINGS.index(padding_mode), align_corners)


def one_hot(tensor, num_classes=-1):
    """Each integer of ``tensor`` as a row of ``num_classes`` zeros with a one at it (int64)."""
    a = np.asarray(tensor._data)
    if a.dtype.kind not in "iu":
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if a.size and a.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if num_classes == -1:
        num_classes = int(a.max()) + 1 if a.size else 0
    elif a.size and a.max() >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    return Tensor._make((a[..., None] == np.arange(num_classes)).astype(np.int64))


# -- more layers' functions (pooling, normalisation, resampling: ops.pooling, ops.normalization_ops,
#    ops.resampling) composed as PyTorch composes them --

def bilinear(input1, input2, weight, bias=None):
    """``y = x1ᵀ A x2 + b`` for each output feature, ``weight`` (out, in1, in2)."""
    if input1.shape[:-1] != input2.shape[:-1]:
        raise RuntimeError(f"bilinear(): input batch dimensions do not match: got {input1.shape[0]} and "
                           f"{input2.shape[0]}")
    if input1.shape[-1] != weight.shape[1]:
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got {input1.shape[-1]} but "
                           f"expected {weight.shape[1]}")
    if input2.shape[-1] != weight.shape[2]:
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got {input2.shape[-1]} but "
                           f"expected {weight.shape[2]}")
    lead = tuple(input1.shape[:-1])
    x1 = input1.reshape(-1, input1.shape[-1])
    x2 = input2.reshape(-1, input2.shape[-1])
    out = ops.einsum("bi,oij,bj->bo", x1, weight, x2).reshape(lead + (weight.shape[0],))
    return out if bias is None else out + bias


_SELU_ALPHA = 1.7580993408473766


def _alpha_dropout(input, p, training, feature):
    """ATen's alpha dropout: Bernoulli(1 - p) noise ``n`` (per channel for ``feature``), then
    ``input * (a n) + (n - 1) alpha' a + alpha' a p`` with ``a = 1 / sqrt((alpha'² p + 1)(1 - p))``
    (MulBackward0 then AddBackward0)."""
    _check_p(p)
    if p == 0 or not training or input.numel() == 0:
        return input
    if p == 1:
        return input * Tensor._make(np.zeros((), dtype=input.dtype))
    shape = tuple(input.shape[:2]) + (1,) * (input.ndim - 2) if feature else tuple(input.shape)
    noise = Tensor._make(np.empty(shape, dtype=input.dtype)).bernoulli_(1 - p)
    a = 1.0 / math.sqrt((_SELU_ALPHA * _SELU_ALPHA * p + 1) * (1 - p))
    b = Tensor._make(((noise._data - 1) * (_SELU_ALPHA * a) + _SELU_ALPHA * a * p).astype(input.dtype))
    noise = Tensor._make(noise._data * a)
    return input * noise + b


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Dropout that keeps a SELU network's mean and variance: dropped values set to SELU's
    negative saturation, then an affine correction."""
    return _alpha_dropout(input, p, training, False)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Alpha dropout of whole channels."""
    return _alpha_dropout(input, p, training, True)


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False, mode="mean",
                  sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """Sums, means or maxima of bags of embeddings (EmbeddingBagBackward0): ``input`` 1-d split at
    ``offsets``, or 2-d (one bag per row)."""
    if weight.ndim != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.ndim}")
    if per_sample_weights is not None and tuple(input.shape) != tuple(per_sample_weights.shape):
        raise ValueError(f"embedding_bag: If per_sample_weights ({tuple(per_sample_weights.shape)}) is not None, "
                         f"then it must have the same shape as the input ({tuple(input.shape)})")
    if input.ndim == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                             f"fixed length sequences. However, found offsets of type {type(offsets).__name__}")
        offsets = np.arange(0, input.numel(), input.shape[1])
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.ndim == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.ndim != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.ndim}")
    if mode not in ("sum", "mean", "max"):
        raise ValueError("mode has to be one of sum, mean or max")
    if max_norm is not None:
        embedding(input, weight, max_norm=max_norm, norm_type=norm_type)      # renormalises the rows in place
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(f"embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                  f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
                                  f"GitHub.")
    if scale_grad_by_freq:
        raise NotImplementedError("embedding_bag(scale_grad_by_freq=True) is not supported by this engine")
    return ops.embedding_bag(weight, input, offsets, mode, per_sample_weights, include_last_offset, padding_idx)


def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    """Samples from the Gumbel-softmax distribution, as PyTorch draws them
    (``-empty_like(logits).exponential_().log()``); ``hard``: one-hot in the forward pass, the
    soft sample's gradient (straight-through)."""
    gumbels = -empty_like(logits).exponential_().log()
    gumbels = (logits + gumbels) / tau
    y_soft = gumbels.softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = zeros_like(logits).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """Randomized leaky ReLU (RreluWithNoiseBackward0): slopes drawn from U(lower, upper) below
    zero in training, their mean otherwise."""
    if inplace:
        return ops.in_place(input, ops.rrelu, lower, upper, training, node_name="RreluWithNoiseBackward1")
    return ops.rrelu(input, lower, upper, training)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    return rrelu(input, lower, upper, training, True)



def _with_indices(pool):
    """``F.<pool>_with_indices``: the pooling with ``return_indices=True`` (values, indices)."""
    def call(*args, **kwargs):
        kwargs["return_indices"] = True
        return pool(*args, **kwargs)
    call.__name__ = call.__qualname__ = f"{pool.__name__}_with_indices"
    return call


max_pool1d_with_indices = _with_indices(max_pool1d)
max_pool2d_with_indices = _with_indices(max_pool2d)
max_pool3d_with_indices = _with_indices(max_pool3d)
adaptive_max_pool1d_with_indices = _with_indices(adaptive_max_pool1d)
adaptive_max_pool2d_with_indices = _with_indices(adaptive_max_pool2d)
adaptive_max_pool3d_with_indices = _with_indices(adaptive_max_pool3d)
fractional_max_pool2d_with_indices = _with_indices(fractional_max_pool2d)
fractional_max_pool3d_with_indices = _with_indices(fractional_max_pool3d)
