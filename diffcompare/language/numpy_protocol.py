"""NumPy's functions on SymPy expressions and mpmath numbers: a plain NumPy function
(``lambda x, y: np.sin(x) * y``) runs on values of the exact worlds, so it has an exact
reference like any expression.

On an object array NumPy calls a method of the ufunc's name on each element
(``np.sin(a)`` calls ``a.sin()``), which SymPy expressions and mpmath numbers do not
have. :class:`Traced` gives them those methods — and NumPy's ``__array_ufunc__`` for a
single value — each one the function-table row whose NumPy form is that ufunc
(``np.arctan`` is the row ``atan``, ``np.maximum`` the row ``max``, read in the world's
column), and arithmetic through the table's operators. A branch on a symbolic value,
``float()`` of a symbol, or a NumPy function with no row still fail, as they should:
then there is no symbolic form of f.

>>> import numpy as np, sympy
>>> x = sympy.Symbol("x")
>>> call(lambda x: np.arctan(x) * np.exp(2 * x), {"x": x}, "sympy")
exp(2*x)*atan(x)
>>> call(lambda v: np.sum(np.sqrt(v)), {"v": np.array([sympy.Symbol("a"), sympy.Symbol("b")], dtype=object)},
...      "sympy")
sqrt(a) + sqrt(b)
"""

from __future__ import annotations

import numpy as np

from diffcompare.language.functions import OBSERVER
from diffcompare.language.table import ROWS
from diffcompare.language.worlds import NUMPY, OBJECT_WORLDS

# NumPy's ufunc name -> the row whose NumPy form it is
UFUNC_ROWS = {row.numpy.__name__: row for row in ROWS.values() if isinstance(row.numpy, np.ufunc)}


def speaks_numpy(error: Exception) -> bool:
    """Whether ``error`` is NumPy asking an object for a ufunc's method (``np.sin`` on a
    SymPy symbol or an mpmath number)."""
    if isinstance(error, AttributeError):        # a binary ufunc (np.arctan2) asks for the method itself
        return getattr(error, "name", None) in UFUNC_ROWS
    return isinstance(error, TypeError) and "loop of ufunc does not support argument" in str(error)


def call(function, values: dict, world: str):
    """``function(**values)`` — positional, in the mapping's order — with every value of
    ``world`` (SymPy or mpmath; or binary64 NumPy, so that each call is seen by the
    observer of :mod:`diffcompare.language.functions`, which finds kinks) made a
    :class:`Traced`, and the result unwrapped."""
    if world not in OBJECT_WORLDS + (NUMPY,):
        raise ValueError(f"NumPy's protocol is given to SymPy, mpmath and float64 values only, not {world!r}")
    args = [_wrap(v, world) for v in values.values()]
    return _unwrap(function(*args))


def _wrap(value, world):
    if isinstance(value, np.ndarray):
        out = np.empty(value.shape, dtype=object)
        for index in np.ndindex(value.shape):
            out[index] = Traced(value[index], world)
        return out
    return Traced(value, world)


def _unwrap(value):
    if isinstance(value, Traced):
        return value.value
    if isinstance(value, np.ndarray):
        if value.dtype != object:
            return value
        out = np.empty(value.shape, dtype=object)
        for index in np.ndindex(value.shape):
            out[index] = _unwrap(value[index])
        return out[()] if out.ndim == 0 else out
    if isinstance(value, (list, tuple)):
        return type(value)(_unwrap(v) for v in value)
    return value


def _value(other):
    return other.value if isinstance(other, Traced) else other


class Traced:
    """A SymPy expression or mpmath number that NumPy's ufuncs accept (see the module)."""
    __slots__ = ("value", "world")

    def __init__(self, value, world):
        self.value, self.world = value, world

    def _row(self, name, *others):
        return self._apply(UFUNC_ROWS[name], (self.value,) + tuple(map(_value, others)))

    def _swapped(self, name, other):
        return self._apply(UFUNC_ROWS[name], (_value(other), self.value))

    def _apply(self, row, args):
        result = getattr(row, self.world)(*args)
        observe = OBSERVER.get()
        if observe is not None:
            observe(row, args, result, None)
        return Traced(result, self.world)

    def __add__(self, other):
        return self._row("add", other)

    def __radd__(self, other):
        return self._swapped("add", other)

    def __sub__(self, other):
        return self._row("subtract", other)

    def __rsub__(self, other):
        return self._swapped("subtract", other)

    def __mul__(self, other):
        return self._row("multiply", other)

    def __rmul__(self, other):
        return self._swapped("multiply", other)

    def __truediv__(self, other):
        return self._row("divide", other)

    def __rtruediv__(self, other):
        return self._swapped("divide", other)

    def __pow__(self, other):
        return self._row("power", other)

    def __rpow__(self, other):
        return self._swapped("power", other)

    def __neg__(self):
        return self._row("negative")

    def __pos__(self):
        return self

    def __abs__(self):
        return self._row("absolute")

    # comparisons are the world's own: mpmath answers, SymPy cannot for a symbol (TypeError)
    def __lt__(self, other):
        return bool(self.value < _value(other))

    def __le__(self, other):
        return bool(self.value <= _value(other))

    def __gt__(self, other):
        return bool(self.value > _value(other))

    def __ge__(self, other):
        return bool(self.value >= _value(other))

    def __float__(self):
        return float(self.value)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        """A ufunc on a Traced number itself (np.maximum(x, 0), np.float64(2) * x): its row.
        On object arrays NumPy calls the methods below instead (and compares elements
        for np.maximum and np.minimum, which no observer sees)."""
        row = UFUNC_ROWS.get(ufunc.__name__)
        if method != "__call__" or kwargs or row is None or any(isinstance(i, np.ndarray) for i in inputs):
            return NotImplemented
        return self._apply(row, tuple(map(_value, inputs)))

    def __getattr__(self, name):
        if name in UFUNC_ROWS:
            return lambda *others: self._row(name, *others)
        if name == "square":
            return lambda: self._row("multiply", self)
        if name == "reciprocal":
            return lambda: self._swapped("divide", 1)
        raise AttributeError(f"{name!r}: NumPy's {name} has no row in the function table")

    def __repr__(self):
        return f"Traced({self.value!r})"
