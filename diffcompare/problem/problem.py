"""A Problem: what to differentiate (parsed text or a Python callable), its variables,
and the binary64 point. It evaluates the function in any world of the function table
and finds what is special about the point (kinks, domain errors).

>>> p = make_problem("sin(x) * exp(y)", {"x": 1, "y": "0.5"})
>>> p.variables, p.point
(('x', 'y'), {'x': 1.0, 'y': 0.5})
>>> make_problem("sin(x)", {"y": 1})
Traceback (most recent call last):
...
diffcompare.problem.errors.InputError: variable 'x' has no value: add x=... to at= (given: y)
"""

from __future__ import annotations

import inspect
import math
from dataclasses import dataclass, field
from typing import Callable, Mapping

import numpy as np

from diffcompare.autograd.quiet import quietly
from diffcompare.language import numpy_protocol
from diffcompare.language.expression import Expression, nearest, parse
from diffcompare.language.functions import OBSERVER
from diffcompare.language.numpy_protocol import speaks_numpy
from diffcompare.language.worlds import NUMPY, OBJECT_WORLDS, SYMPY
from diffcompare.problem.errors import InputError, ShapeMismatch, SymbolicUnavailable
from diffcompare.problem.values import parse_value
from diffcompare.problem.vocabulary import option


@dataclass(frozen=True)
class Event:
    """Something special met while evaluating at the point."""
    kind: str           # "kink" or "domain"
    function: str
    arguments: tuple
    text: str
    column: int | None = None


