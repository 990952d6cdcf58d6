"""``torch.nn.functional``'s part that the engine has: activations, softmax and the losses,
so that ``import torch.nn.functional as F`` ports as ``import diffcompare.autograd.nn.functional as F``.

>>> from diffcompare import autograd as ag
>>> import diffcompare.autograd.nn.functional as F
>>> F.mse_loss(ag.tensor([1.0, 3.0]), ag.tensor([0.0, 0.0])).item()      # (1 + 9) / 2
5.0
"""

from __future__ import annotations

import warnings

import numpy as np

from .. import ops
from ..tensor import Tensor

relu = ops.relu
tanh = ops.tanh
sigmoid = ops.sigmoid
softplus = ops.softplus
softmax = ops.softmax
log_softmax = ops.log_softmax
nll_loss = ops.nll_loss


def _reduce(loss, reduction):
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    if reduction == "none":
        return loss
    raise ValueError(f"{reduction} is not a valid value for reduction (use 'mean', 'sum' or 'none')")


def mse_loss(input, target, reduction="mean"):
    if not isinstance(target, Tensor):
        target = Tensor._make(np.asarray(target, dtype=input.dtype))
    if input.shape != target.shape:

        warnings.warn(f"Using a target size ({tuple(target.shape)}) that is different to the input size "
                      f"({tuple(input.shape)}). This will likely lead to incorrect results due to broadcasting. "
                      "Please ensure they have the same size.", UserWarning, stacklevel=3)
    diff = input - target
    return _reduce(diff * diff, reduction)


def cross_entropy(input, target, reduction="mean"):
    """Cross-entropy of logits ``input`` (N, C) against class indices (N,) or probabilities (N, C),
    recorded as PyTorch does: LogSoftmaxBackward0 then NllLossBackward0."""
    logp = ops.log_softmax(input, dim=-1 if input.ndim == 1 else 1)
    target_data = target._data if isinstance(target, Tensor) else np.asarray(target)
    if target_data.dtype.kind in "iu":
        return ops.nll_loss(logp, target_data, reduction)
    target = target if isinstance(target, Tensor) else Tensor._make(target_data.astype(input.dtype))
    return _reduce(-(target * logp).sum(dim=-1 if input.ndim == 1 else 1), reduction)
