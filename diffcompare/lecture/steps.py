"""The finite-difference error against the step size: the V-shaped curves of every
scheme, truncation error falling as h shrinks and round-off error rising, in float64 and
float32.

For each h in the sweep (default 10^-20 ... 10^-1) and each scheme (forward, central,
five-point, complex step) the derivative by that scheme is measured against the judge's
exact reference (SymPy's derivative evaluated by mpmath), as an absolute and as a relative
error. Each curve's best h is set beside the optimum its error model predicts from f and
its derivatives at the point (truncation + round-off smallest):

- forward     h* = 2 √(ε|f| / |f''|)             error ~ h|f''|/2 + 2ε|f|/h
- central     h* = (3ε|f| / |f'''|)^(1/3)         error ~ h²|f'''|/6 + ε|f|/h
- five-point  h* = (45ε|f| / 4|f⁽⁵⁾|)^(1/5)        error ~ h⁴|f⁽⁵⁾|/30 + 3ε|f|/2h
- complex step: no subtraction, no cancellation: any h ≤ √(6ε|f'| / |f'''|) is as good as ε

and beside the rules of thumb √ε, ε^(1/3), ε^(1/5) (times max(1, |x|)). Each curve's two
regimes meet at its crossover h×, where the model's truncation and round-off terms are
equal: truncation error dominates above it, round-off error below (the complex step's
round-off does not grow as h shrinks: below h× its error stays at its floor, about ε|f'|).

The differences are formed in the precision swept, as plain code in that precision forms
them: f by NumPy on float32 scalars (the function table's single-precision world), the
samples combined and divided by the nominal h in float32 (:func:`diffcompare.stencil.combine`).
Where f is not differentiable at the point (a kink, an infinite slope, f undefined) the
judge's analysis says so, nothing is swept, and the exit status is 4, as compare's.

>>> sweep = step_sweep("exp(x)/sqrt(sin(x)**3 + cos(x)**3)", {"x": 1.5})
>>> central = sweep.curve("central", "float64")
>>> 1e-7 < central.best_h < 1e-3, central.best_rel_error < 1e-9
(True, True)
"""


from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from diffcompare.autograd.quiet import quietly
from diffcompare.judge.differentiability import DIFFERENTIABLE
from diffcompare.judge.reference import VALUE, entries_reference, evaluate_exactly, exact_point
from diffcompare.judge.report import EXIT_PASSED, EXIT_UNDECIDED, Report
from diffcompare.language.worlds import COMPLEX, FLOAT32, NUMPY
from diffcompare.methods.budget import TimedOut, time_limit
from diffcompare.methods.finite_differences import SCHEMES as DIFFERENCE_SCHEMES
from diffcompare.methods.symbolic import differentiate
from diffcompare.problem.errors import InputError, SymbolicUnavailable
from diffcompare.problem.problem import make_problem
from diffcompare.problem.tasks import make_task
from diffcompare.stencil import STENCILS, combine, sample

SCHEMES = ("forward", "central", "five-point", "complex-step")
DTYPES = {"float64": (np.float64, np.complex128), "float32": (np.float32, np.complex64)}
RULES_OF_THUMB = {"forward": ("√ε", 1 / 2), "central": ("ε^(1/3)", 1 / 3), "five-point": ("ε^(1/5)", 1 / 5),
                  "complex-step": ("any h ≤ √ε", 1 / 2)}
GRADCHECK_STEP = 1e-6     # PyTorch gradcheck's default eps
MEASURES = ("absolute", "relative")         # the error shown: |estimate - f'|, or that over |f'|
AXES = ("increasing", "decreasing")         # h along the plot's axis, left to right (and down the table)
TRUNCATION, ROUND_OFF = "truncation", "round-off"      # which error dominates at a step
H_RANGE = "1e-20..1e-1"                     # the default sweep: h = 10^-20 ... 10^-1
H_LIMITS = (-30, 0)                         # the powers of ten a sweep may reach
# each scheme's error model, error ≈ t·h^p + ε·r / h^q: (p, t from |f^(k)|, r from |f^(k)|, q)
ERROR_MODELS = {
    "forward": (1, lambda d: d[2] / 2, lambda d: 2 * d[0], 1),
    "central": (2, lambda d: d[3] / 6, lambda d: d[0], 1),
    "five-point": (4, lambda d: d[5] / 30, lambda d: 1.5 * d[0], 1),
    "complex-step": (2, lambda d: d[3] / 6, lambda d: d[1], 0),
}


