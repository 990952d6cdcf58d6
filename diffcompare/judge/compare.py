"""The pipeline behind ``compare``: one function, one point, every method side by side
against the exact reference. Problem -> estimates and reference -> Comparison.

>>> c = compare("sin(x)*exp(y)", at={"x": 1, "y": 2}, repeat=1)
>>> c.method("autograd").verdict, c.method("central").verdict, c.exit_status
('pass', 'pass', 0)
>>> c.reference.text("x", 20)          # e² cos 1
'3.9923240484412714265'
"""

from __future__ import annotations

import math

from diffcompare.judge.accuracy import derivative_magnitudes, exact_band, fd_band, path_bound, rounding_bound
from diffcompare.judge.compare_entries import survey
from diffcompare.judge.comparison import Comparison, MethodResult, Note, judge, measure
from diffcompare.judge.reference import exact_reference
from diffcompare.judge.verdicts import CROSSING, FAIL, NOT_JUDGED, Verdict
from diffcompare.language.table import ROWS
from diffcompare.methods.budget import TimedOut, time_limit
from diffcompare.methods.entries import too_slow
from diffcompare.methods.exact import autograd_gradient, symbolic_gradient
from diffcompare.methods.finite_differences import (
    STENCILS,
    finite_difference_gradient,
    samples_cross,
    stencil_crossing,
)
from diffcompare.methods.registry import parse_methods
from diffcompare.methods.symbolic import differentiate
from diffcompare.problem.errors import InputError
from diffcompare.problem.points import single
from diffcompare.problem.problem import make_problem
from diffcompare.problem.tasks import Task, output_shape

DEFAULT_DIGITS = 30
DEFAULT_TIMEOUT = 10.0
COMPLEX_ROUNDING_CAP = 2.0 ** -30     # the largest relative rounding complex step inherits from f
MAX_STENCIL_WALKS = 8       # variables up to which f's rounding is walked at every stencil point


def compare(f, at=None, methods=None, digits: int = DEFAULT_DIGITS, repeat: int = 5, step: float | None = None,
            symbolic_timeout: float | None = DEFAULT_TIMEOUT, kind: str | None = None, vector=None,
            points: int | None = None, seed: int = 0, box=None, grid: bool = False):
    """Differentiate ``f`` (expression text, or a Python callable written with
    :mod:`diffcompare.language.functions`) at the point ``at`` by every method in ``methods`` and
    measure each against the exact reference.

    ``digits``: significant digits of the reference; ``repeat``: timing batches per
    method; ``step``: a finite-difference step for every scheme instead of each scheme's
    own; ``symbolic_timeout``: seconds allowed to SymPy (the derivative, and separately the
    reference), None for no limit.

    ``kind``: "gradient" (the default for a scalar f), "jacobian" (the default for a
    vector f), "vjp" or "jvp" (with ``vector``: v of vᵀJ or Jv) or "hessian". Values in
    ``at`` may be vectors and matrices (lists). ``points``: the number of random points in
    ``box`` ({"x": (-2, 2)} or "x=-2:2,y=0.1:3"; variables outside it keep their value in
    ``at``), drawn with ``seed``, or on a grid with ``grid=True``.

    One scalar f of scalar variables at one point gives a :class:`Comparison` (partial by
    partial, with ULPs); everything else a :class:`~diffcompare.judge.compare_entries.Survey` (entry by
    entry, error statistics over the points). Both render to every format and have the
    same ``exit_status``.

    >>> s = compare("sum(100*(x[1:]-x[:-1]**2)**2 + (1-x[:-1])**2)", at={"x": [1.2, 1.2, 1.2]}, kind="hessian",
    ...             repeat=1)
    >>> s.method("autograd").estimate.values[0].tolist()     # the Rosenbrock Hessian by double backward
    [[1250.0, -480.0, 0.0], [-480.0, 1450.0, -480.0], [0.0, -480.0, 200.0]]
    """
    if kind not in (None, "gradient") or vector is not None or points is not None or box is not None or grid:
        return _survey(f, at, methods, digits, repeat, step, symbolic_timeout, kind, vector, points, seed, box, grid)
    problem = make_problem(f, at)
    try:
        vector_valued = output_shape(problem) != ()
    except InputError:
        vector_valued = False       # f fails at the point: the gradient report says how
    if problem.has_arrays or vector_valued:
        return _survey(f, at, methods, digits, repeat, step, symbolic_timeout, kind, vector, points, seed, box, grid)
    methods = parse_methods(methods)
    _check_settings(digits, repeat, step, symbolic_timeout)
    return _gradient(problem, methods, digits, repeat, step, symbolic_timeout)


def _survey(f, at, methods, digits, repeat, step, symbolic_timeout, kind, vector, points, seed, box, grid):
    _check_settings(digits, repeat, step, symbolic_timeout)
    return survey(f, at, kind, vector, points, seed, box, grid, methods, digits, repeat, step, symbolic_timeout)


