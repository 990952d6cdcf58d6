"""The reference every error is measured against: SymPy's exact derivative evaluated by
mpmath (``evalf``) at the exact binary64 point, to ``digits`` significant digits.

Each value is computed at two working precisions and the digits on which they agree
are the ones trusted. When SymPy has no derivative (a callable with control flow on
values, or a time-out), the reference is mpmath's high-precision numerical derivative
of f, labelled as such.

>>> from diffcompare.problem.problem import make_problem
>>> from diffcompare.methods.symbolic import differentiate
>>> p = make_problem("exp(x)/sqrt(sin(x)**3 + cos(x)**3)", {"x": 1.5})
>>> r = entries_reference(differentiate(p), p.flat_point()[None, :], digits=30)
>>> r.source, r.text(0, 25)
('sympy', '4.053427893898620657714188')
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from fractions import Fraction

import mpmath
import numpy as np

from diffcompare.language.worlds import MPMATH
from diffcompare.methods.budget import TimedOut, time_limit
from diffcompare.methods.symbolic import SymbolicDerivative
from diffcompare.problem.problem import Problem

GUARD_DIGITS = 5        # the first evaluation carries this many extra digits
CHECK_DIGITS = 20       # the second, this many


def exact_point(problem: Problem) -> dict:
    """The point as exact rationals: the binary64 values themselves, not their decimal text."""
    return {name: Fraction(value) for name, value in problem.point.items()}


SYMPY_FAILED = "undefined here: SymPy cannot evaluate it ("


def evaluate_exactly(expr, subs, dps):
    """(mpf, "") or (None, why): evalf at the exact point; where evalf leaves a special
    value unevaluated (Heaviside(0) inside a product, say), substitute exactly and retry."""
    import sympy
    why = ""
    for attempt in ("evalf", "substitute"):
        try:
            result = (expr.evalf(dps, subs=subs) if attempt == "evalf"
                      else expr.xreplace(subs).doit().evalf(dps))
        except TimedOut:
            raise
        except Exception as error:      # SymPy's own failures too (AttributeError, RecursionError at 1e308)
            why = f"{SYMPY_FAILED}{type(error).__name__}: {str(error)[:200]})"
            continue
        if attempt == "evalf" and isinstance(result, sympy.Float) and result._prec < 8:
            # evalf could only bound it ("0.e-157": a cancellation it cannot resolve, such as
            # 1 - 1/sqrt(1 - x²) at 0): the exact substitution may settle it
            why = "SymPy's evalf could not resolve a cancellation"
            settled = expr.xreplace(subs).doit()
            if settled.is_number and settled.is_zero:
                return mpmath.mpf(0), ""
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
    """The exact entries (gradient, Jacobian, vᵀJ, Jv, Hessian; flat) at some of the points,
    kept as a double-double (``high`` + ``low``) so that binary64 errors can be measured
    exactly in NumPy. At one point, each entry's value itself (``exact``), why an entry
    has none (``undefined``) and where a second route contradicts it (``uncertain``)."""
    digits: int
    indices: np.ndarray             # which points (rows of the points' array) have a reference
    high: np.ndarray                # (len(indices), entries): nearest binary64, nan where undefined
    low: np.ndarray                 # the remainder: value = high + low to ~32 digits
    trusted: np.ndarray             # digits on which the two precisions agree
    reason: str = ""                # why there is no reference, when there is none
    note: str = ""
    seconds: float = 0.0
    source: str = "sympy"           # "sympy" (exact derivative) or "mpmath" (numerical derivative of f)
    exact: list | None = None       # one point: every entry as an mpmath number (None: undefined)
    undefined: dict = field(default_factory=dict)   # one point: entry -> why it has no value
    uncertain: dict = field(default_factory=dict)   # one point: entry -> how two routes to it disagree
    sympy_failed: bool = False      # SymPy could not evaluate its own formula (mpmath may stand in)
    names: list = field(default_factory=list)       # the inputs' labels (a gradient's entries, in order)

    @property
    def available(self):
        return self.indices.size > 0

    @property
    def label(self) -> str:
        if self.source == "sympy":
            return f"SymPy's exact derivative evaluated with mpmath to {self.digits} digits"
        return f"mpmath's numerical derivative of f at {self.digits}+ digits (SymPy gave no exact derivative)"

    def index(self, entry) -> int:
        """An entry's index from its index, its label (∂f/∂x) or, for a gradient, its variable."""
        return entry if isinstance(entry, int) else self.names.index(entry.removeprefix("∂f/∂"))

    def value(self, entry):
        """Entry ``entry`` at the one point as an mpmath number; None where it is undefined."""
        return None if self.exact is None else self.exact[self.index(entry)]

    def text(self, entry, digits: int | None = None) -> str | None:
        """Entry ``entry`` (its index; for a gradient, also the variable's name or its
        position's label) at the one point as decimal text with ``digits`` (default: the
        trusted) significant digits; None where it is undefined."""
        entry = self.index(entry)
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


