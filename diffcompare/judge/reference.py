"""The reference every error is measured against: the exact derivative at the exact
binary64 point, to ``digits`` significant digits, or — where no formula has a value there —
what f's derivative really is, decided from f itself.

At each point, the same way whether it is alone or among thousands:

1. SymPy's derivative, compiled once for mpmath, is evaluated at the binary64 point with a
   working precision that takes the digits it needs: the inputs' own span of magnitudes
   (1 + y at y = -1e-300 is exact), then two evaluations that must agree to the digits asked
   for, the precision raised (up to thousands of digits) until they do. A result of exactly
   0, or one mpmath's precision cannot settle, is evaluated again by SymPy's ``evalf`` at the
   exact rational point (which follows cancellations: 1 - tanh²(-184.6) is 1.8e-160).
2. Where f itself is not finite in binary64, the point is outside what any binary64 method
   can compute: nothing is judged there (``domain``).
3. Where an entry has no finite value (0·log 0, 0/0, an infinite intermediate) or f meets a
   kink or a singular intermediate on the way (sqrt(0) inside sqrt(x² + y²)²), the entry is
   decided from f by :mod:`~diffcompare.judge.differentiability`: differentiable (its value),
   a kink (the interval between the one-sided derivatives), one-sided, singular or undefined.

Where SymPy has no derivative (a callable with control flow on values), the same analysis of
f's quotients gives every entry (:func:`numerical_entries_reference`).

>>> from diffcompare.problem.problem import make_problem
>>> from diffcompare.methods.symbolic import differentiate
>>> p = make_problem("exp(x)/sqrt(sin(x)**3 + cos(x)**3)", {"x": 1.5})
>>> r = entries_reference(differentiate(p), p.flat_point()[None, :], digits=30, problem=p)
>>> r.source, r.text(0, 25)
('sympy', '4.053427893898620657714188')
>>> p = make_problem("x**y", {"x": 0.0, "y": 2.0})     # x^y y/x is 0/0 and x^y log x is 0·(-∞) here
>>> r = entries_reference(differentiate(p), p.flat_point()[None, :], problem=p)
>>> r.state[0].tolist(), r.high[0].tolist()
(['differentiable', 'differentiable'], [0.0, 0.0])
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field, replace
from fractions import Fraction

import mpmath
import numpy as np

from diffcompare.judge import differentiability
from diffcompare.judge.differentiability import DIFFERENTIABLE, JUDGEABLE, KINK, Finding
from diffcompare.autograd.quiet import quietly
from diffcompare.language.worlds import MPMATH, NUMPY
from diffcompare.methods.budget import TimedOut, time_limit
from diffcompare.methods.symbolic import SymbolicDerivative, mpmath_lambdify
from diffcompare.problem.problem import Problem
from diffcompare.problem.tasks import make_task

GUARD_DIGITS = 5        # the first evaluation carries this many extra digits
CHECK_DIGITS = 20       # the second, this many
MAX_DPS = 5000          # working digits at most
EVALF_TIMEOUT = 2.0     # seconds for SymPy's evalf of one entry at one point

# the state of an entry at a point
VALUE = "value"         # the formula's value (or the quotients' where there is no formula)
NONE = "none"           # no reference here (SymPy failed, the budget ran out)
DOMAIN = "domain"       # f itself is not finite in binary64 here: nothing is judged
STATES = (VALUE, NONE, DOMAIN) + differentiability.KINDS


def exact_point(problem: Problem) -> dict:
    """The point as exact rationals: the binary64 values themselves, not their decimal text."""
    return {name: Fraction(value) for name, value in problem.point.items()}


SYMPY_FAILED = "undefined here: SymPy cannot evaluate it ("


def evaluate_exactly(expr, subs, dps):
    """(mpf, "") or (None, why): evalf at the exact point (following cancellations to
    thousands of digits); where evalf leaves a special value unevaluated (Heaviside(0) inside
    a product, say), substitute exactly and retry."""
    import sympy
    why = ""
    for attempt in ("evalf", "substitute"):
        try:
            result = (expr.evalf(dps, subs=subs, maxn=MAX_DPS) if attempt == "evalf"
                      else expr.xreplace(subs).doit().evalf(dps, maxn=MAX_DPS))
        except TimedOut:
            raise
        except Exception as error:      # SymPy's own failures too (AttributeError, RecursionError at 1e308)
            why = f"{SYMPY_FAILED}{type(error).__name__}: {str(error)[:200]})"
            continue
        if attempt == "evalf" and isinstance(result, sympy.Float) and result._prec < 8:
            why = "SymPy's evalf could not resolve a cancellation"
            settled = expr.xreplace(subs).doit()
            if settled.is_number and settled.is_zero:
                return mpmath.mpf(0), ""
            continue
        value, why = _as_real(result, dps)
        if value is not None:
            return value, ""
    return None, why or "undefined here"


def _as_real(result, dps):
    """(mpf, "") for a finite real number, else (None, why)."""
    import sympy
    if isinstance(result, sympy.Number) and result.is_finite and result.is_real:
        with mpmath.workdps(dps + CHECK_DIGITS):
            return mpmath.mpf(sympy.Float(result, dps + CHECK_DIGITS)._mpf_), ""
    if result is sympy.nan:
        return None, "undefined here (SymPy gives nan)"
    if result in (sympy.zoo, sympy.oo, -sympy.oo):
        return None, f"infinite here (SymPy gives {result})"
    if result.is_number:
        real, imag = result.as_real_imag()
        if imag.is_number and imag.evalf(5) != 0:
            return None, f"not real here: SymPy gives {sympy.sstr(result.evalf(6))} (outside the real domain)"
        text = sympy.sstr(result.evalf(6))
        return None, f"undefined here: SymPy leaves {text}"
    return None, f"not a number: {sympy.sstr(result)}"


def _agreement(a, b, digits):
    """Significant digits on which two evaluations agree (capped at ``digits``)."""
    if b is None:
        return 0
    with mpmath.workdps(digits + CHECK_DIGITS):
        if a == b:
            return digits
        if not (mpmath.isfinite(a) and mpmath.isfinite(b)):
            return 0            # one precision overflows or fails where the other does not
        scale = max(abs(a), abs(b))
        if scale == 0:
            return digits
        return max(0, min(digits, int(-mpmath.log10(abs(a - b) / scale))))


@dataclass
class EntriesReference:
    """The exact entries (gradient, Jacobian, vᵀJ, Jv, Hessian; flat) at some of the points.

    ``high`` + ``low``: each value as a double-double (nan where there is none), so that
    binary64 errors are measured exactly in NumPy; ``lower``/``upper``: the interval a right
    value lies in (a kink: between the one-sided derivatives; else the value itself);
    ``slack``: the reference's own absolute uncertainty (from f's quotients); ``trusted``:
    the digits two working precisions agree on; ``state``: what each entry is (``value``,
    ``domain``, ``none`` or a finding's kind: differentiable, kink, one-sided, singular,
    undefined, uncertain); ``findings``: the analysis behind every entry decided from f
    ((row, entry) -> :class:`~diffcompare.judge.differentiability.Finding`); ``events``: the
    kinks and domain events f meets at each point (row -> events). At one point, ``exact``
    holds each entry's value as an mpmath number (None: none) and ``undefined`` why an entry
    has none."""
    digits: int
    indices: np.ndarray             # which points (rows of the points' array) have a reference
    high: np.ndarray                # (len(indices), entries): nearest binary64, nan where there is no value
    low: np.ndarray                 # the remainder: value = high + low to ~32 digits
    trusted: np.ndarray             # digits on which the two precisions agree
    reason: str = ""                # why there is no reference, when there is none
    note: str = ""
    seconds: float = 0.0
    source: str = "sympy"           # "sympy" (exact derivative) or "mpmath" (f's quotients)
    exact: list | None = None       # one point: every entry as an mpmath number (None: no value)
    undefined: dict = field(default_factory=dict)   # one point: entry -> why it has no value
    uncertain: dict = field(default_factory=dict)   # one point: entry -> how two routes to it disagree
    sympy_failed: bool = False      # SymPy could not evaluate its own formula (f's quotients stand in)
    names: list = field(default_factory=list)       # the inputs' labels (a gradient's entries, in order)
    state: np.ndarray | None = None
    lower: np.ndarray | None = None
    upper: np.ndarray | None = None
    slack: np.ndarray | None = None
    findings: dict = field(default_factory=dict)
    events: dict = field(default_factory=dict)
    domain: dict = field(default_factory=dict)      # row -> the event that makes f non-finite in binary64
    joint: dict = field(default_factory=dict)       # row -> a Joint: several entries at one kink, bounded together

    def __post_init__(self):
        shape = self.high.shape
        if self.state is None:
            self.state = np.where(np.isnan(self.high), NONE, VALUE).astype(object)
        if self.lower is None:
            self.lower = self.high.copy()
        if self.upper is None:
            self.upper = self.high.copy()
        if self.slack is None:
            self.slack = np.zeros(shape)

    @property
    def available(self):
        return self.indices.size > 0

    @property
    def label(self) -> str:
        if self.source == "sympy":
            return f"SymPy's exact derivative evaluated with mpmath to {self.digits} digits"
        return ("f's numerical derivative: its one-sided difference quotients in high precision, extrapolated "
                "(SymPy gave no exact derivative)")

    @property
    def judgeable(self) -> np.ndarray:
        """Entries a value can be held to: a value, or an interval (a kink, a subgradient)."""
        return np.isin(self.state, (VALUE,) + JUDGEABLE) & ~np.isnan(self.lower)

    @property
    def uncertainty(self) -> np.ndarray:
        """The reference's own absolute uncertainty per entry: its untrusted digits, or the
        error of f's quotients, whichever is larger."""
        with np.errstate(invalid="ignore"):
            return np.fmax(np.abs(np.nan_to_num(self.high)) * 10.0 ** -self.trusted.astype(float), self.slack)

    @property
    def magnitude(self) -> np.ndarray:
        """|exact value| of every entry (a kink: the larger end of its interval; 0 where none)."""
        with np.errstate(invalid="ignore"):
            ends = np.fmax(np.abs(self.lower), np.abs(self.upper))
        return np.where(self.interval, np.nan_to_num(ends), np.abs(np.nan_to_num(self.high)))

    @property
    def interval(self) -> np.ndarray:
        """Entries whose right values form an interval (kinks)."""
        return self.state == KINK

    def index(self, entry) -> int:
        """An entry's index from its index, its label (∂f/∂x) or, for a gradient, its variable."""
        return entry if isinstance(entry, int) else self.names.index(entry.removeprefix("∂f/∂"))

    def value(self, entry):
        """Entry ``entry`` at the one point as an mpmath number; None where it has no value."""
        return None if self.exact is None else self.exact[self.index(entry)]

    def finding(self, entry, row: int = 0):
        """The analysis of entry ``entry`` at reference row ``row`` (None: the formula decided)."""
        return self.findings.get((row, self.index(entry)))

    def text(self, entry, digits: int | None = None) -> str | None:
        """Entry ``entry`` (its index; for a gradient, also the variable's name or its
        position's label) at the one point as decimal text with ``digits`` (default: the
        trusted) significant digits; a kink's interval as [lower, upper]; None where it has
        no value."""
        entry = self.index(entry)
        finding = self.findings.get((0, entry))
        if finding is not None and finding.kind == KINK:
            with mpmath.workdps(30):
                return f"[{mpmath.nstr(finding.lower, 12)}, {mpmath.nstr(finding.upper, 12)}]"
        if self.exact is None or self.exact[entry] is None:
            return None
        value = self.exact[entry]
        shown = digits or max(1, int(self.trusted[0, entry]) if self.available else self.digits)
        with mpmath.workdps(self.digits + CHECK_DIGITS):
            if value and abs(mpmath.mag(value)) > 100_000:
                # decimal digits of exp(exp(exp(10))) would take forever: give the power of ten
                sign = "-" if value < 0 else ""
                return f"{sign}10^({mpmath.nstr(mpmath.log10(abs(value)), 12)})"
            return mpmath.nstr(value, shown, strip_zeros=False, min_fixed=-6, max_fixed=8)


