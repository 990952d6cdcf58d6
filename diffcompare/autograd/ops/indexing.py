"""Indexing: ``x[index]`` (a view for basic indices, a gather otherwise) and ``x[index] =
value``, with the gradient scattered back."""

from __future__ import annotations

import numbers
import warnings
from operator import itemgetter

import numpy as np

from ..grad_mode import STATE
from ..gradients import IndexedGrad
from ..tensor import Tensor
from .dual import D
from .inplace import LEAF_INPLACE_ERROR, VIEW_OF_LEAF_INPLACE_ERROR, adopt, copy_, fill_, write_in_place
from .recording import Op, apply, record, sum_to
from .shape import plain_views, record_view, view_of

_ELLIPSIS = type(Ellipsis)


SEQUENCE_INDEX_WARNING = ("Using a non-tuple sequence for multidimensional indexing is deprecated and will be changed "
                          "in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be "
                          "interpreted as tensor index, x[torch.tensor(seq)], which will result either in an error "
                          "or a different result")


def _sequence_as_tuple(index):
    """A list index as PyTorch 2.13 reads it (NumPy's old rule, ``treatSequenceAsTuple``): a
    list shorter than 32 holding a tensor, a sequence, a slice, ``...`` or None is a tuple of
    indices (``x[[slice(None), 1]]`` is ``x[:, 1]``), with PyTorch's deprecation warning; any
    other list is one integer index."""
    if len(index) < 32 and any(item is None or item is Ellipsis or isinstance(item, (Tensor, list, tuple, slice,
                                                                                      np.ndarray))
                               for item in index):
        warnings.warn(SEQUENCE_INDEX_WARNING, UserWarning, stacklevel=4)
        return tuple(index)
    return index


def _basic_fast(index):
    """``(parts, node)`` for an index of plain ints, slices, None and ``...`` (checked by exact
    type, the common case), or None for anything else (the general path decides). ``node`` is
    the class of the node PyTorch's last view step records (``_basic_node``), or None when a
    slice with a stop needs the shape to tell."""
    t = type(index)
    if t is int:
        return (index, Ellipsis), SelectBackward0
    if t is slice:              # PyTorch's one-slice path slices even the whole axis
        return (index, Ellipsis), SliceBackward0
    if t is _ELLIPSIS:
        return (Ellipsis,), IndexAliasBackward0
    if index is None:
        return (None, Ellipsis), IndexUnsqueezeBackward0
    if t is not tuple:
        return None
    ellipsis = False
    node = IndexAliasBackward0
    for item in index:
        t = type(item)
        if t is int:
            node = SelectBackward0
        elif t is slice:
            if item.start not in (None, 0) or item.step not in (None, 1):
                node = SliceBackward0
            elif item.stop is not None:
                node = None                 # whole or not: the shape tells (_basic_node)
        elif t is _ELLIPSIS:
            ellipsis = True
        elif item is None:
            node = IndexUnsqueezeBackward0
        else:
            return None
    return (index if ellipsis else index + (Ellipsis,)), node


def _basic_node(parts, shape):
    """The class of the node PyTorch records for a basic index: its last view step's
    (SelectBackward0 for an int, SliceBackward0 for a slice that is not the whole axis,
    UnsqueezeBackward0 for None), AliasBackward0 when every part keeps the whole tensor.

    >>> _basic_node((slice(0, 3), None, slice(None), Ellipsis), (3, 4)).__name__
    'UnsqueezeBackward0'
    """
    explicit = sum(item is not Ellipsis and item is not None for item in parts)
    node, dim = IndexAliasBackward0, 0
    for item in parts:
        if item is Ellipsis:
            dim += len(shape) - explicit
        elif item is None:
            node = IndexUnsqueezeBackward0
        elif type(item) is slice:
            if dim >= len(shape) or not _full_slice(item, shape[dim]):
                node = SliceBackward0
            dim += 1
        else:
            node = SelectBackward0
            dim += 1
    return node


