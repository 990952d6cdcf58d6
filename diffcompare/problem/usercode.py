"""Where user code went wrong: the innermost frame of a traceback, or of a fault handler's
dump, that belongs to the user's own code — not to diffcompare, the standard library or an
installed package — so that an error names the user's line, not the tool's.

>>> def f(x):
...     return {}["missing"]
>>> try:
...     f(1)
... except KeyError as error:
...     print(described(error).split(" (")[0])
KeyError: 'missing'
"""

from __future__ import annotations

import inspect
import os
import sysconfig
import traceback

_HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))     # the diffcompare package


def _libraries() -> tuple:
    places = {_HERE, os.path.realpath(_HERE)}
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        try:
            path = sysconfig.get_paths()[key]
        except KeyError:
            continue
        places.update({path, os.path.realpath(path)})
    return tuple(sorted(p.rstrip(os.sep) + os.sep for p in places if p))


LIBRARIES = _libraries()


def is_user_file(filename: str) -> bool:
    """Whether a source file is the user's own (not diffcompare's, the standard library's or
    an installed package's; ``<stdin>``, ``<string>`` count as the user's)."""
    if not filename:
        return False
    if filename.startswith("<"):
        return not filename.startswith("<frozen")
    return not (filename.startswith(LIBRARIES) or os.path.realpath(filename).startswith(LIBRARIES))


def where(error: BaseException) -> str:
    """The user's innermost line the exception passed through: "ops.py line 5, in keyerr"
    (the file's name alone; "" when none is the user's)."""
    frames = [f for f in traceback.extract_tb(error.__traceback__) if is_user_file(f.filename)]
    if not frames:
        return ""
    frame = frames[-1]
    return f"{os.path.basename(frame.filename)} line {frame.lineno}, in {frame.name}"


def message(error: BaseException) -> str:
    """The exception in one line, "KeyError: 'missing'", even when its own text cannot be
    made (user code's ``__str__`` may raise too)."""
    try:
        lines = str(error).strip().splitlines()
    except Exception:       # noqa: BLE001
        lines = ["(its message cannot be printed: its __str__ raised)"]
    if not lines and isinstance(error, MemoryError):
        lines = ["out of memory"]
    return f"{type(error).__name__}: {lines[0]}" if lines else type(error).__name__


def described(error: BaseException) -> str:
    """The exception in one line with the user's line it came from: "KeyError: 'missing'
    (ops.py line 5, in keyerr)"."""
    text, at = message(error), where(error)
    return f"{text} ({at})" if at else text


def shown(value, limit: int = 40) -> str:
    """``repr(value)`` cut to ``limit`` characters, or what it is when that cannot be made."""
    try:
        text = repr(value)
    except Exception:       # noqa: BLE001
        return f"an object of type {type(value).__name__} that cannot be printed"
    return text if len(text) <= limit else text[:limit - 1] + "…"


def innermost_user_line(lines) -> str:
    """Of a fault handler's dump (``File "ops.py", line 5 in crash`` lines, innermost first),
    the first frame in the user's own code, else the first frame, else ""."""
    frames = [line.strip() for line in lines if line.strip().startswith("File ")]
    own = [f for f in frames if is_user_file(f.split('"')[1] if f.count('"') >= 2 else "")]
    return (own or frames or [""])[0]


def signature_problem(function, arguments) -> str:
    """Why ``function`` cannot be called with the positional ``arguments`` (their names):
    "takes (x), but is called as f is: g(x, y)"; "" when it can, or when its signature
    cannot be read (a builtin).

    >>> signature_problem(lambda x: x, ["x", "y"])
    "takes (x), but is called with f's arguments: <lambda>(x, y)"
    >>> signature_problem(lambda *a: a, ["x", "y"])
    ''
    """
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return ""
    try:
        signature.bind(*arguments)
    except TypeError:
        name = getattr(function, "__name__", "g")
        return f"takes {signature}, but is called with f's arguments: {name}({', '.join(arguments)})"
    return ""


__all__ = ["described", "innermost_user_line", "is_user_file", "message", "shown", "signature_problem", "where"]
