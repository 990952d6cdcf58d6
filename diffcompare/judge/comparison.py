"""The comparison: every method's entries joined with the reference — absolute and
relative error, correct digits, ULP distance — the band each entry was held to and the
verdict; the same data for a gradient at one point and a Hessian at a thousand.

>>> import math
>>> ulp_distance(1.0, 1.0 + 2 * 2.0 ** -52), ulp_distance(-0.0, 0.0)
(2, 0)
>>> round(correct_digits(1e-10), 1)
10.0
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from diffcompare.judge.reference import EntriesReference
from diffcompare.judge.report import JudgedMethod, Report
from diffcompare.judge.verdicts import NO_REFERENCE, NOT_JUDGED, Verdict
from diffcompare.problem.points import Points
from diffcompare.problem.tasks import Task

MAX_DIGITS = 17.0
MIN_TRUSTED_DIGITS = 3      # a reference whose two working precisions agree on fewer digits judges nothing


def ulp_distance(a, b):
    """How many binary64 numbers lie between a and b (0 when equal; -0.0 == 0.0), elementwise
    on arrays (as floats: exact up to 2^53)."""
    def ordinal(x):
        bits = np.array(x, dtype=np.float64).view(np.int64)
        return np.where(bits >= 0, bits, -(bits & np.int64(0x7FFFFFFFFFFFFFFF)))
    oa, ob = ordinal(np.asarray(a, dtype=float)), ordinal(np.asarray(b, dtype=float))
    same = (oa >= 0) == (ob >= 0)           # no int64 overflow: subtract only alike signs
    distance = np.where(same, np.abs(np.where(same, oa - ob, 0)).astype(float),
                        np.abs(oa.astype(float)) + np.abs(ob.astype(float)))
    return int(distance) if np.ndim(distance) == 0 else distance


def correct_digits(relative_error: float) -> float:
    """-log10 of the relative error, within [0, 17]."""
    if relative_error == 0:
        return MAX_DIGITS
    if not math.isfinite(relative_error):
        return 0.0
    return max(0.0, min(MAX_DIGITS, -math.log10(relative_error)))


@dataclass
class Note:
    kind: str           # kink, domain, convention, reference, symbolic
    text: str


@dataclass
class Entry:
    """One method's value for one entry at one point, measured against the reference."""
    value: float
    abs_error: float | None = None
    rel_error: float | None = None
    ulps: int | None = None
    tolerance: float | None = None          # the band (None: no band here)
    source: str = ""                        # where the band came from

    @property
    def digits(self) -> float | None:
        """Correct digits: of the relative error, or of the absolute one where the exact value is 0."""
        if self.rel_error is None:
            return None
        if math.isfinite(self.rel_error) or self.abs_error is None or not math.isfinite(self.abs_error):
            return correct_digits(self.rel_error)
        return correct_digits(self.abs_error)

    @property
    def within(self) -> bool | None:
        if self.tolerance is None or self.abs_error is None or math.isnan(self.tolerance):
            return None
        return self.abs_error <= self.tolerance


@dataclass
class MethodResult(JudgedMethod):
    """One method over every entry and point: its errors where the reference is known
    (arrays of (reference points, entries)), the band each entry was held to, and the verdict."""
    estimate: object
    abs_error: np.ndarray | None = None
    rel_error: np.ndarray | None = None
    ulps: np.ndarray | None = None          # binary64 numbers between value and exact (nan: not finite)
    tolerance: np.ndarray | None = None
    band_source: object = ""                # one text, or one per entry
    judgement: Verdict = field(default_factory=lambda: Verdict(NOT_JUDGED, NO_REFERENCE))
    worst: dict | None = None               # the entry and point with the largest error
    unjudged: tuple = ()                    # reference rows the verdict left out (a kink, a stencil across one)
    symmetry: float | None = None           # Hessians: max |H - Hᵀ| / max |H|

    @property
    def incomplete(self) -> bool:
        """A pass over the judged entries while some were skipped (kinks, domain errors)."""
        return self.judgement.incomplete

    @property
    def outside(self) -> int:
        """How many entries lie outside their band."""
        return self.judgement.numbers.get("outside", 0)

    def _judged_rows(self, errors):
        """``errors`` without the rows the verdict left out (while some rows remain)."""
        if errors is None or not self.unjudged or len(self.unjudged) >= errors.shape[0]:
            return errors
        return np.delete(errors, list(self.unjudged), axis=0)

    def statistic(self, which: str):
        """The largest ("max") or median relative error over the entries and points the
        verdict judged."""
        errors = self._judged_rows(self.rel_error)
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
        errors = self._judged_rows(self.abs_error)
        finite = errors[np.isfinite(errors)]
        return float(finite.max()) if finite.size else None

    @property
    def digits(self):
        worst = self.statistic("max")
        if worst is None:
            return None
        return MAX_DIGITS if worst == 0 else max(0.0, min(MAX_DIGITS, -math.log10(worst)))

    labels: list = field(default_factory=list)      # the entries' labels (∂f/∂x, ...)

    def values(self, point: int = 0) -> dict:
        """Every entry's value at point ``point``: {variable: value} for a gradient, {label:
        value} otherwise; {} when the method has none.

        >>> from diffcompare.pipeline.compare import compare
        >>> compare("x**2 * y", at={"x": 3, "y": 2}, methods="autograd", repeat=1).method("autograd").values()
        {'x': 12.0, 'y': 9.0}
        """
        if not self.estimate.has_values:
            return {}
        flat = np.ravel(self.estimate.values[point])
        return {label.removeprefix("∂f/∂"): float(v) for label, v in zip(self.labels, flat)}

    def entry(self, which, point: int = 0) -> Entry:
        """Entry ``which`` (its label, for a gradient also the variable's name, or its
        index) at reference point ``point``.

        >>> from diffcompare.pipeline.compare import compare
        >>> e = compare("x**3", at={"x": 2}, methods="central-difference", repeat=1).method("central-difference").entry("x")
        >>> e.value != 12, e.abs_error == abs(e.value - 12), e.within
        (True, True, True)
        """
        k = which if isinstance(which, int) else (
            self.labels.index(which) if which in self.labels else self.labels.index(f"∂f/∂{which}"))
        values = self.estimate.values.reshape(self.estimate.values.shape[0], -1)
        out = Entry(float(values[point, k]))
        if self.abs_error is not None:
            ulps = float(self.ulps[point, k])
            out.abs_error, out.rel_error = float(self.abs_error[point, k]), float(self.rel_error[point, k])
            out.ulps = None if ulps != ulps else int(ulps)
        if self.tolerance is not None:
            out.tolerance, out.source = float(self.tolerance[point, k]), self.source_of(k)
        return out

    def source_of(self, entry: int) -> str:
        """Where the band of entry ``entry`` came from."""
        if isinstance(self.band_source, (list, tuple)):
            return self.band_source[entry]
        return self.band_source


