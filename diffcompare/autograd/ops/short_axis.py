"""Elementwise operations and sums on arrays whose last axis is short, iterated so that a
long axis is the inner loop.

NumPy runs its inner loop along the last axis when it cannot merge it with the one before
(a broadcast operand, a reduction over another axis). When that axis is short — the d = 2 or
3 coordinates of n points, the xyz of a mesh — the loop is called once per few elements:
``x[None] - means[:, None]`` on (5, 1000, 2) costs four times what the same number of
elements costs contiguously, and ``(a ** 2).sum(-1)`` on it twelve times. Here such an
operation is done one index of the short axis at a time (two or three calls, each along the
long axes), with the same result; the elementwise results are bit for bit NumPy's.

>>> a, b = np.arange(6000.0).reshape(1, 3000, 2), np.array([[[0.5, 2.0]], [[1.0, -1.0]]])
>>> bool((binary(np.subtract, a, b) == a - b).all())
True
>>> c = np.arange(12000.0).reshape(2, 3000, 2)
>>> bool((total(c, (1,), True) == c.sum(axis=1, keepdims=True)).all()), total(c, (2,), False).shape
(True, (2, 3000))

A backward's reductions (a broadcast input's gradient summed back to its shape, ``g * b``
summed for the input of a broadcasting product) go through ``summed``: where the last axis
is long, one ``np.einsum`` pass, which neither materialises the product nor runs NumPy's
strided reduction loop (a third of the time on a (50, 1000, 20) sum over its middle axis,
half on (1000, 100) summed over rows); where it is short, the product and ``total``. Its
sums are plain, not pairwise: fine for a gradient, so forward sums stay with ``total``.

>>> g, b = np.arange(60000.0).reshape(2, 1000, 30), np.full((2, 1000, 30), 0.5)
>>> bool((summed((g, b), (1,)) == (g * b).sum(axis=1, keepdims=True)).all())
True
"""

from __future__ import annotations

import math

import numpy as np

SHORT = 16          # a last axis at most this long is a candidate
MIN_SIZE = 2048     # below this the calls cost more than NumPy's short inner loops


def _worth(shape):
    """Whether an operation over ``shape`` (last axis short) repays one call per index of it."""
    n = shape[-1]
    return 1 < n <= SHORT and len(shape) > 1 and math.prod(shape) >= max(MIN_SIZE, 128 * n * n)


def _merges(array, shape):
    """Whether NumPy can merge the last two axes of ``array`` broadcast to ``shape``."""
    ndim = array.ndim     # the strides of the last two axes of the broadcast view, computed
    last = array.strides[-1] if array.shape[-1] == shape[-1] else 0
    before = array.strides[-2] if ndim > 1 and array.shape[-2] == shape[-2] else 0
    return before == last * shape[-1]


_max = max
_WAYS: dict = {}            # the operands' shapes, strides and item sizes -> how ``binary`` computes
_WAYS_KEPT = 1024


def binary(ufunc, a, b):
    """``ufunc(a, b)``, one index of a short last axis at a time where an operand that is
    broadcast or not contiguous would make NumPy loop along it; otherwise ``ufunc(a, b)``.
    How is decided once for operands of given shapes and strides (``_way``)."""
    if type(a) is np.ndarray and type(b) is np.ndarray and a.ndim and b.ndim and \
            1 < _max(a.shape[-1], b.shape[-1]) <= SHORT:
        key = (a.shape, a.strides, a.itemsize, b.shape, b.strides, b.itemsize)
        way = _WAYS.get(key, False)
        if way is False:
            way = _way(a, b)
            if len(_WAYS) < _WAYS_KEPT:
                _WAYS[key] = way
        if way is not None:
            shape, plan = way
            if plan is not None:
                return _grouped(ufunc, a, b, shape, plan)
            first = ufunc(a[..., 0], b[..., 0])
            out = np.empty(shape, first.dtype)
            out[..., 0] = first
            last_a, last_b = a.shape[-1] > 1, b.shape[-1] > 1
            for j in range(1, shape[-1]):
                ufunc(a[..., j if last_a else 0], b[..., j if last_b else 0], out=out[..., j])
            return out
    return ufunc(a, b)


def _way(a, b):
    """None where NumPy's own loop serves; else (the result's shape, ``_plan``'s grouping of
    rows, or None: one index of the last axis at a time). Raises NumPy's ValueError for shapes
    that do not broadcast."""
    shape = a.shape if a.shape == b.shape else np.broadcast_shapes(a.shape, b.shape)
    if _worth(shape) and not (_merges(a, shape) and _merges(b, shape)):
        return shape, _plan(a, b, shape)
    return None


