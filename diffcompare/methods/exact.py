"""The exact methods: reverse-mode AD by the engine, and SymPy's derivative as generated
NumPy code. (Finite differences live in ``finite_differences``.)

>>> from diffcompare.problem.problem import make_problem
>>> p = make_problem("x**2 * y", {"x": 3, "y": 2})
>>> autograd_gradient(p, batches=1).values
{'x': 12.0, 'y': 9.0}
"""

from __future__ import annotations

import warnings

import numpy as np

from diffcompare import autograd as ag
from diffcompare.autograd.quiet import quietly
from diffcompare.language.printing import latex, one_line
from diffcompare.language.worlds import ENGINE
from diffcompare.methods.estimate import FAILED, NOT_APPLICABLE, OK, TIMED_OUT, Estimate
from diffcompare.methods.symbolic import SymbolicDerivative
from diffcompare.methods.timing import measure
from diffcompare.problem.problem import Problem


def _as_float(value):
    """One real number; nan for a complex one (SymPy's acosh(1/2) = iπ/3 is not a real derivative)."""
    if isinstance(value, ag.Tensor):
        value = value.detach().numpy()
    if np.size(value) != 1:
        return np.nan
    value = np.asarray(value).reshape(-1)[0]
    if np.iscomplexobj(value):
        return float(value.real) if value.imag == 0 else np.nan
    return float(value)


def autograd_gradient(problem: Problem, batches: int = 5) -> Estimate:
    """Evaluate f on engine tensors and call ``backward()`` once."""
    names = problem.variables

    def gradient():
        leaves = {n: ag.tensor(v, requires_grad=True) for n, v in problem.point.items()}
        out = problem.evaluate(ENGINE, leaves)
        if not isinstance(out, ag.Tensor):
            raise TypeError(f"f returned {type(out).__name__}, not a tensor")
        if out.numel() != 1:
            raise ValueError(f"f returned {out.numel()} values; a gradient needs one")
        if out.requires_grad:
            out.backward()
        return {n: (leaves[n].grad.item() if leaves[n].grad is not None else 0.0) for n in names}

    with warnings.catch_warnings(record=True) as caught:     # the engine's warnings explain a failure
        warnings.simplefilter("always")
        try:
            values = quietly(gradient)
        except Exception as error:
            said = "".join(f" (the engine warned: {w.message})" for w in caught[:1])
            return Estimate("autograd", "autograd", status=FAILED, reason=f"{type(error).__name__}: {error}{said}")
    timing = measure(lambda: quietly(gradient), batches=batches)
    return Estimate("autograd", "autograd", values, evaluations=1, timing=timing,
                    details={"how": "one forward pass on engine tensors, one backward()"})


def symbolic_gradient(problem: Problem, derivative: SymbolicDerivative, batches: int = 5) -> Estimate:
    """Run SymPy's derivative as the NumPy code ``lambdify(..., cse=True)`` generated."""
    details = {"size_f": derivative.size_f, "size_raw": derivative.size_raw, "size_cse": derivative.size_cse,
               "diff_seconds": derivative.diff_seconds, "codegen_seconds": derivative.codegen_seconds}
    if derivative.partials is not None:
        details["formulas"] = {
            name: {"text": one_line(p), "latex": latex(p)}
            for name, p in zip(problem.variables, derivative.partials)}
    if derivative.status != OK:
        status = TIMED_OUT if derivative.status == "timed out" else (
            NOT_APPLICABLE if derivative.status == "unavailable" else FAILED)
        return Estimate("symbolic", "symbolic", status=status, reason=derivative.reason,
                        setup_seconds=derivative.setup_seconds, details=details)
    args = [np.float64(problem.point[n]) for n in problem.variables]

    def gradient():
        return derivative.function(*args)

    try:
        raw = quietly(gradient)
    except Exception as error:
        return Estimate("symbolic", "symbolic", status=FAILED, setup_seconds=derivative.setup_seconds,
                        reason=f"the generated code failed: {type(error).__name__}: {error}", details=details)
    values = {n: _as_float(v) for n, v in zip(problem.variables, raw)}
    timing = measure(lambda: quietly(gradient), batches=batches)
    return Estimate("symbolic", "symbolic", values, evaluations=1, setup_seconds=derivative.setup_seconds,
                    timing=timing, details=details)
