"""A verdict is a promise: no method is called a pass beside a value that is wrong by more
than half the gradient, whatever the point. The exact derivatives here come from mpmath's
own differentiation of the function written out in this file (nothing of the tool's)."""

import math

import mpmath
import pytest

import diffcompare
from diffcompare.render.verdicts import reason as why

# (expression, point, the same function for mpmath) at points where finite differences go
# wrong: a pole inside the stencil, an argument so large that h is below sin's period's
# resolution, a band that overflows
HOSTILE = [
    ("1/x", {"x": 1e-8}, lambda x: 1 / x),
    ("100/y", {"y": 3.1451138893531055e-37}, lambda y: 100 / y),
    ("sin(x)", {"x": 1e22}, mpmath.sin),
    ("log(x)", {"x": 1e-300}, mpmath.log),
    ("tan(x)", {"x": 1.5707963267948966}, mpmath.tan),
    ("sqrt(x)", {"x": 5e-324}, mpmath.sqrt),
    ("x**3 - 1/x", {"x": -2e-9}, lambda x: x ** 3 - 1 / x),
]


def test_a_partial_without_a_band_makes_no_pass():
    # at x = 1e-300 the forward difference of log(tanh(x)) has no error band (its Taylor
    # terms are unknown there); ∂f/∂y has one. The method was a pass on y alone, beside a
    # value for x of 3.5e10 where the truth is 1e300
    c = diffcompare.compare("log(tanh(x)) + y", at={"x": 1e-300, "y": 1.0}, methods="autograd,forward-difference", repeat=1)
    forward = c.method("forward-difference")
    exact = float(exact_derivative(lambda x: mpmath.log(mpmath.tanh(x)), 1e-300))
    assert abs(forward.entry("x").value - exact) > exact / 2
    assert forward.verdict != "pass" and c.exit_status in (1, 4)


def exact_derivative(f, x):
    """mpmath's differentiation at 100 digits, its step below 1e-25 and below |x| * 1e-25
    (inside the domain of log and sqrt at their tiniest arguments)."""
    with mpmath.workdps(100):
        x = mpmath.mpf(x)
        return mpmath.diff(f, x, h=min(abs(x), 1) * mpmath.mpf(10) ** -25 if x else None)


@pytest.mark.parametrize("text, at, f", HOSTILE, ids=[h[0] for h in HOSTILE])
def test_no_pass_beside_a_value_off_by_half_the_gradient(text, at, f):
    (name, x), = at.items()
    exact = float(exact_derivative(f, x))
    c = diffcompare.compare(text, at=at, repeat=1)
    for m in c.methods:
        value = m.values().get(name)
        if value is None or not math.isfinite(exact):
            continue
        wrong = not math.isfinite(value) or abs(value - exact) > 0.5 * abs(exact)
        if wrong:
            assert m.verdict != "pass", (m.name, value, exact, why(m.judgement))
    if any(m.verdict not in ("pass", "fail", "not applicable") for m in c.methods):
        assert c.exit_status in (1, 4)          # never "all good" when something was not decided


def test_a_stencil_across_the_pole_is_not_judged_and_says_why():
    c = diffcompare.compare("1/x", at={"x": 1e-8}, methods="central-difference,five-point,autograd", repeat=1)
    for name in ("central-difference", "five-point"):
        m = c.method(name)
        assert m.verdict == "not judged" and "stencil" in why(m.judgement) and "not smooth" in why(m.judgement)
    assert c.method("autograd").verdict == "pass"
    assert c.exit_status == 4


def test_a_band_as_large_as_the_value_is_inconclusive_not_a_pass():
    # at x = 1e22 the steps of finite differences are far below what binary64 resolves
    # there (ulp(1e22) = 2^21): differences of f are rounding, their band is huge
    c = diffcompare.compare("sin(x)", at={"x": 1e22}, methods="autograd,forward-difference,central-difference", repeat=1)
    exact = float(exact_derivative(mpmath.sin, 1e22))
    assert abs(c.method("autograd").entry("x").value - exact) < 1e-15
    for name in ("forward-difference", "central-difference"):
        m = c.method(name)
        assert m.verdict in ("inconclusive", "fail", "not judged"), (name, m.verdict, why(m.judgement))
        if m.verdict == "inconclusive":
            assert "as large as the value" in why(m.judgement)
    assert c.exit_status in (1, 4)


