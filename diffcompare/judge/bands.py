"""The band each method's entries are held to: the accuracy it can be expected to reach
here, entry by entry and point by point (the numbers come from :mod:`~diffcompare.judge.accuracy`).

- Exact methods (autograd, symbolic): SAFETY × (the rounding bound of SymPy's formula
  for the entry + the rounding along f's chain-rule paths), + FLOOR_ULPS ulp of the
  entry. Where the paths are not known (Hessians, arrays, callables, many points), the
  floor adds FLOOR_ULPS ulp of the largest entry at the point instead: the scale of a
  computation is then judged normwise.
- Finite differences: their truncation plus f's rounding at the stencil over the step.
  At one point, for the gradient of scalar variables, truncation comes from the
  stencil's Taylor series with f's derivatives computed by mpmath, and f's rounding from
  a walk of f as binary64 evaluates it at each stencil point (an entry whose derivatives
  mpmath cannot give has no band); elsewhere the truncation is estimated from the same
  scheme at half and a quarter of the step. Complex step's band is the exact methods' plus its
  truncation and NumPy's inexact complex arithmetic.

>>> import numpy as np
>>> from diffcompare.pipeline.compare import compare
>>> r = compare("exp(x)", at={"x": 1.0}, methods="autograd,central-difference", repeat=1)
>>> central = r.method("central-difference")
>>> float(central.tolerance[0, 0]) < 1e-8 < float(central.tolerance[0, 0]) * 1e4   # h² f'''/6 + rounding / h
True
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from diffcompare.judge.accuracy import (
    FLOOR_ULPS,
    NO_FORMULA_ULPS,
    SAFETY,
    UNIT_ROUNDOFF,
    WALK_MAX_OPS,
    Band,
    derivative_magnitudes,
    fd_band,
    path_bound,
    rounding_bound,
)
from diffcompare.language.worlds import MPMATH
from diffcompare.methods.budget import TimedOut, time_limit
from diffcompare.methods.catalogue import CATALOGUE, COMPLEX, GRADIENTS, SECOND_DIFFERENCES
from diffcompare.methods.entries import outputs, per_point, run_autograd
from diffcompare.methods.finite_differences import STENCILS
from diffcompare.problem.tasks import Task

MAX_WALKS = 4000                # rounding-bound walks of SymPy formulas per report
MAX_PATH_POINTS = 50            # chain-rule path bounds (one mpmath sweep per output and point)
MAX_STENCIL_WALKS = 8           # variables up to which f's rounding is walked at every stencil point
COMPLEX_ROUNDING_CAP = 2.0 ** -30     # the largest relative rounding complex step inherits from f

HALVING = ("{safety:g} × (truncation, estimated from the same scheme at half the step, + f's rounding over the "
           "stencil / h) + the exact methods' band")


class Bands:
    """The bands of every method at the reference points (``of``), computed once per
    report from the problem, the task, the points and the reference; ``dtype``: the
    precision the methods computed in (an audit's float32 case: its unit roundoff).

    The band of an exact method is FLOOR_ULPS ulp of the entry wherever its value lies
    that close to the exact one; at a point where some entry lies farther, the whole band
    of the model is computed for that point alone (:meth:`exact_row`: the rounding of the
    formula and along f's chain-rule paths), so that a point's verdict never depends on the
    other points it is judged with."""

    def __init__(self, problem, task, where, reference, derivative, timeout=None, dtype: str = "float64"):
        self.problem, self.task, self.where, self.reference = problem, task, where, reference
        self.derivative, self.timeout = derivative, timeout
        self.dtype = dtype
        self.scale = float(np.finfo(dtype).eps) / (2 * UNIT_ROUNDOFF)      # the dtype's u over binary64's
        if not reference.available:
            return
        self.flat = where.flat[reference.indices]
        self.magnitude = reference.magnitude
        # one point, the gradient of scalar variables: f's derivatives at the point are known
        self.at_one_point = (len(where) == 1 and task.kind == "gradient" and not task.output_shape
                             and not problem.has_arrays)
        self._magnitudes = None         # f's derivatives at the point, computed once when first needed
        self._rows = {}                 # row -> the exact methods' whole band there
        self._f = None

    @property
    def floor(self) -> np.ndarray:
        """FLOOR_ULPS ulp (of the dtype) of every entry: what an exact method may always be off by."""
        return FLOOR_ULPS * np.spacing(self.magnitude.astype(self.dtype)).astype(np.float64)

    @property
    def f(self):
        """|f| at the reference points, (rows, m)."""
        if self._f is None:
            self._f = np.abs(outputs(self.problem, self.task, self.flat))
        return self._f

    @property
    def f_error(self):
        """A bound on f's rounding at the reference points (rows, m): walks of f as binary64
        evaluates it, at least 2u|f| (computed once, for the difference schemes)."""
        if getattr(self, "_f_error", None) is None:
            walks = self._walks(self._f_outputs())
            self._f_error = 2 * UNIT_ROUNDOFF * self.f if walks is None else np.fmax(walks, 2 * UNIT_ROUNDOFF * self.f)
        return self._f_error

    # -- the exact methods ---------------------------------------------------------------------

    def _f_outputs(self):
        """f's outputs as binary64 evaluates them (nothing simplified away), for the rounding
        walks; SymPy's simplified outputs where f cannot be built that way."""
        written = self.problem.sympy_as_written()
        if written is not None:
            return written
        try:
            return self.problem.sympy_outputs()[0]
        except Exception:
            return None

    def _walks(self, formulas, rows=None) -> np.ndarray | None:
        """Rounding bounds of ``formulas`` at the given reference rows (all by default; nan
        where a formula is too large or the walk fails); None without formulas or beyond
        MAX_WALKS."""
        flat = self.flat if rows is None else self.flat[rows]
        if formulas is None or flat.shape[0] * len(formulas) > MAX_WALKS:
            return None
        out = np.zeros((flat.shape[0], len(formulas)))
        import sympy
        small = [sympy.count_ops(e) <= WALK_MAX_OPS for e in formulas]
        symbols = self.derivative.symbols
        for r in range(flat.shape[0]):
            point = dict(zip(symbols, map(float, flat[r])))
            for k, formula in enumerate(formulas):
                bound = rounding_bound(formula, point) if small[k] else None
                out[r, k] = bound if bound is not None else np.nan
        return out

    EXACT_SOURCE = (f"{FLOOR_ULPS} ulp of the entry; where a value lies farther, {SAFETY:g} × (the rounding bound "
                    f"of SymPy's formula for each entry + rounding along f's chain-rule paths), + {FLOOR_ULPS} ulp, at "
                    f"that point")

    def exact_row(self, r: int) -> np.ndarray:
        """The exact methods' whole band at reference row ``r`` (entries,), in the dtype."""
        if r not in self._rows:
            self._rows[r] = self._exact_row(r) * self.scale
        return self._rows[r]

    def _exact_row(self, r: int) -> np.ndarray:
        magnitude = self.magnitude[r]
        ulp = np.spacing(magnitude)
        normwise = FLOOR_ULPS * UNIT_ROUNDOFF * magnitude.max()
        decided = self.reference.state[r] != "value"
        if self.derivative is None or self.derivative.partials is None:
            walks = None
        else:
            walks = self._walks(self.derivative.partials, [r])
        paths = self._paths(r)
        if walks is None or not np.isfinite(walks).any():
            # no formula (SymPy timed out or cannot follow f): f's own program still has its
            # paths, and at one point the input conditioning 1 + |x f''/f'| widens the ulps
            kappa = self._conditioning()[0] if self.at_one_point else 1.0
            base = NO_FORMULA_ULPS * kappa * ulp
            if paths is not None:
                base = np.maximum(base, SAFETY * paths)
            band = base + FLOOR_ULPS * ulp + (normwise if paths is None else 0.0)
        else:
            walks = np.where(np.isfinite(walks[0]), walks[0], NO_FORMULA_ULPS * ulp)
            band = SAFETY * walks + FLOOR_ULPS * ulp + normwise if paths is None else \
                SAFETY * (walks + paths) + FLOOR_ULPS * ulp
        # entries decided from f (the formula has no value there, or f meets a kink): no formula
        # or path to walk there; FLOOR_ULPS ulp of the entry and of the largest entry at the point
        return np.where(decided, FLOOR_ULPS * ulp + normwise, band)

    def refine(self, tolerance: np.ndarray, outside: np.ndarray, timeout: float | None = None,
               complex_step: bool = False) -> np.ndarray:
        """``tolerance`` with the whole band at every row where an entry lies ``outside`` its
        floor (the complex step's: ``tolerance`` plus its own rounding along f's paths); rows
        the budget (``timeout`` seconds) leaves unreached get nan there: no band, rather than a
        floor too narrow for them."""
        out = tolerance.copy()
        rows = [int(r) for r in np.flatnonzero(outside.any(axis=1))]
        done = 0
        try:
            with time_limit(timeout):
                for r in rows:
                    out[r] = tolerance[r] + self.forward_row(r) if complex_step else \
                        np.fmax(out[r], self.exact_row(r))
                    done += 1
        except TimedOut:
            for r in rows[done:]:
                out[r] = np.where(outside[r], np.nan, out[r])
        return out

    def magnitudes(self) -> dict:
        """|∂^k f/∂x_i^k| at the one point (k = 2..9, by mpmath), computed once for the
        conditioning and the Taylor bands alike."""
        if self._magnitudes is None:
            self._magnitudes = derivative_magnitudes(self.problem, timeout=self.timeout)
        return self._magnitudes

    def _conditioning(self):
        """1 + |x| |∂²f/∂x²| / |∂f/∂x| per entry at one point (a gradient of scalar
        variables; mpmath's derivatives), else 1."""
        if not self.at_one_point:
            return np.ones_like(self.magnitude)
        magnitudes = self.magnitudes()
        kappa = np.ones_like(self.magnitude)
        for k, name in enumerate(self.problem.variables):
            second = magnitudes.get(name, {}).get(2)
            if second is not None and self.magnitude[0, k] > 0:
                kappa[0, k] = 1 + abs(self.problem.point[name]) * second / self.magnitude[0, k]
        return kappa

    def forward_row(self, r: int) -> np.ndarray:
        """The band of a method that carries each input's perturbation forward through f's
        program in exact-rounded arithmetic (the complex step): the rounding along f's
        chain-rule paths without the engine's own VJP formulas, + FLOOR_ULPS ulp: no walk of
        SymPy's formula, which it never evaluates (where f is a callable whose program is not
        followed, the exact methods' band, formula walk included)."""
        magnitude = self.magnitude[r]
        ulp = np.spacing(magnitude)
        paths = self._paths(r, engine_formulas=False)
        if paths is None:
            # no program to follow (a callable): the whole band, which walks SymPy's formula
            return self.exact_row(r) / self.scale
        return SAFETY * paths + FLOOR_ULPS * ulp

    def _paths(self, r: int, engine_formulas: bool = True):
        """Rounding a backward pass meets along f's chain-rule paths at reference row ``r``
        (see accuracy.path_bound), entry by entry; None where unavailable (Hessians, arrays,
        callables). SymPy may simplify away a cancellation (3z/z is 3) that the engine still
        computes."""
        task, problem = self.task, self.problem
        if task.kind == "hessian" or not problem.is_text or problem.has_arrays:
            return None
        moved = replace(problem, point=problem.split(self.flat[r]))
        bounds = np.zeros((task.m, task.n))
        for i in range(task.m):
            found = path_bound(moved, output=i if task.output_shape else None, engine_formulas=engine_formulas)
            if found is None:
                return None
            bounds[i] = [found[name] for name in problem.variables]
        if task.kind == "vjp":
            return np.abs(task.vector) @ bounds
        if task.kind == "jvp":
            return bounds @ np.abs(task.vector)
        return bounds.reshape(-1)

    @property
    def exact(self) -> np.ndarray:
        """The exact methods' whole band at every reference row (for the schemes built on it)."""
        return np.array([self.exact_row(r) for r in range(self.flat.shape[0])])

    # -- every method ----------------------------------------------------------------------------

    def of(self, estimate, step):
        """(tolerance per reference point and entry, where it came from: one text, or one
        per entry)."""
        if not self.reference.available:
            return None, ""
        if estimate.family != "finite differences":
            return self.floor, self.EXACT_SOURCE
        if not self.at_one_point:
            return self._halving(estimate, step)
        # f's own derivatives decide: where mpmath cannot give them (a point within a step of
        # a singularity, say) the entry has no band, rather than one the halving cannot vouch for
        taylor = self._taylor(estimate)
        tolerance = np.array([[np.nan if band is None else band.tolerance for band in taylor]])
        return tolerance, [band.source if band is not None else "" for band in taylor]

    def _halving(self, estimate, step):
        """Truncation estimated from the scheme again at h/2 and h/4."""
        name = estimate.method
        rows = self.reference.indices
        half = replace(self.where, flat=self.flat)
        base = estimate.values.reshape(estimate.values.shape[0], -1)[rows]
        finer = self._at_step(name, half, step, 0.5)
        finest = self._at_step(name, half, step, 0.25)
        if finer is None or finest is None:
            return None, ""
        order = estimate.details.get("order", 2)
        with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
            first, second = np.abs(base - finer), np.abs(finer - finest)
            truncation = first * 2 ** order / (2 ** order - 1)
            rounding = self._fd_rounding(name, half, estimate.details["steps"][rows])
            exact = self.floor + FLOOR_ULPS * UNIT_ROUNDOFF * self.magnitude.max(axis=1, keepdims=True)
            tolerance = SAFETY * (truncation + rounding) + exact
            # in the asymptotic regime halving h divides the difference by about 2^order; far
            # from it (f varies faster than the step resolves) no band can be derived
            ratio = first / second
            unresolved = (first > SAFETY * rounding) & ~((ratio >= 2.0 ** (order - 2)) & (ratio <= 2.0 ** (order + 2)))
        return np.where(unresolved, np.nan, tolerance), HALVING.format(safety=SAFETY)

    def _at_step(self, name, points, step, scale):
        """The scheme again with every step times ``scale``."""
        task, problem = self.task, self.problem
        smaller = step * scale if step else None
        out = CATALOGUE[name].again(problem, task, points, smaller, scale)
        return out.values.reshape(out.values.shape[0], -1) if out.has_values else None

    def _fd_rounding(self, name, points, steps):
        """Σ|weights| × (f's rounding at the point) / h, entry by entry; ``steps`` are the
        method's at the reference points, (rows, directions)."""
        task = self.task
        f_error = self.f_error                                # (rows, m)
        rounding = CATALOGUE[name].rounding
        if rounding == COMPLEX:
            # NumPy's complex arithmetic is not exact ((0.5+0j)**100): f's relative rounding,
            # carried to Im f / h, capped (where f itself cancels, Im f does not)
            with np.errstate(invalid="ignore", divide="ignore"):
                relative = np.where(self.f > 0, f_error / np.where(self.f > 0, self.f, 1.0), 0.0)
            relative = np.minimum(np.nan_to_num(relative, nan=0.0, posinf=COMPLEX_ROUNDING_CAP), COMPLEX_ROUNDING_CAP)
            return relative.max(axis=1, keepdims=True) * self.magnitude
        if rounding in (SECOND_DIFFERENCES, GRADIENTS):
            gradient_task = Task("gradient", task.n, 1, task.output_shape, task.input_labels)
            try:
                gradient = np.abs(per_point(lambda row: run_autograd(self.problem, gradient_task, row, False),
                                             points.flat))
            except Exception:       # f's own rules raise (a custom backward): no rounding estimate, no band
                return np.full((len(points.flat), task.size), np.nan)
            h = steps
            if rounding == GRADIENTS:
                # column j differences two gradients, each rounded by a few ulps of its largest entry
                g_error = 16 * UNIT_ROUNDOFF * gradient.max(axis=1, keepdims=True)
                return np.broadcast_to((g_error / h)[:, None, :], (h.shape[0], task.n, task.n)).reshape(h.shape[0], -1)
            # f is rounded at x ± h e_i (± h e_j), where it exceeds |f(x)| by about h |∂f|
            u2 = 2 * UNIT_ROUNDOFF
            moved = f_error[:, :1] + u2 * h * gradient
            outer = (f_error[:, :1, None] + moved[:, :, None] + moved[:, None, :]) / (h[:, :, None] * h[:, None, :])
            outer[:, np.arange(task.n), np.arange(task.n)] = 4 * (f_error[:, :1] + moved) / h ** 2
            return outer.reshape(outer.shape[0], -1)
        stencil = STENCILS[name]
        weight = sum(abs(w) for _, w in stencil)
        # f is rounded at every stencil point, where |f| may exceed |f(x)| by about reach·h·|f'|
        # (f(x) = 0 does not make f(x ± h) exact): that adds weight · 2u · reach · |entry|
        reach = max(abs(o) for o, _ in stencil)
        moved = weight * 2 * UNIT_ROUNDOFF * reach * self.magnitude
        if task.kind == "jvp":
            return weight * f_error / steps[:, :1] + moved
        per_entry = weight * f_error[:, :, None] / steps[:, None, :]  # (rows, m, n)
        if task.kind == "vjp":
            return np.einsum("m,rmn->rn", np.abs(task.vector), per_entry) + moved
        return per_entry.reshape(per_entry.shape[0], -1) + moved

    # -- one point: the Taylor series of the stencil ----------------------------------------------

    def _taylor(self, estimate) -> list:
        """One Band (or None: f's derivatives unknown) per variable: the stencil's Taylor
        series with f's derivatives at the point, and f's rounding at the stencil's points."""
        problem, derivative = self.problem, self.derivative
        scheme = estimate.method
        point = dict(zip(derivative.symbols, (problem.point[n] for n in problem.variables))) \
            if derivative.symbols else {}
        written = problem.sympy_as_written() if derivative.expression is not None else None
        f_expr = written[0] if written and len(written) == 1 else derivative.expression
        bands = []
        for k, name in enumerate(problem.variables):
            h = float(estimate.details["steps"][0, k])
            # a difference scheme's own truncation and rounding dwarf an exact method's rounding:
            # FLOOR_ULPS ulp of the entry and of the largest entry stand for it
            # (the complex step's own rounding along f's paths is added where its value lies farther: refine)
            exact = Band(float(self.floor[0, k] + FLOOR_ULPS * UNIT_ROUNDOFF * self.magnitude[0].max()),
                         self.EXACT_SOURCE if scheme in STENCILS else
                         "4 ulp, or where the value lies farther 4 × the rounding along f's chain-rule paths + 4 ulp")
            if scheme in STENCILS:
                largest = self._largest_f(scheme, k, h)
                f_error = self._f_rounding(f_expr, point, scheme, k, h, largest)
            else:                               # complex step: f's relative rounding, carried to ∂f
                f_error = float(self._fd_rounding(scheme, None, None)[0, k])
            bands.append(fd_band(scheme, h, self.magnitudes().get(name, {}), f_error, largest if scheme in STENCILS
                                 else 0.0, exact))
        return bands

    def _samples(self, scheme, k, h) -> list:
        """[(arguments, f in binary64 or None where it fails)] at the stencil's points for variable k."""
        f = self.problem.numpy_function()
        out = []
        for offset, _ in STENCILS[scheme]:
            args = list(map(float, self.flat[0]))
            args[k] += offset * h
            try:
                out.append((args, float(np.asarray(f(*args)).reshape(-1)[0])))
            except Exception:
                out.append((args, None))
        return out

    def _largest_f(self, scheme, k, h) -> float:
        """The largest |f| over the stencil for variable k (each value there is rounded)."""
        values = [abs(v) for _, v in self._samples(scheme, k, h) if v is not None and math.isfinite(v)]
        return max([float(self.f[0, 0])] + values)

    def _observed_rounding(self, scheme, k, h) -> float | None:
        """Without a formula to walk (a callable SymPy cannot follow), the rounding f really
        made at the stencil's points: binary64 against mpmath at 30 digits, the largest;
        None where f does not run on mpmath numbers. The difference quotient adds up exactly
        these errors, so they price its rounding (terms that cancel in f included)."""
        import mpmath
        mp_f = self.problem.world_function(MPMATH)
        worst = 0.0
        for args, value in self._samples(scheme, k, h):
            if value is None or not math.isfinite(value):
                return None
            try:
                with mpmath.workdps(30):
                    exact = mp_f(*[mpmath.mpf(a) for a in args])
                    if not isinstance(exact, mpmath.mpf) or not mpmath.isfinite(exact):
                        return None
                    error = float(abs(mpmath.mpf(value) - exact))
            except Exception:
                return None
            worst = max(worst, error)
        return worst

    def _f_rounding(self, f_expr, point, scheme, k, h, largest) -> float:
        """The rounding of f at the stencil's points (where f's terms may cancel); with many
        variables at the point only (a walk per variable and stencil point is O(n²));
        without a formula, 8 ulp of the largest |f|."""
        if f_expr is None:
            observed = self._observed_rounding(scheme, k, h)
            return 8 * 2.0 ** -53 * largest if observed is None else max(observed, 2 * 2.0 ** -53 * largest)
        if len(self.problem.variables) > MAX_STENCIL_WALKS:
            bound = float(self.f_error[0, 0])
            return bound if math.isfinite(bound) else 8 * 2.0 ** -53 * largest
        symbol = self.derivative.symbols[k]
        worst = 0.0
        for offset, _ in STENCILS[scheme]:
            bound = rounding_bound(f_expr, {**point, symbol: point[symbol] + offset * h})
            if bound is None:
                return 8 * 2.0 ** -53 * largest
            worst = max(worst, bound)
        return worst