def _none(digits, size, reason, start, **extra):
    empty = np.zeros((0, size))
    return EntriesReference(digits, np.zeros(0, dtype=int), empty, empty, empty.astype(int), reason=reason,
                            seconds=time.perf_counter() - start, **extra)


def _split(value, dps) -> tuple:
    """(nearest binary64, remainder) of an mpmath number."""
    with mpmath.workdps(dps):
        high = float(value)
        return high, (float(value - mpmath.mpf(high)) if mpmath.isfinite(value) else 0.0)


def _outward(value, direction: int) -> float:
    """The binary64 number next to ``value`` on the side ``direction`` (-1 down, +1 up), so
    that an interval rounded outward still holds what it held."""
    near = float(value)
    if not math.isfinite(near):
        return near
    if (direction < 0 and mpmath.mpf(near) > value) or (direction > 0 and mpmath.mpf(near) < value):
        return math.nextafter(near, direction * math.inf)
    return near


# -- the formula at a point: adaptive precision ---------------------------------------------

class _Formula:
    """SymPy's entries compiled once for mpmath, evaluated at a binary64 point with the
    working precision it needs (see the module's docstring)."""

    def __init__(self, derivative: SymbolicDerivative, deadline: float | None):
        import sympy
        self.derivative = derivative
        self.deadline = deadline
        try:
            self.compiled = mpmath_lambdify(derivative.symbols, derivative.partials, cse=sympy.cse(derivative.partials))
        except Exception:       # SymPy cannot print it for mpmath (zoo, say): evalf each entry
            self.compiled = None

    def _run(self, row, dps) -> list:
        if self.compiled is None:
            return [None] * len(self.derivative.partials)
        with mpmath.workdps(dps):
            args = [mpmath.mpf(float(v)) for v in row]     # exactly the binary64 inputs
            try:
                return [_real_or_none(v) for v in self.compiled(*args)]
            except (TimedOut, KeyboardInterrupt):
                raise
            except Exception:       # 1/0 raises in mpmath; a complex intermediate reaches atan2
                return [None] * len(self.derivative.partials)

    def at(self, row, digits) -> tuple:
        """(values: mpf or None, trusted digits, why not) of every entry at ``row``."""
        finite = [abs(float(v)) for v in row if float(v) != 0 and math.isfinite(float(v))]
        span = int(max([abs(math.log10(v)) for v in finite] + [0.0]))
        dps = digits + GUARD_DIGITS + span
        first = self._run(row, dps)
        second = self._run(row, dps + CHECK_DIGITS)
        size = len(first)
        values, trusted, why = [None] * size, [0] * size, [""] * size
        unsettled = []
        for k, (a, b) in enumerate(zip(first, second)):
            agreed = _agreement(a, b, digits) if a is not None and b is not None else 0
            if a is not None and b is not None and agreed >= digits and a != 0:
                values[k], trusted[k] = b, agreed
            elif a is not None and b is not None and _beyond(a) and _beyond(b) and mpmath.sign(a) == mpmath.sign(b):
                values[k], trusted[k] = b, digits       # beyond binary64 either way: it rounds to ±inf
            else:
                unsettled.append(k)
        # more digits where mpmath's two precisions disagree; SymPy's evalf where a value is 0
        # (a cancellation may round to 0 at every precision) or where mpmath has none
        first, second = self._more_digits(row, digits, dps, first, second, unsettled, values, trusted)
        if unsettled:
            self._evalf(row, digits, first, second, unsettled, values, trusted, why)
        return values, trusted, why

    def _more_digits(self, row, digits, dps, first, second, unsettled, values, trusted) -> tuple:
        """Double the working precision while mpmath's two precisions disagree at an entry
        (settled entries leave ``unsettled``); the last two runs."""
        while unsettled and dps < MAX_DPS and self.compiled is not None:
            disagree = [k for k in unsettled if first[k] is not None and second[k] is not None
                        and first[k] != 0 and _agreement(first[k], second[k], digits) < digits]
            if not disagree:
                break
            dps = min(MAX_DPS, 2 * dps)
            first, second = second, self._run(row, dps)
            for k in disagree:
                a, b = first[k], second[k]
                if a is not None and b is not None and _agreement(a, b, digits) >= digits:
                    values[k], trusted[k] = b, digits
                    unsettled.remove(k)
        return first, second

    def _evalf(self, row, digits, first, second, unsettled, values, trusted, why) -> None:
        """SymPy's evalf at the entries mpmath left unsettled, within the budget."""
        import sympy
        subs = {s: sympy.Rational(*float(v).as_integer_ratio()) for s, v in zip(self.derivative.symbols, row)}
        for k in unsettled:
            if self.deadline is not None and time.monotonic() > self.deadline:
                why[k] = "budget"
                continue
            try:
                with time_limit(EVALF_TIMEOUT):
                    value, why[k] = evaluate_exactly(self.derivative.partials[k], subs, digits + GUARD_DIGITS)
                    check = None
                    if value is not None and value != 0:
                        check, _ = evaluate_exactly(self.derivative.partials[k], subs, digits + CHECK_DIGITS)
            except TimedOut:
                value, why[k] = (second[k], "") if second[k] is not None else (None, "evalf timed out")
                check = first[k]
            if value is not None:
                values[k] = value
                trusted[k] = digits if value == 0 else _agreement(value, check, digits)


