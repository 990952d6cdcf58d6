"""An audit point's verdict: the one judge's verdict on the gradient on trial
(:func:`diffcompare.judge.points.judge_points`), what gradcheck's differences say beside it,
and — when those differences cannot be trusted there — why (float32 rounding,
cancellation, a kink inside the stencil, truncation)."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from diffcompare.auditing.evaluate import GRADCHECK_ATOL, GRADCHECK_EPS, GRADCHECK_RTOL
from diffcompare.auditing.results import (
    apart,
    distinct_digits,
    AGREE,
    DISAGREE,
    FD_CANCELLATION,
    FD_FLOAT32,
    FD_KINK,
    FD_TRUNCATION,
    FD_UNRELIABLE,
    F_RAISED_HERE,
    INCONCLUSIVE_HERE,
    NONDIFF,
    ROUNDING_LOSS,
    UNDEFINED,
    UNVERIFIED,
    WRONG,
)
from diffcompare.judge.points import EPS
from diffcompare.judge.verdicts import (
    DOMAIN,
    F_RAISED,
    FAIL,
    INCONCLUSIVE,
    NO_REFERENCE,
    PASS,
    RAISED,
    REFERENCE_UNCERTAIN,
    ROUNDING,
    SINGULAR,
)
from diffcompare.judge.report import finding_in_words as finding_text
from diffcompare.judge.report import in_words as verdict_reason
from diffcompare.methods.finite_differences import stencil_crossing

MAX_NAMED = 12          # wrong entries named in a reason


def classify(labels, judged_values, fd, reference, row, verdict, dtype, f_size, problem, point,
             judged: str = "autograd"):
    """(verdict, cause, reason, what gradcheck would say, (judged error, FD error)) at one
    point from the one judge's ``verdict`` there; gradcheck's differences are held to
    gradcheck's own tolerance, as gradcheck holds them."""
    gc_bound = GRADCHECK_ATOL + GRADCHECK_RTOL * np.abs(fd)
    with np.errstate(invalid="ignore", over="ignore"):
        gc_ok = bool(np.all(np.abs(judged_values - fd) <= gc_bound))
    gc = "pass" if gc_ok else "fail"
    high = reference.high[row]
    exact = np.where(reference.interval[row], np.clip(judged_values, reference.lower[row], reference.upper[row]), high)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        magnitude = reference.magnitude[row]
        scale = magnitude.max() if magnitude.size and magnitude.max() > 0 else 1.0
        errors = np.array(verdict.numbers.get("errors") or [math.nan] * len(labels), dtype=float)
        fd_error = np.abs(fd - exact)
        errors_shown = (_largest(errors / scale), _largest(fd_error / scale))
    cause = verdict.cause
    if cause == F_RAISED:
        return F_RAISED_HERE, F_RAISED, verdict.detail, "—", (None, None)
    if verdict.outcome == FAIL and cause == RAISED:
        return WRONG, RAISED, verdict.detail, gc, (math.inf, None)
    if verdict.outcome == FAIL:
        return WRONG, cause, _wrong(labels, judged_values, fd, exact, verdict, judged, reference, row), gc, \
            errors_shown
    found = verdict.numbers.get("finding")
    if verdict.outcome != PASS and found and found.get("kind") in ("undefined", "singular"):
        return UNDEFINED, cause, f"{verdict.numbers.get('entry', '')}: {finding_text(found)}", gc, (None, None)
    if verdict.incomplete:
        # a point asked for, where some entries could not be decided: it is not checked whole
        return UNDEFINED, cause, _incomplete(labels, reference, row), gc, errors_shown
    if cause in (DOMAIN, SINGULAR):
        why = verdict_reason(verdict) if cause == SINGULAR else \
            f"f is not finite in {dtype} here" + (f" ({verdict.detail})" if verdict.detail else "")
        return UNDEFINED, cause, why, gc, (None, None)
    if cause in (NO_REFERENCE, REFERENCE_UNCERTAIN) and verdict.outcome != PASS and reference.events.get(row):
        # no reference where f meets a kink or a singular point: FD and autograd disagreeing there says nothing
        event = reference.events[row][0]
        return UNDEFINED, cause, (f"no exact reference where f meets {event.function}'s special point "
                                  f"({event.text}): nothing to hold {judged} to"), gc, (None, None)
    if cause in (NO_REFERENCE, REFERENCE_UNCERTAIN) and verdict.outcome != PASS:
        code, why = _without_reference(labels, judged_values, fd, verdict, gc_ok, judged)
        return code, cause, why, gc, (None, None)
    if verdict.outcome == INCONCLUSIVE:
        return INCONCLUSIVE_HERE, cause, verdict_reason(verdict), gc, errors_shown
    if cause == ROUNDING:
        return ROUNDING_LOSS, ROUNDING, verdict_reason(verdict), gc, errors_shown
    code, cause, why = _passed(labels, judged_values, fd, fd_error, reference, row, magnitude, dtype, f_size,
                               problem, point, judged)
    return code, cause, why, gc, errors_shown


