"""Distances: ``dist`` (the p-norm of a difference, DistBackward0) and ``cdist`` (the p-norm
distances between the rows of two batches of matrices, CdistBackward0). Their rules are
written on arrays (first derivatives).

>>> from diffcompare import autograd as ag
>>> ag.dist(ag.tensor([0.0, 0.0]), ag.tensor([3.0, 4.0]))
tensor(5.)
>>> ag.cdist(ag.tensor([[0.0, 0.0]]), ag.tensor([[3.0, 4.0], [0.0, 1.0]]))
tensor([[5., 1.]])
"""

from __future__ import annotations

import numpy as np

from ..tensor import Tensor
from .recording import Op, apply, array_of


def _norm(d, p, axis):
    a = np.abs(d)
    if p == 0:
        return np.sum(a != 0, axis=axis).astype(d.dtype)
    if p == np.inf:
        return np.max(a, axis=axis, initial=0.0)
    if p == -np.inf:
        return np.min(a, axis=axis)
    if p == 1:
        return np.sum(a, axis=axis)
    if p == 2:
        return np.sqrt(np.sum(a * a, axis=axis))
    return np.sum(a ** p, axis=axis) ** (1.0 / p)


def _norm_grad(d, norm, p):
    """d norm_p(d) / d d, with the norm broadcast against ``d`` (0 where the norm is 0)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        if p == 0:
            return np.zeros_like(d)
        if p == 1:
            return np.sign(d)
        if p in (np.inf, -np.inf):
            hit = (np.abs(d) == norm).astype(d.dtype)
            count = hit.sum(axis=-1, keepdims=True) if d.ndim else hit
            return np.where(norm == 0, 0.0, np.sign(d) * hit / count)
        if p == 2:
            return np.where(norm == 0, 0.0, d / norm)
        local = d * np.abs(d) ** (p - 2) / norm ** (p - 1)
        return np.where((norm == 0) | ((d == 0) & (p < 1)), 0.0, local)


class DistBackward0(Op):
    """norm_p(a - b) over all elements (a and b broadcast)."""
    broadcasts = True
    saves = (0, 1, 2)

    @staticmethod
    def forward(a, b, p):
        return np.asarray(_norm((np.asarray(a) - np.asarray(b)).reshape(-1), p, None))

    def backward(self, g, a, b, p):
        d = np.asarray(array_of(a) - array_of(b), dtype=float)
        norm = _norm(d.reshape(-1), p, None)
        grad = array_of(g) * _norm_grad(d if p not in (np.inf, -np.inf) else d.reshape(-1), norm, p).reshape(d.shape)
        return (grad if self.needs(0) else None, -grad if self.needs(1) else None, None)


def dist(input, other, p=2):
    """The ``p``-norm of ``input - other`` (broadcast), a 0-d tensor."""
    if p < 0 and p != -np.inf:
        raise RuntimeError("dist only supports non-negative p values")
    return apply(DistBackward0, (input, other, float(p) if not isinstance(p, Tensor) else float(p.item())))


class CdistBackward0(Op):
    """out[..., i, j] = norm_p(x1[..., i, :] - x2[..., j, :])."""
    saves = (0, 1, "p")

    @staticmethod
    def forward(x1, x2, p):
        return _norm(np.asarray(x1)[..., :, None, :] - np.asarray(x2)[..., None, :, :], p, -1)

    def backward(self, g, x1, x2, p):
        d = array_of(x1)[..., :, None, :] - array_of(x2)[..., None, :, :]
        norm = _norm(d, p, -1)[..., None]
        local = array_of(g)[..., None] * _norm_grad(d, norm, p)
        g1 = local.sum(axis=-2) if self.needs(0) else None
        g2 = -local.sum(axis=-3) if self.needs(1) else None
        return g1, g2


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """The ``p``-norm distance between each row of ``x1`` and each row of ``x2`` (batched)."""
    if x1.ndim < 2 or x2.ndim < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1.ndim}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: {x2.shape[-1]}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    return apply(CdistBackward0, (x1, x2), {"p": float(p)})


class PdistBackward0(Op):
    """out[k] = norm_p(x[i] - x[j]) for the k-th pair i < j of rows (row-major order)."""
    saves = (0, "p")

    @staticmethod
    def forward(x, p):
        i, j = np.triu_indices(x.shape[0], 1)
        return _norm(np.asarray(x)[i] - np.asarray(x)[j], p, -1)

    def backward(self, g, x, p):
        x = array_of(x)
        i, j = np.triu_indices(x.shape[0], 1)
        d = x[i] - x[j]
        local = array_of(g)[:, None] * _norm_grad(d, _norm(d, p, -1)[:, None], p)
        grad = np.zeros_like(x)
        np.add.at(grad, i, local)
        np.add.at(grad, j, -local)
        return (grad,)


def pdist(input, p=2):
    """The ``p``-norm distance between every pair of rows ``i < j`` of a 2-d ``input``, in
    row-major order of the pairs (the upper triangle of ``cdist(input, input)``).

    >>> from diffcompare import autograd as ag
    >>> ag.pdist(ag.tensor([[0.0, 0.0], [3.0, 4.0], [0.0, 1.0]]))
    tensor([5.0000, 1.0000, 4.2426])
    """
    if input.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.ndim}D")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    return apply(PdistBackward0, (input,), {"p": float(p)})


# the torch-level functions of this family (`ag.<name>`, as `torch.<name>`)
PUBLIC = ("cdist", "dist", "pdist")
# what the family exports to `ops`
__all__ = ["CdistBackward0", "DistBackward0", "PdistBackward0", *PUBLIC]
