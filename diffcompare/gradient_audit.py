"""Gradient audits: is autograd's gradient right, at every point that matters?

A gradient checker (PyTorch's gradcheck, JAX's check_grads, SciPy's check_grad)
compares autograd with finite differences only: when the two disagree nobody knows
which one is wrong, and float32 or a kink raise false alarms. An audit measures both
against the exact reference (SymPy's derivative evaluated by mpmath at the exact point)
and so can say, point by point, which method is wrong and why:

- **autograd vs the reference** — the verdict on the gradient, against a tolerance
  derived from the dtype's ε and the size of the entries (or the case's own);
- **FD vs the reference** — whether the finite differences were trustworthy there
  (gradcheck's own central differences, h = 1e-6 in the case's dtype, held to
  gradcheck's own tolerance); if not, why: float32 rounding, cancellation, a kink
  inside the stencil, or truncation;
- **autograd vs FD** — what a plain gradcheck would have said.

A wrong gradient names the node whose backward rule is wrong (the check of
:func:`diffcompare.backward_pass.explain`). Cases run in parallel processes
(``jobs``) or on a Dask cluster (``scheduler``), in batches of points whose results do
not depend on how they were scheduled.

>>> from diffcompare.audit_suite import Case
>>> report = run_cases([Case("smooth", expression="sin(x) * exp(y)", domain={"x": (-2, 2), "y": (-1, 1)})],
...                    random=5)
>>> case = report.cases[0]
>>> case.status, case.counts["all agree"] == len(case.points), report.exit_status
('pass', True, 0)
"""

from __future__ import annotations

import math
import time
from contextlib import contextmanager
from dataclasses import dataclass, field, replace

import numpy as np

from .audit_points import audit_points
from .audit_suite import Case, make_case, resolve
from .autograd.quiet import quietly
from .comparison import Report
from .problem import InputError, make_problem

# torch.autograd.gradcheck's defaults: the plain check an audit reports beside its own
GRADCHECK_EPS, GRADCHECK_ATOL, GRADCHECK_RTOL = 1e-6, 1e-5, 1e-3
TOLERANCE_ULPS = 128            # ε's allowed to autograd: rounding in a few hundred operations
BATCH = 256                     # points per unit of work (fixed, so schedules cannot change results)
EPS = {"float64": float(np.finfo(np.float64).eps), "float32": float(np.finfo(np.float32).eps)}
TINY_NORMAL = {"float64": float(np.finfo(np.float64).tiny), "float32": float(np.finfo(np.float32).tiny)}
DEFAULT_RANDOM = 10
SYMBOLIC_TIMEOUT = 10.0
REFERENCE_DIGITS = 20

AGREE = "all agree"
WRONG = "autograd is wrong"
FD_UNRELIABLE = "FD is unreliable here"
NONDIFF = "non-differentiable point: disagreement expected"
UNDEFINED = "undefined here"
ROUNDING_LOSS = "autograd loses accuracy to rounding"
UNVERIFIED = "autograd and FD agree (no exact reference)"
DISAGREE = "autograd and FD disagree (no exact reference)"
VERDICTS = (AGREE, WRONG, FD_UNRELIABLE, NONDIFF, UNDEFINED, ROUNDING_LOSS, UNVERIFIED, DISAGREE)
FAILING = (WRONG, DISAGREE)


@dataclass
class PointResult:
    """One point of one case: each method's entries, the verdict and why."""
    origin: str
    point: dict
    verdict: str
    reason: str
    gradcheck: str                  # what a plain gradcheck would have said: "pass", "fail", "—"
    autograd: list
    fd: list
    reference: list                 # nearest binary64 of the exact entries (None where undefined)
    autograd_error: float | None = None     # largest |autograd - exact| / |exact| over the entries
    fd_error: float | None = None


