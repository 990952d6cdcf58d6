"""The user's values, read without ``eval``: a number as the nearest binary64, nested
brackets as arrays (Python's literals, by :func:`ast.literal_eval`, checked to be numbers),
and ``--at`` text as a point.

>>> parse_point("x=0.1,y=[1,2]")["y"].tolist()
[1.0, 2.0]"""

from __future__ import annotations

import math

import numpy as np

from diffcompare.problem.errors import InputError


SEED_LIMIT = 2 ** 63        # seeds are the integers NumPy's generators take: 0 to 2^63 - 1


def whole_number(value, what: str, low: int, high: int) -> int:
    """``value`` when it is an integer (not a bool) from ``low`` to ``high``; else bad input
    that says so.

    >>> whole_number(3, "--jobs", 1, 256)
    3
    >>> whole_number(2.5, "--jobs", 1, 256)
    Traceback (most recent call last):
    ...
    diffcompare.problem.errors.InputError: --jobs must be an integer from 1 to 256, not 2.5
    """
    if isinstance(value, int) and not isinstance(value, bool) and low <= value <= high:
        return value
    top = "2^63 - 1" if high == SEED_LIMIT - 1 else f"{high:,}"
    raise InputError(f"{what} must be an integer from {low:,} to {top}, not {value!r}")


def parse_number(name: str, text) -> float:
    """A variable's value as binary64: the float nearest to the decimal text.

    >>> parse_number("x", "0.1") == 0.1, parse_number("x", "-2e-3")
    (True, -0.002)
    """
    if isinstance(text, bool):
        raise InputError(f"{name}={text!r} is not a number")
    if isinstance(text, (int, float, np.integer, np.floating)):
        value = float(text)
    else:
        stripped = str(text).strip()
        if not stripped.isascii():      # float() reads ١ and 𝟏𝟎 as digits: a user would not mean that
            raise InputError(f"{name}={stripped!r} is not a number: write it with the digits 0-9, "
                             f"e.g. {name}=1.5 or {name}=-2e-3")
        try:
            value = float(stripped)
        except ValueError:
            raise InputError(f"{name}={stripped!r} is not a number: write a decimal such as {name}=1.5 or "
                             f"{name}=-2e-3") from None
        if stripped.lower().lstrip("+-") in ("nan", "inf", "infinity"):
            value = math.nan
    if not math.isfinite(value):
        raise InputError(f"{name}={text}: the point must be a finite number")
    return value


def parse_value(name: str, value):
    """A variable's value: a number (binary64) or a vector or matrix of them, given as
    text ``"[1, 2.5]"``, ``"[[1, 0], [0, 2]]"`` or as Python lists or arrays.

    >>> parse_value("x", "[1.2, 1.2, 1.2]")
    array([1.2, 1.2, 1.2])
    >>> parse_value("A", [[1, 0], [0, 2]]).shape
    (2, 2)
    >>> parse_value("x", "[1, [2]]")
    Traceback (most recent call last):
    ...
    diffcompare.problem.errors.InputError: x=[1, [2]]: the rows have different lengths or depths; a matrix is a list of equal rows, e.g. [[1, 2], [3, 4]]
    """
    if isinstance(value, str) and value.strip().startswith("["):
        value = _nested_lists(name, value.strip())
        if not isinstance(value, list):
            raise InputError(f"{name}={value!r}: write one vector, e.g. {name}=[1, 2, 3]")
    if isinstance(value, (list, tuple, np.ndarray)):
        shown = value if not isinstance(value, np.ndarray) else value.tolist()
        text = str(shown).replace("'", "")
        try:
            array = np.array(_map_nested(lambda v: parse_number(name, v), value), dtype=np.float64)
        except InputError as error:
            raise InputError(f"{name}={text}: {error}") from None
        except ValueError:
            raise InputError(f"{name}={text}: the rows have different lengths or depths; a matrix is a list of "
                             f"equal rows, e.g. [[1, 2], [3, 4]]") from None
        if array.size == 0:
            raise InputError(f"{name}={text}: an empty vector has nothing to differentiate")
        if array.ndim > 2:
            raise InputError(f"{name}={text}: vectors and matrices only (at most 2 dimensions, not {array.ndim})")
        return array
    return parse_number(name, value)