def _normalise_index(index):
    """Turn tensors inside an index into arrays; report whether the index is basic (a view)."""
    if not isinstance(index, tuple):
        index = (index,)
    parts, basic = [], True
    for item in index:
        if isinstance(item, Tensor):
            item = item._data
            if item.dtype == np.uint8:      # a byte tensor is a mask, as in PyTorch (deprecated there)
                warnings.warn("indexing with dtype torch.uint8 is now deprecated, please use a dtype "
                              "torch.bool instead.", UserWarning, stacklevel=4)
                item = item.astype(bool)
            elif item.ndim == 0 and item.dtype.kind in "iu":     # a 0-d integer tensor counts as an int
                parts.append(int(item))
                continue
        if isinstance(item, (list, np.ndarray)):
            item = np.asarray(item)
            if item.dtype.kind not in "biu":
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
            basic = False
        elif type(item) is bool:        # a Python bool is a 0-d mask, as in PyTorch (a copy, not a view)
            parts.append(np.array(item))
            basic = False
            continue
        elif not (item is None or item is Ellipsis or isinstance(item, (slice, numbers.Integral))):
            if isinstance(item, range):      # an integer index array, as in PyTorch (x[range(n), target])
                parts.append(np.arange(item.start, item.stop, item.step, dtype=np.int64))
                basic = False
                continue
            raise IndexError(f"only integers, slices (`:`), ellipsis (`...`), None and long or byte "
                             f"tensors are valid indices (got {type(item).__name__})")
        parts.append(item)
    if basic and Ellipsis not in parts:
        parts.append(Ellipsis)  # makes NumPy return a 0-d view rather than a scalar copy
    return tuple(parts), basic


def batch_index(index):
    """``index`` for an array with one more leading (batch) axis, or None when NumPy would
    then move the indexed axes in front of the batch (advanced indices that are not
    adjacent: integers count as advanced beside arrays)."""
    advanced = [i for i, item in enumerate(index) if isinstance(item, np.ndarray)]
    if advanced:
        advanced = [i for i, item in enumerate(index) if isinstance(item, (np.ndarray, numbers.Integral))]
        if advanced[-1] - advanced[0] + 1 != len(advanced):
            return None
    return (slice(None),) + tuple(index)


class IndexBackward0(Op):
    """x[index]: scatter the gradient back; repeated indices accumulate."""
    saves = ("index",)

    @staticmethod
    def forward(x, index, in_shape):
        return x[index]

    def backward(self, g, index):
        return (index_add_zeros(g, index, self.in_shape),)

    def batched_backward(self, g, index):
        batched = batch_index(index)
        if batched is None:
            return self._rows(g)
        return (index_add_zeros(g, batched, g.shape[:1] + tuple(self.in_shape)),)


class SelectBackward0(Op):
    """A basic index (ints, slices): the result is a view."""
    takes_scaled = True
    forward = staticmethod(lambda x, index, in_shape: x[index])

    def backward(self, g):
        if isinstance(g, Tensor):
            return (index_add_zeros(g, self.index, self.in_shape, basic=True),)
        return (IndexedGrad(g, self.index, self.in_shape),)

    def batched_backward(self, g):
        return (index_add_zeros(g, (slice(None),) + self.index, g.shape[:1] + tuple(self.in_shape), basic=True),)


class SliceBackward0(SelectBackward0):
    pass


class IndexUnsqueezeBackward0(SelectBackward0):
    """A basic index whose last step is a None (PyTorch's node name: UnsqueezeBackward0)."""


class IndexAliasBackward0(SelectBackward0):
    """A basic index that keeps the whole tensor (PyTorch's node name: AliasBackward0)."""


IndexUnsqueezeBackward0.__name__ = "UnsqueezeBackward0"
IndexAliasBackward0.__name__ = "AliasBackward0"


class IndexPutBackward0(Op):
    """zeros(shape) with ``g`` added at ``index``: the backward of indexing, itself differentiable.
    ``g`` may be smaller than the indexed part (a scalar spread to several places)."""

    @staticmethod
    def forward(g, index, shape, basic, value_shape=None):
        out = np.zeros(shape, dtype=g.dtype)
        if basic:
            out[index] = g
        else:
            add_at(out, index, g)
        return out

    def backward(self, g):
        return (sum_to(g[self.index], self.value_shape),)

    def batched_backward(self, g):
        batched = batch_index(self.index)
        if batched is None:
            return self._rows(g)
        return (sum_to(g[batched], self.value_shape, batch=1),)