@dataclass
class CaseResult:
    name: str
    source: str
    check: str
    dtype: str
    engine: str
    status: str                     # "pass", "fail" or "error" (bad input)
    verdict: str
    error: str = ""
    variables: list = field(default_factory=list)
    entries: list = field(default_factory=list)
    tolerance: dict = field(default_factory=dict)
    points: list = field(default_factory=list)
    counts: dict = field(default_factory=dict)
    gradcheck: dict = field(default_factory=dict)   # false alarms / misses of the plain check
    worst: dict = field(default_factory=dict)       # method -> the worst point and entry
    wrong_node: str = ""
    notes: list = field(default_factory=list)
    seconds: dict = field(default_factory=dict)     # where the time went (not part of the result)


@dataclass
class AuditReport(Report):
    """Every case's result; ``exit_status`` 0 when all pass, 1 when a gradient is wrong,
    2 when a case could not be run (bad input)."""
    cases: list
    settings: dict = field(default_factory=dict)
    seconds: dict = field(default_factory=dict)
    _renderer = "render_audit"

    @property
    def methods(self):
        return []

    @property
    def exit_status(self) -> int:
        statuses = {c.status for c in self.cases}
        return 2 if "error" in statuses else (1 if "fail" in statuses else 0)

    def case(self, name: str) -> CaseResult:
        for c in self.cases:
            if c.name == name:
                return c
        raise KeyError(name)

    def verdicts(self) -> str:
        """One line per case: name, status and verdict; then the exit status."""
        lines = [f"{c.name}: {c.status} — {c.verdict}" for c in self.cases]
        return "\n".join(lines + [f"exit status {self.exit_status}"])

    @classmethod
    def from_dict(cls, data: dict) -> "AuditReport":
        """The report back from its JSON form (:meth:`to_dict`)."""
        from .render_audit import from_plain
        cases = []
        for c in data["cases"]:
            c = dict(c)
            c["points"] = [PointResult(**{k: from_plain(v) for k, v in p.items()}) for p in c["points"]]
            cases.append(CaseResult(**{k: (from_plain(v) if k != "points" else v) for k, v in c.items()}))
        return cls(cases, data.get("settings", {}), data.get("seconds", {}))


# -- one batch of points of one case ------------------------------------------------------------

@dataclass
class Batch:
    """What one unit of work returns: a case's points from ``start`` on, and how many
    points the case has in all."""
    index: int
    start: int
    total: int
    case: CaseResult


def run_batch(index: int, case: Case, start: int, settings: dict) -> Batch:
    """The audit of points ``start`` .. ``start + BATCH`` of ``case`` (its first call
    also tells how many points there are)."""
    return quietly(_run_batch, index, case, start, settings)


def _run_batch(index, case, start, settings):
    clock = _Clock()
    engine = settings.get("engine", "diffcompare")
    result = CaseResult(case.name, case.source, case.check, case.dtype, engine, "pass", "")
    if case.error:
        return Batch(index, start, 0, _bad(result, case.error))
    try:
        f, variables = resolve(case)
        nominal = {**{n: (lo + hi) / 2 for n, (lo, hi) in case.domain.items()}, **(case.at[0] if case.at else {})}
        problem = make_problem(f, {v: nominal[v] for v in variables}, label=case.source)
        from .kinds import make_task
        shape = None
        if engine == "torch":
            from .torch_world import output_shape      # registers the torch world too
            shape = output_shape(problem)
        task = make_task(problem, case.check, shape=shape)
        reference_problem = problem
        if case.reference is not None:      # f's variables in f's order, whatever order the formula names them
            from .expression import parse
            reference_problem = replace(problem, function=parse(case.reference), label=case.reference)
    except InputError as error:
        return Batch(index, start, 0, _bad(result, str(error)))
    result.variables, result.entries = list(variables), task.entry_labels()
    random = settings.get("random")
    random = random if random is not None else (case.random if case.random is not None else DEFAULT_RANDOM)
    with clock("points"):
        # kinks are looked for in the reference formula when there is one (f may be torch code)
        points = audit_points(reference_problem, case.domain, case.at, random, settings.get("seed", 0), case.dtype,
                              settings.get("adversarial", True))
    flat = points.flat[start:start + BATCH]
    origins = points.origins[start:start + BATCH]
    result.tolerance = tolerance(case)
    if len(flat):
        _audit_points(result, case, problem, reference_problem, task, flat, origins, engine, settings, clock)
    result.seconds = clock.seconds
    return Batch(index, start, len(points), result)