def test_exit_status_zero_only_when_every_method_passed():
    assert diffcompare.compare("x**3", at={"x": 2}, methods="autograd,central-difference", repeat=1).exit_status == 0
    # complex step does not apply to abs: listed, not counted
    c = diffcompare.compare("abs(x) * y", at={"x": 1.5, "y": 2}, methods="autograd,complex-step", repeat=1)
    assert c.method("complex-step").verdict == "not applicable" and c.exit_status == 0
    # ... but when nothing applies, nothing was checked
    c = diffcompare.compare("abs(x) * y", at={"x": 1.5, "y": 2}, methods="complex-step", repeat=1)
    assert c.exit_status == 4


def test_differences_are_priced_on_f_as_evaluated_not_as_simplified():
    # SymPy simplifies (sin(x) + y) - y to sin(x); binary64 does not: f's rounding is that
    # of 1e6, and the differences of f carry it. Right values must not fail.
    c = diffcompare.compare("(sin(x) + y) - y", at={"x": 0.5, "y": 1e6}, repeat=1)
    for m in c.methods:
        x_value = m.entry("x").value
        if abs(x_value - math.cos(0.5)) < 1e-3:          # right to the accuracy differences reach here
            assert m.verdict != "fail", (m.name, x_value, why(m.judgement))
    assert c.exit_status in (0, 4)


def test_the_reference_keeps_binary64_literals_exact():
    # SymPy used to fold exp(x - 1.5) into 0.22313016014843*exp(x), a rounded constant that
    # the cancellation at x ≈ 1.5 amplified in every working precision alike
    x = 1.5000019073486328
    c = diffcompare.compare("(exp(x - 1.5) - 1)/(x - 1.5)", at={"x": x}, methods="autograd", repeat=1)
    f = lambda t: (mpmath.exp(t - mpmath.mpf(1.5)) - 1) / (t - mpmath.mpf(1.5))   # noqa: E731
    exact = exact_derivative(f, x)
    with mpmath.workdps(40):
        assert abs(c.reference.value("x") - exact) < abs(exact) * mpmath.mpf(10) ** -25


def test_adding_up_many_contributions_is_within_the_band():
    # 35 copies of x*x send 70 contributions to x's gradient: recursive summation errs by
    # up to (n - 1) u times their size, not u; the right value 2·35·0.7 = 49 must pass
    c = diffcompare.compare(" + ".join(["x*x"] * 35), at={"x": 0.7}, methods="autograd,symbolic", repeat=1)
    assert abs(c.method("autograd").entry("x").value - 49) < 1e-12
    assert c.method("autograd").verdict == "pass" and c.exit_status == 0


@pytest.mark.parametrize("text, at", [("x + sigmoid(y)", {"x": 1, "y": 40}), ("expm1(x)", {"x": -40}),
                                      ("tanh(x)", {"x": 20})])
def test_pytorchs_saturating_formulas_are_not_called_wrong(text, at):
    # the engine computes these derivatives from a result that rounds to ±1 (as PyTorch
    # does) and gets 0 for a true value below 1e-16: right to the rounding of its formula
    c = diffcompare.compare(text, at=at, methods="autograd", repeat=1)
    assert c.method("autograd").verdict != "fail", why(c.method("autograd").judgement)


def test_the_reference_takes_the_digits_the_inputs_span():
    # SymPy writes log1p(y) as log(1 + y): at y = -1e-300, 1 + y is 1 unless the working
    # precision spans 300 digits; the reference takes them, so ∂f/∂x = -log1p(y)/x² is
    # 1e-300 (mpmath's own log1p of f, differentiated independently), not 0
    c = diffcompare.compare("log1p(y) / x", at={"y": -1e-300, "x": 1.0}, methods="autograd,central-difference", repeat=1)
    exact = float(exact_derivative(lambda x: mpmath.log1p(mpmath.mpf(-1e-300)) / x, 1.0))
    assert exact == pytest.approx(1e-300, rel=1e-12)
    assert float(c.reference.value("x")) == pytest.approx(exact, rel=1e-25)
    assert c.reference.uncertain == {} and c.method("autograd").verdict == "pass"
    assert diffcompare.compare("x**2", at={"x": 1e-200}, methods="autograd", repeat=1).reference.uncertain == {}


