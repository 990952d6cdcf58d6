"""Picking, arranging and repeating elements: ``gather``, ``scatter_add``, ``index_select``,
``masked_fill``, ``sort``, ``topk``, ``split``, ``chunk``, ``unbind``, ``roll``, ``flip``,
``repeat``, ``tile``, ``cumprod``. The picks record PyTorch's node names on the indexing ops
(their gradient is the incoming one scattered back, itself differentiable).

>>> from diffcompare import autograd as ag
>>> x = ag.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
>>> y = ag.gather(x, 1, ag.tensor([[1], [0]]))
>>> y
tensor([[2.],
        [3.]], grad_fn=<GatherBackward0>)
>>> y.sum().backward()
>>> x.grad
tensor([[0., 1.],
        [1., 0.]])
"""

from __future__ import annotations


import numpy as np

from ..return_types import return_type
from ..tensor import Tensor
from .dual import D, define, register
from .indexing import IndexBackward0, SelectBackward0, SliceBackward0, index_add_zeros
from .recording import Op, apply, array_of, check_dim, sum_to
from .scattering import scatter_with_reduce
from .shape import record_view
from .stl_order import sort_order, topk_order


def _index_array(index, name="index"):
    a = np.asarray(array_of(index))
    if a.dtype.kind not in "iu":
        raise RuntimeError(f"{name}(): Expected dtype int64 for index")
    return a


def _along(index, dim):
    """The advanced index that picks ``index`` along ``dim`` (NumPy's take_along_axis as x[...])."""
    grid = list(np.indices(index.shape, sparse=True))
    grid[dim] = index
    return tuple(grid)


class GatherBackward0(IndexBackward0):
    """x gathered along a dimension; the gradient is scattered back (repeats accumulate)."""


class IndexSelectBackward0(IndexBackward0):
    pass


class SortBackward0(IndexBackward0):
    pass


class TopkBackward0(IndexBackward0):
    pass


def _pick(cls, x, index):
    return apply(cls, (x,), {"index": index, "in_shape": x.shape})


