"""``torch.linalg`` as ``ag.linalg``: norms, determinants, inverses, solves and Cholesky
factors, each differentiable (see :mod:`.ops.decompositions`), and :class:`LinAlgError`.

>>> from diffcompare import autograd as ag
>>> a = ag.tensor([[3.0, 0.0], [4.0, 0.0]], requires_grad=True)
>>> ag.linalg.norm(a)                       # Frobenius
tensor(5., grad_fn=<LinalgVectorNormBackward0>)
>>> ag.linalg.matrix_norm(a, 1)             # the largest column sum of |a|
tensor(7., grad_fn=<AmaxBackward0>)
"""

from __future__ import annotations

import math
import numbers

from .ops import amax, amin, check_dim, matmul, permute, svdvals, unsqueeze, vector_norm
from .ops.decompositions import LinAlgError, cholesky, det, inv, slogdet, solve
from .ops.factorizations import (eigh, eigvalsh, linalg_lu as lu, linalg_lu_solve as lu_solve, linalg_qr as qr,
                                 linalg_svd as svd, lstsq, lu_factor, lu_factor_ex, matrix_exp, matrix_power,
                                 matrix_rank, multi_dot, pinv, solve_triangular)
from .ops.matrices import diagonal as _diagonal, linalg_cross

__all__ = ['LinAlgError', 'cholesky', 'cross', 'det', 'diagonal', 'eigh', 'eigvalsh', 'inv', 'lstsq', 'lu', 'lu_factor',
           'lu_factor_ex', 'lu_solve', 'matmul', 'matrix_exp', 'matrix_norm', 'matrix_power', 'matrix_rank',
           'multi_dot', 'norm', 'pinv', 'qr', 'slogdet', 'solve', 'solve_triangular', 'svd', 'svdvals', 'vector_norm']


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    """A matrix norm over dimensions ``dim``: 'fro', 'nuc' (sum of singular values), 2 and
    -2 (largest, smallest singular value), 1 and -1 (largest, smallest column sum of |A|),
    inf and -inf (the same for rows).

    >>> from diffcompare import autograd as ag
    >>> ag.linalg.matrix_norm(ag.tensor([[1.0, -2.0], [3.0, 4.0]]), float("inf"))
    tensor(7.)
    """
    if A.ndim < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    if dtype is not None:
        A = A.to(dtype)
    d0, d1 = (check_dim(d, A.ndim) for d in dim)
    if ord == "fro":
        return vector_norm(A, 2, (d0, d1), keepdim)
    if ord == "nuc" or ord in (2, -2):
        rest = [i for i in range(A.ndim) if i not in (d0, d1)]
        values = svdvals(permute(A, rest + [d0, d1]))
        out = values.sum(-1) if ord == "nuc" else (amax if ord == 2 else amin)(values, -1)
        if keepdim:
            for d in sorted((d0, d1)):
                out = unsqueeze(out, d)
        return out
    if ord in (1, -1, math.inf, -math.inf):
        summed, across = (d0, d1) if ord in (1, -1) else (d1, d0)
        sums = A.abs().sum(summed, keepdim=keepdim)
        if not keepdim and across > summed:
            across -= 1
        return (amax if ord > 0 else amin)(sums, across, keepdim=keepdim)
    raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    """A vector norm (1-d input, or ``dim`` an int) or a matrix norm (2-d input, or ``dim`` a
    pair); with neither ``ord`` nor ``dim``, the 2-norm of all elements.

    >>> from diffcompare import autograd as ag
    >>> ag.linalg.norm(ag.tensor([[1.0, 2.0], [2.0, 4.0]]), "nuc")
    tensor(5.)
    """
    if isinstance(dim, numbers.Integral):
        dim = (dim,)
    if ord is None:
        if dim is not None and len(dim) == 2:
            return matrix_norm(A, "fro", dim, keepdim, dtype=dtype)
        return vector_norm(A, 2, dim, keepdim, dtype=dtype)
    if dim is None:
        if isinstance(ord, str) or A.ndim == 2:
            return matrix_norm(A, ord, (-2, -1), keepdim, dtype=dtype)
        if A.ndim != 1:
            raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. "
                               f"Got {A.ndim}D.")
        return vector_norm(A, ord, None, keepdim, dtype=dtype)
    if len(dim) == 2:
        return matrix_norm(A, ord, dim, keepdim, dtype=dtype)
    return vector_norm(A, ord, dim, keepdim, dtype=dtype)


def cross(input, other, *, dim=-1):
    """The cross product of 3-vectors along ``dim``."""
    return linalg_cross(input, other, dim)


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """The ``offset`` diagonal of the last two dimensions (``torch.linalg.diagonal``)."""
    return _diagonal(A, offset, dim1, dim2)
