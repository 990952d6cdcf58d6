"""The one judge, point by point: a method's values at each point against the reference,
held to the one accuracy model (:class:`~diffcompare.judge.bands.Bands`), each point's
verdict by the one policy (:func:`~diffcompare.judge.policy.decide`). What an audit, the
pytest plugin and ``assert_gradients`` say of every point comes from here; ``compare``
judges a method over all its points by the same pieces.

A value outside its band is not yet wrong: the same rules in the other precision decide
(the precision re-run). Rounding error scales with the precision's ε — a lossy formula
errs about ε(float32)/ε(float64) = 5.4e8 times more in float32 — while a wrong rule errs
alike in both. Where the re-run shows rounding, the band widens to the error seen, and the
value is judged again: a pass (cause ``rounding``), or inconclusive where that band is as
large as the value.

>>> import numpy as np
>>> from diffcompare.problem.problem import make_problem
>>> from diffcompare.problem.tasks import make_task
>>> from diffcompare.methods.symbolic import differentiate
>>> from diffcompare.judge.reference import entries_reference
>>> p = make_problem("sqrt(x**2 + y**2)**2", {"x": 0.0, "y": 0.0})
>>> t = make_task(p, "gradient")
>>> flat = p.flat_point()[None, :]
>>> r = entries_reference(differentiate(p, task=t), flat, problem=p, task=t)
>>> [v.outcome for v in judge_points(np.array([[np.nan, np.nan]]), r, p, t, flat, ["∂f/∂x", "∂f/∂y"])]
['fail']
>>> [v.outcome for v in judge_points(np.array([[0.0, 0.0]]), r, p, t, flat, ["∂f/∂x", "∂f/∂y"])]
['pass']
"""

from __future__ import annotations

import math

import numpy as np

from diffcompare.judge.bands import Bands
from diffcompare.judge.comparison import MIN_TRUSTED_DIGITS, errors_against
from diffcompare.judge.differentiability import NOT_DIFFERENTIABLE
from diffcompare.judge.differentiability import SINGULAR as SINGULAR_FINDING
from diffcompare.judge.differentiability import UNCERTAIN as UNCERTAIN_FINDING
from diffcompare.judge.policy import decide
from diffcompare.judge.verdicts import (
    DOMAIN,
    FAIL,
    INCONCLUSIVE,
    NO_REFERENCE,
    NON_FINITE,
    NOT_JUDGED,
    OUTSIDE,
    PASS,
    RAISED,
    REFERENCE_UNCERTAIN,
    ROUNDING,
    SINGULAR,
    WITHIN,
    Verdict,
    undecidable,
)
from diffcompare.problem.points import Points

EPS = {"float64": float(np.finfo(np.float64).eps), "float32": float(np.finfo(np.float32).eps)}
# float32 error / float64 error beyond which an error is rounding: ε(float32)/ε(float64) is 5.4e8,
# and a rule wrong by δ relative has a ratio of about 1 + 1.2e-7/δ (so only δ < 1e-10 passes as rounding)
ROUNDING_RATIO = 1e3
ROUNDING_MARGIN = 1e3       # how far float64's rounding may exceed float32's scaled by ε64/ε32


def user_band(reference, rtol: float, atol: float) -> np.ndarray:
    """A suite's own band, in place of the model's: rtol × (|entry| + largest entry at the
    point) + atol."""
    magnitude = reference.magnitude
    return rtol * (magnitude + magnitude.max(axis=1, keepdims=True)) + atol


def judge_points(values, reference, problem, task, flat, labels, derivative=None, dtype: str = "float64",
                 failures: dict | None = None, own_band: tuple | None = None, rerun=None,
                 timeout: float | None = None, band: np.ndarray | None = None) -> list:
    """The verdict at each row of ``flat`` (the reference's rows: ``reference.indices`` are
    0..len(flat)-1) of ``values`` (rows, entries), computed in ``dtype``. ``failures``: rows
    where the method raised (row -> why: a failure); ``own_band``: (rtol, atol) of a suite's
    own band instead of the model's; ``band``: the band itself, where the caller's model
    is its own (a directional check); ``rerun(rows, dtype)``: the method's values at those
    rows in another precision (the precision re-run), or None. Each verdict's numbers carry
    the entry-by-entry errors and bands (``errors``, ``bands``) and, where the re-run ran,
    its errors (``rerun``)."""
    failures = failures or {}
    count = len(flat)
    out: list = [None] * count
    errors = errors_against(values, reference)
    slack = reference.uncertainty
    if band is not None:
        tolerance = np.asarray(band, dtype=float)
    elif own_band is not None:
        tolerance = user_band(reference, *own_band)
    else:
        bands = Bands(problem, task, Points(flat, "explicit"), reference, derivative, timeout, dtype)
        tolerance = bands.floor
        with np.errstate(invalid="ignore"):
            outside = reference.judgeable & ~(errors <= tolerance + slack)
        outside[list(failures)] = False
        tolerance = bands.refine(tolerance, outside, timeout)
    for row in range(count):
        if row in failures:
            out[row] = Verdict(FAIL, RAISED, {}, failures[row])
            continue
        out[row] = _one(row, values, errors, tolerance, slack, reference, labels)
    if rerun is not None:
        _rerun(out, values, errors, tolerance, slack, reference, labels, dtype, rerun, flat)
    for row in range(count):
        numbers = dict(out[row].numbers)
        numbers.setdefault("errors", [_plain(e) for e in errors[row]])
        numbers.setdefault("bands", [_plain(t) for t in tolerance[row] + slack[row]])
        out[row] = Verdict(out[row].outcome, out[row].cause, numbers, out[row].detail)
    return out


