"""Torch-level functions PyTorch builds out of other ops (its "composite" functions): the
function spellings of Tensor's operators (``torch.mul``, ``torch.div``, ``torch.neg``), the
broadcasting helpers, stacking (``hstack``, ``vstack``, ``column_stack``, ``dstack``),
splitting (``tensor_split``, ``narrow``, ``unflatten``), products built on ``mm``
(``tensordot``, ``inner``, ``chain_matmul``), ``diff``, ``meshgrid``, ``cartesian_prod``,
``repeat_interleave``; and the functions that read values and record nothing (``nonzero``,
``unique``, ``histc``, ``searchsorted``, ``bucketize``, ``unravel_index``). Each records what
PyTorch's composition records (``hstack``: CatBackward0; ``narrow``: SliceBackward0).

>>> from diffcompare import autograd as ag
>>> x = ag.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
>>> ag.hstack([x, x]).grad_fn.name(), ag.narrow(x, 1, 0, 1).grad_fn.name()
('CatBackward0', 'SliceBackward0')
>>> ag.diff(ag.tensor([1.0, 4.0, 9.0]))
tensor([3., 5.])
"""

from __future__ import annotations

import itertools
import math
import warnings
from functools import reduce

import numpy as np

from ..tensor import Tensor
from .elementwise import nonzero_indices, where
from .inplace import rename_node_of
from .linalg import mm
from .matrices import diag_embed
from .outputs import write_out
from .pointwise import rounded_div
from .recording import check_dim
from .reductions import vector_norm
from .scattering import not_differentiable
from .selection import flip, gather, index_select, sort, split
from .shape import cat, stack


def _tensor(value):
    return value if isinstance(value, Tensor) else Tensor._make(np.asarray(value))


# -- the function spellings of Tensor's operators -------------------------------------------

def mul(input, other, *, out=None):
    """``input * other`` (MulBackward0), as ``torch.mul``."""
    return write_out(_tensor(input) * other, out, "mul")


def div(input, other, *, rounding_mode=None, out=None):
    """``input / other`` (DivBackward0); ``rounding_mode`` "trunc" or "floor" rounds the
    quotient (its gradient is zero), as ``torch.div``."""
    input = _tensor(input)
    if rounding_mode is None:
        return write_out(input / other, out, "div")
    if rounding_mode not in ("trunc", "floor"):
        raise ValueError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{rounding_mode}'")
    return write_out(rounded_div(input, other, rounding_mode), out, "div")


def true_divide(input, other, *, out=None):
    """``input / other``."""
    return div(input, other, out=out)


def neg(input, *, out=None):
    """``-input`` (NegBackward0)."""
    return write_out(-input, out, "neg")


def numel(input):
    """The number of elements of ``input``."""
    return input.numel()


# -- broadcasting -----------------------------------------------------------------------------

def broadcast_shapes(*shapes):
    """The shape the given shapes broadcast to, or PyTorch's RuntimeError."""
    shapes = [(s,) if isinstance(s, int) else tuple(s) for s in shapes]
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        raise RuntimeError(f"Shape mismatch: objects cannot be broadcast to a single shape.  "
                           f"Mismatch is between {list(shapes[0])} and {list(shapes[-1])}.") from None


def broadcast_to(input, size):
    """``input`` expanded to ``size`` (ExpandBackward0)."""
    return input.expand(*size)


