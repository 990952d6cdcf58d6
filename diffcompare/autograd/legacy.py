"""PyTorch's legacy tensor types, ``torch.FloatTensor``, ``torch.LongTensor``, ...: called
with sizes they make a tensor of that shape (zeros: PyTorch's are uninitialised), called with
data a tensor of their dtype; ``isinstance(t, torch.FloatTensor)`` checks the dtype.

>>> from diffcompare import autograd as ag
>>> ag.FloatTensor([1, 2]).dtype == ag.float32, ag.LongTensor(2, 3).shape, isinstance(ag.ones(2), ag.DoubleTensor)
(True, torch.Size([2, 3]), True)
"""

from __future__ import annotations

import numbers
import warnings

import numpy as np

from .dtypes import set_default_dtype
from .size import Size
from .storage import UntypedStorage, elements_of
from .tensor import Tensor, tensor, zeros


class _LegacyType(type):
    def __instancecheck__(cls, instance):
        return isinstance(instance, Tensor) and instance._data.dtype == cls.dtype

    def __call__(cls, *args, device=None):
        # sizes: ints, or one torch.Size; a plain tuple or list is data (FloatTensor((5, 5)) is [5., 5.])
        if not args:
            return zeros(0, dtype=cls.dtype)
        if all(isinstance(a, numbers.Integral) and not isinstance(a, bool) for a in args):
            return zeros(*args, dtype=cls.dtype)
        if len(args) == 1 and isinstance(args[0], Size):
            return zeros(*args[0], dtype=cls.dtype)
        if len(args) != 1:
            raise TypeError(f"new(): invalid arguments for {cls.__name__}")
        data = args[0]
        if isinstance(data, UntypedStorage):
            return Tensor._make(elements_of(data, cls.dtype))      # sharing the storage's memory
        if isinstance(data, Tensor):
            if data._data.dtype != cls.dtype:
                raise TypeError(f"expected {cls.__name__} (got a tensor of dtype {data.dtype})")
            return data
        return tensor(np.asarray(data), dtype=cls.dtype)


def _legacy(name, dtype):
    return _LegacyType(name, (), {"dtype": np.dtype(dtype), "__doc__": f"The legacy type of {np.dtype(dtype)} tensors."})


FloatTensor = _legacy("FloatTensor", np.float32)
DoubleTensor = _legacy("DoubleTensor", np.float64)
LongTensor = _legacy("LongTensor", np.int64)
IntTensor = _legacy("IntTensor", np.int32)
BoolTensor = _legacy("BoolTensor", np.bool_)
ByteTensor = _legacy("ByteTensor", np.uint8)

HalfTensor = _legacy("HalfTensor", np.float16)
ShortTensor = _legacy("ShortTensor", np.int16)
CharTensor = _legacy("CharTensor", np.int8)

_BY_NAME = {f"torch.{t.__name__}": t for t in (FloatTensor, DoubleTensor, HalfTensor, LongTensor, IntTensor,
                                                 ShortTensor, CharTensor, BoolTensor, ByteTensor)}


def set_default_tensor_type(t):
    """The deprecated ``torch.set_default_tensor_type``: a floating legacy type (or its name,
    ``"torch.DoubleTensor"``) sets the default dtype, with PyTorch's warning.

    >>> from diffcompare import autograd as ag
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     ag.set_default_tensor_type(ag.FloatTensor)
    >>> ag.get_default_dtype()
    dtype('float32')
    >>> ag.set_default_dtype(ag.float64)
    """
    warnings.warn("torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
                  "torch.set_default_dtype() and torch.set_default_device() as alternatives.", UserWarning, stacklevel=2)
    if isinstance(t, str):
        if t.startswith("torch.cuda."):
            raise RuntimeError("Cannot access accelerator device when none is available.")
        if t not in _BY_NAME:
            raise TypeError(f"invalid type: '{t}'")
        t = _BY_NAME[t]
    if not isinstance(t, _LegacyType):
        raise TypeError(f"invalid type object: {t!r}")
    set_default_dtype(t.dtype)


__all__ = ["BoolTensor", "ByteTensor", "CharTensor", "DoubleTensor", "FloatTensor", "HalfTensor", "IntTensor", "LongTensor",
           "ShortTensor",
           "set_default_tensor_type"]
