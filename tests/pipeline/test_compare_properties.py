"""Random expressions built from the function table, at random points inside their
domains: autograd and symbolic agree with the exact reference to 1e-12 relative (or
within the stated rounding bound, when the point is ill-conditioned), and every
finite-difference scheme lands within its own error band."""

import math

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import diffcompare
from diffcompare.language.table import CALLABLE
from diffcompare.render.verdicts import reason as why

UNARY = sorted(name for name, row in CALLABLE.items() if row.arity == 1)
BINARY_FUNCTIONS = sorted(name for name, row in CALLABLE.items() if row.arity == 2 and name != "pow")

leaves = st.sampled_from(["x", "y", "x", "y", "0.5", "2", "3", "pi"])


def extend(children):
    return st.one_of(
        st.builds(lambda f, a: f"{f}({a})", st.sampled_from(UNARY), children),
        st.builds(lambda a, op, b: f"({a} {op} {b})", children, st.sampled_from(["+", "-", "*", "/"]), children),
        st.builds(lambda a, n: f"({a})**{n}", children, st.sampled_from(["2", "3", "-1", "0.5"])),
        st.builds(lambda f, a, b: f"{f}({a}, {b})", st.sampled_from(BINARY_FUNCTIONS), children, children),
    )


expressions = st.recursive(leaves, extend, max_leaves=6)
coordinates = st.floats(min_value=-3, max_value=3, allow_nan=False).map(lambda v: round(v, 3))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(expressions, coordinates, coordinates)
def test_random_expressions_every_method_within_its_band(text, x, y):
    assume("x" in text or "y" in text)
    at = {name: value for name, value in (("x", x), ("y", y)) if name in text}
    try:
        c = diffcompare.compare(text, at=at, repeat=1, symbolic_timeout=5)
    except diffcompare.problem.errors.InputError:
        assume(False)
    # inside the domain, away from kinks, with a finite derivative of moderate size
    assume(not any(n.kind in ("kink", "domain") for n in c.notes))
    exact = [c.reference.value(k) for k in range(c.task.size)]
    assume(all(v is not None for v in exact))
    assume(math.isfinite(c.value) and abs(c.value) < 1e12)
    assume(all(abs(float(v)) < 1e12 for v in exact))
    assume(c.derivative.status == "ok")

    for name in ("autograd", "symbolic"):
        method = c.method(name)
        for partial in (method.entry(k) for k in range(c.task.size)):
            assert partial.rel_error is not None
            assert partial.rel_error <= 1e-12 or partial.within, (name, text, at, why(method.judgement))
    for method in c.methods:
        if method.estimate.family == "finite differences" and method.verdict != "not applicable":
            # outside its band only where its stencil straddles a kink, pole or domain boundary
            assert method.verdict in ("pass", "not judged") or "the stencil" in why(method.judgement), (
                method.name, text, at, why(method.judgement))


ANY_POINT = st.sampled_from([0.0, 1.0, -1.0, 0.5, -2.5, 1e-8, 1e8, 1e-300, 700.0])
hostile = st.recursive(
    st.sampled_from(["x", "y", "0", "1", "-1", "1e-300", "1e300", "pi", "e"]),
    lambda c: st.one_of(
        st.builds(lambda f, a: f"{f}({a})", st.sampled_from(UNARY), c),
        st.builds(lambda a, op, b: f"({a}){op}({b})", c, st.sampled_from(["+", "-", "*", "/", "**"]), c),
        st.builds(lambda f, a, b: f"{f}({a}, {b})", st.sampled_from(BINARY_FUNCTIONS + ["pow"]), c, c)),
    max_leaves=6)


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(hostile, ANY_POINT, ANY_POINT)
def test_any_expression_at_any_point_gives_a_report_never_a_crash(text, x, y):
    # poles, overflow, underflow, 0/0, kinks, branch cuts: each a per-method result
    at = {name: value for name, value in (("x", x), ("y", y)) if name in text}
    assume(at)
    try:
        c = diffcompare.compare(text, at=at, repeat=1, symbolic_timeout=2)
    except diffcompare.problem.errors.InputError:
        return
    for fmt in ("text", "json", "markdown", "latex"):
        assert c.render(fmt)
    assert c.exit_status in (0, 1, 4)