def add_at(out, index, g):
    """``np.add.at(out, index, g)``: repeated indices accumulate. A float64 gather of rows by one
    integer array (``x[rows]``, the common gather) goes through ``np.bincount`` instead, a few
    times faster and the same sums in the same order.

    >>> out = np.zeros((3, 2))
    >>> add_at(out, (np.array([2, 0, 2]),), np.arange(6.0).reshape(3, 2))
    >>> out
    array([[2., 3.],
           [0., 0.],
           [4., 6.]])
    """
    rows = index[0] if type(index) is tuple and 1 <= len(index) <= 2 else None
    if (type(rows) is not np.ndarray or rows.ndim != 1 or rows.dtype.kind not in "iu" or out.dtype != np.float64
            or (len(index) == 2 and index[1] is not Ellipsis) or not out.ndim
            or type(g) is not np.ndarray or g.dtype != np.float64 or g.shape != rows.shape + out.shape[1:]):
        np.add.at(out, index, g)
        return
    n = out.shape[0]
    if not rows.size:
        return
    if rows.min() < 0:
        rows = np.where(rows < 0, rows + n, rows)
    columns = out.reshape(n, -1)        # out is fresh and contiguous: a view
    weights = g.reshape(len(rows), -1)
    width = columns.shape[1]
    if width <= 16:                     # one bincount per column
        for j in range(width):
            columns[:, j] += np.bincount(rows, weights=weights[:, j], minlength=n)
    else:                               # one bincount over (row, column) pairs
        flat = (rows[:, None] * width + np.arange(width)).ravel()
        columns += np.bincount(flat, weights=weights.ravel(), minlength=n * width).reshape(n, width)


def index_add_zeros(g, index, shape, basic=False):
    if isinstance(g, Tensor):
        return apply(IndexPutBackward0, (g,), {"index": index, "shape": shape, "basic": basic,
                                               "value_shape": g.shape})
    return IndexPutBackward0.forward(g, index, shape, basic)


def _index_error(error, x):
    """NumPy's IndexError in PyTorch's words.

    >>> _index_error(IndexError("index 5 is out of bounds for axis 0 with size 3"), np.zeros(3))
    IndexError('index 5 is out of bounds for dimension 0 with size 3')
    """
    text = str(error)
    if text.startswith("too many indices"):
        return IndexError(f"too many indices for tensor of dimension {np.ndim(x)}")
    if " is out of bounds for axis " in text:
        return IndexError(text.replace(" for axis ", " for dimension "))
    return error


def getitem(x, index):
    """``x[index]``: a view for a basic index (recorded under PyTorch's node for its last step), a
    gather otherwise (IndexBackward0); NumPy's IndexError in PyTorch's words."""
    if type(index) is list:
        index = _sequence_as_tuple(index)
    try:
        fast = _basic_fast(index)
        if fast is not None:
            index, cls = fast
            if cls is None:
                cls = _basic_node(index, x._data.shape)
            data = x._data
            if plain_views():       # NumPy's view at once
                return view_of(cls, x, {"index": index, "in_shape": data.shape}, data[index], itemgetter(index))
            return record_view(cls, x, {"index": index, "in_shape": data.shape}, itemgetter(index))
        index, basic = _normalise_index(index)
        if basic:
            cls = _basic_node(index, x._data.shape)
            return record_view(cls, x, {"index": index, "in_shape": x.shape}, lambda a: a[index])
        return apply(IndexBackward0, (x,), {"index": index, "in_shape": x.shape})
    except IndexError as error:
        raise _index_error(error, x._data) from None


class CopySlices(Op):
    """x[index] = value recorded: the overwritten part of x gets no gradient, value gets that part."""

    @staticmethod
    def forward(x, value, index, **shapes):
        out = np.array(x)
        out[index] = value
        return out

    def backward(self, g):
        gv = sum_to(g[self.index], self.value_shape) if self.needs(1) else None
        if not self.needs(0):
            return None, gv
        if type(g) is np.ndarray:       # a copy with the written part zeroed
            gx = np.array(g)
            gx[self.index] = 0
            return gx, gv
        mask = np.ones(self.in_shape, dtype=bool)
        mask[self.index] = False
        return D.where(mask, g, 0.0), gv

    def batched_backward(self, g):
        batched = batch_index(self.index)
        if batched is None:
            return self._rows(g)
        mask = np.ones(self.in_shape, dtype=bool)
        mask[self.index] = False
        gx = np.where(mask, g, 0.0).astype(g.dtype) if self.needs(0) else None
        gv = sum_to(g[batched], self.value_shape, batch=1) if self.needs(1) else None
        return gx, gv


class IndexPutBackward0Setitem(CopySlices):
    """x[advanced index] = value (PyTorch's node name: IndexPutBackward0)."""


IndexPutBackward0Setitem.__name__ = "IndexPutBackward0"