def gather(input, dim, index, *, sparse_grad=False):
    """``out[i][j] = input[i][index[i][j]]`` along ``dim`` (here dim = 1); with ``sparse_grad``
    PyTorch's gradient is a sparse tensor of the same values, here a dense one."""
    d = check_dim(dim, input.ndim)
    index = _index_array(index, "gather")
    if index.ndim != input.ndim and not (index.ndim <= 1 and input.ndim <= 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    for axis, (n, m) in enumerate(zip(index.shape, input.shape)):
        if axis != d and n > m:
            raise RuntimeError(f"Size does not match at dimension {axis} expected index {list(index.shape)} to be "
                               f"no larger than self {list(input.shape)} apart from dimension {d}")
    if index.size and (index.max() >= input.shape[d] or index.min() < -input.shape[d]):
        bad = int(index.max() if index.max() >= input.shape[d] else index.min())
        raise RuntimeError(f"index {bad} is out of bounds for dimension {d} with size {input.shape[d]}")
    return _pick(GatherBackward0, input, _along(index, d))


def index_select(input, dim, index):
    """The slices of ``input`` at positions ``index`` (1-d) along ``dim``."""
    d = check_dim(dim, input.ndim)
    index = _index_array(index, "index_select").reshape(-1)
    return _pick(IndexSelectBackward0, input, (slice(None),) * d + (index,))


class ScatterAddBackward0(Op):
    """``self`` with ``src`` added at ``index`` along a dimension: d self = g, d src = g gathered."""

    @staticmethod
    def forward(x, src, index, part, src_shape):
        out = np.array(x)
        np.add.at(out, index, src[part])
        return out

    def backward(self, g):
        gx = g if self.needs(0) else None
        gsrc = index_add_zeros(g[self.index], self.part, self.src_shape, basic=True) if self.needs(1) else None
        return gx, gsrc


ScatterAddBackward0.tangent = "linear"


def scatter_add(input, dim, index, src):
    """``input`` with ``src[i][j]`` added at ``[i][index[i][j]]`` (dim = 1), repeats accumulating."""
    d = check_dim(dim, input.ndim)
    index = _index_array(index, "scatter_add")
    part = tuple(slice(0, n) for n in index.shape)
    src_shape = src.shape if isinstance(src, Tensor) else np.shape(src)
    return apply(ScatterAddBackward0, (input, src), {"index": _along(index, d), "part": part,
                                                     "src_shape": tuple(src_shape)})


class ScatterBackward0(Op):
    """``self`` with ``src`` written at ``index`` along a dimension (``scatter``): d self = g
    zeroed where written, d src = g gathered from there."""

    @staticmethod
    def forward(x, src, index, part, src_shape, kept):
        out = np.array(x)
        out[index] = src[part] if np.ndim(src) else src
        return out

    def backward(self, g):
        gx = g * self.kept if self.needs(0) else None
        gsrc = index_add_zeros(g[self.index], self.part, self.src_shape, basic=True) if self.needs(1) else None
        return gx, gsrc


class ScatterBackward1(ScatterBackward0):
    """``scatter`` of a number: d self = g zeroed where written."""

    @staticmethod
    def forward(x, src, index, part, src_shape, kept):
        return ScatterBackward0.forward(x, src, index, part, src_shape, kept)

    def backward(self, g):
        return (g * self.kept if self.needs(0) else None),


ScatterBackward0.tangent = "linear"


def _kept(shape, index, dtype):
    kept = np.ones(shape, dtype=dtype)
    kept[index] = 0
    return kept


def scatter(input, dim, index, src=None, value=None, *, reduce=None):
    """``input`` with ``src[i][j]`` (or the number ``value``) written at ``[i][index[i][j]]``
    (dim = 1): ScatterBackward0 (a tensor) / ScatterBackward1 (a number)."""
    if src is None:
        src = value
    if reduce is not None:
        return scatter_with_reduce(input, dim, index, src, reduce)
    d = check_dim(dim, input.ndim)
    index = _index_array(index, "scatter")
    along = _along(index, d)
    kept = _kept(input.shape, along, input.dtype)
    if isinstance(src, Tensor):
        part = tuple(slice(0, n) for n in index.shape)
        return apply(ScatterBackward0, (input, src), {"index": along, "part": part, "src_shape": tuple(src.shape),
                                                      "kept": kept})
    return apply(ScatterBackward1, (input,), {"src": src, "index": along, "part": None, "src_shape": (),
                                              "kept": kept})


class IndexAddBackward0(Op):
    """``self`` with ``alpha * source`` added at positions ``index`` along a dimension."""

    @staticmethod
    def forward(x, source, index, alpha):
        out = np.array(x, dtype=np.result_type(x, source))
        np.add.at(out, index, source * alpha if alpha != 1 else source)
        return out

    def backward(self, g):
        gx = g if self.needs(0) else None
        gsrc = None
        if self.needs(1):
            gsrc = g[self.index]
            gsrc = gsrc * self.alpha if self.alpha != 1 else gsrc
        return gx, gsrc


IndexAddBackward0.tangent = "linear"


def index_add(input, dim, index, source, *, alpha=1):
    """``input`` with ``alpha * source`` slices added at positions ``index`` along ``dim``."""
    d = check_dim(dim, input.ndim)
    index = _index_array(index, "index_add").reshape(-1)
    if input.dtype != source.dtype:
        raise RuntimeError(f"index_add_(): self ({_type_name(input.dtype)}) and source ({_type_name(source.dtype)}) "
                           "must have the same scalar type")
    return apply(IndexAddBackward0, (input, source), {"index": (slice(None),) * d + (index,), "alpha": alpha})


class IndexFillBackward0(Op):
    """``self`` with the slices at ``index`` along a dimension set to a number."""

    @staticmethod
    def forward(x, index, value, kept):
        out = np.array(x)
        out[index] = value
        return out

    def backward(self, g):
        return (g * self.kept if self.needs(0) else None),

    tangent = "linear"


class IndexFillBackward1(Op):
    """``self`` with the slices at ``index`` along a dimension set to a 0-d tensor: its gradient
    is the sum of the gradient over those slices (each counted once, however often named)."""

    @staticmethod
    def forward(x, value, index, kept):
        return IndexFillBackward0.forward(x, index, value, kept)

    def backward(self, g):
        return (g * self.kept if self.needs(0) else None), \
            ((g * (1 - self.kept)).sum() if self.needs(1) else None)

    tangent = "linear"


def index_fill(input, dim, index, value):
    """``input`` with its slices at positions ``index`` along ``dim`` set to ``value`` (a number:
    IndexFillBackward0; a 0-d tensor, which gets a gradient: IndexFillBackward1, as PyTorch)."""
    d = check_dim(dim, input.ndim)
    index = _index_array(index, "index_fill").reshape(-1)
    where = (slice(None),) * d + (index,)
    kept = _kept(input.shape, where, input.dtype)
    if isinstance(value, Tensor):
        _zero_dim(value, "index_fill_")
        return apply(IndexFillBackward1, (input, value.to(input.dtype)), {"index": where, "kept": kept})
    return apply(IndexFillBackward0, (input,), {"index": where, "value": value, "kept": kept})


def _zero_dim(value, name):
    """PyTorch's refusal of a fill value tensor that is not 0-d."""
    if value.ndim != 0:
        raise RuntimeError(f"{name} only supports a 0-dimensional value tensor, but got tensor with "
                           f"{value.ndim} dimension(s).")


def _type_name(dtype):
    return {"float64": "Double", "float32": "Float", "float16": "Half", "int64": "Long", "int32": "Int"}.get(
        np.dtype(dtype).name, np.dtype(dtype).name)



class MaskedFillBackward0(Op):
    """``value`` where ``mask`` holds: there the gradient is 0."""

    @staticmethod
    def forward(x, mask, value, in_shape):
        return np.where(mask, np.asarray(value, dtype=np.result_type(x)), x)

    def backward(self, g):
        return (sum_to(D.where(self.mask, 0.0, g), self.in_shape),)


MaskedFillBackward0.tangent = "linear"


class MaskedFillBackward1(Op):
    """A 0-d tensor where ``mask`` holds: its gradient is the sum of the gradient there."""

    @staticmethod
    def forward(x, value, mask, in_shape):
        return np.where(mask, value.astype(np.result_type(x)), x)

    def backward(self, g):
        return (sum_to(D.where(self.mask, 0.0, g), self.in_shape) if self.needs(0) else None), \
            (D.where(self.mask, g, 0.0).sum() if self.needs(1) else None)

    tangent = "linear"


def masked_fill(input, mask, value):
    """``input`` with ``value`` (a number or a 0-d tensor) where the boolean ``mask`` holds."""
    mask = np.asarray(array_of(mask))
    if mask.dtype != np.bool_:
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype {mask.dtype}")
    if isinstance(value, Tensor):        # MaskedFillBackward1, as PyTorch records it: the value gets a gradient
        _zero_dim(value, "masked_fill_")
        return apply(MaskedFillBackward1, (input, value), {"mask": mask, "in_shape": input.shape})
    return apply(MaskedFillBackward0, (input,), {"mask": mask, "value": value, "in_shape": input.shape})


SortResult = return_type("sort", ["values", "indices"])
TopkResult = return_type("topk", ["values", "indices"])


def sort(input, dim=-1, descending=False, stable=False):
    """Values in order along ``dim`` and where each came from; the gradient goes back there.
    Equal values come in the order PyTorch's CPU kernel gives them (``stl_order.sort_order``)."""
    d = check_dim(dim, input.ndim)
    if input.ndim == 0:
        return SortResult(_pick(SortBackward0, input, (Ellipsis,)), Tensor._make(np.zeros((), np.int64)))
    order = sort_order(input._data, d, descending, stable)
    return SortResult(_pick(SortBackward0, input, _along(order, d)), Tensor._make(order))


def argsort(input, dim=-1, descending=False, stable=False):
    if input.ndim == 0:
        return Tensor._make(np.zeros((), np.int64))
    return Tensor._make(sort_order(input._data, check_dim(dim, input.ndim), descending, stable))


def topk(input, k, dim=-1, largest=True, sorted=True):
    """The ``k`` largest (or smallest) values along ``dim``, with their indices; among equal
    values, the ones PyTorch's CPU kernel picks, in its order (``stl_order``)."""
    d = check_dim(dim, input.ndim)
    size = input.shape[d] if input.ndim else 1
    if not 0 <= k <= size:
        raise RuntimeError("selected index k out of range")
    if input.ndim == 0:
        return TopkResult(_pick(TopkBackward0, input, (Ellipsis,)), Tensor._make(np.zeros((), np.int64)))
    order = topk_order(input._data, d, k, largest, sorted)
    return TopkResult(_pick(TopkBackward0, input, _along(order, d)), Tensor._make(order))


class SplitBackward0(SliceBackward0):
    pass


class SplitWithSizesBackward0(SliceBackward0):
    pass


class UnbindBackward0(SelectBackward0):
    pass


def _slices(x, cls, d, bounds):
    out = []
    name = cls.__name__[:-len("Backward0")]
    for k, (start, stop) in enumerate(bounds):
        index = (slice(None),) * d + (slice(start, stop), Ellipsis)
        out.append(record_view(cls, x, {"index": index, "in_shape": x.shape}, lambda a, i=index: a[i], (name, k)))
    return tuple(out)


def split(tensor, split_size_or_sections, dim=0):
    """Pieces of ``split_size`` along ``dim`` (the last one smaller), or of the listed sizes."""
    d = check_dim(dim, tensor.ndim)
    n = tensor.shape[d]
    if isinstance(split_size_or_sections, (list, tuple)):
        sizes = list(split_size_or_sections)
        if sum(sizes) != n:
            raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} (input tensor's size at "
                               f"dimension {d}), but got split_sizes={sizes}")
        cls = SplitWithSizesBackward0
    else:
        step = int(split_size_or_sections)
        sizes = [min(step, n - s) for s in range(0, n, step)] if step else [0]
        cls = SplitBackward0
    bounds = np.cumsum([0] + sizes)
    return _slices(tensor, cls, d, zip(bounds[:-1].tolist(), bounds[1:].tolist()))