def _bad(result: CaseResult, why: str) -> CaseResult:
    result.status, result.error, result.verdict = "error", why, f"bad input: {why.splitlines()[0]}"
    return result


def tolerance(case: Case) -> dict:
    """autograd's tolerance against the reference: |autograd - exact| ≤ rtol × (|entry| +
    largest entry at the point) + atol, with where each number came from."""
    eps = EPS[case.dtype]
    rtol = case.tolerance.get("rtol", TOLERANCE_ULPS * eps)
    atol = case.tolerance.get("atol", TINY_NORMAL[case.dtype])
    rtol_from = "the suite" if "rtol" in case.tolerance else f"{TOLERANCE_ULPS} ε({case.dtype}), ε = {eps:.3g}"
    atol_from = "the suite" if "atol" in case.tolerance else f"the smallest normal {case.dtype}"
    return {"rtol": rtol, "atol": atol,
            "source": f"rtol {rtol:.3g} ({rtol_from}) × (|entry| + largest entry at the point) + atol {atol:.3g} "
                      f"({atol_from})"}


def autograd_bound(reference, rtol: float, atol: float) -> np.ndarray:
    """The largest |autograd - exact| allowed per entry: rtol × (|entry| + largest entry
    at the point) + atol (see :func:`tolerance`)."""
    magnitude = np.abs(reference)
    return rtol * (magnitude + magnitude.max()) + atol


class _Clock:
    """Seconds per stage: the methods (autograd, fd, reference) against the machinery."""

    def __init__(self):
        self.seconds = {}

    @contextmanager
    def __call__(self, stage):
        start = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[stage] = self.seconds.get(stage, 0.0) + time.perf_counter() - start


def _audit_points(result, case, problem, reference_problem, task, flat, origins, engine, settings, clock):
    dtype = case.dtype
    with clock("autograd"):
        autograd, autograd_errors = _autograd(problem, task, flat, dtype, engine)
    with clock("fd"):
        fd, f_size = _gradcheck_differences(problem, task, flat, dtype, engine)
    with clock("reference"):
        from .reference import entries_reference
        from .symbolic import differentiate
        derivative = differentiate(reference_problem, settings.get("symbolic_timeout", SYMBOLIC_TIMEOUT), task)
        reference = entries_reference(derivative, flat, REFERENCE_DIGITS, settings.get("symbolic_timeout",
                                                                                       SYMBOLIC_TIMEOUT), len(flat))
    if not reference.available:
        result.notes.append(reference.reason)
    with clock("classify"):
        special = _special(problem, flat, engine)
        tol = result.tolerance
        for i, row in enumerate(flat):
            point = dict(zip(problem.variables, map(float, row)))
            ref_high = reference.high[i] if reference.available else None
            ref_low = reference.low[i] if reference.available else None
            verdict, reason, gc, errors = _classify(
                task.entry_labels(), autograd[i], fd[i], ref_high, ref_low, special.get(i), autograd_errors.get(i),
                tol, dtype, f_size[i], problem, point)
            result.points.append(PointResult(origins[i], point, verdict, reason, gc, _plain(autograd[i]),
                                             _plain(fd[i]), None if ref_high is None else _plain(ref_high),
                                             *errors))
    with clock("autograd"):
        _recheck_precision(result, problem, task, engine, dtype)
    failing = [p for p in result.points if p.verdict == WRONG]
    if failing and engine == "diffcompare" and task.kind != "hessian":
        with clock("diagnosis"):
            # the largest finite error: an infinite one (1/0 in a backward) is a poor place to replay
            finite = [p for p in failing if p.autograd_error is not None and math.isfinite(p.autograd_error)]
            worst = max(finite or failing, key=lambda p: p.autograd_error if p.autograd_error is not None else 0.0)
            result.wrong_node = _wrong_node(problem, task, worst)


def _plain(values):
    return [None if v is None or not np.isfinite(v) else float(v) for v in np.ravel(values)]