def broadcast_tensors(*tensors):
    """The tensors expanded to their common shape; one already of that shape is returned as it is."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    shape = broadcast_shapes(*(t.shape for t in tensors))
    return tuple(t if tuple(t.shape) == shape else t.expand(*shape) for t in tensors)


def _atleast(k, tensors):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        return tuple(_atleast(k, tuple(tensors[0]))) if tensors[0] else ()
    if len(tensors) != 1:
        return tuple(_atleast(k, (t,)) for t in tensors)
    t = tensors[0]
    if t.ndim >= k:
        return t
    if t.ndim == 0:
        return t.reshape((1,) * k)
    if k == 2:
        return t.unsqueeze(0)
    return t.unsqueeze(0).unsqueeze(-1) if t.ndim == 1 else t.unsqueeze(-1)


def atleast_1d(*tensors):
    """Each tensor with at least one dimension (a 0-d tensor as shape (1,))."""
    return _atleast(1, tensors)


def atleast_2d(*tensors):
    """Each tensor with at least two dimensions (a 1-d one as a row)."""
    return _atleast(2, tensors)


def atleast_3d(*tensors):
    """Each tensor with at least three dimensions (as ``numpy.atleast_3d``)."""
    return _atleast(3, tensors)


# -- stacking and splitting -------------------------------------------------------------------

def _cat(tensors, dim, out):
    return write_out(cat(list(tensors), dim), out, "cat")


def hstack(tensors, *, out=None):
    """Along the columns: ``cat`` along dim 1 (dim 0 for 1-d tensors)."""
    tensors = atleast_1d(tuple(tensors))
    return _cat(tensors, 0 if tensors[0].ndim == 1 else 1, out)


def vstack(tensors, *, out=None):
    """Along the rows: ``cat`` of the tensors made at least 2-d, along dim 0."""
    return _cat(atleast_2d(tuple(tensors)), 0, out)


row_stack = vstack


def dstack(tensors, *, out=None):
    """Along the third dimension: ``cat`` of the tensors made at least 3-d, along dim 2."""
    return _cat(atleast_3d(tuple(tensors)), 2, out)


def column_stack(tensors, *, out=None):
    """As columns: 0-d and 1-d tensors become columns, then ``cat`` along dim 1."""
    return _cat([t.reshape(t.numel(), 1) if t.ndim <= 1 else t for t in tensors], 1, out)


def _slice(input, d, start, stop):
    return input[(slice(None),) * d + (slice(start, stop),)]


def narrow(input, dim, start, length):
    """``length`` elements along ``dim`` from ``start`` (a view: SliceBackward0)."""
    d = check_dim(dim, input.ndim)
    size = input.shape[d]
    start = int(start)
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], but got {start})")
    start %= size if size else 1
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return _slice(input, d, start, start + length)


def tensor_split(input, indices_or_sections, dim=0):
    """Views of ``input`` split along ``dim``: into ``n`` near-equal parts (the first
    ``size % n`` one longer), or at the given indices."""
    d = check_dim(dim, input.ndim)
    size = input.shape[d]
    if isinstance(indices_or_sections, Tensor):
        indices_or_sections = indices_or_sections.tolist()
    if isinstance(indices_or_sections, int):
        n = indices_or_sections
        if n <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {n}")
        small, extra = divmod(size, n)
        bounds, start = [], 0
        for i in range(n):
            stop = start + small + (1 if i < extra else 0)
            bounds.append((start, stop))
            start = stop
    else:
        cuts = [0, *indices_or_sections, size]
        bounds = [(min(a, size), min(max(a, b), size)) for a, b in zip(cuts, cuts[1:])]
    return tuple(_slice(input, d, a, b) for a, b in bounds)


def unflatten(input, dim, sizes):
    """Dimension ``dim`` expanded into ``sizes`` (one of them may be -1): a view."""
    d = check_dim(dim, input.ndim)
    shape = list(input.shape)
    sizes = list(sizes)
    if -1 in sizes:
        known = math.prod(s for s in sizes if s != -1)
        sizes[sizes.index(-1)] = shape[d] // known if known else 0
    if math.prod(sizes) != shape[d]:
        raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim {dim} "
                           f"({shape[d]}) in the input tensor")
    return input.view(*shape[:d], *sizes, *shape[d + 1:])


def _edge(value, input, d):
    """``prepend``/``append`` of :func:`diff`: a number or a tensor of fewer dimensions is
    expanded to one slice of ``input`` along ``d``."""
    if value is None:
        return None
    value = _tensor(value)
    if value.ndim == input.ndim:
        return value
    return value.expand(*input.shape[:d], 1, *input.shape[d + 1:])


def diff(input, n=1, dim=-1, prepend=None, append=None):
    """The ``n``-th forward difference along ``dim`` (``prepend``/``append`` joined first)."""
    d = check_dim(dim, input.ndim)
    if prepend is not None or append is not None:
        parts = [_edge(prepend, input, d), input, _edge(append, input, d)]
        input = cat([p for p in parts if p is not None], d)
    for _ in range(n):
        size = input.shape[d]
        if input.dtype == np.bool_:
            input = _slice(input, d, 1, size) ^ _slice(input, d, 0, size - 1)
        else:
            input = _slice(input, d, 1, size) - _slice(input, d, 0, size - 1)
    return input


# -- products on mm -----------------------------------------------------------------------------

def tensordot(a, b, dims=2, out=None):
    """The sum of products over ``dims`` (a count of a's last and b's first dimensions, or two
    lists of dimensions), as PyTorch computes it: permute, reshape to matrices, ``mm``, view."""
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        da, db = list(range(a.ndim - dims, a.ndim)), list(range(dims))
    else:
        da, db = ([x] if isinstance(x, int) else list(x) for x in dims)
    da = [check_dim(x, a.ndim) for x in da]
    db = [check_dim(x, b.ndim) for x in db]
    for x, y in zip(da, db):
        if a.shape[x] != b.shape[y]:
            raise RuntimeError(f"contracted dimensions need to match, but first has size {a.shape[x]} in dim {x} "
                               f"and second has size {b.shape[y]} in dim {y}")
    free_a = [i for i in range(a.ndim) if i not in da]
    free_b = [i for i in range(b.ndim) if i not in db]
    k = math.prod(a.shape[i] for i in da)
    left = a.permute(*free_a, *da).reshape(-1, k)
    right = b.permute(*db, *free_b).reshape(k, -1)
    shape = [a.shape[i] for i in free_a] + [b.shape[i] for i in free_b]
    return write_out(mm(left, right).view(*shape), out, "tensordot", copied=True)


def inner(input, other, *, out=None):
    """The sum over the last dimensions of both (a product for a 0-d operand)."""
    if input.ndim == 0 or other.ndim == 0:
        return write_out(input * other, out, "inner")
    return write_out(tensordot(input, other, ([-1], [-1])), out, "inner")


def chain_matmul(*matrices, out=None):
    """The product of the matrices, left to right (deprecated in PyTorch for linalg.multi_dot)."""
    warnings.warn("torch.chain_matmul is deprecated and will be removed in a future PyTorch release. Use "
                  "torch.linalg.multi_dot instead, which accepts a list of two or more tensors rather than multiple "
                  "parameters.", UserWarning, stacklevel=2)
    if len(matrices) == 1:
        return matrices[0].clone()
    return write_out(reduce(mm, matrices), out, "chain_matmul")


def meshgrid(*tensors, indexing=None):
    """Coordinate grids of 1-d tensors (each an expanded view: ExpandBackward0); ``indexing``
    "ij" (the default, with PyTorch's warning when not given) or "xy"."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument.",
                      UserWarning, stacklevel=2)
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise ValueError(f"torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: {indexing}")
    tensors = list(tensors)
    swap = indexing == "xy" and len(tensors) >= 2
    if swap:
        tensors[0], tensors[1] = tensors[1], tensors[0]
    shape = [t.numel() for t in tensors]
    grids = [t.reshape(*[n if j == i else 1 for j, n in enumerate(shape)]).expand(*shape) for i, t in enumerate(tensors)]
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


