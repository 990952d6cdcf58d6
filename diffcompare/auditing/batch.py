"""One unit of an audit's work: a batch of a case's points, run through autograd, gradcheck's
finite differences and the exact reference, each point classified; and the merging of a
case's batches."""

from __future__ import annotations

import math
import os
import threading
import time
import zlib
from contextlib import contextmanager
from dataclasses import dataclass, replace

import numpy as np

from diffcompare.auditing.classify import classify
from diffcompare.auditing.engines import ENGINES
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
from diffcompare.auditing.evaluate import (
    f_raised,
    f_values,
    first_line,
    gradcheck_differences,
    judged_values,
    plain,
    special_points,
)
from diffcompare.auditing.points import audit_points
from diffcompare.auditing.results import (BAD_INPUT, apart, INTERNAL, INTERNAL_ERROR, LATER_BATCH, ROUNDING_LOSS, TIMED_OUT,
                                         UNDEFINED, UNIT_TIMED_OUT, WRONG, CaseResult, PointResult, finding)
from diffcompare.auditing.modules import in_folder
from diffcompare.auditing.suite import Case, load_function, resolve
from diffcompare.auditing.summary import summarise
from diffcompare.autograd.quiet import quietly
from diffcompare.judge.points import EPS, judge_points
from diffcompare.judge.reference import entries_reference, numerical_entries_reference
from diffcompare.judge.accuracy import FLOOR_ULPS, NO_FORMULA_ULPS, backward_extreme
from diffcompare.judge.reference import EntriesReference
from diffcompare.judge.verdicts import DOMAIN, F_RAISED, FAIL, NO_REFERENCE, NOT_JUDGED, RAISED, Verdict
from diffcompare.judge.verdicts import KINK as KINK_CAUSE
from diffcompare.language.expression import parse
from diffcompare.methods.budget import TimedOut, time_limit
from diffcompare.methods.symbolic import DEFAULT_TIMEOUT, differentiate
from diffcompare.methods.torch_autograd import output_shape
from diffcompare.problem.errors import InputError, ShapeMismatch
from diffcompare.problem.problem import make_problem
from diffcompare.problem.tasks import make_task
from diffcompare.problem.usercode import message

BATCH = 256                     # points per unit of work (fixed, so schedules cannot change results)
DEFAULT_RANDOM = 10
SYMBOLIC_TIMEOUT = DEFAULT_TIMEOUT
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


_ONE_AT_A_TIME = threading.RLock()


def _new_lock():
    """A child forked while another thread held the lock starts with a free one."""
    global _ONE_AT_A_TIME
    _ONE_AT_A_TIME = threading.RLock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_new_lock)


class UserExit(BaseException):
    """User code called ``os._exit`` while the audit ran it."""


def run_batch(index: int, case: Case, start: int, settings: dict, in_worker: bool = False) -> Batch:
    """The audit of points ``start`` .. ``start + BATCH`` of ``case`` (its first call
    also tells how many points there are). User code runs here: if it exits
    (``sys.exit``, any ``BaseException``; in this process, ``os._exit`` too) or runs past
    the audit's time budget (``settings["deadline"]``, wall-clock time shared by every
    worker), the case says so; the audit goes on, and never reads that as a pass. In a
    supervised worker (``in_worker``) nothing is patched: an ``os._exit`` ends the worker,
    and its supervisor reports the case (:mod:`diffcompare.auditing.workers`)."""
    deadline = settings.get("deadline")
    left = None if deadline is None else deadline - time.time()
    try:
        if left is not None and left <= 0:
            raise TimedOut(settings.get("timeout"))
        # mpmath's working precision is one global setting: two threads of one process (a
        # threaded Dask worker) computing references at once would change each other's
        # (and the folder's modules are the ones the case's imports find: one folder at a time too)
        with _ONE_AT_A_TIME, _exits_refused(not in_worker), in_folder(case.search_path), time_limit(left):
            return quietly(_run_batch, index, case, start, settings)
    except TimedOut:
        result = CaseResult(case.name, case.source, case.kind, case.dtype, settings.get("engine", "diffcompare"),
                            "undecided", [finding(TIMED_OUT, timeout=settings.get("timeout"), first=start,
                                                                  last=start + BATCH - 1)])
        return Batch(index, start, 0, result)
    except KeyboardInterrupt:
        raise
    except (UserExit, SystemExit) as exit:
        how = "os._exit" if isinstance(exit, UserExit) else "sys.exit"
        code = exit.args[0] if exit.args else 0
        return Batch(index, start, 0, _bad(_result(case, settings), f"the function called {how}({code!r}) while "
                                                                    f"the audit ran it: a function that exits cannot "
                                                                    f"be audited"))
    except Exception as error:              # escaped everything that runs user code: diffcompare's own failure
        result = _result(case, settings)
        result.status, result.error = "internal", _internal(error)
        result.findings = [finding(INTERNAL_ERROR, error=result.error)]
        return Batch(index, start, 0, result)
    except BaseException as error:          # noqa: BLE001  (user code may raise anything)
        return Batch(index, start, 0, _bad(_result(case, settings), f"the function raised {message(error)} (a "
                                                                    f"BaseException, not an Exception)"))