def _autograd(problem, task, flat, dtype, engine):
    """(values (points, entries), {row: why autograd failed there})."""
    from .derivatives import _one_autograd, vectorisable
    if engine == "torch":
        from .torch_world import torch_autograd

        def one(row):
            return torch_autograd(problem, task, row[None, :], dtype).reshape(1, -1)
    else:
        def one(row):
            return _one_autograd(problem, task, row[None, :], False, dtype).reshape(1, -1)
    if engine != "torch" and vectorisable(problem) and len(flat) > 1:
        try:
            return _one_autograd(problem, task, flat, True, dtype).reshape(len(flat), -1).astype(np.float64), {}
        except Exception:
            pass                    # some point raises: find out which, one at a time
    values, failures = np.full((len(flat), task.size), np.nan), {}
    for i, row in enumerate(flat):
        try:
            values[i] = one(row)
        except Exception as error:   # a user's backward may raise anything
            failures[i] = f"autograd raised {type(error).__name__}: {_first_line(error)}"
    return values, failures


def _first_line(error):
    lines = str(error).strip().splitlines()
    return lines[0] if lines else ""


def _f_values(problem, task, flat, dtype, engine):
    """f at the rows of ``flat`` computed in ``dtype``: (points, m), nan where f raises."""
    from .derivatives import outputs
    if engine == "torch":
        from .torch_world import _load
        torch = _load()
        out = np.full((len(flat), task.m), np.nan)
        with torch.no_grad():
            for i, row in enumerate(flat):
                values = {n: torch.tensor(np.asarray(v, dtype=dtype)) for n, v in problem.split(row).items()}
                try:
                    y = problem.evaluate("torch", values)
                    out[i] = np.ravel(y.double().numpy() if isinstance(y, torch.Tensor) else float(y))
                except Exception:
                    pass
        return out
    world = "numpy" if dtype == "float64" else "float32"
    moved = flat.astype(dtype)
    try:
        return outputs(problem, task, moved, world).astype(np.float64)
    except Exception:
        out = np.full((len(flat), task.m), np.nan)
        for i in range(len(flat)):
            try:
                out[i] = outputs(problem, task, moved[i:i + 1], world)[0]
            except Exception:
                pass
        return out


def _gradcheck_differences(problem, task, flat, dtype, engine):
    """gradcheck's numerical entries: (f(x + eps e_j) - f(x - eps e_j)) / 2 eps with
    x ± eps rounded to ``dtype`` as PyTorch does (for a Hessian, differences of autograd's
    gradient, as gradgradcheck). Also the size of f the differences saw, per point."""
    typed = flat.astype(dtype)
    eps = np.asarray(GRADCHECK_EPS, dtype=dtype)
    columns, sizes = [], np.zeros(len(flat))
    for j in range(flat.shape[1]):
        plus, minus = typed.copy(), typed.copy()
        plus[:, j] = typed[:, j] + eps
        minus[:, j] = typed[:, j] - eps
        if task.kind == "hessian":
            gradient_task = replace(task, kind="gradient")
            high = _autograd(problem, gradient_task, plus.astype(np.float64), dtype, engine)[0]
            low = _autograd(problem, gradient_task, minus.astype(np.float64), dtype, engine)[0]
        else:
            high = _f_values(problem, task, plus.astype(np.float64), dtype, engine)
            low = _f_values(problem, task, minus.astype(np.float64), dtype, engine)
            sizes = np.fmax(sizes, np.nanmax(np.abs(np.concatenate([high, low], axis=1)), axis=1))
        columns.append((high - low) / (2 * GRADCHECK_EPS))
    entries = np.stack(columns, axis=-1)                    # (points, m, n): the Jacobian's columns
    if task.kind == "hessian":
        entries = np.swapaxes(entries, 1, 2)                 # column j of H is d(grad)/dx_j
    return entries.reshape(len(flat), -1), sizes