def cartesian_prod(*tensors):
    """Every combination of the tensors' elements, one per row (a single tensor as it is)."""
    if len(tensors) == 1:
        return tensors[0]
    return stack([g.flatten() for g in meshgrid(*tensors, indexing="ij")], 1)


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """Each element (or slice along ``dim``) repeated ``repeats`` times: a view of an expanded
    copy for a number, ``index_select`` for a tensor of repeats. With a tensor alone, the
    indices repeated by its values."""
    if repeats is None:                         # torch.repeat_interleave(repeats)
        counts = np.asarray(input._data)
        return Tensor._make(np.repeat(np.arange(len(counts), dtype=np.int64), counts))
    if dim is None:
        input, d = input.flatten(), 0
    else:
        d = check_dim(dim, input.ndim)
    if isinstance(repeats, Tensor) and repeats.numel() != 1:
        counts = np.asarray(repeats._data).reshape(-1)
        if len(counts) != input.shape[d]:
            raise RuntimeError("repeats must have the same size as input along dim")
        index = Tensor._make(np.repeat(np.arange(input.shape[d], dtype=np.int64), counts))
        return index_select(input, d, index)
    r = int(repeats.item() if isinstance(repeats, Tensor) else repeats)
    shape = list(input.shape)
    expanded = input.unsqueeze(d + 1).expand(*shape[:d + 1], r, *shape[d + 1:])
    return expanded.contiguous().view(*shape[:d], shape[d] * r, *shape[d + 1:])


