"""compare(): every method against the exact reference, with expectations derived by
hand or from the literature, never from the code's own output."""

import json
import math
from fractions import Fraction

import mpmath
import pytest

import diffcompare
from diffcompare.functions import cos, exp, sin, sqrt
from diffcompare.problem.errors import InputError
from diffcompare.render.verdicts import reason as why

SQUIRE_TRAPP = "exp(x)/sqrt(sin(x)**3 + cos(x)**3)"
# Squire & Trapp (1998), "Using complex variables to estimate derivatives of real functions"
SQUIRE_TRAPP_DERIVATIVE = "4.05342789389862065771418792561"


@pytest.fixture(scope="module")
def squire_trapp():
    return diffcompare.compare(SQUIRE_TRAPP, at={"x": 1.5}, repeat=1)


def rel(value, exact):
    return abs(value - exact) / abs(exact)


def test_squire_trapp_reference_to_25_digits(squire_trapp):
    assert squire_trapp.reference.source == "sympy"
    assert squire_trapp.reference.text("x", 25) == "4.053427893898620657714188"
    assert squire_trapp.reference.text("x", 30) == SQUIRE_TRAPP_DERIVATIVE


def test_squire_trapp_methods_reach_their_published_accuracy(squire_trapp):
    exact = float(SQUIRE_TRAPP_DERIVATIVE)
    values = {m.name: m.entry("x").value for m in squire_trapp.methods}
    assert rel(values["complex-step"], exact) <= 1e-15
    assert rel(values["central-difference"], exact) <= 1e-9
    assert rel(values["autograd"], exact) <= 1e-15 and rel(values["symbolic"], exact) <= 1e-15
    assert rel(values["forward-difference"], exact) <= 1e-6 and rel(values["richardson"], exact) <= 1e-11
    assert all(m.verdict == "pass" for m in squire_trapp.methods)
    assert squire_trapp.exit_status == 0


def test_evaluations_and_timing_are_reported(squire_trapp):
    evals = {m.name: m.estimate.evaluations for m in squire_trapp.methods}
    assert evals == {"autograd": 1, "symbolic": 1, "forward-difference": 2, "backward-difference": 2, "central-difference": 2, "five-point": 4,
                     "complex-step": 1, "richardson": 6}
    for m in squire_trapp.methods:
        assert m.estimate.timing.median > 0
    symbolic = squire_trapp.method("symbolic").estimate
    assert symbolic.setup_seconds > 0
    assert symbolic.details["size_raw"] >= symbolic.details["size_cse"] > 0


def test_errors_digits_and_ulps_are_consistent(squire_trapp):
    for m in squire_trapp.methods:
        p = m.entry("x")
        with mpmath.workdps(40):
            exact = mpmath.mpf(SQUIRE_TRAPP_DERIVATIVE)
            assert math.isclose(p.abs_error, float(abs(mpmath.mpf(p.value) - exact)), rel_tol=1e-9)
        assert math.isclose(p.digits, min(17, -math.log10(p.rel_error)), rel_tol=1e-12)
    # 4.053427893898620... correctly rounded is 4.05342789389862 (the symbolic value) or one ulp away
    assert squire_trapp.method("complex-step").entry("x").ulps <= 2


def test_point_is_the_binary64_value_not_the_decimal():
    # d/dx x**2 at "0.1" is 2 * 0.1000000000000000055511151231257827..., not 0.2
    c = diffcompare.compare("x**2", at={"x": "0.1"}, methods="autograd", repeat=1)
    expected = 2 * Fraction(0.1)
    with mpmath.workdps(50):
        assert c.reference.value("x") == mpmath.mpf(expected.numerator) / expected.denominator
    assert c.to_dict()["points"]["point_exact"]["x"].startswith("0.1000000000000000055511151231257827")


def test_several_variables_by_hand():
    c = diffcompare.compare("sin(x)*exp(y) + log(1 + z**2)", at={"x": 1, "y": 0.5, "z": 2}, repeat=1)
    with mpmath.workdps(40):
        expected = {"x": mpmath.cos(1) * mpmath.exp(0.5), "y": mpmath.sin(1) * mpmath.exp(0.5),
                    "z": mpmath.mpf(4) / 5}
        for name, value in expected.items():
            assert abs(c.reference.value(name) - value) < mpmath.mpf(10) ** -29
    auto = c.method("autograd").values()
    assert all(rel(auto[n], float(v)) < 1e-15 for n, v in expected.items())
    assert c.exit_status == 0