def entries_reference(derivative: SymbolicDerivative, flat: np.ndarray, digits: int = 30,
                      timeout: float | None = 10.0, max_points: int = 2000, problem: Problem | None = None,
                      task=None) -> EntriesReference:
    """The reference entries at up to ``max_points`` of the rows of ``flat`` (evenly spread).

    At one point each entry is evaluated by ``evalf`` at the exact binary64 point (SymPy
    follows cancellations there to the digits asked for) and, for a gradient given its
    ``problem`` and ``task``, checked by a second route (:func:`cross_check`); at many
    points SymPy's entries are compiled once for mpmath."""
    start = time.perf_counter()
    count = flat.shape[0]
    size = len(derivative.partials or ())
    if derivative.partials is None:
        return _none(digits, size, f"no reference: SymPy has no exact derivative ({derivative.reason})", start)
    try:
        with time_limit(timeout):
            if count == 1:
                reference = _at_one_point(derivative, flat[0], digits, start)
                if problem is not None and task is not None and reference.available:
                    cross_check(problem, task, reference)
                reference.seconds = time.perf_counter() - start
                return reference
            return _at_many_points(derivative, flat, digits, max_points, start)
    except TimedOut as stop:
        return _none(digits, size, f"the reference timed out after {stop.seconds:g} s", start)


def _at_one_point(derivative, row, digits, start) -> EntriesReference:
    import sympy
    subs = {s: sympy.Rational(*float(v).as_integer_ratio()) for s, v in zip(derivative.symbols, row)}
    size = len(derivative.partials)
    if derivative.expression is not None and not getattr(derivative.expression, "is_Matrix", False):
        value, why = evaluate_exactly(derivative.expression, subs, digits)
        if value is None and why.startswith(SYMPY_FAILED):
            return _none(digits, size, f"SymPy could not evaluate its formula here ({why[len(SYMPY_FAILED):]}",
                         start, sympy_failed=True)
        if value is None:
            return _none(digits, size, f"f itself is {why}", start, exact=[None] * size,
                         undefined=dict.fromkeys(range(size), f"f itself is {why}"))
    high, low = np.full((1, size), np.nan), np.zeros((1, size))
    trusted = np.zeros((1, size), dtype=int)
    exact, undefined = [], {}
    for k, entry in enumerate(derivative.partials):
        value, why = evaluate_exactly(entry, subs, digits + GUARD_DIGITS)
        exact.append(value)
        if value is None:
            undefined[k] = why
            continue
        check, _ = evaluate_exactly(entry, subs, digits + CHECK_DIGITS)
        high[0, k], low[0, k] = _split(value, digits + CHECK_DIGITS)
        trusted[0, k] = _agreement(value, check, digits)
    if all(v is None for v in exact):
        reason = next(iter(undefined.values()), "undefined here")
        return _none(digits, size, reason, start, exact=exact, undefined=undefined)
    return EntriesReference(digits, np.arange(1), high, low, trusted, exact=exact, undefined=undefined)


def _at_many_points(derivative, flat, digits, max_points, start) -> EntriesReference:
    import sympy
    count = flat.shape[0]
    indices = np.arange(count) if count <= max_points else np.unique(
        np.linspace(0, count - 1, max_points).round().astype(int))
    high = np.full((len(indices), len(derivative.partials)), np.nan)
    low = np.zeros_like(high)
    trusted = np.zeros(high.shape, dtype=int)
    try:
        replacements, reduced = sympy.cse(derivative.partials)
        function = sympy.lambdify(derivative.symbols, derivative.partials,
                                  modules=[{"DiracDelta": lambda *a: mpmath.mpf(0) if a[0] else mpmath.nan},
                                           "mpmath"],
                                  cse=lambda exprs: (replacements, reduced))
    except Exception:           # SymPy cannot print it for mpmath (zoo, say): evalf each entry
        function = None
    for row, index in enumerate(indices):
        args = [mpmath.mpf(float(v)) for v in flat[index]]      # exactly the binary64 inputs
        first = _mp_entries(function, args, digits + GUARD_DIGITS, derivative)
        check = _mp_entries(function, args, digits + CHECK_DIGITS, derivative)
        with mpmath.workdps(digits + CHECK_DIGITS):
            for k, (a, b) in enumerate(zip(first, check)):
                if a is None or b is None:
                    continue
                high[row, k], low[row, k] = _split(b, digits + CHECK_DIGITS)
                trusted[row, k] = _agreement(a, b, digits)
    note = "" if count == len(indices) else f"the reference is computed at {len(indices):,} of the {count:,} points"
    return EntriesReference(digits, indices, high, low, trusted, note=note, seconds=time.perf_counter() - start)