# -- rearranging, by other ops -----------------------------------------------------------------

def take_along_dim(input, indices, dim=None):
    """``input`` picked at ``indices`` along ``dim`` (GatherBackward0); without ``dim``, of the
    flattened input."""
    if dim is None:
        return gather(input.reshape(-1), 0, indices.reshape(-1))
    d = check_dim(dim, input.ndim)
    shape = list(np.broadcast_shapes(tuple(input.shape[:d]) + (1,) + tuple(input.shape[d + 1:]),
                                     tuple(indices.shape[:d]) + (1,) + tuple(indices.shape[d + 1:])))
    index_shape = shape[:d] + [indices.shape[d]] + shape[d + 1:]
    input_shape = shape[:d] + [input.shape[d]] + shape[d + 1:]
    index = Tensor._make(np.broadcast_to(np.asarray(indices._data), index_shape))
    if tuple(input.shape) != tuple(input_shape):
        input = input.expand(*input_shape)
    return gather(input, d, index)


def fliplr(input):
    """The columns in reverse order (FlipBackward0)."""
    if input.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(input, [1])


def flipud(input):
    """The rows in reverse order (FlipBackward0)."""
    if input.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(input, [0])


def _split_by(input, sections, dim, name, least):
    if input.ndim < least:
        raise RuntimeError(f"torch.{name} requires a tensor with at least {least} dimension, but got a tensor with "
                           f"{input.ndim} dimensions!")
    if isinstance(sections, int) and input.shape[dim] % sections:
        raise RuntimeError(f"torch.{name} attempted to split along dimension {dim}, but the size of the dimension "
                           f"{input.shape[dim]} is not divisible by the split_size {sections}!")
    return tensor_split(input, sections, dim)


def hsplit(input, indices_or_sections):
    """Split along the columns (dim 1; dim 0 for a 1-d tensor)."""
    return _split_by(input, indices_or_sections, 1 if input.ndim > 1 else 0, "hsplit", 1)


def vsplit(input, indices_or_sections):
    """Split along the rows (dim 0)."""
    return _split_by(input, indices_or_sections, 0, "vsplit", 2)


def dsplit(input, indices_or_sections):
    """Split along the depth (dim 2)."""
    return _split_by(input, indices_or_sections, 2, "dsplit", 3)


def split_with_sizes(input, split_sizes, dim=0):
    """Pieces of the given sizes along ``dim`` (SplitWithSizesBackward0)."""
    d = check_dim(dim, input.ndim)
    if sum(split_sizes) != input.shape[d]:
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {input.shape[d]} (input tensor's "
                           f"size at dimension {d}), but got split_sizes={list(split_sizes)}")
    return split(input, list(split_sizes), d)


def msort(input):
    """The values sorted along dim 0 (SortBackward0)."""
    return sort(input, 0).values


def select(input, dim, index):
    """The slice at ``index`` along ``dim`` (SelectBackward0, a view)."""
    d = check_dim(dim, input.ndim)
    return input[(slice(None),) * d + (index,)]


def swapdims(input, dim0, dim1):
    """``transpose`` under NumPy's name (TransposeBackward0)."""
    return input.transpose(dim0, dim1)


