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

import warnings

import numpy as np

from .. import ops
from ..tensor import Tensor, generator
from ..ops import (adaptive_avg_pool2d, avg_pool2d, batch_norm, binary_cross_entropy_with_logits,  # noqa: F401
                   conv2d, max_pool2d)

relu = ops.relu
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


def _legacy_reduction(size_average, reduce, reduction):
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    return "none" if not reduce else "mean" if size_average else "sum"


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    """Negative log-likelihood of log-probabilities ``input`` (N, C) or (C,) at the class
    indices ``target``, weighted per class, ``ignore_index`` left out (NllLossBackward0).

    >>> from diffcompare import autograd as ag
    >>> import diffcompare.autograd.nn.functional as F
    >>> F.nll_loss(ag.tensor([[-1.0, -2.0], [-3.0, -4.0]]), ag.tensor([1, 0]))
    tensor(2.5000)
    """
    return ops.nll_loss(input, target, _legacy_reduction(size_average, reduce, reduction), weight, ignore_index)


def _reduce(loss, reduction):
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    if reduction == "none":
        return loss
    raise ValueError(f"{reduction} is not a valid value for reduction (use 'mean', 'sum' or 'none')")


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


def mse_loss(input, target, reduction="mean"):
    """The mean (or sum, or none) of ``(input - target)²``, recorded as MseLossBackward0; a target
    of another shape is broadcast, with PyTorch's warning."""
    target = _as_tensor(target, input)
    if input.shape != target.shape:
        warnings.warn(f"Using a target size ({_size(target.shape)}) that is different to the input size "
                      f"({_size(input.shape)}). This will likely lead to incorrect results due to broadcasting. "
                      "Please ensure they have the same size.", UserWarning, stacklevel=2)
    return ops.mse_loss(input, target, reduction)


def _size(shape):
    return f"torch.Size({list(shape)})"


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
                  label_smoothing=0.0):
    """Cross-entropy of logits ``input`` (N, C) against class indices (N,) or probabilities (N, C),
    recorded as PyTorch does: LogSoftmaxBackward0 then NllLossBackward0."""
    if label_smoothing:
        raise NotImplementedError("cross_entropy(label_smoothing=...) is not supported by this engine")
    reduction = _legacy_reduction(size_average, reduce, reduction)
    logp = ops.log_softmax(input, dim=-1 if input.ndim == 1 else 1)
    target_data = target._data if isinstance(target, Tensor) else np.asarray(target)
    if target_data.dtype.kind in "iu":
        return ops.nll_loss(logp, target_data, reduction, weight, ignore_index)
    if weight is not None:
        raise NotImplementedError("cross_entropy(weight=...) with probabilities as target is not supported "
                                  "by this engine")
    target = target if isinstance(target, Tensor) else Tensor._make(target_data.astype(input.dtype))
    return _reduce(-(target * logp).sum(dim=-1 if input.ndim == 1 else 1), reduction)


def dropout(input, p=0.5, training=True, inplace=False):
    """Zero each element with probability ``p`` and scale the rest by 1/(1 - p) (training);
    the input itself otherwise. The mask comes from the engine's generator (``ag.manual_seed``).

    >>> from diffcompare import autograd as ag
    >>> import diffcompare.autograd.nn.functional as F
    >>> x = ag.ones(3)
    >>> F.dropout(x, 0.5, training=False) is x, F.dropout(x, 1.0)
    (True, tensor([0., 0., 0.]))
    """
    if not 0 <= p <= 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training:
        return input
    keep = generator().random(input.shape) >= p
    scale = 0.0 if p == 1 else 1.0 / (1.0 - p)
    mask = Tensor._make((keep * scale).astype(input.dtype))
    if inplace:
        return input.mul_(mask)
    return input * mask


def flatten(input, start_dim=0, end_dim=-1):
    return ops.flatten(input, start_dim, end_dim)
