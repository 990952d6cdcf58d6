"""How the backward walk holds gradients on their way: lazy forms that save passes over
memory, sums made in place when only the walk holds an array, and the test for that.

- ``scaled``: ``g * c`` as cheaply as possible: a broadcast constant (the gradient of a sum)
  stays one, a large array carries the factor as a ``ScaledGrad``;
- ``ScaledGrad``: ``factor * values`` not yet multiplied out (a negation, a scaling);
- ``IndexedGrad``: a slice's gradient, zero outside the slice, kept small until it meets
  another contribution, which it is then added into;
- ``merge``/``add``: sum two contributions, in place into an array the walk owns;
- ``is_own``: whether a result of a node's backward is held by nothing but the walk, so it
  can be updated in place and handed to a leaf's ``.grad`` without a copy.
"""

from __future__ import annotations

import numpy as np

from .broadcast import broadcast_view


class ScaledGrad:
    """The gradient ``factor * values``, not yet multiplied out.

    Negations and scalings by a number (``b - a``, ``1 - x``, ``c * x``) return one, and the
    next linear step folds the factor into work it does anyway: a pass over memory saved.
    """

    __slots__ = ("values", "factor")

    def __init__(self, values, factor):
        self.values, self.factor = values, factor

    shape = property(lambda self: self.values.shape)
    dtype = property(lambda self: self.values.dtype)

    def dense(self):
        return self.values * self.factor

    def add_to(self, target):
        """target += factor * values, in place, in one pass when the factor is +-1."""
        if self.factor == -1:
            target -= self.values
        elif self.factor == 1:
            target += self.values
        else:
            target += self.values * self.factor


class IndexedGrad:
    """A gradient that is zero except at a basic ``index`` of an array of ``shape``.

    Slicing's backward returns one instead of a mostly-zero array, so that several slices of
    one tensor (``x[1:]`` and ``x[:-1]``) add their parts straight into one buffer.
    """

    __slots__ = ("values", "index", "shape")

    def __init__(self, values, index, shape):
        self.values, self.index, self.shape = values, index, shape

    def dense(self):
        # a box of slices: the part outside zeroed, not the whole array first; a small array
        # (below BOX_MIN_SIZE elements) is zeroed whole, one call instead of a few
        box = _box(self.index) if _size(self.shape) >= BOX_MIN_SIZE else None
        out = np.empty(self.shape, dtype=self.values.dtype) if box else np.zeros(self.shape, self.values.dtype)
        if type(self.values) is ScaledGrad:
            np.multiply(self.values.values, self.values.factor, out=out[self.index])
        else:
            out[self.index] = self.values
        if box:
            _zero_outside(out, box)
        return out

    def add_to(self, target):
        region = target[self.index]
        if type(self.values) is ScaledGrad:
            self.values.add_to(region)
        else:
            region += self.values


BOX_MIN_SIZE = 4096     # below this, zeroing the whole array costs less than zeroing around a box


def _size(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def _box(index):
    """The index as step-1 slices (a box whose outside is cheap to zero), or None."""
    slices = [s for s in index if s is not Ellipsis]
    if all(type(s) is slice and s.step in (None, 1) for s in slices) and index[-1] is Ellipsis:
        return slices
    return None


def _zero_outside(out, box):
    region = ()
    for dim, s in enumerate(box):
        start, stop, _ = s.indices(out.shape[dim])
        out[region + (slice(0, start),)] = 0
        out[region + (slice(max(start, stop), None),)] = 0
        region += (slice(start, stop),)


LAZY = (ScaledGrad, IndexedGrad)


def merge(previous, g, owned):
    """previous + g, in place when ``previous`` is an array this walk owns."""
    if type(previous) in LAZY:
        previous = previous.dense()
    elif id(previous) not in owned:
        if type(g) is IndexedGrad and type(previous) is np.ndarray and type(g.values) is np.ndarray and \
                previous.shape == g.shape and previous.dtype == g.values.dtype and previous.dtype.kind in "fc":
            # previous + g.dense() without the dense array: previous + 0 (its sum with the zeros), and
            # the sum at the index
            total = previous + 0
            total[g.index] = previous[g.index] + g.values
            owned.add(id(total))
            return total
        total = previous + (g.dense() if type(g) in LAZY else g)
        if type(total) is np.ndarray:
            owned.add(id(total))
        return total
    owned.add(id(previous))
    if type(g) in LAZY:
        if type(g) is ScaledGrad and g.shape != previous.shape:
            g = g.dense()
        else:
            g.add_to(previous)
            return previous
    if previous.shape == g.shape and previous.flags.writeable:
        previous += g
    else:
        owned.discard(id(previous))
        previous = previous + g
        owned.add(id(previous))
    return previous


def stack_rows(rows):
    """Per-row backward results (each a sequence with one gradient or None per input) as one
    array per input with the rows along a new leading axis; None where no row has one."""
    out = []
    for column in zip(*rows):
        given = [c for c in column if c is not None]
        out.append(None if not given else np.stack([c if c is not None else np.zeros_like(given[0])
                                                    for c in column]))
    return tuple(out)


def add(a, b):
    """Sum two gradient contributions; ``None`` means no contribution."""
    a, b = (v.dense() if type(v) in LAZY else v for v in (a, b))
    if a is None:
        return b
    if b is None:
        return a
    return a + b






OWNERSHIP_MIN_SIZE = 4096   # below this a copy costs less than proving it is not needed


def is_own(g, results, incoming, incoming_owned, saved):
    """Whether a result of a node's backward is held by nothing but the walk: it shares
    memory with no other result, with no saved array, and with the incoming gradient
    unless that one was the walk's own (a view of it, such as a transpose's backward)."""
    if not g.flags.writeable:
        return False
    while type(incoming) in LAZY:
        incoming = incoming.values
    if type(incoming) is np.ndarray and not incoming_owned and np.may_share_memory(g, incoming):
        return False
    appearances = 0
    for other in results:
        if other is g:
            appearances += 1          # the same array for two inputs (x + y): never own it
            continue
        while type(other) in LAZY:
            other = other.values
        if type(other) is np.ndarray and np.may_share_memory(g, other):
            return False
    if appearances > 1:
        return False
    for value in saved or ():
        array = getattr(value, "array", value)   # a SavedTensor's array, or a constant
        if array is None and getattr(value, "hooked", False):
            return False      # kept by a pack hook: what it unpacks to is not known here
        if type(array) is np.ndarray and np.may_share_memory(g, array):
            return False
    return True


def is_constant(g):
    """A broadcast scalar, such as the gradient that sum() sends back: every stride is 0."""
    return type(g) is np.ndarray and g.ndim > 0 and not any(g.strides)


LAZY_MIN_SIZE = 4096   # below this, multiplying now is cheaper than carrying a factor


def scaled(g, c):
    """``g * c`` for a number c, without a pass over memory where possible: a broadcast
    constant stays one, and a large array carries the factor (ScaledGrad) to the next step."""
    if type(g) is ScaledGrad:
        return ScaledGrad(g.values, g.factor * c)
    if type(g) is np.ndarray and g.size < LAZY_MIN_SIZE:
        return g * c                # small: multiplying costs less than rebuilding a broadcast view
    if is_constant(g):
        return broadcast_view(np.asarray(g.flat[0] * c), g.shape)
    if type(g) is np.ndarray and g.size >= LAZY_MIN_SIZE:
        return ScaledGrad(g, c)
    if c == -1 and not isinstance(g, np.ndarray):
        return -g                   # a gradient with history: NegBackward0, as PyTorch's -grad
    return g * c