def ravel(input):
    """The elements as one dimension (a view when it can be: ViewBackward0)."""
    return input.reshape(-1)


def positive(input):
    """``input`` itself (``+input``)."""
    if input.dtype == np.bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


def diagflat(input, offset=0):
    """A matrix with the flattened ``input`` on its ``offset`` diagonal (DiagEmbedBackward0)."""
    return diag_embed(input.reshape(-1), offset)


def count_nonzero(input, dim=None):
    """The number of non-zero elements (along ``dim``), int64."""
    a = np.asarray(input._data)
    axis = None if dim is None else (dim if isinstance(dim, int) else tuple(dim))
    return Tensor._make(np.asarray(np.count_nonzero(a, axis=axis), dtype=np.int64))


# -- statistics of observations ------------------------------------------------------------------

def cov(input, *, correction=1, fweights=None, aweights=None):
    """The covariance matrix of the variables in the rows of ``input`` (observations in the
    columns), composed as PyTorch composes it: centre, ``mm``, divide, ``squeeze``."""
    if input.ndim > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an input with "
                           f"{input.ndim} dimensions")
    x = input if input.ndim == 2 else input.reshape(1, -1)
    n = x.shape[1]
    weights = None
    for given in (fweights, aweights):
        if given is not None:
            weights = given if weights is None else weights * given
    if weights is None:
        average = x.mean(1)
        factor = n - correction
    else:
        total = weights.sum()
        average = (x * weights).sum(1) / total
        if aweights is None:
            factor = total - correction
        else:
            factor = total - correction * (weights * aweights).sum() / total
    centred = x - average.unsqueeze(1)
    weighted = centred if weights is None else centred * weights
    if not isinstance(factor, Tensor) and factor <= 0:
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less than the number of "
                      "observations.", UserWarning, stacklevel=2)
        factor = 0
    product = mm(weighted, centred.t().conj() if centred.dtype.kind == "c" else centred.t())
    return (product / factor).squeeze()


def corrcoef(input):
    """The Pearson correlation coefficients of the variables in the rows of ``input``
    (``cov`` scaled by the standard deviations, clamped to [-1, 1] as PyTorch does)."""
    c = cov(input)
    if c.ndim == 0:
        return c / c
    stddev = c.diagonal().sqrt()
    c = c / stddev.unsqueeze(1)
    c = c / stddev.unsqueeze(0)
    return c.clamp(-1, 1)


# -- reading values (nothing recorded) ----------------------------------------------------------

def nonzero(input, *, as_tuple=False, out=None):
    """The indices of the non-zero elements: one row per element (int64), or a tuple of 1-d
    index tensors, one per dimension."""
    a = np.asarray(input._data)
    if as_tuple:
        return nonzero_indices(input)
    return write_out(Tensor._make(np.argwhere(a).astype(np.int64)), out, "nonzero")


def argwhere(input):
    """The indices of the non-zero elements, one row per element."""
    return nonzero(input)


def isinf(input):
    """Where ``input`` is +inf or -inf."""
    return Tensor._make(np.isinf(input._data))


def isposinf(input):
    return Tensor._make(np.isposinf(input._data))


def isneginf(input):
    return Tensor._make(np.isneginf(input._data))


def isreal(input):
    a = input._data
    return Tensor._make(np.imag(a) == 0 if a.dtype.kind == "c" else np.ones(a.shape, bool))


