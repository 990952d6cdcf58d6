"""The audit on vector and matrix variables, and on the user's own gradient (a hand-derived
formula or another library's): every expected value below is derived by hand."""

from __future__ import annotations

import json
import textwrap

import numpy as np
import pytest
from cli_runner import run
from hand_derived import rosenbrock_gradient

from diffcompare import audit
from diffcompare.auditing.results import AGREE, WRONG
from diffcompare.auditing.suite import parse_suite
from diffcompare.testing import assert_gradients

ROSENBROCK = "sum(100*(x[1:]-x[:-1]**2)**2 + (1-x[:-1])**2)"


# -- arrays --------------------------------------------------------------------------------------

def test_a_vector_at_an_explicit_point():
    report = audit("sum(x**3)", at={"x": [1.0, -2.0, 0.5]})
    case = report.cases[0]
    assert case.status == "pass" and report.exit_status == 0
    assert case.points[0].autograd == [3.0, 12.0, 0.75]            # 3 x²
    assert case.entries == ["∂f/∂x[0]", "∂f/∂x[1]", "∂f/∂x[2]"]


def test_a_matrix_and_a_vector_jacobian():
    report = audit("A @ v", at={"A": [[1, 2], [3, 4]], "v": [0.5, -1]}, kind="jacobian")
    point = report.cases[0].points[0]
    assert report.exit_status == 0
    # d(Av)_i/dA_jk = δ_ij v_k ; d(Av)_i/dv_k = A_ik
    assert point.reference == [0.5, -1.0, 0.0, 0.0, 1.0, 2.0,
                               0.0, 0.0, 0.5, -1.0, 3.0, 4.0]


def test_a_domain_fills_an_array_of_the_given_shape():
    report = audit(ROSENBROCK, domain={"x": (-2, 2)}, shape={"x": [4]}, points=6, seed=3)
    case = report.cases[0]
    assert case.status == "pass", case.findings
    random_points = [p for p in case.points if p.origin == "random"]
    assert len(random_points) == 6
    for p in random_points:
        x = np.array(p.point["x"])
        assert x.shape == (4,) and np.all((-2 <= x) & (x <= 2))
        assert np.allclose(p.reference, rosenbrock_gradient(x), rtol=1e-13, atol=1e-10)
    origins = [p.origin for p in case.points]
    assert "adversarial: x = 0 (every element)" in origins
    assert any(p.point["x"] == [2.0] * 4 for p in case.points)       # the domain's edge, every element


def test_a_suite_with_slices_and_shapes():
    suite = parse_suite(textwrap.dedent(f'''
        [[case]]
        name = "rosenbrock"
        expression = "{ROSENBROCK}"
        domain = {{ x = [-2, 2] }}
        shape = {{ x = [5] }}
        points = 3

        [[case]]
        name = "explicit"
        expression = "sum(A @ v)"
        at = [{{ A = [[1, 2], [3, 4]], v = [1, 1] }}]
    '''))
    from diffcompare.auditing.audit import run_cases
    report = run_cases(suite.cases)
    assert [c.status for c in report.cases] == ["pass", "pass"], report.verdicts()
    # ∂ Σ_i (A v)_i / ∂v = column sums of A
    assert report.cases[1].points[0].reference[-2:] == [4.0, 6.0]


@pytest.mark.parametrize("entry, words", [
    ({"expression": ROSENBROCK, "domain": {"x": [-2, 2]}}, "an array variable needs its shape: shape = { x = [n] }"),
    ({"expression": "sum(x)", "domain": {"x": [-1, 1]}, "shape": {"x": [0]}}, "give a vector's length [n]"),
    ({"expression": "sum(x)", "shape": {"x": [2]}, "at": [{"x": [1, 2, 3]}]}, "gives x the shape [3], but shape "
                                                                            "gives it the shape [2]"),
    ({"expression": "sum(x)", "at": [{"x": [1, 2]}, {"x": 1}]}, "point 2 gives x as a number"),
    ({"expression": "sum(x)", "at": [{"x": [1, [2]]}]}, "the rows have different lengths"),
])
def test_array_mistakes_are_bad_input(entry, words):
    from diffcompare.auditing.audit import run_cases
    from diffcompare.auditing.suite import make_case
    report = run_cases([make_case(entry)], points=2)
    assert report.exit_status == 2
    assert words in report.cases[0].error


