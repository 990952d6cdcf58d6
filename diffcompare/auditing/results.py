"""The audit's results as data: the verdict of a point, a case's result, the report of every
case, and their plain (JSON) form read back."""

from __future__ import annotations

from dataclasses import dataclass, field

from diffcompare.judge.report import EXIT_FAILED, EXIT_PASSED, EXIT_UNDECIDED, Report

AGREE = "all agree"
WRONG = "autograd is wrong"
FD_UNRELIABLE = "FD is unreliable here"
NONDIFF = "kink: a right subgradient"           # a value between the one-sided derivatives
UNDEFINED = "undefined here"
ROUNDING_LOSS = "autograd loses accuracy to rounding"
UNVERIFIED = "autograd and FD agree (no exact reference)"
DISAGREE = "autograd and FD disagree (no exact reference)"
INCONCLUSIVE_HERE = "inconclusive: right and wrong cannot be told apart here"
INTERNAL = "internal error (a bug of diffcompare, not of the function)"
F_RAISED_HERE = "f raised here"                 # user code failed at the point: the case cannot be audited there
VERDICTS = (AGREE, WRONG, FD_UNRELIABLE, NONDIFF, UNDEFINED, ROUNDING_LOSS, UNVERIFIED, DISAGREE, INCONCLUSIVE_HERE,
            INTERNAL, F_RAISED_HERE)
FAILING = (WRONG, DISAGREE)
UNCHECKED = (UNDEFINED, UNVERIFIED, INCONCLUSIVE_HERE)  # autograd could not be held to the exact reference there

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
    check: str
    dtype: str
    engine: str
    status: str                     # "pass", "fail", "undecided" (a point asked for not checked), "error" (bad
                                    # input) or "internal" (diffcompare failed: its cause in ``error``)
    verdict: str
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

    def verdicts(self) -> str:
        """One line per case: name, status and verdict; then the exit status."""
        lines = [f"{c.name}: {c.status} — {c.verdict}" for c in self.cases]
        return "\n".join(lines + [f"exit status {self.exit_status}"])

    @classmethod
    def from_dict(cls, data: dict) -> "AuditReport":
        """The report back from its JSON form (:meth:`to_dict`)."""
        cases = []
        for c in data["cases"]:
            c = dict(c)
            c["points"] = [PointResult(**{k: from_plain(v) for k, v in p.items()}) for p in c["points"]]
            cases.append(CaseResult(**{k: (from_plain(v) if k != "points" else v) for k, v in c.items()}))
        return cls(cases, data.get("command", data.get("settings", {})), data.get("seconds", {}),
                   bool(data.get("interrupted", False)))


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


def worded(verdict: str, judged: str) -> str:
    """A verdict of the vocabulary above said of the gradient on trial ("autograd is wrong"
    of a user's gradient is "gradient my_grads:df is wrong")."""
    return verdict if judged == "autograd" else verdict.replace("autograd", judged)


def from_plain(value):
    """The inverse of the JSON encoding of non-finite floats ("nan", "inf", "-inf")."""
    if isinstance(value, dict):
        return {k: from_plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [from_plain(v) for v in value]
    if value in ("nan", "inf", "-inf"):
        return float(value)
    return value