def _special(problem, flat, engine) -> dict:
    """Rows at kinks: row -> what the kink is. An elementwise expression is screened at
    every row at once; only the rows on a kink are evaluated again, one by one, for the text."""
    from .derivatives import vectorisable
    rows = range(len(flat))
    if vectorisable(problem) and len(flat) > 1:
        hits = np.zeros(len(flat), dtype=bool)

        def observe(row, args, result, column):
            if row.kink is not None:
                try:
                    hits[:] |= np.broadcast_to(np.asarray(row.kink(*args), dtype=bool), hits.shape)
                except (TypeError, ValueError):
                    hits[:] = True          # cannot tell: look at every row
        try:
            quietly(problem.evaluate, "numpy", dict(zip(problem.variables, flat.T)), observe)
            rows = np.flatnonzero(hits)
        except Exception:
            pass
    found = {}
    for i in rows:
        row = flat[i]
        moved = replace(problem, point=problem.split(row))
        for event in moved.events():
            if event.kind == "kink":
                args = ", ".join(f"{a:.6g}" for a in event.arguments)
                found[i] = f"{event.function}({args}): {event.text}"
                break
    return found


def _classify(labels, autograd, fd, ref_high, ref_low, kink, failure, tol, dtype, f_size, problem, point):
    """(verdict, reason, what gradcheck would say, (autograd error, FD error)) at one point."""
    gc_bound = GRADCHECK_ATOL + GRADCHECK_RTOL * np.abs(fd)
    with np.errstate(invalid="ignore", over="ignore"):
        gc_ok = bool(np.all(np.abs(autograd - fd) <= gc_bound))
    gc = "pass" if gc_ok else "fail"
    if kink is not None:
        return NONDIFF, kink, gc, (None, None)
    if failure:
        return WRONG, failure, gc, (math.inf, None)
    if ref_high is None:
        return (UNVERIFIED, "no exact reference: only autograd and FD could be compared", gc, (None, None)) if gc_ok \
            else (DISAGREE, _disagreement(labels, autograd, fd), gc, (None, None))
    if not np.all(np.isfinite(ref_high)):
        undefined = [labels[k] for k in range(len(labels)) if not np.isfinite(ref_high[k])]
        return UNDEFINED, f"the exact {undefined[0]} is undefined or infinite here", gc, (None, None)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        magnitude = np.abs(ref_high)
        ag_error = np.abs((autograd - ref_high) - ref_low)
        fd_error = np.abs((fd - ref_high) - ref_low)
        ag_bound = autograd_bound(ref_high, tol["rtol"], tol["atol"])
        ag_bad = ~(ag_error <= ag_bound)
        fd_bad = ~(fd_error <= GRADCHECK_ATOL + GRADCHECK_RTOL * magnitude)
        # errors relative to the largest entry at the point (a near-zero entry's own relative
        # error says nothing about the gradient)
        scale = magnitude.max() if magnitude.max() > 0 else 1.0
        errors = (_largest(ag_error / scale), _largest(fd_error / scale))
    if ag_bad.any():
        k = int(np.argmax(np.where(ag_bad, np.nan_to_num(ag_error / ag_bound, nan=np.inf), -1)))
        return WRONG, (f"{labels[k]}: autograd {_g(autograd[k])}, exact {_g(ref_high[k])}, FD {_g(fd[k])}; "
                       f"error {_g(ag_error[k], 2)} > tolerance {_g(ag_bound[k], 2)}"), gc, errors
    if fd_bad.any():
        k = int(np.argmax(np.where(fd_bad, np.nan_to_num(fd_error, nan=np.inf), -1)))
        why = _fd_cause(labels[k], k, fd_error[k], magnitude[k], dtype, f_size, problem, point)
        return FD_UNRELIABLE, (f"{why}: {labels[k]} by FD {_g(fd[k])}, exact {_g(ref_high[k])} "
                               f"(autograd {_g(autograd[k])} is right)"), gc, errors
    return AGREE, "autograd, FD and the exact reference agree", gc, errors


def _largest(values):
    finite = values[np.isfinite(values)]
    if finite.size < values.size:
        return math.inf
    return float(finite.max()) if finite.size else None


def _g(v, digits=6):
    return f"{float(v):.{digits}g}"


def _disagreement(labels, autograd, fd):
    with np.errstate(invalid="ignore"):
        k = int(np.nanargmax(np.abs(autograd - fd))) if np.isfinite(autograd - fd).any() else 0
    return f"{labels[k]}: autograd {_g(autograd[k])}, FD {_g(fd[k])}, and no exact reference to say which is wrong"