@dataclass
class Curve:
    """One scheme in one precision: its absolute and relative error at every step."""
    scheme: str
    dtype: str
    abs_errors: np.ndarray             # |estimate - f'(x)| per step (nan where the estimate is not finite)
    rel_errors: np.ndarray             # the same over |f'(x)| (the absolute error where f'(x) = 0)
    best: int | None                   # the index of the best step (None: no finite estimate)
    predicted_h: float | None          # the model's optimum, from f's derivatives at the point
    crossover_h: float | None          # where the model's truncation and round-off terms are equal
    rule_of_thumb_h: float
    best_h: float = math.nan
    note: str = ""
    measure: str = "absolute"          # the measure ``errors`` and ``best_error`` give

    @property
    def errors(self) -> np.ndarray:
        """The errors in the sweep's measure (absolute or relative)."""
        return self.abs_errors if self.measure == "absolute" else self.rel_errors

    @property
    def best_error(self) -> float:
        return math.nan if self.best is None else float(self.errors[self.best])

    @property
    def best_abs_error(self) -> float:
        return math.nan if self.best is None else float(self.abs_errors[self.best])

    @property
    def best_rel_error(self) -> float:
        return math.nan if self.best is None else float(self.rel_errors[self.best])

    def regimes(self, steps) -> list:
        """Which error dominates at each step, by the model: truncation above the crossover,
        round-off below it (None at every step when the model has no crossover here)."""
        if not self.crossover_h:
            return [None] * len(steps)
        return [TRUNCATION if h > self.crossover_h else ROUND_OFF for h in steps]


@dataclass(repr=False)
class StepSweep(Report):
    """Errors of every scheme at every step; renderers only format it. Where f is not
    differentiable at the point, ``smoothness`` holds the judge's finding and nothing is
    swept."""
    label: str
    variable: str
    point: dict
    exact: float | None                # f'(x) by the judge's reference (None: f is not differentiable here)
    derivatives: dict                  # order -> |f^(k)(x)| used by the error models
    steps: np.ndarray                  # as swept: from the largest h down
    curves: list
    notes: list = field(default_factory=list)
    methods: list = field(default_factory=list)
    measure: str = "absolute"
    axis: str = "increasing"
    # where f is not differentiable: {"state": the reference's state (kink, singular, domain, ...),
    # "finding": the judge's Finding as a dict or None, "why": the reference's reason or ""}
    smoothness: dict | None = None

    @property
    def differentiable(self) -> bool:
        return self.smoothness is None

    @property
    def exit_status(self) -> int:
        """0 when the curves were measured; 4 (as compare's) where f has no derivative to
        measure them against: a kink, an infinite slope, f undefined at the point."""
        return EXIT_PASSED if self.differentiable else EXIT_UNDECIDED

    @property
    def schemes(self) -> list:
        """The schemes swept, in order."""
        return list(dict.fromkeys(c.scheme for c in self.curves))

    @property
    def dtypes(self) -> list:
        """The precisions swept, in order."""
        return list(dict.fromkeys(c.dtype for c in self.curves))

    @property
    def order(self) -> list:
        """The indices of the steps in the order of the axis (h increasing: smallest first)."""
        indices = list(range(len(self.steps)))
        return indices[::-1] if self.axis == "increasing" else indices

    @staticmethod
    def rule_of_thumb(scheme: str) -> str:
        """The rule of thumb for the step of ``scheme`` (√ε for forward differences, ...)."""
        return RULES_OF_THUMB[scheme][0]

    def curve(self, scheme: str, dtype: str) -> Curve:
        for c in self.curves:
            if c.scheme == scheme and c.dtype == dtype:
                return c
        raise KeyError((scheme, dtype))


