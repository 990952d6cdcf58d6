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

import numpy as np

from .ops import amax, amin, cat, check_dim, cumprod, matmul, permute, svdvals, unsqueeze, vdot, vector_norm
from .ops.decompositions import LinAlgError, check_same_dtype, check_square, cholesky, det, inv, slogdet, solve
from .ops.factorizations import (cholesky_ex, eig, eigh, eigvals, eigvalsh, householder_product, inv_ex, ldl_factor,
                                 ldl_factor_ex, ldl_solve, linalg_lu as lu, linalg_lu_solve as lu_solve,
                                 linalg_qr as qr, linalg_svd as svd, lstsq, lu_factor, lu_factor_ex, matrix_exp,
                                 matrix_power, matrix_rank, multi_dot, pinv, solve_ex, solve_triangular)
from .ops.inplace import rename_node_of
from .ops.matrices import diagonal as _diagonal, linalg_cross
from .ops.reductions import MATRIX_NORMS
from .tensor import Tensor

__all__ = ['LinAlgError', 'cholesky', 'cholesky_ex', 'cond', 'cross', 'det', 'diagonal', 'eig', 'eigh', 'eigvals',
           'eigvalsh', 'householder_product', 'inv', 'inv_ex', 'ldl_factor', 'ldl_factor_ex', 'ldl_solve', 'lstsq',
           'lu', 'lu_factor', 'lu_factor_ex', 'lu_solve', 'matmul', 'matrix_exp', 'matrix_norm', 'matrix_power',
           'matrix_rank', 'multi_dot', 'norm', 'pinv', 'qr', 'slogdet', 'solve', 'solve_ex', 'solve_triangular', 'svd',
           'svdvals', 'tensorinv', 'tensorsolve', 'vander', 'vecdot', 'vector_norm']


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


MATRIX_NORMS.append(matrix_norm)


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


def _ord_text(ord):
    if isinstance(ord, str):
        return ord
    if isinstance(ord, numbers.Integral):
        return str(int(ord))
    if math.isinf(ord):
        return "inf" if ord > 0 else "-inf"
    return f"{float(ord):.6f}"


def cond(A, p=None, *, out=None):
    """The condition number of each matrix in the norm ``p``: the ratio of the largest to the
    smallest singular value (``p`` None or 2; -2 the inverse ratio; SqueezeBackward1), else
    ``norm(A, p) * norm(A^-1, p)`` for square A ('fro', 'nuc', 1, -1, inf, -inf), as PyTorch
    composes it (inf where A is singular: NanToNumBackward0; 'nuc': MulBackward0 of the sums of
    A's singular values and of their reciprocals). As in PyTorch 2.13, only the orders 2, -2 and
    'nuc' can be differentiated: the others write the inverse in place after LinalgInvExBackward0
    kept it, and backward fails with "modified by an inplace operation".

    >>> from diffcompare import autograd as ag
    >>> ag.linalg.cond(ag.tensor([[2.0, 0.0], [0.0, 0.5]]))
    tensor(4.)
    """
    ord = 2 if p is None else p
    text = _ord_text(ord)
    if isinstance(ord, str):
        check_square(A, f"linalg.cond(ord={text})")
        if ord not in ("fro", "nuc"):
            raise RuntimeError(f"linalg.cond got an invalid norm type: {ord}")
    else:
        if A.ndim < 2:
            raise RuntimeError("linalg.cond: The input tensor must have at least 2 dimensions.")
        if ord not in (1, -1, 2, -2, math.inf, -math.inf):
            raise RuntimeError(f"linalg.cond got an invalid norm type: {text}")
    if A.numel() == 0:
        real = np.real(np.zeros((), dtype=A.dtype)).dtype
        return Tensor._make(np.zeros(tuple(A.shape[:-2]), dtype=real))
    if not isinstance(ord, str) and abs(ord) == 2:
        values = svdvals(A)
        s_max, s_min = values[..., :1], values[..., -1:]
        return (s_min / s_max if ord == -2 else s_max / s_min).squeeze(-1)
    check_square(A, f"linalg.cond(ord={text})")
    if ord == "nuc":        # the singular values of A^-1 are the reciprocals of A's
        return svdvals(A).sum(-1) * svdvals(A).reciprocal().sum(-1)
    inverse, info = inv_ex(A)
    # in place, as PyTorch: LinalgInvExBackward0 kept the inverse, so backward through these
    # norms fails in PyTorch's words ("modified by an inplace operation"), as in PyTorch 2.13
    inverse.masked_fill_(unsqueeze(unsqueeze(info, -1), -1) > 0, math.inf)
    result = matrix_norm(A, ord) * matrix_norm(inverse, ord)
    return result.nan_to_num_(math.inf, math.inf, -math.inf)


