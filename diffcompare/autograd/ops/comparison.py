"""Comparisons and tests, which record nothing: ``< <= > >= == !=``, argmax/argmin, isnan,
isfinite, allclose."""

from __future__ import annotations

import numpy as np

from ..tensor import Tensor
from .recording import array_of

def _compare(np_func):
    def compare(a, b):
        return Tensor._make(np_func(a._data if isinstance(a, Tensor) else a, b._data if isinstance(b, Tensor) else b))
    return compare


lt, le, gt, ge, eq, ne = (_compare(f) for f in (np.less, np.less_equal, np.greater, np.greater_equal,
                                                 np.equal, np.not_equal))


def argmax(x, dim=None, keepdim=False):
    if dim is None:
        return Tensor._make(np.asarray(np.argmax(x._data)))
    return Tensor._make(np.argmax(x._data, axis=dim, keepdims=keepdim))


def argmin(x, dim=None, keepdim=False):
    if dim is None:
        return Tensor._make(np.asarray(np.argmin(x._data)))
    return Tensor._make(np.argmin(x._data, axis=dim, keepdims=keepdim))


def isnan(x):
    return Tensor._make(np.isnan(x._data))


def isfinite(x):
    return Tensor._make(np.isfinite(x._data))


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    return bool(np.allclose(array_of(a), array_of(b), rtol=rtol, atol=atol, equal_nan=equal_nan))


# the torch-level functions of this family (`ag.<name>`, as `torch.<name>`)
PUBLIC = ('allclose', 'argmax', 'argmin', 'isfinite', 'isnan')
# what the family exports to `ops`
__all__ = ['allclose', 'argmax', 'argmin', 'eq', 'ge', 'gt', 'isfinite', 'isnan', 'le', 'lt', 'ne']