BEYOND = mpmath.mpf(2) ** 1100


def _beyond(value) -> bool:
    """Whether an mpmath number lies far beyond binary64's range (its digits do not matter)."""
    return abs(value) > BEYOND


def _real_or_none(value):
    if isinstance(value, mpmath.mpc):
        return mpmath.mpf(value.real) if value.imag == 0 else None
    try:
        value = mpmath.mpf(value)
    except (TypeError, ValueError):
        return None
    return value if mpmath.isfinite(value) else None


# -- the reference at each point ---------------------------------------------------------------

def entries_reference(derivative: SymbolicDerivative, flat: np.ndarray, digits: int = 30,
                      timeout: float | None = 10.0, max_points: int = 2000, problem: Problem | None = None,
                      task=None) -> EntriesReference:
    """The reference entries at up to ``max_points`` of the rows of ``flat`` (evenly spread),
    each point on its own (see the module's docstring). With ``problem`` (and ``task``: the
    gradient when None), points where f meets a kink or an entry has no finite value are
    decided from f; without it, such entries have no reference."""
    start = time.perf_counter()
    count = flat.shape[0]
    size = len(derivative.partials or ())
    if derivative.partials is None:
        return _none(digits, size, f"no reference: SymPy has no exact derivative ({derivative.reason})", start)
    indices = np.arange(count) if count <= max_points else np.unique(
        np.linspace(0, count - 1, max_points).round().astype(int))
    deadline = None if timeout is None else time.monotonic() + timeout
    try:
        with time_limit(timeout):
            formula = _Formula(derivative, deadline)
    except TimedOut as stop:
        return _none(digits, size, f"the reference timed out after {stop.seconds:g} s", start)
    builder = _Builder(len(indices), size, digits, count == 1)
    reached = 0
    try:
        with time_limit(timeout):
            for row, index in enumerate(indices):
                moved = None if problem is None else _moved(problem, flat[index])
                if moved is not None and _domain(builder, row, moved, size):
                    reached = row + 1
                    continue            # f is not finite in binary64 here: nothing to judge
                values, trusted, why = formula.at(flat[index], digits)
                builder.formula(row, values, trusted, why)
                if moved is not None:
                    _special(builder, row, moved, _task_of(problem, task), values, deadline)
                reached = row + 1
    except TimedOut as stop:
        if reached == 0:
            return _none(digits, size, f"the reference timed out after {stop.seconds:g} s", start)
        builder.note = (f"the reference's budget ({stop.seconds:g} s) ran out after {reached:,} of the "
                        f"{len(indices):,} points")
        indices = indices[:reached]
    reference = builder.build(indices, start)
    if count != len(indices) and not builder.note:
        reference.note = f"the reference is computed at {len(indices):,} of the {count:,} points"
    if count == 1 and all(v is None for v in (reference.exact or [None])) and not reference.judgeable.any():
        reference.reason = next(iter(reference.undefined.values()), "undefined here")
        if all(s == NONE for s in reference.state[0]) and any(w.startswith(SYMPY_FAILED) for w in
                                                                reference.undefined.values()):
            reference.sympy_failed = True
    return reference


