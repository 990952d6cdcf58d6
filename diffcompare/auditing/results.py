"""The audit's results as data: the verdict of a point, a case's result, the report of every
case, and their plain (JSON) form read back."""

from __future__ import annotations

import math

from dataclasses import dataclass, field

from diffcompare.judge.report import EXIT_FAILED, EXIT_PASSED, EXIT_UNDECIDED, RENDERERS, Report

# A point's verdict: codes (render/ words them, naming the gradient on trial)
AGREE = "agree"
WRONG = "wrong"
FD_UNRELIABLE = "fd-unreliable"
NONDIFF = "subgradient"             # at a kink: a value between the one-sided derivatives
UNDEFINED = "undefined"
ROUNDING_LOSS = "rounding-loss"
UNVERIFIED = "unverified"           # the gradient on trial and FD agree; no exact reference
DISAGREE = "disagree"               # ... and disagree
INCONCLUSIVE_HERE = "inconclusive"  # a right value and a wrong one cannot be told apart here
INTERNAL = "internal"               # a bug of diffcompare, not of the function
F_RAISED_HERE = "f-raised"          # user code failed at the point: the case cannot be audited there
VERDICTS = (AGREE, WRONG, FD_UNRELIABLE, NONDIFF, UNDEFINED, ROUNDING_LOSS, UNVERIFIED, DISAGREE, INCONCLUSIVE_HERE,
            INTERNAL, F_RAISED_HERE)
FAILING = (WRONG, DISAGREE)
UNCHECKED = (UNDEFINED, UNVERIFIED, INCONCLUSIVE_HERE)  # the gradient could not be held to the exact reference there

# A case's findings: records {"code": ..., numbers}, in the order render/ says them (joined by "; ").
# Besides the point verdicts above (each with its "count", and "total" for AGREE; "causes" for
# FD_UNRELIABLE; "point" and "reason" of the worst for the failing ones):
FALSE_ALARMS = "false-alarms"           # count: a plain gradcheck would have failed right gradients
UNCHECKED_ASKED = "unchecked-asked"     # count: points asked for that could not be checked
INTERNAL_AT = "internal-at"             # count, total, reason: diffcompare failed at some points
CASE_ERROR = "error"                    # error: the case could not be run (bad input; the text says why)
BAD_INPUT = "bad-input"                 # why: the case's input is wrong
AT_THE_OTHERS = "at-the-others"         # what follows is what the other points showed
INTERNAL_ERROR = "internal-error"       # error: diffcompare failed on the case
LATER_BATCH = "later-batch"             # internal (bool), error: a later batch failed
TIMED_OUT = "timed-out"                 # timeout, first, last: the time budget ran out before these points
UNIT_TIMED_OUT = "unit-timed-out"       # why: the supervisor's deadline ended the batch
INTERRUPTED = "interrupted"             # checked: whether some points were (Ctrl-C, SIGTERM)
NOT_RUN = "not-run"                     # no worker ran the case


def finding(code: str, **numbers) -> dict:
    """One finding of a case, as data.

    >>> finding(WRONG, count=1, total=3)
    {'code': 'wrong', 'count': 1, 'total': 3}
    """
    return {"code": code, **numbers}


# causes (codes) behind a point's verdict; render/ words them
WITHIN, OUTSIDE, RAISED = "within", "outside", "raised"     # all agree; autograd outside its tolerance; it raised
FD_KINK, FD_FLOAT32, FD_CANCELLATION, FD_TRUNCATION = "kink", "float32 rounding", "cancellation", "truncation"
FD_CAUSES = (FD_KINK, FD_FLOAT32, FD_CANCELLATION, FD_TRUNCATION)


@dataclass
class PointResult:
    """One point of one case: each method's entries, the verdict and why."""
    origin: str
    point: dict
    verdict: str
    reason: str
    gradcheck: str                  # what a plain gradcheck would have said: "pass", "fail", "—"
    autograd: list
    fd: list
    reference: list                 # nearest binary64 of the exact entries (None where undefined)
    autograd_error: float | None = None     # largest |autograd - exact| / |exact| over the entries
    fd_error: float | None = None
    cause: str = ""                 # the cause code behind the verdict (see FD_CAUSES, WITHIN, OUTSIDE, ...)

    @property
    def asked(self) -> bool:
        """Whether the user asked for this point explicitly, rather than the audit drawing
        it (random, adversarial points, kinks it searched for): a point asked for that cannot
        be decided leaves the case undecided; one the audit drew is counted and reported."""
        return any(part.startswith("explicit") for part in self.origin.split("; "))


