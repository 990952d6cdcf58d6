"""Writing values into a copy of a tensor at given places: ``scatter_reduce`` (sum, prod,
mean, amax, amin, with or without the tensor's own values), ``scatter(reduce=)``,
``masked_scatter``, ``put``, ``index_put``, ``index_copy``, ``fill_diagonal_``; and
``unfold``, the view of sliding windows. Each records PyTorch's node, with PyTorch's
gradient formulas (``scatter_reduce``'s from its ``scatter_reduce_backward``).

>>> from diffcompare import autograd as ag
>>> x = ag.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
>>> y = x.scatter_reduce(0, ag.tensor([0, 1, 0]), ag.tensor([5.0, 6.0, 7.0]), reduce="amax")
>>> y
tensor([7., 6., 3., 4.], grad_fn=<ScatterReduceBackward0>)
>>> x.unfold(0, 2, 2)
tensor([[1., 2.],
        [3., 4.]], grad_fn=<UnfoldBackward0>)
"""

from __future__ import annotations

import warnings

import numpy as np

from ..tensor import Tensor
from .dual import D
from .indexing import index_add_zeros
from .inplace import write_in_place
from .matrices import diagonal, diagonal_view
from .recording import Op, apply, array_of, check_dim, sum_to
from .shape import record_view


def _index(index, name):
    a = np.asarray(array_of(index))
    if a.dtype.kind not in "iu":
        raise RuntimeError(f"{name}(): Expected dtype int64 for index")
    return a.astype(np.int64, copy=False)


def _along(index, dim):
    """The advanced index that reaches ``[..., index[i,j], ...]`` along ``dim`` (take_along_axis as x[...])."""
    grid = list(np.indices(index.shape, sparse=True))
    grid[dim] = index
    return tuple(grid)


def _tensor(value, like):
    if isinstance(value, Tensor):
        return value
    return Tensor._make(np.asarray(value, dtype=like.dtype))


# -- scatter_reduce ---------------------------------------------------------------------------

_UFUNCS = {"sum": np.add, "mean": np.add, "prod": np.multiply, "amax": np.maximum, "amin": np.minimum}


def _identity(reduce, dtype):
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    big = np.inf if dtype.kind == "f" else np.iinfo(dtype).max
    return -big if reduce == "amax" else big


def _reduced(x, src, index, reduce, include_self):
    """``x`` with ``src`` reduced in at ``index`` (an advanced index of x), on arrays."""
    out = np.array(x)
    if not include_self:
        out[index] = _identity(reduce, out.dtype)
    _UFUNCS[reduce].at(out, index, src)
    if reduce == "mean":
        counts = np.full(out.shape, 1 if include_self else 0, dtype=np.int64)
        np.add.at(counts, index, 1)
        counts[counts == 0] = 1
        out = out / counts if out.dtype.kind in "fc" else out // counts
    return out.astype(x.dtype, copy=False)


class ScatterReduceBackward0(Op):
    """``self`` with ``src`` reduced in along a dimension (``scatter_reduce``); the gradient is
    PyTorch's: sum and mean spread it, prod divides the product out (zeros handled apart),
    amax and amin share it evenly among the elements equal to the result."""
    saves = (0, 1, -1)

    @staticmethod
    def forward(x, src, index, reduce, include_self, scattered):
        return _reduced(x, src, index, reduce, include_self)

    def backward(self, g, x, src, result):
        index, reduce = self.index, self.reduce
        xa, sa, ra = (np.asarray(array_of(v)) for v in (x, src, result))
        if reduce == "sum":
            gx, gs = g, g[index]
        elif reduce == "mean":
            n = np.full(xa.shape, 1 if self.include_self else 0, dtype=xa.dtype)
            np.add.at(n, index, 1)
            n[n == 0] = 1
            gx, gs = g / n, g[index] / n[index]
        elif reduce == "prod":
            masked_self = np.where(xa == 0, 1, xa)
            gx = g * _reduced(masked_self, sa, index, "prod", self.include_self) / masked_self
            src_zero = sa == 0
            zeros = np.zeros(xa.shape, dtype=np.int64)
            np.add.at(zeros, index, src_zero.astype(np.int64))
            single = src_zero & (zeros[index] == 1)
            masked_src_result = _reduced(xa, np.where(single, 1, sa), index, "prod", self.include_self)
            gs = D.where(single, (g * masked_src_result)[index], (g * ra)[index] / np.where(src_zero, 1, sa))
        else:                                   # amax, amin
            value = ra[index]
            self_is = (xa == ra).astype(xa.dtype)     # counted even when not included, as in PyTorch
            src_is = (sa == value).astype(xa.dtype)
            count = np.array(self_is)
            np.add.at(count, index, src_is)
            share = g / np.where(count == 0, 1, count)
            gx, gs = share * self_is, share[index] * src_is
        if not self.include_self:
            gx = gx * self.scattered
        return (gx if self.needs(0) else None), (gs if self.needs(1) else None)


