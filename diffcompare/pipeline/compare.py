"""The pipeline behind ``compare``: the gradient, Jacobian, vᵀJ, Jv or Hessian of f, at
one point or at many, by every method, each entry measured against the exact reference
and held to the band its method can be expected to reach. A gradient at one point is its
one-point case. Problem -> estimates and reference -> bands -> verdicts -> Comparison.

>>> c = compare("sin(x)*exp(y)", at={"x": 1, "y": 2}, repeat=1)
>>> c.method("autograd").verdict, c.method("central-difference").verdict, c.exit_status
('pass', 'pass', 0)
>>> c.reference.text(0, 20)          # ∂f/∂x = e² cos 1
'3.9923240484412714265'
>>> s = compare("[x*y, sin(x)*z, exp(y)]", at={"x": 1, "y": 2, "z": 3}, kind="vjp",
...             vector=[0.1, 1.0, 0.0001], repeat=1)
>>> s.method("autograd").verdict, s.method("autograd").estimate.details["work"]
('pass', {'of': 'autograd', 'task': 'vjp', 'm': 3, 'n': 3})
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from diffcompare.autograd.quiet import quietly
from diffcompare.judge.bands import MAX_PATH_POINTS, Bands
from diffcompare.judge.comparison import (
    MIN_TRUSTED_DIGITS,
    Comparison,
    MethodResult,
    Note,
    measure,
    set_worst,
)
from diffcompare.judge.differentiability import KINK as KINK_FINDING
from diffcompare.judge.differentiability import SINGULAR as SINGULAR_FINDING
from diffcompare.judge.differentiability import UNCERTAIN as UNCERTAIN_FINDING
from diffcompare.judge.points import joint_violation, non_finite_where_not_differentiable
from diffcompare.judge.policy import decide
from diffcompare.judge.reference import entries_reference, numerical_entries_reference
from diffcompare.judge.verdicts import (
    CROSSING,
    DOMAIN,
    FAIL,
    KINK,
    METHOD_STATUS,
    NON_FINITE,
    NO_BAND,
    NO_REFERENCE,
    NOT_JUDGED,
    OUTSIDE,
    PASS,
    REFERENCE_UNCERTAIN,
    SINGULAR,
    Verdict,
)
from diffcompare.language.expression import parse
from diffcompare.language.table import ROWS
from diffcompare.methods.budget import TimedOut, time_limit
from diffcompare.methods.catalogue import CATALOGUE, COMPLEX, Settings
from diffcompare.methods.catalogue import methods as catalogue_methods
from diffcompare.methods.estimate import FAILED, OK
from diffcompare.methods.finite_differences import samples_cross, stencil_crossing
from diffcompare.methods.registry import parse_methods_for
from diffcompare.methods.symbolic import DEFAULT_TIMEOUT, differentiate
from diffcompare.problem.errors import FailsAtPoint, InputError
from diffcompare.problem.points import (
    Points,
    box_centre,
    grid_points,
    parse_box,
    random_points,
    single,
)
from diffcompare.problem.problem import make_problem
from diffcompare.problem.tasks import make_task, output_shape
from diffcompare.problem.values import SEED_LIMIT, whole_number
from diffcompare.problem.vocabulary import example, old_arguments, option

DEFAULT_DIGITS = 30
MAX_REFERENCE_POINTS = 2000     # exact references (and error statistics) at most at this many points
MAX_NUMERICAL_POINTS = 50       # mpmath's numerical reference, where SymPy cannot follow f (n² derivatives each)


def compare(f, at=None, methods=None, digits: int = DEFAULT_DIGITS, repeat: int = 5, step: float | None = None,
            symbolic_timeout: float | None = DEFAULT_TIMEOUT, kind: str | None = None, vector=None,
            points: int | None = None, seed: int = 0, box=None, grid: bool = False, gradient=None,
            progress=None, **renamed) -> Comparison:
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

    ``gradient``: your own derivative — a hand-derived formula or another library's, a callable
    taking f's arguments and returning the gradient (or the Jacobian or Hessian asked for;
    for vᵀJ and Jv, the Jacobian) — judged beside the others as the method "given" (see
    :mod:`diffcompare.methods.given`). ``progress(done, total, what)`` is called as each
    stage (SymPy's derivative, each method, the reference, the bands) finishes.

    The result is a :class:`~diffcompare.judge.comparison.Comparison`: for every method its
    values, errors and ULPs entry by entry (a gradient's entries are its partials), the band
    each entry was held to and the verdict; it renders to every format.

    >>> s = compare("sum(100*(x[1:]-x[:-1]**2)**2 + (1-x[:-1])**2)", at={"x": [1.2, 1.2, 1.2]}, kind="hessian",
    ...             repeat=1)
    >>> s.method("autograd").estimate.values[0].tolist()     # the Rosenbrock Hessian by double backward
    [[1250.0, -480.0, 0.0], [-480.0, 1450.0, -480.0], [0.0, -480.0, 200.0]]
    """
    gradient = old_arguments("compare", renamed, {"grad": "gradient"}).get("gradient", gradient)
    _check_settings(digits, repeat, step, symbolic_timeout)
    if gradient is not None and not callable(gradient):
        raise InputError(f"{option('gradient')} must be a function taking f's arguments, not "
                         f"{type(gradient).__name__}")
    return quietly(_compare, f, at, kind, vector, points, seed, box, grid, methods, digits, repeat, step,
                   symbolic_timeout, gradient, progress or _silent)


