"""The precision re-run: an error over the tolerance is rounding when the same rules make
it about 1/ε(float32)/ε(float64) times larger in the other precision; a wrong rule errs
alike in both."""

from __future__ import annotations

import math

import numpy as np

from diffcompare.auditing.evaluate import judged_values
from diffcompare.auditing.results import ROUNDING_LOSS, WRONG
from diffcompare.auditing.tolerance import EPS, TINY_NORMAL, TOLERANCE_ULPS, autograd_bound

# float32 error / float64 error beyond which an error is rounding: ε(float32)/ε(float64) is 5.4e8,
# and a rule wrong by δ relative has a ratio of about 1 + 1.2e-7/δ (so only δ < 1e-10 passes as rounding)
ROUNDING_RATIO = 1e3
ROUNDING_MARGIN = 1e3       # how far float64's rounding may exceed float32's scaled by ε64/ε32


def recheck_precision(result, problem, task, engine, dtype, gradient=None):
    """Points where autograd misses its tolerance: is a rule wrong, or did rounding lose
    the digits? The same rules in the other precision decide. A wrong rule errs the same
    in both; rounding error scales with ε. A float32 case is re-run in float64 (right
    there: rounding); a float64 case in float32 (an error over 1000 times larger there:
    rounding, as ε(float32)/ε(float64) = 5.4e8). A user's ``gradient`` is re-run the same way."""
    suspects = [i for i, p in enumerate(result.points)
                if p.verdict == WRONG and p.autograd_error is not None
                and (math.isfinite(p.autograd_error) or dtype == "float32")]     # float32's inf may be float64's value
    if not suspects:
        return
    other = "float64" if dtype == "float32" else "float32"
    flat = np.array([problem.flatten(result.points[i].point) for i in suspects])
    if other == "float32":
        flat = flat.astype(np.float32).astype(np.float64)
    values, _ = judged_values(problem, task, flat, other, engine, gradient, result.judged)
    rtol64, atol64 = TOLERANCE_ULPS * EPS["float64"], TINY_NORMAL["float64"]
    for i, row in zip(suspects, values):
        p = result.points[i]
        ref = np.array([np.nan if r is None else r for r in p.reference])
        mine = np.array([np.inf if a is None else a for a in p.autograd])    # None: autograd gave nan or inf
        with np.errstate(invalid="ignore"):
            there = np.abs(row - ref).max()
            here = np.abs(mine - ref).max()
            if other == "float64":
                # right in float64, or far closer there (float32's inf for float64's -4934.08: a
                # cancellation that float32 rounds to 0); a wrong rule errs alike in both
                rounding = bool(np.all(np.abs(row - ref) <= autograd_bound(ref, rtol64, atol64))) or \
                    bool(np.isfinite(there) and not there * ROUNDING_RATIO >= here)
            else:
                # rounding scales with ε: float64's error can be at most about ε64/ε32 of float32's
                # (times a margin); a wrong rule's error does not shrink with ε (a rule off by 1e-9
                # where the formula cancels: float32 errs 2e-7, float64 8.9e-12, a ratio of only 2e4)
                rounding = bool(there >= ROUNDING_RATIO * here and
                                here <= ROUNDING_MARGIN * there * EPS["float64"] / EPS["float32"])
        if rounding:
            p.verdict, p.cause = ROUNDING_LOSS, "rounding"
            p.reason = (f"{p.reason.split(';')[0]}; in {other} the same rules err {there:.2g} against {here:.2g} "
                        f"here: the error scales with ε, so it is rounding (a cancellation in the formula), "
                        f"not a wrong rule")