def _fd_cause(label, k, error, magnitude, dtype, f_size, problem, point):
    """Why gradcheck's differences missed: a kink inside the stencil, rounding (float32,
    or f large against its change over h), or truncation."""
    from .finite_differences import stencil_crossing
    names = problem.variables
    name = names[k % len(names)]
    moved = replace(problem, point={**problem.point, **point})
    crossing = stencil_crossing(moved, "central", name, GRADCHECK_EPS)
    if crossing:
        return f"kink: {crossing}"
    eps = EPS[dtype]
    # f is rounded to ε|f| at both ends, and x ± h to ε max(1, |x|) in the input's dtype
    rounding = eps * f_size / GRADCHECK_EPS + eps * max(1.0, abs(point[name])) / GRADCHECK_EPS * magnitude
    if rounding >= 0.25 * error:
        if dtype == "float32":
            return f"float32 rounding (ε|f|/h ≈ {rounding:.2g} with h = {GRADCHECK_EPS:g})"
        return f"cancellation (|f| ≈ {f_size:.3g} is large against its change over h = {GRADCHECK_EPS:g}: " \
               f"rounding ≈ {rounding:.2g})"
    return f"truncation (f is not close to linear over h = {GRADCHECK_EPS:g})"


# float32 error / float64 error beyond which an error is rounding: ε(float32)/ε(float64) is 5.4e8,
# and a rule wrong by δ relative has a ratio of about 1 + 1.2e-7/δ (so only δ < 1e-10 passes as rounding)
ROUNDING_RATIO = 1e3


def _recheck_precision(result, problem, task, engine, dtype):
    """Points where autograd misses its tolerance: is a rule wrong, or did rounding lose
    the digits? The same rules in the other precision decide. A wrong rule errs the same
    in both; rounding error scales with ε. A float32 case is re-run in float64 (right
    there: rounding); a float64 case in float32 (an error over 1000 times larger there:
    rounding, as ε(float32)/ε(float64) = 5.4e8)."""
    suspects = [i for i, p in enumerate(result.points)
                if p.verdict == WRONG and p.autograd_error is not None and math.isfinite(p.autograd_error)]
    if not suspects:
        return
    other = "float64" if dtype == "float32" else "float32"
    flat = np.array([[result.points[i].point[n] for n in problem.variables] for i in suspects])
    if other == "float32":
        flat = flat.astype(np.float32).astype(np.float64)
    values, _ = _autograd(problem, task, flat, other, engine)
    rtol64, atol64 = TOLERANCE_ULPS * EPS["float64"], TINY_NORMAL["float64"]
    for i, row in zip(suspects, values):
        p = result.points[i]
        ref = np.array([np.nan if r is None else r for r in p.reference])
        mine = np.array([np.nan if a is None else a for a in p.autograd])
        with np.errstate(invalid="ignore"):
            there = np.abs(row - ref).max()
            here = np.abs(mine - ref).max()
            if other == "float64":
                rounding = bool(np.all(np.abs(row - ref) <= autograd_bound(ref, rtol64, atol64)))
            else:
                rounding = bool(there >= ROUNDING_RATIO * here)
        if rounding:
            p.verdict = ROUNDING_LOSS
            p.reason = (f"{p.reason.split(';')[0]}; in {other} the same rules err {there:.2g} against {here:.2g} "
                        f"here: the error scales with ε, so it is rounding (a cancellation in the formula), "
                        f"not a wrong rule")


def _wrong_node(problem, task, worst: PointResult) -> str:
    """The node whose backward rule is wrong, by explain's check at the worst point (for
    a Jacobian, walking back from the output row of the worst entry)."""
    from .backward_pass import explain
    vector = None
    if task.kind == "jacobian":
        errors = [abs(a - r) if a is not None and r is not None else math.inf
                  for a, r in zip(worst.autograd, worst.reference or [None] * len(worst.autograd))]
        row = int(np.argmax(errors)) // task.n
        vector = [1.0 if i == row else 0.0 for i in range(task.m)]
    f = problem.function.text if problem.is_text else problem.function
    try:
        walk = explain(f, worst.point, vector=vector, check=True)
    except Exception as error:      # the diagnosis must not hide the verdict
        return f"(the node check could not run: {type(error).__name__}: {_first_line(error)})"
    wrong = walk.first_wrong
    if wrong is None:
        return "(no single backward rule is wrong on its own here: each node's rule checks out)"
    return f"step {wrong.number}, {wrong.name}: {wrong.detail}"


