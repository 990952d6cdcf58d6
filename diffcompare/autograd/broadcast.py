"""Read-only broadcast views of arrays, made for a backward step's cost.

A reduction's backward broadcasts the incoming gradient back to the input's shape on every
step; ``np.broadcast_to`` spends about 6 µs in Python-level argument checks for it, several
times the view itself. ``broadcast_view`` builds the same view straight from the strides
when the array is contiguous (the common case: a reduction's result, a seed), in about a
third of the time, and leaves the rest to ``np.broadcast_to``. Either way the view is
read-only, as ``np.broadcast_to``'s is, so an in-place update cannot write through a zero
stride.

>>> g = np.array([[1.0], [2.0]])
>>> v = broadcast_view(g, (3, 2, 4))
>>> bool((v == np.broadcast_to(g, (3, 2, 4))).all()), v.strides, v.flags.writeable
(True, (0, 8, 0), False)
>>> broadcast_view(g, (3, 3))
Traceback (most recent call last):
ValueError: operands could not be broadcast together with remapped shapes [original->remapped]: (2,1)  and requested shape (3,3)
"""

from __future__ import annotations

import numpy as np

_ndarray = np.ndarray


def broadcast_view(a, shape):
    """``np.broadcast_to(a, shape)``: a read-only view of ``a`` broadcast to ``shape``."""
    if a.__class__ is _ndarray and a.flags.c_contiguous:
        ndim = a.ndim
        lead = len(shape) - ndim
        if lead >= 0:
            strides = [0] * lead
            for n, m, s in zip(a.shape, shape[lead:], a.strides):
                if n == m:
                    strides.append(s)
                elif n == 1:
                    strides.append(0)
                else:
                    return np.broadcast_to(a, shape)     # raises NumPy's error
            view = _ndarray(shape, a.dtype, a, 0, strides)
            view.flags.writeable = False
            return view
    return np.broadcast_to(a, shape)
