"""Properties over random vector functions built from the function table: the engine's
vector-Jacobian product (one backward(v)) equals vᵀ times SymPy's Jacobian, and its
Hessian (double backward) is symmetric and equals SymPy's — to 1e-12 of the size of the
terms involved: the terms the backward pass adds, every chain-rule path, not only the
Jacobian SymPy simplified (its x - x is 0, while backward adds +1 and -1)."""

import mpmath
import numpy as np
import sympy
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

import diffcompare
from diffcompare.language.table import CALLABLE
from diffcompare.problem.errors import InputError

SMOOTH = sorted(name for name, row in CALLABLE.items()
                if row.arity == 1 and row.kink is None and not row.structural and row.domain == "all reals")
leaves = st.sampled_from(["x", "y", "z", "0.5", "2", "x", "y", "z"])


def extend(children):
    return st.one_of(
        st.builds(lambda f, a: f"{f}({a})", st.sampled_from(SMOOTH), children),
        st.builds(lambda a, op, b: f"({a} {op} {b})", children, st.sampled_from(["+", "-", "*"]), children),
        st.builds(lambda a, n: f"({a})**{n}", children, st.sampled_from(["2", "3"])),
    )


expressions = st.recursive(leaves, extend, max_leaves=5)
coordinates = st.floats(min_value=-2, max_value=2, allow_nan=False).map(lambda v: round(v, 3))
weights = st.floats(min_value=-3, max_value=3, allow_nan=False)
SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def exact(expr, subs):
    """``expr`` at the rational point, substituted exactly first (evalf with subs= returns
    a noisy nonzero for an entry that is exactly 0, like 2y - 2z at y = z)."""
    with mpmath.workdps(40):
        return mpmath.mpf(sympy.Float(expr.xreplace(subs).evalf(40), 40)._mpf_)


def path_magnitudes(expr, symbols, subs):
    """For each symbol, the sum over every chain-rule path from it to ``expr`` of the
    absolute product of the local derivatives along the path, on the expression as built
    (unevaluated: x - x keeps both paths). Rounding in a backward pass is relative to
    these sums, whatever cancels in the result."""
    def value(e):
        return mpmath.mpf(sympy.Float(e.evalf(40, subs=subs), 40)._mpf_)

    def walk(e):
        if e.is_Symbol:
            return [mpmath.mpf(1) if e == s else mpmath.mpf(0) for s in symbols]
        if e.is_Number or not e.free_symbols:
            return [mpmath.mpf(0)] * len(symbols)
        if e.is_Add:
            return [mpmath.fsum(column) for column in zip(*(walk(a) for a in e.args))]
        if e.is_Mul:
            values = [abs(value(a)) for a in e.args]
            total = [mpmath.mpf(0)] * len(symbols)
            for k, a in enumerate(e.args):
                others = mpmath.fprod(values[:k] + values[k + 1:])
                total = [t + others * m for t, m in zip(total, walk(a))]
            return total
        if e.is_Pow and not e.exp.free_symbols:
            local = abs(value(e.exp * e.base ** (e.exp - 1)))
            return [local * m for m in walk(e.base)]
        if isinstance(e, sympy.Function) and len(e.args) == 1:
            d = sympy.Dummy()
            local = abs(value(e.func(d).diff(d).subs(d, e.args[0])))
            return [local * m for m in walk(e.args[0])]
        raise NotImplementedError(type(e).__name__)
    return walk(expr)


@SETTINGS
@given(st.lists(expressions, min_size=2, max_size=3), st.tuples(coordinates, coordinates, coordinates),
       st.lists(weights, min_size=3, max_size=3))