def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):
    """``input`` with each ``src[i][j]`` reduced into ``[i][index[i][j]]`` (dim = 1) by
    ``reduce`` ("sum", "prod", "mean", "amax", "amin"), the input's own values taking part
    unless ``include_self=False`` (ScatterReduceBackward0).

    >>> from diffcompare import autograd as ag
    >>> ag.tensor([1.0, 2.0]).scatter_reduce(0, ag.tensor([0, 0]), ag.tensor([3.0, 4.0]), "sum")
    tensor([8., 2.])
    >>> ag.tensor([1.0, 2.0]).scatter_reduce(0, ag.tensor([0, 0]), ag.tensor([3.0, 4.0]), "mean",
    ...                                      include_self=False)
    tensor([3.5000, 2.0000])
    """
    if reduce not in _UFUNCS:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    d = check_dim(dim, input.ndim)
    idx = _index(index, "scatter_reduce")
    src = _tensor(src, input)
    along = _along(idx, d)
    part = tuple(slice(0, n) for n in idx.shape)
    src_part = src if tuple(src.shape) == tuple(idx.shape) else src[part]
    scattered = np.ones(input.shape, dtype=input.dtype)
    scattered[along] = 0
    return apply(ScatterReduceBackward0, (input, src_part), {"index": along, "reduce": reduce,
                                                             "include_self": bool(include_self),
                                                             "scattered": scattered})


class IndexReduceBackward0(ScatterReduceBackward0):
    """``index_reduce``: ``scatter_reduce`` with whole slices along a dimension (the same rule)."""


def index_reduce(input, dim, index, source, reduce, *, include_self=True):
    """``input`` with the slices of ``source`` along ``dim`` reduced into positions ``index`` by
    ``reduce`` ("prod", "mean", "amax", "amin") (IndexReduceBackward0).

    >>> import warnings
    >>> from diffcompare import autograd as ag
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     ag.full((3,), 2.0).index_reduce(0, ag.tensor([0, 0]), ag.tensor([3.0, 4.0]), "prod")
    tensor([24.,  2.,  2.])
    """
    warnings.warn("index_reduce() is in beta and the API may change at any time.", UserWarning, stacklevel=2)
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}.")
    d = check_dim(dim, input.ndim)
    idx = _index(index, "index_reduce").reshape(-1)
    source = _tensor(source, input)
    shape = [1] * max(source.ndim, 1)
    shape[d] = -1
    full = np.broadcast_to(idx.reshape(shape), tuple(source.shape) if source.ndim else (1,))
    along = _along(np.ascontiguousarray(full), d)
    scattered = np.ones(input.shape, dtype=input.dtype)
    scattered[along] = 0
    return apply(IndexReduceBackward0, (input, source), {"index": along, "reduce": reduce,
                                                         "include_self": bool(include_self), "scattered": scattered})


class NotImplementedBackward(Op):
    """A node whose derivative PyTorch does not implement (``scatter`` with ``reduce=``):
    backward through it raises PyTorch's error."""

    @staticmethod
    def forward(x, *rest, compute, op_name):
        return compute(x, *rest)

    def backward(self, g):
        raise RuntimeError(f"derivative for {self.op_name} is not implemented")


NotImplementedBackward.__name__ = "NotImplemented"
NotImplementedBackward.name = lambda self: "torch::autograd::NotImplemented"