def test_a_callable_written_with_diffcompare_functions():
    def f(x, y):
        return exp(x) * sin(y) / sqrt(cos(y) + 2)

    c = diffcompare.compare(f, at={"x": 0.3, "y": 1.1}, repeat=1)
    assert c.reference.source == "sympy"
    # by hand: f_x = f; f_y = e^x (cos y (cos y + 2) + sin²y / 2) / (cos y + 2)^(3/2)
    x, y = 0.3, 1.1
    fx = math.exp(x) * math.sin(y) / math.sqrt(math.cos(y) + 2)
    fy = math.exp(x) * (math.cos(y) * (math.cos(y) + 2) + math.sin(y) ** 2 / 2) / (math.cos(y) + 2) ** 1.5
    auto = c.method("autograd").values()
    assert rel(auto["x"], fx) < 1e-14 and rel(auto["y"], fy) < 1e-14
    assert c.exit_status == 0


def test_a_callable_with_control_flow_falls_back_to_a_labelled_numerical_reference():
    def f(x):
        if x > 0:                    # a SymPy symbol cannot answer this
            return x ** 3
        return -x

    c = diffcompare.compare(f, at={"x": 1.5}, repeat=1)
    assert c.method("symbolic").verdict == "not applicable"
    assert "Relational" in why(c.method("symbolic").judgement)
    assert c.reference.source == "mpmath" and "numerical" in c.reference.label
    with mpmath.workdps(40):
        assert abs(c.reference.value("x") - mpmath.mpf("6.75")) < mpmath.mpf(10) ** -25   # 3 x² at 1.5
    assert c.method("autograd").entry("x").value == 6.75
    assert any(n.kind == "reference" for n in c.notes)


def test_kink_explains_each_methods_convention():
    c = diffcompare.compare("abs(x)", at={"x": 0}, repeat=1)
    values = {m.name: m.values().get("x") for m in c.methods}
    assert values["forward-difference"] == 1.0 and values["backward-difference"] == -1.0      # the one-sided slopes
    assert values["autograd"] == 0.0 and values["symbolic"] == 0.0      # sign(0) = 0
    assert c.method("complex-step").verdict == "not applicable"
    assert "not analytic" in why(c.method("complex-step").judgement)
    texts = " ".join(n.text for n in c.notes)
    assert "kink" in texts and "PyTorch" in texts and "sign(0) = 0" in texts and "one-sided" in texts
    # |x|'s one-sided derivatives at 0 are -1 and 1 (by hand): 0 lies between them, a subgradient
    finding = c.reference.finding("x")
    assert finding.kind == "kink" and (float(finding.lower), float(finding.upper)) == (-1.0, 1.0)
    assert c.method("autograd").verdict == c.method("symbolic").verdict == "pass"
    # a difference stencil straddles the kink: its value is not judged, whatever it is
    assert all(m.verdict in ("not judged", "not applicable") for m in c.methods if m.estimate.family ==
               "finite differences")
    assert c.exit_status == 4           # not everything asked for could be judged: not "all good"


def test_relu_kink_follows_heaviside_half_in_sympy():
    c = diffcompare.compare("relu(x)", at={"x": 0}, methods="autograd,symbolic", repeat=1)
    assert c.method("autograd").entry("x").value == 0.0
    assert c.method("symbolic").entry("x").value == 0.5
    assert "Heaviside(0) = 1/2" in " ".join(n.text for n in c.notes)


@pytest.mark.parametrize("text, at, why", [
    ("log(x)", {"x": -1}, "not real"),
    ("1/x", {"x": 0}, "infinite"),
    ("sqrt(x - 2)", {"x": 1}, "not real"),
])
def test_domain_errors_are_per_method_results_not_crashes(text, at, why):
    c = diffcompare.compare(text, at=at, repeat=1)
    assert c.reference.value("x") is None and "not finite in binary64" in c.reference.undefined[0]
    assert all(m.verdict in ("not judged", "not applicable") for m in c.methods)
    assert any(n.kind == "domain" for n in c.notes)
    assert c.exit_status == 4
    json.loads(c.render("json"))        # non-finite values still make valid JSON


