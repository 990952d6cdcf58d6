"""One unit of an audit's work: a batch of a case's points, run through autograd, gradcheck's
finite differences and the exact reference, each point classified; and the merging of a
case's batches."""

from __future__ import annotations

import math
import time
import zlib
from contextlib import contextmanager
from dataclasses import dataclass, replace

import numpy as np

from diffcompare.auditing.classify import classify
from diffcompare.auditing.diagnose import wrong_node
from diffcompare.auditing.directional import (
    DIRECTIONS,
    MIN_TRUSTED,
    directional_difference,
    directional_reference,
    directions,
    is_directional,
    narrow,
)
from diffcompare.auditing.evaluate import f_values, gradcheck_differences, judged_values, plain, special_points
from diffcompare.auditing.points import audit_points
from diffcompare.auditing.precision import recheck_precision
from diffcompare.auditing.results import ROUNDING_LOSS, UNDEFINED, WRONG, CaseResult, PointResult
from diffcompare.auditing.suite import Case, load_function, resolve
from diffcompare.auditing.summary import summarise
from diffcompare.auditing.tolerance import tolerance, with_paths
from diffcompare.autograd.quiet import quietly
from diffcompare.judge.accuracy import backward_extreme
from diffcompare.judge.reference import entries_reference, numerical_entries_reference
from diffcompare.judge.verdicts import DOMAIN
from diffcompare.language.expression import parse
from diffcompare.methods.budget import TimedOut, time_limit
from diffcompare.methods.symbolic import differentiate
from diffcompare.methods.torch_autograd import output_shape
from diffcompare.problem.errors import InputError
from diffcompare.problem.problem import make_problem
from diffcompare.problem.tasks import make_task

BATCH = 256                     # points per unit of work (fixed, so schedules cannot change results)
DEFAULT_RANDOM = 10
SYMBOLIC_TIMEOUT = 10.0
REFERENCE_DIGITS = 20


@dataclass
class Batch:
    """What one unit of work returns: a case's points from ``start`` on, and how many
    points the case has in all."""
    index: int
    start: int
    total: int
    case: CaseResult


_POINTS: dict = {}          # the points of the case this process audits last
AUDIT_TIMEOUT = 600.0       # seconds for a whole audit: user code that hangs, or 10^6 points, stop there


class UserExit(BaseException):
    """User code called ``os._exit`` while the audit ran it."""


def run_batch(index: int, case: Case, start: int, settings: dict) -> Batch:
    """The audit of points ``start`` .. ``start + BATCH`` of ``case`` (its first call
    also tells how many points there are). User code runs here: if it exits
    (``sys.exit``, ``os._exit``, any ``BaseException``) or runs past the audit's time
    budget (``settings["deadline"]``, wall-clock time shared by every worker), the case
    says so; the audit goes on, and never reads that as a pass."""
    import os
    real_exit = os._exit

    def refuse_exit(code=0):
        raise UserExit(code)
    os._exit = refuse_exit
    deadline = settings.get("deadline")
    left = None if deadline is None else deadline - time.time()
    try:
        if left is not None and left <= 0:
            raise TimedOut(settings.get("timeout"))
        with time_limit(left):
            return quietly(_run_batch, index, case, start, settings)
    except TimedOut:
        result = CaseResult(case.name, case.source, case.check, case.dtype, settings.get("engine", "diffcompare"),
                            "undecided", f"timed out: the audit's time budget ({settings.get('timeout'):g} s) ran "
                                         f"out before points {start} to {start + BATCH - 1} of this case were "
                                         f"checked")
        return Batch(index, start, 0, result)
    except KeyboardInterrupt:
        raise
    except (UserExit, SystemExit) as exit:
        how = "os._exit" if isinstance(exit, UserExit) else "sys.exit"
        code = exit.args[0] if exit.args else 0
        return Batch(index, start, 0, _bad(_result(case, settings), f"the function called {how}({code!r}) while "
                                                                    f"the audit ran it: a function that exits cannot "
                                                                    f"be audited"))
    except BaseException as error:          # noqa: BLE001  (user code may raise anything)
        return Batch(index, start, 0, _bad(_result(case, settings), f"the function raised {type(error).__name__} "
                                                                    f"(a BaseException, not an Exception): {error}"))
    finally:
        os._exit = real_exit