def _moved(problem, row):
    return replace(problem, point=problem.split(np.asarray(row, dtype=np.float64)))


def _task_of(problem, task):
    if task is not None:
        return task
    return make_task(problem, "gradient", shape=())


class _Builder:
    """The arrays of an EntriesReference, filled point by point."""

    def __init__(self, rows, size, digits, one_point):
        self.digits, self.one_point = digits, one_point
        self.high = np.full((rows, size), np.nan)
        self.low = np.zeros((rows, size))
        self.trusted = np.zeros((rows, size), dtype=int)
        self.lower = np.full((rows, size), np.nan)
        self.upper = np.full((rows, size), np.nan)
        self.slack = np.zeros((rows, size))
        self.state = np.full((rows, size), NONE, dtype=object)
        self.findings, self.events, self.domain, self.joint = {}, {}, {}, {}
        self.exact = [None] * size if one_point else None
        self.undefined = {}
        self.note = ""

    def value(self, row, k, value, trusted, error=0):
        self.high[row, k], self.low[row, k] = _split(value, self.digits + CHECK_DIGITS)
        if error and abs(self.low[row, k]) <= error:
            self.low[row, k] = 0.0      # the nearest binary64 lies within the value's own uncertainty
        self.lower[row, k] = self.upper[row, k] = self.high[row, k]
        self.trusted[row, k] = trusted
        self.slack[row, k] = float(error)
        if self.one_point:
            self.exact[k] = value

    def formula(self, row, values, trusted, why):
        for k, value in enumerate(values):
            if value is not None:
                self.value(row, k, value, trusted[k])
                self.state[row, k] = VALUE
            elif self.one_point:
                self.undefined[k] = why[k] or "undefined here"

    def finding(self, row, k, finding: Finding):
        self.findings[(row, k)] = finding
        self.state[row, k] = finding.kind
        self.high[row, k], self.low[row, k] = np.nan, 0.0
        self.lower[row, k] = self.upper[row, k] = np.nan
        if self.one_point:
            self.exact[k] = None
        if finding.kind in (DIFFERENTIABLE, differentiability.ONE_SIDED):
            error = finding.error
            with mpmath.workdps(self.digits + CHECK_DIGITS):
                trusted = self.digits if error == 0 or finding.value == 0 else \
                    int(max(0, min(self.digits, -mpmath.log10(error / abs(finding.value)))))
            self.value(row, k, finding.value, trusted, error)
            self.undefined.pop(k, None)
        elif finding.kind == KINK:
            self.lower[row, k] = _outward(finding.lower, -1)
            self.upper[row, k] = _outward(finding.upper, +1)
            self.slack[row, k] = float(finding.error)
            self.trusted[row, k] = self.digits
            self.undefined.pop(k, None)

    def build(self, indices, start) -> EntriesReference:
        rows = len(indices)
        reference = EntriesReference(self.digits, np.asarray(indices), self.high[:rows], self.low[:rows],
                                     self.trusted[:rows], seconds=time.perf_counter() - start,
                                     exact=self.exact, undefined=self.undefined, state=self.state[:rows],
                                     lower=self.lower[:rows], upper=self.upper[:rows], slack=self.slack[:rows],
                                     findings=self.findings, events=self.events, domain=self.domain, note=self.note,
                                     joint=self.joint)
        return reference


