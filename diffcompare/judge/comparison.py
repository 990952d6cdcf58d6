"""The comparison: every estimate joined with the reference — absolute and relative
error, correct digits, ULP distance — and a verdict against each method's band.

>>> import math
>>> ulp_distance(1.0, 1.0 + 2 * 2.0 ** -52), ulp_distance(-0.0, 0.0)
(2, 0)
>>> round(correct_digits(1e-10), 1)
10.0
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass, field

import mpmath

from diffcompare.judge.accuracy import Band
from diffcompare.judge.policy import decide
from diffcompare.judge.reference import Reference
from diffcompare.judge.report import JudgedMethod, Report
from diffcompare.judge.verdicts import (
    CROSSING,
    DOMAIN,
    FAIL,
    KINK,
    METHOD_STATUS,
    NO_REFERENCE,
    NOT_JUDGED,
    REFERENCE_UNCERTAIN,
    Verdict,
)
from diffcompare.methods.estimate import FAILED, OK, Estimate

MAX_DIGITS = 17.0
MIN_TRUSTED_DIGITS = 3      # a reference whose two working precisions agree on fewer digits judges nothing


def ulp_distance(a: float, b: float) -> int:
    """How many binary64 numbers lie between a and b (0 when equal; -0.0 == 0.0)."""
    def ordinal(x):
        bits = struct.unpack("<q", struct.pack("<d", x))[0]
        return bits if bits >= 0 else -(bits & 0x7FFFFFFFFFFFFFFF)
    return abs(ordinal(a) - ordinal(b))


def correct_digits(relative_error: float) -> float:
    """-log10 of the relative error, within [0, 17]."""
    if relative_error == 0:
        return MAX_DIGITS
    if not math.isfinite(relative_error):
        return 0.0
    return max(0.0, min(MAX_DIGITS, -math.log10(relative_error)))


@dataclass
class Partial:
    """One method's value for one partial derivative, measured against the reference."""
    value: float
    abs_error: float | None = None
    rel_error: float | None = None
    digits: float | None = None
    ulps: int | None = None
    band: Band | None = None
    within: bool | None = None


@dataclass
class MethodResult(JudgedMethod):
    estimate: Estimate
    partials: dict = field(default_factory=dict)
    judgement: Verdict = field(default_factory=lambda: Verdict(NOT_JUDGED, NO_REFERENCE))


@dataclass
class Note:
    kind: str           # kink, domain, convention, reference, symbolic
    text: str


def measure(value: float, reference: Reference, name: str) -> Partial:
    ref = reference.values.get(name)
    partial = Partial(value)
    if ref is None or not math.isfinite(value):
        return partial
    with reference.precision():
        err = abs(mpmath.mpf(value) - ref)
        partial.abs_error = float(err)
        partial.rel_error = float(err / abs(ref)) if ref != 0 else (0.0 if err == 0 else math.inf)
        partial.ulps = ulp_distance(value, float(ref))
    partial.digits = correct_digits(partial.rel_error) if ref != 0 else (
        MAX_DIGITS if partial.abs_error == 0 else max(0.0, min(MAX_DIGITS, -math.log10(partial.abs_error))))
    return partial