def _incomplete(labels, reference, row) -> str:
    """Why a point asked for is not checked whole: the entries that cannot be decided."""
    skipped = [(k, reference.findings.get((row, k))) for k in range(len(labels)) if not reference.judgeable[row, k]]
    said = "; ".join(f"{labels[k]}: {finding_text(f) if f is not None else 'no reference value'}"
                     for k, f in skipped[:MAX_NAMED])
    return (f"{len(skipped)} of {len(labels)} entries cannot be decided here ({said}); the others are within "
            f"their expected accuracy")


def _without_reference(labels, judged_values, fd, verdict, gc_ok, judged) -> tuple:
    """(verdict, reason) where no exact reference decides: the value on trial and FD agree,
    FD failed inside its stencil, or they disagree."""
    found = verdict.numbers.get("finding")
    if gc_ok:
        return UNVERIFIED, (f"no exact reference ({finding_text(found)})" if found else
                            f"no exact reference: only {judged} and FD could be compared")
    with np.errstate(invalid="ignore"):
        fd_lost = ~np.isfinite(fd) & np.isfinite(judged_values)
    if fd_lost.any():
        # FD is nan or inf where the value on trial is finite: f failed inside the stencil (it
        # raised, or left its domain), which says nothing about the value on trial
        k = int(np.flatnonzero(fd_lost)[0])
        return UNDEFINED, (f"no exact reference, and FD is {_g(fd[k])} for {labels[k]} here (f is not finite, "
                           f"or raised, inside its stencil): nothing to hold {judged} to")
    return DISAGREE, _disagreement(labels, judged_values, fd, judged)


def _passed(labels, judged_values, fd, fd_error, reference, row, magnitude, dtype, f_size, problem, point,
            judged) -> tuple:
    """(verdict, cause, reason) where the value on trial passed: a subgradient at a kink, FD
    unreliable (and why), or all agree."""
    high = reference.high[row]
    kinks = [k for k in range(len(labels)) if reference.interval[row, k]]
    if kinks:
        k = kinks[0]
        found = reference.findings.get((row, k))
        return NONDIFF, "kink", (f"{labels[k]}: {judged} {_g(judged_values[k])} is a right value here: "
                                 f"{finding_text(found)}")
    with np.errstate(invalid="ignore"):
        fd_bad = ~(fd_error <= GRADCHECK_ATOL + GRADCHECK_RTOL * magnitude)
    if fd_bad.any():
        k = int(np.argmax(np.where(fd_bad, np.nan_to_num(fd_error, nan=np.inf), -1)))
        fd_cause, why = _fd_cause(labels[k], k, fd_error[k], magnitude[k], dtype, f_size, problem, point)
        digits = distinct_digits(fd[k], high[k])         # what tells FD from the truth; the value on trial alike
        by_fd, exact, right = (_g(v, digits or 17) for v in (fd[k], high[k], judged_values[k]))
        return FD_UNRELIABLE, fd_cause, f"{why}: {labels[k]} by FD {by_fd}, exact {exact} ({judged} {right} is right)"
    return AGREE, "within", f"{judged}, FD and the exact reference agree"