def chunk(input, chunks, dim=0):
    """At most ``chunks`` pieces of equal size (the last may be smaller) along ``dim``."""
    d = check_dim(dim, input.ndim)
    n = input.shape[d]
    return split(input, -(-n // chunks) if n else 1, d)


def unbind(input, dim=0):
    """The slices along ``dim``, that dimension removed."""
    d = check_dim(dim, input.ndim)
    out = []
    for i in range(input.shape[d]):
        index = (slice(None),) * d + (i, Ellipsis)
        out.append(record_view(UnbindBackward0, input, {"index": index, "in_shape": input.shape},
                               lambda a, j=index: a[j], ("Unbind", i)))
    return tuple(out)


class RollBackward0(Op):
    forward = staticmethod(lambda x, shifts, dims: np.roll(x, shifts, dims))

    def backward(self, g):
        back = tuple(-s for s in self.shifts) if isinstance(self.shifts, tuple) else -self.shifts
        return (D.roll(g, back, self.dims),)


def roll(input, shifts, dims=None):
    """Elements shifted cyclically along ``dims`` (all, flattened, when None)."""
    if isinstance(shifts, (list, tuple)):
        shifts = tuple(int(s) for s in shifts)
    if isinstance(dims, (list, tuple)):
        dims = tuple(check_dim(d, input.ndim) for d in dims)
    elif dims is not None:
        dims = check_dim(dims, input.ndim)
    return apply(RollBackward0, (input,), {"shifts": shifts, "dims": dims})


class FlipBackward0(Op):
    forward = staticmethod(lambda x, dims: np.flip(x, dims).copy())

    def backward(self, g):
        return (D.flip(g, self.dims),)


def flip(input, dims):
    """The elements in reverse order along each of ``dims``."""
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    return apply(FlipBackward0, (input,), {"dims": tuple(check_dim(d, input.ndim) for d in dims)})


class RepeatBackward0(Op):
    """The tensor tiled ``repeats`` times along each dimension; the gradient sums the tiles."""
    forward = staticmethod(lambda x, repeats, in_shape: np.tile(np.reshape(x, (1,) * (len(repeats) - np.ndim(x))
                                                                           + np.shape(x)), repeats))

    def backward(self, g):
        lead = len(self.repeats) - len(self.in_shape)
        shape = (1,) * lead + tuple(self.in_shape)
        split = tuple(n for r, s in zip(self.repeats, shape) for n in (r, s))
        g = g.reshape(split).sum(axis=tuple(range(0, len(split), 2)))
        return (g.reshape(self.in_shape),)


def repeat(input, *sizes):
    """The tensor repeated ``sizes[i]`` times along dimension i (extra sizes add leading dimensions)."""
    sizes = tuple(sizes[0]) if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)) else sizes
    if len(sizes) < input.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions of "
                           "tensor")
    return apply(RepeatBackward0, (input,), {"repeats": tuple(int(s) for s in sizes), "in_shape": input.shape})