def _silent(done, total, what=""):
    """No progress shown."""


def _check_settings(digits, repeat, step, symbolic_timeout):
    whole_number(digits, option("digits"), 16, 1000)
    whole_number(repeat, option("repeat"), 1, 1000)
    if step is not None and not (isinstance(step, (int, float)) and math.isfinite(step) and step > 0):
        raise InputError(f"step must be a positive number, not {step!r}")
    if symbolic_timeout is not None and not (isinstance(symbolic_timeout, (int, float)) and symbolic_timeout > 0):
        raise InputError(f"symbolic timeout must be a positive number of seconds, not {symbolic_timeout!r}")


def make_points(problem, points=None, seed: int = 0, box=None, grid: bool = False) -> Points:
    """One point, or ``points`` random points in ``box`` (or a grid of about that many)."""
    if points is None:
        if box is not None or grid:
            raise InputError(f"{option('box')} and {option('grid')} choose many points: give their number with "
                             f"{example('points', 'N', 'N')}")
        return single(problem)
    if box is None:
        raise InputError(f"{option('points')} needs a region: "
                         f"{example('box', 'x=-2:2,y=0.1:3', repr({'x': (-2, 2), 'y': (0.1, 3)}))} (bounds for each "
                         f"variable that varies)")
    whole_number(seed, option("seed"), 0, SEED_LIMIT - 1)
    return grid_points(problem, box, points) if grid else random_points(problem, box, points, seed)