def histc(input, bins=100, min=0, max=0, *, out=None):
    """A histogram of ``bins`` equal bins over [min, max] (the data's range when both are 0);
    values outside are left out, ``max`` itself falls in the last bin."""
    a = np.asarray(input._data, dtype=np.float64).reshape(-1)
    lo, hi = float(min), float(max)
    if lo == hi and a.size:
        lo, hi = float(a.min()), float(a.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if lo > hi:
        raise RuntimeError(f"torch.histc: max must be larger than min")
    inside = a[(a >= lo) & (a <= hi)]
    index = ((inside - lo) * bins / (hi - lo)).astype(np.int64)
    index[index == bins] = bins - 1
    counts = np.bincount(index, minlength=bins)[:bins]
    return write_out(Tensor._make(counts.astype(input._data.dtype)), out, "histc")


def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None, out=None):
    """Where each value would be inserted into the sorted last dimension of
    ``sorted_sequence`` (the rows of an N-d one, row by row)."""
    values = input
    seq = np.asarray(sorted_sequence._data)
    scalar = not isinstance(values, Tensor)
    vals = np.asarray(values if scalar else values._data)
    how = side if side is not None else ("right" if right else "left")
    if sorter is not None:
        seq = np.take_along_axis(seq, np.asarray(sorter._data), axis=-1)
    if seq.ndim <= 1:
        result = np.searchsorted(seq, vals, side=how)
    else:
        rows = seq.reshape(-1, seq.shape[-1])
        flat = vals.reshape(rows.shape[0], -1)
        result = np.stack([np.searchsorted(r, v, side=how) for r, v in zip(rows, flat)]).reshape(vals.shape)
    return write_out(Tensor._make(np.asarray(result, dtype=np.int32 if out_int32 else np.int64)), out, "searchsorted")


def bucketize(input, boundaries, *, out_int32=False, right=False, out=None):
    """The bucket of each value of ``input`` among the 1-d ``boundaries``."""
    if boundaries.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.ndim})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right, out=out)


def unravel_index(indices, shape):
    """The coordinates of flat ``indices`` in a tensor of ``shape``, one int64 tensor per dimension."""
    flat = np.asarray(indices._data if isinstance(indices, Tensor) else indices)
    if flat.dtype.kind not in "iu":
        raise TypeError("expected 'indices' to be integer dtype, but got " + str(flat.dtype))
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    size = math.prod(shape)
    if np.any((flat < -size) | (flat >= size)):
        raise RuntimeError("'indices' must be in range [-prod(shape), prod(shape))")
    coords = np.unravel_index(flat % size if size else flat, shape)
    return tuple(Tensor._make(np.asarray(c, dtype=np.int64)) for c in coords)


