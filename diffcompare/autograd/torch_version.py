"""``torch.__version__``: the PyTorch release whose behaviour the engine follows (2.13.0), as
a string that compares as a version, as PyTorch's ``TorchVersion`` does (``"2.13.0" > "2.2"``
though not as plain strings), its local label naming the engine.

>>> from diffcompare import autograd as ag
>>> ag.__version__, ag.__version__ >= "2.2", ag.__version__ < (2, 14)
('2.13.0+diffcompare', True, True)
"""

from __future__ import annotations

import re

RELEASE = "2.13.0"


def _parts(version):
    """A version (a string or a tuple of numbers) as a tuple of numbers, its local label dropped."""
    if isinstance(version, tuple):
        return tuple(int(p) for p in version)
    return tuple(int(p) for p in re.findall(r"\d+", str(version).split("+")[0]))


def _padded(a, b):
    n = max(len(a), len(b))
    return a + (0,) * (n - len(a)), b + (0,) * (n - len(b))


def _compare(test):
    def method(self, other):
        if isinstance(other, (str, tuple)):
            return test(*_padded(_parts(self), _parts(other)))
        return NotImplemented
    return method


class TorchVersion(str):
    """A version string compared by its numbers (with a string or a tuple)."""

    __eq__ = _compare(lambda a, b: a == b)
    __ne__ = _compare(lambda a, b: a != b)
    __lt__ = _compare(lambda a, b: a < b)
    __le__ = _compare(lambda a, b: a <= b)
    __gt__ = _compare(lambda a, b: a > b)
    __ge__ = _compare(lambda a, b: a >= b)
    __hash__ = str.__hash__


__version__ = TorchVersion(f"{RELEASE}+diffcompare")