def _compare(f, at, kind, vector, points, seed, box, grid, methods, digits, repeat, step, symbolic_timeout, grad,
             progress):
    box = parse_box(box) if box is not None else None
    problem, task = _problem(f, dict(at or {}), kind, vector, points, box)
    names = parse_methods_for(task.kind, methods, given=grad is not None)
    chosen = catalogue_methods(names)
    where = make_points(problem, points, seed, box, grid)
    labels = task.entry_labels()

    stages = len(names) + 3
    progress(0, stages, "SymPy's derivative")
    derivative = differentiate(problem, symbolic_timeout, task)
    notes = [Note("symbolic", text) for text in derivative.notes]
    settings = Settings(repeat, step, derivative, grad, symbolic_timeout)
    estimates = []
    for k, method in enumerate(chosen):
        progress(1 + k, stages, method.name)
        estimates.append(method.estimate(problem, task, where, settings))
    progress(1 + len(names), stages, "the exact reference")
    reference = _reference(problem, task, where, derivative, digits, symbolic_timeout)
    progress(2 + len(names), stages, "the expected accuracy")
    notes.extend(_reference_notes(reference, labels, derivative, names))

    special = _special_rows(reference, problem, len(where))
    notes.extend(_event_notes(problem, reference, len(where)))
    results = [MethodResult(e, labels=labels) for e in estimates]
    bands = _banded(results, problem, task, where, reference, derivative, special, step, symbolic_timeout, notes)
    set_aside = _set_aside_for_differences(reference)
    drawn = points is not None          # random points or a grid, drawn by the tool: not asked for one by one
    for result in results:
        _measured(result, task, reference, labels, bands, symbolic_timeout)
        estimate = result.estimate
        aside = set_aside if estimate.family == "finite differences" else {}
        crossings = _crossings(problem, task, where, reference, estimate, aside) if not special else {}
        _judge(result, reference, special, {**aside, **crossings}, len(where), labels, drawn)
        if result.verdict == FAIL and estimate.family == "finite differences":
            _smoothness(result, problem, task, where)
    if len(where) == 1 and any(f.kind == KINK_FINDING for f in reference.findings.values()):
        notes.extend(_conventions(problem, task, estimates))
    settings = {"kind": task.kind, "methods": list(names), "digits": digits, "repeat": repeat, "step": step,
                "symbolic_timeout": symbolic_timeout, "points": len(where), "seed": seed if points else None,
                "box": {name: [float(low), float(high)] for name, (low, high) in box.items()} if box else None,
                "grid": grid}
    value = problem.value() if not task.output_shape else math.nan       # f at the point (a scalar f)
    return Comparison(problem, task, where, reference, results, notes, derivative, settings, special, value)


def _problem(f, at, kind, vector, points, box):
    """The problem (f at the point, or at the box's centre) and its task."""
    if box and isinstance(f, str):
        variables = parse(f).variables
        unknown = [name for name in box if name not in variables]
        if unknown:
            raise InputError(f"{option('box')} gives {unknown[0]!r}, which is not a variable of f "
                             f"(its variables: {', '.join(variables)})")
    problem = make_problem(f, box_centre(box, at) if box else at)
    try:
        shape = output_shape(problem)
    except FailsAtPoint:
        if kind not in (None, "gradient") or problem.has_arrays or points is not None:
            raise
        shape = ()          # a scalar f that fails at the point: the report says how (f's domain)
    return problem, make_task(problem, kind, vector, shape)


def _banded(results, problem, task, where, reference, derivative, special, step, symbolic_timeout, notes):
    """Each method's band (its expected accuracy), and the Bands that gave them (None when
    there is no reference, or every row is special)."""
    if not reference.available or len(special) >= reference.indices.size:
        return None
    # the bands walk f's formulas (O(n²) for a gradient of n variables): they get the
    # symbolic budget too, and a method left without a band is not decided, not a hang
    bands = None
    try:
        with time_limit(symbolic_timeout):
            bands = Bands(problem, task, where, reference, derivative, symbolic_timeout)
            for result in results:
                if result.estimate.has_values:
                    result.tolerance, result.band_source = bands.of(result.estimate, step)
    except TimedOut:
        notes.append(Note("reference", f"the expected accuracy ran out of time after {symbolic_timeout:g} s: "
                                       f"methods without a band are not decided"))
    return bands


def _measured(result, task, reference, labels, bands, symbolic_timeout) -> None:
    """A method's errors against the reference, and its band refined where a value lies
    outside the floor (exact methods and the complex step)."""
    estimate = result.estimate
    if estimate.has_values and task.kind == "hessian":
        result.symmetry = _asymmetry(estimate.values)
    if not (estimate.has_values and reference.available):
        return
    measure(result, reference, labels)
    complex_step = CATALOGUE[estimate.method].rounding == COMPLEX
    if bands is not None and result.tolerance is not None and (estimate.family != "finite differences"
                                                               or complex_step):
        result.tolerance = bands.refine(result.tolerance, _outside(result, reference), symbolic_timeout,
                                        complex_step=complex_step)


def _reference(problem, task, where, derivative, digits, timeout):
    """SymPy's exact entries at every point, each entry without a finite value there (or at
    a point where f meets a kink) decided from f itself; where SymPy cannot follow f, f's
    high-precision difference quotients."""
    reference = entries_reference(derivative, where.flat, digits, timeout, MAX_REFERENCE_POINTS, problem, task)
    if not reference.available and derivative.partials is None and not problem.has_arrays:
        why = reference.reason.removeprefix("no reference: ")
        numerical = numerical_entries_reference(problem, where.flat[:MAX_NUMERICAL_POINTS], digits, timeout,
                                                why=why, task=task)
        if numerical.available or len(where) == 1:
            reference = numerical
    reference.names = list(problem.input_labels)
    return reference


