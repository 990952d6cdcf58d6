"""Comparisons and tests, which record nothing: ``< <= > >= == !=``, argmax/argmin, isnan,
isfinite, allclose, isclose."""

from __future__ import annotations

import numpy as np

from ..tensor import Tensor
from .outputs import write_out
from .recording import array_of

def _compare(np_func, name):
    def compare(input, other, *, out=None):
        result = Tensor._make(np_func(input._data if isinstance(input, Tensor) else input,
                                      other._data if isinstance(other, Tensor) else other))
        return result if out is None else write_out(result, out, name)
    compare.__name__ = compare.__qualname__ = name
    compare.own_names = True    # PyTorch's signature itself: no keyword wrapper on this hot path
    return compare


lt, le, gt, ge, eq, ne = (_compare(f, n) for f, n in ((np.less, "lt"), (np.less_equal, "le"), (np.greater, "gt"),
                                                      (np.greater_equal, "ge"), (np.equal, "eq"), (np.not_equal, "ne")))


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


def equal(input, other):
    """True when both tensors have the same shape and the same elements (a Python bool).

    >>> from diffcompare import autograd as ag
    >>> ag.equal(ag.tensor([1.0, 2.0]), ag.tensor([1.0, 2.0])), ag.equal(ag.tensor([1.0]), ag.tensor([1.0, 1.0]))
    (True, False)
    """
    a, b = array_of(input), array_of(other)
    return a.shape == b.shape and bool(np.array_equal(a, b))


def _logical(np_func):
    def reduce(x, dim=None, keepdim=False):
        a = array_of(x)
        if dim is None:
            return Tensor._make(np.asarray(np_func(a)))
        return Tensor._make(np_func(a, axis=dim if isinstance(dim, int) else tuple(dim), keepdims=keepdim))
    return reduce


all = _logical(np.all)  # noqa: A001 - PyTorch's name
all.__name__ = all.__qualname__ = "all"
all.__doc__ = "Whether every element (along ``dim``) is nonzero, as a bool tensor."
any = _logical(np.any)  # noqa: A001 - PyTorch's name
any.__name__ = any.__qualname__ = "any"
any.__doc__ = "Whether some element (along ``dim``) is nonzero, as a bool tensor."


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    return bool(np.allclose(array_of(input), array_of(other), rtol=rtol, atol=atol, equal_nan=equal_nan))


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Elementwise ``|input - other| <= atol + rtol |other|`` (infinities equal when they are the
    same; nans equal when ``equal_nan``), as a bool tensor."""
    return Tensor._make(np.isclose(array_of(input), array_of(other), rtol=rtol, atol=atol, equal_nan=equal_nan))


greater, greater_equal, less, less_equal, not_equal = gt, ge, lt, le, ne


def _bitwise(np_func, name):
    def combine(input, other, *, out=None):
        return write_out(Tensor._make(np.asarray(np_func(array_of(input), array_of(other)))), out, name)
    combine.__name__ = combine.__qualname__ = name
    combine.__doc__ = f"Elementwise ``{np_func.__name__}`` (logical on bool tensors), recording nothing."
    return combine


bitwise_and, bitwise_or, bitwise_xor = (_bitwise(f, n) for f, n in ((np.bitwise_and, "bitwise_and"),
                                                                     (np.bitwise_or, "bitwise_or"),
                                                                     (np.bitwise_xor, "bitwise_xor")))
bitwise_left_shift, bitwise_right_shift = (_bitwise(f, n) for f, n in ((np.left_shift, "bitwise_left_shift"),
                                                                       (np.right_shift, "bitwise_right_shift")))
logical_and, logical_or, logical_xor = (_bitwise(f, n) for f, n in ((np.logical_and, "logical_and"),
                                                                     (np.logical_or, "logical_or"),
                                                                     (np.logical_xor, "logical_xor")))


def bitwise_not(input):
    """``~input``: logical not of a bool tensor, the bits' complement of an integer one."""
    a = array_of(input)
    if a.dtype.kind == "f":
        raise TypeError("bitwise_not_cpu\" not implemented for 'Double'" if a.dtype == np.float64 else "bitwise_not")
    return Tensor._make(np.invert(a))


def logical_not(input, *, out=None):
    """Where ``input`` is zero (a bool tensor)."""
    return write_out(Tensor._make(np.logical_not(array_of(input))), out, "logical_not")

# the torch-level functions of this family (`ag.<name>`, as `torch.<name>`)
PUBLIC = ('all', 'allclose', 'any', 'argmax', 'argmin', 'bitwise_and', 'bitwise_left_shift', 'bitwise_not', 'bitwise_right_shift', 'bitwise_or', 'bitwise_xor', 'eq', 'equal', 'ge', 'greater', 'greater_equal', 'gt', 'isclose',
          'isfinite', 'isnan', 'le', 'less', 'less_equal', 'logical_and', 'logical_not', 'logical_or', 'logical_xor', 'lt',
          'ne', 'not_equal')
# what the family exports to `ops`
__all__ = [*PUBLIC]