def sweep_steps(per_decade: int = 1, smallest: int = 20, largest: int = 1) -> np.ndarray:
    """h = 10^-largest down to 10^-smallest, ``per_decade`` values in each decade.

    >>> sweep_steps(1, 3).tolist()
    [0.1, 0.01, 0.001]
    >>> bool(sweep_steps(2, 2, 1)[1] == 10 ** -1.5)
    True
    """
    count = (smallest - largest) * per_decade + 1
    exponents = [largest + k / per_decade for k in range(count)]
    # powers of ten read from their decimal text: 1e-5 itself, not 10.0 ** -5's neighbour
    return np.array([float(f"1e{-int(e)}") if e == int(e) else 10.0 ** -e for e in exponents])


def parse_h_range(text: str) -> tuple:
    """The sweep's ends from ``--h-range``: two powers of ten joined by ``..``, either
    order, as their exponents (low, high).

    >>> parse_h_range("1e-16..1e-1"), parse_h_range("1e-1..1e-16")
    ((-16, -1), (-16, -1))
    >>> parse_h_range("1e-3..0.5")
    Traceback (most recent call last):
    ...
    diffcompare.problem.errors.InputError: --h-range 1e-3..0.5: 0.5 is not a power of ten; write the ends as 1e-16..1e-1
    """
    parts = str(text).split("..")
    if len(parts) != 2:
        raise InputError(f"--h-range {text}: give two powers of ten joined by .., e.g. 1e-16..1e-1")
    exponents = []
    for part in parts:
        try:
            value = float(part.strip())
        except ValueError:
            raise InputError(f"--h-range {text}: {part.strip()!r} is not a number; write the ends as "
                             f"1e-16..1e-1") from None
        exponent = round(math.log10(value)) if value > 0 and math.isfinite(value) else None
        if exponent is None or value != float(f"1e{exponent}"):
            raise InputError(f"--h-range {text}: {part.strip()} is not a power of ten; write the ends as 1e-16..1e-1")
        exponents.append(exponent)
    low, high = sorted(exponents)
    if low == high:
        raise InputError(f"--h-range {text}: the two ends are the same step; give a range such as 1e-16..1e-1")
    if low < H_LIMITS[0] or high > H_LIMITS[1]:
        raise InputError(f"--h-range {text}: the steps must lie from 1e{H_LIMITS[0]} to 1e{H_LIMITS[1]}")
    return low, high


def _choice(values, allowed, option: str) -> list:
    """A comma-separated list (or a list) of names from ``allowed``, in ``allowed``'s order."""
    names = values.split(",") if isinstance(values, str) else list(values)
    names = [n.strip() for n in names if n.strip()]
    unknown = [n for n in names if n not in allowed]
    if unknown or not names:
        raise InputError(f"{option} {','.join(names) or '(none)'}: choose from {', '.join(allowed)}")
    return [n for n in allowed if n in names]


