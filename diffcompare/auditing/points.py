"""Where an audit looks: the case's explicit points, random points in its domain, and
adversarial points the audit adds itself — 0, ±1, tiny magnitudes and the domain's
edges (its largest magnitudes), one variable at a time and all together, and the kinks
of the functions f calls (where each lies is a fact of its row of the function table:
abs, relu, max, min, clamp, sqrt, cbrt, asin, acosh, ...), located by bisection in binary64.

Every point carries its origin, which reports print beside it.

>>> from diffcompare.problem.problem import make_problem
>>> p = make_problem("relu(x - 0.75) * y", {"x": 0.0, "y": 1.0})
>>> points = audit_points(p, {"x": (-2.0, 2.0), "y": (0.5, 3.0)}, [], random=2, seed=0)
>>> [o for o in points.origins if o.startswith("kink")]
['kink of relu at x = 0.75']
>>> len(points.flat) == len(points.origins)
True
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from diffcompare.autograd.quiet import quietly
from diffcompare.language.worlds import SYMPY
from diffcompare.problem.problem import Problem

TINY = {"float64": 2.0 ** -500, "float32": 2.0 ** -60}   # small, yet squares stay normal
MAX_KINK_POINTS = 8
SCAN = 257                      # samples along a variable when looking for a sign change


@dataclass
class AuditPoints:
    flat: np.ndarray            # (points, inputs): every variable's elements, binary64 (float32 cases: float32 values)
    origins: list               # one text per point: explicit, random, adversarial ..., kink of ...

    def __len__(self):
        return len(self.origins)


def audit_points(problem: Problem, domain: dict, explicit: list, random: int, seed: int,
                 dtype: str = "float64", adversarial: bool = True) -> AuditPoints:
    """Every point an audit of ``problem`` visits, in a fixed order (explicit, random,
    adversarial, kinks); duplicates removed. Values are rounded to ``dtype``. The domain of
    an array variable bounds each of its elements (in the shape of ``problem``'s point);
    an adversarial value is given to all its elements at once."""
    names = problem.variables
    shapes = problem.shapes
    rows, origins = [], []
    centre = {n: (domain[n][0] + domain[n][1]) / 2 for n in domain}

    def add(values: dict, origin: str):
        rows.append(problem.flatten({n: np.broadcast_to(values[n], shapes[n]) for n in names}))
        origins.append(origin)

    for k, point in enumerate(explicit, 1):
        add({**centre, **point}, f"explicit point {k}")
    boxed = [n for n in names if n in domain]
    if domain and len(boxed) == len(names):
        rng = np.random.default_rng(seed)
        for k in range(random):
            add({n: rng.uniform(*domain[n], size=shapes[n] or None) for n in names}, "random")
        if adversarial:
            for values, origin in _adversarial(names, domain, centre, dtype, shapes):
                add(values, origin)
            for values, origin in kink_points(problem, domain, centre):
                add(values, origin)
    flat = np.array(rows, dtype=np.float64).reshape(len(rows), sum(int(np.prod(s)) for s in shapes.values()))
    if dtype == "float32":
        flat = flat.astype(np.float32).astype(np.float64)
    return _unique(flat, origins)


def _unique(flat, origins):
    """Each point once, with every origin that led to it ("adversarial: x = 0; kink of abs ...")."""
    first, keep, merged = {}, [], []
    for i, row in enumerate(flat):
        key = row.tobytes()
        if key in first:
            merged[first[key]] += f"; {origins[i]}"
        else:
            first[key] = len(keep)
            keep.append(i)
            merged.append(origins[i])
    return AuditPoints(flat[keep], merged)


def _adversarial(names, domain, centre, dtype, shapes):
    """0, ±1, ±tiny inside the domain and the domain's edges, for one variable at a time
    (the others at the centre; every element of an array); then 0, 1, -1 for all variables
    at once."""
    tiny = TINY[dtype]
    for name in names:
        every = ", every element" if shapes[name] else ""
        low, high = domain[name]
        specials = [(0.0, "0"), (1.0, "1"), (-1.0, "-1"), (tiny, f"tiny ({tiny:.3g})"),
                    (-tiny, f"tiny ({-tiny:.3g})"), (low, "domain edge"), (high, "domain edge")]
        for value, what in specials:
            if low <= value <= high:
                shown = f"{name} = {value:g}" if what == "domain edge" else f"{name} = {what}"
                notes = ", ".join(n for n in ("domain edge" if what == "domain edge" else "", every[2:]) if n)
                yield {**centre, name: value}, f"adversarial: {shown}" + (f" ({notes})" if notes else "")
    if len(names) > 1:
        for value in (0.0, 1.0, -1.0):
            if all(domain[n][0] <= value <= domain[n][1] for n in names):
                yield {n: value for n in names}, f"adversarial: all variables = {value:g}"


def kink_points(problem: Problem, domain: dict, centre: dict) -> list:
    """Points on the kinks of the functions f calls: for each call of a function-table row
    with kinks, each quantity that is zero on a kink (the row's ``kink_zeros``: the
    argument of abs, a - b for max, x - lo and x - hi for clamp, x - 1 for acosh, ...) is followed
    along each variable it depends on, the others at the centre, and a sign change is
    bisected down to adjacent binary64 numbers (the one where it is exactly 0 when there
    is one)."""
    found = []
    for row_name, quantity in _kink_quantities(problem):
        import sympy
        for symbol in sorted(quantity.free_symbols, key=str):
            name = str(symbol)
            if name not in domain:
                continue
            others = {s: centre[str(s)] for s in quantity.free_symbols if s != symbol and str(s) in centre}
            along = quantity.xreplace({s: sympy.Float(v) for s, v in others.items()})
            g = _numeric(along, symbol)
            if g is None:
                continue
            for x in _roots(g, *domain[name]):
                found.append(({**centre, name: x}, f"kink of {row_name} at {name} = {x:.17g}"))
                if len(found) >= MAX_KINK_POINTS:
                    return found
    return found


def _kink_quantities(problem):
    """(function name, SymPy expression that is 0 on a kink) for every call in f of a row
    of the function table with kinks."""
    if problem.has_arrays:
        return []
    import sympy
    found = []

    def observe(row, args, result, column):
        if row.kink_zeros is not None:
            try:
                for q in row.kink_zeros(*args):
                    if isinstance(q, sympy.Basic) and q.free_symbols:
                        found.append((row.name, q))
            except (TypeError, ValueError, IndexError):
                pass
    symbols = [sympy.Symbol(n, real=True) for n in problem.variables]
    try:
        quietly(problem.evaluate, SYMPY, dict(zip(problem.variables, symbols)), observe)
    except Exception:           # f cannot be traced by SymPy: no kinks to look for
        return []
    unique = []
    for item in found:
        if item not in unique:
            unique.append(item)
    return unique


def _numeric(expr, symbol):
    import sympy
    try:
        f = sympy.lambdify(symbol, expr, modules="numpy")
    except Exception:
        return None

    def g(x):
        try:
            return float(quietly(f, np.float64(x)))
        except Exception:
            return float("nan")
    return g


def _roots(g, low, high):
    """Up to two points in [low, high] where g changes sign, each as the binary64 number
    at which g is 0 or the side of the crossing nearer to 0."""
    xs = np.linspace(low, high, SCAN)
    values = [g(x) for x in xs]
    roots = []
    for i in range(SCAN - 1):
        a, b, ga, gb = xs[i], xs[i + 1], values[i], values[i + 1]
        if ga == 0 and (not roots or roots[-1] != a):
            roots.append(float(a))
        elif np.isfinite(ga) and np.isfinite(gb) and ga * gb < 0:
            roots.append(_bisect(g, a, b, ga))
        if len(roots) >= 2:
            break
    return roots


def _bisect(g, a, b, ga):
    for _ in range(200):
        middle = a + (b - a) / 2
        if middle in (a, b):
            break
        gm = g(middle)
        if gm == 0 or not np.isfinite(gm):
            return float(middle)
        if (gm < 0) == (ga < 0):
            a, ga = middle, gm
        else:
            b = middle
    gb = g(b)
    return float(a if abs(ga) <= abs(gb) else b)