def _domain(builder: _Builder, row: int, problem: Problem, size: int) -> bool:
    """Whether f is not finite in binary64 at the point (then nothing is judged there: the
    row's state is ``domain``, with the event that made it so); records f's events."""
    events = problem.events()
    if events:
        builder.events[row] = events
    if _finite_f(problem):
        return False
    event = next((e for e in events if e.kind == "domain"), None)
    builder.domain[row] = event
    builder.state[row, :] = DOMAIN
    if builder.one_point:
        with np.errstate(all="ignore"):
            f_value = problem.value()
        for k in range(size):
            builder.undefined[k] = "f itself is not finite in binary64 here" + \
                (f" ({event.text})" if event is not None else f" (f = {f_value:g})")
    return True


def _special(builder: _Builder, row: int, problem: Problem, task, values: list, deadline) -> None:
    """Where f meets a kink or a domain event on the way, or an entry has no finite value,
    decide the entries from f (f is finite in binary64 here: see :func:`_domain`)."""
    events = builder.events.get(row, [])
    wanted = list(range(len(values))) if events else [k for k, v in enumerate(values) if v is None]
    if not wanted:
        return
    if task.kind == "hessian":
        _special_hessian(builder, row, problem, task, values, deadline, events, wanted)
        return
    findings = differentiability.analyse(problem, task, wanted, formula=values,
                                         timeout=_left(deadline, differentiability.DEFAULT_TIMEOUT))
    for k in wanted:
        finding = findings[k]
        if finding is None:
            continue
        if finding.kind == DIFFERENTIABLE and differentiability.FORMULA in finding.routes and not events:
            continue                # the formula's value, confirmed: nothing to add
        builder.finding(row, k, finding)
    kinks = [k for k in wanted if findings[k] is not None and findings[k].kind == KINK]
    if len(wanted) == len(values) and _several_pieces(events):
        # several kinks at once, or one of several pieces (clamp with lo = hi, a tie in an array's
        # max): do the entries' own findings describe f's slopes? (one kink between two smooth
        # pieces always does: each entry's interval is the projection of the segment between them)
        if differentiability.consistent(problem, task, [findings[k] for k in wanted],
                                        timeout=_left(deadline)) is False:
            for k in wanted:
                builder.finding(row, k, Finding(differentiability.NOT_DIFFERENTIABLE, findings[k].value,
                                                left=findings[k].left, right=findings[k].right,
                                                routes=findings[k].routes))
            kinks = []
    if len(kinks) > 1:
        together = differentiability.joint(problem, task, kinks, timeout=_left(deadline))
        if together is not None:
            builder.joint[row] = together