def step_sweep(f, at, variable: str | None = None, per_decade: int = 1, timeout: float = 10.0,
               label: str | None = None, progress=None, h_range: tuple | str = H_RANGE, measure: str = "absolute",
               axis: str = "increasing", schemes: str = ",".join(SCHEMES),
               precisions: str = ",".join(DTYPES)) -> StepSweep:
    """Sweep the finite-difference step for ∂f/∂``variable`` at ``at`` (every other
    variable held at its value). ``f`` is an expression or a callable of
    ``diffcompare.language.functions``; ``h_range``: the sweep's ends as powers of ten
    (exponents, or text such as "1e-16..1e-1"); ``measure``: the error shown (absolute or
    relative; both are kept); ``axis``: h increasing or decreasing from left to right;
    ``progress(done, total, what)`` is called before each curve."""
    if not isinstance(per_decade, int) or not 1 <= per_decade <= 20:
        raise InputError(f"--per-decade must be a whole number from 1 to 20, not {per_decade!r}")
    low, high = parse_h_range(h_range) if isinstance(h_range, str) else h_range
    if measure not in MEASURES:
        raise InputError(f"--error {measure}: choose absolute or relative")
    if axis not in AXES:
        raise InputError(f"--h-axis {axis}: choose increasing or decreasing")
    schemes = _choice(schemes, SCHEMES, "--schemes")
    precisions = _choice(precisions, tuple(DTYPES), "--precision")
    problem = make_problem(f, at, label)
    if problem.has_arrays:
        raise InputError("steps sweeps one scalar variable: give numbers, not vectors, in --at")
    if variable is None:
        if len(problem.variables) != 1:
            raise InputError(f"f has the variables {', '.join(problem.variables)}: say which one with --var")
        variable = problem.variables[0]
    if variable not in problem.variables:
        raise InputError(f"--var {variable!r} is not a variable of f (its variables: {', '.join(problem.variables)})")
    steps = sweep_steps(per_decade, -low, -high)
    exact, smoothness = _reference(problem, variable, timeout)
    common = dict(label=problem.label, variable=variable, point=dict(problem.point), steps=steps, measure=measure,
                  axis=axis)
    if smoothness is not None:
        return StepSweep(exact=None, derivatives={}, curves=[], smoothness=smoothness, **common)
    derivatives = _derivative_magnitudes(problem, variable, timeout, exact)
    x = float(problem.point[variable])
    curves, notes = [], []
    total = len(precisions) * len(schemes)
    for dtype in precisions:
        real, complex_type = DTYPES[dtype]
        eps = float(np.finfo(real).eps)
        for scheme in schemes:
            if progress is not None:
                progress(len(curves), total, f"{scheme} in {dtype}")
            estimates, note = _estimates(problem, variable, scheme, steps, real, complex_type)
            with np.errstate(all="ignore"):
                abs_errors = np.abs(estimates - exact)
            abs_errors = np.where(np.isfinite(abs_errors), abs_errors, np.nan)
            rel_errors = abs_errors / abs(exact) if exact else abs_errors.copy()
            best = _best(rel_errors, scheme, eps)
            curves.append(Curve(scheme, dtype, abs_errors, rel_errors, best, _predicted(scheme, eps, derivatives),
                                crossover(scheme, eps, derivatives),
                                eps ** RULES_OF_THUMB[scheme][1] * max(1.0, abs(x)),
                                best_h=float(steps[best]) if best is not None else math.nan, note=note,
                                measure=measure))
    if exact == 0:
        notes.append("f'(x) = 0 here: the relative errors are absolute errors")
    gradcheck = _gradcheck_note(steps, curves)
    if gradcheck:
        notes.append(gradcheck)
    return StepSweep(exact=exact, derivatives=derivatives, curves=curves, notes=notes, **common)


def _reference(problem, variable, timeout):
    """(f'(x) as a float, None) by the judge's exact reference, as compare computes it; or
    (None, what the judge found) where f is not differentiable at the point."""
    task = make_task(problem, "gradient")
    derivative = differentiate(problem, timeout, task)
    if derivative.partials is None:
        raise InputError(f"steps needs SymPy's exact derivative, and SymPy has none here ({derivative.reason})")
    reference = entries_reference(derivative, problem.flat_point()[None, :], 30, timeout, 1, problem, task)
    if not reference.available:
        raise InputError(f"there is no exact reference to measure the differences against: {reference.reason}")
    k = list(problem.input_labels).index(variable)
    state = str(reference.state[0, k])
    value = reference.exact[k] if reference.exact is not None else None
    if state in (VALUE, DIFFERENTIABLE) and value is not None:
        return float(value), None
    finding = reference.findings.get((0, k))
    return None, {"state": state, "finding": finding.as_dict() if finding is not None else None,
                  "why": reference.undefined.get(k, "")}


def _derivative_magnitudes(problem, variable, timeout, first):
    """|f|, |f'|, |f''|, |f'''|, |f⁽⁵⁾| at the point (SymPy's derivatives by mpmath, 30
    digits) for the error models; None where one is not finite here."""
    import sympy

    values = {1: abs(first)}
    try:
        with time_limit(timeout):
            expr, symbols = problem.sympy_form()
            exact = exact_point(problem)
            subs = {s: sympy.Rational(exact[n].numerator, exact[n].denominator)
                    for s, n in zip(symbols, problem.variables)}
            symbol = symbols[problem.variables.index(variable)]
            derivative = expr
            for order in range(6):
                if order:
                    derivative = sympy.diff(derivative, symbol)
                if order in (1, 4):
                    continue
                value, _ = evaluate_exactly(derivative, subs, 30)
                values[order] = None if value is None else abs(float(value))
    except TimedOut as stop:
        raise InputError(f"SymPy's derivatives took longer than {stop.seconds:g} s: the error models are "
                         f"out of reach for this f") from None
    except SymbolicUnavailable as error:
        raise InputError(f"steps needs SymPy's exact derivative, and {error}") from None
    return dict(sorted(values.items()))


