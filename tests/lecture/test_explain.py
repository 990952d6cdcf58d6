"""explain: the recorded graph and the backward walk node by node, and the per-node check
of backward rules. Expected values are derived by hand."""

import json
import math

import numpy as np
import pytest

import diffcompare
from custom_ops import Cube, WrongCube
from diffcompare import autograd as ag
from diffcompare.functions import exp, sigmoid, sin
from diffcompare.problem.errors import InputError


def test_walk_of_sin_x_times_x():
    e = diffcompare.explain("sin(x) * x", at={"x": 2.0})
    assert [s.name for s in e.steps] == ["MulBackward0", "SinBackward0", "AccumulateGrad"]
    mul, sine, leaf = e.steps
    assert mul.adjoint == 1.0 and mul.inputs == [2, 3]
    assert float(sine.adjoint) == 2.0                       # ∂(a·b)/∂a = b = x
    assert sine.edges[0].local == "∂/∂a sin(a) = cos(a)"
    assert float(sine.edges[0].sent) == pytest.approx(2 * math.cos(2), rel=1e-15)
    # x is used twice: the leaf receives sin(2) from the product and 2 cos(2) from sin
    received = sorted(float(g) for _, g in leaf.contributions)
    assert received == sorted([math.sin(2), 2 * math.cos(2)])
    assert float(e.gradient["x"]) == pytest.approx(math.sin(2) + 2 * math.cos(2), rel=1e-15)
    text, value = e.symbolic["x"]
    assert text == "x*cos(x) + sin(x)" and float(value) == pytest.approx(math.sin(2) + 2 * math.cos(2), rel=1e-15)


def test_vjp_walk_carries_v_and_gives_v_transpose_j():
    v = [0.1, 1.0, 0.0001]
    e = diffcompare.explain("[x*y, sin(x)*z, exp(y)]", at={"x": 1.0, "y": 2.0, "z": 3.0}, vector=v)
    assert e.steps[0].adjoint.tolist() == v                 # the seed of backward(v)
    expected = {"x": 0.1 * 2 + 3 * math.cos(1), "y": 0.1 * 1 + 0.0001 * math.exp(2), "z": math.sin(1)}
    for name, value in expected.items():
        assert float(e.gradient[name]) == pytest.approx(value, rel=1e-15)
        assert float(e.symbolic[name][1]) == pytest.approx(value, rel=1e-15)
    # one walk: every node appears once
    assert len({s.number for s in e.steps}) == len(e.steps) == 8


def test_vector_variable_rosenbrock_gradient_by_hand():
    x = [1.2, 1.2, 1.2]
    e = diffcompare.explain("sum(100*(x[1:]-x[:-1]**2)**2 + (1-x[:-1])**2)", at={"x": x}, check=True)
    a = np.array(x)
    by_hand = np.zeros(3)
    by_hand[:-1] += -400 * a[:-1] * (a[1:] - a[:-1] ** 2) - 2 * (1 - a[:-1])
    by_hand[1:] += 200 * (a[1:] - a[:-1] ** 2)
    assert np.allclose(e.gradient["x"], by_hand, rtol=1e-14)
    assert e.first_wrong is None and e.exit_status == 0


def test_check_passes_every_built_in_rule_on_a_rich_expression():
    e = diffcompare.explain("exp(x)/sqrt(sin(x)**3 + cos(x)**3) + atan2(y, x) * log1p(y**2) - tanh(x*y)",
                            at={"x": 1.5, "y": -0.7}, check=True)
    assert e.first_wrong is None
    assert {s.check for s in e.steps} == {"ok"}
    assert {s.source for s in e.steps if not s.is_leaf} == {"sympy"}


def test_kinks_are_marked_not_failed():
    e = diffcompare.explain("abs(x) + relu(y)", at={"x": 0.0, "y": 0.0}, check=True)
    kinks = [s.name for s in e.steps if s.check == "kink"]
    # marked, not failed; but nothing was checked at them: undecided (4), never "all good" (0)
    assert sorted(kinks) == ["AbsBackward0", "ReluBackward0"] and e.exit_status == 4
    assert e.first_wrong is None and len(e.unchecked) == 2


class WrongForNegatives(ag.Function):
    """|x| x: derivative 2|x|; the backward forgets the sign flip below zero."""
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x.abs()

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 2 * x


class WrongSecondInput(ag.Function):
    """a · b² with the gradient of b off by a factor 2."""
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a * b * b

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        return grad * b * b, grad * a * b


def test_check_names_the_wrong_custom_backward():
    e = diffcompare.explain(lambda x, y: sin(WrongCube.apply(x) * y) + exp(y), at={"x": 0.7, "y": 1.3}, check=True)
    wrong = e.first_wrong
    assert wrong.name == "WrongCubeBackward" and e.exit_status == 1
    # what it sent and the reference: g·2x² against g·3x², g = y cos(x³ y)
    g = 1.3 * math.cos(0.7 ** 3 * 1.3)
    assert float(wrong.edges[0].sent) == pytest.approx(g * 2 * 0.49, rel=1e-12)
    assert float(wrong.edges[0].reference) == pytest.approx(g * 3 * 0.49, rel=1e-8)
    assert [s.check for s in e.steps if s is not wrong] == ["ok"] * (len(e.steps) - 1)


def test_check_reports_nothing_for_the_correct_custom_backward():
    e = diffcompare.explain(lambda x, y: sin(Cube.apply(x) * y) + exp(y), at={"x": 0.7, "y": 1.3}, check=True)
    assert e.first_wrong is None and e.exit_status == 0