@contextmanager
def _exits_refused(refuse: bool):
    """In the process that called the audit (``assert_gradients`` in a test), an ``os._exit``
    in user code raises instead of ending that process; a child it forked exits for real
    (it must never go on running its parent's code)."""
    if not refuse:
        yield
        return
    real_exit, me = os._exit, os.getpid()

    def refuse_exit(code=0):
        if os.getpid() != me:
            real_exit(code)
        raise UserExit(code)
    os._exit = refuse_exit
    try:
        yield
    finally:
        os._exit = real_exit


def unit_failed(index: int, case: Case, start: int, settings: dict, how: str, why: str) -> Batch:
    """The batch of a unit that could not finish: its worker crashed (the case is an error,
    with the cause) or ran out of time (undecided)."""
    result = _result(case, settings)
    if how == "timed out":
        result.status, result.findings = "undecided", [finding(UNIT_TIMED_OUT, why=why)]
    else:
        result.status, result.error, result.findings = "error", why, [finding(BAD_INPUT, why=why)]
    return Batch(index, start, 0, result)


def unit_timed_out(index: int, case: Case, start: int, settings: dict, budget: float | None, more: str = "") -> Batch:
    """The batch of a unit given up at a deadline: ``budget`` the seconds per batch
    (``--case-timeout``), or None for the whole audit's (``--timeout``)."""
    what = (f"its budget per batch of points (--case-timeout, {budget:g} s)" if budget is not None else
            f"the audit's time budget ({settings.get('timeout'):g} s)")
    return unit_failed(index, case, start, settings, "timed out",
                       f"timed out: {what} ran out before points {start} to {start + BATCH - 1} of this case were "
                       f"checked" + (f"; {more}" if more else ""))


def _internal(error) -> str:
    """An internal error's cause: its type, message and where in diffcompare it happened."""
    import traceback
    frames = [f for f in traceback.extract_tb(error.__traceback__) if "diffcompare" in f.filename]
    where = f" (at {frames[-1].filename.rsplit('diffcompare', 1)[-1].lstrip('/')}:{frames[-1].lineno})" if frames else ""
    return f"{type(error).__name__}: {first_line(error)}{where}"