def judge(result: MethodResult, reference: Reference, kinks: list, crossings: list = (), domain: list = ()) -> None:
    """Set the verdict of one method from its partials' bands (:func:`~diffcompare.judge.policy.decide`).
    ``crossings``: why a finite-difference stencil cannot be trusted (it straddles a kink,
    a pole or a domain edge): such a method is not judged, whatever its value. ``domain``:
    how f itself fails in binary64 at the point (log(-1), 1/0, overflow): then no method is
    judged. A band as large as the value it surrounds decides nothing: the method is
    inconclusive, never a pass."""
    estimate = result.estimate
    if domain and estimate.status in (OK, FAILED):
        result.judgement = Verdict(NOT_JUDGED, DOMAIN, detail="; ".join(domain))
        return
    if estimate.status != OK:
        result.judgement = Verdict(estimate.status, METHOD_STATUS, detail=estimate.reason)
        return
    if kinks:
        result.judgement = Verdict(NOT_JUDGED, KINK)
        return
    if crossings:
        result.judgement = Verdict(NOT_JUDGED, CROSSING, detail="; ".join(crossings))
        return
    uncertain = [n for n in result.partials if n in reference.uncertain]
    if uncertain:
        result.judgement = Verdict(NOT_JUDGED, REFERENCE_UNCERTAIN, {"entry": f"∂f/∂{uncertain[0]}"},
                                   reference.uncertain[uncertain[0]])
        return
    untrusted = [n for n in result.partials if reference.values.get(n) is not None
                 and reference.trusted_digits.get(n, reference.digits) < MIN_TRUSTED_DIGITS]
    if untrusted:
        name = untrusted[0]
        result.judgement = Verdict(NOT_JUDGED, REFERENCE_UNCERTAIN, {"entry": f"∂f/∂{name}"},
                                   f"the reference is trusted to {reference.trusted_digits[name]} digits only (two "
                                   f"working precisions disagree)")
        return
    missing = [n for n in result.partials if reference.values.get(n) is None]
    if missing:
        result.judgement = Verdict(NOT_JUDGED, NO_REFERENCE, {"entry": f"∂f/∂{missing[0]}"},
                                   reference.undefined.get(missing[0], ""))
        return
    names = list(result.partials)
    errors, tolerance, exact, values = [], [], [], []
    for name in names:
        partial, ref = result.partials[name], reference.values[name]
        trusted = reference.trusted_digits.get(name, reference.digits)
        magnitude = float(abs(ref))
        if magnitude == 0 and ref != 0:
            magnitude = 5e-324              # the exact magnitude: 2e-324 is not 0
        exact.append(math.copysign(magnitude, float(ref)) if ref != 0 else 0.0)
        values.append(partial.value)
        errors.append(partial.abs_error if partial.abs_error is not None else math.inf)
        band = math.nan if partial.band is None else partial.band.tolerance + magnitude * 10.0 ** -trusted
        # nan or inf where the reference is finite is wrong, band or no band
        tolerance.append(band if math.isfinite(partial.value) or not math.isnan(band) else 0.0)
    verdict = decide([errors], [tolerance], [exact], [values], [f"∂f/∂{n}" for n in names],
                     source=[p.band.source if p.band else "" for p in result.partials.values()])
    for name, error, band in zip(names, errors, tolerance):
        if not math.isnan(band):
            result.partials[name].within = error <= band
    if verdict.outcome == FAIL and estimate.details.get("caveats"):
        verdict = Verdict(verdict.outcome, verdict.cause, verdict.numbers, "; ".join(estimate.details["caveats"]))
    result.judgement = verdict


def agreement(a: Estimate, b: Estimate) -> float | None:
    """Digits to which two methods agree (the worst partial)."""
    if not (a.has_values and b.has_values):
        return None
    worst = MAX_DIGITS
    for name, u in a.values.items():
        v = b.values.get(name)
        if v is None or not (math.isfinite(u) and math.isfinite(v)):
            return 0.0
        scale = max(abs(u), abs(v))
        if u != v:
            worst = min(worst, correct_digits(abs(u - v) / scale) if scale else MAX_DIGITS)
    return worst


@dataclass
class Comparison(Report):
    """Everything a report shows; renderers only format it."""
    problem: object
    value: float                            # f at the point, binary64
    reference: Reference
    methods: list                           # MethodResult, in the order asked
    notes: list = field(default_factory=list)
    derivative: object = None               # SymbolicDerivative
    settings: dict = field(default_factory=dict)

    def agreements(self) -> dict:
        """Digits of agreement of autograd with every other method that has values."""
        try:
            base = self.method("autograd").estimate
        except KeyError:
            return {}
        return {m.name: agreement(base, m.estimate) for m in self.methods
                if m.name != "autograd" and m.estimate.has_values}