class _NoDerivative(NotImplementedBackward):
    """A node of PyTorch's generated code for an op declared not differentiable (``Unique2Backward0``)."""

    def backward(self, g):
        raise RuntimeError(f"the derivative for '{self.op_name}' is not implemented.")

    def name(self):
        return type(self).__name__


_NO_DERIVATIVE: dict = {}


def not_differentiable(inputs, value, op, node=None):
    """``value`` (an array computed from the tensors ``inputs``) as the result of an op without a
    derivative: recorded, where an input requires grad, under the node PyTorch records, which
    refuses backward in PyTorch's words: ``NotImplemented`` (``op`` is the ATen name,
    "derivative for aten::<op> is not implemented"), or the generated ``node`` ("the derivative
    for '<op>' is not implemented.").

    >>> from diffcompare import autograd as ag
    >>> x = ag.tensor([1.0, 2.0], requires_grad=True)
    >>> not_differentiable((x,), np.array([3.0]), "histogram").grad_fn.name()
    'torch::autograd::NotImplemented'
    """
    compute = lambda *arrays: value     # noqa: E731 (already computed)
    if node is None:
        return apply(NotImplementedBackward, tuple(inputs), {"compute": compute, "op_name": f"aten::{op}"})
    cls = _NO_DERIVATIVE.get(node)
    if cls is None:
        cls = _NO_DERIVATIVE[node] = type(node, (_NoDerivative,), {"__doc__": _NoDerivative.__doc__})
    return apply(cls, tuple(inputs), {"compute": compute, "op_name": op})


def scatter_with_reduce(input, dim, index, src, reduce):
    """``scatter(dim, index, src, reduce="add"|"multiply")``: ``src`` (a tensor or a number)
    added or multiplied in at ``index``; PyTorch records a node that cannot be differentiated."""
    ufunc = {"add": np.add, "multiply": np.multiply}.get(reduce)
    if ufunc is None:
        raise RuntimeError(f"reduce argument must be either add or multiply., got {reduce}")
    d = check_dim(dim, input.ndim)
    idx = _index(index, "scatter")
    along = _along(idx, d)
    if isinstance(src, Tensor):
        warnings.warn("The reduce argument of torch.scatter with Tensor src is deprecated and will be removed in a "
                      "future PyTorch release. Use torch.scatter_reduce instead for more reduction options.",
                      UserWarning, stacklevel=3)
        part = tuple(slice(0, n) for n in idx.shape)

        def compute(x, s):
            out = np.array(x)
            ufunc.at(out, along, s[part])
            return out
        return apply(NotImplementedBackward, (input, src), {"compute": compute, "op_name": "aten::scatter"})

    def compute_value(x):
        out = np.array(x)
        ufunc.at(out, along, np.asarray(src, dtype=out.dtype))
        return out
    return apply(NotImplementedBackward, (input,), {"compute": compute_value, "op_name": "aten::scatter"})


# -- masked_scatter, put, index_put, index_copy -------------------------------------------------

class MaskedScatterBackward0(Op):
    """``self`` with the leading elements of ``source`` written where ``mask`` is true, in order."""

    @staticmethod
    def forward(x, source, mask, count, source_shape):
        out = np.array(np.broadcast_to(x, mask.shape))
        out[mask] = source.reshape(-1)[:count]
        return out

    def backward(self, g):
        gx = D.where(self.mask, 0.0, g) if self.needs(0) else None
        gs = None
        if self.needs(1):
            size = int(np.prod(self.source_shape))
            gs = index_add_zeros(g[self.mask], (slice(0, self.count),), (size,), basic=True).reshape(self.source_shape)
        return gx, gs


def masked_scatter(input, mask, source):
    """``input`` with ``source``'s elements, in order, written where ``mask`` is true
    (MaskedScatterBackward0).

    >>> from diffcompare import autograd as ag
    >>> ag.zeros(4).masked_scatter(ag.tensor([False, True, False, True]), ag.tensor([1.0, 2.0, 3.0]))
    tensor([0., 1., 0., 2.])
    """
    m = np.asarray(array_of(mask))
    if m.dtype != np.bool_:
        raise RuntimeError(f"masked_scatter_: expected BoolTensor for mask")
    shape = np.broadcast_shapes(tuple(input.shape), m.shape)
    m = np.broadcast_to(m, shape)
    count = int(m.sum())
    if count > source.numel():
        raise RuntimeError("Number of elements of source < number of ones in mask")
    return apply(MaskedScatterBackward0, (input, source), {"mask": m, "count": count,
                                                           "source_shape": tuple(source.shape)})