def tensorinv(A, ind=2, *, out=None):
    """The inverse of ``A`` for ``tensordot(..., ind)``: A read as a square matrix of its first
    ``ind`` dimensions by the rest, inverted, the result of shape A.shape[ind:] + A.shape[:ind]
    (a reshape, LinalgInvExBackward0, then PyTorch's ReshapeAliasBackward0).

    >>> from diffcompare import autograd as ag
    >>> tuple(ag.linalg.tensorinv(ag.eye(4).reshape(4, 2, 2), ind=1).shape)
    (2, 2, 4)
    """
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    end, start = list(A.shape[ind:]), list(A.shape[:ind])
    p_end, p_start = math.prod(end), math.prod(start)
    if p_end != p_start:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[ind:]) == prod(self.shape[:ind]), "
                           f"but got {p_end} != {p_start}")
    inverse, info = inv_ex(A.reshape(p_end, p_end))
    if np.any(info.numpy()):
        raise LinAlgError(f"inv: The diagonal element {int(info.item())} is zero, the inversion could not be completed "
                          "because the input matrix is singular.")
    return rename_node_of(inverse.reshape(end + start), "ReshapeAliasBackward0")


def tensorsolve(A, B, dims=None, *, out=None):
    """X with ``tensordot(A, X, X.ndim) = B``: A read as a square matrix (its dimensions ``dims``
    moved to the end first), solved for B flattened, the result of shape A.shape[B.ndim:]
    (LinalgSolveExBackward0 between reshapes).

    >>> from diffcompare import autograd as ag
    >>> ag.linalg.tensorsolve(2 * ag.eye(4).reshape(2, 2, 4), ag.ones(2, 2))
    tensor([0.5000, 0.5000, 0.5000, 0.5000])
    """
    ndim = A.ndim
    if dims is not None:
        dims = [dims] if isinstance(dims, numbers.Integral) else list(dims)
        A = A.movedim(dims, list(range(ndim - len(dims), ndim)))
    result_shape = list(A.shape[B.ndim:])
    p_result, p_other = math.prod(result_shape), math.prod(B.shape)
    if p_result != p_other:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
                           f"prod(self.shape[:other.ndim]), but got {p_result} != {p_other}")
    flat = B.flatten() if B.ndim != 1 else B
    return solve(A.reshape(p_result, p_result), flat).reshape(result_shape)


_VANDER_KINDS = "fciu"


def vander(x, *, N=None):
    """The Vandermonde matrix of the last dimension of ``x``: columns 1, x, x^2, ..., x^(N-1)
    (N defaults to x's last size), a cumulative product joined to a column of ones
    (CatBackward0), as ``torch.linalg.vander``; integer input gives int64.

    >>> from diffcompare import autograd as ag
    >>> ag.linalg.vander(ag.tensor([1.0, 2.0, 3.0]))
    tensor([[1., 1., 1.],
            [1., 2., 4.],
            [1., 3., 9.]])
    """
    kind = x.dtype.kind
    if kind not in _VANDER_KINDS or x.dtype == np.float16:
        name = {"b": "Bool", "f": "Half"}.get(kind, str(x.dtype))
        raise RuntimeError(f"linalg.vander supports floating point, complex, and integer tensors, but got {name}")
    x_ = x.unsqueeze(-1) if x.ndim == 0 else x
    shape = list(x_.shape)
    n = shape[-1] if N is None else int(N)
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    powers = cumprod(x_.unsqueeze(-1).expand(*shape, n - 1), -1)
    ones = powers.new_ones(*shape, 1)
    return cat([ones, powers], -1)


def vecdot(x, y, *, dim=-1, out=None):
    """The dot products of the vectors along ``dim``, the first conjugated: ``sum(x.conj() * y)``
    (SumBackward1; two 1-d tensors: vdot, VdotBackward0), as ``torch.linalg.vecdot``.

    >>> from diffcompare import autograd as ag
    >>> ag.linalg.vecdot(ag.tensor([[1.0, 2.0], [3.0, 4.0]]), ag.tensor([1.0, 1.0]))
    tensor([3., 7.])
    """
    if x.dtype.kind not in "fc":
        name = {"i": "Int" if x.dtype == np.int32 else "Long", "b": "Bool", "u": "Byte"}.get(x.dtype.kind, str(x.dtype))
        raise RuntimeError(f"linalg.vecdot: Expected a floating point or complex tensor as input. Got {name}")
    check_same_dtype("linalg.vecdot: ", ("x", "y"), x, y)
    if x.ndim == 1 and y.ndim == 1:
        return vdot(x, y)
    return ((x.conj() if x.dtype.kind == "c" else x) * y).sum(dim)