CROSS_CHECK_DIGITS = 12     # the second route must be this sure of itself to contradict the first
CROSS_CHECK_RTOL = 1e-6
CROSS_CHECK_MAX_VARIABLES = 20      # numerical differentiation costs a few evaluations of f per variable


def cross_check(problem: Problem, task, reference: EntriesReference) -> None:
    """SymPy's gradient at one point checked by a second, independent route: mpmath's
    numerical differentiation of f itself, run on mpmath numbers (log1p there is mpmath's,
    where SymPy's log(1 + y) at y = -1e-300 rounds to log(1) = 0 at any working
    precision). Where that route is sure of itself (two precisions agree to 12 digits) and
    the two disagree beyond 1e-6 relative, the entry is uncertain: trusted to no digit, and
    the disagreement is said. Gradients of scalar variables only; skipped beyond 20."""
    if (task.kind != "gradient" or task.output_shape or problem.has_arrays
            or len(problem.variables) > CROSS_CHECK_MAX_VARIABLES):
        return
    try:
        check = numerical_entries_reference(problem, problem.flat_point()[None, :], reference.digits, None,
                                            "a check of SymPy's value", task)
    except TimedOut:
        return                      # the budget is spent: the check is skipped, not the reference
    except Exception:
        return
    if not check.available or check.exact is None:
        return
    f = problem.world_function(MPMATH)
    with mpmath.workdps(reference.digits + CHECK_DIGITS):
        try:
            size = abs(f(*[mpmath.mpf(v) for v in problem.point.values()]))
        except Exception:
            return
    for k, name in enumerate(problem.variables):
        a, b = reference.exact[k], check.exact[k]
        trusted = int(check.trusted[0, k])
        if a is None or b is None or trusted < CROSS_CHECK_DIGITS:
            continue
        with mpmath.workdps(reference.digits + CHECK_DIGITS):
            # what the numerical route cannot resolve: its digits of f's change along the variable
            x = abs(mpmath.mpf(problem.point[name]))
            noise = mpmath.mpf(10) ** -(trusted - 2) * (size / x if x else size)
            if abs(a - b) > CROSS_CHECK_RTOL * abs(b) + noise:
                reference.trusted[0, k] = 0
                reference.uncertain[k] = (f"SymPy's formula gives {mpmath.nstr(a, 8)}, mpmath's differentiation "
                                          f"of f gives {mpmath.nstr(b, 8)}")


def numerical_entries_reference(problem: Problem, flat: np.ndarray, digits: int = 30, timeout: float | None = 10.0,
                                why: str = "", task=None) -> EntriesReference:
    """The entries of ``task`` (the gradient when None; a Jacobian, vᵀJ, Jv or Hessian) at
    each row of ``flat`` by mpmath's numerical differentiation of f run on mpmath numbers,
    for f that SymPy cannot follow (a branch on the value); each entry trusted to the
    digits on which two working precisions agree. Scalar variables only."""
    start = time.perf_counter()
    count, n = flat.shape
    size = n if task is None else task.size
    high, low = np.full((count, size), np.nan), np.zeros((count, size))
    trusted = np.zeros((count, size), dtype=int)
    exact, undefined = [], {}
    try:
        with time_limit(timeout):
            for row in range(count):
                moved = replace(problem, point=dict(zip(problem.variables, map(float, flat[row]))))
                refused = _not_high_precision(moved, digits)
                if refused:
                    return _none(digits, size, refused, start, source="mpmath")
                entries = _numerical_task(moved, task, digits)
                for k, (value, digits_trusted, why_not) in enumerate(entries):
                    if count == 1:
                        exact.append(value)
                    if value is None:
                        undefined[k] = why_not
                        continue
                    high[row, k], low[row, k] = _split(value, digits + CHECK_DIGITS)
                    trusted[row, k] = digits_trusted
    except TimedOut as stop:
        return _none(digits, size, f"the numerical reference timed out after {stop.seconds:g} s", start,
                     source="mpmath")
    if np.isnan(high).all():
        return _none(digits, size, next(iter(undefined.values()), "no numerical reference"), start, source="mpmath",
                     exact=exact or None, undefined=undefined if count == 1 else {})
    return EntriesReference(digits, np.arange(count), high, low, trusted,
                            note=f"reference: mpmath's numerical derivative of f at {digits}+ digits ({why})",
                            seconds=time.perf_counter() - start, source="mpmath", exact=exact or None,
                            undefined=undefined if count == 1 else {})