@dataclass
class Problem:
    """The function, its variables (in order) and the point (binary64 values)."""
    function: Expression | Callable
    variables: tuple
    point: dict
    label: str
    _sympy: tuple | None = field(default=None, repr=False)
    _written: list | None = field(default=None, repr=False)

    @property
    def is_text(self):
        return isinstance(self.function, Expression)

    @property
    def shapes(self) -> dict:
        """Each variable's shape: () for a number, (n,) for a vector, (r, c) for a matrix."""
        return {name: np.shape(self.point[name]) for name in self.variables}

    @property
    def has_arrays(self) -> bool:
        return any(self.shapes.values())

    @property
    def input_labels(self) -> list:
        """One label per scalar input, in the flat order: x, v[0], v[1], A[0,1], ..."""
        shapes = self.shapes            # once: each call walks every variable
        return [label for name in self.variables for label in _element_labels(name, shapes[name])]

    def flat_point(self) -> np.ndarray:
        """The point as one vector of float64, the variables' elements in order."""
        return self.flatten(self.point)

    def flatten(self, values: Mapping) -> np.ndarray:
        """``values`` (variable -> number, list or array, in this problem's shapes) as one
        vector of float64, the variables' elements in order: the inverse of :meth:`split`."""
        return np.concatenate([np.ravel(np.asarray(values[name], dtype=np.float64))
                               for name in self.variables]).astype(np.float64)

    def split(self, flat) -> dict:
        """The inverse of :meth:`flat_point` for one vector of any element type (floats,
        complex numbers, SymPy symbols, mpmath numbers): variable -> number or array."""
        out, offset = {}, 0
        shapes = self.shapes            # once: each call walks every variable
        for name in self.variables:
            shape = shapes[name]
            size = int(np.prod(shape)) if shape else 1
            out[name] = flat[offset:offset + size].reshape(shape) if shape else flat[offset]
            offset += size
        return out

    def evaluate(self, world: str, values: Mapping, observe=None):
        """f at ``values`` (a mapping variable -> value in ``world``); the world
        "float32" is NumPy in single precision (number literals too). ``observe(row, args,
        result, column)`` sees every call of a function-table row — for a plain NumPy f
        too, run on values speaking NumPy's protocol (:mod:`diffcompare.language.numpy_protocol`)."""
        if self.is_text:
            return self.function.evaluate(world, values, observe)
        seen = []

        def counting(row, args, result, column):
            seen.append(row)
            observe(row, args, result, column)
        token = OBSERVER.set(None if observe is None else counting)
        try:
            result = _call(self.function, self.variables, values)
            if observe is not None and not seen and world in OBJECT_WORLDS + (NUMPY,):
                # nothing of the table was seen: a plain NumPy f (np.abs works on SymPy by itself);
                # again on values speaking NumPy's protocol, whose every call the observer sees
                try:
                    result = numpy_protocol.call(self.function, {n: values[n] for n in self.variables}, world)
                except Exception:
                    pass            # not plain NumPy either: what the table saw is all there is
            return result
        except (TypeError, AttributeError) as error:
            if world not in OBJECT_WORLDS:
                raise
            # a NumPy function (np.sin, np.maximum) on SymPy or mpmath values: again, with NumPy's protocol
            try:
                return numpy_protocol.call(self.function, {n: values[n] for n in self.variables}, world)
            except Exception:
                if speaks_numpy(error):
                    raise
                raise error from None       # not NumPy's doing: f's own error stands
        finally:
            OBSERVER.reset(token)

    def numpy_function(self):
        """f as a function of positional float64 arguments, warnings silenced."""
        names = self.variables

        def f(*args):
            return quietly(self.evaluate, NUMPY, dict(zip(names, args)))
        return f

    def world_function(self, world):
        names = self.variables
        return lambda *args: self.evaluate(world, dict(zip(names, args)))

    def sympy_as_written(self) -> list | None:
        """f's outputs as SymPy expressions built operation by operation, nothing simplified
        (``(sin(x) + y) - y`` keeps its y): what binary64 evaluation really rounds. In the
        symbols of :meth:`sympy_outputs`; None where SymPy cannot build f.

        >>> p = make_problem("(sin(x) + y) - y", {"x": 0.5, "y": 1e6})
        >>> p.sympy_outputs()[0][0], p.sympy_as_written()[0]
        (sin(x), -y + (y + sin(x)))
        """
        if self._written is None:
            import sympy
            try:
                symbols = self.sympy_outputs()[1]
                with sympy.evaluate(False):
                    result = self.evaluate(SYMPY, self.split(np.array(symbols, dtype=object)))
                self._written = [e if isinstance(e, sympy.Basic) else sympy.Float(float(e), 17)
                                 for e in np.ravel(np.asarray(result, dtype=object))]
            except Exception:       # SymPy cannot follow f, or builds it only by simplifying
                self._written = []
        return self._written or None

    def sympy_form(self):
        """(f as a SymPy expression, symbols) or raise SymbolicUnavailable with the reason."""
        outputs, symbols = self.sympy_outputs()
        if len(outputs) != 1:
            raise SymbolicUnavailable(f"f has {len(outputs)} outputs, not one")
        return outputs[0], symbols

    def sympy_outputs(self):
        """(f's outputs as a flat list of SymPy expressions, the flat symbols: one per
        scalar input) or raise SymbolicUnavailable with the reason."""
        if self._sympy is None:
            import sympy
            symbols = tuple(sympy.Symbol(label, real=True) for label in self.input_labels)
            values = self.split(np.array(symbols, dtype=object))
            try:
                result = self.evaluate(SYMPY, values)
            except RecursionError:
                raise SymbolicUnavailable("SymPy's recursion limit was reached building the expression") from None
            except Exception as error:   # a callable may do anything with symbols
                raise SymbolicUnavailable(f"calling f with SymPy symbols failed ({type(error).__name__}: "
                                          f"{_first_line(error)})") from None
            outputs = []
            for expr in np.ravel(np.asarray(result, dtype=object)):
                if isinstance(expr, (int, float, np.integer, np.floating)) and not isinstance(expr, bool):
                    expr = sympy.Float(float(expr), 17)       # f ignored its symbols: a constant
                elif not isinstance(expr, sympy.Basic):
                    raise SymbolicUnavailable(f"f returned {type(expr).__name__}, not a SymPy expression")
                outputs.append(expr)
            self._sympy = (outputs, symbols)
        return self._sympy

    def value(self, values: Mapping | None = None, observe=None, strict: bool = False) -> float:
        """f in binary64 at ``values`` (default: the point), warnings silenced; nan when f
        raises, unless ``strict``."""
        values = self.point if values is None else values
        try:
            out = quietly(self.evaluate, NUMPY, {n: np.float64(v) for n, v in values.items()}, observe)
            return float(np.asarray(out).reshape(-1)[0])
        except Exception:
            if strict:
                raise
            return math.nan

    def pieces(self, values: Mapping):
        """Which smooth piece of every call the binary64 ``values`` fall on, and f there:
        ([(function, column, piece), ...], f). A finite-difference stencil whose ends
        disagree straddles a kink, jump or pole."""
        found = []

        def observe(row, args, result, column):
            if row.piece is not None:
                try:
                    found.append((row.name, column, row.piece(*args)))
                except (TypeError, ValueError):
                    pass
        return found, self.value(values, observe)

    def events(self) -> list:
        """Kinks and domain errors met by evaluating f at the point in binary64."""
        found = []

        def observe(row, args, result, column):
            if row.kink is not None and _all_finite(args):
                try:
                    at_kink = bool(np.any(row.kink(*args)))
                except Exception:
                    at_kink = False
                if at_kink:
                    found.append(Event("kink", row.name, tuple(map(_plain, args)), row.kink_note, column))
            if _all_finite(args) and not _all_finite([result]):
                found.append(Event("domain", row.name, tuple(map(_plain, args)),
                                   _domain_text(row, args, result), column))

        try:
            self.value(observe=observe, strict=True)
        except Exception as error:
            found.append(Event("domain", "f", (), f"evaluating f in binary64 failed: {_first_line(error)}"))
        return found