def test_saturation_is_decided_by_more_digits():
    # tanh'(x) = 1 - tanh²(x): at x = -184.6 tanh rounds to -1 at any precision below 160
    # digits; the reference raises its precision until two evaluations agree: sech²(x)
    x = -184.61094599530887
    c = diffcompare.compare("tanh(x)", at={"x": x}, methods="autograd", repeat=1)
    with mpmath.workdps(60):
        exact = mpmath.sech(mpmath.mpf(x)) ** 2
    assert abs(c.reference.value("x") - exact) < mpmath.mpf(10) ** -25 * exact
    assert c.reference.trusted[0, 0] >= 25


def test_the_complex_step_band_includes_numpys_complex_rounding():
    # (0.5 + ih)**100 by NumPy's complex power is not exact: Im/h is off by about 8 ulp of
    # the derivative 100 · 0.5**99, more than the exact methods' band alone allows
    c = diffcompare.compare("x**100", at={"x": 0.5}, methods="complex-step", repeat=1)
    step = c.method("complex-step")
    exact = 100 * 0.5 ** 99
    assert 2 * 2.0 ** -52 * exact < abs(step.entry("x").value - exact) < 16 * 2.0 ** -52 * exact
    assert step.verdict == "pass" and "complex rounding" in step.entry("x").source


@pytest.mark.parametrize("text, x", [("exp(x)*cos(3*x)", 0.4), ("exp(x)/sqrt(sin(x)**3 + cos(x)**3)", 1.5),
                                     ("log(x)", 0.3), ("atan(x)/(1 + x**2)", -0.8)])
def test_richardsons_error_estimate_bounds_its_error_within_a_factor_of_100(text, x):
    # the true error against mpmath's derivative of the same text at 40 digits; the estimate
    # was 1e4 times too pessimistic for exp(x)cos(3x) at 0.4 (9.1e-11 for 7.2e-15)
    c = diffcompare.compare(text, at={"x": x}, methods="richardson", repeat=1)
    method = c.method("richardson")
    f = diffcompare.parse(text)
    exact = exact_derivative(lambda t: f.evaluate("mpmath", {"x": t}), x)
    true = abs(mpmath.mpf(method.values()["x"]) - exact)
    estimate = float(method.estimate.details["error_estimate"][0, 0])
    assert true <= estimate <= 100 * max(true, 2.0 ** -52 * abs(exact))


def test_a_step_beyond_the_taylor_series_reach_is_inconclusive_not_a_failure():
    # complex step at x = 1e22 with a step of 100: Im sin(x + 100i) / 100 is about
    # cosh(100)/100 = 1e41, nowhere near cos(1e22); the scheme is not broken, its step is far
    # beyond its Taylor series' reach (terms growing like 100^k / k!)
    c = diffcompare.compare("sin(x)", at={"x": 1e22}, methods="autograd,complex-step", step=100.0, repeat=1)
    with mpmath.workdps(60):
        exact = mpmath.cos(mpmath.mpf(1e22))
    step = c.method("complex-step")
    assert abs(step.values()["x"]) > 1e30 * abs(float(exact))
    assert step.verdict == "inconclusive" and c.exit_status == 4
    # its own step, 1e-20 whatever |x|, is exact there
    own = diffcompare.compare("sin(x)", at={"x": 1e22}, methods="complex-step", repeat=1).method("complex-step")
    assert own.values()["x"] == pytest.approx(float(exact), rel=1e-15) and own.verdict == "pass"
    # its band is infinite: the JSON says "inf", never the non-standard Infinity
    import json

    def refuse(token):
        raise ValueError(f"non-standard JSON: {token}")
    data = json.loads(c.render("json"), parse_constant=refuse)
    complex_step = next(m for m in data["methods"] if m["name"] == "complex-step")
    assert complex_step["judgement"]["numbers"]["tolerance"] == "inf"


def test_the_reference_of_a_power_of_log2():
    # SymPy's mpmath printer writes log2(x)**3 as log(x)/log(2)**3; by hand the derivative is
    # 3 log2(x)² / (x ln 2)
    c = diffcompare.compare("log2(x)**3", at={"x": 1.5}, methods="autograd", repeat=1)
    with mpmath.workdps(40):
        x = mpmath.mpf(1.5)
        exact = 3 * (mpmath.log(x) / mpmath.log(2)) ** 2 / (x * mpmath.log(2))
    assert abs(c.reference.value("x") - exact) < mpmath.mpf(10) ** -25 and c.exit_status == 0