def _result(case, settings):
    return CaseResult(case.name, case.source, case.kind, case.dtype, settings.get("engine", "diffcompare"), "pass", [],
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
        if ENGINES[engine].needs_shape:
            shape = output_shape(problem)
        task = make_task(problem, case.kind, shape=shape)
        reference_problem = problem
        if case.reference is not None:      # f's variables in f's order, whatever order the formula names them
            reference_problem = replace(problem, function=parse(case.reference), label=case.reference)
    except InputError as error:
        why = str(error)
        if isinstance(error, ShapeMismatch) and not case.shapes():
            why += ("\n  an array variable needs its shape: shape = { x = [n] } (or [rows, columns]), or explicit "
                    "points giving its values, at = [{ x = [1, 2, 3] }]")
        return Batch(index, start, 0, _bad(result, why))
    result.variables, result.entries = list(variables), task.entry_labels()
    random = settings.get("points")
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
    result.tolerance = _tolerance_said(case)
    if len(flat):
        try:
            _audit_points(result, case, problem, reference_problem, task, flat, origins, engine, settings, clock,
                          gradient)
        except InputError as error:         # f turned out not to be traceable by the engine
            return Batch(index, start, len(points), _bad(result, str(error)))
    result.seconds = clock.seconds
    return Batch(index, start, len(points), result)


def _tolerance_said(case) -> dict:
    """The band the gradient on trial is held to, as data for the report: the one accuracy
    model's, or the suite's own."""
    own = _own_band(case)
    if own is None:
        return {"model": True, "dtype": case.dtype,
                "source": f"the one accuracy model, in {case.dtype}: 4 ulp of each entry, and where a value lies farther, "
                          f"4 × (the rounding of SymPy's formula for the entry + the rounding along f's chain-rule "
                          f"paths) + 4 ulp at that point; a value outside it is re-run in the other precision, and an "
                          f"error that scales with ε is rounding, not a wrong rule; at a kink, the interval between "
                          f"the one-sided derivatives"}
    rtol, atol = own
    return {"rtol": rtol, "atol": atol,
            "source": f"the suite's own: rtol {rtol:.3g} × (|entry| + largest entry at the point) + atol {atol:.3g}"}


def _bad(result: CaseResult, why: str) -> CaseResult:
    result.status, result.error, result.findings = "error", why, [finding(BAD_INPUT, why=why.splitlines()[0])]
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
    timeout = settings.get("symbolic_timeout", SYMBOLIC_TIMEOUT)
    with clock("autograd"):
        autograd, autograd_errors = judged_values(problem, task, flat, dtype, engine, gradient, result.judged)
        # where f itself raises, the user's code failed there: not a wrong derivative
        raised = f_raised(problem, flat, list(autograd_errors), dtype, engine, gradient)
    with clock("fd"):
        fd, f_size = gradcheck_differences(problem, task, flat, dtype, engine)
    with clock("reference"):
        derivative, reference = _points_reference(result, problem, reference_problem, task, flat, timeout)
    labels = task.entry_labels()
    with clock("classify"):
        if reference.available:
            verdicts = judge_points(autograd, reference, reference_problem, task, flat, labels, derivative, dtype,
                                    failures=autograd_errors, own_band=_own_band(case),
                                    rerun=_rerun(problem, task, flat, engine, gradient, result.judged),
                                    timeout=timeout)
        else:
            verdicts = [Verdict(NOT_JUDGED, NO_REFERENCE, {}, reference.reason) if i not in autograd_errors else
                        Verdict(FAIL, RAISED, {}, autograd_errors[i]) for i in range(len(flat))]
            reference = _empty_reference(len(flat), task.size)
        for i, why in raised.items():
            verdicts[i] = Verdict(NOT_JUDGED, F_RAISED, {}, why)
        for i, row in enumerate(flat):
            result.points.append(_point_result(i, row, origins, labels, autograd, autograd_errors, fd, f_size,
                                               reference, verdicts[i], problem, task, dtype, gradient, result.judged))
    failing = [p for p in result.points if p.verdict == WRONG]
    if failing and ENGINES[engine].replays_nodes and task.kind != "hessian" and gradient is None:
        with clock("diagnosis"):
            # the largest finite error: an infinite one (1/0 in a backward) is a poor place to replay
            finite = [p for p in failing if p.autograd_error is not None and math.isfinite(p.autograd_error)]
            worst = max(finite or failing, key=lambda p: p.autograd_error if p.autograd_error is not None else 0.0)
            result.wrong_node = wrong_node(problem, task, worst)


def _points_reference(result, problem, reference_problem, task, flat, timeout) -> tuple:
    """(SymPy's derivative, the exact reference at the points): SymPy's, or where SymPy cannot
    follow f (a branch on the value) f's own quotients in high precision; what limits it is
    noted in ``result``."""
    derivative = differentiate(reference_problem, timeout, task)
    reference = entries_reference(derivative, flat, REFERENCE_DIGITS, _reference_budget(timeout, len(flat)),
                                  len(flat), reference_problem, task)
    if not reference.available and derivative.partials is None and not problem.has_arrays:
        numerical = numerical_entries_reference(reference_problem, flat, REFERENCE_DIGITS,
                                                _reference_budget(timeout, len(flat)),
                                                why=reference.reason.removeprefix("no reference: "), task=task)
        if numerical.available:
            result.notes.append(numerical.note)
            reference = numerical
    if not reference.available:
        result.notes.append(reference.reason)
    elif reference.note and reference.note not in result.notes and reference.source == "sympy":
        result.notes.append(reference.note)
    return derivative, reference


def _point_result(i, row, origins, labels, autograd, autograd_errors, fd, f_size, reference, verdict, problem, task,
                  dtype, gradient, judged) -> PointResult:
    """One point's result: the audit's verdict from the judge's, or an internal error there
    (diffcompare's own failure at one point: the others go on)."""
    point = {n: v.tolist() if np.ndim(v) else float(v) for n, v in problem.split(row).items()}
    try:
        code, cause, reason, gc, errors = classify(labels, autograd[i], fd[i], reference, i, verdict, dtype,
                                                   f_size[i], problem, point, judged)
        if code == WRONG and not np.isfinite(autograd[i]).all() and i not in autograd_errors \
                and task.kind == "gradient" and gradient is None:
            reason += _overflow(problem, point, dtype)
    except Exception as error:
        code, cause, reason, gc, errors = INTERNAL, "internal", _internal(error), "—", (None, None)
    reference_values = None if not reference.available or not reference.judgeable[i].any() else \
        plain(np.where(reference.interval[i], np.nan, reference.high[i]))
    return PointResult(origins[i], point, code, reason, gc, plain(autograd[i]), plain(fd[i]), reference_values,
                       *errors, cause=cause)


def _overflow(problem, point, dtype) -> str:
    """Why a gradient is nan or inf where f is differentiable, when every rule may be right:
    f's program must hold a magnitude beyond the dtype's range on the way (an adjoint of
    1e453, or a division by zero inside f), so the chain rule meets inf."""
    extreme = backward_extreme(replace(problem, point=point))
    if extreme is None or extreme <= np.finfo(dtype).max:
        return ""
    if math.isinf(extreme):
        return ("; f's program divides by zero on the way (an intermediate is infinite), so the chain rule meets "
                "inf whatever the rules: rewrite f so that no intermediate is infinite here")
    return (f"; f's program must hold magnitudes of {extreme:.2g} on the way (an intermediate or an adjoint), beyond "
            f"{dtype}'s range, so the chain rule meets inf whatever the rules: rewrite f so that none overflows")


REFERENCE_BUDGET_PER_POINT = 2.0    # seconds of reference per point of a batch, at least the symbolic budget


def _reference_budget(timeout, points):
    return None if timeout is None else max(timeout, REFERENCE_BUDGET_PER_POINT * points)


def _own_band(case):
    """A suite's own band (rtol, atol) when it sets one, else None: the model's."""
    if not case.tolerance:
        return None
    eps = EPS[case.dtype]
    return (case.tolerance.get("rtol", OWN_RTOL_ULPS * eps), case.tolerance.get("atol", float(np.finfo(case.dtype).tiny)))


OWN_RTOL_ULPS = 128     # a suite giving only atol keeps this many ε of rtol


def _rerun(problem, task, flat, engine, gradient, judged):
    """The precision re-run: the gradient on trial at some rows in another precision."""
    def again(rows, dtype):
        typed = flat[rows]
        if dtype == "float32":
            typed = typed.astype(np.float32).astype(np.float64)
        values, failures = judged_values(problem, task, typed, dtype, engine, gradient, judged)
        return values
    return again


def _empty_reference(rows, size):
    """A reference with no value anywhere (the classification reads its shape)."""
    empty = np.full((rows, size), np.nan)
    return EntriesReference(20, np.arange(rows), empty, np.zeros((rows, size)), np.zeros((rows, size), dtype=int))


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
    own = _own_band(case)
    u_dtype = EPS[dtype] / 2
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
        size = max(float(np.abs(u) @ np.abs(np.nan_to_num(f_at[i]))) for u, _ in pairs)
        # the band of uᵀJv: each entry of uᵀJ may err by NO_FORMULA_ULPS ulp (no formula is walked
        # for a function this large), and their sum along v adds its own rounding
        spread = np.array([float(np.abs(w) @ np.abs(v)) if w is not None else 0.0 for w, (_, v) in zip(weights, pairs)])
        if usable:
            high = np.array([[r.high[0, 0] for r in references]])
            reference = EntriesReference(REFERENCE_DIGITS, np.arange(1), high,
                                         np.array([[r.low[0, 0] for r in references]]),
                                         np.array([[r.trusted[0, 0] for r in references]]))
        else:
            reference = _empty_reference(1, len(labels))
        if i in special:
            reference = _empty_reference(1, len(labels))
        if own is None:
            band = NO_FORMULA_ULPS * u_dtype * spread + FLOOR_ULPS * np.spacing(np.abs(np.nan_to_num(
                reference.high[0])).astype(dtype)).astype(np.float64)
        else:
            band = own[0] * (spread + np.abs(np.nan_to_num(reference.high[0]))) + own[1]
        with clock("classify"):
            if not np.isfinite(f_at[i]).all():
                verdict = Verdict(NOT_JUDGED, DOMAIN, {}, "")
            else:
                verdict = _directional_verdict(failure, special.get(i), usable, values, reference, reference_problem,
                                               task, row, labels, dtype, band)
            verdict_code, cause, reason, gc, errors = classify(labels, values, fd, reference, 0, verdict, dtype, size,
                                                               problem, point, result.judged)
        if i in special:
            verdict_code, cause, reason = UNDEFINED, KINK_CAUSE, (f"a kink along the direction: {special[i]} (not "
                                                                  f"decided for a function of this many inputs)")
        if verdict_code == WRONG and not failure:
            with clock("diagnosis"):
                reason += _narrowed_down(problem, reference_problem, task, row, pairs, weights, values, reference,
                                         own, u_dtype, timeout, result.judged)
        result.points.append(PointResult(origins[i], point, verdict_code, reason, gc, plain(values), plain(fd),
                                         None if not usable else plain(reference.high[0]), *errors, cause=cause))


def _directional_verdict(failure, kink, usable, values, reference, reference_problem, task, row, labels, dtype,
                         band):
    """The verdict on uᵀJv at one point where f is finite: the gradient raised, a kink along
    the direction, no reference, or the one judge's."""
    if failure:
        return Verdict(FAIL, RAISED, {}, failure)
    if kink is not None:
        return Verdict(NOT_JUDGED, KINK_CAUSE, {}, kink)
    if not usable:
        return Verdict(NOT_JUDGED, NO_REFERENCE, {}, "")
    return judge_points(values[None, :], reference, reference_problem, task, row[None, :], labels, dtype=dtype,
                        band=band[None, :])[0]


def _narrowed_down(problem, reference_problem, task, row, pairs, weights, values, reference, own, u_dtype, timeout,
                   judged) -> str:
    """The wrong entries of uᵀJ along the worst direction, as the reason's addition ("" when
    none is found)."""
    k = int(np.nanargmax(np.abs(values - reference.high[0])))
    u, v = pairs[k]

    def bound(w_part, v_part, exact):
        spread_part = float(np.abs(w_part) @ np.abs(v_part))
        if own is not None:
            return own[0] * (spread_part + abs(exact)) + own[1]
        return NO_FORMULA_ULPS * u_dtype * spread_part + FLOOR_ULPS * np.spacing(abs(exact))
    found = narrow(reference_problem, task, row, u, v, weights[k], bound, timeout)
    if not found:
        return ""
    shown = "; ".join("∂(uᵀf)/∂{}: {} {}, exact {}".format(problem.input_labels[j], judged, *apart(w, e))
                      for j, w, e in found)
    return f"; narrowed down along direction {k + 1}: {shown}"


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
    if first.status in ("error", "internal") and not first.points or \
            (first.status == "undecided" and not first.points):
        return first            # bad input, an internal error, or the first batch ran out of time
    broken = [b.case for b in batches[1:] if b.case.status in ("internal", "error") and not b.case.points]
    case = replace(first, points=[p for b in batches for p in b.case.points],
                   notes=list(dict.fromkeys(n for b in batches for n in b.case.notes)),
                   output="".join(b.case.output for b in batches))
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
    if broken and case.status != "fail":    # a later batch failed (diffcompare, or the process running it)
        case.status, case.error = broken[0].status, broken[0].error
        case.findings = case.findings + [finding(LATER_BATCH, internal=broken[0].status == "internal",
                                                 error=broken[0].error)]
    late = [b.case.findings for b in batches[1:] if b.case.status == "undecided" and not b.case.points]
    if late and case.status != "fail":      # a later batch ran out of time: not everything was checked
        case.status, case.findings = "undecided", case.findings + late[0]
    return case