def _estimates(problem, variable, scheme, steps, real, complex_type):
    """The scheme's derivative at every step, computed in the given precision as plain code
    in it computes: f in that precision's world, the samples combined in it."""
    x = real(problem.point[variable])
    others = {n: real(v) for n, v in problem.point.items() if n != variable}
    world = FLOAT32 if real is np.float32 else NUMPY
    out = np.full(len(steps), np.nan)
    note = ""
    if DIFFERENCE_SCHEMES[scheme].complex:
        others_c = {n: complex_type(v) for n, v in others.items()}
        for k, h in enumerate(steps):
            try:
                value = quietly(problem.evaluate, COMPLEX, {**others_c, variable: complex_type(complex(x, h))})
            except Exception as error:
                return out, f"not complex-safe: {error}"
            value = np.asarray(value).reshape(-1)[0]
            if real is np.float32 and np.asarray(value).dtype == np.complex128:
                note = "some function of f computes in complex128: the float32 complex step is partly double"
            out[k] = float(value.imag) / float(real(h)) if np.isfinite(value.real) else np.nan
        return out, note

    def at(step):
        return np.asarray(quietly(problem.evaluate, world, {**others, variable: x + step})).reshape(-1)[0]

    stencil = STENCILS[scheme]
    with np.errstate(all="ignore"):
        for k, h in enumerate(steps):
            h_typed = real(h)
            out[k] = float(combine(sample(at, h_typed, stencil), h_typed, stencil))
    return out, note


def _best(errors, scheme, eps):
    """The index of the best step: the smallest error; for the complex step, whose error
    stays at its floor (about ε) for every small h, the largest h that reaches the floor."""
    if not np.any(np.isfinite(errors)):
        return None
    if DIFFERENCE_SCHEMES[scheme].complex:
        floor = max(2 * np.nanmin(errors), eps)
        return int(np.flatnonzero(errors <= floor)[0])
    return int(np.nanargmin(errors))


def _predicted(scheme, eps, d):
    """The optimum step of the scheme's error model, from |f^(k)| at the point."""
    f, f1 = d.get(0), d.get(1)
    try:
        if scheme == "forward":
            return 2 * math.sqrt(eps * f / d[2])
        if scheme == "central":
            return (3 * eps * f / d[3]) ** (1 / 3)
        if scheme == "five-point":
            return (45 * eps * f / (4 * d[5])) ** (1 / 5)
        return math.sqrt(6 * eps * f1 / d[3])
    except (TypeError, ZeroDivisionError, ValueError, KeyError):
        return None          # a derivative is zero or undefined here: the model has no optimum


def crossover(scheme, eps, d) -> float | None:
    """The step where the scheme's truncation term t·h^p equals its round-off term
    ε·r/h^q (:data:`ERROR_MODELS`): truncation dominates above it, round-off below. None
    where the model has none (a derivative it needs is zero or undefined here).

    >>> crossover("central", 2.0 ** -52, {0: 1.0, 3: 6.0}) == (2.0 ** -52) ** (1 / 3)
    True
    """
    order, truncation, round_off, power = ERROR_MODELS[scheme]
    try:
        t, r = truncation(d), round_off(d)
        if not t or not r:
            return None
        return (eps * r / t) ** (1 / (order + power))
    except (TypeError, KeyError):
        return None


def _gradcheck_note(steps, curves) -> str:
    pair = [next((c for c in curves if c.scheme == "central" and c.dtype == t), None) for t in ("float32", "float64")]
    if None in pair:
        return ""
    k = int(np.argmin(np.abs(np.log10(steps) - math.log10(GRADCHECK_STEP))))
    c32, c64 = pair
    return (f"why gradient checks fail in float32: central differences at h = {steps[k]:.0e} (gradcheck's eps) "
            f"are off by {c32.rel_errors[k]:.1e} relative in float32 (best {c32.best_rel_error:.1e} at "
            f"h = {c32.best_h:.0e}), {c64.rel_errors[k]:.1e} in float64 — rounding, not a wrong gradient")
