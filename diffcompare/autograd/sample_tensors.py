"""``torch.testing.make_tensor``: a tensor of random values for a test, drawn as PyTorch draws
them (``randint`` for booleans and integers, ``uniform_`` for floating and complex types), so
that under the same seed both give the same values.

The interval is ``[low, high)``; by default [-9, 9) for floating and complex types, [-9, 10)
for signed integers, [0, 10) for unsigned ones, [0, 2) for booleans; a bound outside what the
dtype can hold is clamped to it. ``noncontiguous=True`` gives a strided view (every other
element of a doubled last dimension), ``exclude_zero=True`` replaces zeros by 1 (integers) or
the dtype's smallest normal number.

>>> from diffcompare import autograd as ag
>>> t = make_tensor(2, 3, dtype=ag.float64, device="cpu", low=-1, high=1, requires_grad=True)
>>> t.shape, t.requires_grad, bool(((t >= -1) & (t < 1)).all())
(torch.Size([2, 3]), True, True)
>>> make_tensor((4,), dtype=ag.int64, device="cpu", low=3, high=4).tolist()
[3, 3, 3, 3]
"""

from __future__ import annotations

import collections.abc
import math
import warnings

import numpy as np

from .device import check as check_device
from .tensor import empty, randint
from .torch_functions import finfo, iinfo

__all__ = ["make_tensor"]


def _bounds(low, high, lowest, highest, default_low, default_high, dtype, floating):
    """``low`` and ``high`` (their defaults where None), checked and clamped to what ``dtype``
    holds, as PyTorch's ``make_tensor`` does."""
    low = default_low if low is None else low
    high = default_high if high is None else high
    if any(isinstance(v, float) and math.isnan(v) for v in (low, high)):
        raise ValueError(f"`low` and `high` cannot be NaN, but got low={low} and high={high}")
    if low == high and floating:
        warnings.warn("Passing `low==high` to `torch.testing.make_tensor` for floating or complex types is "
                      "deprecated since 2.1 and will be removed in 2.3. Use `torch.full(...)` instead.",
                      FutureWarning, stacklevel=4)
    elif low >= high:
        raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
    elif high < lowest or low >= highest:
        raise ValueError(f"The value interval specified by `low` and `high` is [{low}, {high}), but "
                         f"torch.{np.dtype(dtype).name} only supports [{lowest}, {highest})")
    low, high = min(max(low, lowest), highest), min(max(high, lowest), highest)
    return (low, high) if floating else (math.ceil(low), math.ceil(high))


def make_tensor(*shape, dtype, device, low=None, high=None, requires_grad=False, noncontiguous=False,
                exclude_zero=False, memory_format=None):
    """A tensor of ``shape`` (sizes, or one sequence of them) of random values of ``dtype`` in
    ``[low, high)`` (see the module for the defaults and options)."""
    check_device(device)
    if len(shape) == 1 and isinstance(shape[0], collections.abc.Sequence):
        shape = shape[0]
    shape = tuple(shape)
    dtype = np.dtype(dtype)
    if noncontiguous and memory_format is not None:
        raise ValueError(f"The parameters `noncontiguous` and `memory_format` are mutually exclusive, but got "
                         f"noncontiguous={noncontiguous} and memory_format={memory_format}")
    integral = dtype.kind in "biu"
    if requires_grad and integral:
        raise ValueError(f"`requires_grad=True` is not supported for boolean and integral dtypes, but got "
                         f"dtype=torch.{dtype.name}")
    noncontiguous = noncontiguous and math.prod(shape) > 1
    if noncontiguous:       # a doubled last dimension, of which every other element is kept
        shape = (*shape[:-1], 2 * shape[-1])
    if dtype.kind == "b":
        low, high = _bounds(low, high, 0, 2, 0, 2, dtype, False)
        result = randint(low, high, shape, dtype=dtype)
    elif integral:
        info = iinfo(dtype)
        low, high = _bounds(low, high, info.min, info.max + (1 if dtype != np.int64 else 0), -9, 10, dtype, False)
        result = randint(low, high, shape, dtype=dtype)
    elif dtype.kind in "fc":
        info = finfo(dtype)
        low, high = _bounds(low, high, info.min, info.max, -9, 9, dtype, True)
        result = empty(shape, dtype=dtype)
        target = result.view(result.real.dtype).view(*shape, 2) if dtype.kind == "c" else result
        if high - low >= finfo(target.dtype).max:    # uniform_ needs high - low representable
            target.uniform_(low / 2, high / 2).mul_(2)
        else:
            target.uniform_(low, high)
    else:
        raise TypeError(f"The requested dtype 'torch.{dtype.name}' is not supported by torch.testing.make_tensor(). "
                        "To request support, file an issue at: https://github.com/pytorch/pytorch/issues")
    if noncontiguous:
        result = result[..., 1::2]
    if exclude_zero:
        result[result == 0] = 1 if integral else finfo(dtype).tiny
    if dtype.kind in "fc":
        result.requires_grad = requires_grad
    return result