@dataclass(repr=False)
class Comparison(Report):
    """Everything a report of ``compare`` shows — the gradient, Jacobian, vᵀJ, Jv or
    Hessian of f at one point or many, by every method — renderers only format it."""
    problem: object
    task: Task
    points: Points
    reference: EntriesReference
    methods: list                           # MethodResult, in the order asked
    notes: list = field(default_factory=list)
    derivative: object = None               # SymbolicDerivative
    settings: dict = field(default_factory=dict)
    special: dict = field(default_factory=dict)     # reference row -> (cause, why it is not judged)
    value: float = math.nan                 # f at the (first) point, binary64

    @property
    def single(self) -> bool:
        return len(self.points) == 1

    def agreements(self) -> dict:
        """Digits to which autograd agrees with every other method, worst entry and point."""
        try:
            base = self.method("autograd").estimate
        except KeyError:
            return {}
        if not base.has_values:
            return {}
        return {m.name: agreement(base.values, m.estimate.values) for m in self.methods
                if m.name != "autograd" and m.estimate.has_values}


def agreement(a: np.ndarray, b: np.ndarray) -> float:
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


def errors_against(values: np.ndarray, reference: EntriesReference, rows=None) -> np.ndarray:
    """|value - exact| of each entry (values: (rows, entries) at the reference's rows, or at
    ``rows`` of them), exactly: value - high is exact when the two are close, then the low
    part is subtracted; at a kink, the distance to the interval between the one-sided
    derivatives (0 inside it); inf for nan or ±inf where there is a value; nan where there
    is none."""
    pick = slice(None) if rows is None else rows
    high, low = reference.high[pick], reference.low[pick]
    lower, upper = reference.lower[pick], reference.upper[pick]
    interval, judgeable = reference.interval[pick], reference.judgeable[pick]
    with np.errstate(invalid="ignore", over="ignore"):
        error = np.abs((values - high) - low)
        outside = np.fmax(lower - values, values - upper)
        error = np.where(interval, np.where(outside > 0, outside, 0.0), error)
        error = np.where(judgeable & ~np.isfinite(values), np.inf, error)
        # an exact value beyond binary64 rounds to ±inf: the same infinity is right, anything else is not
        beyond = np.isinf(high)
        error = np.where(beyond, np.where(values == high, 0.0, np.inf), error)
        return np.where(judgeable | beyond, error, np.nan)


def measure(result: MethodResult, reference: EntriesReference, labels: list) -> None:
    """Set the method's errors against the reference (:func:`errors_against`), relative
    errors, ULP distances (at a kink, to the nearest end of the interval) and the worst entry."""
    estimate = result.estimate
    values = estimate.values.reshape(estimate.values.shape[0], -1)[reference.indices]
    interval = reference.interval
    error = errors_against(values, reference)
    magnitude = reference.magnitude
    with np.errstate(invalid="ignore", over="ignore"):
        relative = np.where(magnitude > 0, error / np.where(magnitude > 0, magnitude, 1.0),
                            np.where(error == 0, 0.0, np.inf))
    target = np.where(interval, np.clip(values, reference.lower, reference.upper), reference.high)
    both = np.isfinite(values) & np.isfinite(target)
    result.abs_error, result.rel_error = error, relative
    result.ulps = np.where(both, ulp_distance(np.where(both, values, 0.0), np.where(both, target, 0.0)), np.nan)
    set_worst(result, reference, labels)


def set_worst(result: MethodResult, reference: EntriesReference, labels: list, unjudged=()) -> None:
    """The entry and point with the largest relative error among those judged: a row the
    verdict left out (``unjudged``: a kink, a stencil across one) is never the worst while
    another row was judged."""
    values = result.estimate.values.reshape(result.estimate.values.shape[0], -1)[reference.indices]
    target = np.where(reference.interval, np.clip(values, reference.lower, reference.upper), reference.high)
    judged = reference.judgeable & np.isfinite(reference.lower)
    left_out = judged.copy()
    left_out[list(unjudged)] = False
    if left_out.any():
        judged = left_out
        result.unjudged = tuple(sorted(unjudged))
    result.worst = None
    if judged.any():
        relative = result.rel_error
        score = np.where(judged, np.nan_to_num(relative, nan=np.inf, posinf=np.inf), -1.0)
        row, entry = np.unravel_index(int(np.argmax(score)), score.shape)
        result.worst = {"point": int(reference.indices[row]), "entry": labels[entry],
                        "value": float(values[row, entry]), "reference": float(target[row, entry]),
                        "abs_error": float(result.abs_error[row, entry]), "rel_error": float(relative[row, entry])}