def setitem(x, index, value):
    """``x[index] = value`` as an in-place operation recorded in the graph, under PyTorch's
    node: ``CopySlices`` where the index first takes a view of ``x`` (an int, a 0-d integer
    tensor, a slice that is not the whole axis, None), ``IndexPutBackward0`` for index tensors
    alone, ``FillBackward3`` or ``CopyBackwards`` where the index is the whole of ``x``.

    >>> from diffcompare import autograd as ag
    >>> t = ag.zeros(3, requires_grad=True).clone()
    >>> t[ag.tensor(1)] = 2.0
    >>> t[ag.tensor([0])] = 1.0
    >>> t, t.grad_fn.name(), t.grad_fn.next_functions[0][0].name()
    (tensor([1., 2., 0.], grad_fn=<IndexPutBackward0>), 'IndexPutBackward0', 'torch::autograd::CopySlices')
    """
    if type(index) is list:
        index = _sequence_as_tuple(index)
    try:
        if index is False:          # PyTorch writes nothing and records nothing
            return x
        if isinstance(index, Tensor) and index._data.dtype == np.uint8 and index._data.ndim and \
                (not isinstance(value, Tensor) or not value._data.ndim):      # PyTorch's masked_fill_ path
            raise RuntimeError("masked_fill_ only supports boolean masks, but got mask with dtype unsigned char")
        fast = _basic_fast(index)
        whole = False
        if fast is not None:
            node = fast[1]      # an int or a None in it: never the whole tensor
            whole = node is IndexAliasBackward0 or (node is not SelectBackward0 and node is not IndexUnsqueezeBackward0
                                                    and _whole(fast[0], x._data.shape))
            if not whole and x._base is None and plain_views() and _write_basic(x, fast[0], value):
                return x
        index, basic = (fast[0], True) if fast is not None else _normalise_index(index)
        value_shape = value.shape if isinstance(value, Tensor) else np.shape(value)
        whole = whole or (fast is None and basic and _whole(index, x._data.shape))
        view = basic or _takes_view(index, x._data.shape)
        if isinstance(value, Tensor) and value.requires_grad_flag and value._data.ndim:
            value = _fit_value(value, x._data[index].shape if basic else None)
            value_shape = value.shape
        cls = CopySlices if view else IndexPutBackward0Setitem
        try:
            if whole:
                return _write_whole(x, value)
            return write_in_place(x, lambda src: apply(cls, (src, value), {
                "index": index, "in_shape": x.shape, "value_shape": value_shape}),
                leaf_message=VIEW_OF_LEAF_INPLACE_ERROR if view else LEAF_INPLACE_ERROR)
        except (RuntimeError, ValueError) as error:
            if not str(error).startswith(("The size of tensor a", "could not broadcast", "shape mismatch")):
                raise
            raise _setitem_shape_error(x.shape, index, basic, tuple(value_shape)) or error from None
    except IndexError as error:
        raise _index_error(error, x._data) from None


def _fit_value(value, target):
    """The value PyTorch writes, as it records it: leading 1s of its shape dropped by a view,
    then (a basic index, ``target`` its shape) expanded to the written part; a value of that
    part's shape already is written as it is."""
    shape = value._data.shape
    if target is not None and shape == target:
        return value
    k = next((i for i, n in enumerate(shape) if n != 1), len(shape))
    if k or target is not None:
        value = value.view(shape[k:])
    if target is not None and value._data.shape != target:
        value = value.expand(target)
    return value


def _full_slice(item, length):
    """Whether ``item`` is a slice PyTorch skips (start 0, step 1, stop at or past the end)."""
    return type(item) is slice and item.start in (None, 0) and item.step in (None, 1) and \
        (item.stop is None or (isinstance(item.stop, numbers.Integral) and item.stop >= length))


def _whole(index, shape):
    """Whether a basic index selects the whole tensor without taking a view (full slices and
    ``...`` only), as PyTorch's indexing skips them.

    >>> _whole((slice(None), Ellipsis), (3, 2)), _whole((slice(0, 2), Ellipsis), (3, 2))
    (True, False)
    """
    if type(index) is not tuple:
        index = (index,)
    explicit = sum(item is not Ellipsis for item in index)
    if explicit > len(shape):
        return False
    dim = 0
    for item in index:
        if item is Ellipsis:
            dim += len(shape) - explicit
        elif _full_slice(item, shape[dim]):
            dim += 1
        else:
            return False
    return True