class PutBackward0(Op):
    """``self`` with ``source`` written (or added, ``accumulate``) at flat positions ``index``."""

    @staticmethod
    def forward(x, source, index, accumulate, kept):
        out = np.array(x)
        flat = out.reshape(-1)
        values = np.broadcast_to(source, index.shape).reshape(-1)
        if accumulate:
            np.add.at(flat, index.reshape(-1), values)
        else:
            flat[index.reshape(-1)] = values
        return out

    def backward(self, g):
        gx = (g if self.accumulate else g * self.kept) if self.needs(0) else None
        gs = g.reshape(-1)[self.index.reshape(-1)].reshape(self.index.shape) if self.needs(1) else None
        return gx, gs


def put(input, index, source, accumulate=False):
    """``input`` with ``source`` written at the flat positions ``index`` (PutBackward0), added
    there with ``accumulate=True``.

    >>> from diffcompare import autograd as ag
    >>> ag.tensor([[4, 3, 5], [6, 7, 8]]).put(ag.tensor([1, 3]), ag.tensor([9, 10]))
    tensor([[ 4,  9,  5],
            [10,  7,  8]])
    """
    idx = _index(index, "put")
    n = input.numel()
    bad = idx[(idx >= n) | (idx < -n)]
    if bad.size:
        raise IndexError(f"out of range: tried to access index {int(bad[0])} on a tensor of {n} elements.")
    idx = np.where(idx < 0, idx + n, idx)
    source = _tensor(source, input)
    if source.numel() != idx.size:
        raise RuntimeError(f"put_(): Expected source and index to have the same number of elements, but got "
                           f"source.numel() = {source.numel()}, index.numel() = {idx.size}")
    kept = np.ones(input.shape, dtype=input.dtype)
    kept.reshape(-1)[idx.reshape(-1)] = 0
    return apply(PutBackward0, (input, source.reshape(idx.shape)), {"index": idx, "accumulate": bool(accumulate),
                                                                     "kept": kept})


class IndexPutOutOfPlace(Op):
    """``self`` with ``values`` written (or added, ``accumulate``) at an advanced index (``index_put``)."""

    @staticmethod
    def forward(x, values, index, accumulate, value_shape):
        out = np.array(x)
        if accumulate:
            np.add.at(out, index, values)
        else:
            out[index] = values
        return out

    def backward(self, g):
        gx = None
        if self.needs(0):
            if self.accumulate:
                gx = g
            else:
                mask = np.ones(g.shape, dtype=bool)
                mask[self.index] = False
                gx = D.where(mask, g, 0.0)
        gv = sum_to(g[self.index], self.value_shape) if self.needs(1) else None
        return gx, gv


IndexPutOutOfPlace.__name__ = "IndexPutBackward0"


def index_put(input, indices, values, accumulate=False):
    """``input`` with ``values`` written at ``input[indices]`` (a tuple of index tensors), added
    there with ``accumulate=True`` (IndexPutBackward0).

    >>> from diffcompare import autograd as ag
    >>> ag.zeros(3).index_put((ag.tensor([0, 0]),), ag.tensor([1.0, 2.0]), accumulate=True)
    tensor([3., 0., 0.])
    """
    index = tuple(np.asarray(array_of(i)) for i in indices)
    values = _tensor(values, input)
    return apply(IndexPutOutOfPlace, (input, values), {"index": index, "accumulate": bool(accumulate),
                                                      "value_shape": tuple(values.shape)})


class IndexCopyBackward0(Op):
    """``self`` with the slices of ``source`` copied to positions ``index`` along a dimension."""

    @staticmethod
    def forward(x, source, place, kept):
        out = np.array(x)
        out[place] = source
        return out

    def backward(self, g):
        return (g * self.kept if self.needs(0) else None), (g[self.place] if self.needs(1) else None)