@example(["(x - x)", "x", "x"], (0.0, 0.0, 0.0), [3.0, 1e-05, 2e-05])   # once failed: the old scale ignored x - x
@example(["x", "x", "((y - z))**2"], (0.0, 1.0, 1.0), [0.0, 0.0, 1.0])   # an entry exactly 0 where its terms are
def test_one_backward_v_equals_v_transpose_times_the_sympy_jacobian(outputs, point, v):
    text = "[" + ", ".join(f"{o} + 0*x + 0*y + 0*z" for o in outputs) + "]"
    at = dict(zip("xyz", point))
    v = v[:len(outputs)]
    try:
        s = diffcompare.compare(text, at=at, kind="vjp", vector=v, methods="autograd", repeat=1)
    except InputError:
        assume(False)
    got = s.method("autograd").estimate.values[0]
    assume(np.isfinite(got).all() and np.abs(got).max() < 1e8)
    fs, symbols = s.problem.sympy_outputs()
    jacobian = sympy.Matrix(fs).jacobian(symbols)
    subs = {sym: sympy.Rational(at[sym.name]) for sym in symbols}      # the problem's order: first appearance
    with sympy.evaluate(False):          # the expressions as the engine records them: nothing cancelled
        built = list(s.problem.evaluate("sympy", s.problem.split(np.array(symbols, dtype=object))))
    paths = [path_magnitudes(f, symbols, subs) for f in built]
    for j in range(3):
        terms = [mpmath.mpf(v[i]) * exact(jacobian[i, j], subs) for i in range(len(outputs))]
        reference = float(mpmath.fsum(terms))
        scale = float(mpmath.fsum(abs(mpmath.mpf(v[i])) * paths[i][j] for i in range(len(outputs))))
        assert abs(got[j] - reference) <= 1e-12 * scale + 1e-300, (text, at, j, got[j], reference, scale)


@SETTINGS
@given(expressions, st.tuples(coordinates, coordinates, coordinates))
def test_the_double_backward_hessian_is_symmetric_and_equals_sympys(expression, point):
    text = f"{expression} + 0*x + 0*y + 0*z"
    at = dict(zip("xyz", point))
    s = diffcompare.compare(text, at=at, kind="hessian", methods="autograd,symbolic", repeat=1)
    hessian = s.method("autograd").estimate.values[0]
    assume(np.isfinite(hessian).all() and np.abs(hessian).max() < 1e8)
    (f,), symbols = s.problem.sympy_outputs()
    subs = {sym: sympy.Rational(at[sym.name]) for sym in symbols}
    reference = np.array([[float(exact(sympy.diff(f, a, b), subs)) for b in symbols] for a in symbols])
    scale = max(1.0, np.abs(reference).max())
    assert np.abs(hessian - hessian.T).max() <= 1e-12 * scale, (text, at)
    assert np.abs(hessian - reference).max() <= 1e-12 * scale, (text, at, hessian, reference)


ANY_UNARY = sorted(name for name, row in CALLABLE.items() if row.arity == 1 and not row.structural)
hostile = st.sampled_from([0.0, 1e-300, -1e-300, 1e8, 700.0, -700.0, 1.0, -1.0, 0.5])
any_expressions = st.recursive(
    leaves, lambda children: st.one_of(
        st.builds(lambda f, a: f"{f}({a})", st.sampled_from(ANY_UNARY), children),
        st.builds(lambda a, op, b: f"({a} {op} {b})", children, st.sampled_from(["+", "-", "*", "/"]), children),
        st.builds(lambda a, b: f"min({a}, {b})", children, children)), max_leaves=5)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(any_expressions, min_size=1, max_size=3), st.tuples(hostile, hostile, hostile),
       st.sampled_from(["jacobian", "vjp", "jvp", "hessian"]))
def test_any_vector_function_at_hostile_points_reports_without_crashing(outputs, point, kind):
    """Domain errors, overflow, kinks and tiny values are results: every format renders."""
    text = "[" + ", ".join(f"{o} + 0*x + 0*y + 0*z" for o in outputs) + "]"
    if kind == "hessian":
        text = f"{outputs[0]} + 0*x + 0*y + 0*z"
    vector = {"vjp": [1.0] * len(outputs), "jvp": [1.0, -1.0, 0.5]}.get(kind)
    try:
        s = diffcompare.compare(text, at=dict(zip("xyz", point)), kind=kind, vector=vector, repeat=1,
                                symbolic_timeout=5)
    except InputError:
        return
    for format in ("text", "json", "markdown", "latex"):
        assert s.render(format)
    assert s.exit_status in (0, 1, 4)