def _reference_notes(reference, labels, derivative, names) -> list:
    notes = []
    if reference.source != "sympy" or not reference.available:
        # the symbolic row gives SymPy's trouble; without that row, a note does
        why_not = f": {derivative.reason}" if "symbolic" not in names and derivative.reason else ""
        notes.append(Note("reference", (reference.note or reference.reason or f"reference: {reference.label}")
                          + why_not))
    elif reference.note:
        notes.append(Note("reference", reference.note))
    for k, why in reference.uncertain.items():
        notes.append(Note("reference", f"the reference for {labels[k]} is uncertain: {why}"))
    if reference.available:
        low = (reference.trusted < 17) & ~np.isnan(reference.high)
        for k in reference.uncertain:
            low[0, k] = False
        if len(reference.indices) == 1:
            notes.extend(Note("reference", f"the reference for {labels[k]} is trusted to {reference.trusted[0, k]} "
                                           f"digits only") for k in np.flatnonzero(low[0]))
        elif low.any():
            notes.append(Note("reference", f"{int(low.sum())} reference entries are trusted to fewer than 17 digits"))
    return notes


def _asymmetry(values: np.ndarray) -> float:
    difference = np.abs(values - np.swapaxes(values, 1, 2))
    scale = np.max(np.abs(values)) if np.isfinite(values).all() else np.nan
    if not np.isfinite(difference).all():
        return math.nan
    return float(difference.max() / scale) if scale else 0.0


def _special_rows(reference, problem, count) -> dict:
    """Reference rows at which no entry can be judged, by any method: f is not finite in
    binary64 there, or no entry has a value to be held to (f's derivative is singular,
    undefined or uncertain there): row -> (cause, the finding or event behind it)."""
    found = {}
    if not reference.available:
        if count == 1:          # no reference at all: f's own evaluation may still say why
            domain = [e for e in problem.events() if e.kind == "domain"]
            if domain and not np.isfinite(problem.value()):
                found[0] = (DOMAIN, domain[0])
        return found
    judgeable = reference.judgeable
    for row in range(reference.indices.size):
        if row in reference.domain:
            found[row] = (DOMAIN, reference.domain[row])
        elif not judgeable[row].any() and any((row, k) in reference.findings for k in range(judgeable.shape[1])):
            kinds = [reference.findings[(row, k)].kind for k in range(judgeable.shape[1])
                     if (row, k) in reference.findings]
            found[row] = (SINGULAR if SINGULAR_FINDING in kinds else
                          REFERENCE_UNCERTAIN if UNCERTAIN_FINDING in kinds else NO_REFERENCE, None)
    return found


def _event_notes(problem, reference, count) -> list:
    """What f meets where it is not finite in binary64 or meets a kink, as the function table
    states it (at one point, from f's own evaluation; at many, the first few, counted)."""
    if count == 1:
        events = {0: problem.events()}
    else:
        events = {row: list(found) for row, found in reference.events.items()}
    said = {}
    for row, found in events.items():
        domain = [e for e in found if e.kind == "domain"]
        kinks = [e for e in found if e.kind == "kink"]
        if row in reference.domain or (count == 1 and domain and not reference.judgeable.any()):
            event = reference.domain.get(row) or (domain[0] if domain else None)
            if event is not None:
                key = (DOMAIN, f"f is not finite in binary64 here: {_described(event)}")
                said[key] = said.get(key, 0) + 1
        elif kinks:
            key = (KINK, f"f meets a kink here: {_described(kinks[0])}")
            said[key] = said.get(key, 0) + 1
        elif domain:
            key = (DOMAIN, f"an intermediate of f is not finite here, though f is: {_described(domain[0])}")
            said[key] = said.get(key, 0) + 1
    return [Note(kind, text + (f" ({n} points)" if count > 1 else "")) for (kind, text), n in list(said.items())[:5]]