def _check_shapes(problem):
    """Evaluate once so that shape mistakes (x[5] of a 3-vector, a 2-vector @ a 3x3
    matrix) are reported as bad input, before any method runs."""
    try:
        quietly(problem.evaluate, NUMPY, problem.point)
    except (IndexError, ValueError, TypeError) as error:
        shapes = ", ".join(f"{n}: {'number' if not s else 'x'.join(map(str, s))}" for n, s in problem.shapes.items())
        raise ShapeMismatch(f"{problem.label} cannot be evaluated with these shapes ({shapes}): "
                         f"{_first_line(error)}") from None


def _first_line(error) -> str:
    text = str(error).strip().splitlines()
    return text[0] if text else type(error).__name__


def _plain(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return v


def _all_finite(values):
    try:
        return all(np.all(np.isfinite(np.asarray(v, dtype=float))) for v in values)
    except (TypeError, ValueError):
        return True


def _domain_text(row, args, result):
    shown = ", ".join(repr(float(_plain(a))).removesuffix(".0") for a in args)
    value = _plain(result)
    what = "nan" if isinstance(value, float) and math.isnan(value) else str(value)
    if row.name == "div" and _plain(args[1]) == 0:
        return f"division by zero: {shown.replace(', ', ' / ')} = {what}"
    name = row.symbol and f"({shown.replace(', ', f' {row.symbol} ')})" or f"{row.name}({shown})"
    if isinstance(value, float) and math.isinf(value):
        return f"{name} overflows binary64 (= {what})"
    return f"{name} = {what} in binary64 (domain: {row.domain})"


def _element_labels(name, shape):
    if not shape:
        return [name]
    return [f"{name}[{','.join(map(str, index))}]" for index in np.ndindex(*shape)]


def _call(function, variables, values):
    args = [values[name] for name in variables]
    return function(*args)


def make_problem(function, at: Mapping, label: str | None = None) -> Problem:
    """A Problem from text or a callable and a mapping of variable values."""
    if not isinstance(at, Mapping) or not at:
        raise InputError("give the point as a mapping of variable values, e.g. at={'x': 1.5}")
    point = {str(name): parse_value(str(name), value) for name, value in at.items()}
    if isinstance(function, str):
        expression = parse(function)
        variables = expression.variables
        if not variables:
            raise InputError(f"{function!r} has no variables: there is nothing to differentiate")
        missing = [v for v in variables if v not in point]
        if missing:
            raise InputError(f"variable {missing[0]!r} has no value: add {missing[0]}=... to {option('at')} "
                             f"(given: {', '.join(point)})")
        extra = [v for v in point if v not in variables]
        if extra and extra[0] in ("pi", "e"):
            raise InputError(f"{option('at')} gives {extra[0]!r}, but in expressions {extra[0]} is the constant "
                             f"{math.pi if extra[0] == 'pi' else math.e!r}; name the variable otherwise")
        if extra:
            hint = nearest(extra[0], [v for v in variables if v not in point] or variables)
            raise InputError(f"{option('at')} gives {extra[0]!r}, but the expression has no variable {extra[0]!r}"
                             + (f" (did you mean {hint!r}?)" if hint else f"; its variables: {', '.join(variables)}"))
        ordered = {v: point[v] for v in variables}
        problem = Problem(expression, variables, ordered, label or function)
        if problem.has_arrays or not expression.elementwise:
            _check_shapes(problem)
        return problem
    if callable(function):
        variables = tuple(point)
        try:
            signature = inspect.signature(function)
            signature.bind(*variables)
        except TypeError:
            raise InputError(f"{getattr(function, '__name__', 'f')} cannot take the {len(variables)} "
                             f"variable(s) {', '.join(variables)} given in at=") from None
        except ValueError:
            pass                    # builtins without a signature: try it
        return Problem(function, variables, point, label or getattr(function, "__name__", "f"))
    raise InputError(f"expected an expression (text) or a Python callable, not {type(function).__name__}")


