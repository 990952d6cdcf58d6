"""Directional checks for functions of many inputs: a layer of 1,000 elements has a
Jacobian too large to check entry by entry against an exact reference, so each point is
checked along random directions instead, as gradcheck's fast mode does — uᵀJv from the
gradient on trial against the high-precision directional derivative d/dt uᵀf(x + t v) at
t = 0 (mpmath's differentiation of f along v at two working precisions) and against
gradcheck's central difference along v. A direction that fails is narrowed down to the
wrong entries: v is split in halves, each half checked again, until single entries of uᵀJ
are left.

>>> from diffcompare.problem.problem import make_problem
>>> from diffcompare.problem.tasks import make_task
>>> p = make_problem("sum(x**3)", {"x": [1.0, 2.0, 3.0]})
>>> u, v = np.array([1.0]), np.array([1.0, 0.0, -1.0])
>>> float(directional_reference(p, make_task(p, "gradient"), p.flat_point(), u, v).high[0, 0])   # 3·1 - 3·9
-24.0
"""

from __future__ import annotations

import time

import mpmath
import numpy as np

from diffcompare.auditing.evaluate import GRADCHECK_EPS
from diffcompare.judge.reference import EntriesReference
from diffcompare.language.worlds import MPMATH
from diffcompare.methods.budget import TimedOut, time_limit
from diffcompare.problem.problem import Problem

FULL_ENTRIES = 256          # a derivative with more entries than this is checked along directions
DIRECTIONS = 2              # random directions per point
MAX_NARROWING = 48          # directional references spent narrowing a failing direction down
MIN_TRUSTED = 10            # digits a directional reference must be trusted to
RESOLUTION = 10             # digits f's change over the step must keep above its rounding
MAX_DIGITS = 1280           # working precision at most, looking for f's change


def is_directional(task) -> bool:
    """Whether ``task`` is checked along directions (gradients and Jacobians of many entries)."""
    return task.kind in ("gradient", "jacobian") and task.size > FULL_ENTRIES


def directions(task, seed: int, key: int) -> list:
    """[(u, v)]: the random directions at a point (``key``: a number the point decides),
    from ``seed`` (standard normal, as gradcheck's fast mode draws them)."""
    rng = np.random.default_rng([seed, key])
    return [(rng.standard_normal(task.m), rng.standard_normal(task.n)) for _ in range(DIRECTIONS)]


def _exact(value: float):
    numerator, denominator = float(value).as_integer_ratio()
    return mpmath.mpf(numerator) / denominator