def _left(deadline, most: float | None = None) -> float | None:
    """The seconds left before ``deadline`` (at least 0.05; at most ``most``; None: no deadline)."""
    if deadline is None:
        return most
    left = max(0.05, deadline - time.monotonic())
    return left if most is None else min(most, left)


def _several_pieces(events) -> bool:
    """Whether f meets several kinks at once, or one joining more than two pieces."""
    kinks = [e for e in events if e.kind == "kink"]
    return len(kinks) > 1 or any(len(e.arguments) > 2 or any(np.ndim(a) for a in e.arguments) for e in kinks)


def _special_hessian(builder, row, problem, task, values, deadline, events, wanted) -> None:
    """A Hessian's entries decided from f: none along an input whose first derivative is not
    finite; mpmath's second differences of f where the formula has no value."""
    if events:
        # no second derivative along an input whose first derivative is not finite here (sum(sqrt(x))
        # at 0: ∂f/∂x0 = 1/(2 sqrt(x0)) is infinite, so row and column 0 of the Hessian do not exist)
        first = _gradient_at(problem)
        missing_first = [i for i, value in enumerate(first) if value is None]
        if missing_first:       # the formula has no value: does f itself have a first derivative there?
            gradient_task = make_task(problem, "gradient", shape=())
            found = differentiability.analyse(problem, gradient_task, missing_first, timeout=deadline and
                                              max(0.05, deadline - time.monotonic()))
            for i in missing_first:
                if found[i] is not None and found[i].kind == DIFFERENTIABLE:
                    first[i] = found[i].value
        for i, value in enumerate(first):
            if value is None:
                for k in {i * task.n + j for j in range(task.n)} | {j * task.n + i for j in range(task.n)}:
                    builder.finding(row, k, Finding(differentiability.SINGULAR, notes=("first derivative",)))
        wanted = [k for k in wanted if (row, k) not in builder.findings]
    # second derivatives where the formula has none: mpmath's second differences of f itself
    # (sin(x)/x written with a branch at 0 is smooth there); no kink analysis of second derivatives
    missing = [k for k in wanted if values[k] is None]
    if missing and not problem.has_arrays:
        for k, (value, trusted, why) in enumerate(_numerical_hessian(problem, builder.digits)):
            if k in missing and value is not None and trusted >= 3:
                builder.value(row, k, value, trusted)
                builder.state[row, k] = VALUE
                builder.undefined.pop(k, None)


