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
['kink of relu at x = 0.75', 'kink of relu at x = 0.75, ordinary values']
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
MAX_KINK_POINTS = 16
MAX_TIES = 8                    # pairs of scalar variables tied
MANY_ELEMENTS = 64              # beyond this many elements an array gets its one-element zeros and tiny values only
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
    an array variable bounds each of its elements (in the shape of ``problem``'s point).

    Adversarial points put special values where real bugs live: 0, -0.0, ±1, tiny and the
    domain's edges for one variable at a time (the others at the domain's centre, and again
    at ordinary values drawn from the domain); a tie between two variables; for an array,
    every element at once, one element alone and a few elements (the others ordinary), and
    two elements tied at the largest — how ReLU outputs, masks, padding and max-pooling
    reach a rule in practice; then the kinks of the functions f calls."""
    names = problem.variables
    shapes = problem.shapes
    rows, origins = [], []
    centre = {n: domain[n][0] / 2 + domain[n][1] / 2 for n in domain}

    def add(values: dict, origin: str):
        rows.append(problem.flatten({n: np.broadcast_to(values[n], shapes[n]) for n in names}))
        origins.append(origin)

    for k, point in enumerate(explicit, 1):
        add({**centre, **point}, f"explicit point {k}")
    boxed = [n for n in names if n in domain]
    if domain and len(boxed) == len(names):
        rng = np.random.default_rng(seed)
        for k in range(random):
            add({n: _between(rng, *domain[n], shapes[n] or None) for n in names}, "random")
        if adversarial:
            ordinary = _ordinary(names, domain, shapes, seed)
            for values, origin in _adversarial(names, domain, centre, dtype, shapes):
                add(values, origin)
            for values, origin in _one_odd(names, domain, ordinary, dtype, shapes):
                add(values, origin)
            for values, origin in kink_points(problem, domain, centre):
                add(values, origin)
            for values, origin in kink_points(problem, domain, ordinary, "ordinary values"):
                add(values, origin)
    flat = np.array(rows, dtype=np.float64).reshape(len(rows), sum(int(np.prod(s)) for s in shapes.values()))
    if dtype == "float32":
        flat = flat.astype(np.float32).astype(np.float64)
    return _unique(flat, origins)


def _between(rng, low, high, size=None):
    """Uniform draws in [low, high), without overflow where high - low exceeds binary64's range."""
    u = rng.uniform(size=size)
    return low * (1 - u) + high * u


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


def _specials(name, domain, dtype) -> list:
    """(value, what) of the special values inside a variable's domain."""
    tiny = TINY[dtype]
    low, high = domain[name]
    specials = [(0.0, "0"), (-0.0, "-0.0"), (1.0, "1"), (-1.0, "-1"), (tiny, f"tiny ({tiny:.3g})"),
                (-tiny, f"tiny ({-tiny:.3g})"), (low, "domain edge"), (high, "domain edge")]
    return [(value, what) for value, what in specials if low <= value <= high]


def _adversarial(names, domain, centre, dtype, shapes):
    """0, -0.0, ±1, ±tiny inside the domain and the domain's edges, for one variable at a
    time (the others at the centre; every element of an array); then 0, 1, -1 for all
    variables at once."""
    for name in names:
        every = ", every element" if shapes[name] else ""
        for value, what in _specials(name, domain, dtype):
            shown = f"{name} = {value:g}" if what == "domain edge" else f"{name} = {what}"
            notes = ", ".join(n for n in ("domain edge" if what == "domain edge" else "", every[2:]) if n)
            yield {**centre, name: value}, f"adversarial: {shown}" + (f" ({notes})" if notes else "")
    if len(names) > 1:
        for value in (0.0, 1.0, -1.0):
            if all(domain[n][0] <= value <= domain[n][1] for n in names):
                yield {n: value for n in names}, f"adversarial: all variables = {value:g}"


def _ordinary(names, domain, shapes, seed) -> dict:
    """Ordinary values for every variable: drawn from the middle half of its domain, away
    from 0 and ±1, and all the elements of an array different (no accidental ties)."""
    rng = np.random.default_rng([seed, 0x0DD])
    out = {}
    for name in names:
        low, high = domain[name]
        size = int(np.prod(shapes[name])) if shapes[name] else 1
        values = []
        quarter = low / 4 * 3 + high / 4, low / 4 + high / 4 * 3      # (no overflow for [-1e308, 1e308])
        width = high / 64 - low / 64
        for _ in range(64 * size):
            if len(values) == size:
                break
            v = float(_between(rng, *quarter))
            if min(abs(v), abs(abs(v) - 1)) > width and all(v != w for w in values):
                values.append(v)
        while len(values) < size:           # a narrow domain: any distinct values inside it
            values.append(float(_between(rng, low, high)))
        out[name] = np.array(values).reshape(shapes[name]) if shapes[name] else values[0]
    return out