def index_copy(input, dim, index, source):
    """``input`` with ``source``'s slices along ``dim`` copied to positions ``index`` (IndexCopyBackward0).

    >>> from diffcompare import autograd as ag
    >>> ag.zeros(3, 2).index_copy(0, ag.tensor([2, 0]), ag.tensor([[1.0, 2.0], [3.0, 4.0]]))
    tensor([[3., 4.],
            [0., 0.],
            [1., 2.]])
    """
    d = check_dim(dim, input.ndim)
    idx = _index(index, "index_copy").reshape(-1)
    place = (slice(None),) * d + (idx,)
    kept = np.ones(input.shape, dtype=input.dtype)
    kept[place] = 0
    return apply(IndexCopyBackward0, (input, _tensor(source, input)), {"place": place, "kept": kept})


# -- fill_diagonal_ -----------------------------------------------------------------------------

class FillDiagonalBackward(Op):
    """The main diagonal filled with a number (PyTorch records CopySlices): its gradient is zero there."""

    @staticmethod
    def forward(x, value, positions):
        out = np.array(x)
        out.reshape(-1)[positions] = value
        return out

    def backward(self, g):
        flat_mask = np.ones(int(np.prod(g.shape)), dtype=bool)
        flat_mask[self.positions] = False
        return (D.where(flat_mask.reshape(g.shape), g, 0.0),)


FillDiagonalBackward.__name__ = "CopySlices"
FillDiagonalBackward.tangent = "linear"