def _gradient_at(problem) -> list:
    """f's first derivatives at the point (SymPy's formula in mpmath; None where not finite,
    or all None where SymPy cannot follow f)."""
    import sympy
    try:
        outputs, symbols = problem.sympy_outputs()
        partials = [sympy.diff(outputs[0], s) for s in symbols]
    except Exception:
        return [None] * len(problem.input_labels)
    args = [mpmath.mpf(float(v)) for v in problem.flat_point()]
    out = []
    for partial in partials:            # one by one: 1/0 in one raises in mpmath, the others still count
        try:
            with mpmath.workdps(40):
                out.append(_real_or_none(mpmath_lambdify(symbols, partial)(*args)))
        except (TimedOut, KeyboardInterrupt):
            raise
        except Exception:
            out.append(None)
    return out


def _finite_f(problem) -> bool:
    """Whether f's value at the point is finite in binary64 (every output)."""
    try:
        out = quietly(problem.evaluate, NUMPY, problem.point)
        return bool(np.all(np.isfinite(np.asarray(out, dtype=np.float64))))
    except Exception:
        return False


# -- f's quotients where SymPy has no derivative -------------------------------------------------

def numerical_entries_reference(problem: Problem, flat: np.ndarray, digits: int = 30, timeout: float | None = 10.0,
                                why: str = "", task=None) -> EntriesReference:
    """The entries of ``task`` (the gradient when None; a Jacobian, vᵀJ, Jv or Hessian) at
    each row of ``flat``, for f that SymPy cannot follow (a branch on the value): f's
    one-sided difference quotients in high precision on both sides
    (:func:`~diffcompare.judge.differentiability.analyse`), which also find kinks; a
    Hessian by mpmath's second derivatives at two working precisions. Scalar variables only."""
    start = time.perf_counter()
    count, n = flat.shape
    task = _task_of(problem, task)
    size = task.size
    deadline = None if timeout is None else time.monotonic() + timeout
    refused = _not_high_precision(_moved(problem, flat[0]), digits)
    if refused:
        return _none(digits, size, refused, start, source="mpmath")
    builder = _Builder(count, size, digits, count == 1)
    reached = 0
    try:
        with time_limit(timeout):
            for row in range(count):
                moved = _moved(problem, flat[row])
                if task.kind == "hessian":
                    for k, (value, trusted, why_not) in enumerate(_numerical_hessian(moved, digits)):
                        if value is not None:
                            builder.value(row, k, value, trusted)
                            builder.state[row, k] = VALUE
                        elif count == 1:
                            builder.undefined[k] = why_not
                elif not _domain(builder, row, moved, size):
                    _special(builder, row, moved, task, [None] * size, deadline)
                    for k in range(size):
                        finding = builder.findings.get((row, k))
                        if finding is not None and finding.kind == DIFFERENTIABLE:
                            builder.state[row, k] = VALUE       # the quotients' value: f is smooth here
                        elif count == 1 and finding is not None and not finding.judgeable:
                            builder.undefined[k] = f"no finite derivative here ({finding.kind})"
                reached = row + 1
    except TimedOut as stop:
        if reached == 0:
            return _none(digits, size, f"the numerical reference timed out after {stop.seconds:g} s", start,
                         source="mpmath")
        builder.note = f"the reference's budget ran out after {reached:,} of the {count:,} points"
    reference = builder.build(np.arange(reached), start)
    reference.source = "mpmath"
    if not reference.judgeable.any() and not reference.domain:
        reference = _none(digits, size, next(iter(builder.undefined.values()), "no numerical reference"), start,
                          source="mpmath", exact=builder.exact, undefined=builder.undefined if count == 1 else {},
                          findings=builder.findings if count == 1 else {}, events=builder.events)
        return reference
    said = "reference: f's numerical derivative, by its one-sided difference quotients in high precision"
    reference.note = reference.note or (f"{said} ({why})" if why else said)
    return reference