def test_a_rule_wrong_only_for_negative_inputs_is_caught_only_there():
    f = lambda x: sigmoid(WrongForNegatives.apply(x))   # noqa: E731
    assert diffcompare.explain(f, at={"x": 0.8}, check=True).first_wrong is None
    e = diffcompare.explain(f, at={"x": -0.8}, check=True)
    assert e.first_wrong.name == "WrongForNegativesBackward"


def test_the_wrong_input_of_a_two_input_op_is_named():
    e = diffcompare.explain(lambda a, b: WrongSecondInput.apply(a, b), at={"a": 1.5, "b": -0.4}, check=True)
    assert e.first_wrong.name == "WrongSecondInputBackward"
    assert "to input 1" in e.first_wrong.detail


def test_large_inputs_are_checked_along_random_directions(monkeypatch):
    from diffcompare.lecture import explain as explaining

    monkeypatch.setattr(explaining, "ELEMENTWISE_CHECK_LIMIT", 8)   # the same path as 257+ elements, in a second
    x = np.linspace(0.1, 2.0, 12).tolist()               # above the limit
    good = diffcompare.explain(lambda x: Cube.apply(x).sum(), at={"x": x}, check=True)
    bad = diffcompare.explain(lambda x: WrongCube.apply(x).sum(), at={"x": x}, check=True)
    assert good.first_wrong is None
    assert bad.first_wrong.name == "WrongCubeBackward" and "random direction" in bad.first_wrong.detail


def test_formats_carry_the_walk():
    e = diffcompare.explain("sin(x) * x", at={"x": 2.0}, check=True)
    data = json.loads(e.render("json"))
    assert data["report"] == "explain" and data["schema_version"] == 2
    assert [s["node"] for s in data["steps"]] == ["MulBackward0", "SinBackward0", "AccumulateGrad"]
    assert len(data["steps"][2]["contributions"]) == 2 and data["first_wrong"] is None
    markdown = e.render("markdown")
    walk_rows = [line for line in markdown.splitlines() if line.startswith("| ") and line[2].isdigit()]
    assert len(walk_rows) == 3                              # one row per step
    gradient_row = next(line for line in markdown.splitlines() if line.startswith("| x | "))
    cells = [c.strip() for c in gradient_row.strip("|").split("|")]
    assert float(cells[1]) == pytest.approx(math.sin(2) + 2 * math.cos(2), rel=1e-15)
    assert cells[2] == "x*cos(x) + sin(x)"
    assert "∂/∂a sin(a) = cos(a)" in markdown
    latex = e.render("latex")
    assert r"\frac{\partial}{\partial a}\, \sin(a ) = \cos(a )" in latex    # parentheses TeX may break inside
    text = e.render("text")
    assert "MulBackward0  x*sin(x)" in text and "[step 3, shown above]" in text


def test_dot_and_plain_text_graph():
    from diffcompare.render.explain import plain_tree
    from diffcompare.render.graph import dot
    e = diffcompare.explain("x*y + sin(x)", at={"x": 1.0, "y": 2.0})
    text = dot(e)
    assert text.startswith("digraph backward {") and text.rstrip().endswith("}")
    assert text.count(" [label=") - text.count(" -> ") == len(e.steps) == 5
    assert text.count(" -> ") == 5                          # add→mul, add→sin, mul→x, mul→y, sin→x
    assert text.count('fillcolor="lightblue"') == 2         # the two leaves
    assert plain_tree(e).count("AccumulateGrad") == 3       # x twice (once marked as shown above), y


@pytest.mark.parametrize("f, at, vector, message", [
    ("[x, y]", {"x": 1.0, "y": 2.0}, None, "grad can be implicitly created only for scalar outputs"),
    ("[x, y]", {"x": 1.0, "y": 2.0}, [1.0], "needs 2"),
    (lambda x: math.sin(x), {"x": 1.0}, None, "does not depend on its variables"),
    (lambda x: x.no_such_method(), {"x": 1.0}, None, "running f on the engine failed"),
    (lambda x: 3.0, {"x": 1.0}, None, "does not depend on its variables"),
    ("sin(x", {"x": 1.0}, None, "never closed"),
])
@pytest.mark.filterwarnings("ignore:Converting a tensor")
def test_bad_requests_are_clear_errors(f, at, vector, message):
    with pytest.raises((InputError, ValueError), match=message):
        diffcompare.explain(f, at=at, vector=vector)


def test_nodes_recorded_before_f_ran_are_shown_not_checked():
    w = ag.tensor(2.0, requires_grad=True)
    scaled = w * 3                                       # recorded outside f
    e = diffcompare.explain(lambda x: (x * scaled).sin(), at={"x": 0.5}, check=True)
    outside = [s for s in e.steps if s.label == "(recorded before f ran)"]
    assert len(outside) == 1 and outside[0].check == "not checked"
    assert float(e.gradient["x"]) == pytest.approx(6 * math.cos(3), rel=1e-15)   # d/dx sin(6x) at 0.5
    assert e.first_wrong is None


def test_the_graph_says_what_its_edge_labels_are():
    from diffcompare.lecture.explain import explain as run
    from diffcompare.render.graph import dot
    text = dot(run("sin(x)*x", {"x": 2.0}))
    assert "an arrow's label is the gradient its node sends to that input" in text
    # the edge from the product to sin carries x = 2, the gradient the product sends to sin(x)
    assert 'n1 -> n2 [label="2"]' in text
