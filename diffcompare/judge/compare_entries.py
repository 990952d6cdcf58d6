"""Beyond one gradient: the Jacobian, vᵀJ, Jv or Hessian of f, at one point or many,
by every method, each entry measured against the exact reference.

>>> s = survey("[x*y, sin(x)*z, exp(y)]", at={"x": 1, "y": 2, "z": 3}, kind="vjp",
...            vector=[0.1, 1.0, 0.0001], repeat=1)
>>> s.method("autograd").verdict, s.method("central").verdict, s.exit_status
('pass', 'pass', 0)
>>> s.method("autograd").estimate.details["work"]
'1 forward, 1 backward(v): J is never formed'
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np

from diffcompare.autograd.quiet import quietly
from diffcompare.judge.accuracy import (
    FLOOR_ULPS,
    NO_FORMULA_ULPS,
    SAFETY,
    UNIT_ROUNDOFF,
    WALK_MAX_OPS,
    path_bound,
    rounding_bound,
)
from diffcompare.judge.comparison import MAX_DIGITS, MIN_TRUSTED_DIGITS, Note
from diffcompare.judge.policy import decide
from diffcompare.judge.reference import EntriesReference, entries_reference, numerical_entries_reference
from diffcompare.judge.report import JudgedMethod, Report
from diffcompare.judge.verdicts import (
    DOMAIN,
    KINK,
    METHOD_STATUS,
    NO_BAND,
    NO_REFERENCE,
    NOT_JUDGED,
    REFERENCE_UNCERTAIN,
    Verdict,
)
from diffcompare.language.expression import parse
from diffcompare.methods.entries import (
    autograd_entries,
    autograd_jacobian_vjp,
    fd_entries,
    functional_entries,
    hessian_by_differences,
    hessian_mixed,
    outputs,
    per_point,
    run_autograd,
    symbolic_entries,
    too_slow,
)
from diffcompare.methods.estimate import FAILED, OK
from diffcompare.methods.finite_differences import FD_METHODS, STENCILS
from diffcompare.methods.registry import parse_methods_for
from diffcompare.methods.symbolic import differentiate
from diffcompare.problem.errors import InputError
from diffcompare.problem.points import Points, box_centre, grid_points, parse_box, random_points, single
from diffcompare.problem.problem import make_problem
from diffcompare.problem.tasks import Task, make_task

MAX_REFERENCE_POINTS = 2000     # exact references (and error statistics) at most at this many points
MAX_WALKS = 4000                # rounding-bound walks of SymPy formulas per report
MAX_PATH_POINTS = 50            # chain-rule path bounds (one mpmath sweep per output and point)
MAX_NUMERICAL_POINTS = 50       # mpmath's numerical reference, where SymPy cannot follow f (n² derivatives each)

@dataclass
class MethodSummary(JudgedMethod):
    """One method over every entry and point: errors where the reference is known, the
    band each entry was held to, and the verdict."""
    estimate: object
    abs_error: np.ndarray | None = None     # (reference points, entries)
    rel_error: np.ndarray | None = None
    tolerance: np.ndarray | None = None
    band_source: str = ""
    judgement: Verdict = field(default_factory=lambda: Verdict(NOT_JUDGED, NO_REFERENCE))
    worst: dict | None = None               # the entry and point with the largest error
    symmetry: float | None = None           # Hessians: max |H - Hᵀ| / max |H|

    @property
    def incomplete(self) -> bool:
        """A pass over the judged entries while some were skipped (kinks, domain errors)."""
        return self.judgement.incomplete

    @property
    def outside(self) -> int:
        """How many entries lie outside their band."""
        return self.judgement.numbers.get("outside", 0)

    def statistic(self, which: str):
        errors = self.rel_error
        if errors is None:
            return None
        finite = errors[np.isfinite(errors)]
        if finite.size == 0:
            return None
        return float({"max": np.max, "median": np.median}[which](finite))

    @property
    def max_abs_error(self):
        if self.abs_error is None:
            return None
        finite = self.abs_error[np.isfinite(self.abs_error)]
        return float(finite.max()) if finite.size else None

    @property
    def digits(self):
        worst = self.statistic("max")
        if worst is None:
            return None
        return MAX_DIGITS if worst == 0 else max(0.0, min(MAX_DIGITS, -math.log10(worst)))


@dataclass
class Survey(Report):
    """Everything a report of a Jacobian, vᵀJ, Jv, Hessian or many-point run shows."""
    problem: object
    task: Task
    points: Points
    reference: EntriesReference
    methods: list
    notes: list = field(default_factory=list)
    derivative: object = None
    settings: dict = field(default_factory=dict)
    special: dict = field(default_factory=dict)     # reference row -> why it is not judged

    def agreements(self) -> dict:
        """Digits to which autograd agrees with every other method, worst entry and point."""
        try:
            base = self.method("autograd").estimate
        except KeyError:
            return {}
        if not base.has_values:
            return {}
        return {m.name: _agreement(base.values, m.estimate.values) for m in self.methods
                if m.name != "autograd" and m.estimate.has_values}


def _agreement(a: np.ndarray, b: np.ndarray) -> float:
    """Digits of agreement, normwise at each point (the largest difference over the
    largest entry: a zero entry off by 1e-17 is agreement, not 0 digits), worst point."""
    a, b = a.reshape(a.shape[0], -1), b.reshape(b.shape[0], -1)
    if (np.isfinite(a) != np.isfinite(b)).any():
        return 0.0
    with np.errstate(invalid="ignore"):
        both = np.isfinite(a) & np.isfinite(b)
        difference = np.where(both, np.abs(a - b), 0.0).max(axis=1)
        scale = np.where(both, np.maximum(np.abs(a), np.abs(b)), 0.0).max(axis=1)
        relative = np.where(scale > 0, difference / np.where(scale > 0, scale, 1.0), 0.0)
    worst = float(relative.max()) if relative.size else 0.0
    return MAX_DIGITS if worst == 0 else max(0.0, min(MAX_DIGITS, -math.log10(worst)))


def make_points(problem, points=None, seed: int = 0, box=None, grid: bool = False) -> Points:
    """One point, or ``points`` random points in ``box`` (or a grid of about that many)."""
    if points is None:
        if box is not None or grid:
            raise InputError("--box and --grid choose many points: give their number with --points N")
        return single(problem)
    if box is None:
        raise InputError("--points needs a region: --box x=-2:2,y=0.1:3 (NAME=LOW:HIGH for each variable that varies)")
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2 ** 63:
        raise InputError(f"the seed must be a whole number from 0 to 2^63 - 1, not {seed!r}")
    return grid_points(problem, box, points) if grid else random_points(problem, box, points, seed)


def survey(f, at=None, kind: str | None = None, vector=None, points=None, seed: int = 0, box=None,
           grid: bool = False, methods=None, digits: int = 30, repeat: int = 5, step: float | None = None,
           symbolic_timeout: float | None = 10.0) -> Survey:
    """Every method for the ``kind`` of derivative of ``f`` at ``at`` (or at many points).
    Non-finite values are results here (nan, inf, overflow), so NumPy does not warn about them."""
    return quietly(_survey, f, at, kind, vector, points, seed, box, grid, methods, digits, repeat, step,
                   symbolic_timeout)


def _survey(f, at, kind, vector, points, seed, box, grid, methods, digits, repeat, step, symbolic_timeout):
    box = parse_box(box) if box is not None else None
    at = dict(at or {})
    if box and isinstance(f, str):
        variables = parse(f).variables
        unknown = [name for name in box if name not in variables]
        if unknown:
            raise InputError(f"--box gives {unknown[0]!r}, which is not a variable of f "
                             f"(its variables: {', '.join(variables)})")
    problem = make_problem(f, box_centre(box, at) if box else at)
    task = make_task(problem, kind, vector)
    names = parse_methods_for(task.kind, methods)
    where = make_points(problem, points, seed, box, grid)
    notes = []

    derivative = differentiate(problem, symbolic_timeout, task)
    notes.extend(Note("symbolic", text) for text in derivative.notes)
    estimates = [_run(name, problem, task, where, derivative, repeat, step) for name in names]
    reference = entries_reference(derivative, where.flat, digits, symbolic_timeout, MAX_REFERENCE_POINTS)
    if not reference.available and derivative.partials is None and not problem.has_arrays:
        # SymPy cannot follow f (a branch on the value): mpmath differentiates f itself
        numerical = numerical_entries_reference(problem, where.flat[:MAX_NUMERICAL_POINTS], digits, symbolic_timeout,
                                                why=reference.reason.removeprefix("no reference: "), task=task)
        if numerical.available:
            reference = numerical
    if reference.reason:
        notes.append(Note("reference", reference.reason))
    if reference.note:
        notes.append(Note("reference", reference.note))
    low_trust = int(np.sum(reference.trusted < 17)) if reference.available else 0
    if low_trust:
        notes.append(Note("reference", f"{low_trust} reference entries are trusted to fewer than 17 digits"))

    special = _special_points(problem, where, reference)
    for cause, why in sorted(set(special.values()))[:5]:
        count = sum(1 for w in special.values() if w == (cause, why))
        notes.append(Note(cause, f"{why}" + (f" ({count} points)" if len(where) > 1 else "")))
    bands = _Bands(problem, task, where, reference, derivative)
    summaries = []
    for estimate in estimates:
        summary = MethodSummary(estimate)
        if estimate.has_values and task.kind == "hessian":
            summary.symmetry = _asymmetry(estimate.values)
        if estimate.has_values and reference.available:
            _measure(summary, reference, task)
            summary.tolerance, summary.band_source = bands.of(estimate, step)
        _judge(summary, reference, special, len(where), task.entry_labels())
        summaries.append(summary)
    settings = {"kind": task.kind, "methods": list(names), "digits": digits, "repeat": repeat, "step": step,
                "symbolic_timeout": symbolic_timeout, "points": len(where), "seed": seed if points else None,
                "grid": grid}
    return Survey(problem, task, where, reference, summaries, notes, derivative, settings, special)


def _run(name, problem, task, where, derivative, repeat, step):
    # a difference scheme's band runs it again at h/2 and h/4
    slow = too_slow(name, problem, task, where, 3 if name in FD_METHODS + ("second-differences", "mixed") else 1)
    if slow is not None:
        return slow
    if name == "autograd":
        return autograd_entries(problem, task, where, repeat)
    if name == "autograd-functional":
        return functional_entries(problem, task, where, repeat)
    if name == "autograd-full-J":
        return autograd_jacobian_vjp(problem, task, where, repeat)
    if name == "symbolic":
        return symbolic_entries(problem, task, where, derivative, repeat)
    if name == "second-differences":
        return hessian_by_differences(problem, task, where, step, repeat)
    if name == "mixed":
        return hessian_mixed(problem, task, where, step, repeat)
    return fd_entries(problem, task, where, name, step, repeat)


def _asymmetry(values: np.ndarray) -> float:
    difference = np.abs(values - np.swapaxes(values, 1, 2))
    scale = np.max(np.abs(values)) if np.isfinite(values).all() else np.nan
    if not np.isfinite(difference).all():
        return math.nan
    return float(difference.max() / scale) if scale else 0.0


def _measure(summary: MethodSummary, reference: EntriesReference, task: Task):
    values = summary.estimate.values.reshape(summary.estimate.values.shape[0], -1)[reference.indices]
    with np.errstate(invalid="ignore", over="ignore"):
        # (value - high) is exact when the two are close; then subtract the low part
        error = np.abs((values - reference.high) - reference.low)
        error = np.where(np.isfinite(reference.high) & ~np.isfinite(values), np.inf, error)
        # an exact value beyond binary64 rounds to ±inf: the same infinity is right, anything else is not
        beyond = np.isinf(reference.high)
        error = np.where(beyond, np.where(values == reference.high, 0.0, np.inf), error)
        magnitude = np.abs(reference.high)
        relative = np.where(magnitude > 0, error / np.where(magnitude > 0, magnitude, 1.0),
                            np.where(error == 0, 0.0, np.inf))
    summary.abs_error, summary.rel_error = error, relative
    judged = np.isfinite(reference.high)
    if judged.any():
        score = np.where(judged, np.nan_to_num(relative, nan=np.inf, posinf=np.inf), -1.0)
        row, entry = np.unravel_index(int(np.argmax(score)), score.shape)
        summary.worst = {"point": int(reference.indices[row]), "entry": task.entry_labels()[entry],
                         "value": float(values[row, entry]), "reference": float(reference.high[row, entry]),
                         "abs_error": float(error[row, entry]), "rel_error": float(relative[row, entry])}


class _Bands:
    """The accuracy each method can be expected to reach, entry by entry (see README:
    exact methods by SymPy's formula's rounding bound; finite differences by their
    truncation estimated from the same scheme at half the step, plus f's rounding / h)."""

    def __init__(self, problem, task, where, reference, derivative):
        self.problem, self.task, self.where, self.reference = problem, task, where, reference
        self.derivative = derivative
        if not reference.available:
            return
        self.flat = where.flat[reference.indices]
        self.magnitude = np.abs(np.nan_to_num(reference.high))
        self.exact, self.exact_source = self._exact()
        self.f = np.abs(outputs(problem, task, self.flat))                  # (rows, m)
        walks = self._walks(self._f_outputs())
        self.f_error = 2 * UNIT_ROUNDOFF * self.f if walks is None else np.fmax(walks, 2 * UNIT_ROUNDOFF * self.f)

    def _f_outputs(self):
        """f's outputs as binary64 evaluates them (nothing simplified away), for the rounding
        walks; SymPy's simplified outputs where f cannot be built that way."""
        written = self.problem.sympy_as_written()
        if written is not None:
            return written
        try:
            return self.problem.sympy_outputs()[0]
        except Exception:
            return None

    def _walks(self, formulas) -> np.ndarray | None:
        """Rounding bounds of ``formulas`` at the reference points (nan where a formula is
        too large or the walk fails); None without formulas or beyond MAX_WALKS."""
        rows = self.flat.shape[0]
        if formulas is None or rows * len(formulas) > MAX_WALKS:
            return None
        out = np.zeros((rows, len(formulas)))
        import sympy
        small = [sympy.count_ops(e) <= WALK_MAX_OPS for e in formulas]
        symbols = self.derivative.symbols
        for r in range(rows):
            point = dict(zip(symbols, map(float, self.flat[r])))
            for k, formula in enumerate(formulas):
                if small[k]:
                    bound = rounding_bound(formula, point)
                    out[r, k] = bound if bound is not None else np.nan
                else:
                    out[r, k] = np.nan
        return out

    def _exact(self):
        ulp = np.spacing(self.magnitude)
        normwise = FLOOR_ULPS * UNIT_ROUNDOFF * self.magnitude.max(axis=1, keepdims=True)
        floor = FLOOR_ULPS * ulp + normwise
        walks = self._walks(self.derivative.partials)
        if walks is None or not np.isfinite(walks).any():
            return NO_FORMULA_ULPS * ulp + floor, (f"{NO_FORMULA_ULPS} ulp of each entry + {FLOOR_ULPS} ulp of the "
                                                   f"largest (no formula walked)")
        walks = np.where(np.isfinite(walks), walks, NO_FORMULA_ULPS * ulp)
        paths = self._paths()
        source = "the rounding bound of SymPy's formula for each entry"
        if paths is not None:
            walks = walks + paths
            source += " + rounding along f's chain-rule paths"
        return SAFETY * walks + floor, (f"{SAFETY:g} × ({source}), + {FLOOR_ULPS} ulp of the entry and of the "
                                        f"largest entry")

    def _paths(self):
        """Rounding a backward pass meets along f's chain-rule paths (see accuracy.path_bound),
        entry by entry; None where unavailable (Hessians, arrays, callables, many points).
        SymPy may simplify away a cancellation (3z/z is 3) that the engine still computes."""
        task, problem = self.task, self.problem
        rows = self.flat.shape[0]
        if task.kind == "hessian" or rows > MAX_PATH_POINTS or not problem.is_text or problem.has_arrays:
            return None
        bounds = np.zeros((rows, task.m, task.n))
        for r in range(rows):
            moved = replace(problem, point=problem.split(self.flat[r]))
            for i in range(task.m):
                found = path_bound(moved, output=i if task.output_shape else None)
                if found is None:
                    return None
                bounds[r, i] = [found[name] for name in problem.variables]
        if task.kind == "vjp":
            return np.einsum("m,rmn->rn", np.abs(task.vector), bounds)
        if task.kind == "jvp":
            return np.einsum("rmn,n->rm", bounds, np.abs(task.vector))
        return bounds.reshape(rows, -1)

    def of(self, estimate, step):
        """(tolerance per reference point and entry, where it came from)."""
        if not self.reference.available:
            return None, ""
        if estimate.family != "finite differences":
            return self.exact, self.exact_source
        name = estimate.method
        rows = self.reference.indices
        half = replace(self.where, flat=self.flat)
        base = estimate.values.reshape(estimate.values.shape[0], -1)[rows]
        finer = self._at_step(name, half, step, 0.5)
        finest = self._at_step(name, half, step, 0.25)
        if finer is None or finest is None:
            return None, ""
        order = estimate.details.get("order", 2)
        with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
            first, second = np.abs(base - finer), np.abs(finer - finest)
            truncation = first * 2 ** order / (2 ** order - 1)
            rounding = self._fd_rounding(name, half, estimate.details["steps"][rows])
            tolerance = SAFETY * (truncation + rounding) + self.exact
            # in the asymptotic regime halving h divides the difference by about 2^order; far
            # from it (f varies faster than the step resolves) no band can be derived
            ratio = first / second
            unresolved = (first > SAFETY * rounding) & ~((ratio >= 2.0 ** (order - 2)) & (ratio <= 2.0 ** (order + 2)))
        tolerance = np.where(unresolved, np.nan, tolerance)
        return tolerance, (f"{SAFETY:g} × (truncation, estimated from the same scheme at half the step, "
                           f"+ f's rounding over the stencil / h) + the exact methods' band")

    def _at_step(self, name, points, step, scale):
        """The scheme again with every step times ``scale``."""
        task, problem = self.task, self.problem
        smaller = step * scale if step else None
        if name == "second-differences":
            out = hessian_by_differences(problem, task, points, smaller, batches=0, step_scale=scale)
        elif name == "mixed":
            out = hessian_mixed(problem, task, points, smaller, batches=0, step_scale=scale)
        else:
            out = fd_entries(problem, task, points, name, smaller, batches=0, step_scale=scale)
        return out.values.reshape(out.values.shape[0], -1) if out.has_values else None

    def _fd_rounding(self, name, points, steps):
        """Σ|weights| × (f's rounding at the point) / h, entry by entry; ``steps`` are the
        method's at the reference points, (rows, directions)."""
        task = self.task
        f_error = self.f_error                                # (rows, m)
        if name == "complex-step":
            return np.zeros_like(self.magnitude)
        if name in ("second-differences", "mixed"):
            gradient_task = Task("gradient", task.n, 1, task.output_shape, task.input_labels)
            gradient = np.abs(per_point(lambda row: run_autograd(self.problem, gradient_task, row, False),
                                         points.flat))
            h = steps
            if name == "mixed":
                # column j differences two gradients, each rounded by a few ulps of its largest entry
                g_error = 16 * UNIT_ROUNDOFF * gradient.max(axis=1, keepdims=True)
                return np.broadcast_to((g_error / h)[:, None, :], (h.shape[0], task.n, task.n)).reshape(h.shape[0], -1)
            # f is rounded at x ± h e_i (± h e_j), where it exceeds |f(x)| by about h |∂f|
            u2 = 2 * UNIT_ROUNDOFF
            moved = f_error[:, :1] + u2 * h * gradient
            outer = (f_error[:, :1, None] + moved[:, :, None] + moved[:, None, :]) / (h[:, :, None] * h[:, None, :])
            outer[:, np.arange(task.n), np.arange(task.n)] = 4 * (f_error[:, :1] + moved) / h ** 2
            return outer.reshape(outer.shape[0], -1)
        stencil = STENCILS[name]
        weight = sum(abs(w) for _, w in stencil)
        # f is rounded at every stencil point, where |f| may exceed |f(x)| by about reach·h·|f'|
        # (f(x) = 0 does not make f(x ± h) exact): that adds weight · 2u · reach · |entry|
        reach = max(abs(o) for o, _ in stencil)
        moved = weight * 2 * UNIT_ROUNDOFF * reach * self.magnitude
        if task.kind == "jvp":
            return weight * f_error / steps[:, :1] + moved
        per_entry = weight * f_error[:, :, None] / steps[:, None, :]  # (rows, m, n)
        if task.kind == "vjp":
            return np.einsum("m,rmn->rn", np.abs(task.vector), per_entry) + moved
        return per_entry.reshape(per_entry.shape[0], -1) + moved


def _special_points(problem, where: Points, reference: EntriesReference) -> dict:
    """Reference rows at which f meets a kink or leaves its domain: row -> (cause, why)."""
    found = {}
    rows = reference.indices if reference.available else np.arange(min(len(where), MAX_REFERENCE_POINTS))
    for r, index in enumerate(rows):
        moved = replace(problem, point=problem.split(where.flat[index]))
        events = moved.events()
        if events:
            event = events[0]
            if event.kind == "kink":
                found[r] = (KINK, f"non-differentiable point: {event.function}: {event.text}")
            else:
                found[r] = (DOMAIN, event.text)
    return found


def _judge(summary: MethodSummary, reference: EntriesReference, special: dict, count: int, labels: list):
    """The verdict by the one policy (:func:`~diffcompare.judge.policy.decide`), after what
    keeps a method from being judged at all."""
    estimate = summary.estimate
    every_point_special = special and len(special) == (reference.indices.size or min(count, MAX_REFERENCE_POINTS))
    if every_point_special and estimate.status in (OK, FAILED):
        cause, why = next(iter(special.values()))
        summary.judgement = Verdict(NOT_JUDGED, cause, detail=why)
        return
    if estimate.status != OK:
        summary.judgement = Verdict(estimate.status, METHOD_STATUS, detail=estimate.reason)
        return
    if not reference.available:
        summary.judgement = Verdict(NOT_JUDGED, NO_REFERENCE, detail=reference.reason or "")
        return
    if summary.tolerance is None:
        summary.judgement = Verdict(NOT_JUDGED, NO_BAND)
        return
    judged = ~np.isnan(reference.high)      # beyond binary64 (inf) is a value too: the right answer is ±inf
    for row in special:
        judged[row] = False
    untrusted = judged & (reference.trusted < MIN_TRUSTED_DIGITS)
    judged &= ~untrusted
    if untrusted.any() and not judged.any():
        summary.judgement = Verdict(NOT_JUDGED, REFERENCE_UNCERTAIN, {"untrusted": int(untrusted.sum())},
                                    f"the reference is trusted to fewer than {MIN_TRUSTED_DIGITS} digits at "
                                    f"{int(untrusted.sum())} entries (two working precisions disagree)")
        return
    slack = np.abs(np.nan_to_num(reference.high)) * 10.0 ** -reference.trusted.astype(float)
    values = estimate.values.reshape(estimate.values.shape[0], -1)[reference.indices]
    verdict = decide(summary.abs_error, summary.tolerance + slack, reference.high, values, labels,
                     rows=reference.indices if count > 1 else None, judged=judged, source=summary.band_source,
                     skipped=len(special))
    if verdict.outcome == NOT_JUDGED and verdict.cause == NO_REFERENCE and special:
        cause, why = next(iter(special.values()))
        verdict = Verdict(NOT_JUDGED, cause, verdict.numbers, why)
    summary.judgement = verdict