def _result(case, settings):
    return CaseResult(case.name, case.source, case.check, case.dtype, settings.get("engine", "diffcompare"), "pass", "",
                      judged=case.judged)


def _run_batch(index, case, start, settings):
    clock = _Clock()
    engine = settings.get("engine", "diffcompare")
    result = _result(case, settings)
    if case.error:
        return Batch(index, start, 0, _bad(result, case.error))
    try:
        f, variables = resolve(case)
        gradient = None if case.gradient is None else load_function(case.gradient, case.search_path)
        nominal = {**case.centre(), **(case.at[0] if case.at else {})}
        problem = make_problem(f, {v: nominal[v] for v in variables}, label=case.source)
        shape = None
        if engine == "torch":
            shape = output_shape(problem)
        task = make_task(problem, case.check, shape=shape)
        reference_problem = problem
        if case.reference is not None:      # f's variables in f's order, whatever order the formula names them
            reference_problem = replace(problem, function=parse(case.reference), label=case.reference)
    except InputError as error:
        why = str(error)
        if "cannot be evaluated with these shapes" in why and not case.shapes():
            why += ("\n  an array variable needs its shape: shape = { x = [n] } (or [rows, columns]), or explicit "
                    "points giving its values, at = [{ x = [1, 2, 3] }]")
        return Batch(index, start, 0, _bad(result, why))
    result.variables, result.entries = list(variables), task.entry_labels()
    random = settings.get("random")
    random = random if random is not None else (case.random if case.random is not None else DEFAULT_RANDOM)
    with clock("points"):
        # kinks are looked for in the reference formula when there is one (f may be torch code); every
        # batch of a case needs the same points: built once per process, not once per batch
        key = (case.name, case.source, repr(case.domain), repr(case.shapes()), repr(case.at), case.reference, random,
               settings.get("seed", 0), case.dtype, settings.get("adversarial", True))
        points = _POINTS.get(key)
        if points is None:
            points = audit_points(reference_problem, case.domain, case.at, random, settings.get("seed", 0),
                                  case.dtype, settings.get("adversarial", True))
            _POINTS.clear()             # one case's points at a time: batches arrive case by case
            _POINTS[key] = points
    flat = points.flat[start:start + BATCH]
    origins = points.origins[start:start + BATCH]
    result.tolerance = tolerance(case)
    if len(flat):
        try:
            _audit_points(result, case, problem, reference_problem, task, flat, origins, engine, settings, clock,
                          gradient)
        except InputError as error:         # f turned out not to be traceable by the engine
            return Batch(index, start, len(points), _bad(result, str(error)))
    result.seconds = clock.seconds
    return Batch(index, start, len(points), result)


def _bad(result: CaseResult, why: str) -> CaseResult:
    result.status, result.error, result.verdict = "error", why, f"bad input: {why.splitlines()[0]}"
    return result


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