def _plain(value):
    value = float(value)
    return value if math.isfinite(value) else (None if math.isnan(value) else value)


def _one(row, values, errors, tolerance, slack, reference, labels) -> Verdict:
    """The verdict at one row (by the one policy), after what keeps it from being judged."""
    if row in reference.domain:
        event = reference.domain[row]
        return Verdict(NOT_JUDGED, DOMAIN, {}, event.text if event is not None else "")
    bad = non_finite_where_not_differentiable(values[row], reference, row, labels)
    if bad is not None:
        return Verdict(FAIL, NON_FINITE, bad)
    judged = reference.judgeable[row].copy()
    untrusted = judged & (reference.trusted[row] < MIN_TRUSTED_DIGITS)
    judged &= ~untrusted
    if not judged.any():
        k = int(np.flatnonzero(~reference.judgeable[row] | untrusted)[0]) if len(labels) else 0
        finding = reference.findings.get((row, k))
        cause = NO_REFERENCE
        if finding is not None:
            cause = SINGULAR if finding.kind == SINGULAR_FINDING else \
                REFERENCE_UNCERTAIN if finding.kind == UNCERTAIN_FINDING else NO_REFERENCE
        elif untrusted.any():
            cause = REFERENCE_UNCERTAIN
        numbers = {"entry": labels[k]} if labels else {}
        if finding is not None:
            numbers["finding"] = finding.as_dict()
        return Verdict(NOT_JUDGED, cause, numbers)
    band = tolerance[row] + slack[row]
    row_values = values[row]
    band = np.where(~np.isfinite(row_values) & np.isnan(band) & judged, 0.0, band)
    exact = np.where(reference.interval[row], reference.magnitude[row], reference.high[row])
    verdict = decide(errors[row], band, exact, row_values, labels, judged=judged,
                     skipped=int((~judged).sum()),
                     rounded=np.where(reference.interval[row], np.nan, reference.high[row]))
    if verdict.outcome == PASS:
        violation = joint_violation(row_values, band, reference, row, labels)
        if violation is not None:
            verdict = Verdict(FAIL, OUTSIDE, {**verdict.numbers, **violation})
    if verdict.outcome == FAIL and verdict.numbers.get("entry") in labels:
        k = labels.index(verdict.numbers["entry"])
        finding = reference.findings.get((row, k))
        if finding is not None:
            verdict = Verdict(verdict.outcome, verdict.cause, {**verdict.numbers, "finding": finding.as_dict()},
                              verdict.detail)
    return verdict


UNHELD_RELATIVE = 1e-10     # an error below this, relative, is not called wrong where no re-run can tell
FLOAT32 = np.finfo(np.float32)


def _held_in_float32(row) -> bool:
    """Whether every element of a point is a normal float32 number or 0 (float32 can re-run it)."""
    magnitudes = np.abs(np.asarray(row, dtype=np.float64))
    return bool(np.all((magnitudes == 0) | ((magnitudes >= FLOAT32.tiny) & (magnitudes <= FLOAT32.max))))


def _relative(errors, magnitudes) -> float:
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.where(magnitudes > 0, errors / np.where(magnitudes > 0, magnitudes, 1.0), np.inf)
    finite = ratio[~np.isnan(ratio)]
    return float(finite.max()) if finite.size else math.inf


def _numbers_of(verdict) -> dict:
    return {k: v for k, v in verdict.numbers.items() if k in ("entry", "value", "exact", "error", "tolerance",
                                                               "judged", "outside")}


def non_finite_where_not_differentiable(values_row, reference, row, labels) -> dict | None:
    """Where f is not differentiable though its partials exist, no value can be held to an
    interval, but nan or ±inf is never right (f is finite and has finite slopes there): the
    numbers of such an entry, or None."""
    for k, state in enumerate(reference.state[row]):
        if state == NOT_DIFFERENTIABLE and not math.isfinite(float(values_row[k])):
            finding = reference.findings.get((row, k))
            return {"entry": labels[k], "value": float(values_row[k]), "exact": math.nan, "error": math.inf,
                    "tolerance": 0.0, "judged": 1, "outside": 1,
                    **({"finding": finding.as_dict()} if finding is not None else {})}
    return None