def _check_settings(digits, repeat, step, symbolic_timeout):
    if not isinstance(digits, int) or isinstance(digits, bool) or not 16 <= digits <= 1000:
        raise InputError(f"digits must be an integer from 16 to 1000, not {digits!r}")
    if not isinstance(repeat, int) or isinstance(repeat, bool) or not 1 <= repeat <= 1000:
        raise InputError(f"repeat must be an integer from 1 to 1000, not {repeat!r}")
    if step is not None and not (isinstance(step, (int, float)) and math.isfinite(step) and step > 0):
        raise InputError(f"step must be a positive number, not {step!r}")
    if symbolic_timeout is not None and not (isinstance(symbolic_timeout, (int, float)) and symbolic_timeout > 0):
        raise InputError(f"symbolic timeout must be a positive number of seconds, not {symbolic_timeout!r}")


def _gradient(problem, methods, digits, repeat, step, symbolic_timeout) -> Comparison:
    """The gradient of a scalar f of scalar variables at one point, partial by partial."""
    notes = []
    events = problem.events()
    kinks = [e for e in events if e.kind == "kink"]
    for event in events:
        where = f" (column {event.column})" if event.column else ""
        if event.kind == "kink":
            args = ", ".join(f"{a:.17g}" for a in event.arguments)
            notes.append(Note("kink", f"non-differentiable point: {event.function}({args}){where}: {event.text}"))
        else:
            notes.append(Note("domain", f"{event.text}{where}"))

    derivative = differentiate(problem, symbolic_timeout)
    # the symbolic row gives SymPy's trouble; without that row, a note does
    why_not_symbolic = f": {derivative.reason}" if "symbolic" not in methods else ""
    notes.extend(Note("symbolic", text) for text in derivative.notes)
    reference = exact_reference(problem, derivative, digits, symbolic_timeout)
    if reference.source != "sympy":
        notes.append(Note("reference", f"reference: {reference.label}{why_not_symbolic}"))
    for name, trusted in reference.trusted_digits.items():
        if name in reference.uncertain:
            notes.append(Note("reference", f"the reference for ∂f/∂{name} is uncertain: {reference.uncertain[name]}"))
        elif trusted < 17:
            notes.append(Note("reference", f"the reference for ∂f/∂{name} is trusted to {trusted} digits only"))

    estimates = []
    for name in methods:
        if name == "autograd":
            estimates.append(autograd_gradient(problem, batches=repeat))
        elif name == "symbolic":
            estimates.append(symbolic_gradient(problem, derivative, batches=repeat))
        else:
            # a scheme evaluates f about n times, and its timing repeats that: predicted first
            task = Task("gradient", len(problem.variables), 1, (), problem.input_labels)
            slow = too_slow(name, problem, task, single(problem), repeat + 1)
            estimates.append(slow or finite_difference_gradient(problem, name, step=step, batches=repeat))

    value = problem.value()         # nan for a callable that raises: events() has said how
    # no method is judged at a kink or where f fails in binary64: no bands to compute there.
    # The bands walk f's formulas per variable (O(n²) for n variables): they get the symbolic
    # budget too, and a method left without a band is inconclusive, not a hang
    bands = {}
    if not events:
        try:
            with time_limit(symbolic_timeout):
                _bands(problem, derivative, reference, estimates, value, symbolic_timeout, bands)
        except TimedOut:
            notes.append(Note("reference", f"the expected accuracy ran out of time after {symbolic_timeout:g} s: "
                                           f"methods without a band are not decided"))
    results = []
    centre = problem.pieces(problem.point) if not kinks else None     # shared by every stencil check
    for estimate in estimates:
        result = MethodResult(estimate)
        if estimate.has_values:
            for name in problem.variables:
                partial = measure(estimate.values[name], reference, name)
                partial.band = bands.get((estimate.method, name))
                result.partials[name] = partial
        crossings = []
        if estimate.family == "finite differences" and estimate.has_values and not kinks:
            for name in problem.variables:
                why = stencil_crossing(problem, estimate.method, name, estimate.details["steps"][name], centre)
                if why:
                    crossings.append(f"∂f/∂{name}: {why}")
        judge(result, reference, kinks, crossings, [e.text for e in events if e.kind == "domain"])
        if result.verdict == FAIL and estimate.family == "finite differences":
            _smoothness(result, problem)
        results.append(result)

    if kinks:
        notes.extend(_conventions(kinks, estimates))
    settings = {"methods": list(methods), "digits": digits, "repeat": repeat, "step": step,
                "symbolic_timeout": symbolic_timeout}
    return Comparison(problem, value, reference, results, notes, derivative, settings)