def test_a_swelling_derivative_times_out_and_every_other_row_is_reported():
    nested = "x" + "**x" * 60          # SymPy's derivative of a power tower swells
    c = diffcompare.compare(nested, at={"x": 1.01}, symbolic_timeout=0.2, repeat=1,
                            methods="autograd,symbolic,central-difference")
    symbolic = c.method("symbolic")
    assert symbolic.verdict == "timed out" and "timed out after 0.2 s" in why(symbolic.judgement)
    assert c.method("autograd").entry("x").value is not None
    assert c.method("central-difference").entry("x").value is not None
    assert c.exit_status == 4           # a method asked for timed out: not everything was checked


def test_a_wrong_method_is_caught_with_a_reason():
    # a custom op whose backward sends 2x² g for x³: at x = 1.5, 4.5 where 6.75 is right
    from custom_ops import WrongCube

    from diffcompare import autograd as ag

    def f(x):
        return WrongCube.apply(x) if isinstance(x, ag.Tensor) else x ** 3

    c = diffcompare.compare(f, at={"x": 1.5}, methods="autograd,symbolic,central-difference", repeat=1)
    autograd = c.method("autograd")
    assert autograd.entry("x").value == 2 * 1.5 ** 2
    assert autograd.verdict == "fail" and "exceeds the expected" in why(autograd.judgement)
    assert c.method("symbolic").verdict == "pass" and c.exit_status == 1


def test_the_engines_saturating_formula_is_expected_not_wrong():
    # sigmoid'(x) = r (1 - r), as the engine (and PyTorch) computes it from r = sigmoid(x)
    # rounded to binary64, loses most digits at x = 30: the band is priced on that formula
    # (one rounding of r moves 1 - r by 1.1e-16), so it is no failure; SymPy's formula keeps them
    c = diffcompare.compare("sigmoid(x)", at={"x": 30}, methods="autograd,symbolic", repeat=1)
    exact = math.exp(-30) / (1 + math.exp(-30)) ** 2
    assert rel(c.method("symbolic").entry("x").value, exact) < 1e-14
    autograd = c.method("autograd")
    assert rel(autograd.entry("x").value, exact) > 1e-6
    r = 1 / (1 + math.exp(-30))                  # the rounded result the engine's formula reads
    assert abs(autograd.entry("x").value - exact) < 2 * 2.0 ** -53 * r < autograd.entry("x").tolerance
    assert autograd.verdict == "pass"


@pytest.mark.parametrize("kwargs, message", [
    ({"f": "sin(x)", "at": {"y": 1}}, "variable 'x' has no value"),
    ({"f": "sin(x)", "at": {"x": 1, "xx": 2}}, "no variable 'xx'"),
    ({"f": "sin(x)", "at": {"x": "abc"}}, "'abc' is not a number"),
    ({"f": "sin(x)", "at": {"x": float("nan")}}, "finite"),
    ({"f": "sin(x)", "at": {"x": 1}, "methods": "autograd,centrl"}, "did you mean 'central-difference'"),
    ({"f": "sin(x)", "at": {"x": 1}, "digits": 5}, "digits= must be"),
    ({"f": "sin(x)", "at": {"x": 1}, "step": -1.0}, "step must be"),
    ({"f": "sin(2)", "at": {"x": 1}}, "nothing to differentiate"),
    ({"f": 42, "at": {"x": 1}}, "expected an expression"),
])
def test_bad_input_is_a_clear_error(kwargs, message):
    f, at = kwargs.pop("f"), kwargs.pop("at")
    with pytest.raises(InputError, match=message):
        diffcompare.compare(f, at=at, **kwargs)


def test_step_override_is_used_by_every_scheme():
    c = diffcompare.compare("x**3", at={"x": 2}, methods="forward-difference,central-difference", step=2.0 ** -10, repeat=1)
    h = 2.0 ** -10
    # forward: ((2+h)^3 - 8)/h = 12 + 6h + h^2 exactly representable here
    assert c.method("forward-difference").entry("x").value == 12 + 6 * h + h * h
    assert c.method("central-difference").entry("x").value == 12 + h * h


@pytest.mark.parametrize("fmt", ["text", "json", "markdown", "latex"])
def test_every_format_renders(squire_trapp, fmt):
    out = squire_trapp.render(fmt)
    assert "4.053427893898" in out
    if fmt == "json":
        data = json.loads(out)
        assert data["schema_version"] == 4 and data["reference"]["exact"][0] == SQUIRE_TRAPP_DERIVATIVE
        assert {m["name"] for m in data["methods"]} >= {"autograd", "symbolic", "central-difference", "richardson"}
    if fmt == "latex":
        assert r"\begin{tabular}" in out and r"\partial f" in out