def tile(input, dims):
    """``repeat`` with fewer ``dims`` than dimensions allowed (ones are put in front)."""
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    return repeat(input, (1,) * (input.ndim - len(dims)) + dims)


class CumprodBackward0(Op):
    """Running product; d x_i = sum over j >= i of g_j prod_{k <= j, k != i} x_k (zero-safe)."""
    saves = (0, -1)

    @staticmethod
    def forward(x, dim):
        return np.cumprod(x, axis=dim)

    def backward(self, g, x, r):
        d = self.dim
        if not (array_of(x) == 0).any():
            total = g * r
            reverse = total.sum(axis=d, keepdims=True) - D.cumsum(total, d) + total
            return (reverse / x,)
        n = x.shape[d]
        moved_x, moved_g = D.moveaxis(x, d, -1), D.moveaxis(g, d, -1)
        # row i: x with x_i replaced by 1, multiplied up; the running products from i on count
        others = D.cumprod(D.where(np.eye(n, dtype=bool), 1.0, D.unsqueeze(moved_x, -2)), -1)
        upper = np.triu(np.ones((n, n), dtype=bool))
        terms = D.where(upper, others * D.unsqueeze(moved_g, -2), 0.0)
        return (D.moveaxis(terms.sum(axis=-1), -1, d),)