def _described(event) -> str:
    where = f" (column {event.column})" if event.column else ""
    if event.kind == "kink":
        args = ", ".join(repr(float(a)).removesuffix(".0") if isinstance(a, float) else
                         np.array2string(np.asarray(a), precision=6, threshold=6) for a in event.arguments)
        return f"{event.function}({args}){where}: {event.text}"
    return f"{event.text}{where}"


def _set_aside_for_differences(reference) -> dict:
    """Reference rows where f meets a kink or a singular intermediate (an event, or an entry
    decided from f): a difference stencil there straddles it, so finite differences are not
    judged, whatever their value: row -> the cause."""
    if not reference.available:
        return {}
    rows = set(reference.events) | {row for row, k in reference.findings if reference.state[row, k] != "value"}
    return {row: KINK if any(f.kind == KINK_FINDING for (r, _), f in reference.findings.items() if r == row)
            or any(e.kind == "kink" for e in reference.events.get(row, ())) else CROSSING for row in rows}


def _crossings(problem, task, where, reference, estimate, aside=()) -> dict:
    """Reference rows at which a difference stencil straddles a point where some row of the
    function table is not smooth (a pole, a kink, a domain edge): row -> why. Scalar
    variables and coordinate directions only (not Jv), at up to MAX_PATH_POINTS points."""
    if (estimate.family != "finite differences" or not estimate.has_values or not reference.available
            or problem.has_arrays or task.kind not in ("gradient", "jacobian", "vjp", "hessian")
            or reference.indices.size > MAX_PATH_POINTS):
        return {}
    found = {}
    for r, index in enumerate(reference.indices):
        if r in aside:
            continue
        moved = replace(problem, point=problem.split(where.flat[index]))
        centre = moved.pieces(moved.point)
        why = []
        for j, name in enumerate(problem.variables):
            said = stencil_crossing(moved, estimate.method, name, float(estimate.details["steps"][index, j]), centre)
            if said:
                why.append(f"∂f/∂{name}: {said}")
        if why:
            found[r] = "; ".join(why)
    return found


def _smoothness(result, problem, task, where):
    """A difference scheme outside its band at one point: f's samples at h, h/2 and h/4 say
    whether f is smooth across the stencil (a branch on the value inside it, which no
    function-table row shows, makes them jump); if it is not, the value cannot be
    trusted: not judged."""
    if len(where) != 1 or task.kind != "gradient" or problem.has_arrays or result.tolerance is None:
        return
    why = []
    steps = result.estimate.details["steps"]
    for k, name in enumerate(problem.variables):
        band = float(result.tolerance[0, k])
        if result.abs_error[0, k] <= band or math.isnan(band):
            continue
        found = samples_cross(problem, result.name, name, float(steps[0, k]), band)
        if found:
            why.append(f"∂f/∂{name}: {found}")
    if why:
        result.judgement = Verdict(NOT_JUDGED, CROSSING, detail="; ".join(why))


def _judge(result: MethodResult, reference, special: dict, aside: dict, count: int, labels: list,
           drawn: bool = False):
    """The verdict by the one policy (:func:`~diffcompare.judge.policy.decide`), after what
    keeps a method from being judged at all. ``special``: rows where nothing is judged;
    ``aside``: rows where this method is not judged (a difference stencil across a kink:
    row -> the cause, or why); ``drawn``: the points were drawn by the tool (an entry whose
    band cannot decide is counted, not made the method's verdict)."""
    rows = reference.indices.size if reference.available else min(count, MAX_REFERENCE_POINTS)
    verdict = _not_judged_at_all(result, reference, special, aside, rows)
    if verdict is None:
        entries = _judged_entries(reference, special, aside, count, labels)
        verdict = entries if isinstance(entries, Verdict) else _decided(result, reference, special, aside, count,
                                                                         labels, drawn, *entries)
    result.judgement = verdict
    if (special or aside) and result.rel_error is not None:
        set_worst(result, reference, labels, unjudged=[row for row in list(special) + list(aside)
                                                       if isinstance(row, (int, np.integer))])


