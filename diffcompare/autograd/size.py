"""``torch.Size``: a tuple of ints that prints as PyTorch prints it and counts its elements.

A tensor's ``.shape`` and ``.size()`` are ``Size`` objects, as in PyTorch: they compare equal
to plain tuples, print as ``torch.Size([2, 3])``, and a slice of one is a ``Size`` again.

>>> from diffcompare import autograd as ag
>>> s = ag.Size([2, 3])
>>> s, s.numel(), s == (2, 3), ag.Tensor(s).shape
(torch.Size([2, 3]), 6, True, torch.Size([2, 3]))
"""

from __future__ import annotations

import functools
import math
import numbers


class Size(tuple):
    """A shape: a tuple of ints."""

    __slots__ = ()

    def __new__(cls, sizes=()):
        sizes = tuple(sizes)
        for i, n in enumerate(sizes):
            if not isinstance(n, numbers.Integral) or isinstance(n, bool):
                raise TypeError(f"torch.Size() takes an iterable of 'int' (item {i} is '{type(n).__name__}')")
        return super().__new__(cls, (int(n) for n in sizes))

    def __repr__(self):
        return f"torch.Size([{', '.join(str(n) for n in self)}])"

    __str__ = __repr__

    def __getitem__(self, index):
        item = _item(self, index)
        return as_size(item) if type(index) is slice else item     # a slice of ints needs no check

    def __add__(self, other):
        return Size(tuple(self) + tuple(other))

    def numel(self) -> int:
        """The number of elements of a tensor of this shape."""
        return math.prod(self)


_item = tuple.__getitem__
as_size = functools.partial(tuple.__new__, Size)