# -- merging batches into a case ----------------------------------------------------------------

def merge(batches: list) -> CaseResult:
    """One case's result from its batches (in order of their first point)."""
    batches = sorted(batches, key=lambda b: b.start)
    first = batches[0].case
    if first.status == "error":
        return first
    case = replace(first, points=[p for b in batches for p in b.case.points],
                   notes=list(dict.fromkeys(n for b in batches for n in b.case.notes)))
    seconds = {}
    for b in batches:
        for stage, s in b.case.seconds.items():
            seconds[stage] = seconds.get(stage, 0.0) + s
    case.seconds = seconds
    nodes = [(b.case.points, b.case.wrong_node) for b in batches if b.case.wrong_node]
    if nodes:
        # the node named at the batch holding the worst wrong point
        def worst_error(points):
            return max((p.autograd_error or 0.0) for p in points if p.verdict == WRONG)
        case.wrong_node = max(nodes, key=lambda pair: worst_error(pair[0]))[1]
    summarise(case)
    return case


def summarise(case: CaseResult):
    """Counts, worst points, the plain gradcheck's record and the verdict, from the points."""
    points = case.points
    case.counts = {v: sum(1 for p in points if p.verdict == v) for v in VERDICTS}
    case.gradcheck = {
        "false alarms": sum(1 for p in points if p.gradcheck == "fail" and p.verdict in (AGREE, FD_UNRELIABLE,
                                                                                        ROUNDING_LOSS)),
        "missed": sum(1 for p in points if p.gradcheck == "pass" and p.verdict == WRONG),
    }
    case.worst = {}
    for method, attribute in (("autograd", "autograd_error"), ("fd", "fd_error")):
        judged = [p for p in points if getattr(p, attribute) is not None]
        if judged:
            p = max(judged, key=lambda q: getattr(q, attribute))
            case.worst[method] = {"relative_error": getattr(p, attribute), "point": p.point, "origin": p.origin}
    failing = [p for p in points if p.verdict in FAILING]
    total = len(points)
    if failing:
        case.status = "fail"
        worst = max(failing, key=lambda p: p.autograd_error if p.autograd_error is not None else math.inf)
        what = WRONG if any(p.verdict == WRONG for p in failing) else DISAGREE
        case.verdict = f"{what} at {len(failing)} of {total} points; worst at {format_point(worst.point)}: {worst.reason}"
        return
    case.status = "pass"
    parts = [f"all agree at {case.counts[AGREE]} of {total} points" if case.counts[AGREE] else
             f"no point where all three could be compared ({total} points)"]
    if case.counts[ROUNDING_LOSS]:
        parts.append(f"autograd loses accuracy to rounding at {case.counts[ROUNDING_LOSS]} (not a wrong rule: "
                     f"the error scales with the precision)")
    if case.counts[FD_UNRELIABLE]:
        causes = {}
        for p in points:
            if p.verdict == FD_UNRELIABLE:
                cause = p.reason.split(" (")[0].split(":")[0]
                causes[cause] = causes.get(cause, 0) + 1
        parts.append(f"FD is unreliable at {case.counts[FD_UNRELIABLE]} (" +
                     ", ".join(f"{c} ×{n}" for c, n in causes.items()) + ")")
    if case.counts[NONDIFF]:
        parts.append(f"{case.counts[NONDIFF]} non-differentiable point{'s' * (case.counts[NONDIFF] != 1)}: "
                     f"disagreement expected")
    if case.counts[UNDEFINED]:
        parts.append(f"undefined at {case.counts[UNDEFINED]}")
    if case.counts[UNVERIFIED]:
        parts.append(f"no exact reference at {case.counts[UNVERIFIED]}: autograd and FD agree there")
    if case.gradcheck["false alarms"]:
        parts.append(f"a plain gradcheck would have raised {case.gradcheck['false alarms']} false alarm"
                     f"{'s' * (case.gradcheck['false alarms'] != 1)}")
    case.verdict = "; ".join(parts)


