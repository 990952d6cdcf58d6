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
from diffcompare.judge.reference import Reference
from diffcompare.judge.report import Report
from diffcompare.judge.verdicts import FAIL, INCONCLUSIVE, NOT_JUDGED, PASS, undecidable
from diffcompare.methods.estimate import FAILED, OK, Estimate

MAX_DIGITS = 17.0


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
class MethodResult:
    estimate: Estimate
    partials: dict = field(default_factory=dict)
    verdict: str = NOT_JUDGED
    reason: str = ""

    @property
    def name(self):
        return self.estimate.method


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
    """Set the verdict of one method from its partials' bands. ``crossings``: why a
    finite-difference stencil cannot be trusted (it straddles a kink, a pole or a domain
    edge): such a method is not judged, whatever its value. ``domain``: how f itself fails
    in binary64 at the point (log(-1), 1/0, overflow): then no method is judged. A band as
    large as the value it surrounds decides nothing: the method is inconclusive, never a pass."""
    estimate = result.estimate
    if domain and estimate.status in (OK, FAILED):
        result.verdict = NOT_JUDGED
        result.reason = "f is not finite in binary64 at this point: " + "; ".join(domain)
        return
    if estimate.status != OK:
        result.verdict, result.reason = estimate.status, estimate.reason
        return
    if kinks:
        result.verdict = NOT_JUDGED
        result.reason = "non-differentiable point: each method follows its own convention (see notes)"
        return
    if crossings:
        result.verdict = NOT_JUDGED
        result.reason = "the stencil crosses a point where f is not smooth, so its value cannot be trusted: " + \
            "; ".join(crossings)
        return
    uncertain = [n for n in result.partials if n in reference.uncertain]
    if uncertain:
        result.verdict = NOT_JUDGED
        result.reason = f"reference uncertain for ∂f/∂{uncertain[0]}: {reference.uncertain[uncertain[0]]}"
        return
    missing = [n for n in result.partials if reference.values.get(n) is None]
    if missing:
        result.verdict = NOT_JUDGED
        result.reason = f"∂f/∂{missing[0]}: {reference.undefined.get(missing[0], 'no reference value')}"
        return
    failures, undecided = [], []
    for name, partial in result.partials.items():
        if not math.isfinite(partial.value):
            failures.append(f"∂f/∂{name} = {partial.value} where the reference is finite")
            partial.within = False
            continue
        if partial.band is None:
            undecided.append(f"∂f/∂{name}: no expected accuracy here (the derivatives it needs are unknown)")
            continue
        exact = float(reference.values[name])
        trusted = reference.trusted_digits.get(name, reference.digits)
        tolerance = partial.band.tolerance + abs(exact) * 10.0 ** -trusted
        partial.within = partial.abs_error <= tolerance
        if not partial.within:
            failures.append(f"∂f/∂{name}: error {partial.abs_error:.2g} exceeds the expected "
                            f"{partial.band.tolerance:.2g} ({partial.band.source})")
        elif undecidable(tolerance, abs(reference.values[name])):     # the exact magnitude: 2e-324 is not 0
            undecided.append(f"∂f/∂{name}: the expected accuracy {tolerance:.2g} is as large as the value "
                             f"{mpmath.nstr(reference.values[name], 2)}")
    if failures:
        caveats = estimate.details.get("caveats", [])
        result.verdict, result.reason = FAIL, "; ".join(failures + list(caveats))
    elif all(p.band is None for p in result.partials.values()):
        result.verdict, result.reason = NOT_JUDGED, "no error band at this point (the derivatives it needs are unknown)"
    elif undecided:
        result.verdict = INCONCLUSIVE
        result.reason = ("a right value and a wrong one cannot be told apart here (" + "; ".join(undecided) +
                         "); another step or another method could decide")
    else:
        result.verdict, result.reason = PASS, "within the expected accuracy"


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