def _wrong(labels, values, fd, exact, verdict, judged, reference, row) -> str:
    """What is wrong at a failing point: the worst entry with the exact value, FD's and
    the band, every other entry outside its band, and what f's derivative is there when it
    was decided from f."""
    n = verdict.numbers
    if n.get("joint"):
        return verdict_reason(verdict)
    k = labels.index(n["entry"]) if n.get("entry") in labels else 0
    errors = np.array(n.get("errors") or [], dtype=float)
    bands = np.array([math.nan if b is None else b for b in n.get("bands") or []], dtype=float)
    shown_exact = _exact_text(reference, row, k)
    text = (f"{labels[k]}: {judged} {_g(values[k], 17)}, exact {shown_exact}, FD {_g(fd[k])}; error "
            f"{_g(n.get('error', math.inf), 2)} > expected accuracy {_g(n.get('tolerance', math.nan), 2)}")
    if errors.size == len(labels) and bands.size == len(labels):
        with np.errstate(invalid="ignore"):
            outside = [labels[j] for j in range(len(labels)) if not errors[j] <= bands[j] and not math.isnan(errors[j])]
        if len(outside) > 1:
            named = ", ".join(outside[:MAX_NAMED]) + (f", … ({len(outside) - MAX_NAMED} more)"
                                                      if len(outside) > MAX_NAMED else "")
            text += f"; {len(outside)} of {len(labels)} entries are outside their expected accuracy: {named}"
    found = n.get("finding")
    if found:
        text += f" ({finding_text(found)})"
    rerun = n.get("rerun")
    if rerun:
        text += (f"; in {rerun['dtype']} the same rules err {_g(rerun['error'], 2)} against {_g(rerun['here'], 2)} "
                 f"here: a wrong rule errs alike in both precisions, rounding would not")
    return text


def _exact_text(reference, row, k) -> str:
    if reference.interval[row, k]:
        return f"[{_g(reference.lower[row, k], 12)}, {_g(reference.upper[row, k], 12)}]"
    return _g(reference.high[row, k], 17)


def _largest(values):
    finite = values[np.isfinite(values)]
    if finite.size < values.size - int(np.isnan(values).sum()):
        return math.inf
    return float(finite.max()) if finite.size else None


def _g(v, digits=6):
    v = float(v)
    return f"{v:.{digits}g}" if math.isfinite(v) or math.isnan(v) else str(v)


def _disagreement(labels, autograd, fd, judged):
    with np.errstate(invalid="ignore"):
        k = int(np.nanargmax(np.abs(autograd - fd))) if np.isfinite(autograd - fd).any() else 0
    on_trial, by_fd = apart(autograd[k], fd[k])
    return f"{labels[k]}: {judged} {on_trial}, FD {by_fd}, and no exact reference to say which is wrong"


def _fd_cause(label, k, error, magnitude, dtype, f_size, problem, point):
    """(cause, why) gradcheck's differences missed: a kink inside the stencil, rounding
    (float32, or f large against its change over h), or truncation."""
    row = problem.flatten(point)
    j = k % len(row)                    # the input the entry's difference moved
    if not problem.has_arrays:          # (a stencil along one element of an array is not followed)
        name = problem.variables[j]
        moved = replace(problem, point={**problem.point, **point})
        crossing = stencil_crossing(moved, "central-difference", name, GRADCHECK_EPS)
        if crossing:
            return FD_KINK, f"kink: {crossing}"
    eps = EPS[dtype]
    # f is rounded to ε|f| at both ends, and x ± h to ε max(1, |x|) in the input's dtype
    rounding = eps * f_size / GRADCHECK_EPS + eps * max(1.0, abs(row[j])) / GRADCHECK_EPS * magnitude
    if rounding >= 0.25 * error:
        if dtype == "float32":
            return FD_FLOAT32, f"float32 rounding (ε|f|/h ≈ {rounding:.2g} with h = {GRADCHECK_EPS:g})"
        return FD_CANCELLATION, f"cancellation (|f| ≈ {f_size:.3g} is large against its change over h = {GRADCHECK_EPS:g}: " \
               f"rounding ≈ {rounding:.2g})"
    return FD_TRUNCATION, f"truncation (f is not close to linear over h = {GRADCHECK_EPS:g})"