def _unique_result(parts):
    return parts[0] if len(parts) == 1 else tuple(parts)


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The distinct values of ``input`` (sorted), with where each element went
    (``return_inverse``) and how often each occurs (``return_counts``)."""
    a = np.asarray(input._data)
    values, inverse, counts = np.unique(a, return_inverse=True, return_counts=True, axis=dim)
    parts = [not_differentiable((input,), values, "_unique2" if dim is None else "unique_dim",
                                "Unique2Backward0" if dim is None else "UniqueDimBackward0")]
    if return_inverse:
        parts.append(Tensor._make(inverse.reshape(a.shape if dim is None else -1).astype(np.int64)))
    if return_counts:
        parts.append(Tensor._make(counts.astype(np.int64)))
    return _unique_result(parts)


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """``input`` with each run of equal consecutive values (or slices along ``dim``) kept once."""
    a = np.asarray(input._data)
    moved = a.reshape(-1) if dim is None else np.moveaxis(a, dim, 0)
    if len(moved):
        change = np.ones(len(moved), bool)
        change[1:] = np.any((moved[1:] != moved[:-1]).reshape(len(moved) - 1, -1), axis=1)
    else:
        change = np.zeros(0, bool)
    starts = np.flatnonzero(change)
    values = moved[starts] if dim is None else np.moveaxis(moved[starts], 0, dim)
    parts = [not_differentiable((input,), values, "unique_consecutive" if dim is None else "unique_dim_consecutive",
                                "UniqueConsecutiveBackward0" if dim is None else "UniqueDimConsecutiveBackward0")]
    if return_inverse:
        parts.append(Tensor._make((np.cumsum(change) - 1).reshape(a.shape if dim is None else -1).astype(np.int64)))
    if return_counts:
        parts.append(Tensor._make(np.diff(np.append(starts, len(moved))).astype(np.int64)))
    return _unique_result(parts)


def _alias(name, target):
    def alias(input, *, out=None):
        return write_out(getattr(input, target)(), out, name)
    alias.__name__ = alias.__qualname__ = name
    alias.__doc__ = f"``{target}`` under NumPy's name."
    return alias


arccos, arccosh, arcsin, arcsinh, arctan, arctanh = (_alias("arc" + n[1:], n) for n in
                                                     ("acos", "acosh", "asin", "asinh", "atan", "atanh"))

def renorm(input, p, dim, maxnorm):
    """Each slice along ``dim`` whose ``p``-norm exceeds ``maxnorm`` scaled down to it (by
    maxnorm / (norm + 1e-7), as PyTorch), the others as they are (RenormBackward0).

    >>> from diffcompare import autograd as ag
    >>> ag.renorm(ag.tensor([[3.0, 4.0], [0.3, 0.4]]), 2, 0, 1.0)
    tensor([[0.6000, 0.8000],
            [0.3000, 0.4000]])
    """
    d = check_dim(dim, input.ndim)
    if not float(p) > 0:
        raise RuntimeError(f"renorm: non-positive-norm not supported")
    if maxnorm < 0:
        shown = int(maxnorm) if float(maxnorm).is_integer() else maxnorm      # C++'s printing of a double
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {shown}")
    others = tuple(k for k in range(input.ndim) if k != d)
    norm = vector_norm(input, float(p), others, True)
    factor = where(norm > maxnorm, maxnorm / (norm + 1e-7), Tensor._make(np.ones((), input.dtype)))
    return rename_node_of(input * factor, "RenormBackward0")


def combinations(input, r=2, with_replacement=False):
    """The ``r``-element combinations of the elements of a 1-d tensor (each a row), in
    lexicographic order of positions, as ``torch.combinations`` (itertools' order).

    >>> from diffcompare import autograd as ag
    >>> ag.combinations(ag.tensor([1.0, 2.0, 3.0]))
    tensor([[1., 2.],
            [1., 3.],
            [2., 3.]])
    """
    if input.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return Tensor._make(np.zeros(0, input.dtype))
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    rows = np.array(list(pick(range(input.shape[0]), r)), dtype=np.int64).reshape(-1, r)
    return stack([index_select(input, 0, Tensor._make(rows[:, j])) for j in range(r)], 1)


def narrow_copy(input, dim, start, length):
    """A copy of ``narrow(dim, start, length)`` (NarrowCopyBackward0), as ``torch.narrow_copy``."""
    return rename_node_of(narrow(input, dim, start, length).clone(), "NarrowCopyBackward0")


def nonzero_static(input, *, size, fill_value=-1):
    """The indices of the nonzero elements, as ``nonzero``, cut or padded with ``fill_value``
    to ``size`` rows (``torch.nonzero_static``)."""
    where_ = np.argwhere(np.asarray(input._data))
    out = np.full((size, input.ndim), fill_value, dtype=np.int64)
    out[:min(size, len(where_))] = where_[:size]
    return Tensor._make(out)


# the torch-level functions of this family (`ag.<name>`, as `torch.<name>`)
PUBLIC = ("arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctanh", "argwhere", "atleast_1d", "atleast_2d",
          "atleast_3d", "broadcast_shapes", "broadcast_tensors", "broadcast_to", "bucketize", "cartesian_prod",
          "chain_matmul", "column_stack", "combinations", "corrcoef", "count_nonzero", "cov", "diagflat", "diff", "div", "divide", "dsplit", "dstack",
          "fliplr", "flipud", "histc", "hsplit", "hstack", "inner", "isinf", "isneginf", "isposinf", "isreal",
          "meshgrid", "msort", "mul", "multiply", "narrow", "narrow_copy", "neg", "negative", "nonzero", "nonzero_static", "numel",
          "positive", "ravel", "renorm", "repeat_interleave", "row_stack", "searchsorted", "select", "split_with_sizes", "swapdims",
          "take_along_dim", "tensor_split", "tensordot", "true_divide", "unflatten", "unique", "unique_consecutive",
          "unravel_index", "vsplit", "vstack")
divide, multiply, negative = div, mul, neg
# what the family exports to `ops`
__all__ = [*PUBLIC]
