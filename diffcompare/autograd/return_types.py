"""``torch.return_types``: the named tuples of the ops that return several tensors (``max``
along a dimension, ``sort``, ``linalg.eigh``, ...), under PyTorch's names and printed as
PyTorch prints them.

>>> from diffcompare import autograd as ag
>>> ag.max(ag.tensor([[1.0, 3.0], [4.0, 2.0]]), 1)
torch.return_types.max(
values=tensor([3., 4.]),
indices=tensor([1, 0]))
>>> ag.return_types.max is type(ag.max(ag.ones(2, 2), 0))
True
"""

from __future__ import annotations

from collections import namedtuple

_TYPES: dict = {}


def _repr(self):
    fields = ",\n".join(f"{name}={value!r}" for name, value in zip(self._fields, self))
    return f"torch.return_types.{type(self).__name__}(\n{fields})"


def return_type(name, fields):
    """The named tuple PyTorch's op ``name`` returns, with ``fields``; one class per name,
    also reachable as ``return_types.<name>``."""
    cls = _TYPES.get(name)
    if cls is None:
        cls = type(name, (namedtuple(name, fields),), {"__slots__": (), "__repr__": _repr, "__str__": _repr,
                                                       "__module__": __name__})
        _TYPES[name] = globals()[name] = cls
    elif cls._fields != tuple(fields):
        raise ValueError(f"return type {name} has fields {cls._fields}, not {tuple(fields)}")
    return cls