def test_constants_are_the_binary64_values_the_methods_compute_with():
    # sin(pi) in binary64 is sin(3.141592653589793) = 1.2246467991473532e-16, not 0; so
    # d/dx (x + sin(pi))**2 at 0 is 2 sin(pi_64), and every method agrees with that
    c = diffcompare.compare("(x + sin(pi))**2", at={"x": 0}, methods="autograd,symbolic,complex-step", repeat=1)
    with mpmath.workdps(40):
        expected = 2 * mpmath.sin(mpmath.mpf(math.pi))
        assert abs(c.reference.value("x") - expected) < mpmath.mpf(10) ** -45
    assert c.method("autograd").entry("x").value == 2 * math.sin(math.pi)
    # the right value to the last bit is a pass (within 4 ulp of the exact value); a wrong 0
    # is not a failure either: 2.4e-16 is below the rounding of sin(pi_64) itself (about
    # 1e-16 per operation), so the band a value that far off is held to cannot tell it from
    # the right one: inconclusive, never a pass
    assert c.method("autograd").verdict == "pass"
    wrong = diffcompare.compare("(x + sin(pi))**2", at={"x": 0}, methods="autograd", gradient=lambda x: 0.0, repeat=1)
    assert wrong.method("given").verdict == "inconclusive" and wrong.exit_status == 4


@pytest.mark.parametrize("text, at, says", [
    ("exp(x)", {"x": 1000}, "overflows binary64"),
    ("exp(exp(exp(x)))", {"x": 10}, "overflows binary64"),
    ("log(x)*0", {"x": -1}, "log(-1) = nan"),          # SymPy simplifies 0*log(x) to 0; binary64 cannot
    ("x/0", {"x": 1}, "division by zero"),
])
def test_f_not_finite_in_binary64_judges_no_method(text, at, says):
    c = diffcompare.compare(text, at=at, repeat=1)
    assert all(m.verdict in ("not judged", "not applicable") for m in c.methods)
    assert says in " ".join(n.text for n in c.notes) and c.exit_status == 4
    c.render("text")
    json.loads(c.render("json"))


def test_complex_step_underflow_is_named():
    # Im f(x + ih) = 1e-300 · 1e-20 is subnormal: the complex step loses its precision
    c = diffcompare.compare("1e-300*x", at={"x": 1e-300}, methods="autograd,complex-step", repeat=1)
    assert c.method("autograd").verdict == "pass"
    step = c.method("complex-step")
    assert step.verdict == "fail" and "underflow" in why(step.judgement)


def test_complex_step_through_erf_far_out():
    # erf'(30) = 2/sqrt(pi) e^-900 ≈ 1e-391 rounds to 0; the complex step must not invent digits
    c = diffcompare.compare("erf(x)", at={"x": 30}, methods="autograd,complex-step", repeat=1)
    assert c.method("complex-step").entry("x").value == 0.0
    # the exact 1e-391 is below binary64's range: 0 is its correct rounding, so 0 is right; a
    # wrong 1e-320 is not
    assert {m.verdict for m in c.methods} == {"pass"} and c.exit_status == 0
    wrong = diffcompare.compare("erf(x)", at={"x": 30}, methods="autograd", gradient=lambda x: 1e-320, repeat=1)
    assert wrong.method("given").verdict == "fail"


def test_a_callable_that_raises_is_reported_not_crashed():
    def f(x):
        return math.log(x)          # the math module: no tensors, no symbols, and log(-1) raises

    c = diffcompare.compare(f, at={"x": -1.0}, repeat=1)
    assert "evaluating f in binary64 failed" in " ".join(n.text for n in c.notes)
    assert all(m.verdict in ("not judged", "not applicable") for m in c.methods)
    c.render("text")


def test_a_time_out_inside_workdps_leaves_mpmath_precision_as_it_was():
    # the alarm can fire after workdps raised the precision and before its block restores
    # it; time_limit puts the precision back whatever was interrupted
    import time

    from diffcompare.methods.budget import TimedOut, time_limit
    before = mpmath.mp.prec
    with pytest.raises(TimedOut):
        with time_limit(0.01):
            mpmath.mp.dps = 60           # what an interrupted workdps leaves behind
            time.sleep(1)
    assert mpmath.mp.prec == before
