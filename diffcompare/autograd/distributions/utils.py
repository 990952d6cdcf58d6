"""``torch.distributions.utils``: parameter broadcasting, probabilities <-> logits, the cached
``lazy_property``, and the engine's random draws the distributions sample with.

The draws are looked up on the package at call time (``ag.normal``, ``ag.rand``, ...), never
bound at import, so a caller that replaces one of the package's random functions (to draw
another generator's values) replaces it for the distributions too.

>>> from diffcompare import autograd as ag
>>> from diffcompare.autograd.distributions.utils import broadcast_all, probs_to_logits
>>> [tuple(t.shape) for t in broadcast_all(ag.zeros(3), 1.0)]
[(3,), (3,)]
>>> probs_to_logits(ag.tensor([0.5]), is_binary=True)
tensor([0.])
"""

from __future__ import annotations

import functools
import numbers
import sys

import numpy as np

# the package itself (partly made while it imports this one; its names are read at call time)
ag = sys.modules[__name__.rsplit(".", 2)[0]]

__all__ = ["broadcast_all", "logits_to_probs", "clamp_probs", "probs_to_logits", "lazy_property",
           "tril_matrix_to_vec", "vec_to_tril_matrix"]

euler_constant = 0.57721566490153286060   # Euler-Mascheroni constant


def finfo(dtype):
    """``torch.finfo(dtype)``'s ``eps``, ``tiny``, ``max``, ``min`` (NumPy's, the same numbers)."""
    return np.finfo(np.dtype(dtype))


def _is_number(v):
    return isinstance(v, numbers.Number) and not isinstance(v, ag.Tensor)


def broadcast_all(*values):
    """The tensors and numbers ``values`` as tensors of one broadcast shape (numbers take the
    first tensor's dtype, else the default one)."""
    if not all(isinstance(v, ag.Tensor) or _is_number(v) for v in values):
        raise ValueError("Input arguments must all be instances of Number, torch.Tensor or objects implementing "
                         "__torch_function__.")
    if not all(isinstance(v, ag.Tensor) for v in values):
        dtype = next((v.dtype for v in values if isinstance(v, ag.Tensor)), ag.get_default_dtype()
                     if hasattr(ag, "get_default_dtype") else ag.float64)
        values = [v if isinstance(v, ag.Tensor) else ag.tensor(v, dtype=dtype) for v in values]
    return ag.broadcast_tensors(*values)


def standard_normal(shape, dtype, device):
    """Standard normal draws of ``shape``: ``torch.empty(shape).normal_()``, as PyTorch draws them."""
    return ag.empty(tuple(shape), dtype=dtype).normal_()


def sum_rightmost(value, dim):
    """``value`` summed over its ``dim`` rightmost dimensions."""
    if dim == 0:
        return value
    return value.reshape(tuple(value.shape[:-dim]) + (-1,)).sum(-1)


def logits_to_probs(logits, is_binary=False):
    """Probabilities from logits: sigmoid (binary) or softmax over the last dimension."""
    if is_binary:
        return ag.sigmoid(logits)
    return ag.softmax(logits, dim=-1)


def clamp_probs(probs):
    """``probs`` clamped to [eps, 1 - eps] of its dtype."""
    eps = float(finfo(probs.dtype).eps)
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs, is_binary=False):
    """Logits from (clamped) probabilities: log-odds (binary) or log."""
    ps_clamped = clamp_probs(probs)
    if is_binary:
        return ag.log(ps_clamped) - ag.log1p(-ps_clamped)
    return ag.log(ps_clamped)


_standard_normal, _sum_rightmost = standard_normal, sum_rightmost   # (PyTorch's names)


class lazy_property:  # noqa: N801  (PyTorch's name)
    """A property computed once (with gradients enabled), then stored on the instance."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        functools.update_wrapper(self, wrapped)

    def __get__(self, instance, obj_type=None):
        if instance is None:
            return _lazy_property_and_property(self.wrapped)
        with ag.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


class _lazy_property_and_property(lazy_property, property):  # noqa: N801
    def __init__(self, wrapped):
        property.__init__(self, wrapped)


def _tril_mask(n, diag):
    arange = ag.arange(n)
    return arange < arange.view(-1, 1) + (diag + 1)


def tril_matrix_to_vec(mat, diag=0):
    """The lower triangle (below diagonal ``diag``) of ``mat``'s last two dimensions, row by row."""
    n = mat.shape[-1]
    if diag < -n or diag >= n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    return mat[..., _tril_mask(n, diag)]


def vec_to_tril_matrix(vec, diag=0):
    """The inverse of ``tril_matrix_to_vec``: a lower-triangular matrix from its entries."""
    n = (-(1 + 2 * diag) + ((1 + 2 * diag) ** 2 + 8 * vec.shape[-1] + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2
    eps = float(finfo(vec.dtype).eps)
    if round(n) - n > eps:
        raise ValueError(f"The size of last dimension is {vec.shape[-1]} which cannot be expressed as "
                         "the lower triangular part of a square D x D matrix.")
    n = round(n)
    mat = vec.new_zeros(tuple(vec.shape[:-1]) + (n, n))
    mat[..., _tril_mask(n, diag)] = vec
    return mat