def _not_high_precision(problem: Problem, digits: int) -> str:
    """Why mpmath cannot differentiate f at the point in high precision ("" when it can):
    f fails on mpmath numbers, or computes in binary64 (math.sin) and returns a float."""
    f = problem.world_function(MPMATH)
    with mpmath.workdps(digits + GUARD_DIGITS):
        try:
            probe = f(*[mpmath.mpf(v.numerator) / v.denominator if not isinstance(v, np.ndarray) else v
                        for v in exact_point(problem).values()])
        except Exception as error:
            return f"no high-precision reference: f failed on mpmath numbers ({type(error).__name__}: {error})"
    if isinstance(probe, (mpmath.mpf, mpmath.mpc)) or isinstance(probe, (list, tuple, np.ndarray)):
        return ""
    if not differentiability.computes_in_binary64(problem, [float(v) for v in problem.flat_point()]):
        return ""               # constants written in f (a branch returning 1.0): exact
    return (f"no high-precision reference: f returned {type(probe).__name__} for mpmath numbers, so it computes "
            "in lower precision (math.sin instead of diffcompare.language.functions.sin?)")


def _numerical_hessian(problem: Problem, digits: int) -> list:
    """[(value or None, trusted digits, why not)] for every entry of the Hessian: mpmath's
    second derivatives (mixed ones with one step for both variables) at two working
    precisions, the step relative to the point's scale."""
    f = problem.world_function(MPMATH)
    names = problem.variables
    point = exact_point(problem)

    def derivative(orders, dps):
        with mpmath.workdps(dps):
            at = [mpmath.mpf(v.numerator) / v.denominator for v in point.values()]
            used = [i for i, o in enumerate(orders) if o]
            scale = min([mpmath.mpf(1)] + [abs(at[i]) for i in used if at[i]])
            h = scale * mpmath.mpf(10) ** -(dps // 3)
            return mpmath.diff(f, at, orders, h=h)

    def entry(orders):
        results = []
        for dps in (digits + GUARD_DIGITS, digits + CHECK_DIGITS):
            try:
                results.append(derivative(orders, 3 * dps))
            except Exception as error:      # f raised on mpmath numbers: no value there
                results.append(error)
        first, check = results
        if not isinstance(first, mpmath.mpf) or not mpmath.isfinite(first):
            return None, 0, (f"mpmath could not differentiate f here: {first}" if isinstance(first, Exception)
                             else f"not a finite real number: {first}")
        return first, _agreement(first, check if isinstance(check, mpmath.mpf) else None, digits), ""

    def unit(*indices):
        orders = [0] * len(names)
        for i in indices:
            orders[i] += 1
        return tuple(orders)
    return [entry(unit(i, j)) for i in range(len(names)) for j in range(len(names))]
