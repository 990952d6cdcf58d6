"""Matrix structure: triangles (``tril``, ``triu``), diagonals (``diagonal``, ``diag``,
``diag_embed``, ``trace``), and the products built from the elements (``outer``, ``kron``,
``cross``). Each op's backward is an op of this family, so second derivatives follow.

>>> from diffcompare import autograd as ag
>>> a = ag.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
>>> ag.tril(a).sum().backward()
>>> a.grad
tensor([[1., 0.],
        [1., 1.]])
"""

from __future__ import annotations

import warnings

import numpy as np

from ..tensor import Tensor
from .dual import D, define, register
from .recording import Op, apply, array_of, check_dim
from .shape import UnsafeViewBackward0, record_view, unsqueeze


def _need_matrix(x, name):
    if x.ndim < 2:
        raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")


class TrilBackward0(Op):
    """The lower triangle (with the ``diagonal``-th diagonal); the gradient is the same triangle of g."""
    forward = staticmethod(lambda x, diagonal: np.tril(x, diagonal))

    def backward(self, g):
        return (D.tril(g, self.diagonal),)


class TriuBackward0(Op):
    forward = staticmethod(lambda x, diagonal: np.triu(x, diagonal))

    def backward(self, g):
        return (D.triu(g, self.diagonal),)


def tril(x, diagonal=0):
    """The lower triangle of the last two dimensions, from the ``diagonal``-th diagonal down.

    >>> from diffcompare import autograd as ag
    >>> ag.tril(ag.ones(2, 3), 1)
    tensor([[1., 1., 0.],
            [1., 1., 1.]])
    """
    _need_matrix(x, "tril")
    return apply(TrilBackward0, (x,), {"diagonal": int(diagonal)})


def triu(x, diagonal=0):
    """The upper triangle of the last two dimensions, from the ``diagonal``-th diagonal up."""
    _need_matrix(x, "triu")
    return apply(TriuBackward0, (x,), {"diagonal": int(diagonal)})


def _diagonal_positions(n, offset):
    i = np.arange(n)
    return i + max(-offset, 0), i + max(offset, 0)


class DiagEmbedBackward0(Op):
    """Zeros of ``shape`` with ``v``'s last axis written on the ``offset`` diagonal of
    dimensions (dim1, dim2): ``diag_embed``, ``diag`` of a vector, and ``diagonal``'s backward."""

    @staticmethod
    def forward(v, offset, dim1, dim2, shape):
        out = np.zeros(shape, dtype=np.result_type(v))
        rows, cols = _diagonal_positions(np.shape(v)[-1], offset)
        np.moveaxis(out, (dim1, dim2), (-2, -1))[..., rows, cols] = v
        return out

    def backward(self, g):
        return (diagonal(g, self.offset, self.dim1, self.dim2) if isinstance(g, Tensor) else
                np.diagonal(g, self.offset, self.dim1, self.dim2),)


def diagonal_view(a, offset, dim1, dim2):
    """``np.diagonal`` as a view that writes through to ``a`` where ``a`` is writeable (NumPy
    hands out a read-only one), as PyTorch's diagonal is a view: ``x.diagonal().add_(1)``
    changes ``x``.

    >>> a = np.zeros((2, 3))
    >>> diagonal_view(a, 1, 0, 1)[...] = 7.0
    >>> a
    array([[0., 7., 0.],
           [0., 0., 7.]])
    """
    d = np.diagonal(a, offset, dim1, dim2)
    if a.flags.writeable and d.base is not None:
        d.flags.writeable = True
    return d


class DiagonalBackward0(Op):
    """The ``offset`` diagonal of dimensions (dim1, dim2), as the last dimension: a view of
    the input (``diagonal``)."""

    @staticmethod
    def forward(x, offset, dim1, dim2, in_shape):
        return diagonal_view(x, offset, dim1, dim2)

    def backward(self, g):
        params = {"offset": self.offset, "dim1": self.dim1, "dim2": self.dim2, "shape": self.in_shape}
        if isinstance(g, Tensor):
            return (apply(DiagEmbedBackward0, (g,), params),)
        return (DiagEmbedBackward0.forward(g, **params),)


class DiagonalBackward0_copy(DiagonalBackward0):  # noqa: N801 - PyTorch's name for diag() of a matrix
    """``diag`` of a matrix: the diagonal as a new tensor (not a view), as PyTorch's."""

    @staticmethod
    def forward(x, offset, dim1, dim2, in_shape):
        return np.diagonal(x, offset, dim1, dim2).copy()