def _not_judged_at_all(result, reference, special, aside, rows):
    """The verdict when no entry of the method can be judged (every row special or set aside,
    the method did not run, no reference, no band); else None."""
    estimate = result.estimate
    if special and len(special) == rows and estimate.status in (OK, FAILED):
        cause, why = next(iter(special.values()))
        return Verdict(NOT_JUDGED, cause, _special_numbers(reference, next(iter(special))),
                       detail=why.text if hasattr(why, "text") else "")
    if estimate.status != OK:
        return Verdict(estimate.status, METHOD_STATUS, detail=estimate.reason)
    if aside and len(aside) == rows:
        cause = next(iter(aside.values()))
        row = next(iter(aside))
        if cause in (KINK, CROSSING):
            return Verdict(NOT_JUDGED, cause, _special_numbers(reference, row), detail=_event_text(reference, row))
        return Verdict(NOT_JUDGED, CROSSING, detail=cause)
    if not reference.available:
        return Verdict(NOT_JUDGED, NO_REFERENCE, detail=reference.reason or "")
    if result.tolerance is None:
        return Verdict(NOT_JUDGED, NO_BAND)
    return None


def _judged_entries(reference, special, aside, count, labels):
    """(judged, untrusted, missing): the entries judged, those whose reference is not trusted,
    those without one; or the verdict when what is missing decides it."""
    judged = reference.judgeable.copy()
    missing = ~reference.judgeable
    for row in list(special) + list(aside):
        judged[row] = False
        missing[row] = False
    untrusted = judged & (reference.trusted < MIN_TRUSTED_DIGITS)
    judged &= ~untrusted
    if untrusted.any():
        row, k = np.argwhere(untrusted)[0]
        why = reference.uncertain.get(int(k)) if count == 1 else None
        if why or not judged.any():
            return Verdict(NOT_JUDGED, REFERENCE_UNCERTAIN, {"entry": labels[k], "untrusted": int(untrusted.sum())},
                           why or f"the reference is trusted to fewer than {MIN_TRUSTED_DIGITS} digits "
                                  f"at {int(untrusted.sum())} entries (two working precisions disagree)")
    if count == 1 and missing.any() and not judged.any():
        k = int(np.flatnonzero(missing[0])[0])
        finding = reference.findings.get((0, k))
        cause = NO_REFERENCE
        if finding is not None:
            cause = SINGULAR if finding.kind == SINGULAR_FINDING else \
                REFERENCE_UNCERTAIN if finding.kind == UNCERTAIN_FINDING else NO_REFERENCE
        return Verdict(NOT_JUDGED, cause, {"entry": labels[k], **_finding_numbers(finding)},
                       reference.undefined.get(k, ""))
    return judged, untrusted, missing


def _decided(result, reference, special, aside, count, labels, drawn, judged, untrusted, missing):
    """The policy's verdict on the judged entries, then what the reference adds to it."""
    estimate = result.estimate
    values = estimate.values.reshape(estimate.values.shape[0], -1)[reference.indices]
    for row in range(values.shape[0]):
        if row in special or row in aside:
            continue
        bad = non_finite_where_not_differentiable(values[row], reference, row, labels)
        if bad is not None:
            return Verdict(FAIL, NON_FINITE, {**bad, "point": None if count == 1 else int(reference.indices[row])})
    tolerance = result.tolerance + reference.uncertainty
    # nan or inf where the reference is finite is wrong, band or no band
    tolerance = np.where(~np.isfinite(values) & np.isnan(tolerance) & judged, 0.0, tolerance)
    skipped = len(special) + len(aside) + int(untrusted.sum()) + int((missing & ~judged).sum())
    verdict = decide(result.abs_error, tolerance, _exact_magnitudes(reference), values, labels,
                     rows=reference.indices if count > 1 else None, judged=judged, source=result.band_source,
                     skipped=skipped, drawn=drawn, rounded=np.where(reference.interval, np.nan, reference.high))
    if verdict.outcome == PASS and reference.joint:
        verdict = _joint(verdict, values, tolerance, reference, judged, count, labels)
    return _amended(verdict, estimate, reference, special, count, labels)


