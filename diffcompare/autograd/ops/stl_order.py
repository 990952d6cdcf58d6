"""``topk``'s choice among equal values, as PyTorch's CPU kernel makes it: that kernel orders
(value, index) pairs with libstdc++'s ``std::partial_sort`` when ``64 * k <= n``, else with
``std::nth_element`` (then ``std::sort`` of the first ``k - 1`` when ``sorted``), and those
algorithms are not stable: which of several equal values are picked, and in what order,
follows from their exact steps. This module takes the same steps (introselect, median-of-three
pivots, unguarded partitions, heap selection, insertion sorts) on a row of integer keys (the
values' ranks, NaN the largest), the first key the one to come first.

>>> topk_indices([0.0, 0.0, 0.0, 0.0, 0.0], k=2, largest=True, sorted=True)
[2, 4]
>>> topk_indices([1.0, 1.0, 1.0, 0.0], k=3, largest=True, sorted=True)
[1, 2, 0]
"""

from __future__ import annotations

import numpy as np

_THRESHOLD = 16     # libstdc++'s _S_threshold: ranges no longer than it are insertion sorted


def topk_indices(row, k, largest, sorted):
    """The indices PyTorch's CPU ``topk`` returns for the 1-d ``row``, in its order."""
    row = np.asarray(row)
    n = row.shape[0]
    if k == 0:
        return []
    _, rank = np.unique(row, return_inverse=True)      # NaN ranks last (one rank for all NaNs)
    rank = rank.reshape(-1)
    key = (-rank if largest else rank).tolist()
    queue = list(range(n))
    if k * 64 <= n:
        _partial_sort(queue, 0, k, n, key)
    else:
        _nth_element(queue, 0, k - 1, n, key)
        if sorted:
            _sort(queue, 0, k - 1, key)
    return queue[:k]


def topk_order(a, axis, k, largest, sorted):
    """``topk_indices`` of every row of ``a`` along ``axis`` (an int64 array, ``k`` along
    ``axis``); a row of distinct values, whose order every algorithm agrees on, is argsorted."""
    moved = np.moveaxis(np.asarray(a), axis, -1)
    n = moved.shape[-1]
    if k == 0 or moved.size == 0:
        return np.moveaxis(np.zeros(moved.shape[:-1] + (k,), np.int64), -1, axis)
    rows = moved.reshape(-1, n)
    ascending = np.argsort(rows, axis=-1, kind="stable")               # NaN last
    ordered = np.take_along_axis(rows, ascending, axis=-1)
    ties = (ordered[:, 1:] == ordered[:, :-1]).any(axis=-1)
    if rows.dtype.kind in "fc":
        ties |= np.isnan(rows).sum(axis=-1) > 1
    if not sorted and k * 64 > n:
        ties[:] = True                                 # nth_element's own order, distinct values or not
    out = (ascending[:, ::-1] if largest else ascending)[:, :k].astype(np.int64)   # one NaN: first if largest
    for r in np.flatnonzero(ties):
        out[r] = topk_indices(rows[r], k, largest, sorted)
    return np.moveaxis(out.reshape(moved.shape[:-1] + (k,)), -1, axis)


REPLAY_LIMIT = 50_000   # a longer row with ties is sorted stably (the replay is Python, step by step)


def _ranks(ascending, change):
    """Each element's rank in its row (equal values one rank), from the rows' stable ascending
    order and where the ordered values change."""
    ranked = np.concatenate([np.zeros((len(ascending), 1), np.int64), np.cumsum(change, axis=-1)], axis=-1)
    rank = np.empty_like(ranked)
    np.put_along_axis(rank, ascending, ranked, axis=-1)
    return rank


def sort_order(a, axis, descending, stable):
    """The indices PyTorch's CPU ``sort`` gives along ``axis``: its comparisons (NaN the
    largest) with ``std::stable_sort`` when ``stable``, else ``std::sort``, whose order among
    equal values follows from its steps: replayed for a row with ties (up to ``REPLAY_LIMIT``
    elements; a longer one is sorted stably).

    >>> sort_order(np.array([0, 1] * 9), 0, False, False)[:6].tolist()
    [2, 16, 4, 6, 14, 8]
    >>> sort_order(np.array([1.0, np.nan, 3.0, 1.0]), 0, True, True).tolist()
    [1, 2, 0, 3]
    """
    moved = np.moveaxis(np.asarray(a), axis, -1)
    n = moved.shape[-1]
    if moved.size == 0:
        return np.moveaxis(np.zeros(moved.shape, np.int64), -1, axis)
    rows = moved.reshape(-1, n)
    ascending = np.argsort(rows, axis=-1, kind="stable")               # NaN last
    ordered = np.take_along_axis(rows, ascending, axis=-1)
    change = ordered[:, 1:] != ordered[:, :-1]
    if rows.dtype.kind in "fc":
        change &= ~(np.isnan(ordered[:, 1:]) & np.isnan(ordered[:, :-1]))
    ties = ~change.all(axis=-1)
    if not ties.any():      # distinct values: one order, whatever the algorithm
        out = np.ascontiguousarray(ascending[:, ::-1]) if descending else ascending
        return np.moveaxis(out.reshape(moved.shape), -1, axis)
    rank = _ranks(ascending, change)
    key = -rank if descending else rank
    out = np.argsort(key, axis=-1, kind="stable")
    if not stable and n <= REPLAY_LIMIT:
        for r in np.flatnonzero(ties):
            queue = list(range(n))
            _sort(queue, 0, n, key[r].tolist())
            out[r] = queue
    return np.moveaxis(out.reshape(moved.shape), -1, axis)