def diagonal(x, offset=0, dim1=0, dim2=1):
    """The ``offset`` diagonal of dimensions ``dim1`` and ``dim2``, as the last dimension.

    >>> from diffcompare import autograd as ag
    >>> ag.diagonal(ag.tensor([[1.0, 2.0], [3.0, 4.0]]), 1)
    tensor([2.])
    """
    d1, d2 = check_dim(dim1, x.ndim), check_dim(dim2, x.ndim)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    offset = int(offset)
    return record_view(DiagonalBackward0, x, {"offset": offset, "dim1": d1, "dim2": d2, "in_shape": x.shape},
                       lambda a: diagonal(a, offset, d1, d2) if isinstance(a, Tensor) else
                       diagonal_view(a, offset, d1, d2))


def diag_embed(x, offset=0, dim1=-2, dim2=-1):
    """Each vector along the last dimension written on a diagonal of a new pair of dimensions."""
    ndim = x.ndim + 1
    d1, d2 = check_dim(dim1, ndim), check_dim(dim2, ndim)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    n = x.shape[-1] + abs(int(offset)) if x.ndim else 1 + abs(int(offset))
    rest = list(x.shape[:-1])
    shape = []
    for axis in range(ndim):
        shape.append(n if axis in (d1, d2) else rest.pop(0))
    return apply(DiagEmbedBackward0, (x,), {"offset": int(offset), "dim1": d1, "dim2": d2, "shape": tuple(shape)})


def diag(x, diagonal=0):
    """A vector's square matrix with the vector on its ``diagonal``-th diagonal; a matrix's diagonal.

    >>> from diffcompare import autograd as ag
    >>> ag.diag(ag.tensor([1.0, 2.0]))
    tensor([[1., 0.],
            [0., 2.]])
    """
    if x.ndim == 1:
        return diag_embed(x, diagonal, 0, 1)
    if x.ndim != 2:
        raise RuntimeError("diag(): Supports 1D or 2D tensors. Got %dD" % x.ndim)
    return apply(DiagonalBackward0_copy, (x,), {"offset": int(diagonal), "dim1": 0, "dim2": 1, "in_shape": x.shape})


class TraceBackward0(Op):
    """The sum of the diagonal; the gradient is g on the diagonal."""
    forward = staticmethod(lambda x, in_shape: np.asarray(np.trace(x)))

    def backward(self, g):
        return (g * np.eye(*self.in_shape, dtype=array_of(g).dtype),)


def trace(x):
    """The sum of a matrix's diagonal.

    >>> from diffcompare import autograd as ag
    >>> ag.trace(ag.tensor([[1.0, 2.0], [3.0, 4.0]]))
    tensor(5.)
    """
    if x.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {x.ndim}")
    return apply(TraceBackward0, (x,), {"in_shape": x.shape})


def outer(input, vec2):
    """The outer product of two vectors, recorded as PyTorch does (MulBackward0)."""
    a, b = input, vec2
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"outer: Expected 1-D argument self, but got {a.ndim}-D" if a.ndim != 1 else
                           f"outer: Expected 1-D argument vec2, but got {b.ndim}-D")
    return unsqueeze(a, 1) * b


ger = outer


def kron(a, b):
    """The Kronecker product: blocks a[i, j] * b.

    >>> from diffcompare import autograd as ag
    >>> ag.kron(ag.tensor([1.0, 2.0]), ag.tensor([1.0, 10.0]))
    tensor([ 1., 10.,  2., 20.])
    """
    ndim = max(a.ndim, b.ndim)
    a = a.reshape((1,) * (ndim - a.ndim) + tuple(a.shape))
    b = b.reshape((1,) * (ndim - b.ndim) + tuple(b.shape))
    # interleave the axes: a's k-th axis, then b's k-th
    a_wide = a.reshape(tuple(n for m in a.shape for n in (m, 1)))
    b_wide = b.reshape(tuple(n for m in b.shape for n in (1, m)))
    product = a_wide * b_wide
    shape = tuple(m * n for m, n in zip(a.shape, b.shape))
    return apply(UnsafeViewBackward0, (product,), {"shape": shape, "in_shape": product.shape})


class LinalgCrossBackward0(Op):
    """a × b along ``dim``: d a = b × g, d b = g × a."""
    broadcasts = True
    saves = (0, 1)
    forward = staticmethod(lambda a, b, dim: np.cross(a, b, axis=dim))

    def backward(self, g, a, b):
        ga = D.cross(b, g, self.dim) if self.needs(0) else None
        gb = D.cross(g, a, self.dim) if self.needs(1) else None
        return ga, gb


