"""SymEngine as a faster symbolic backend (``swell --symbolic-backend symengine``): f's SymPy
expression converted to SymEngine, differentiated by SymEngine and compiled by its
``Lambdify`` (with cse), each phase timed, so that its times stand beside SymPy's. The
exact reference stays SymPy + mpmath: SymEngine only differentiates and generates code.

SymEngine is optional and imported only when asked for; :func:`available` says whether it
is installed without importing it, :func:`require_symengine` turns its absence into one
clear line.

>>> import pytest; _ = pytest.importorskip("symengine")
>>> import sympy
>>> x, y = sympy.symbols("x y", real=True)
>>> d = differentiate(sympy.sin(x) * y, (x, y))
>>> d.status, [round(float(v), 12) for v in d.function(0.5, 2.0)]      # [2 cos 0.5, sin 0.5]
('ok', [1.755165123781, 0.479425538604])
"""

from __future__ import annotations

import importlib.util
import time
from dataclasses import dataclass

import numpy as np

from diffcompare.methods.budget import TimedOut, time_limit
from diffcompare.problem.errors import InputError
from diffcompare.version import install_hint

SYMPY, SYMENGINE = "sympy", "symengine"
BACKENDS = (SYMPY, SYMENGINE)


def available() -> bool:
    """Whether SymEngine is installed (without importing it)."""
    return importlib.util.find_spec("symengine") is not None


def require_symengine():
    """InputError with the way to install SymEngine, when it is not installed."""
    if not available():
        raise InputError(f"--symbolic-backend symengine needs SymEngine, which is not installed: "
                         f"{install_hint('symengine')}")


@dataclass
class SymEngineDerivative:
    """SymEngine's gradient of one SymPy expression and what each phase cost."""
    status: str = "ok"                  # ok, timed out, unavailable, failed
    reason: str = ""
    function: object = None             # NumPy-callable: the inputs' values -> the partials
    convert_seconds: float | None = None
    diff_seconds: float | None = None
    codegen_seconds: float | None = None


def _walk(e):
    stack = [e]
    while stack:
        a = stack.pop()
        yield a
        stack.extend(a.args)


def differentiate(expression, symbols, timeout: float | None = 10.0) -> SymEngineDerivative:
    """The gradient of the SymPy ``expression`` in ``symbols`` by SymEngine, and its code by
    ``Lambdify(..., cse=True)``, stopped after ``timeout`` seconds. A function SymEngine does
    not know (SymPy's log1p, which it would hold as an opaque function of derivative 0) makes
    the result unavailable, with the reason."""
    import sympy
    if not isinstance(expression, sympy.Basic):     # text would be parsed by symengine.sympify: never
        raise TypeError(f"differentiate takes a SymPy expression, not {type(expression).__name__}")
    import symengine

    result = SymEngineDerivative()
    phase = "conversion"
    try:
        with time_limit(timeout):
            start = time.perf_counter()
            # the table's binary64 constants (pi, e) as the binary64 numbers they are
            expression = expression.xreplace({c: sympy.Float(float(c)) for c in expression.atoms(sympy.NumberSymbol)})
            converted = symengine.sympify(expression)
            unknown = sorted({str(a.get_name()) for a in _walk(converted) if type(a).__name__ == "PyFunction"})
            if unknown:
                result.status = "unavailable"
                result.reason = f"SymEngine does not know {', '.join(unknown)}"
                return result
            variables = [symengine.Symbol(str(s)) for s in symbols]
            result.convert_seconds = time.perf_counter() - start
            phase = "diff"
            start = time.perf_counter()
            partials = [converted.diff(v) for v in variables]
            result.diff_seconds = time.perf_counter() - start
            left = sorted({str(a) for p in partials for a in _walk(p) if type(a).__name__ == "Derivative"})
            if left:
                result.status, result.reason = "unavailable", f"SymEngine leaves {', '.join(left)} unevaluated"
                return result
            phase = "code generation"
            start = time.perf_counter()
            compiled = symengine.Lambdify(variables, partials, cse=True)
            result.codegen_seconds = time.perf_counter() - start

            def function(*args):
                return np.asarray(compiled(*args), dtype=np.float64).reshape(-1)
            result.function = function
    except TimedOut as stop:
        result.status, result.reason = "timed out", f"timed out after {stop.seconds:g} s (during {phase})"
    except Exception as error:          # SymEngine cannot take every SymPy expression (abs' derivative)
        result.status = "unavailable" if phase == "conversion" else "failed"
        result.reason = f"SymEngine failed during {phase}: {type(error).__name__}: {error}"
    return result