def _audit_points(result, case, problem, reference_problem, task, flat, origins, engine, settings, clock,
                  gradient=None):
    dtype = case.dtype
    if is_directional(task):
        return _audit_directions(result, case, problem, reference_problem, task, flat, origins, engine, settings,
                                 clock, gradient)
    with clock("autograd"):
        autograd, autograd_errors = judged_values(problem, task, flat, dtype, engine, gradient, result.judged)
    with clock("fd"):
        fd, f_size = gradcheck_differences(problem, task, flat, dtype, engine)
    with clock("reference"):
        derivative = differentiate(reference_problem, settings.get("symbolic_timeout", SYMBOLIC_TIMEOUT), task)
        reference = entries_reference(derivative, flat, REFERENCE_DIGITS, settings.get("symbolic_timeout",
                                                                                       SYMBOLIC_TIMEOUT), len(flat))
    if not reference.available and not problem.has_arrays:
        # SymPy cannot follow f (a branch on the value): mpmath differentiates f itself
        with clock("reference"):
            numerical = numerical_entries_reference(reference_problem, flat, REFERENCE_DIGITS,
                                                    settings.get("symbolic_timeout", SYMBOLIC_TIMEOUT),
                                                    why=reference.reason.removeprefix("no reference: "), task=task)
        if numerical.available:
            result.notes.append(numerical.note)
            reference = numerical
    if not reference.available:
        result.notes.append(reference.reason)
    with clock("classify"):
        undefined = set()
        special = special_points(problem, flat, engine)
        # f itself not finite in the dtype (y/y at 0, overflow): nothing there can be judged,
        # whatever SymPy's simplified f says (y/y is 1 to SymPy)
        with np.errstate(all="ignore"):
            f_at = f_values(problem, task, flat, dtype, engine)
        for i in np.flatnonzero(~np.isfinite(f_at).all(axis=1)):
            if int(i) not in special:
                special[int(i)] = f"f is not finite in {dtype} here (f = {f_at[i][~np.isfinite(f_at[i])][0]:g})"
                undefined.add(int(i))
        tol = result.tolerance
        for i, row in enumerate(flat):
            point = {n: v.tolist() if np.ndim(v) else float(v) for n, v in problem.split(row).items()}
            ref_high = reference.high[i] if reference.available else None
            ref_low = reference.low[i] if reference.available else None
            verdict, cause, reason, gc, errors = classify(
                task.entry_labels(), autograd[i], fd[i], ref_high, ref_low, special.get(i), autograd_errors.get(i),
                tol, dtype, f_size[i], problem, point, result.judged)
            if i in undefined:
                verdict, cause = UNDEFINED, DOMAIN
            if verdict == WRONG and not autograd_errors.get(i) and not np.isfinite(autograd[i]).all() \
                    and task.kind == "gradient" and gradient is None:
                extreme = backward_extreme(replace(problem, point=point))
                if extreme is not None and extreme > np.finfo(dtype).max:
                    # the rules are right; the numbers they must hold do not fit in the dtype
                    verdict, cause = ROUNDING_LOSS, "overflow"
                    reason = (f"{reason}; f's program must hold magnitudes of {extreme:.2g} on the way (an "
                              f"intermediate or an adjoint), beyond {dtype}'s range: the chain rule meets inf and "
                              f"gives nan or inf whatever the rules, as any engine following them would")
            if verdict == WRONG and not autograd_errors.get(i):
                widened = with_paths(tol, problem, task, point, dtype)
                if widened is not None:         # judged again by the rounding its terms allow
                    verdict, cause, reason, gc, errors = classify(
                        task.entry_labels(), autograd[i], fd[i], ref_high, ref_low, special.get(i), None,
                        widened, dtype, f_size[i], problem, point, result.judged)
            result.points.append(PointResult(origins[i], point, verdict, reason, gc, plain(autograd[i]),
                                             plain(fd[i]), None if ref_high is None else plain(ref_high),
                                             *errors, cause=cause))
    with clock("autograd"):
        recheck_precision(result, problem, task, engine, dtype, gradient)
    failing = [p for p in result.points if p.verdict == WRONG]
    if failing and engine == "diffcompare" and task.kind != "hessian" and gradient is None:
        with clock("diagnosis"):
            # the largest finite error: an infinite one (1/0 in a backward) is a poor place to replay
            finite = [p for p in failing if p.autograd_error is not None and math.isfinite(p.autograd_error)]
            worst = max(finite or failing, key=lambda p: p.autograd_error if p.autograd_error is not None else 0.0)
            result.wrong_node = wrong_node(problem, task, worst)


