"""Symbolic differentiation by SymPy: ``diff``, the derivative's size raw and after
``cse``, and NumPy code from ``lambdify(..., cse=True)`` — all inside a time budget,
since symbolic derivatives can swell.

>>> from diffcompare.problem.problem import make_problem
>>> d = differentiate(make_problem("x**3 * y", {"x": 2, "y": 5}), timeout=10)
>>> d.partials
[3*x**2*y, x**3]
>>> [float(v) for v in d.function(2.0, 5.0)]
[60.0, 8.0]
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from diffcompare.autograd.ops import special  # erf on arrays: lambdify would print math.erf, one number at a time
from diffcompare.language.table import specials
from diffcompare.methods.budget import TimedOut, can_interrupt, time_limit
from diffcompare.problem.errors import SymbolicUnavailable
from diffcompare.problem.problem import Problem


@dataclass
class SymbolicDerivative:
    """SymPy's gradient of one Problem and what producing it cost."""
    status: str = "ok"                  # ok, timed out, unavailable, failed
    reason: str = ""
    expression: object = None           # f in SymPy
    symbols: tuple = ()
    partials: list | None = None        # one SymPy expression per variable
    function: object = None             # NumPy function of the variables returning the partials
    diff_seconds: float | None = None
    codegen_seconds: float | None = None
    size_f: int | None = None           # count_ops of f
    size_raw: int | None = None         # count_ops of the gradient as differentiated
    size_cse: int | None = None         # ... after common subexpression elimination
    phase: str = ""                     # where a time-out struck
    notes: list = field(default_factory=list)

    @property
    def setup_seconds(self):
        parts = [t for t in (self.diff_seconds, self.codegen_seconds) if t is not None]
        return sum(parts) if parts else None


DEFAULT_TIMEOUT = 10.0          # seconds SymPy may take to differentiate f (compare, the audit)
# what SymPy's derivatives may hold that its printers leave undefined (sign'(x) is 2 DiracDelta(x)):
# the function table's special functions
MPMATH_EXTRAS = specials("mpmath")
def mpmath_lambdify(symbols, exprs, cse=None):
    """``sympy.lambdify`` of ``exprs`` for mpmath numbers, with the functions SymPy leaves
    undefined there (:data:`MPMATH_EXTRAS`). SymPy's mpmath printer writes log2(a)**3 as
    ``log(a)/log(2)**3`` (a power of log(2) alone): log2 is rewritten as log(a)/log(2) first.

    >>> import sympy, mpmath
    >>> x = sympy.Symbol("x")
    >>> from sympy.codegen.cfunctions import log2
    >>> round(float(mpmath_lambdify([x], [log2(x) ** 3])(mpmath.mpf(8))[0]), 12)     # (log2 8)³, not log 8 / (log 2)³
    27.0
    """
    import sympy
    from sympy.codegen.cfunctions import log2

    def rewritten(expr):
        return expr.replace(log2, lambda a: sympy.log(a) / sympy.log(2)) if isinstance(expr, sympy.Basic) else expr
    exprs = [rewritten(e) for e in exprs] if isinstance(exprs, (list, tuple)) else rewritten(exprs)
    if cse is None:
        return sympy.lambdify(symbols, exprs, modules=[MPMATH_EXTRAS, "mpmath"])
    replacements, reduced = cse
    replacements = [(s, rewritten(e)) for s, e in replacements]
    reduced = [rewritten(e) for e in reduced]
    return sympy.lambdify(symbols, exprs, modules=[MPMATH_EXTRAS, "mpmath"],
                          cse=lambda _: (replacements, reduced))


# lambdify's modules for NumPy code of a derivative: the numpy module object, not "numpy" (lambdify
# would run `from numpy import *`, which loads every lazy NumPy submodule, ~0.13 s), and erf on arrays
NUMPY_MODULES = [{**specials("numpy"), "erf": special.erf}, np]


def record_failure(result, error: BaseException, failing: str = "SymPy failed") -> None:
    """Write why a symbolic build stopped into ``result`` (``status`` and ``reason``, naming
    the ``phase`` it was in): timed out, unavailable (SymPy cannot follow f) or failed
    (``failing`` during the phase, and how)."""
    if isinstance(error, TimedOut):
        result.status, result.reason = "timed out", f"timed out after {error.seconds:g} s (during {result.phase})"
    elif isinstance(error, SymbolicUnavailable):
        result.status, result.reason = "unavailable", str(error)
    elif isinstance(error, RecursionError):
        result.status, result.reason = "failed", f"SymPy ran out of recursion depth during {result.phase}"
    elif result.phase == "code generation":     # SymPy cannot print the derivative as code: not f's fault
        result.status, result.reason = "unavailable", (f"SymPy cannot write its derivative as NumPy code "
                                                       f"({type(error).__name__}: {str(error).splitlines()[0][:120]})")
    else:                           # SymPy may fail in many ways on unusual input; say how
        result.status, result.reason = "failed", f"{failing} during {result.phase}: {type(error).__name__}: {error}"


def differentiate(problem: Problem, timeout: float | None = 10.0, task=None) -> SymbolicDerivative:
    """The gradient of ``problem`` by SymPy, stopped after ``timeout`` seconds; with a
    :class:`~diffcompare.problem.tasks.Task`, its entries (Jacobian, vᵀJ, Jv or Hessian, flat)."""
    import sympy

    result = SymbolicDerivative()
    if timeout is not None and not can_interrupt():
        result.notes.append("no time budget outside the main thread")
    result.phase = "building f"
    try:
        with time_limit(timeout):
            if task is None:
                result.expression, result.symbols = problem.sympy_form()
                outputs = [result.expression]
            else:
                outputs, result.symbols = problem.sympy_outputs()
                result.expression = outputs[0] if len(outputs) == 1 else sympy.Matrix(outputs)
            result.phase = "diff"
            start = time.perf_counter()
            if task is None:
                result.partials = [sympy.diff(result.expression, s) for s in result.symbols]
            else:
                result.partials = task.symbolic_entries(outputs, result.symbols)
            result.diff_seconds = time.perf_counter() - start
            result.phase = "counting operations"
            result.size_f = int(sum(sympy.count_ops(o) for o in outputs))
            result.size_raw = int(sum(sympy.count_ops(p) for p in result.partials))
            result.phase = "code generation"
            start = time.perf_counter()
            replacements, reduced = sympy.cse(result.partials)
            result.size_cse = int(sum(sympy.count_ops(rhs) for _, rhs in replacements)
                                  + sum(sympy.count_ops(r) for r in reduced))
            result.function = sympy.lambdify(result.symbols, result.partials, modules=NUMPY_MODULES,
                                             cse=lambda exprs: (replacements, reduced))
            result.codegen_seconds = time.perf_counter() - start
            result.phase = ""
    except (TimedOut, Exception) as error:      # TimedOut is a BaseException
        record_failure(result, error)
    return result