def cumprod(input, dim, *, dtype=None):
    """The running product along ``dim``."""
    if dtype is not None:
        input = input.to(dtype)
    return apply(CumprodBackward0, (input,), {"dim": check_dim(dim, input.ndim)})


for _cls in (RollBackward0, FlipBackward0, RepeatBackward0):
    _cls.tangent = "linear"

register(roll=roll, flip=flip, cumprod=cumprod)
define("roll", np.roll)
define("flip", lambda a, dims: np.flip(a, dims))
define("cumprod", lambda a, dim: np.cumprod(a, axis=dim))



class MaskedSelectBackward0(IndexBackward0):
    pass


class TakeBackward0(IndexBackward0):
    pass


def masked_select(input, mask):
    """The elements of ``input`` where ``mask`` (broadcast with it) is True, as a 1-d tensor."""
    m = np.asarray(array_of(mask))
    if m.dtype != np.bool_:
        raise RuntimeError(f"masked_select: expected BoolTensor for mask")
    shape = np.broadcast_shapes(tuple(input.shape), m.shape)
    if tuple(input.shape) != shape:
        input = input.expand(*shape)
    return _pick(MaskedSelectBackward0, input, np.nonzero(np.broadcast_to(m, shape)))


def take(input, index):
    """The elements of ``input`` at the flat positions ``index`` (the result has index's shape)."""
    flat = _index_array(index, "take")
    size = int(np.prod(input.shape))
    if flat.size and (flat.max() >= size or flat.min() < -size):
        bad = int(flat.max() if flat.max() >= size else flat.min())
        raise IndexError(f"out of range: tried to access index {bad} on a tensor of {size} elements.")
    if input.ndim == 0:
        input = input.reshape(1)
    return _pick(TakeBackward0, input, np.unravel_index(flat % size, input.shape))


class MedianBackward0(IndexBackward0):
    pass


class MedianBackward1(IndexBackward0):
    pass


class NanmedianBackward0(IndexBackward0):
    pass


class NanmedianBackward1(IndexBackward0):
    pass


MedianResult = return_type("median", ["values", "indices"])


