"""PyTorch's legacy tensor types, ``torch.FloatTensor``, ``torch.LongTensor``, ...: called
with sizes they make a tensor of that shape (zeros: PyTorch's are uninitialised), called with
data a tensor of their dtype; ``isinstance(t, torch.FloatTensor)`` checks the dtype.

>>> from diffcompare import autograd as ag
>>> ag.FloatTensor([1, 2]).dtype == ag.float32, ag.LongTensor(2, 3).shape, isinstance(ag.ones(2), ag.DoubleTensor)
(True, (2, 3), True)
"""

from __future__ import annotations

import numbers

import numpy as np

from .tensor import Tensor, tensor, zeros


class _LegacyType(type):
    def __instancecheck__(cls, instance):
        return isinstance(instance, Tensor) and instance._data.dtype == cls.dtype

    def __call__(cls, *args, device=None):
        if all(isinstance(a, numbers.Integral) and not isinstance(a, bool) for a in args):
            return zeros(*args, dtype=cls.dtype)
        if len(args) == 1 and isinstance(args[0], tuple) and all(isinstance(a, numbers.Integral) for a in args[0]):
            return zeros(*args[0], dtype=cls.dtype)
        if len(args) != 1:
            raise TypeError(f"new(): invalid arguments for {cls.__name__}")
        data = args[0]
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

__all__ = ["BoolTensor", "ByteTensor", "DoubleTensor", "FloatTensor", "IntTensor", "LongTensor"]
