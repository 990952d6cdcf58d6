"""The verdicts a method can get, as data: an outcome, a cause code and the numbers behind
it. Renderers alone turn them into words and colours (:mod:`diffcompare.render.verdicts`).

>>> v = Verdict(FAIL, OUTSIDE, {"entry": "∂f/∂x", "error": 1e-3, "tolerance": 1e-12})
>>> v.outcome, v.cause, v.decided
('fail', 'outside', True)
>>> Verdict(INCONCLUSIVE, WIDE_BAND).decided
False
"""

from __future__ import annotations

from dataclasses import dataclass, field

# outcomes
PASS = "pass"                # within the accuracy this method can be expected to reach here
FAIL = "fail"                # outside it: the value is wrong for this method
NOT_JUDGED = "not judged"    # no verdict is possible (kink, domain, no reference): the cause says why
INCONCLUSIVE = "inconclusive"  # the expected accuracy is as large as the value: right and wrong look alike
# Besides these, a method that could not run carries its estimate's status as its outcome
# (``failed``, ``not applicable``, ``timed out``: see :mod:`diffcompare.methods.status`).

# causes: why the outcome is what it is
WITHIN = "within"                       # pass: every judged entry inside its band
ROUNDING = "rounding"                   # pass / inconclusive: outside the first-order band, but the error scales
                                        # with the precision (the precision re-run): rounding, not a wrong rule
RAISED = "raised"                       # fail: the method raised
OUTSIDE = "outside"                     # fail: an entry outside its band (numbers: the worst)
NON_FINITE = "non-finite"               # fail: nan or inf where the reference is finite
WIDE_BAND = "wide-band"                 # inconclusive: a band as large as the value, or infinite
NO_BAND = "no-band"                     # inconclusive / not judged: the band could not be derived here
KINK = "kink"                           # not judged: a difference stencil across a kink
SINGULAR = "singular"                   # not judged: f has no finite derivative here (an infinite slope, a jump)
DOMAIN = "domain"                       # not judged: f itself is not finite in binary64 here
F_RAISED = "f-raised"                   # not judged: f itself (user code) raised here
CROSSING = "crossing"                   # not judged: the stencil crosses a pole, a kink or a domain edge
REFERENCE_UNCERTAIN = "reference-uncertain"  # not judged: two routes to the reference disagree
NO_REFERENCE = "no-reference"           # not judged: no reference (undefined, timed out, unavailable)
METHOD_STATUS = "method-status"         # the method did not run: its status is the outcome

CAUSES = (WITHIN, ROUNDING, RAISED, OUTSIDE, NON_FINITE, WIDE_BAND, NO_BAND, KINK, SINGULAR, DOMAIN, F_RAISED, CROSSING,
          REFERENCE_UNCERTAIN, NO_REFERENCE, METHOD_STATUS)


@dataclass(frozen=True)
class Verdict:
    """A method's verdict: ``outcome`` (pass, fail, inconclusive, not judged, or the
    method's status), ``cause`` (one of :data:`CAUSES`), ``numbers`` (what decided it: the
    worst entry, its error and band, counts) and ``detail`` (a reason given from outside:
    a kink's or a domain error's description, an estimate's failure)."""
    outcome: str
    cause: str
    numbers: dict = field(default_factory=dict)
    detail: str = ""

    @property
    def decided(self) -> bool:
        """Whether the value was told right or wrong."""
        return self.outcome in (PASS, FAIL)

    @property
    def incomplete(self) -> bool:
        """A pass over the judged entries while some asked for were skipped (special points,
        no band); at points the tool drew itself, skipped and undecided entries are counted
        and reported, not held against the pass."""
        return self.outcome == PASS and bool(self.numbers.get("skipped")) and not self.numbers.get("drawn")

    def as_dict(self) -> dict:
        return {"outcome": self.outcome, "cause": self.cause, "numbers": dict(self.numbers),
                "detail": self.detail}


def undecidable(tolerance, reference):
    """Whether an error band of ``tolerance`` around ``reference`` is too wide to tell a
    right value from a wrong one: infinite or unknown, or as large as the value itself (a
    value of either sign, or 0, would pass). Works elementwise on NumPy arrays too.

    >>> undecidable(1e-12, 0.5), undecidable(0.7, 0.5), undecidable(float("inf"), 0.5)
    (False, True, True)
    """
    magnitude = abs(reference)
    return (tolerance != tolerance) | (tolerance == float("inf")) | ((magnitude > 0) & (tolerance >= magnitude))