def linalg_cross(a, b, dim=-1):
    """The cross product of 3-vectors along ``dim`` (``torch.linalg.cross``; broadcasts)."""
    if a.ndim != b.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    ndim = a.ndim
    d = check_dim(dim, ndim) - ndim
    if a.shape[d] != 3 or b.shape[d] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got {a.shape[d]} and "
                           f"{b.shape[d]}")
    return apply(LinalgCrossBackward0, (a, b), {"dim": d})


for _cls in (TrilBackward0, TriuBackward0, DiagEmbedBackward0, DiagonalBackward0, TraceBackward0):
    _cls.tangent = "linear"


def cross(input, other, dim=None):
    """``torch.cross``: as :func:`linalg_cross`; without ``dim``, along the first dimension of
    size 3 (deprecated in PyTorch, which warns the same way).

    >>> from diffcompare import autograd as ag
    >>> ag.cross(ag.tensor([1.0, 0.0, 0.0]), ag.tensor([0.0, 1.0, 0.0]), dim=0)
    tensor([0., 0., 1.])
    """
    if dim is None:
        warnings.warn("Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the dim "
                      "explicitly or simply use torch.linalg.cross.\nThe default value of dim will change to agree "
                      "with that of linalg.cross in a future release.", UserWarning, stacklevel=2)
        shape = np.broadcast_shapes(tuple(input.shape), tuple(other.shape))
        dim = next((i for i, n in enumerate(shape) if n == 3), -1)
    return linalg_cross(input, other, dim)


def _cross_tangent(node, tangents, arrays, out):
    """(a + ta) × (b + tb) to first order: ta × b + a × tb."""
    (ta, tb), (a, b) = tangents, arrays
    parts = [np.cross(t, o, axis=node.dim) if i == 0 else np.cross(o, t, axis=node.dim)
             for i, (t, o) in enumerate(((ta, b), (tb, a))) if t is not None]
    return parts[0] if len(parts) == 1 else parts[0] + parts[1]


LinalgCrossBackward0.tangent = staticmethod(_cross_tangent)


class BlockDiagBackward0(Op):
    """The inputs (each made 2-d: a 0-d one 1x1, a 1-d one a row) on the diagonal of a zero
    matrix; each one's gradient is its block of g."""

    @staticmethod
    def forward(*blocks, shapes, in_shapes):
        blocks = [np.reshape(b, s) for b, s in zip(blocks, shapes)]
        rows, cols = sum(s[0] for s in shapes), sum(s[1] for s in shapes)
        out = np.zeros((rows, cols), np.result_type(*blocks) if blocks else np.float64)
        r = c = 0
        for b in blocks:
            out[r:r + b.shape[0], c:c + b.shape[1]] = b
            r, c = r + b.shape[0], c + b.shape[1]
        return out

    def backward(self, g):
        grads, r, c = [], 0, 0
        for k, ((n, m), shape) in enumerate(zip(self.shapes, self.in_shapes)):
            grads.append(g[r:r + n, c:c + m].reshape(shape) if self.needs(k) else None)
            r, c = r + n, c + m
        return tuple(grads)


def block_diag(*tensors):
    """A block-diagonal matrix of the tensors (0-d, 1-d or 2-d each)."""
    shapes, in_shapes = [], []
    for k, t in enumerate(tensors):
        if t.ndim > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {k} has "
                               f"{t.ndim} dimensions")
        shapes.append((1, 1) if t.ndim == 0 else (1, t.shape[0]) if t.ndim == 1 else tuple(t.shape))
        in_shapes.append(tuple(t.shape))
    return apply(BlockDiagBackward0, tuple(tensors), {"shapes": tuple(shapes), "in_shapes": tuple(in_shapes)})

register(tril=tril, triu=triu, cross=linalg_cross)
define("tril", np.tril)
define("triu", np.triu)
define("cross", lambda a, b, dim: np.cross(a, b, axis=dim))


# the torch-level functions of this family (`ag.<name>`, as `torch.<name>`)
PUBLIC = ('block_diag', 'cross', 'diag', 'diag_embed', 'diagonal', 'ger', 'kron', 'outer', 'trace', 'tril', 'triu')
# what the family exports to `ops`
__all__ = ['BlockDiagBackward0', 'DiagEmbedBackward0', 'DiagonalBackward0', 'DiagonalBackward0_copy', 'LinalgCrossBackward0',
           'TraceBackward0', 'TrilBackward0', 'TriuBackward0', 'linalg_cross', *PUBLIC]
