"""The verdict at one point: autograd and gradcheck's differences against the exact
reference, and when the differences cannot be trusted, why (float32 rounding,
cancellation, a kink inside the stencil, truncation)."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from diffcompare.auditing.results import (
    AGREE,
    DISAGREE,
    FD_CANCELLATION,
    FD_FLOAT32,
    FD_KINK,
    FD_TRUNCATION,
    FD_UNRELIABLE,
    NONDIFF,
    RAISED,
    UNDEFINED,
    UNVERIFIED,
    WITHIN,
    WRONG,
)
from diffcompare.auditing.tolerance import EPS, GRADCHECK_ATOL, GRADCHECK_EPS, GRADCHECK_RTOL, autograd_bound
from diffcompare.judge.policy import decide
from diffcompare.judge.verdicts import FAIL, KINK, NO_REFERENCE
from diffcompare.methods.finite_differences import stencil_crossing

MAX_NAMED = 12          # wrong entries named in a reason


def classify(labels, autograd, fd, ref_high, ref_low, kink, failure, tol, dtype, f_size, problem, point,
             judged: str = "autograd"):
    """(verdict, cause, reason, what gradcheck would say, (autograd error, FD error)) at one
    point. autograd (or the ``judged`` gradient in its place) is held to its tolerance by
    the one verdict policy (:func:`diffcompare.judge.policy.decide`), gradcheck's
    differences to gradcheck's own."""
    gc_bound = GRADCHECK_ATOL + GRADCHECK_RTOL * np.abs(fd)
    with np.errstate(invalid="ignore", over="ignore"):
        gc_ok = bool(np.all(np.abs(autograd - fd) <= gc_bound))
    gc = "pass" if gc_ok else "fail"
    if kink is not None:
        return NONDIFF, KINK, kink, gc, (None, None)
    if failure:
        return WRONG, RAISED, failure, gc, (math.inf, None)
    if ref_high is None:
        return (UNVERIFIED, NO_REFERENCE, f"no exact reference: only {judged} and FD could be compared", gc,
                (None, None)) if gc_ok else (DISAGREE, NO_REFERENCE, _disagreement(labels, autograd, fd, judged), gc,
                                             (None, None))
    if not np.all(np.isfinite(ref_high)):
        undefined = [labels[k] for k in range(len(labels)) if not np.isfinite(ref_high[k])]
        return UNDEFINED, NO_REFERENCE, f"the exact {undefined[0]} is undefined or infinite here", gc, (None, None)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        magnitude = np.abs(ref_high)
        ag_error = np.abs((autograd - ref_high) - ref_low)
        fd_error = np.abs((fd - ref_high) - ref_low)
        ag_bound = autograd_bound(ref_high, tol["rtol"], tol["atol"])
        judgement = decide(ag_error, ag_bound, ref_high, autograd, labels)
        fd_bad = ~(fd_error <= GRADCHECK_ATOL + GRADCHECK_RTOL * magnitude)
        # errors relative to the largest entry at the point (a near-zero entry's own relative
        # error says nothing about the gradient)
        scale = magnitude.max() if magnitude.max() > 0 else 1.0
        errors = (_largest(ag_error / scale), _largest(fd_error / scale))
    if judgement.outcome == FAIL:
        k = labels.index(judgement.numbers["entry"])
        with np.errstate(invalid="ignore"):
            outside = [labels[j] for j in np.flatnonzero(~(ag_error <= ag_bound))]
        others = ""
        if len(outside) > 1:
            named = ", ".join(outside[:MAX_NAMED]) + (f", … ({len(outside) - MAX_NAMED} more)"
                                                      if len(outside) > MAX_NAMED else "")
            others = f"; {len(outside)} of {len(labels)} entries are outside their tolerance: {named}"
        return WRONG, judgement.cause, (f"{labels[k]}: {judged} {_g(autograd[k])}, exact {_g(ref_high[k])}, "
                                        f"FD {_g(fd[k])}; error {_g(ag_error[k], 2)} > tolerance "
                                        f"{_g(ag_bound[k], 2)}{others}"), gc, errors
    if fd_bad.any():
        k = int(np.argmax(np.where(fd_bad, np.nan_to_num(fd_error, nan=np.inf), -1)))
        cause, why = _fd_cause(labels[k], k, fd_error[k], magnitude[k], dtype, f_size, problem, point)
        return FD_UNRELIABLE, cause, (f"{why}: {labels[k]} by FD {_g(fd[k])}, exact {_g(ref_high[k])} "
                                      f"({judged} {_g(autograd[k])} is right)"), gc, errors
    return AGREE, WITHIN, f"{judged}, FD and the exact reference agree", gc, errors


def _largest(values):
    finite = values[np.isfinite(values)]
    if finite.size < values.size:
        return math.inf
    return float(finite.max()) if finite.size else None


def _g(v, digits=6):
    return f"{float(v):.{digits}g}"


def _disagreement(labels, autograd, fd, judged):
    with np.errstate(invalid="ignore"):
        k = int(np.nanargmax(np.abs(autograd - fd))) if np.isfinite(autograd - fd).any() else 0
    return f"{labels[k]}: {judged} {_g(autograd[k])}, FD {_g(fd[k])}, and no exact reference to say which is wrong"


def _fd_cause(label, k, error, magnitude, dtype, f_size, problem, point):
    """(cause, why) gradcheck's differences missed: a kink inside the stencil, rounding
    (float32, or f large against its change over h), or truncation."""
    row = problem.flatten(point)
    j = k % len(row)                    # the input the entry's difference moved
    if not problem.has_arrays:          # (a stencil along one element of an array is not followed)
        name = problem.variables[j]
        moved = replace(problem, point={**problem.point, **point})
        crossing = stencil_crossing(moved, "central", name, GRADCHECK_EPS)
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