def fill_diagonal_(input, fill_value, wrap=False):
    """Fill the main diagonal (all indices equal) in place; on a tall matrix with ``wrap`` the
    diagonal restarts every ``ncols + 1`` rows, as in PyTorch.

    >>> from diffcompare import autograd as ag
    >>> ag.zeros(3, 2).fill_diagonal_(5.0)
    tensor([[5., 0.],
            [0., 5.],
            [0., 0.]])
    """
    shape = tuple(input.shape)
    if len(shape) < 2:
        raise RuntimeError("dimensions must larger than 1")
    if len(shape) > 2 and len(set(shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    n = min(shape)
    strides = np.cumprod((1,) + shape[:0:-1])[::-1]      # row-major strides in elements
    step = int(strides.sum())
    if len(shape) == 2 and wrap and shape[0] > shape[1]:
        positions = np.arange(0, shape[0] * shape[1], shape[1] + 1)
    else:
        positions = np.arange(n) * step
    return write_in_place(input, lambda old: apply(FillDiagonalBackward, (old,), {"value": fill_value,
                                                                                  "positions": positions}))


# -- unfold ---------------------------------------------------------------------------------------

class UnfoldBackward0(Op):
    """The windows of ``size`` elements every ``step`` along a dimension, as a view; the
    gradient adds each window's part back where it came from (overlaps accumulate)."""

    @staticmethod
    def forward(x, dim, size, step, in_shape, place):
        count = (x.shape[dim] - size) // step + 1 if x.ndim else 1
        if x.ndim == 0:
            return np.lib.stride_tricks.as_strided(x, (size,), (0,))
        shape = x.shape[:dim] + (count,) + x.shape[dim + 1:] + (size,)
        strides = x.strides[:dim] + (x.strides[dim] * step,) + x.strides[dim + 1:] + (x.strides[dim],)
        return np.lib.stride_tricks.as_strided(x, shape, strides, writeable=x.flags.writeable)

    def backward(self, g):
        if not self.in_shape:
            return (g.sum(),)
        return (index_add_zeros(g, self.place, self.in_shape),)


UnfoldBackward0.tangent = "linear"


def unfold(input, dimension, size, step):
    """A view with every window of ``size`` elements along ``dimension``, one each ``step``,
    in a new last dimension (UnfoldBackward0).

    >>> from diffcompare import autograd as ag
    >>> ag.arange(1.0, 6.0).unfold(0, 2, 1)
    tensor([[1., 2.],
            [2., 3.],
            [3., 4.],
            [4., 5.]])
    """
    shape = tuple(input.shape)
    d = check_dim(dimension, len(shape))
    length = shape[d] if shape else 1
    if size > length:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {length} but size is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    place = None
    if shape:
        count = (length - size) // step + 1
        out_shape = shape[:d] + (count,) + shape[d + 1:] + (size,)
        grid = list(np.indices(out_shape, sparse=True))
        positions = grid[d] * step + grid[-1]
        place = tuple(grid[:d]) + (positions,) + tuple(grid[d + 1:-1])
    params = {"dim": d, "size": size, "step": step, "in_shape": shape, "place": place}
    return record_view(UnfoldBackward0, input, params,
                       lambda a: UnfoldBackward0.forward(a, d, size, step, shape, place))


class _EmbedBackward(Op):
    """``input`` with a region (a view of it: ``region``, a function of an array or tensor)
    replaced by ``src``: the gradient of ``input`` is the gradient with that region zeroed, the
    gradient of ``src`` the region's part of it."""

    @staticmethod
    def forward(x, src, region):
        out = np.array(x)
        region(out)[...] = src
        return out

    def backward(self, g):
        region = self.region
        if isinstance(g, Tensor):
            grad_input = apply(type(self), (g, D.zeros_like(region(g))), {"region": region}) if self.needs(0) else None
            return grad_input, (region(g) if self.needs(1) else None)
        grad_input = None
        if self.needs(0):
            grad_input = np.array(g)
            region(grad_input)[...] = 0
        return grad_input, (np.array(region(g)) if self.needs(1) else None)


class SelectScatterBackward0(_EmbedBackward):
    pass


class SliceScatterBackward0(_EmbedBackward):
    pass


class DiagonalScatterBackward0(_EmbedBackward):
    pass


def _embed(cls, input, src, region):
    part = region(input._data)
    src_shape = tuple(np.shape(array_of(src)))
    if src_shape != part.shape:
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = {list(src_shape)}, "
                           f"slice size = {list(part.shape)}")
    return apply(cls, (input, src), {"region": region})


def select_scatter(input, src, dim, index):
    """``input`` with its slice ``index`` along ``dim`` replaced by ``src`` (out of place), as
    ``torch.select_scatter``.

    >>> from diffcompare import autograd as ag
    >>> ag.select_scatter(ag.zeros(2, 2), ag.ones(2), 0, 0)
    tensor([[1., 1.],
            [0., 0.]])
    """
    d = check_dim(dim, input.ndim)
    n = input.shape[d]
    if not -n <= index < n:
        raise IndexError(f"select(): index {index} out of range for tensor of size {list(input.shape)} at dimension {d}")
    key = (slice(None),) * d + (int(index),)
    return _embed(SelectScatterBackward0, input, src, lambda a: a[key])


def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    """``input`` with the slice ``start:end:step`` along ``dim`` replaced by ``src`` (out of
    place), as ``torch.slice_scatter``."""
    d = check_dim(dim, input.ndim)
    key = (slice(None),) * d + (slice(start, end, step),)
    return _embed(SliceScatterBackward0, input, src, lambda a: a[key])


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    """``input`` with its ``offset`` diagonal of (``dim1``, ``dim2``) replaced by ``src`` (out of
    place), as ``torch.diagonal_scatter``."""
    d1, d2 = check_dim(dim1, input.ndim), check_dim(dim2, input.ndim)
    return _embed(DiagonalScatterBackward0, input, src,
                  lambda a: diagonal(a, offset, d1, d2) if isinstance(a, Tensor) else diagonal_view(a, offset, d1, d2))


# the torch-level functions of this family (`ag.<name>`, as `torch.<name>`)
PUBLIC = ("diagonal_scatter", "index_copy", "index_put", "index_reduce", "masked_scatter", "put", "scatter_reduce",
          "select_scatter", "slice_scatter")
# what the family exports to `ops`
__all__ = ["not_differentiable", "DiagonalScatterBackward0", "SelectScatterBackward0", "SliceScatterBackward0", "FillDiagonalBackward", "IndexCopyBackward0", "IndexReduceBackward0", "IndexPutOutOfPlace", "MaskedScatterBackward0", "NotImplementedBackward",
           "PutBackward0", "ScatterReduceBackward0", "UnfoldBackward0", "fill_diagonal_", "scatter_with_reduce",
           "unfold", *PUBLIC]