def _map_nested(func, value):
    if isinstance(value, (list, tuple, np.ndarray)):
        return [_map_nested(func, v) for v in value]
    return func(value)


EXAMPLE = "e.g. [1, 2, 3] or [[1, 2], [3, 4]]"


def _nested_lists(name, text):
    """``"[[1, 2], [3, 4]]"`` -> nested lists of numbers, read by :func:`ast.literal_eval`
    (Python's literals, never ``eval``) and checked to hold only lists and real numbers."""
    import ast
    unbalanced = _unbalanced(text)
    if unbalanced:
        raise InputError(f"{name}={text}: {unbalanced}")
    try:
        value = ast.literal_eval(text)
    except SyntaxError as error:
        hint = (error.msg or "").removeprefix("invalid syntax. ").removeprefix("invalid syntax")
        where = f" at column {error.offset}" if error.offset else ""
        raise InputError(f"{name}={text}: not a vector or matrix of numbers{where}"
                         f"{' (' + hint.rstrip('?') + ')' if hint else ''}; write it as {EXAMPLE}") from None
    except (ValueError, TypeError, MemoryError, RecursionError):
        raise InputError(f"{name}={text}: only numbers in brackets, not names or arithmetic; write it as "
                         f"{EXAMPLE}") from None
    if isinstance(value, tuple):            # "[1, 2], [3]": two values where one was meant
        raise InputError(f"{name}={text}: write one vector, e.g. {name}=[1, 2, 3]")
    return _checked(name, text, value)


def _unbalanced(text) -> str:
    """What is wrong with the brackets of ``text``, or ""."""
    depth = 0
    for char in text:
        depth += (char == "[") - (char == "]")
        if depth < 0:
            return "unmatched ']'"
    return "'[' is never closed" if depth else ""


def _checked(name, text, value):
    """``value`` when it is nested lists of real numbers (not bools, strings, tuples or
    complex numbers); else bad input naming what was found."""
    if isinstance(value, list):
        return [_checked(name, text, item) for item in value]
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value
    found = "a tuple (write [ ] brackets)" if isinstance(value, tuple) else \
        f"{value!r}, which is not a real number"
    raise InputError(f"{name}={text}: {found}; write it as {EXAMPLE}")


def _top_level_parts(text):
    """Split at the commas outside brackets: "x=[1,2],y=3" -> ["x=[1,2]", "y=3"]."""
    parts, depth, start = [], 0, 0
    for i, char in enumerate(text):
        if char == "[":
            depth += 1
        elif char == "]":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def parse_point(text: str) -> dict:
    """``"x=1.5,y=2"`` -> ``{"x": 1.5, "y": 2.0}``; vectors in brackets.

    >>> parse_point("x=1.5, y=2")
    {'x': 1.5, 'y': 2.0}
    >>> parse_point("x=[1, 2], s=3")
    {'x': array([1., 2.]), 's': 3.0}
    >>> parse_point("x:1")
    Traceback (most recent call last):
    ...
    diffcompare.problem.errors.InputError: --at 'x:1': write NAME=VALUE, e.g. x=1.5
    """
    point = {}
    for part in _top_level_parts(str(text)):
        part = part.strip()
        if not part:
            continue
        name, sep, value = part.partition("=")
        name = name.strip()
        if not sep or not name:
            raise InputError(f"--at {part!r}: write NAME=VALUE, e.g. x=1.5")
        if not name.isidentifier():
            raise InputError(f"--at {part!r}: {name!r} is not a variable name")
        if name in point:
            raise InputError(f"--at gives {name} twice")
        point[name] = parse_value(name, value)
    if not point:
        raise InputError("--at needs at least one NAME=VALUE, e.g. --at x=1.5")
    return point
