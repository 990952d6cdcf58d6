"""The reference every error is measured against: SymPy's exact derivative evaluated by
mpmath (``evalf``) at the exact binary64 point, to ``digits`` significant digits.

Each value is computed at two working precisions and the digits on which they agree
are the ones trusted. When SymPy has no derivative (a callable with control flow on
values, or a time-out), the reference is mpmath's high-precision numerical derivative
of f, labelled as such.

>>> from diffcompare.problem.problem import make_problem
>>> from diffcompare.methods.symbolic import differentiate
>>> p = make_problem("exp(x)/sqrt(sin(x)**3 + cos(x)**3)", {"x": 1.5})
>>> r = exact_reference(p, differentiate(p), digits=30)
>>> r.source, r.text("x", 25)
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


@dataclass
class Reference:
    source: str                     # "sympy" (exact derivative) or "mpmath" (numerical derivative)
    digits: int                     # requested significant digits
    values: dict                    # variable -> mpmath.mpf, or None where undefined
    undefined: dict = field(default_factory=dict)    # variable -> why there is no value
    trusted_digits: dict = field(default_factory=dict)
    note: str = ""
    seconds: float = 0.0
    uncertain: dict = field(default_factory=dict)    # variable -> how two routes to it disagree

    @property
    def label(self):
        if self.source == "sympy":
            return f"SymPy's exact derivative evaluated with mpmath to {self.digits} digits"
        return f"mpmath's numerical derivative of f at {self.digits}+ digits (SymPy gave no exact derivative)"

    def text(self, name, digits=None):
        """The value as decimal text with ``digits`` (default: the trusted) significant digits."""
        value = self.values.get(name)
        if value is None:
            return None
        shown = digits or max(1, self.trusted_digits.get(name, self.digits))
        with self.precision():
            if value and abs(mpmath.mag(value)) > 100_000:
                # decimal digits of exp(exp(exp(10))) would take forever: give the power of ten
                sign = "-" if value < 0 else ""
                return f"{sign}10^({mpmath.nstr(mpmath.log10(abs(value)), 12)})"
            return mpmath.nstr(value, shown, strip_zeros=False, min_fixed=-6, max_fixed=8)

    def precision(self):
        """A working precision (decimal digits) that holds the reference values exactly."""
        return mpmath.workdps(self.digits + CHECK_DIGITS)


def exact_point(problem: Problem) -> dict:
    """The point as exact rationals: the binary64 values themselves, not their decimal text."""
    return {name: Fraction(value) for name, value in problem.point.items()}


def exact_reference(problem: Problem, derivative: SymbolicDerivative, digits: int = 30,
                    timeout: float | None = 10.0) -> Reference:
    """The reference gradient at ``problem.point``."""
    start = time.perf_counter()
    try:
        with time_limit(timeout):
            if derivative.partials is not None:
                reference = _from_sympy(problem, derivative, digits)
                _cross_check(problem, reference, digits)
            else:
                reference = _numerical(problem, digits, derivative.reason or derivative.status)
    except TimedOut as stop:
        reference = Reference("sympy" if derivative.partials is not None else "mpmath", digits,
                              {name: None for name in problem.variables},
                              {name: f"the reference timed out after {stop.seconds:g} s" for name in problem.variables})
    reference.seconds = time.perf_counter() - start
    return reference


CROSS_CHECK_DIGITS = 12     # the second route must be this sure of itself to contradict the first
CROSS_CHECK_RTOL = 1e-6
CROSS_CHECK_MAX_VARIABLES = 20      # numerical differentiation costs a few evaluations of f per variable


def _cross_check(problem, reference, digits):
    """SymPy's value checked by a second, independent route: mpmath's numerical
    differentiation of f itself, run on mpmath numbers (log1p there is mpmath's, where
    SymPy's log(1 + y) at y = -1e-300 rounds to log(1) = 0 at any working precision).
    Where that route is sure of itself (two precisions agree to 12 digits) and the two
    disagree beyond 1e-6 relative, the reference is uncertain: trusted to no digit, and
    the disagreement is said. Skipped beyond 20 variables (a few evaluations of f each)."""
    if len(problem.variables) > CROSS_CHECK_MAX_VARIABLES:
        return
    try:
        check = _numerical(problem, digits, "a check of SymPy's value")
    except TimedOut:
        return                      # the budget is spent: the check is skipped, not the reference
    except Exception:
        return
    f = problem.world_function(MPMATH)
    with mpmath.workdps(digits + CHECK_DIGITS):
        try:
            size = abs(f(*[mpmath.mpf(v) for v in problem.point.values()]))
        except Exception:
            return
    for name in problem.variables:
        a, b = reference.values.get(name), check.values.get(name)
        trusted = check.trusted_digits.get(name, 0)
        if a is None or b is None or trusted < CROSS_CHECK_DIGITS:
            continue
        with mpmath.workdps(digits + CHECK_DIGITS):
            # what the numerical route cannot resolve: its digits of f's change along the variable
            x = abs(mpmath.mpf(problem.point[name]))
            noise = mpmath.mpf(10) ** -(trusted - 2) * (size / x if x else size)
            if abs(a - b) > CROSS_CHECK_RTOL * abs(b) + noise:
                reference.trusted_digits[name] = 0
                reference.uncertain[name] = (f"SymPy's formula gives {mpmath.nstr(a, 8)}, mpmath's differentiation "
                                             f"of f gives {mpmath.nstr(b, 8)}")


def _from_sympy(problem, derivative, digits):
    import sympy
    subs = {s: sympy.Rational(v.numerator, v.denominator)
            for s, v in zip(derivative.symbols, exact_point(problem).values())}
    reference = Reference("sympy", digits, {})
    value, why = evaluate_exactly(derivative.expression, subs, digits)
    if value is None and why.startswith(SYMPY_FAILED):
        # SymPy itself failed (not f): mpmath differentiates f instead
        return _numerical(problem, digits, f"SymPy could not evaluate its formula here ({why[len(SYMPY_FAILED):]})")
    if value is None:
        for name in problem.variables:
            reference.values[name], reference.undefined[name] = None, f"f itself is {why}"
        return reference
    for name, partial in zip(problem.variables, derivative.partials):
        value, why = evaluate_exactly(partial, subs, digits + GUARD_DIGITS)
        if value is None:
            reference.values[name], reference.undefined[name] = None, why
            continue
        check, _ = evaluate_exactly(partial, subs, digits + CHECK_DIGITS)
        reference.values[name] = value
        reference.trusted_digits[name] = _agreement(value, check, digits)
    return reference


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
        scale = max(abs(a), abs(b))
        if scale == 0:
            return digits
        return max(0, min(digits, int(-mpmath.log10(abs(a - b) / scale))))


def _numerical(problem, digits, why):
    f = problem.world_function(MPMATH)
    point = exact_point(problem)
    reference = Reference("mpmath", digits, {}, note=why)
    names = problem.variables
    with mpmath.workdps(digits + GUARD_DIGITS):
        try:
            probe = f(*[mpmath.mpf(v.numerator) / v.denominator for v in point.values()])
        except Exception as error:
            probe = error
    if not isinstance(probe, mpmath.mpf):
        why_not = (f"f failed on mpmath numbers ({type(probe).__name__}: {probe})" if isinstance(probe, Exception)
                   else f"f returned {type(probe).__name__} for mpmath numbers, so it computes in lower precision "
                        "(math.sin instead of diffcompare.language.functions.sin?)")
        reference.values = {name: None for name in names}
        reference.undefined = {name: f"no high-precision reference: {why_not}" for name in names}
        return reference
    for i, name in enumerate(names):
        orders = tuple(1 if j == i else 0 for j in range(len(names)))
        results = []
        for dps in (digits + GUARD_DIGITS, digits + CHECK_DIGITS):
            with mpmath.workdps(dps):
                at = [mpmath.mpf(v.numerator) / v.denominator for v in point.values()]
                try:
                    # a step relative to the variable: mpmath's default step is absolute, and
                    # at x = 1e-200 the differences of x**2 would vanish below it
                    h = abs(at[i]) * mpmath.mpf(10) ** -(dps // 2) if at[i] else None
                    results.append(mpmath.diff(f, at, orders, h=h) if len(names) > 1 else mpmath.diff(f, at[0], h=h))
                except Exception as error:
                    results.append(error)
        first, check = results
        if isinstance(first, Exception) or not isinstance(first, mpmath.mpf) or not mpmath.isfinite(first):
            reference.values[name] = None
            reference.undefined[name] = (f"mpmath could not differentiate f here: {first}"
                                         if isinstance(first, Exception) else f"not a finite real number: {first}")
            continue
        reference.values[name] = first
        reference.trusted_digits[name] = _agreement(first, check if isinstance(check, mpmath.mpf) else None, digits)
    return reference


@dataclass
class EntriesReference:
    """The exact entries (Jacobian, vᵀJ, Jv, Hessian; flat) at some of the points: SymPy's
    entries run by mpmath at two working precisions, kept as a double-double (``high`` +
    ``low``) so that binary64 errors can be measured exactly in NumPy."""
    digits: int
    indices: np.ndarray             # which points (rows of the points' array) have a reference
    high: np.ndarray                # (len(indices), entries): nearest binary64, nan where undefined
    low: np.ndarray                 # the remainder: value = high + low to ~32 digits
    trusted: np.ndarray             # digits on which the two precisions agree
    reason: str = ""                # why there is no reference, when there is none
    note: str = ""
    seconds: float = 0.0

    @property
    def available(self):
        return self.indices.size > 0


def entries_reference(derivative: SymbolicDerivative, flat: np.ndarray, digits: int = 30,
                      timeout: float | None = 10.0, max_points: int = 2000) -> EntriesReference:
    """The reference entries at up to ``max_points`` of the rows of ``flat`` (evenly spread)."""
    import sympy
    start = time.perf_counter()
    count = flat.shape[0]
    indices = np.arange(count) if count <= max_points else np.unique(
        np.linspace(0, count - 1, max_points).round().astype(int))
    empty = np.zeros((0, len(derivative.partials or ())))
    if derivative.partials is None:
        return EntriesReference(digits, np.zeros(0, dtype=int), empty, empty, empty,
                                reason=f"no reference: SymPy has no exact derivative ({derivative.reason})")
    high = np.full((len(indices), len(derivative.partials)), np.nan)
    low = np.zeros_like(high)
    trusted = np.zeros(high.shape, dtype=int)
    try:
        with time_limit(timeout):
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
                        high[row, k] = float(b)
                        low[row, k] = float(b - mpmath.mpf(high[row, k])) if mpmath.isfinite(b) else 0.0
                        trusted[row, k] = _agreement(a, b, digits)
    except TimedOut as stop:
        return EntriesReference(digits, np.zeros(0, dtype=int), empty, empty, empty,
                                reason=f"the reference timed out after {stop.seconds:g} s",
                                seconds=time.perf_counter() - start)
    note = "" if count == len(indices) else f"the reference is computed at {len(indices):,} of the {count:,} points"
    return EntriesReference(digits, indices, high, low, trusted, note=note, seconds=time.perf_counter() - start)


def numerical_entries_reference(problem: Problem, flat: np.ndarray, digits: int = 30, timeout: float | None = 10.0,
                                why: str = "", task=None) -> EntriesReference:
    """The entries of ``task`` (the gradient when None; a Jacobian, vᵀJ, Jv or Hessian) at
    each row of ``flat`` by mpmath's numerical differentiation of f run on mpmath numbers
    (the fallback of :func:`exact_reference`, point by point), for f that SymPy cannot
    follow (a branch on the value); each entry trusted to the digits on which two working
    precisions agree. Scalar variables only."""
    start = time.perf_counter()
    count, n = flat.shape
    size = n if task is None else task.size
    empty = np.zeros((0, size))
    high, low = np.full((count, size), np.nan), np.zeros((count, size))
    trusted = np.zeros((count, size), dtype=int)
    undefined = ""
    try:
        with time_limit(timeout):
            for row in range(count):
                moved = replace(problem, point=dict(zip(problem.variables, map(float, flat[row]))))
                if task is None or task.kind == "gradient" and not task.output_shape:
                    found = _numerical(moved, digits, why)
                    entries = [(found.values.get(name), found.trusted_digits.get(name, digits),
                                found.undefined.get(name, "")) for name in problem.variables]
                else:
                    entries = _numerical_task(moved, task, digits)
                for k, (value, digits_trusted, why_not) in enumerate(entries):
                    if value is None:
                        undefined = undefined or why_not
                        continue
                    with mpmath.workdps(digits + CHECK_DIGITS):
                        high[row, k] = float(value)
                        low[row, k] = float(value - mpmath.mpf(high[row, k]))
                    trusted[row, k] = digits_trusted
    except TimedOut as stop:
        return EntriesReference(digits, np.zeros(0, dtype=int), empty, empty, empty,
                                reason=f"the numerical reference timed out after {stop.seconds:g} s",
                                seconds=time.perf_counter() - start)
    if np.isnan(high).all():
        return EntriesReference(digits, np.zeros(0, dtype=int), empty, empty, empty,
                                reason=undefined or "no numerical reference", seconds=time.perf_counter() - start)
    return EntriesReference(digits, np.arange(count), high, low, trusted,
                            note=f"reference: mpmath's numerical derivative of f at {digits}+ digits ({why})",
                            seconds=time.perf_counter() - start)


def _numerical_task(problem: Problem, task, digits: int) -> list:
    """[(value or None, trusted digits, why not)] for every entry of ``task`` at the point:
    the Jacobian by first derivatives of each output, the Hessian by second derivatives
    (mixed ones with one step for both variables), at two working precisions."""
    f = problem.world_function(MPMATH)
    names = problem.variables
    point = exact_point(problem)
    m = task.m

    def component(k):
        def one(*args):
            out = f(*args)
            if m == 1 and not task.output_shape:
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

    if task.kind == "hessian":
        return [entry(0, unit(i, j)) for i in range(len(names)) for j in range(len(names))]
    jacobian = [[entry(k, unit(i)) for i in range(len(names))] for k in range(m)]
    if task.kind in ("jacobian", "gradient"):
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