def format_point(point: dict) -> str:
    """``x=-0.5, y=2``: the point as a user would type it (shortest round-trip digits)."""
    return ", ".join(f"{n}={v!r}" for n, v in point.items())


# -- running many cases -------------------------------------------------------------------------

def run_cases(cases: list, random: int | None = None, seed: int = 0, engine: str = "diffcompare", jobs: int = 1,
              scheduler: str | None = None, adversarial: bool = True, symbolic_timeout: float = SYMBOLIC_TIMEOUT,
              progress=None) -> AuditReport:
    """Audit ``cases`` (:class:`~diffcompare.audit_suite.Case`) and return the report.

    ``random``: random points per case (None: each case's own, else 10); ``seed``: their
    seed; ``engine``: "diffcompare" or "torch"; ``jobs``: processes on this machine;
    ``scheduler``: the address of a Dask scheduler instead; ``progress(done, total)``
    is called as batches finish.
    """
    from .audit_runners import runner
    if engine not in ("diffcompare", "torch"):
        raise InputError(f"unknown engine {engine!r}; choose diffcompare or torch")
    if engine == "torch":
        from .torch_world import available
        if not available():
            raise InputError("--engine torch needs PyTorch: pip install 'diffcompare[torch]' (torch==2.13.0)")
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise InputError(f"the seed must be an integer, not {seed!r}")
    if random is not None and (not isinstance(random, int) or isinstance(random, bool) or not 0 <= random <= 1_000_000):
        raise InputError(f"--points must be an integer from 0 to 1,000,000, not {random!r}")
    settings = {"random": random, "seed": seed, "engine": engine, "adversarial": adversarial,
                "symbolic_timeout": symbolic_timeout}
    start = time.perf_counter()
    with runner(jobs, scheduler) as run:
        batches = run(cases, settings, progress)
    by_case = {}
    for batch in batches:
        by_case.setdefault(batch.index, []).append(batch)
    results = [merge(by_case[i]) for i in range(len(cases))]
    shown = {k: v for k, v in settings.items() if k != "symbolic_timeout"}
    where = f"Dask scheduler {scheduler}" if scheduler else f"{jobs} process{'es' * (jobs != 1)}"
    return AuditReport(results, shown, {"wall": time.perf_counter() - start, "where": where})


def audit(fn, domain=None, points=None, check: str = "gradient", dtype: str = "float64", random: int = 0,
          seed: int = 0, adversarial: bool = True, tolerance: dict | None = None, reference: str | None = None,
          engine: str = "diffcompare", name: str | None = None) -> AuditReport:
    """Audit the gradient (or Jacobian, Hessian) of ``fn`` — expression text, a Python
    callable written with :mod:`diffcompare.functions`, an ``ag.Function`` subclass or
    "module:function" — over ``domain`` ({"x": (-2, 2)}) and at ``points`` (a mapping or a
    list of mappings). Returns the same :class:`AuditReport` as ``diffcompare audit``.

    >>> report = audit("x * abs(x)", domain={"x": (-1, 1)}, points=[{"x": 0.5}])
    >>> report.cases[0].status, report.cases[0].counts["non-differentiable point: disagreement expected"]
    ('pass', 1)
    """
    entry = {"check": check, "dtype": dtype}
    if isinstance(fn, str) and ":" not in fn:
        entry["expression"] = fn
    else:
        entry["function"] = fn
    if domain is not None:
        entry["domain"] = {k: list(v) for k, v in domain.items()}
    if points is not None:
        entry["at"] = [points] if isinstance(points, dict) else list(points)
    if tolerance:
        entry["tolerance"] = dict(tolerance)
    if reference is not None:
        entry["reference"] = reference
    label = name or (fn if isinstance(fn, str) else getattr(fn, "__name__", "f"))
    case = make_case(entry, label)
    return run_cases([case], random=random, seed=seed, engine=engine, adversarial=adversarial)

