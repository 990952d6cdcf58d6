"""Whether f is differentiable at a point, decided from f itself rather than from the shape
of a formula.

Where the derivative's formula has no finite value at the point (``x**y`` at x = 0: its
∂/∂y is x^y·log x = 0·(-∞)), or where f meets a kink or a singular intermediate of a
function it calls (``sqrt(x**2 + y**2)**2`` at the origin meets sqrt(0), yet is x² + y²),
the formula cannot say what f's derivative is. Two independent routes can:

- **f's one-sided difference quotients** (f(p + h d) - f(p)) / h, on f itself run on mpmath
  numbers (its branches included), with steps shrinking geometrically from the point's own
  scale, at a working precision raised until every quotient is resolved, and extrapolated
  to h → 0 by Aitken's Δ² process;
- **SymPy's limit** of the same quotient as h → 0 from each side, within a time budget
  (where SymPy can follow f).

Each entry of the task (a partial derivative, an entry of a Jacobian, vᵀJ, Jv or a Hessian)
gets a :class:`Finding`:

- ``differentiable``: both sides converge to one finite value, the derivative;
- ``kink``: two different finite one-sided derivatives; a value between them (a
  subgradient) is right, nan or ±inf is not;
- ``one-sided``: f is defined on one side only, where the quotients converge (a domain edge);
- ``singular``: an infinite slope, a jump, or quotients that do not settle: no finite
  derivative to judge against;
- ``undefined``: f itself has no value at the point.

Computing code only: the findings are data (kinds, numbers, which route decided); the
renderers word them.

>>> from diffcompare.problem.problem import make_problem
>>> from diffcompare.problem.tasks import make_task
>>> p = make_problem("x**y", {"x": 0.0, "y": 2.0})
>>> [(f.kind, float(f.value)) for f in analyse(p, make_task(p, "gradient"))]
[('differentiable', 0.0), ('differentiable', 0.0)]
>>> p = make_problem("abs(x - y)", {"x": 1.5, "y": 1.5})
>>> [(f.kind, float(f.lower), float(f.upper)) for f in analyse(p, make_task(p, "gradient"))]
[('kink', -1.0, 1.0), ('kink', -1.0, 1.0)]
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import mpmath
import numpy as np

from diffcompare.language.worlds import MPMATH
from diffcompare.methods.budget import TimedOut, time_limit
from diffcompare.methods.symbolic import mpmath_lambdify

# the outcomes
DIFFERENTIABLE = "differentiable"
KINK = "kink"
ONE_SIDED = "one-sided"
SINGULAR = "singular"
UNDEFINED = "undefined"
UNCERTAIN = "uncertain"           # the two routes disagree, or the budget ran out before a decision
NOT_DIFFERENTIABLE = "not differentiable"   # every partial exists, yet f's slope along a sum of directions is
                                            # not their sum (min(max(x, y), z) at a three-way tie)
KINDS = (DIFFERENTIABLE, KINK, ONE_SIDED, SINGULAR, UNDEFINED, UNCERTAIN, NOT_DIFFERENTIABLE)
JUDGEABLE = (DIFFERENTIABLE, KINK, ONE_SIDED)

# one side's outcome
FINITE, INFINITE, NO_VALUE, UNSETTLED = "finite", "infinite", "no value", "unsettled"

# how a finding was decided (the routes that agreed)
QUOTIENTS, LIMIT, FORMULA = "quotients", "limit", "formula"

RATIO = 16                  # each step is the previous one over 16 (a power of two: p + h is exact)
MIN_STEPS = 5               # quotients looked at before any decision
MAX_STEPS = 36              # h down to the point's scale × 16^-36 ≈ 4e-44
GOAL_DIGITS = 22            # digits a converged one-sided derivative is taken to (enough to judge binary64)
GUARD = 12                  # working digits beyond what the quotients need
CHECK = 15                  # the second evaluation of each quotient carries this many more
MAX_DPS = 5000              # working digits at most
GROWTH = 1.5                # |q| growing by this factor at each of the last steps: an infinite slope or a jump
INFINITE_STEPS = 20         # ... down to steps of the point's scale × 16^-20 ≈ 8e-25, no sooner
DEFAULT_TIMEOUT = 5.0       # seconds for the analysis of one point (both routes)
LIMIT_TIMEOUT = 0.5         # seconds for SymPy's limit of one quotient


class _NoValue(Exception):
    """f has no finite real value at an argument."""


@dataclass(frozen=True)
class Side:
    """One one-sided derivative: ``status`` (finite, infinite, no value, unsettled), its
    value (the sign of the infinity when infinite) and its absolute uncertainty; ``steps``:
    the quotients looked at; ``dps``: the most working digits they needed."""
    status: str
    value: object = None
    error: object = 0
    steps: int = 0
    dps: int = 0

    def as_dict(self) -> dict:
        return {"status": self.status, "value": _plain(self.value), "error": _plain(self.error),
                "steps": self.steps, "dps": self.dps}


@dataclass
class Finding:
    """What f's derivative is at the point, for one entry (see the module's docstring).
    ``value``: the derivative (differentiable, one-sided); ``lower``/``upper``: the
    interval a right value lies in (a kink: between the one-sided derivatives; else the
    value itself); ``error``: the absolute uncertainty of those numbers; ``left``/``right``:
    the quotients' sides; ``limits``: SymPy's one-sided limits (None where not computed);
    ``routes``: which routes decided it (quotients, limit, formula)."""
    kind: str
    value: object = None
    lower: object = None
    upper: object = None
    error: object = 0
    left: Side | None = None
    right: Side | None = None
    limits: tuple | None = None
    routes: tuple = ()
    notes: tuple = ()               # codes: "routes disagree", "formula disagrees", "budget", "too many inputs"

    @property
    def judgeable(self) -> bool:
        return self.kind in JUDGEABLE

    def as_dict(self) -> dict:
        return {"kind": self.kind, "value": _plain(self.value), "lower": _plain(self.lower),
                "upper": _plain(self.upper), "error": _plain(self.error),
                "left": None if self.left is None else self.left.as_dict(),
                "right": None if self.right is None else self.right.as_dict(),
                "limits": None if self.limits is None else [_plain(v) for v in self.limits],
                "routes": list(self.routes), "notes": list(self.notes)}


def _plain(value):
    if value is None:
        return None
    if isinstance(value, str):
        return value
    try:
        return float(value)
    except (TypeError, ValueError, OverflowError):
        return None


# -- the plan: which direction and which combination of f's outputs gives each entry ---------

@dataclass
class _Direction:
    vector: list                    # the direction d over the flat inputs (binary64 numbers)
    entries: list                   # the task's flat entries this direction's components give
    combine: object                 # outputs (list of mpf) -> components (list of mpf), one per entry
    field: str = "f"                # "f": quotients of f; "gradient": of the gradient's formula (Hessians)


def _plan(task) -> list:
    n, m = task.n, task.m

    def unit(i):
        return [1.0 if j == i else 0.0 for j in range(n)]
    if task.kind == "gradient":
        return [_Direction(unit(i), [i], lambda out: out[:1]) for i in range(n)]
    if task.kind == "jacobian":
        return [_Direction(unit(i), [k * n + i for k in range(m)], lambda out: out) for i in range(n)]
    if task.kind == "vjp":
        v = [mpmath.mpf(float(c)) for c in np.ravel(task.vector)]
        return [_Direction(unit(i), [i], lambda out, v=v: [mpmath.fsum(a * b for a, b in zip(v, out))])
                for i in range(n)]
    if task.kind == "jvp":
        return [_Direction([float(c) for c in np.ravel(task.vector)], list(range(m)), lambda out: out)]
    return [_Direction(unit(j), [i * n + j for i in range(n)], lambda out: out, "gradient") for j in range(n)]


def _evaluator(problem, task, which: str):
    """The function of the flat inputs (mpmath numbers) whose quotients are taken: f's
    outputs, or (Hessians) the gradient's SymPy formula; raises _NoValue where it has no
    finite real value. None where it cannot be built."""
    if which == "gradient":
        try:
            import sympy
            outputs, symbols = problem.sympy_outputs()
            partials = [sympy.diff(outputs[0], s) for s in symbols]
            compiled = mpmath_lambdify(symbols, partials)
        except Exception:
            return None

        def gradient(flat):
            try:
                return [_real(v) for v in compiled(*flat)]
            except _NoValue:
                raise
            except Exception as error:
                raise _NoValue(str(error)) from None
        return gradient
    f = problem.world_function(MPMATH)
    names = problem.variables

    def outputs(flat):
        values = problem.split(np.array(flat, dtype=object))
        try:
            out = f(*[values[name] for name in names])
        except (TimedOut, KeyboardInterrupt):
            raise
        except Exception as error:          # f may raise anything where it has no value
            raise _NoValue(f"{type(error).__name__}: {error}") from None
        return [_real(v) for v in np.ravel(np.asarray(out, dtype=object))]
    return outputs


SHORT_BITS = 24     # a float f returns for mpmath numbers with at most this many significant bits is a constant


def _short_float(value) -> bool:
    """Whether a binary64 number has a short binary expansion (0, 1, 0.5, 3.25: a constant
    written in f, not the rounding of a computed value such as math.sin's)."""
    if value == 0 or not math.isfinite(value):
        return True
    mantissa = abs(math.frexp(value)[0])
    bits = 0
    while mantissa and bits <= SHORT_BITS:
        mantissa = mantissa * 2 - int(mantissa * 2)
        bits += 1
    return bits <= SHORT_BITS


def computes_in_binary64(problem, flat) -> bool:
    """Whether f, run on mpmath numbers at the point and beside it, answers with rounded
    binary64 values (math.sin on a number) rather than mpmath numbers or exact constants
    (a branch returning 1.0): then no high-precision quotient of f can be trusted."""
    f = problem.world_function(MPMATH)
    with mpmath.workdps(40):
        for shift in (0, 1, -1):
            moved = [mpmath.mpf(float(v)) + shift * mpmath.ldexp(1, _point_scale(flat) - 80) for v in flat]
            values = problem.split(np.array(moved, dtype=object))
            try:
                out = f(*[values[name] for name in problem.variables])
            except Exception:
                continue
            for item in np.ravel(np.asarray(out, dtype=object)):
                if isinstance(item, (float, np.floating)) and not _short_float(float(item)):
                    return True
    return False


def _real(value):
    """An mpf from an output of f on mpmath numbers, or _NoValue (nan, inf, complex, text)."""
    if isinstance(value, mpmath.mpc):
        if value.imag != 0:
            raise _NoValue("complex")
        value = value.real
    if isinstance(value, (float, int, np.floating, np.integer)) and not isinstance(value, bool):
        value = mpmath.mpf(float(value)) if isinstance(value, (float, np.floating)) else mpmath.mpf(int(value))
    if not isinstance(value, mpmath.mpf):
        try:
            value = mpmath.mpf(value)
        except (TypeError, ValueError):
            raise _NoValue(type(value).__name__) from None
    if not mpmath.isfinite(value):
        raise _NoValue(str(value))
    return value


# -- one side: quotients with shrinking steps ---------------------------------------------

def _point_scale(flat) -> int:
    """The exponent e of the point's own scale 2^e: the smallest nonzero |coordinate|, at
    most 1 (so that the steps stay below every coordinate's own scale)."""
    exponents = [math.frexp(abs(float(v)))[1] - 1 for v in flat if float(v) != 0.0 and math.isfinite(float(v))]
    return min([0] + exponents)


def _position_digits(flat, direction, h_exponent) -> int:
    """Decimal digits needed to hold p + h d exactly (each coordinate's range over h d's)."""
    largest = max([abs(float(v)) for v in flat] + [1e-300])
    step = min([abs(float(c)) for c in direction if c] + [1.0])
    return max(0, int(math.log10(largest / step) - h_exponent * math.log10(2))) + 20


def _quotients(g, combine, flat, direction, sign, h_exponent, dps, at_point):
    """The components' quotients at step h = 2^h_exponent on side ``sign``, at ``dps``
    digits: (list of mpf, the largest |value| of the components at p and p + h d).
    ``at_point``: the components at p at this precision (computed by the caller)."""
    with mpmath.workdps(dps):
        h = mpmath.ldexp(mpmath.mpf(sign), h_exponent)
        moved = [mpmath.mpf(float(v)) + h * mpmath.mpf(float(c)) if c else mpmath.mpf(float(v))
                 for v, c in zip(flat, direction)]
        there = combine(g(moved))
        size = max([abs(a) for a in at_point] + [abs(b) for b in there])
        return [(b - a) / h for a, b in zip(at_point, there)], size


def _at(g, combine, flat, dps):
    with mpmath.workdps(dps):
        return combine(g([mpmath.mpf(float(v)) for v in flat]))


def one_side(g, combine, flat, direction, sign: int, digits: int = GOAL_DIGITS, deadline: float | None = None,
             count: int = 1) -> list:
    """The one-sided derivatives (one :class:`Side` per component of ``combine``) of g at
    the flat point along ``direction``, from the side ``sign`` (+1 right, -1 left)."""
    scale = _point_scale(flat)
    history = [[] for _ in range(count)]        # per component: (q, uncertainty)
    decided: list = [None] * count
    undefined_run, extra, steps, most = 0, 0, 0, 0
    for k in range(1, MAX_STEPS + 1):
        if deadline is not None and time.monotonic() > deadline:
            break
        h_exponent = scale - 4 * k
        base = digits + GUARD + _position_digits(flat, direction, h_exponent)
        first = None
        while True:
            dps = min(MAX_DPS, base + extra)
            try:
                here = _at(g, combine, flat, dps)
                first, size = _quotients(g, combine, flat, direction, sign, h_exponent, dps, here)
                here_check = _at(g, combine, flat, dps + CHECK)
                second, _ = _quotients(g, combine, flat, direction, sign, h_exponent, dps + CHECK, here_check)
            except _NoValue:
                first = None
                break
            more = _more_digits(first, second, size, digits, dps)
            if not more:
                break
            extra += more
        most = max(most, dps)
        if first is None:
            undefined_run += 1
            for c in range(count):
                history[c] = []         # a domain edge between the steps: start again below it
            if undefined_run >= 3 and k >= MIN_STEPS:
                return [Side(NO_VALUE, steps=k, dps=most) if d is None else d for d in decided]
            continue
        undefined_run = 0
        steps = k
        with mpmath.workdps(dps + CHECK):
            noise = size * mpmath.mpf(10) ** -(dps - 2) / mpmath.ldexp(1, h_exponent)
            for c in range(count):
                if decided[c] is None:
                    history[c].append((second[c], noise))
                    if len(history[c]) >= MIN_STEPS:
                        decided[c] = _settle(history[c], digits, k, most)
        if all(d is not None for d in decided):
            return decided
    return [d if d is not None else _unsettled(history[c], steps, most) for c, d in enumerate(decided)]


ZERO_DPS = 1200     # no change of f seen at this many digits: f is constant along d, as far as binary64 can tell


def _more_digits(first, second, size, digits, dps) -> int:
    """Working digits to add before the quotients at ``dps`` and ``dps + CHECK`` digits
    can be trusted to ``digits`` (0: they can). Two that differ lost digits to cancellation
    (f's change is small beside f); two zeros where f is not 0 may be a change below the
    working precision: more digits, up to ZERO_DPS, tell."""
    with mpmath.workdps(dps + CHECK):
        need = 0
        for a, b in zip(first, second):
            if a != b:
                scale = max(abs(a), abs(b))
                agreed = mpmath.log10(scale / abs(a - b))
                if agreed < digits + 3:
                    need = max(need, int(digits + 3 - agreed) + 10)
            elif a == 0 and size != 0 and dps < ZERO_DPS:
                need = max(need, dps)           # double
    if dps >= MAX_DPS:
        return 0
    return need


def _aitken(values: list) -> list:
    """Aitken's Δ² extrapolation of a sequence (as long as the input, its first two kept)."""
    out = list(values[:2])
    for j in range(2, len(values)):
        d1, d0 = values[j] - values[j - 1], values[j - 1] - values[j - 2]
        denominator = d1 - d0
        out.append(values[j] if denominator == 0 else values[j] - d1 * d1 / denominator)
    return out


def _settle(history: list, digits: int, k: int, dps: int) -> Side | None:
    """A Side once the sequence has converged or clearly diverges; None to go on."""
    q = [value for value, _ in history]
    noise = max(err for _, err in history[-3:])
    largest = max(abs(v) for v in q)
    if q[-1] == q[-2] == q[-3]:                 # f is linear along d at these steps
        return Side(FINITE, q[-1], noise, k, dps)
    tail = q[-4:]
    if k >= INFINITE_STEPS and all(v != 0 for v in tail) and len({mpmath.sign(v) for v in tail}) == 1 and \
            all(abs(tail[j + 1]) >= GROWTH * abs(tail[j]) for j in range(3)):
        # still growing at steps far below the point's scale (f may bend on a smaller scale of its own:
        # x/(|x| + 1e-5) grows like 1/h down to h = 1e-5, then settles)
        return Side(INFINITE, mpmath.sign(tail[-1]), 0, k, dps)
    # extrapolate only a contracting sequence (Aitken's Δ² sends a diverging geometric one to 0)
    differences = [abs(q[j] - q[j - 1]) for j in range(len(q) - 3, len(q))]
    if not all(differences[j + 1] <= differences[j] for j in range(2)):
        return None
    tolerance = mpmath.mpf(10) ** -digits
    best = None
    for sequence in (q, _aitken(q), _aitken(_aitken(q))):
        if len(sequence) < 4:
            continue
        a, b, c = sequence[-1], sequence[-2], sequence[-3]
        error = max(abs(a - b), abs(b - c) / RATIO) + noise
        scale = max(abs(a), largest * tolerance)
        if error <= tolerance * max(abs(a), largest) and abs(b - c) <= mpmath.sqrt(tolerance) * max(abs(a), largest):
            candidate = (error / scale if scale else 0, a, error)
            if best is None or candidate[0] < best[0]:
                best = candidate
    if best is not None:
        _, value, error = best
        if abs(value) <= error:
            value = mpmath.mpf(0)               # indistinguishable from 0: 0 within the error
        return Side(FINITE, value, error, k, dps)
    return None


def _unsettled(history, steps, dps) -> Side:
    if not history:
        return Side(UNSETTLED, steps=steps, dps=dps)
    q = [value for value, _ in history]
    tail = q[-4:]
    if len(tail) == 4 and all(v != 0 for v in tail) and len({mpmath.sign(v) for v in tail}) == 1 and \
            all(abs(tail[j + 1]) >= abs(tail[j]) for j in range(3)) and abs(tail[-1]) >= GROWTH ** 3 * abs(tail[0]):
        return Side(INFINITE, mpmath.sign(tail[-1]), 0, steps, dps)
    return Side(UNSETTLED, steps=steps, dps=dps)


# -- SymPy's limit of the quotient -------------------------------------------------------------

def _limits(problem, task, direction: _Direction, flat, deadline) -> list | None:
    """SymPy's one-sided limits (left, right) of each component's quotient, as mpmath
    numbers (±inf allowed) or None where SymPy gives none; None when SymPy cannot follow f."""
    import sympy

    if direction.field != "f":
        return None
    try:
        outputs, symbols = problem.sympy_outputs()
    except Exception:
        return None
    t = sympy.Symbol("t", positive=True)
    exact = [sympy.Rational(*float(v).as_integer_ratio()) for v in flat]
    if task.kind == "vjp":
        v = [sympy.Rational(*float(c).as_integer_ratio()) for c in np.ravel(task.vector)]
        outputs = [sum((a * b for a, b in zip(v, outputs)), sympy.Integer(0))]
    elif task.kind == "gradient":
        outputs = outputs[:1]
    results = []
    for output in outputs:
        sides = []
        for sign in (-1, 1):
            left = deadline - time.monotonic() if deadline is not None else LIMIT_TIMEOUT
            if left <= 0:
                return None
            try:
                with time_limit(min(LIMIT_TIMEOUT, left)):
                    at = output.xreplace(dict(zip(symbols, exact)))
                    if not at.is_number or not at.is_finite:
                        sides.append(None)
                        continue
                    shifted = output.xreplace({s: e + sign * t * sympy.Rational(*float(c).as_integer_ratio())
                                               for s, e, c in zip(symbols, exact, direction.vector)})
                    value = sympy.limit((shifted - at) / (sign * t), t, 0, "+")
                    sides.append(_sympy_number(value))
            except TimedOut:
                sides.append(None)
            except Exception:           # SymPy may fail in many ways on unusual input
                sides.append(None)
        results.append(tuple(sides))
    return results


def _sympy_number(value):
    import sympy
    if value in (sympy.oo, -sympy.oo):
        return mpmath.inf if value is sympy.oo else -mpmath.inf
    if value.is_number and value.is_real and value.is_finite:
        with mpmath.workdps(GOAL_DIGITS + CHECK):
            return mpmath.mpf(sympy.Float(value, GOAL_DIGITS + CHECK)._mpf_)
    return None


# -- putting the sides together ---------------------------------------------------------------

LIMIT_AGREEMENT = 12        # digits SymPy's limit must share with f's quotients (a float constant of f
                            # reaches SymPy as a 15-digit Float: 1e-5 is not binary64's 1.0000000000000000818e-5)


def _same(a: Side, b: Side, digits: int = GOAL_DIGITS - 4) -> bool:
    with mpmath.workdps(GOAL_DIGITS + CHECK):
        scale = max(abs(a.value), abs(b.value))
        return abs(a.value - b.value) <= 4 * (a.error + b.error) + scale * mpmath.mpf(10) ** -digits


def _from_sides(left: Side, right: Side) -> Finding:
    """The finding two sides make on their own (no route named yet)."""
    if INFINITE in (left.status, right.status):
        return Finding(SINGULAR, left=left, right=right)
    if left.status == FINITE and right.status == FINITE:
        if _same(left, right):
            best = left if left.error <= right.error else right
            return Finding(DIFFERENTIABLE, best.value, best.value, best.value, max(left.error, right.error),
                           left, right)
        low, high = sorted((left.value, right.value))
        return Finding(KINK, None, low, high, max(left.error, right.error), left, right)
    if {left.status, right.status} == {FINITE, NO_VALUE}:
        side = left if left.status == FINITE else right
        return Finding(ONE_SIDED, side.value, side.value, side.value, side.error, left, right)
    if left.status == NO_VALUE and right.status == NO_VALUE:
        return Finding(UNDEFINED, left=left, right=right)
    return Finding(UNCERTAIN, left=left, right=right, notes=("unsettled",))


def _agree(a: Finding, b: Finding) -> bool:
    """Whether the quotients' finding and SymPy's limits' say the same (to LIMIT_AGREEMENT digits)."""
    if a.kind != b.kind:
        return False
    if a.kind in (DIFFERENTIABLE, ONE_SIDED, KINK):
        ends = ((a.lower, a.error, b.lower, b.error), (a.upper, a.error, b.upper, b.error))
        return all(_same(Side(FINITE, x, e), Side(FINITE, y, f), LIMIT_AGREEMENT) for x, e, y, f in ends)
    return True


def _limit_side(value) -> Side:
    if value is None:
        return Side(UNSETTLED)
    if mpmath.isinf(value):
        return Side(INFINITE, mpmath.sign(value))
    return Side(FINITE, value, mpmath.mpf(0))


def combine(left: Side, right: Side, limits: tuple | None = None, formula=None) -> Finding:
    """The finding for one entry from f's quotients on its two sides, SymPy's limits (left,
    right; None where not computed) and the formula's own value (an mpmath number, None
    where it has none): the routes that decide must agree; where the quotients do not
    settle, SymPy's limits decide alone; a finite formula value they confirm is kept to all
    its digits.

    >>> one, minus = Side(FINITE, mpmath.mpf(1), 0), Side(FINITE, mpmath.mpf(-1), 0)
    >>> combine(minus, one).kind, combine(one, one, formula=mpmath.mpf(1)).routes
    ('kink', ('formula', 'quotients'))
    """
    finding = _from_sides(left, right)
    routes = [QUOTIENTS] if finding.kind != UNCERTAIN else []
    notes = list(finding.notes)
    if limits is not None and not any(v is None for v in limits):
        # where f has no real value SymPy's limit may follow a complex branch: that side has none
        by_limit = _from_sides(*[Side(NO_VALUE) if quotient.status == NO_VALUE else _limit_side(value)
                                 for quotient, value in zip((left, right), limits)])
        if finding.kind == UNCERTAIN:
            finding, routes, notes = by_limit, [LIMIT], []
        elif _agree(finding, by_limit):
            routes.append(LIMIT)
        else:
            finding, routes, notes = Finding(UNCERTAIN), [], ["routes disagree"]
        finding.limits = tuple(limits)
    finding.left, finding.right = left, right
    if formula is not None and finding.kind == DIFFERENTIABLE:
        if _same(Side(FINITE, formula, 0), Side(FINITE, finding.value, finding.error)):
            # the formula's own value, to all its digits, confirmed by the routes
            finding.value = finding.lower = finding.upper = formula
            finding.error = mpmath.mpf(0)
            routes.insert(0, FORMULA)
        else:
            notes.append("formula disagrees")
    finding.routes, finding.notes = tuple(dict.fromkeys(routes)), tuple(dict.fromkeys(notes))
    return finding


# -- the whole analysis -------------------------------------------------------------------------

MAX_DIRECTIONS = 64         # inputs analysed at most at one point (beyond: the entries are not decided)


def analyse(problem, task, entries=None, formula=None, digits: int = GOAL_DIGITS,
            timeout: float | None = DEFAULT_TIMEOUT) -> list:
    """A :class:`Finding` for each flat entry of ``task`` at ``problem``'s point (None for
    the entries not asked for in ``entries``). ``formula``: the formula's value of each entry
    (mpmath numbers, None where it has none), used where f's quotients confirm it."""
    start = time.monotonic()
    deadline = None if timeout is None else start + timeout
    wanted = set(range(task.size)) if entries is None else set(entries)
    out: list = [None] * task.size
    flat = [float(v) for v in problem.flat_point()]
    plans = [d for d in _plan(task) if wanted & set(d.entries)]
    g_of = {}
    g0 = _evaluator(problem, task, "f")
    try:
        _at(g0, lambda out: out, flat, digits + GUARD)
    except _NoValue:
        for e in wanted:
            out[e] = Finding(UNDEFINED)
        return out
    for number, direction in enumerate(plans):
        if number >= MAX_DIRECTIONS or (deadline is not None and time.monotonic() > deadline):
            why = "too many inputs" if number >= MAX_DIRECTIONS else "budget"
            for e in direction.entries:
                if e in wanted:
                    out[e] = Finding(UNCERTAIN, notes=(why,))
            continue
        if direction.field not in g_of:
            g_of[direction.field] = _evaluator(problem, task, direction.field)
        g = g_of[direction.field]
        if g is None:
            for e in direction.entries:
                if e in wanted:
                    out[e] = Finding(UNCERTAIN, notes=("no formula",))
            continue
        count = len(direction.entries)
        try:
            left = one_side(g, direction.combine, flat, direction.vector, -1, digits, deadline, count)
            right = one_side(g, direction.combine, flat, direction.vector, +1, digits, deadline, count)
        except TimedOut:
            raise
        # SymPy's limit, the second route: where the quotients do not settle, and to confirm what
        # they found where the formula has no value (an infinite slope or a missing side needs none)
        limits = None
        unsettled = any(s.status == UNSETTLED for s in left + right)
        unconfirmed = (formula is None or any(formula[e] is None for e in direction.entries if e in wanted)) \
            and all(s.status == FINITE for s in left + right)
        if unsettled or unconfirmed:
            limits = _limits(problem, task, direction, flat, deadline)
        for c, e in enumerate(direction.entries):
            if e not in wanted:
                continue
            value = None if formula is None else formula[e]
            out[e] = combine(left[c], right[c], None if limits is None else limits[c], value)
    return out


@dataclass
class Joint:
    """Where several entries meet a kink together (max(x, y) at x = y), each one's interval
    is not enough: a right gradient g also meets f's one-sided derivatives along d, the sum
    of those entries' directions, -f'(p; -d) and f'(p; d) bounding g·d (max(x, y) grows by
    exactly 1 along (1, 1), so (1, 1) — a double count — is wrong though each 1 lies in
    [0, 1]). ``entries``: the entries d sums; ``lower``/``upper``: the bounds; ``error``:
    their uncertainty."""
    entries: list
    lower: object
    upper: object
    error: object = 0

    def as_dict(self) -> dict:
        return {"entries": list(self.entries), "lower": _plain(self.lower), "upper": _plain(self.upper),
                "error": _plain(self.error)}


def joint(problem, task, entries: list, digits: int = GOAL_DIGITS, timeout: float | None = DEFAULT_TIMEOUT):
    """The :class:`Joint` bounds along the sum of ``entries``' directions (a gradient's or
    vᵀJ's), or None where f's quotients along it do not both settle to finite values."""
    if task.kind not in ("gradient", "vjp") or len(entries) < 2:
        return None
    deadline = None if timeout is None else time.monotonic() + timeout
    plans = _plan(task)
    combine = plans[0].combine
    direction = [1.0 if i in entries else 0.0 for i in range(task.n)]
    g = _evaluator(problem, task, "f")
    flat = [float(v) for v in problem.flat_point()]
    left = one_side(g, combine, flat, direction, -1, digits, deadline, 1)[0]
    right = one_side(g, combine, flat, direction, +1, digits, deadline, 1)[0]
    if left.status != FINITE or right.status != FINITE:
        return None
    # the right derivative along d is f'(p; d); the left one is -f'(p; -d)
    low, high = sorted((left.value, right.value))
    return Joint(list(entries), low, high, max(left.error, right.error))


MAX_PAIRED = 6      # inputs up to which the pairs of entries are checked against f's slopes


def consistent(problem, task, findings: list, digits: int = GOAL_DIGITS,
               timeout: float | None = DEFAULT_TIMEOUT) -> bool | None:
    """Whether the entry-by-entry findings (one per input: differentiable with a value, or
    a kink with an interval) describe f at a point where it meets a kink. Each is found along
    its own axis; where f is not differentiable, they must still reproduce f's one-sided
    slopes along every pair of directions e_i ± e_j: a slope outside the sum of the two
    entries' intervals means the right gradients are no box of intervals at all
    (min(max(x, y), z) at x = y = z: each partial is 0, but f grows by 1 along (1, 1, 1) and
    PyTorch's tie-splitting (1/4, 1/4, 1/2) is a right subgradient). False then; True when
    every pair agrees; None where it cannot be told (a slope that does not settle, another
    task, too many inputs)."""
    if task.kind not in ("gradient", "vjp") or not 2 <= task.n <= MAX_PAIRED:
        return None
    if any(f is None or f.kind not in (DIFFERENTIABLE, KINK) for f in findings):
        return None
    deadline = None if timeout is None else time.monotonic() + timeout
    combine = _plan(task)[0].combine
    g = _evaluator(problem, task, "f")
    flat = [float(v) for v in problem.flat_point()]
    slack = mpmath.mpf(10) ** -LIMIT_AGREEMENT
    for i in range(task.n):
        for j in range(i + 1, task.n):
            for sign_j in (1, -1):
                direction = [0.0] * task.n
                direction[i], direction[j] = 1.0, float(sign_j)
                with mpmath.workdps(GOAL_DIGITS + CHECK):
                    ends_i = (findings[i].lower, findings[i].upper)
                    ends_j = sorted((sign_j * findings[j].lower, sign_j * findings[j].upper))
                    low, high = ends_i[0] + ends_j[0], ends_i[1] + ends_j[1]
                for sign in (-1, 1):
                    side = one_side(g, combine, flat, direction, sign, digits, deadline, 1)[0]
                    if side.status != FINITE:
                        return None
                    with mpmath.workdps(GOAL_DIGITS + CHECK):
                        margin = slack * max(abs(low), abs(high), abs(side.value), 1) + 4 * side.error
                        if side.value < low - margin or side.value > high + margin:
                            return False
    return True