def _one_odd(names, domain, ordinary, dtype, shapes):
    """The special values one at a time among ordinary values: a scalar variable special,
    the others ordinary; an array with one element special (and a few), the rest ordinary;
    two variables, or two elements of an array, tied."""
    for name in names:
        shape = shapes[name]
        size = int(np.prod(shape)) if shape else 1
        for value, what in _specials(name, domain, dtype):
            label = f"{value:g}" if what == "domain edge" else what
            if not shape:
                # (the other special values of a scalar are tried with the others at the centre above)
                if what in ("0", "-0.0") or "tiny" in what:
                    yield {**ordinary, name: value}, f"adversarial: {name} = {label}, the others ordinary"
                continue
            if size > MANY_ELEMENTS and what != "0" and what != f"tiny ({TINY[dtype]:.3g})":
                continue            # a large array: one zero (or tiny) element, where the real bugs are
            # one element; and a few (not for tiny values: products of several underflow; not in a large array)
            positions = [(0,), (0, size // 2, size - 1)] if 2 < size <= MANY_ELEMENTS and "tiny" not in what \
                else [(0,)]
            for chosen in positions:
                array = np.array(ordinary[name], dtype=float).reshape(-1)
                array[list(chosen)] = value
                where = f"{name}{_index(shape, chosen[0])}" if len(chosen) == 1 else \
                    f"{len(set(chosen))} elements of {name}"
                yield {**ordinary, name: array.reshape(shape)}, f"adversarial: {where} = {label}, the others ordinary"
        if shape and size > 1:
            array = np.array(ordinary[name], dtype=float).reshape(-1)
            top = int(np.argmax(array))
            other = 0 if top != 0 else 1
            array[other] = array[top]
            yield {**ordinary, name: array.reshape(shape)}, (f"adversarial: a tie at the largest element of {name} "
                                                             f"({name}{_index(shape, other)} = {name}{_index(shape, top)})")
    scalars = [n for n in names if not shapes[n]]
    pairs = [(a, b) for i, a in enumerate(scalars) for b in scalars[i + 1:]][:MAX_TIES]
    for a, b in pairs:
        value = ordinary[a]
        if domain[b][0] <= value <= domain[b][1]:
            yield {**ordinary, b: value}, f"adversarial: a tie {a} = {b}, the others ordinary"


def _index(shape, flat_index) -> str:
    return "[" + ",".join(map(str, np.unravel_index(flat_index, shape))) + "]"


def kink_points(problem: Problem, domain: dict, centre: dict, around: str = "") -> list:
    """Points on the kinks of the functions f calls: for each call of a function-table row
    with kinks, each quantity that is zero on a kink (the row's ``kink_zeros``: the
    argument of abs, a - b for max, x - lo and x - hi for clamp, x - 1 for acosh, ...) is followed
    along each input it depends on (a scalar variable, or one element of an array), the others
    at ``centre`` (``around`` names them in the origin), and a sign change is bisected down
    to adjacent binary64 numbers (the one where it is exactly 0 when there is one)."""
    import sympy
    shapes = problem.shapes
    base = {n: np.broadcast_to(np.asarray(centre[n], dtype=float), shapes[n]).copy() if shapes[n] else
            float(centre[n]) for n in problem.variables if n in centre}
    elements = {}           # element symbol's name -> (variable, flat index)
    for name in problem.variables:
        for k, label in enumerate(_labels(name, shapes[name])):
            elements[label] = (name, k)

    def value_of(label):
        name, k = elements[label]
        return float(np.ravel(base[name])[k]) if shapes[name] else base[name]
    found = []
    suffix = f", {around}" if around else ""
    for row_name, quantity in _kink_quantities(problem):
        for symbol in sorted(quantity.free_symbols, key=str):
            label = str(symbol)
            if label not in elements or elements[label][0] not in domain:
                continue
            name, k = elements[label]
            others = {s: value_of(str(s)) for s in quantity.free_symbols if s != symbol and str(s) in elements}
            along = quantity.xreplace({s: sympy.Float(v) for s, v in others.items()})
            g = _numeric(along, symbol)
            if g is None:
                continue
            for x in _roots(g, *domain[name]):
                moved = dict(base)
                if shapes[name]:
                    array = np.array(base[name], dtype=float).reshape(-1)
                    array[k] = x
                    moved[name] = array.reshape(shapes[name])
                else:
                    moved[name] = x
                found.append((moved, f"kink of {row_name} at {label} = {repr(float(x)).removesuffix('.0')}{suffix}"))
                if len(found) >= MAX_KINK_POINTS:
                    return found
    return found


def _labels(name, shape) -> list:
    if not shape:
        return [name]
    return [f"{name}[{','.join(map(str, index))}]" for index in np.ndindex(*shape)]


def _kink_quantities(problem):
    """(function name, SymPy expression that is 0 on a kink) for every call in f of a row
    of the function table with kinks (one expression per element where the row works on
    arrays)."""
    import sympy
    found = []

    def observe(row, args, result, column):
        if row.kink_zeros is not None:
            try:
                for q in row.kink_zeros(*args):
                    for item in np.ravel(np.asarray(q, dtype=object)):
                        if isinstance(item, sympy.Basic) and item.free_symbols:
                            found.append((row.name, item))
            except (TypeError, ValueError, IndexError):
                pass
    try:
        symbols = problem.sympy_outputs()[1]
        quietly(problem.evaluate, SYMPY, problem.split(np.array(symbols, dtype=object)), observe)
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