def _audit_directions(result, case, problem, reference_problem, task, flat, origins, engine, settings, clock,
                      gradient):
    """The audit of a derivative with too many entries to check one by one: uᵀJv along
    random directions at each point (see :mod:`diffcompare.auditing.directional`)."""
    dtype, timeout = case.dtype, settings.get("symbolic_timeout", SYMBOLIC_TIMEOUT)
    labels = [f"uᵀJv{k + 1}" for k in range(DIRECTIONS)]
    result.entries = labels
    note = (f"{task.size:,} entries: checked along {DIRECTIONS} random directions per point (uᵀJv against the "
            f"high-precision derivative of uᵀf(x + t v), and gradcheck's fast-mode difference along v); a failing "
            f"direction is narrowed down to the wrong entries of uᵀJ")
    if note not in result.notes:
        result.notes.append(note)
    with clock("classify"):
        special = special_points(problem, flat, engine)
        with np.errstate(all="ignore"):
            f_at = f_values(problem, task, flat, dtype, engine)
    tol = result.tolerance
    for i, row in enumerate(flat):
        point = {n: v.tolist() if np.ndim(v) else float(v) for n, v in problem.split(row).items()}
        pairs = directions(task, settings.get("seed", 0), zlib.crc32(row.tobytes()))   # the same on any worker
        with clock("autograd"):
            weights, failure = _weights(problem, task, row, pairs, dtype, engine, gradient, result.judged)
        values = np.array([w @ v if w is not None else np.nan for w, (_, v) in zip(weights, pairs)])
        with clock("fd"):
            fd = np.array([directional_difference(lambda rows: f_values(problem, task, rows, dtype, engine), row, u, v,
                                                  dtype) for u, v in pairs])
        with clock("reference"):
            references = [directional_reference(reference_problem, task, row, u, v, REFERENCE_DIGITS, timeout)
                          for u, v in pairs]
        usable = all(r.available and r.trusted[0, 0] >= MIN_TRUSTED for r in references)
        high = np.array([r.high[0, 0] for r in references]) if usable else None
        low = np.array([r.low[0, 0] for r in references]) if usable else None
        size = max(float(np.abs(u) @ np.abs(np.nan_to_num(f_at[i]))) for u, _ in pairs)
        # the rounding of uᵀJv itself: a sum of n products of the gradient's entries
        spread = np.array([float(np.abs(w) @ np.abs(v)) if w is not None else 0.0 for w, (_, v) in zip(weights, pairs)])
        widened = {**tol, "atol": tol["atol"] + tol["rtol"] * spread}
        with clock("classify"):
            verdict, cause, reason, gc, errors = classify(labels, values, fd, high, low, special.get(i), failure, widened,
                                                          dtype, size, problem, point, result.judged)
        if i in special or not np.isfinite(f_at[i]).all():
            if i not in special:
                verdict, cause = UNDEFINED, DOMAIN
                reason = f"f is not finite in {dtype} here"
        if verdict == WRONG and not failure:
            with clock("diagnosis"):
                k = int(np.nanargmax(np.abs(values - high)))
                u, v = pairs[k]

                def bound(w_part, v_part, exact):
                    return tol["rtol"] * (float(np.abs(w_part) @ np.abs(v_part)) + abs(exact)) + tol["atol"]
                found = narrow(reference_problem, task, row, u, v, weights[k], bound, timeout)
                if found:
                    shown = "; ".join(f"∂(uᵀf)/∂{problem.input_labels[j]}: {result.judged} {w:.6g}, exact "
                                      + (f"{e:.6g}" if e is not None else "unknown") for j, w, e in found)
                    reason += f"; narrowed down along direction {k + 1}: {shown}"
        result.points.append(PointResult(origins[i], point, verdict, reason, gc, plain(values), plain(fd),
                                         None if high is None else plain(high), *errors, cause=cause))


def _weights(problem, task, row, pairs, dtype, engine, gradient, judged):
    """uᵀJ for each direction from the gradient on trial, and why it failed (or "")."""
    if task.kind == "gradient" or gradient is not None:
        values, failures = judged_values(problem, task, row[None, :], dtype, engine, gradient, judged)
        if failures:
            return [None] * len(pairs), failures[0]
        jacobian = values.reshape(task.m, task.n)
        return [u @ jacobian for u, _ in pairs], ""
    out = []
    for u, _ in pairs:
        vjp = make_task(problem, "vjp", u, shape=task.output_shape)
        values, failures = judged_values(problem, vjp, row[None, :], dtype, engine)
        if failures:
            return [None] * len(pairs), failures[0]
        out.append(values.reshape(-1))
    return out, ""


def merge(batches: list) -> CaseResult:
    """One case's result from its batches (in order of their first point)."""
    batches = sorted(batches, key=lambda b: b.start)
    first = batches[0].case
    if first.status == "error" or (first.status == "undecided" and not first.points):
        return first            # bad input, or the first batch ran out of time
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
    late = [b.case.verdict for b in batches[1:] if b.case.status == "undecided" and not b.case.points]
    if late and case.status != "fail":      # a later batch ran out of time: not everything was checked
        case.status, case.verdict = "undecided", f"{case.verdict}; {late[0]}"
    return case