# --- libstdc++'s algorithms on a list of element ids, compared by key[id] ----------------------

def _lg(n):
    return n.bit_length() - 1


def _push_heap(q, first, hole, top, value, key):
    kv = key[value]
    parent = (hole - 1) // 2
    while hole > top and key[q[first + parent]] < kv:
        q[first + hole] = q[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    q[first + hole] = value


def _adjust_heap(q, first, hole, length, value, key):
    top = second = hole
    while second < (length - 1) // 2:
        second = 2 * (second + 1)
        if key[q[first + second]] < key[q[first + second - 1]]:
            second -= 1
        q[first + hole] = q[first + second]
        hole = second
    if length % 2 == 0 and second == (length - 2) // 2:
        second = 2 * (second + 1)
        q[first + hole] = q[first + second - 1]
        hole = second - 1
    _push_heap(q, first, hole, top, value, key)


def _pop_heap(q, first, last, result, key):
    value = q[result]
    q[result] = q[first]
    _adjust_heap(q, first, 0, last - first, value, key)


def _make_heap(q, first, last, key):
    length = last - first
    if length < 2:
        return
    parent = (length - 2) // 2
    while True:
        _adjust_heap(q, first, parent, length, q[first + parent], key)
        if parent == 0:
            return
        parent -= 1


def _heap_select(q, first, middle, last, key):
    _make_heap(q, first, middle, key)
    for i in range(middle, last):
        if key[q[i]] < key[q[first]]:
            _pop_heap(q, first, middle, i, key)


def _sort_heap(q, first, last, key):
    while last - first > 1:
        last -= 1
        _pop_heap(q, first, last, last, key)


def _partial_sort(q, first, middle, last, key):
    _heap_select(q, first, middle, last, key)
    _sort_heap(q, first, middle, key)


def _move_median_to_first(q, result, a, b, c, key):
    ka, kb, kc = key[q[a]], key[q[b]], key[q[c]]
    if ka < kb:
        pick = b if kb < kc else (c if ka < kc else a)
    elif ka < kc:
        pick = a
    else:
        pick = c if kb < kc else b
    q[result], q[pick] = q[pick], q[result]


def _unguarded_partition(q, first, last, pivot, key):
    kp = key[q[pivot]]
    while True:
        while key[q[first]] < kp:
            first += 1
        last -= 1
        while kp < key[q[last]]:
            last -= 1
        if not first < last:
            return first
        q[first], q[last] = q[last], q[first]
        first += 1


def _partition_pivot(q, first, last, key):
    mid = first + (last - first) // 2
    _move_median_to_first(q, first, first + 1, mid, last - 1, key)
    return _unguarded_partition(q, first + 1, last, first, key)


def _unguarded_linear_insert(q, last, key):
    value = q[last]
    kv = key[value]
    nxt = last - 1
    while kv < key[q[nxt]]:
        q[last] = q[nxt]
        last = nxt
        nxt -= 1
    q[last] = value


def _insertion_sort(q, first, last, key):
    for i in range(first + 1, last):
        value = q[i]
        if key[value] < key[q[first]]:
            q[first + 1:i + 1] = q[first:i]
            q[first] = value
        else:
            _unguarded_linear_insert(q, i, key)


def _nth_element(q, first, nth, last, key):
    if first == last or nth == last:
        return
    depth = _lg(last - first) * 2
    while last - first > 3:
        if depth == 0:
            _heap_select(q, first, nth + 1, last, key)
            q[first], q[nth] = q[nth], q[first]
            return
        depth -= 1
        cut = _partition_pivot(q, first, last, key)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _insertion_sort(q, first, last, key)


def _introsort_loop(q, first, last, depth, key):
    while last - first > _THRESHOLD:
        if depth == 0:
            _partial_sort(q, first, last, last, key)
            return
        depth -= 1
        cut = _partition_pivot(q, first, last, key)
        _introsort_loop(q, cut, last, depth, key)
        last = cut


def _sort(q, first, last, key):
    if first == last:
        return
    _introsort_loop(q, first, last, _lg(last - first) * 2, key)
    if last - first > _THRESHOLD:
        _insertion_sort(q, first, first + _THRESHOLD, key)
        for i in range(first + _THRESHOLD, last):
            _unguarded_linear_insert(q, i, key)
    else:
        _insertion_sort(q, first, last, key)
