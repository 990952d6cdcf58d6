"""What accuracy each method can be expected to reach at this point, so that a verdict
can say "within its band" or "wrong, and by how much".

- Exact methods (autograd, symbolic, and the complex step): the rounding error of
  evaluating the derivative in binary64, bounded to first order twice over and summed:
  by walking SymPy's derivative formula at the point (each operation adds half an ulp of
  its result, and each input's error is carried by the operation's own derivative), and
  along f's chain-rule paths as a backward pass meets them (:func:`path_bound`); then
  multiplied by a safety factor.
- Finite differences: each scheme's truncation error (its stencil's Taylor series, with
  the derivatives of f computed by mpmath) plus its rounding error (f's own rounding at
  the stencil's points divided by the step, times the stencil's sum of weights).

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
import numpy as np

from diffcompare.autograd import ops
from diffcompare.language.expression import CONST, VAR
from diffcompare.language.table import specials
from diffcompare.language.worlds import MPMATH
from diffcompare.methods.budget import TimedOut, time_limit
from diffcompare.methods.finite_differences import EPS, SCHEMES, STENCILS

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


def rounding_bound(expr, point: dict, dps: int = 30) -> float | None:
    """First-order bound on the absolute rounding error of evaluating ``expr`` in binary64
    at ``point`` (symbol -> float), or None when it cannot be computed."""
    import sympy
    if sympy.count_ops(expr) > WALK_MAX_OPS:
        return None
    value, error = {}, {}
    with mpmath.workdps(dps):
        try:
            for node in sympy.postorder_traversal(expr):
                if node in value:
                    continue
                v, e = _node_bound(node, value, error, point)
                value[node], error[node] = v, e
        except Exception:
            return None
        result = error[expr]
        return float(result) if mpmath.isfinite(result) else None


def _is_binary64(q) -> bool:
    """Whether the rational ``q`` is exactly a binary64 number (a power-of-two denominator
    and at most 53 significant bits)."""
    p, d = abs(int(q.p)), int(q.q)
    if d & (d - 1):
        return False
    while p and p % 2 == 0:
        p //= 2
    return p < 2 ** 53


_MPMATH_FORMS = {}      # SymPy function class -> its mpmath form, compiled once


def _node_bound(node, value, error, point):
    import sympy
    u = mpmath.mpf(UNIT_ROUNDOFF)
    if node.is_Symbol:
        return mpmath.mpf(point[node]), mpmath.mpf(0)
    if node.is_Integer:
        v = mpmath.mpf(int(node))
        return v, (mpmath.mpf(0) if abs(v) < 2 ** 53 else u * abs(v))
    if node.is_Float:
        return mpmath.mpf(node._mpf_), mpmath.mpf(0)      # literals are the binary64 values
    if node.is_Rational and _is_binary64(node):
        return mpmath.mpf(int(node.p)) / int(node.q), mpmath.mpf(0)   # a literal: the binary64 value itself
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
    func = _MPMATH_FORMS.get((node.func, len(args)))
    if func is None:
        dummies = sympy.symbols(f"a0:{len(args)}", real=True)
        func = _MPMATH_FORMS[(node.func, len(args))] = sympy.lambdify(dummies, node.func(*dummies), modules=mpmath)
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


def derivative_magnitudes(problem, orders=tuple(range(2, 10)), timeout: float | None = 5.0) -> dict:
    """|∂^k f/∂x_i^k| at the point for each variable and order k, by mpmath; missing where
    mpmath cannot compute them (or at a point where they do not exist)."""
    f = problem.world_function(MPMATH)
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


MAX_PERTURBED_WORK = 40_000     # perturbed calls × program length in path_bound's perturbation sweeps


def path_bound(problem, max_nodes: int = 2000, max_perturbed: int = 200, output: int | None = None,
               engine_formulas: bool = True) -> dict | None:
    """A first-order bound on the rounding a backward pass over f's program must expect,
    per variable: unit roundoff times (a) the sum over every chain-rule path of the
    product of the local derivatives' magnitudes — the size of the terms the pass adds
    up, which may cancel — and (b) each intermediate value's own rounding carried to the
    gradient (by perturbing it), for programs of up to ``max_perturbed`` operations.
    Text problems only; None when unavailable. ``output``: which element of a vector f
    written as a list [f0, f1, ...] of scalar expressions. ``engine_formulas``: include the
    rounding of the engine's VJP formulas that read a rounded result (sigmoid's r(1 - r));
    a method that does not use them (the complex step) leaves it out.

    >>> from diffcompare.problem.problem import make_problem
    >>> b = path_bound(make_problem("(y/y)**3", {"y": 0.006}))   # paths of ±500 that cancel,
    >>> 2000 <= b["y"] / UNIT_ROUNDOFF < 2100                    # added up where y is a leaf
    True
    """
    if not problem.is_text or len(problem.function.program) > max_nodes or problem.has_arrays:
        return None
    program = problem.function.program
    if output is not None:
        last = program[-1]
        if last[0] != "call" or last[1].name != "vector" or output >= last[2] \
                or sum(1 for i in program if i[0] == "call" and i[1].structural) != 1:
            return None
        program = program[:-1]          # the list's elements stay on the stack: seed the one asked for
    elif not problem.function.elementwise and problem.has_arrays:
        return None             # reductions over scalars (mean(x) of a number) sweep as numbers
    with mpmath.workdps(40):
        try:
            gradient, magnitude, calls, accumulation = _sweep(program, problem, output=output,
                                                              engine_formulas=engine_formulas)
            bound = {name: UNIT_ROUNDOFF * (magnitude[name] + accumulation[name]) for name in problem.variables}
            # one sweep per perturbed call: bounded work (a sum of 300 variables would take 300 sweeps of 600)
            if len(calls) <= max_perturbed and len(calls) * len(program) <= MAX_PERTURBED_WORK:
                delta = mpmath.mpf(10) ** -25
                for index in calls:
                    try:
                        moved, _, _, _ = _sweep(program, problem, index, delta, output,
                                                engine_formulas=engine_formulas)
                    except (TypeError, ValueError, ZeroDivisionError):
                        continue        # a perturbation that leaves the reals says nothing here
                    for name in problem.variables:
                        bound[name] += UNIT_ROUNDOFF * abs(moved[name] - gradient[name]) / delta
            out = {name: float(value) for name, value in bound.items()}
        except Exception:
            return None
    return out if all(math.isfinite(v) for v in out.values()) else None


def backward_extreme(problem) -> float | None:
    """The largest magnitude a pass over f's program meets at the point — intermediate
    values, local derivatives, adjoints and their products, in exact arithmetic; inf where
    an intermediate divides by zero — or None where unavailable (text, elementwise programs
    only). Beyond the dtype's range it overflows
    whatever the rules: ``((x + x)/(x*x)) / ((2x)/(x*x))`` at x = 3e-151 is 1, but the
    adjoint of x*x is about 1e453.

    >>> from diffcompare.problem.problem import make_problem
    >>> backward_extreme(make_problem("((x + x)/(x*x)) / ((2*x)/(x*x))", {"x": 3e-151})) > 1e308
    True
    >>> backward_extreme(make_problem("sin(x) * x", {"x": 2.0})) < 10
    True
    """
    if not problem.is_text or problem.has_arrays or not problem.function.elementwise:
        return None
    extremes = []
    with mpmath.workdps(40):
        try:
            _sweep(problem.function.program, problem, extremes=extremes)
        except ZeroDivisionError:       # an intermediate is 1/0 (f may still be finite: atan(x)/(1/y) at y = 0)
            return math.inf
        except Exception:
            return None
        return float(max(extremes)) if extremes else 0.0


def _sweep(program, problem, perturbed=None, delta=0, output=None, extremes=None, engine_formulas=True):
    """Forward through the program in mpmath (the value of node ``perturbed`` scaled by
    1 + delta), then backward: the gradient, the sum of path magnitudes per variable, the
    indices of the calls whose value depends on a variable, and per variable the rounding
    (in units of u) of adding up the contributions a node's adjoint receives: recursive
    summation of n terms errs by at most (n - 1) u times their magnitudes, carried to each
    variable by the magnitudes of the paths from it to the node."""
    forward = _forward_sweep(program, problem, perturbed, delta, extremes, engine_formulas)
    return _backward_sweep(forward, problem, output, extremes)


def _forward_sweep(program, problem, perturbed, delta, extremes, engine_formulas):
    """The program forward in mpmath: each node's name (a variable's), parents, local
    derivatives, value and reach; the stack of results; the calls that depend on a variable;
    the nodes whose local derivative the engine computes from their rounded result."""
    names, parents_of, locals_of, values, stack, calls, varies = [], [], [], [], [], [], []
    reach = []          # per node: variable -> sum over paths from it of |local derivatives|
    from_result = {}    # node -> the engine's VJP factor computed from the node's rounded result
    for instruction in program:
        name, parents, locals_, depends = None, (), (), False
        if instruction[0] == VAR:
            name, depends = instruction[1], True
            value = mpmath.mpf(problem.point[name])
        elif instruction[0] == CONST:
            value = mpmath.mpf(instruction[1])
        else:
            row, nargs = instruction[1], instruction[2]
            parents = tuple(stack[len(stack) - nargs:]) if nargs else ()
            del stack[len(stack) - nargs:]
            args = [values[i] for i in parents]
            value = row.mpmath(*args)
            # only arguments that depend on a variable carry a derivative (the exponent of
            # (-2)**2 has none, and a real one would not exist)
            locals_ = tuple(_local_derivative(row, args, k) if varies[p] else mpmath.mpf(0)
                            for k, p in enumerate(parents))
            depends = any(varies[p] for p in parents)
            if depends:
                calls.append(len(values))
                factor = _engine_factor_of_result(row) if engine_formulas else None
                if factor is not None:
                    from_result[len(values)] = factor
        varies.append(depends)
        if name is not None:
            reach.append({name: mpmath.mpf(1)})
        else:
            carried = {}
            for parent, local in zip(parents, locals_):
                for variable, amount in reach[parent].items():
                    carried[variable] = carried.get(variable, 0) + abs(local) * amount
            reach.append(carried)
        if len(values) == perturbed:
            value = value * (1 + delta)
        if extremes is not None:
            extremes.append(abs(value))
        names.append(name)
        parents_of.append(parents)
        locals_of.append(locals_)
        values.append(value)
        stack.append(len(values) - 1)
    return names, parents_of, locals_of, values, stack, calls, reach, from_result


def _backward_sweep(forward, problem, output, extremes):
    """The adjoints backward from ``output``: (gradient, sum of path magnitudes, calls,
    accumulation rounding in u) per variable."""
    names, parents_of, locals_of, values, stack, calls, reach, from_result = forward
    adjoint = [mpmath.mpf(0)] * len(values)
    size = [mpmath.mpf(0)] * len(values)
    received = [0] * len(values)        # how many contributions each node's adjoint adds up
    seed = -1 if output is None else stack[output]
    adjoint[seed] = size[seed] = mpmath.mpf(1)
    gradient = {name: mpmath.mpf(0) for name in problem.variables}
    magnitude = dict(gradient)
    uses = dict.fromkeys(problem.variables, 0)     # a leaf adds up the gradients of all its uses
    accumulation = {name: mpmath.mpf(0) for name in problem.variables}
    for index in range(len(values) - 1, -1, -1):
        name = names[index]
        if name is not None:
            gradient[name] += adjoint[index]
            magnitude[name] += size[index]
            uses[name] += 1
        elif received[index] > 1:
            for variable, amount in reach[index].items():
                accumulation[variable] += (received[index] - 1) * size[index] * amount
        if index in from_result:
            # the engine computes this op's local derivative from its result rounded to
            # binary64 (sigmoid: r(1 - r), which is 0 once r rounds to 1): its error, in u
            shift = _factor_shift(from_result[index], values[index])
            for variable, amount in reach[parents_of[index][0]].items():
                accumulation[variable] += size[index] * shift * amount
        for parent, local in zip(parents_of[index], locals_of[index]):
            adjoint[parent] += adjoint[index] * local
            size[parent] += size[index] * abs(local)
            received[parent] += 1
            if extremes is not None:        # what a backward pass holds: local derivatives and their products
                extremes.append(max(abs(local), abs(adjoint[index] * local), abs(adjoint[index])))
    for name in problem.variables:
        accumulation[name] += max(uses[name] - 1, 0) * magnitude[name]
    return gradient, magnitude, calls, accumulation


_DERIVATIVES = {}


def _engine_factor_of_result(row):
    """The engine's local derivative of a one-input op as a function of its result, for the
    ops whose backward reads the saved result (exp, sqrt, tanh, sigmoid, ...); else None."""
    entry = ops.ELEMENTWISE.get(row.name)
    if entry is None or row.arity != 1 or entry[1] != (ops.RESULT,):
        return None
    vjp = entry[2]
    return lambda r: vjp(mpmath.mpf(1), r)


def result_shift(row, result) -> float | None:
    """How far (in units of u) the engine's local derivative of a one-input row moves when
    its result is rounded, for the rows whose backward reads the saved result (sigmoid's
    r(1 - r), tanh's 1 - r²); None for the others."""
    factor = _engine_factor_of_result(row)
    if factor is None:
        return None
    with mpmath.workdps(40):
        shifts = [float(_factor_shift(factor, mpmath.mpf(float(r)))) for r in np.ravel(np.asarray(result, dtype=float))]
    return max(shifts) if shifts else None


def _factor_shift(factor, value) -> mpmath.mpf:
    """How far the factor moves when the result moves by one rounding (in units of u)."""
    u = mpmath.mpf(UNIT_ROUNDOFF)
    try:
        base = factor(value)
        moved = max(abs(factor(value * (1 + s * u)) - base) for s in (1, -1))
        return moved / u if mpmath.isfinite(moved) else mpmath.mpf(0)
    except (TypeError, ValueError, ZeroDivisionError, AttributeError):
        return mpmath.mpf(0)


def _local_derivative(row, args, k):
    """∂row/∂args[k] at args, in mpmath: SymPy's derivative of the row, compiled once."""
    key = (row.name, k)
    func = _DERIVATIVES.get(key)
    if func is None:
        import sympy
        dummies = sympy.symbols(f"a0:{row.arity}", real=True)
        func = _DERIVATIVES[key] = sympy.lambdify(dummies, sympy.diff(row.sympy(*dummies), dummies[k]),
                                                  modules=[specials("bound"), mpmath])
    return mpmath.mpf(func(*args))


def fd_band(scheme: str, h: float, magnitudes: dict, f_error: float, largest_f: float,
            exact: Band | None) -> Band | None:
    """The band of one finite-difference scheme with step ``h``; None when the derivatives
    it needs are unknown (at a kink, say). ``f_error`` bounds the rounding of f at the
    point; ``largest_f`` is the largest |f| the stencil met (each value is rounded).

    Truncation is the Taylor series of the stencil, term by term: the k-th moment of its
    weights times h^(k-1) |f^(k)| for k = 2..9; rounding is the sum of |weights| times
    the rounding of each f value, over h."""
    if SCHEMES[scheme].complex:
        # Im f(x + ih) / h = f' - h²/3! f''' + h⁴/5! f⁽⁵⁾ - ...
        if exact is None or any(k not in magnitudes for k in (3, 5, 7, 9)):
            return None
        truncation = _series([_term(h, k - 1, magnitudes[k] / math.factorial(k)) for k in (3, 5, 7, 9)],
                             exact.tolerance + f_error)
        # f_error: the rounding of f's complex evaluation carried to Im f / h (NumPy's complex
        # power and functions are not correctly rounded: (0.5+0j)**100 is not exact)
        return Band(exact.tolerance + SAFETY * (truncation + f_error),
                    f"{exact.source}, plus truncation {truncation:.2g} and complex rounding {f_error:.2g}")
    stencil = STENCILS[scheme]
    if 2 not in magnitudes:
        return None
    terms = []
    for k in range(2, 10):
        moment = abs(sum(w * o ** k for o, w in stencil)) / math.factorial(k)
        if moment > 1e-12:
            if k not in magnitudes:
                return None
            terms.append(_term(h, k - 1, moment * magnitudes[k]))
    weight = sum(abs(w) for _, w in stencil)
    rounding = weight * (f_error + 2 * UNIT_ROUNDOFF * largest_f) / h
    truncation = _series(terms, rounding)
    return Band(SAFETY * (truncation + rounding),
                f"{SAFETY:g} × (truncation {truncation:.2g} + rounding {rounding:.2g}) with h = {h:.3g}")


SERIES_TAIL = 0.25      # a last Taylor term above this share of the sum: the series has not converged


def _series(terms: list, negligible: float = 0.0) -> float:
    """The truncation error from the first terms of the stencil's Taylor series; inf when
    the last of them is not small beside the sum (a step beyond the series' reach: the
    complex step 100 at x = 1e22, where sin(x + 100i) is 1e43) and the sum is not
    ``negligible`` (beside the rounding: terms of f ≡ 1 are mpmath's noise): no band can
    be derived.

    >>> _series([1e-10, 1e-14, 1e-18]) < 1.001e-10, _series([1.7e3, 8.3e5, 2e8, 2.7e10])
    (True, inf)
    >>> _series([1e-40, 1e-39], negligible=1e-16) < 1e-38
    True
    """
    total = sum(terms)
    if terms and total > negligible and terms[-1] > SERIES_TAIL * total:
        return math.inf
    return total


def _term(h: float, power: int, factor: float) -> float:
    """factor · h^power, inf where it leaves the binary64 range (a step of 1e300; x = 1e42
    with a step relative to x), 0 when factor is 0.

    >>> _term(1e300, 8, 1.0), _term(1e300, 8, 0.0), _term(0.5, 2, 3.0)
    (inf, 0.0, 0.75)
    """
    if factor == 0:
        return 0.0
    try:
        return factor * h ** power
    except OverflowError:
        return math.inf


def _ulp(x: float) -> float:
    return math.ulp(x) if x else math.ulp(0.0)