def _joint(verdict, values, tolerance, reference, judged, count, labels):
    """A pass at a kink checked jointly: the entries together must be one subgradient."""
    for row in sorted(reference.joint):
        if not judged[row].any():
            continue
        violation = joint_violation(values[row], tolerance[row], reference, row, labels)
        if violation is not None:
            point = None if count == 1 else int(reference.indices[row])
            return Verdict(FAIL, OUTSIDE, {**verdict.numbers, **violation, "point": point})
    return verdict


def _amended(verdict, estimate, reference, special, count, labels):
    """The verdict with what explains it: the special point's cause where nothing had a
    reference, the method's caveats and the reference's finding at a failing entry."""
    if verdict.outcome == NOT_JUDGED and verdict.cause == NO_REFERENCE and special:
        cause, why = next(iter(special.values()))
        verdict = Verdict(NOT_JUDGED, cause, verdict.numbers, why.text if hasattr(why, "text") else "")
    if verdict.outcome == FAIL and estimate.details.get("caveats"):
        verdict = Verdict(verdict.outcome, verdict.cause, verdict.numbers, "; ".join(estimate.details["caveats"]))
    if verdict.outcome == FAIL and verdict.numbers.get("entry") in labels:
        k = labels.index(verdict.numbers["entry"])
        row = 0 if count == 1 else int(np.flatnonzero(reference.indices == verdict.numbers["point"])[0])
        finding = reference.findings.get((row, k))
        if finding is not None:
            verdict = Verdict(verdict.outcome, verdict.cause, {**verdict.numbers, **_finding_numbers(finding)},
                              verdict.detail)
    return verdict


def _outside(result, reference) -> np.ndarray:
    """The entries a method's value lies outside its present band at (nan counts as outside)."""
    with np.errstate(invalid="ignore"):
        return reference.judgeable & ~(result.abs_error <= result.tolerance + reference.uncertainty)


def _finding_numbers(finding) -> dict:
    """What the analysis of f found for an entry, as data for a verdict."""
    if finding is None:
        return {}
    return {"finding": finding.as_dict()}


def _special_numbers(reference, row) -> dict:
    """The findings at a row nothing is judged at, as data for a verdict."""
    findings = {k: f.as_dict() for (r, k), f in reference.findings.items() if r == row}
    return {"findings": findings} if findings else {}


def _event_text(reference, row) -> str:
    """The first kink or domain event f meets at a row, as the table states it."""
    events = reference.events.get(row) or []
    return _described(events[0]) if events else ""


def _exact_magnitudes(reference) -> np.ndarray:
    """The exact values (a kink: the larger end of its interval), with a non-zero value
    below the binary64 range as the smallest subnormal (2e-324 is not 0: a band of 0 would
    be too wide for it)."""
    high = np.where(reference.interval, reference.magnitude, reference.high)
    if reference.exact is not None:
        for k, value in enumerate(reference.exact):
            if value is not None and value != 0 and high[0, k] == 0:
                high[0, k] = 5e-324 if value > 0 else -5e-324
    return high


def _conventions(problem, task, estimates) -> list:
    """Which convention each method followed at a non-differentiable point."""
    notes = []
    for row_name in dict.fromkeys(e.function for e in problem.events() if e.kind == "kink"):
        row = ROWS[row_name]
        if row.engine_convention:
            notes.append(Note("convention", f"autograd ({row_name}): {row.engine_convention}"))
        if row.sympy_convention:
            notes.append(Note("convention", f"symbolic ({row_name}): {row.sympy_convention}"))
    by_name = {e.method: e for e in estimates if e.has_values}
    labels = task.entry_labels()

    def listed(estimate):
        return ", ".join(f"{k} {v:.6g}" for k, v in zip(labels, np.ravel(estimate.values[0])))
    if "forward-difference" in by_name and "backward-difference" in by_name:
        notes.append(Note("convention", f"one-sided differences give the one-sided slopes: from the right "
                                        f"(forward) {listed(by_name['forward-difference'])}; from the left (backward) "
                                        f"{listed(by_name['backward-difference'])}"))
    if "central-difference" in by_name:
        notes.append(Note("convention", "central differences average the two sides"))
    return notes