def joint_violation(values_row, band_row, reference, row, labels) -> dict | None:
    """Where several entries meet one kink, their sum must lie between f's one-sided
    derivatives along the sum of their directions (:class:`~diffcompare.judge.differentiability.Joint`):
    the numbers of a sum outside that interval (beyond the entries' bands), or None."""
    together = reference.joint.get(row)
    if together is None:
        return None
    total = float(np.sum([values_row[k] for k in together.entries]))
    with np.errstate(invalid="ignore"):
        allowed = float(np.nansum([band_row[k] for k in together.entries])) + float(together.error)
    lower, upper = float(together.lower), float(together.upper)
    outside = max(lower - total, total - upper, 0.0) if math.isfinite(total) else math.inf
    if outside <= allowed:
        return None
    return {"entry": " + ".join(labels[k] for k in together.entries), "value": total, "exact": upper,
            "error": outside, "tolerance": allowed, "joint": together.as_dict(), "outside": 1}


def _rerun(out, values, errors, tolerance, slack, reference, labels, dtype, rerun, flat) -> None:
    """The precision re-run of the rows that failed on a finite value (float32's inf may be
    float64's value): where the error scales with ε, it is rounding."""
    suspects = [row for row, v in enumerate(out)
                if v.outcome == FAIL and v.cause != RAISED and "joint" not in v.numbers
                and (np.isfinite(values[row]).all() or dtype == "float32")]
    if not suspects:
        return
    other = "float64" if dtype == "float32" else "float32"
    if other == "float32":
        # a point float32 cannot hold (an element that underflows or overflows there) has no
        # float32 re-run: an error too small for a wrong rule is left undecided, not failed
        held = [row for row in suspects if _held_in_float32(flat[row])]
        for row in suspects:
            if row not in held and _relative(errors[row], reference.magnitude[row]) <= UNHELD_RELATIVE:
                out[row] = Verdict(INCONCLUSIVE, ROUNDING, {**_numbers_of(out[row]), "rerun": {"dtype": other,
                                                                                          "held": False}})
        suspects = held
        if not suspects:
            return
    there_values = rerun(suspects, other)
    if there_values is None:
        return
    there_errors = errors_against(there_values, reference, suspects)
    for i, row in enumerate(suspects):
        judged = reference.judgeable[row]
        with np.errstate(invalid="ignore"):
            here = np.where(judged, errors[row], 0.0).max()
            there = np.where(judged, there_errors[i], 0.0).max()
        if not (math.isfinite(there) and there > 0 or math.isfinite(here)):
            continue
        if other == "float64":
            # far closer in float64 (float32's inf for float64's -4934.08: a cancellation that
            # float32 rounds to 0); a wrong rule errs alike in both
            rounding = bool(np.isfinite(there) and not there * ROUNDING_RATIO >= here)
        else:
            # rounding scales with ε: float64's error can be at most about ε64/ε32 of float32's
            # (times a margin); a wrong rule's error does not shrink with ε
            # (an error that is infinite in float32, where f or its rules overflow, proves nothing)
            rounding = bool(math.isfinite(there) and there >= ROUNDING_RATIO * here and
                            here <= ROUNDING_MARGIN * there * EPS["float64"] / EPS["float32"])
        if not rounding:
            out[row] = Verdict(out[row].outcome, out[row].cause,
                               {**out[row].numbers, "rerun": {"dtype": other, "error": _plain(there),
                                                              "here": _plain(here)}}, out[row].detail)
            continue
        # the band the rules can be held to here is the error they make: judged again against it
        band = np.fmax(tolerance[row] + slack[row], np.where(judged, errors[row], 0.0) * 1.0000001)
        exact = np.where(reference.interval[row], reference.magnitude[row], reference.high[row])
        wide = judged & undecidable(band, exact)
        numbers = {"rerun": {"dtype": other, "error": _plain(there), "here": _plain(here)},
                   "judged": int(judged.sum())}
        if wide.any():
            k = int(np.flatnonzero(wide)[0])
            numbers.update({"entry": labels[k], "value": float(values[row, k]), "exact": float(exact[k]),
                            "error": float(errors[row, k]), "tolerance": float(band[k]), "wide": int(wide.sum())})
            out[row] = Verdict(INCONCLUSIVE, ROUNDING, numbers)
        else:
            out[row] = Verdict(PASS, ROUNDING, numbers)


__all__ = ["judge_points", "user_band", "WITHIN"]