def test_a_wrong_rule_on_a_vector_names_its_entries():
    from diffcompare import autograd as ag

    class Cube(ag.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return (x ** 3).sum()

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * 2 * x ** 2                # should be 3 x²

    report = audit(Cube, at={"x": [1.0, 0.0, -2.0]})
    point = report.cases[0].points[0]
    assert point.verdict == WRONG
    # x[1] = 0: 2x² and 3x² agree there; x[0] and x[2] are wrong
    assert "2 of 3 entries are outside their expected accuracy: ∂f/∂x[0], ∂f/∂x[2]" in point.reason


# -- the user's own gradient ---------------------------------------------------------------------

def test_a_right_hand_derived_gradient_passes():
    report = audit(ROSENBROCK, gradient=rosenbrock_gradient, domain={"x": (-2, 2)}, shape={"x": [6]}, points=10)
    case = report.cases[0]
    assert case.status == "pass", case.findings
    assert case.judged == "gradient rosenbrock_gradient"
    assert case.counts[AGREE] >= 10


def test_a_wrong_hand_derived_gradient_fails_with_its_entries_named():
    def missing_a_term(x):
        g = rosenbrock_gradient(x)
        g[1:] -= 200 * (x[1:] - x[:-1] ** 2)        # forgot ∂/∂x_{i+1}
        return g
    report = audit(ROSENBROCK, gradient=missing_a_term, at={"x": [0.5, 1.5, -1.0]})
    case = report.cases[0]
    assert case.status == "fail" and report.exit_status == 1
    assert (case.judged, case.findings[0]["code"], case.findings[0]["count"], case.findings[0]["total"]) == \
        ("gradient missing_a_term", "wrong", 1, 1)
    # 200 (x1 - x0²) = 250 and 200 (x2 - x1²) = -650 are missing; ∂f/∂x0 is right
    assert "∂f/∂x[1], ∂f/∂x[2]" in case.points[0].reason
    assert "∂f/∂x[0]," not in case.points[0].reason


def test_a_numpy_function_with_its_gradient_and_the_exact_formula():
    report = audit(lambda x, y: np.sin(x) * y, gradient=lambda x, y: (np.cos(x) * y, np.sin(x)),
                   reference="sin(x) * y", domain={"x": (-3, 3), "y": (-2, 2)}, points=10)
    assert report.cases[0].status == "pass", report.cases[0].findings


@pytest.mark.parametrize("grad, words", [
    (lambda x, y: (2 * x,), "it returned 1 number; the gradient of f has 2 entries (one per input: x, y)"),
    (lambda x, y: {"x": 2 * x}, "it returned a mapping without 'y'"),
    (lambda x, y: "two", "not numbers"),
])
def test_a_gradient_of_the_wrong_shape_is_bad_input(grad, words):
    report = audit("x**2 + y", gradient=grad, at={"x": 1.0, "y": 2.0})
    assert report.exit_status == 2
    assert words in report.cases[0].error


def test_a_gradient_that_raises_is_wrong_there():
    def grad(x):
        if x < 0:
            raise ValueError("negative")
        return 2 * x
    report = audit("x**2", gradient=grad, at=[{"x": 1.0}, {"x": -1.0}])
    case = report.cases[0]
    assert [p.verdict for p in case.points] == [AGREE, WRONG]
    assert "gradient grad raised ValueError: negative" in case.points[1].reason


def test_assert_gradients_names_the_users_gradient():
    with pytest.raises(AssertionError, match=r"the <lambda> gradient of sum\(x\*\*3\) is wrong at x=\[1.0, 2.0\]"):
        assert_gradients("sum(x**3)", at={"x": [1.0, 2.0]}, gradient=lambda x: 2 * x ** 2)
    assert_gradients("sum(x**3)", at={"x": [1.0, 2.0]}, gradient=lambda x: 3 * x ** 2)


def test_a_suite_gradient_key(tmp_path, capsys):
    (tmp_path / "my_grads.py").write_text(textwrap.dedent('''
        import numpy as np

        def f(x, y):
            return np.exp(x) * np.cos(y)

        def right(x, y):
            return np.exp(x) * np.cos(y), -np.exp(x) * np.sin(y)

        def wrong(x, y):
            return np.exp(x) * np.cos(y), np.exp(x) * np.sin(y)
    '''))
    (tmp_path / "suite.toml").write_text(textwrap.dedent('''
        [defaults]
        points = 5

        [[case]]
        name = "right"
        function = "my_grads:f"
        reference = "exp(x) * cos(y)"
        gradient = "my_grads:right"
        domain = { x = [-1, 1], y = [-3, 3] }

        [[case]]
        name = "wrong"
        function = "my_grads:f"
        reference = "exp(x) * cos(y)"
        gradient = "my_grads:wrong"
        domain = { x = [-1, 1], y = [-3, 3] }

        [[case]]
        name = "missing"
        expression = "x"
        gradient = "my_grads:nothing"
        domain = { x = [-1, 1] }
    '''))
    code, out = run(["audit", str(tmp_path / "suite.toml"), "--format", "json"], capsys)
    cases = {c["name"]: c for c in json.loads(out.out)["cases"]}
    assert code == 1                                    # a gradient is wrong (before: a case could not run)
    assert cases["right"]["status"] == "pass" and cases["right"]["judged"] == "gradient my_grads:right"
    assert cases["wrong"]["status"] == "fail"
    assert cases["wrong"]["verdict"].startswith("gradient my_grads:wrong is wrong")
    assert "module 'my_grads' has no 'nothing'" in cases["missing"]["error"]