def directional_reference(problem: Problem, task, row: np.ndarray, u: np.ndarray, v: np.ndarray,
                          digits: int = 20, timeout: float | None = 10.0) -> EntriesReference:
    """The EntriesReference (one entry) of uᵀJv at ``row``: mpmath's central difference of
    φ(t) = uᵀf(x + t s v) at t = 0 divided by s, with x, u and v exact, at two working
    precisions; trusted to the digits on which they agree.

    f may bend on the scale of the point's smallest entry (x * tanh(x) at x = 1e-151), so
    the step is taken along s v, s that smallest nonzero magnitude (at most 1). The step
    is 10^(-P/2) at P digits (truncation 10^-P); where f's change over the step is lost to
    rounding against f itself (a large f, a tiny step), P is raised until it shows, and
    a change never seen leaves the entry without a reference rather than a false 0."""
    start = time.perf_counter()
    magnitudes = np.abs(row[np.isfinite(row) & (row != 0)])
    scale = float(min(1.0, magnitudes.min())) if magnitudes.size else 1.0
    x, weights, along = [_exact(a) for a in row], [_exact(a) for a in u], [_exact(a) for a in v]

    def phi(t):
        moved = np.array([a + t * b for a, b in zip(x, along)], dtype=object)
        out = np.ravel(np.asarray(problem.evaluate(MPMATH, problem.split(moved)), dtype=object))
        return mpmath.fsum(w * o for w, o in zip(weights, out))

    def at(dps):
        with mpmath.workdps(dps):
            h = mpmath.mpf(10) ** -(dps // 2) * _exact(scale)
            high, low, middle = phi(h), phi(-h), phi(mpmath.mpf(0))
            change = abs(high - low)
            resolved = change > abs(middle) * mpmath.mpf(10) ** -(dps - RESOLUTION) or (change == 0 and middle == 0)
            return (high - low) / (2 * h), resolved

    none = EntriesReference(digits, np.arange(0), np.zeros((0, 1)), np.zeros((0, 1)), np.zeros((0, 1), dtype=int),
                            source="mpmath")
    try:
        with time_limit(timeout):
            dps = digits + 2 * RESOLUTION
            while True:
                first, resolved = at(dps)
                if resolved or dps >= MAX_DIGITS:
                    break
                dps *= 2
            if not resolved:
                none.reason = f"f's change along the direction is lost to rounding even at {dps} digits"
                return none
            check, _ = at(dps + 10)
    except TimedOut:
        none.reason = f"the directional reference timed out after {timeout:g} s"
        return none
    except Exception as error:          # f raised on mpmath numbers, or left the reals
        none.reason = f"f could not be evaluated on mpmath numbers along the direction: {error}"
        return none
    if not (isinstance(first, mpmath.mpf) and mpmath.isfinite(first)):
        none.reason = f"the directional derivative is not a finite real number: {first}"
        return none
    with mpmath.workdps(dps + 10):
        gap = abs(first - check)
        trusted = digits if gap == 0 else int(min(digits, max(0, -mpmath.log10(gap / abs(first))))) if first else 0
        high = float(first)
        low = float(first - high)
    return EntriesReference(digits, np.arange(1), np.array([[high]]), np.array([[low]]), np.array([[trusted]]),
                            note=f"reference: mpmath's directional derivative of f at {dps}+ digits",
                            seconds=time.perf_counter() - start, source="mpmath")


def directional_difference(values_at, row: np.ndarray, u: np.ndarray, v: np.ndarray, dtype: str) -> float:
    """gradcheck's fast mode: uᵀ(f(x + eps v) - f(x - eps v)) / 2 eps, x ± eps v rounded to ``dtype``;
    ``values_at(rows)`` gives f at each row of a (2, n) array."""
    typed = row.astype(dtype)
    eps = np.asarray(GRADCHECK_EPS, dtype=dtype)
    step = (eps * v.astype(dtype)).astype(dtype)
    both = values_at(np.stack([typed + step, typed - step]).astype(np.float64))
    return float(u @ (both[0] - both[1]) / (2 * GRADCHECK_EPS))


def narrow(problem, task, row, u, v, w, bound, timeout=10.0) -> list:
    """The entries j of uᵀJ (``w``, from the gradient on trial) that are wrong, found by
    halving the support of v and checking each half against its own directional
    reference; at most MAX_NARROWING references. [(j, w_j, exact (uᵀJ)_j or None)]."""
    spent = [0]

    def wrong(indices) -> bool:
        part = np.zeros_like(v)
        part[indices] = v[indices]
        spent[0] += 1
        reference = directional_reference(problem, task, row, u, part, timeout=timeout)
        if not reference.available:
            return False
        exact = reference.high[0, 0] + reference.low[0, 0]
        return abs(float(w[indices] @ v[indices]) - exact) > bound(w[indices], v[indices], exact)

    def search(indices) -> list:
        if len(indices) == 1 or spent[0] >= MAX_NARROWING:
            return list(indices)
        middle = len(indices) // 2
        found = []
        for half in (indices[:middle], indices[middle:]):
            if spent[0] < MAX_NARROWING and wrong(half):
                found += search(half)
        return found
    candidates = [j for j in search(np.arange(task.n)) if v[j] != 0]
    out = []
    for j in candidates[:12]:
        unit = np.zeros_like(v)
        unit[j] = 1.0
        reference = directional_reference(problem, task, row, u, unit, timeout=timeout)
        out.append((int(j), float(w[j]), float(reference.high[0, 0]) if reference.available else None))
    return out