@dataclass
class CaseResult:
    name: str
    source: str
    kind: str                       # what was checked: gradient, jacobian, hessian
    dtype: str
    engine: str
    status: str                     # "pass", "fail", "undecided" (a point asked for not checked), "error" (bad
                                    # input) or "internal" (diffcompare failed: its cause in ``error``)
    findings: list                  # what the case showed, as records (:func:`finding`); render/ says them
    error: str = ""
    judged: str = "autograd"        # the gradient on trial: autograd's, or "gradient module:function"
    variables: list = field(default_factory=list)
    entries: list = field(default_factory=list)
    tolerance: dict = field(default_factory=dict)
    points: list = field(default_factory=list)
    counts: dict = field(default_factory=dict)
    gradcheck: dict = field(default_factory=dict)   # false alarms / misses of the plain check
    worst: dict = field(default_factory=dict)       # method -> the worst point and entry
    wrong_node: str = ""
    notes: list = field(default_factory=list)
    seconds: dict = field(default_factory=dict)     # where the time went (not part of the result)
    output: str = ""                # what the case's own code printed (standard output and error), captured

    @property
    def verdict(self) -> str:
        """The findings in one sentence, as every report says them (render/ words them).

        >>> CaseResult("c", "x**2", "gradient", "float64", "diffcompare", "pass",
        ...            [finding(AGREE, count=3, total=3)]).verdict
        'all agree at 3 of 3 points'
        """
        return RENDERERS["AuditReport"]().verdict_of(self)


@dataclass(repr=False)
class AuditReport(Report):
    """Every case's result; ``exit_status`` 1 when a gradient is wrong (whatever else
    happened); else 3 when diffcompare itself failed on a case or a point (an internal
    error: the other points and cases are still reported), 2 when a case could not be run
    (bad input, or its function crashed or exited), 4 when a point asked for could not be
    decided, 0 when all pass."""
    cases: list
    settings: dict = field(default_factory=dict)
    seconds: dict = field(default_factory=dict)
    interrupted: bool = False       # stopped (Ctrl-C, SIGTERM) before every batch came back

    @property
    def methods(self):
        return []

    @property
    def exit_status(self) -> int:
        statuses = {c.status for c in self.cases}
        if "fail" in statuses:          # a wrong gradient says most, whatever else happened
            return EXIT_FAILED
        if "internal" in statuses:
            return 3
        if "error" in statuses:
            return 2
        return EXIT_UNDECIDED if "undecided" in statuses else EXIT_PASSED

    def case(self, name: str) -> CaseResult:
        for c in self.cases:
            if c.name == name:
                return c
        raise KeyError(name)



def apart(*numbers, least: int = 6) -> list:
    """The numbers side by side, each to the significant digits that tell them apart (at
    least ``least``, at most 17): a wrong value that differs from the exact one in the 8th
    digit shows 8 digits, not two identical 6-digit roundings.

    >>> apart(0.33046412345, 0.33046418765)
    ['0.3304641', '0.3304642']
    >>> apart(2.0, 2.5), apart(1 / 3, 1 / 3)
    (['2', '2.5'], ['0.333333', '0.333333'])
    """
    digits = distinct_digits(*numbers, least=least)
    return [_digits(v, digits) for v in numbers]


def distinct_digits(*numbers, least: int = 6) -> int | None:
    """The fewest significant digits, at least ``least``, that show the different numbers
    differently; None when only their shortest round-trip forms do (more than 17)."""
    finite = [float(v) for v in numbers if v is not None and math.isfinite(float(v))]
    for digits in range(least, 18):
        if len({f"{v:.{digits}g}" for v in finite}) == len(set(finite)):
            return digits
    return None


def _digits(v, digits) -> str:
    if v is None:
        return "unknown"
    v = float(v)
    if not math.isfinite(v):
        return str(v)
    return repr(v) if digits is None else f"{v:.{digits}g}"


def format_point(point: dict, most: int = 8) -> str:
    """``x=-0.5, y=2``: the point as a user would type it (shortest round-trip digits); an
    array of more than ``most`` elements shows its first ones and its size.

    >>> format_point({"x": 0.1, "v": [1.0, 2.5]})
    'x=0.1, v=[1.0, 2.5]'
    """
    return ", ".join(f"{n}={_shown(v, most)}" for n, v in point.items())


def _shown(value, most):
    if not isinstance(value, list):
        return repr(value)
    flat = [v for row in value for v in (row if isinstance(row, list) else [row])]
    if len(flat) <= most:
        return repr(value)
    return "[" + ", ".join(map(repr, flat[:most // 2])) + f", … ({len(flat)} elements)]"


def from_plain(value):
    """The inverse of the JSON encoding of non-finite floats ("nan", "inf", "-inf")."""
    if isinstance(value, dict):
        return {k: from_plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [from_plain(v) for v in value]
    if value in ("nan", "inf", "-inf"):
        return float(value)
    return value
