"""``torch.utils.data._utils.collate``: how a loader turns samples into batches.

``collate(batch, collate_fn_map=...)`` walks the structure of the first sample — mappings,
named tuples and sequences are collated field by field — and hands each leaf batch to the
function ``collate_fn_map`` names for its type (first by exact type, then by the first key,
in insertion order, the leaf is an instance of). ``default_collate_fn_map`` stacks tensors,
turns NumPy arrays and scalars into tensors, Python floats into float64, ints into int64, and
leaves strings and bytes as they are; ``default_collate`` is ``collate`` with that map, and
user code extends it by updating the map in place. ``default_convert`` is what a loader
without batching applies: NumPy values become tensors, the rest stays.

>>> from diffcompare import autograd as ag
>>> from diffcompare.autograd.utils.data._utils.collate import collate, default_collate, default_convert
>>> default_collate([(0, 1.5), (1, 2.5)])
[tensor([0, 1]), tensor([1.5000, 2.5000])]
>>> default_collate([{"a": 0, "b": "x"}, {"a": 1, "b": "y"}])
{'a': tensor([0, 1]), 'b': ['x', 'y']}
>>> collate([ag.ones(2), ag.zeros(2)], collate_fn_map={ag.Tensor: lambda b, *, collate_fn_map: ag.cat(b)})
tensor([1., 1., 0., 0.])
>>> import numpy as np
>>> default_convert([np.array([0, 1]), "s"])
[tensor([0, 1]), 's']
"""

from __future__ import annotations

import collections.abc
import copy
import re
from typing import Callable

import numpy as np

from ....dtypes import float64
from ....ops import stack
from ....tensor import Tensor, as_tensor, tensor

# NumPy arrays of strings or objects are not turned into tensors
_STRING_OR_OBJECT = re.compile(r"[SaUO]")

_ERROR = "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"


def default_convert(data):
    """Each NumPy array or scalar in ``data`` (a value, or a mapping or sequence of them) as a
    tensor; everything else unchanged (a plain tuple becomes a list, as in PyTorch).

    >>> default_convert((np.float64(2.0), 3))
    [tensor(2.), 3]
    """
    kind = type(data)
    if isinstance(data, Tensor):
        return data
    if kind.__module__ == "numpy" and kind.__name__ not in ("str_", "bytes_", "string_"):
        if kind.__name__ == "ndarray" and _STRING_OR_OBJECT.search(data.dtype.str):
            return data
        return as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        converted = {key: default_convert(data[key]) for key in data}
        return _rebuilt_mapping(data, converted)
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return kind(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return _rebuilt_sequence(data, [default_convert(d) for d in data])
    return data


def _rebuilt_mapping(like, items: dict):
    """``items`` in a mapping of ``like``'s kind (a copy of it updated, when it is mutable)."""
    try:
        if isinstance(like, collections.abc.MutableMapping):
            clone = copy.copy(like)
            clone.update(items)
            return clone
        return type(like)(items)
    except TypeError:
        return items


def _rebuilt_sequence(like, items: list):
    """``items`` in a sequence of ``like``'s kind (a copy of it refilled, when it is mutable)."""
    try:
        if isinstance(like, collections.abc.MutableSequence):
            clone = copy.copy(like)
            for i, item in enumerate(items):
                clone[i] = item
            return clone
        return type(like)(items)
    except TypeError:
        return items


def collate(batch, *, collate_fn_map: dict | None = None):
    """Collate ``batch`` (a list of samples of one structure) field by field, each leaf batch by
    the function ``collate_fn_map`` gives for its type; a leaf with no function is a TypeError."""
    elem = batch[0]
    kind = type(elem)
    if collate_fn_map is not None:
        if kind in collate_fn_map:
            return collate_fn_map[kind](batch, collate_fn_map=collate_fn_map)
        for key in collate_fn_map:
            if isinstance(elem, key):
                return collate_fn_map[key](batch, collate_fn_map=collate_fn_map)
    if isinstance(elem, collections.abc.Mapping):
        items = {key: collate([d[key] for d in batch], collate_fn_map=collate_fn_map) for key in elem}
        return _rebuilt_mapping(elem, items)
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return kind(*(collate(list(samples), collate_fn_map=collate_fn_map) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if any(len(e) != size for e in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        columns = [collate(list(samples), collate_fn_map=collate_fn_map) for samples in zip(*batch)]
        return columns if isinstance(elem, tuple) else _rebuilt_sequence(elem, columns)
    raise TypeError(_ERROR.format(kind))


def collate_tensor_fn(batch, *, collate_fn_map: dict | None = None):
    """Tensors stacked along a new first dimension."""
    return stack(list(batch), 0)


def collate_numpy_array_fn(batch, *, collate_fn_map: dict | None = None):
    """NumPy arrays as tensors, then collated (stacked); arrays of strings or objects refused."""
    if _STRING_OR_OBJECT.search(batch[0].dtype.str):
        raise TypeError(_ERROR.format(batch[0].dtype))
    return collate([as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch, *, collate_fn_map: dict | None = None):
    """NumPy scalars as one tensor of their dtype."""
    return as_tensor(np.asarray(batch))


def collate_float_fn(batch, *, collate_fn_map: dict | None = None):
    """Python floats as a float64 tensor."""
    return tensor(batch, dtype=float64)


def collate_int_fn(batch, *, collate_fn_map: dict | None = None):
    """Python ints (and bools) as an int64 (bool) tensor."""
    return tensor(batch)


def collate_str_fn(batch, *, collate_fn_map: dict | None = None):
    """Strings and bytes left as the list they came in."""
    return batch


default_collate_fn_map: dict[type | tuple[type, ...], Callable] = {
    Tensor: collate_tensor_fn,
    np.ndarray: collate_numpy_array_fn,
    (np.bool_, np.number, np.object_): collate_numpy_scalar_fn,
    float: collate_float_fn,
    int: collate_int_fn,
    str: collate_str_fn,
    bytes: collate_str_fn,
}


def default_collate(batch):
    """Stack a list of samples into a batch, as PyTorch's ``default_collate``: ``collate`` with
    ``default_collate_fn_map`` (tensors stacked along a new first dimension, numbers as tensors,
    strings kept; tuples, lists and dicts collated element-wise, a tuple of samples giving a
    list of batches).

    >>> default_collate([tensor([1.0, 2.0]), tensor([3.0, 4.0])]).shape
    torch.Size([2, 2])
    """
    return collate(batch, collate_fn_map=default_collate_fn_map)