_PERIODS: dict = {}      # (n, longest) -> the rows taken together by _tiled, or 1
TILE = 4096             # elements of repeated rows at most (they stay in the first-level cache)


def _period(n, longest):
    """The largest divisor r of ``n`` with r at most ``longest`` and n / r at least 4 (1: none
    better than a row at a time)."""
    r = _PERIODS.get((n, longest))
    if r is None:
        r = next((r for r in range(min(longest, n // 4), 1, -1) if n % r == 0), 1)
        _PERIODS[(n, longest)] = r
    return r


def _tiled(ufunc, a, b, shape):
    """``ufunc(a, b)`` (an exact arithmetic ufunc) where each operand either holds every row of
    the last two axes, contiguously, or one row broadcast along the axis before the short
    last one (the means of a mixture against its points): r rows are taken as one long row,
    the broadcast operand's row repeated r times (a small copy), so that NumPy's inner loop
    runs along r * short contiguous elements instead of ``short``. None where the operands
    are not of those forms, or the rows cannot be grouped.

    >>> a, b = np.arange(6000.0).reshape(3, 1000, 2), np.array([[[0.5, 2.0]], [[1.0, -1.0]], [[3.0, 0.0]]])
    >>> bool((_tiled(np.multiply, a, b, a.shape) == a * b).all()), _tiled(np.add, a, a[:, :1, :1], a.shape)
    (True, None)
    """
    plan = _plan(a, b, shape)
    return None if plan is None else _grouped(ufunc, a, b, shape, plan)


def _grouped(ufunc, a, b, shape, plan):
    """``ufunc(a, b)`` with the rows grouped as ``_plan`` says."""
    (grouped_a, row_a), (grouped_b, row_b), r = plan
    a = a.reshape(grouped_a) if row_a is None else a.reshape(row_a).repeat(r, axis=-2).reshape(grouped_a)
    b = b.reshape(grouped_b) if row_b is None else b.reshape(row_b).repeat(r, axis=-2).reshape(grouped_b)
    return ufunc(a, b).reshape(shape)


def _plan(a, b, shape):
    """How ``_tiled`` groups the rows of ``a`` and ``b``: for each operand (its grouped shape,
    None for rows taken as they are or the shape of its one row, repeated), and r; None where
    it cannot."""
    n, short = shape[-2], shape[-1]
    ndim = len(shape)
    rows = math.prod(shape[:-2])        # of the repeated operand at most: a long row each
    r = _period(n, max(2, min(256, TILE // max(rows, 1)) // short))
    if r == 1:
        return None
    operands = []
    for x in (a, b):
        xs = (1,) * (ndim - x.ndim) + x.shape
        lead = xs[:-2]
        if xs[-1] != short:
            return None
        item = x.itemsize
        if xs[-2] == n and x.strides[-1] == item and x.strides[-2] == short * item:
            operands.append((lead + (n // r, r * short), None))
        elif xs[-2] == 1:
            operands.append((lead + (1, r * short), lead + (1, short)))
        else:
            return None
    return operands[0], operands[1], r


def broadcasting(ufunc):
    """The forward of a broadcasting op: ``ufunc`` itself on operands of one shape or with a
    0-d one (nothing to gain, and no time spent asking), else ``binary``."""
    def forward(a, b, ufunc=ufunc, ndarray=np.ndarray):
        if a.__class__ is ndarray and b.__class__ is ndarray and a.shape != b.shape and a.ndim and b.ndim:
            return binary(ufunc, a, b)
        return ufunc(a, b)
    forward.__name__ = forward.__qualname__ = ufunc.__name__
    return forward


def times(a, b):
    """``a * b`` in a backward: arrays by ``binary`` when large (an expanded gradient has a
    zero stride), tensors (a differentiable backward) by their own product, recorded."""
    if a.__class__ is np.ndarray and b.__class__ is np.ndarray:
        return binary(np.multiply, a, b) if a.size >= MIN_SIZE or b.size >= MIN_SIZE else a * b
    return a * b


def total(a, axis, keepdims):
    """``a.sum(axis=axis, keepdims=keepdims)`` (``axis``: None or a tuple of axes), one index of
    a short last axis at a time where NumPy's loop would run along it: the last axis summed
    alone, or kept while others are summed."""
    if type(a) is not np.ndarray or axis is None or a.size < MIN_SIZE or a.dtype.kind not in "fc" or \
            not _worth(a.shape):
        return a.sum(axis=axis, keepdims=keepdims)
    last = a.ndim - 1
    axes = tuple(sorted(d % a.ndim for d in axis))
    if last in axes:
        if last - 1 in axes:        # summed with the axis before it: NumPy merges them
            return a.sum(axis=axis, keepdims=keepdims)
        acc = a[..., 0] + a[..., 1]
        for j in range(2, a.shape[-1]):
            acc += a[..., j]
        rest = axes[:-1]
        if rest:
            acc = acc.sum(axis=rest, keepdims=keepdims)
        return acc[..., None] if keepdims else acc
    if not axes:
        return a.sum(axis=axis, keepdims=keepdims)
    first = a[..., 0].sum(axis=axes, keepdims=keepdims)
    out = np.empty(first.shape + (a.shape[-1],), first.dtype)
    out[..., 0] = first
    for j in range(1, a.shape[-1]):
        np.sum(a[..., j], axis=axes, keepdims=keepdims, out=out[..., j])
    return out


_SUBSCRIPTS: dict = {}      # (operands, ndim, axes) -> einsum's subscripts


def summed(arrays, axes):
    """The sum over ``axes`` (sorted, kept as size-1 axes) of the product of ``arrays`` (one or
    two arrays of one shape, views with zero strides allowed).

    Large float32/64 or complex operands (at least ``MIN_SIZE`` elements) are summed by BLAS
    where the summed axes are one block of a contiguous array with axes kept after it: a
    vector of ones times the array seen as (before, summed, after), the sum over a middle or
    first axis that NumPy's strided loop runs slowest (a quarter of ``np.einsum``'s time on a
    (50, 1000, 20) sum over its middle axis, a seventh on (1000, 3) over rows). A sum over
    the last axes is ``total``'s. Otherwise a product of two arrays whose last axis is long
    goes through one ``np.einsum`` pass (which never materialises the product), else NumPy's
    product and ``total``. These sums are plain, not pairwise: fine
    for a gradient, so forward sums stay with ``total``."""
    a = arrays[0]
    if a.size < MIN_SIZE or not 0 < a.ndim <= 26 or \
            any(x.dtype.kind not in "fc" or x.dtype.itemsize < 4 for x in arrays):
        product = a if len(arrays) == 1 else times(a, arrays[1])
        return total(product, axes, True)
    if len(arrays) == 1 or a.shape[-1] <= SHORT:
        product = a if len(arrays) == 1 else times(a, arrays[1])
        out = _by_blas(product, axes)
        if out is not None:
            return out
        if len(arrays) == 2 or a.shape[-1] <= SHORT or axes[-1] == a.ndim - 1:
            return total(product, axes, True)
    key = (len(arrays), a.ndim, axes)
    subscripts = _SUBSCRIPTS.get(key)
    if subscripts is None:
        full = "abcdefghijklmnopqrstuvwxyz"[:a.ndim]
        kept = "".join(c for i, c in enumerate(full) if i not in axes)
        subscripts = _SUBSCRIPTS[key] = ",".join([full] * len(arrays)) + "->" + kept
    out = np.einsum(subscripts, *arrays)
    return np.asarray(out).reshape(tuple(1 if i in axes else n for i, n in enumerate(a.shape)))


def _by_blas(a, axes):
    """``a.sum(axis=axes, keepdims=True)`` for a C-contiguous ``a`` whose summed ``axes`` are
    one block with axes kept after it: ones @ a seen as (before, summed, after); None for any
    other array (a sum over the last axes is NumPy's own along contiguous rows, ``total``).

    >>> a = np.arange(24.0).reshape(2, 3, 4)
    >>> bool((_by_blas(a, (1,)) == a.sum(axis=1, keepdims=True)).all()), _by_blas(a, (0, 2))
    (True, None)
    """
    first, last = axes[0], axes[-1]
    if last - first + 1 != len(axes) or not a.flags.c_contiguous:
        return None
    shape = a.shape
    summed_size = math.prod(shape[first:last + 1])
    before, after = math.prod(shape[:first]), math.prod(shape[last + 1:])
    kept = shape[:first] + (1,) * len(axes) + shape[last + 1:]
    if after == 1:
        return None
    view = a.reshape(summed_size, after) if before == 1 else a.reshape(before, summed_size, after)
    return np.matmul(_ones(summed_size, a.dtype), view).reshape(kept)


_ONES: dict = {}            # dtype -> a vector of ones, sliced for each sum
_ONES_KEPT = 1 << 16        # longest vector kept between calls


def _ones(n, dtype):
    ones = _ONES.get(dtype)
    if ones is None or len(ones) < n:
        if n > _ONES_KEPT:
            return np.ones(n, dtype)
        ones = _ONES[dtype] = np.ones(max(n, 1024), dtype)
        ones.flags.writeable = False
    return ones[:n]