def _not_high_precision(problem: Problem, digits: int) -> str:
    """Why mpmath cannot differentiate f at the point in high precision ("" when it can):
    f fails on mpmath numbers, or computes in binary64 (math.sin) and returns a float."""
    f = problem.world_function(MPMATH)
    with mpmath.workdps(digits + GUARD_DIGITS):
        try:
            probe = f(*[mpmath.mpf(v.numerator) / v.denominator for v in exact_point(problem).values()])
        except Exception as error:
            return f"no high-precision reference: f failed on mpmath numbers ({type(error).__name__}: {error})"
    if isinstance(probe, (mpmath.mpf, mpmath.mpc)) or isinstance(probe, (list, tuple, np.ndarray)):
        return ""
    return (f"no high-precision reference: f returned {type(probe).__name__} for mpmath numbers, so it computes "
            "in lower precision (math.sin instead of diffcompare.language.functions.sin?)")


def _numerical_task(problem: Problem, task, digits: int) -> list:
    """[(value or None, trusted digits, why not)] for every entry of ``task`` (the gradient
    when None) at the point:
    the Jacobian by first derivatives of each output, the Hessian by second derivatives
    (mixed ones with one step for both variables), at two working precisions."""
    f = problem.world_function(MPMATH)
    names = problem.variables
    point = exact_point(problem)
    m = 1 if task is None else task.m
    scalar = task is None or not task.output_shape

    def component(k):
        def one(*args):
            out = f(*args)
            if scalar:
                return out
            flat = list(np.asarray(out, dtype=object).reshape(-1))
            return flat[k]
        return one

    def derivative(k, orders, dps):
        with mpmath.workdps(dps):
            at = [mpmath.mpf(v.numerator) / v.denominator for v in point.values()]
            used = [i for i, o in enumerate(orders) if o]
            scale = max(abs(at[i]) for i in used)
            # the step relative to the variables (as for the gradient), coarser for order 2
            h = scale * mpmath.mpf(10) ** -(dps // (1 + sum(orders))) if scale else None
            return mpmath.diff(component(k), at, orders, h=h)

    def entry(k, orders):
        results = []
        for dps in (digits + GUARD_DIGITS, digits + CHECK_DIGITS):
            try:
                results.append(derivative(k, orders, dps))
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

    if task is not None and task.kind == "hessian":
        return [entry(0, unit(i, j)) for i in range(len(names)) for j in range(len(names))]
    jacobian = [[entry(k, unit(i)) for i in range(len(names))] for k in range(m)]
    if task is None or task.kind in ("jacobian", "gradient"):
        return [e for row in jacobian for e in row]
    vector = [mpmath.mpf(float(v)) for v in np.asarray(task.vector, dtype=float).reshape(-1)]
    if task.kind == "vjp":
        pairs = [[(vector[k], jacobian[k][i]) for k in range(m)] for i in range(len(names))]
    else:
        pairs = [[(vector[i], jacobian[k][i]) for i in range(len(names))] for k in range(m)]
    out = []
    for terms in pairs:
        if any(e[0] is None for _, e in terms):
            out.append(next(e for _, e in terms if e[0] is None))
            continue
        with mpmath.workdps(digits + CHECK_DIGITS):
            out.append((mpmath.fsum(w * e[0] for w, e in terms), min(e[1] for _, e in terms), ""))
    return out


def _mp_entries(function, args, dps, derivative):
    """The entries at ``dps`` digits; None for an entry that is undefined or not real there.
    Where the generated code fails as a whole (1/0 raises in mpmath; a complex
    intermediate reaches atan2), each entry is evaluated on its own by ``evalf``."""
    if function is not None:
        with mpmath.workdps(dps):
            try:
                return [_real_or_none(v) for v in function(*args)]
            except Exception:
                pass
    if len(derivative.partials) > 100:
        return [None] * len(derivative.partials)
    import sympy
    subs = {s: sympy.Rational(*float(a).as_integer_ratio()) for s, a in zip(derivative.symbols, args)}
    return [evaluate_exactly(entry, subs, dps)[0] for entry in derivative.partials]


def _real_or_none(value):
    if isinstance(value, mpmath.mpc):
        return mpmath.mpf(value.real) if value.imag == 0 else None
    try:
        value = mpmath.mpf(value)
    except (TypeError, ValueError):
        return None
    return value if mpmath.isfinite(value) else None
