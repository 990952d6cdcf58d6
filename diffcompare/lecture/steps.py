"""The finite-difference error against the step size: the V-shaped curves of every
scheme, truncation falling as h shrinks and rounding rising, in float64 and float32.

For each h = 10^-1 ... 10^-20 and each scheme (forward, central, five-point, complex
step) the derivative by that scheme is measured against SymPy's exact derivative
evaluated by mpmath. The best h of each curve is set beside the optimum its error model
predicts from f and its derivatives at the point (truncation = rounding):

- forward     h* = 2 √(ε|f| / |f''|)             error ~ h|f''|/2 + 2ε|f|/h
- central     h* = (3ε|f| / |f'''|)^(1/3)         error ~ h²|f'''|/6 + ε|f|/h
- five-point  h* = (45ε|f| / 4|f⁽⁵⁾|)^(1/5)        error ~ h⁴|f⁽⁵⁾|/30 + 3ε|f|/2h
- complex step: no subtraction, no cancellation: any h ≤ √(6ε|f'| / |f'''|) is as good as ε

and beside the rules of thumb √ε, ε^(1/3), ε^(1/5) (times max(1, |x|)). Differences are
divided by the nominal h, as gradient checkers do, so that the rounding of x + h shows.

>>> sweep = step_sweep("exp(x)/sqrt(sin(x)**3 + cos(x)**3)", {"x": 1.5})
>>> central = sweep.curve("central", "float64")
>>> 1e-7 < central.best_h < 1e-3, central.best_error < 1e-9
(True, True)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from diffcompare.autograd.quiet import quietly
from diffcompare.judge.reference import evaluate_exactly, exact_point
from diffcompare.judge.report import Report
from diffcompare.language.worlds import COMPLEX, FLOAT32, NUMPY
from diffcompare.methods.budget import TimedOut, time_limit
from diffcompare.methods.finite_differences import SCHEMES as DIFFERENCE_SCHEMES
from diffcompare.methods.finite_differences import STENCILS
from diffcompare.problem.errors import InputError, SymbolicUnavailable
from diffcompare.problem.problem import make_problem

SCHEMES = ("forward", "central", "five-point", "complex-step")
DTYPES = {"float64": (np.float64, np.complex128), "float32": (np.float32, np.complex64)}
RULES_OF_THUMB = {"forward": ("√ε", 1 / 2), "central": ("ε^(1/3)", 1 / 3), "five-point": ("ε^(1/5)", 1 / 5),
                  "complex-step": ("any h ≤ √ε", 1 / 2)}
GRADCHECK_STEP = 1e-6     # PyTorch gradcheck's default eps


@dataclass
class Curve:
    """One scheme in one precision: the relative error at every step."""
    scheme: str
    dtype: str
    errors: np.ndarray                 # relative error per step (1.0 when the difference vanished)
    best_h: float
    best_error: float
    predicted_h: float | None          # from the error model and f's derivatives at the point
    rule_of_thumb_h: float
    note: str = ""


@dataclass(repr=False)
class StepSweep(Report):
    """Errors of every scheme at every step; renderers only format it."""
    label: str
    variable: str
    point: dict
    exact: float                       # f'(x) by SymPy and mpmath
    derivatives: dict                  # order -> |f^(k)(x)| used by the error models
    steps: np.ndarray
    curves: list
    notes: list = field(default_factory=list)
    methods: list = field(default_factory=list)

    @property
    def schemes(self) -> list:
        """The schemes swept, in order."""
        return list(dict.fromkeys(c.scheme for c in self.curves))

    @property
    def dtypes(self) -> list:
        """The precisions swept, in order."""
        return list(dict.fromkeys(c.dtype for c in self.curves))

    @staticmethod
    def rule_of_thumb(scheme: str) -> str:
        """The rule of thumb for the step of ``scheme`` (√ε for forward differences, ...)."""
        return RULES_OF_THUMB[scheme][0]

    def curve(self, scheme: str, dtype: str) -> Curve:
        for c in self.curves:
            if c.scheme == scheme and c.dtype == dtype:
                return c
        raise KeyError((scheme, dtype))


def sweep_steps(per_decade: int = 1, smallest: int = 20) -> np.ndarray:
    """h = 10^-1 down to 10^-smallest, ``per_decade`` values in each decade.

    >>> sweep_steps(1, 3).tolist()
    [0.1, 0.01, 0.001]
    """
    count = (smallest - 1) * per_decade + 1
    exponents = [1 + k / per_decade for k in range(count)]
    # powers of ten read from their decimal text: 1e-5 itself, not 10.0 ** -5's neighbour
    return np.array([float(f"1e-{int(e)}") if e == int(e) else 10.0 ** -e for e in exponents])


def step_sweep(f, at, variable: str | None = None, per_decade: int = 1, timeout: float = 10.0,
               label: str | None = None, progress=None) -> StepSweep:
    """Sweep the finite-difference step for ∂f/∂``variable`` at ``at`` (every other
    variable held at its value). ``f`` is an expression or a callable of
    ``diffcompare.language.functions``; ``progress(done, total, what)`` is called before
    each curve."""
    if not isinstance(per_decade, int) or not 1 <= per_decade <= 20:
        raise InputError(f"--per-decade must be a whole number from 1 to 20, not {per_decade!r}")
    problem = make_problem(f, at, label)
    if problem.has_arrays:
        raise InputError("steps sweeps one scalar variable: give numbers, not vectors, in --at")
    if variable is None:
        if len(problem.variables) != 1:
            raise InputError(f"f has the variables {', '.join(problem.variables)}: say which one with --var")
        variable = problem.variables[0]
    if variable not in problem.variables:
        raise InputError(f"--var {variable!r} is not a variable of f (its variables: {', '.join(problem.variables)})")
    exact, derivatives = _exact_derivatives(problem, variable, timeout)
    steps = sweep_steps(per_decade)
    x = float(problem.point[variable])
    curves, notes = [], []
    total = len(DTYPES) * len(SCHEMES)
    for dtype, (real, complex_type) in DTYPES.items():
        eps = float(np.finfo(real).eps)
        for scheme in SCHEMES:
            if progress is not None:
                progress(len(curves), total, f"{scheme} in {dtype}")
            estimates, note = _estimates(problem, variable, scheme, steps, real, complex_type)
            with np.errstate(all="ignore"):
                errors = np.abs(estimates - exact) / (abs(exact) if exact else 1.0)
            errors = np.where(np.isfinite(errors), errors, np.nan)
            best = _best(errors, scheme, eps)
            rule_name, power = RULES_OF_THUMB[scheme]
            curves.append(Curve(scheme, dtype, errors, float(steps[best]) if best is not None else math.nan,
                                float(errors[best]) if best is not None else math.nan,
                                _predicted(scheme, eps, derivatives), eps ** power * max(1.0, abs(x)), note))
    if exact == 0:
        notes.append("f'(x) = 0 here: the errors are absolute, not relative")
    notes.append(_gradcheck_note(steps, curves))
    return StepSweep(problem.label, variable, dict(problem.point), exact, derivatives, steps, curves, notes)


def _exact_derivatives(problem, variable, timeout):
    """f'(x) as a float, and |f|, |f'|, |f''|, |f'''|, |f⁽⁵⁾| at the point (mpmath, 30 digits)."""
    import sympy

    try:
        with time_limit(timeout):
            expr, symbols = problem.sympy_form()
            exact = exact_point(problem)
            subs = {s: sympy.Rational(exact[n].numerator, exact[n].denominator)
                    for s, n in zip(symbols, problem.variables)}
            symbol = symbols[problem.variables.index(variable)]
            values, derivative = {}, expr
            for order in range(6):
                if order:
                    derivative = sympy.diff(derivative, symbol)
                if order == 4:
                    continue
                value, why = evaluate_exactly(derivative, subs, 30)
                if value is None:
                    if order <= 1:
                        raise InputError(f"{'f' if order == 0 else 'the derivative'} is {why} at this point: "
                                         f"there is nothing to measure the differences against")
                    values[order] = None
                    continue
                values[order] = abs(float(value))
                if order == 1:
                    first = float(value)
    except TimedOut as stop:
        raise InputError(f"SymPy's derivatives took longer than {stop.seconds:g} s: the exact reference is "
                         f"out of reach for this f") from None
    except SymbolicUnavailable as error:
        raise InputError(f"steps needs SymPy's exact derivative, and {error}") from None
    return first, values


def _estimates(problem, variable, scheme, steps, real, complex_type):
    """The scheme's derivative at every step, computed in the given precision."""
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
    for k, h in enumerate(steps):
        h_typed = real(h)
        total = 0.0
        for offset, weight in STENCILS[scheme]:
            at = x + real(offset) * h_typed if offset else x
            value = quietly(problem.evaluate, world, {**others, variable: at})
            total += weight * float(np.asarray(value).reshape(-1)[0])
        out[k] = total / float(h_typed)
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
    except (TypeError, ZeroDivisionError, ValueError):
        return None          # a derivative is zero or undefined here: the model has no optimum


def _gradcheck_note(steps, curves) -> str:
    k = int(np.argmin(np.abs(np.log10(steps) - math.log10(GRADCHECK_STEP))))
    c32, c64 = (next(c for c in curves if c.scheme == "central" and c.dtype == t) for t in ("float32", "float64"))
    return (f"why gradient checks fail in float32: central differences at h = {steps[k]:.0e} (gradcheck's eps) "
            f"are off by {c32.errors[k]:.1e} relative in float32 (best {c32.best_error:.1e} at h = {c32.best_h:.0e}), "
            f"{c64.errors[k]:.1e} in float64 — rounding, not a wrong gradient")