def _median_index(a, axis, skip_nan):
    """Where the lower median of ``a`` along ``axis`` is (a nan's position, if there is one, unless
    ``skip_nan``: then the median of the others)."""
    order = np.argsort(a, axis=axis, kind="stable")       # nan sorts last
    n = a.shape[axis]
    if skip_nan:
        count = np.sum(~np.isnan(a), axis=axis, keepdims=True)
        k = np.maximum(count - 1, 0) // 2
    else:
        k = np.full([1 if i == axis else s for i, s in enumerate(a.shape)], (n - 1) // 2)
        has_nan = np.any(np.isnan(a), axis=axis, keepdims=True) if a.dtype.kind in "fc" else False
        k = np.where(has_nan, n - 1, k) if a.dtype.kind in "fc" else k
        if a.dtype.kind in "fc" and np.any(has_nan):   # the first nan: positions sorted last, in order
            first_nan = np.argmax(np.take_along_axis(np.isnan(a), order, axis=axis), axis=axis)
            k = np.where(has_nan, np.expand_dims(first_nan, axis), k)
    return np.take_along_axis(order, k, axis=axis)


def _median(input, dim, keepdim, skip_nan, whole, along):
    if input.numel() == 0 and dim is None:
        raise RuntimeError("median() input tensor cannot be empty")
    if dim is None:
        flat = np.asarray(input._data).reshape(-1)
        at = int(_median_index(flat, 0, skip_nan)[0]) if flat.size else 0
        return _pick(whole, input, np.unravel_index(at, input.shape) if input.ndim else Ellipsis)
    d = check_dim(dim, input.ndim)
    if input.ndim == 0:
        return MedianResult(_pick(along, input, Ellipsis), Tensor._make(np.zeros((), np.int64)))
    index = _median_index(np.asarray(input._data), d, skip_nan)
    if keepdim:
        return MedianResult(_pick(along, input, _along(index, d)), Tensor._make(index))
    index = index.squeeze(d)
    grid = list(np.indices(index.shape, sparse=True))
    return MedianResult(_pick(along, input, tuple(grid[:d] + [index] + grid[d:])), Tensor._make(index))


def median(input, dim=None, keepdim=False):
    """The lower median of all elements (MedianBackward0), or along ``dim`` with its index
    (MedianBackward1); a nan is the median of a slice holding one."""
    return _median(input, dim, keepdim, False, MedianBackward0, MedianBackward1)


def nanmedian(input, dim=None, keepdim=False):
    """:func:`median` of the values that are not nan."""
    return _median(input, dim, keepdim, True, NanmedianBackward0, NanmedianBackward1)


class CummaxBackward0(IndexBackward0):
    pass


class CumminBackward0(IndexBackward0):
    pass


CummaxResult = return_type("cummax", ["values", "indices"])
CumminResult = return_type("cummin", ["values", "indices"])


def _running(input, dim, better, cls, result):
    d = check_dim(dim, input.ndim)
    a = np.asarray(input._data)
    if a.ndim == 0:
        return result(_pick(cls, input, Ellipsis), Tensor._make(np.zeros((), np.int64)))
    moved = np.moveaxis(a, d, 0)
    index = np.zeros(moved.shape, np.int64)
    best = moved[0].copy()
    for i in range(1, len(moved)):       # a tie or a nan takes the later position, as PyTorch's
        take = better(moved[i], best)
        if a.dtype.kind in "fc":
            take |= np.isnan(moved[i])
        best = np.where(take, moved[i], best)
        index[i] = np.where(take, i, index[i - 1])
    index = np.moveaxis(index, 0, d)
    return result(_pick(cls, input, _along(index, d)), Tensor._make(index))


def cummax(input, dim):
    """The running maximum along ``dim`` and where it was reached."""
    return _running(input, dim, np.greater_equal, CummaxBackward0, CummaxResult)


def cummin(input, dim):
    """The running minimum along ``dim`` and where it was reached."""
    return _running(input, dim, np.less_equal, CumminBackward0, CumminResult)

# the torch-level functions of this family (`ag.<name>`, as `torch.<name>`)
PUBLIC = ('index_add', 'index_fill', 'scatter', 'argsort', 'chunk', 'cummax', 'cummin', 'cumprod', 'masked_select', 'median', 'nanmedian', 'take', 'flip', 'gather', 'index_select', 'masked_fill', 'roll', 'scatter_add',
          'sort', 'split', 'tile', 'topk', 'unbind')
# what the family exports to `ops`
__all__ = ['CummaxBackward0', 'CumminBackward0', 'MaskedSelectBackward0', 'MedianBackward0', 'MedianBackward1',
           'NanmedianBackward0', 'NanmedianBackward1', 'TakeBackward0', 'CumprodBackward0', 'FlipBackward0', 'GatherBackward0', 'IndexSelectBackward0', 'MaskedFillBackward0', 'MaskedFillBackward1',
           'RepeatBackward0', 'RollBackward0', 'ScatterAddBackward0', 'ScatterBackward0', 'ScatterBackward1',
           'IndexAddBackward0', 'IndexFillBackward0', 'IndexFillBackward1', 'SortBackward0', 'SortResult',
           'SplitBackward0', 'SplitWithSizesBackward0', 'TopkBackward0', 'TopkResult', 'UnbindBackward0', 'repeat', *PUBLIC]