def _takes_view(index, shape):
    """Whether an advanced index also has a part that takes a view first (an int, a slice that
    is not the whole axis, None, a 0-d bool): PyTorch's index_put_ then writes into that view
    and the written tensor records ``CopySlices``."""
    dim = 0
    explicit = sum(item.ndim if type(item) is np.ndarray and item.dtype == bool else 1
                   for item in index if item is not Ellipsis and item is not None)
    for item in index:
        if item is Ellipsis:
            dim += len(shape) - explicit
            continue
        if item is None or isinstance(item, numbers.Integral) or (type(item) is np.ndarray and item.ndim == 0):
            return True
        if type(item) is slice:
            if dim >= len(shape) or not _full_slice(item, shape[dim]):
                return True
            dim += 1
        else:
            dim += item.ndim if item.dtype == bool else 1
    return False


def _write_whole(x, value):
    """``x[:] = value`` (or ``x[...] = value``): PyTorch fills or copies into ``x`` itself."""
    if not isinstance(value, Tensor):
        value = Tensor._make(np.asarray(value, dtype=x._data.dtype))
    if value.dim() != 0:
        return copy_(x, value)
    return fill_(x, value)


def _setitem_shape_error(shape, index, basic, value_shape):
    """PyTorch's words for a value that does not fit the part of ``x`` it is written to: the
    expand error for a basic index, the broadcast error for an advanced one.

    >>> _setitem_shape_error((3,), (slice(None),), True, (2,))
    RuntimeError('The expanded size of the tensor (3) must match the existing size (2) at non-singleton dimension 0.  Target sizes: [3].  Tensor sizes: [2]')
    """
    target = np.empty(shape, dtype=bool)[index].shape
    if not basic:
        return RuntimeError(f"shape mismatch: value tensor of shape {list(value_shape)} cannot be broadcast to "
                            f"indexing result of shape {list(target)}")
    for k in range(1, min(len(target), len(value_shape)) + 1):
        if value_shape[-k] not in (1, target[-k]):
            return RuntimeError(f"The expanded size of the tensor ({target[-k]}) must match the existing size "
                                f"({value_shape[-k]}) at non-singleton dimension {len(target) - k}.  Target sizes: "
                                f"{list(target)}.  Tensor sizes: {list(value_shape)}")
    return None


def _write_basic(x, index, value):
    """``x[index] = value`` for a basic index into a tensor that is not a view, while recording
    plainly or not recording at all: written straight into x, and (recording) CopySlices
    recorded with x's history before the write; the node keeps nothing of the old value, so
    no snapshot of it is taken. False, with nothing changed, where the general path must
    decide (a leaf that requires grad, a read-only array, an index or value that does not
    fit: its errors are the general path's)."""
    recording = STATE.grad_enabled
    if recording and x.requires_grad_flag and x.grad_fn is None:
        return False
    data = x._data
    if not data.flags.writeable:
        return False
    is_tensor = isinstance(value, Tensor)
    if is_tensor and recording and value.requires_grad_flag and value._data.ndim and \
            value._data.shape != data[index].shape:
        return False        # PyTorch records the value's view and expand: the general path does
    try:
        data[index] = value._data if is_tensor else value
    except (ValueError, TypeError, IndexError):
        return False
    if recording and (x.requires_grad_flag or (is_tensor and value.requires_grad_flag)):
        # recorded before the version goes up: a value that is a view of x (``R[2, 2] = R[1, 1]``)
        # is taken with the history it had when it was read, as PyTorch's copy takes it
        value_shape = value._data.shape if is_tensor else np.shape(value)
        node = record(CopySlices, (x, value), {"index": index, "in_shape": data.shape, "value_shape": value_shape},
                      data, None).grad_fn
        x._bump()
        adopt(x, node)
    else:
        x._bump()
    return True


for _cls in (IndexBackward0, SelectBackward0, IndexPutBackward0):     # (SelectBackward0's subclasses too)
    _cls.tangent = "linear"
CopySlices.tangent = "affine"       # x[index] = value: a constant value has no tangent


# what the family exports to `ops`
__all__ = ['CopySlices', 'IndexAliasBackward0', 'IndexBackward0', 'IndexPutBackward0', 'IndexPutBackward0Setitem',
           'IndexUnsqueezeBackward0', 'SelectBackward0',
           'SliceBackward0', 'getitem', 'index_add_zeros', 'setitem']
