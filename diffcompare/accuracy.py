"""What accuracy each method can be expected to reach at this point, so that a verdict
can say "within its band" or "wrong, and by how much".

- Exact methods (autograd, symbolic, and the complex step): the rounding error of
  evaluating the derivative in binary64. It is bounded to first order by walking
  SymPy's derivative formula at the point (each operation adds half an ulp of its
  result, and each input's error is carried by the operation's own derivative), then
  multiplied by a safety factor.
- Finite differences: each scheme's truncation error (from the derivatives of f of the
  order its formula leaves, computed by mpmath) plus its rounding error (f's own rounding
  bound divided by the step, times the scheme's sum of weights).

>>> import sympy
>>> x = sympy.Symbol("x", real=True)
>>> bound = rounding_bound(sympy.exp(x) - 1, {x: 1e-8})      # cancellation: ~eps·e^x
>>> 1e-16 < bound < 1e-15
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import mpmath

from .budget import TimedOut, time_limit

EPS = 2.0 ** -52
UNIT_ROUNDOFF = EPS / 2
SAFETY = 4.0                    # bands are this many times the first-order estimate
FLOOR_ULPS = 4                  # an exact method may always be this many ulps off
NO_FORMULA_ULPS = 64            # ... and this many times the input conditioning without a formula
WALK_MAX_OPS = 4000             # larger formulas are not walked (too slow to be worth it)


@dataclass
class Band:
    """The expected absolute error of one method for one partial, and where it came from."""
    tolerance: float
    source: str

    def as_dict(self):
        return {"tolerance": self.tolerance, "source": self.source}


def rounding_bound(expr, point: dict, dps: int = 30) -> float | None:
    """First-order bound on the absolute rounding error of evaluating ``expr`` in binary64
    at ``point`` (symbol -> float), or None when it cannot be computed."""
    import sympy
    if sympy.count_ops(expr) > WALK_MAX_OPS:
        return None
    value, error = {}, {}
    cache = {}
    with mpmath.workdps(dps):
        try:
            for node in sympy.postorder_traversal(expr):
                if node in value:
                    continue
                v, e = _node_bound(node, value, error, point, cache)
                value[node], error[node] = v, e
        except Exception:
            return None
        result = error[expr]
        return float(result) if mpmath.isfinite(result) else None


def _node_bound(node, value, error, point, cache):
    import sympy
    u = mpmath.mpf(UNIT_ROUNDOFF)
    if node.is_Symbol:
        return mpmath.mpf(point[node]), mpmath.mpf(0)
    if node.is_Integer:
        v = mpmath.mpf(int(node))
        return v, (mpmath.mpf(0) if abs(v) < 2 ** 53 else u * abs(v))
    if node.is_Float:
        return mpmath.mpf(node._mpf_), mpmath.mpf(0)      # literals are the binary64 values
    if node.is_Rational or node.is_NumberSymbol or node is sympy.I:
        v = mpmath.mpf(sympy.Float(node, 40)._mpf_) if node is not sympy.I else mpmath.mpc(0, 1)
        return v, u * abs(v)
    args = node.args
    vals = [value[a] for a in args]
    errs = [error[a] for a in args]
    if node.is_Add:
        v = mpmath.fsum(vals)
        return v, mpmath.fsum(errs) + u * mpmath.fsum(abs(a) for a in vals)
    if node.is_Mul:
        v = mpmath.fprod(vals)
        carried = mpmath.fsum(e * abs(mpmath.fprod(vals[:i] + vals[i + 1:])) for i, e in enumerate(errs))
        return v, carried + u * (len(vals) - 1) * abs(v)
    if node.is_Pow:
        b, p = vals
        v = b ** p
        carried = abs(p * b ** (p - 1)) * errs[0] if b != 0 else (errs[0] if p == 1 else mpmath.mpf(0))
        if errs[1]:
            carried += abs(v * mpmath.log(abs(b))) * errs[1] if b != 0 else 0
        return v, carried + u * abs(v) * (1 if p in (2, -1, 0.5) else 2)
    # a function: carry each argument's error by the function's own derivative
    func = cache.get(node.func)
    if func is None:
        dummies = sympy.symbols(f"a0:{len(args)}", real=True)
        func = cache[node.func] = sympy.lambdify(dummies, node.func(*dummies), modules=mpmath)
    v = func(*vals)
    carried = mpmath.mpf(0)
    for i, e in enumerate(errs):
        if e:
            def along(t, i=i):
                moved = list(vals)
                moved[i] = t
                return func(*moved)
            carried += abs(mpmath.diff(along, vals[i])) * e
    return v, carried + 2 * u * abs(v)       # library functions: within about one ulp


def derivative_magnitudes(problem, orders=(2, 3, 5, 7), timeout: float | None = 5.0) -> dict:
    """|∂^k f/∂x_i^k| at the point for each variable and order k, by mpmath; missing where
    mpmath cannot compute them (or at a point where they do not exist)."""
    f = problem.world_function("mpmath")
    names = problem.variables
    out = {name: {} for name in names}
    try:
        with time_limit(timeout), mpmath.workdps(30):
            at = [mpmath.mpf(problem.point[n]) for n in names]
            for i, name in enumerate(names):
                def along(t, i=i):
                    moved = list(at)
                    moved[i] = t
                    return f(*moved)
                for k in orders:
                    try:
                        value = mpmath.diff(along, at[i], k)
                    except Exception:
                        break
                    if not isinstance(value, mpmath.mpf) or not mpmath.isfinite(value):
                        break
                    out[name][k] = float(abs(value))
    except TimedOut:
        pass
    return out


def exact_band(reference_value, formula_bound, conditioning=None) -> Band:
    """The band of an exact method (autograd, symbolic): a few ulps times the conditioning."""
    ref = abs(float(reference_value))
    floor = FLOOR_ULPS * _ulp(ref)
    if formula_bound is not None:
        return Band(max(SAFETY * formula_bound, floor),
                    f"{SAFETY:g} × the rounding bound of the derivative formula ({formula_bound:.2g}), "
                    f"at least {FLOOR_ULPS} ulp")
    kappa = max(1.0, conditioning or 1.0)
    return Band(max(NO_FORMULA_ULPS * kappa * _ulp(ref), floor),
                f"{NO_FORMULA_ULPS} ulp × input conditioning {kappa:.3g} (no formula to bound rounding)")


# (truncation coefficient, derivative order it multiplies, power of h, rounding weight)
_FD_MODEL = {
    "forward": (1 / 2, 2, 1, 2.0),
    "backward": (1 / 2, 2, 1, 2.0),
    "central": (1 / 6, 3, 2, 1.0),
    "five-point": (1 / 30, 5, 4, 1.5),
    "richardson": (1 / (5040 * 64), 7, 6, 297 / 45),
}


def fd_band(scheme: str, h: float, magnitudes: dict, f_error: float, exact: Band | None) -> Band | None:
    """The band of one finite-difference scheme with step ``h``; None when the derivatives
    it needs are unknown (at a kink, say)."""
    if scheme == "complex-step":
        if exact is None or 3 not in magnitudes:
            return None
        truncation = h * h / 6 * magnitudes[3]
        return Band(exact.tolerance + SAFETY * truncation,
                    f"as the exact methods, plus truncation h²/6·|f'''| = {truncation:.2g}")
    coefficient, order, power, weight = _FD_MODEL[scheme]
    if order not in magnitudes:
        return None
    truncation = coefficient * h ** power * magnitudes[order]
    rounding = weight * f_error / h
    return Band(SAFETY * (truncation + rounding),
                f"{SAFETY:g} × (truncation {truncation:.2g} + rounding {rounding:.2g}) with h = {h:.3g}")


def _ulp(x: float) -> float:
    return math.ulp(x) if x else math.ulp(0.0)