def _smoothness(result, problem):
    """A difference scheme outside its band: f's samples at h, h/2 and h/4 say whether f is
    smooth across the stencil (a branch on the value inside it, which no function-table row
    shows, makes them jump); if it is not, the value cannot be trusted: not judged."""
    why = []
    for name, partial in result.partials.items():
        if partial.within is False and partial.band is not None:
            found = samples_cross(problem, result.name, name, result.estimate.details["steps"][name],
                                  partial.band.tolerance)
            if found:
                why.append(f"∂f/∂{name}: {found}")
    if why:
        result.judgement = Verdict(NOT_JUDGED, CROSSING, detail="; ".join(why))


def _bands(problem, derivative, reference, estimates, value, timeout, bands):
    """Fill ``bands``: (method, variable) -> Band."""
    point = {}
    if derivative.partials is not None:
        point = dict(zip(derivative.symbols, (problem.point[n] for n in problem.variables)))
    wants_fd = any(e.family == "finite differences" and e.has_values for e in estimates)
    magnitudes = derivative_magnitudes(problem, timeout=timeout) if wants_fd else {}
    paths = path_bound(problem) or {}

    # f as binary64 evaluates it, operation by operation: SymPy's simplified f may have
    # cancelled terms whose rounding the differences of f still carry
    written = problem.sympy_as_written() if derivative.expression is not None else None
    f_expr = written[0] if written and len(written) == 1 else derivative.expression

    centre = {}

    def f_rounding(name, scheme, h, largest):
        """The rounding of f at the stencil's points (where f's terms may cancel); with many
        variables, at the point only (a walk per variable and stencil point is O(n²))."""
        worst = None
        if f_expr is not None and len(problem.variables) > MAX_STENCIL_WALKS:
            if "bound" not in centre:
                centre["bound"] = rounding_bound(f_expr, point)
            worst = centre["bound"]
        elif f_expr is not None:
            symbol = derivative.symbols[problem.variables.index(name)]
            for offset, _ in STENCILS[scheme]:
                bound = rounding_bound(f_expr, {**point, symbol: problem.point[name] + offset * h})
                if bound is None:
                    worst = None
                    break
                worst = max(worst or 0.0, bound)
        return worst if worst is not None else 8 * 2.0 ** -53 * largest
    relative_rounding = 0.0             # of f's evaluation at the point, relative to |f|
    if f_expr is not None and value and math.isfinite(value):
        bound = rounding_bound(f_expr, point)
        relative_rounding = bound / abs(value) if bound is not None and math.isfinite(bound) else 0.0
        # f's relative rounding stands for NumPy's inexact complex functions (x**100); where f
        # itself cancels (x + tan(pi) at 0) that ratio is huge, but Im f(x + ih) does not
        # cancel with it (no subtraction): complex step's own strength
        relative_rounding = min(relative_rounding, COMPLEX_ROUNDING_CAP)
    for i, name in enumerate(problem.variables):
        ref = reference.values.get(name)
        if ref is None:
            continue
        formula = rounding_bound(derivative.partials[i], point) if derivative.partials is not None else None
        m = magnitudes.get(name, {})
        conditioning = 1 + abs(problem.point[name]) * m[2] / abs(float(ref)) if 2 in m and float(ref) else None
        exact = exact_band(ref, formula, paths.get(name), conditioning)
        for estimate in estimates:
            if not estimate.has_values:
                continue
            if estimate.family != "finite differences":
                bands[(estimate.method, name)] = exact
            else:
                h = estimate.details["steps"][name]
                largest = estimate.details.get("largest_f", {}).get(name, abs(value))
                if estimate.method in STENCILS:
                    f_error = f_rounding(name, estimate.method, h, largest)
                else:                       # complex step: f's relative rounding, carried to ∂f
                    f_error = relative_rounding * abs(float(ref))
                band = fd_band(estimate.method, h, m, f_error, largest, exact)
                if band is not None:
                    bands[(estimate.method, name)] = band


def _conventions(kinks, estimates):
    """Which convention each method followed at a non-differentiable point."""
    notes = []
    for row_name in dict.fromkeys(k.function for k in kinks):
        row = ROWS[row_name]
        if row.engine_convention:
            notes.append(Note("convention", f"autograd ({row_name}): {row.engine_convention}"))
        if row.sympy_convention:
            notes.append(Note("convention", f"symbolic and reference ({row_name}): {row.sympy_convention}"))
    by_name = {e.method: e for e in estimates if e.has_values}
    if "forward" in by_name and "backward" in by_name:
        right = ", ".join(f"{k} {v:.6g}" for k, v in by_name["forward"].values.items())
        left = ", ".join(f"{k} {v:.6g}" for k, v in by_name["backward"].values.items())
        notes.append(Note("convention", f"one-sided differences give the one-sided slopes: from the right "
                                        f"(forward) {right}; from the left (backward) {left}"))
    if "central" in by_name:
        notes.append(Note("convention", "central differences average the two sides"))
    return notes
