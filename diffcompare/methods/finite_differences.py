"""Finite differences: forward, backward, central, 5-point central, complex step, and
Richardson-extrapolated central differences.

Steps follow each scheme's balance of truncation against rounding, scaled by the
variable (``h ≈ c·max(1, |x|)`` with c = √eps, eps^(1/3), eps^(1/5); 1e-20 for the
complex step) and rounded to a power of two, so that ``x ± h`` and ``x ± 2h`` are exact
in binary64; the step actually taken is ``(x + h) - x``.

The schemes run on every point at once in :mod:`diffcompare.methods.entries`; this
module holds what they are: their formulas, orders and steps. Their stencils (the
offsets and weights of f's samples) are :data:`diffcompare.stencil.STENCILS`, shared with
gradcheck and explain.

>>> nominal_step(SCHEMES["central-difference"], 1000.0) == power_of_two(EPS ** (1 / 3) * 1000)
True
>>> [round(sum(w * o ** k for o, w in STENCILS["five-point"]), 12) for k in range(3)]   # exact on lines
[0.0, 1.0, 0.0]
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from diffcompare.autograd.quiet import quietly
from diffcompare.problem.problem import Problem
from diffcompare.stencil import STENCILS, difference, reach

EPS = float(np.finfo(np.float64).eps)
SMALLEST_NORMAL = float(np.finfo(np.float64).tiny)


@dataclass(frozen=True)
class Scheme:
    name: str
    formula: str
    order: int              # truncation error ~ h**order
    step_factor: float      # h ≈ step_factor · max(1, |x|)
    evaluations: str        # per variable, for the help text
    scaled: bool = True
    cost: int = 1           # evaluations of f per variable (a complex one costs two)
    samples: int = 1        # evaluations of f per direction (f(x) itself, shared, aside)
    complex: bool = False   # evaluates f at complex points: Im f(x + ih) / h, its step the same at every x

    @property
    def stencil(self) -> tuple | None:
        """f'(x) ≈ Σ weight · f(x + offset·h) / h as (offset, weight) pairs; None for the
        complex step, which is no combination of real samples."""
        return STENCILS.get(self.name)


SCHEMES = {
    "forward-difference": Scheme("forward-difference", "(f(x+h) - f(x)) / h", 1, math.sqrt(EPS), "n + 1"),
    "backward-difference": Scheme("backward-difference", "(f(x) - f(x-h)) / h", 1, math.sqrt(EPS), "n + 1"),
    "central-difference": Scheme("central-difference", "(f(x+h) - f(x-h)) / 2h", 2, EPS ** (1 / 3), "2n", cost=2, samples=2),
    "five-point": Scheme("five-point", "(f(x-2h) - 8f(x-h) + 8f(x+h) - f(x+2h)) / 12h", 4, EPS ** (1 / 5), "4n", cost=4,
                         samples=4),
    # the complex step has no rounding to balance: its step is 1e-20 whatever |x| (scaled by |x|
    # it grows to 100 at x = 1e22, far beyond the reach of the Taylor series)
    "complex-step": Scheme("complex-step", "Im f(x + ih) / h", 2, 1e-20, "n", scaled=False, cost=2,
                           complex=True),
    # central differences at h, h/2, h/4 extrapolated to h -> 0 (order 6): h ≈ eps^(1/7), the
    # balance of an order-6 truncation against rounding. Exact (power-of-two) steps make
    # scaling by |x| unnecessary: the truncation depends on f's scale, not x's.
    "richardson": Scheme("richardson", "central differences at h, h/2, h/4 extrapolated to h → 0", 6,
                         EPS ** (1 / 7), "6n", scaled=False, cost=6, samples=6),
}
FD_METHODS = tuple(SCHEMES)


def power_of_two(h: float) -> float:
    """The power of two nearest to ``h`` (on a log scale)."""
    return 2.0 ** round(math.log2(h))


def nominal_step(scheme: Scheme, x: float) -> float:
    if scheme.complex:
        return scheme.step_factor
    scale = max(1.0, abs(x)) if scheme.scaled else 1.0
    h = power_of_two(scheme.step_factor * scale)
    if not scheme.scaled and x:     # the smallest step (h/4) stays far above the spacing of floats at x
        h = max(h, power_of_two(4096 * math.ulp(x)))
    return h


# how far each stencil reaches, in steps: (to the left, to the right); the Hessian's differences too
_REACH = {**{name: reach(stencil) for name, stencil in STENCILS.items()}, "second-differences": (1, 1), "mixed": (1, 1)}


def stencil_crossing(problem: Problem, scheme_name: str, name: str, h: float, centre=None) -> str | None:
    """Why the stencil for ∂f/∂name cannot be trusted — it straddles a kink, jump, pole or
    domain boundary of some call in f — or None. ``centre``: ``problem.pieces`` at the
    point, when the caller has it (it is the same for every variable and scheme).

    >>> from diffcompare.problem.problem import make_problem
    >>> stencil_crossing(make_problem("abs(x - 0.001)", {"x": 0}), "richardson", "x", 2.0 ** -6)
    'the stencil [-0.015625, 0.015625] straddles a point where abs is not smooth (column 1)'
    """
    if scheme_name not in _REACH:
        return None
    left, right = _REACH[scheme_name]
    x = problem.point[name]
    centre, value = centre if centre is not None else problem.pieces(problem.point)
    for steps, sign in ((left, -1), (right, 1)):
        if not steps:
            continue
        end = x + sign * steps * h
        pieces, end_value = problem.pieces({**problem.point, name: end})
        low, high = min(x, end), max(x, end)
        span = f"the stencil [{x - left * h:.6g}, {x + right * h:.6g}]"
        if math.isfinite(value) and not math.isfinite(end_value):
            return f"{span} leaves the domain of f (f({name}={end:.6g}) = {end_value})"
        for (function, column, here), (_, _, there) in zip(centre, pieces):
            if here != there:
                where = f" (column {column})" if column else ""
                return f"{span} straddles a point where {function} is not smooth{where}"
        if len(pieces) != len(centre):
            return f"{span} takes a different path through f between {low:.6g} and {high:.6g}"
    return None


def samples_cross(problem: Problem, scheme_name: str, name: str, h: float, band: float) -> str | None:
    """Why f's own samples show that the stencil for ∂f/∂name does not lie on one smooth
    piece of f — or None. The scheme again at h/2 and h/4: on a smooth f its values move
    by less than the expected accuracy ``band`` at h (truncation shrinks, rounding grows
    2x and 4x); a branch on the value inside the stencil, which no function-table row
    shows, makes them jump.

    >>> from diffcompare.problem.problem import make_problem
    >>> def f(x):
    ...     return x * x if x > 0 else -x
    >>> # f' is 0.002; across the branch, by hand: (4.8e-4 - 8(2.6e-4)² + 8(1.74e-3)² - (2.48e-3)²) / (12 · 7.4e-4)
    >>> samples_cross(make_problem(f, {"x": 1e-3}), "five-point", "x", 7.4e-4, 1e-10)[:27]
    'the scheme gives 0.05602810'
    >>> samples_cross(make_problem(f, {"x": 0.5}), "five-point", "x", 7.4e-4, 1e-10) is None
    True
    """
    if scheme_name not in STENCILS:
        return None
    f = problem.numpy_function()
    names = problem.variables
    x0 = [problem.point[n] for n in names]
    i = names.index(name)

    def at(step):
        args = list(x0)
        args[i] = x0[i] + step
        return float(np.asarray(f(*args)).reshape(-1)[0])

    def scheme(step):
        return difference(at, step, STENCILS[scheme_name])
    try:
        values = quietly(lambda: [scheme(h), scheme(h / 2), scheme(h / 4)])
    except Exception:           # f fails inside the stencil: that is a crossing too
        return "f fails at a point of the stencil at h/2 or h/4"
    first, second = abs(values[0] - values[1]), abs(values[1] - values[2])
    if not (math.isfinite(first) and math.isfinite(second)):
        return "f is not finite at a point of the stencil at h/2 or h/4"
    if first <= 3 * band and second <= 6 * band:
        return None
    return (f"the scheme gives {values[0]:.8g} at h = {h:.3g}, {values[1]:.8g} at h/2 and {values[2]:.8g} at h/4: "
            f"f's samples across the stencil are not those of one smooth function")


def richardson(f, x: float, h: float):
    """f'(x) from central differences at h, h/2, h/4, extrapolated to h -> 0 (error
    O(h^6)), and a conservative error estimate: the gap to the best 4th-order extrapolation.

    >>> value, error = richardson(math.exp, 1.0, 2.0 ** -6)
    >>> abs(value - math.e) < 1e-13, abs(value - math.e) < error < 1e-10
    (True, True)
    """
    d = []
    for k in range(3):
        step = h / 2 ** k
        taken = ((x + step) - (x - step)) / 2      # the step actually taken
        d.append(difference(lambda s: f(x + s), step, taken=taken))
    value, fourth = extrapolate(d)
    return value, abs(value - fourth)


def extrapolate(d):
    """(the order-6 value, the best order-4 value) from central differences ``d`` at h, h/2
    and h/4 (numbers or arrays alike): two Richardson steps, then one more."""
    r01 = (4 * d[1] - d[0]) / 3
    r12 = (4 * d[2] - d[1]) / 3
    return (16 * r12 - r01) / 15, r12
