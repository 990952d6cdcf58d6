"""Gradient clipping, as ``torch.nn.utils.clip_grad_norm_`` and ``clip_grad_value_``: the
gradients are scaled (or clamped) in place, without recording."""

from __future__ import annotations

import math
import warnings

import numpy as np

from ...grad_mode import no_grad
from ...tensor import Tensor


def _grads(parameters):
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    return [p.grad for p in parameters if p.grad is not None]


def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The ``norm_type``-norm of the norms of ``tensors`` (as if concatenated)."""
    if isinstance(tensors, Tensor):
        tensors = [tensors]
    tensors = list(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return Tensor._make(np.array(0.0))
    if math.isinf(norm_type):
        total = max(float(np.abs(t._data).max()) if t.numel() else 0.0 for t in tensors)
    else:
        norms = np.array([np.sum(np.abs(t._data) ** norm_type) ** (1.0 / norm_type) for t in tensors])
        total = float(np.sum(norms ** norm_type) ** (1.0 / norm_type))
    if error_if_nonfinite and not math.isfinite(total):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so "
                           "it cannot be clipped. To disable this error and scale the gradients by the non-finite "
                           "norm anyway, set `error_if_nonfinite=False`")
    return Tensor._make(np.array(total, dtype=tensors[0]._data.dtype))


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Scale the gradients so that their total norm is at most ``max_norm``; the total norm
    before clipping is returned. The factor is min(max_norm / (norm + 1e-6), 1), as PyTorch's."""
    grads = _grads(parameters)
    total = get_total_norm(grads, norm_type, error_if_nonfinite)
    _scale(grads, max_norm, total)
    return total


def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """Scale the gradients by min(max_norm / (total_norm + 1e-6), 1), ``total_norm`` given
    (``get_total_norm`` of them, or of more parameters than these): the second half of
    ``clip_grad_norm_``, as PyTorch splits it.

    >>> from diffcompare import autograd as ag
    >>> w = ag.tensor([3.0, 4.0], requires_grad=True)
    >>> w.grad = ag.tensor([3.0, 4.0])
    >>> clip_grads_with_norm_([w], 1.0, get_total_norm([w.grad]))
    >>> [round(g, 6) for g in w.grad.tolist()]
    [0.6, 0.8]
    """
    _scale(_grads(parameters), max_norm, total_norm)


def _scale(grads, max_norm, total):
    if not grads:
        return
    coef = min(float(max_norm) / (float(total) + 1e-6), 1.0)
    with no_grad():
        for g in grads:
            g.mul_(coef)


def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamp every gradient element to [-clip_value, clip_value]."""
    clip_value = float(clip_value)
    with no_grad():
        for g in _grads(parameters):
            g.clamp_(-clip_value, clip_value)


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """PyTorch's deprecated name of ``clip_grad_norm_`` (the same clipping, with its warning)."""
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of `torch.nn.utils.clip_grad_norm_`.",
                  FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm"]
