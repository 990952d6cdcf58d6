"""Jacobians, vector-Jacobian and Jacobian-vector products, Hessians, vector variables and
many points: every method against expectations derived by hand (closed forms) or by a
second method."""

import math

import numpy as np
import pytest
from hand_derived import rosenbrock_gradient, rosenbrock_hessian

import diffcompare
from diffcompare import autograd as ag
from diffcompare.functions import norm
from diffcompare.problem.errors import InputError
from diffcompare.render.verdicts import reason as why

ROSENBROCK = "sum(100*(x[1:]-x[:-1]**2)**2 + (1-x[:-1])**2)"


def values(result, method):
    return result.method(method).estimate.values[0]


def test_rosenbrock_gradient_matches_the_closed_form():
    x = np.random.default_rng(3).uniform(-1.5, 1.5, 6)
    s = diffcompare.compare(ROSENBROCK, at={"x": x.tolist()}, repeat=1)
    expected = rosenbrock_gradient(x)
    for name in ("autograd", "symbolic", "complex-step"):
        assert np.allclose(values(s, name), expected, rtol=1e-13, atol=1e-12), name
    assert np.allclose(values(s, "central-difference"), expected, rtol=1e-8, atol=1e-7)
    assert s.task.entry_labels()[0] == "∂f/∂x[0]"
    assert s.exit_status == 0 and all(m.verdict == "pass" for m in s.methods)


def test_rosenbrock_hessian_matches_the_closed_form_and_is_symmetric():
    x = np.random.default_rng(5).uniform(-1.5, 1.5, 5)
    s = diffcompare.compare(ROSENBROCK, at={"x": x.tolist()}, kind="hessian", repeat=1)
    expected = rosenbrock_hessian(x)
    for name in ("autograd", "autograd-functional", "symbolic"):
        assert np.allclose(values(s, name), expected, rtol=1e-13, atol=1e-12), name
        assert s.method(name).symmetry <= 1e-15
    assert np.allclose(values(s, "second-differences"), expected, rtol=1e-6, atol=1e-5)
    assert np.allclose(values(s, "mixed"), expected, rtol=1e-8, atol=1e-7)
    assert s.method("mixed").symmetry > 0            # central differences of a gradient: not symmetric
    assert s.exit_status == 0


def test_a_3x3_jacobian_against_hand_derived_entries():
    x, y, z = 0.7, -1.3, 2.5
    s = diffcompare.compare("[x*y, sin(x)*z, exp(y)]", at={"x": x, "y": y, "z": z}, repeat=1)
    assert s.task.kind == "jacobian"
    expected = np.array([[y, x, 0.0], [z * math.cos(x), 0.0, math.sin(x)], [0.0, math.exp(y), 0.0]])
    for name in ("autograd", "autograd-functional", "symbolic", "complex-step"):
        assert np.allclose(values(s, name), expected, rtol=1e-15, atol=0), name
    assert np.allclose(values(s, "central-difference"), expected, rtol=1e-9, atol=1e-10)
    assert s.task.entry_labels()[3] == "∂f[1]/∂x"
    assert s.exit_status == 0


def test_vjp_is_one_backward_and_equals_v_times_the_hand_jacobian():
    x, y, z = 1.0, 2.0, 3.0
    v = np.array([0.1, 1.0, 0.0001])
    s = diffcompare.compare("[x*y, sin(x)*z, exp(y)]", at={"x": x, "y": y, "z": z}, kind="vjp", vector=v, repeat=1)
    jacobian = np.array([[y, x, 0.0], [z * math.cos(x), 0.0, math.sin(x)], [0.0, math.exp(y), 0.0]])
    for name in ("autograd", "autograd-full-J", "symbolic", "complex-step"):
        assert np.allclose(values(s, name), v @ jacobian, rtol=1e-15), name
    autograd = s.method("autograd").estimate.details
    assert autograd["forms_jacobian"] is False and autograd["work"] == {"of": "autograd", "task": "vjp", "m": 3, "n": 3}
    assert s.method("autograd-full-J").estimate.details["forms_jacobian"] is True


def test_jvp_by_the_double_vjp_trick_equals_j_times_v():
    x, y, z = 1.0, 2.0, 3.0
    v = np.array([1.0, -2.0, 0.5])
    s = diffcompare.compare("[x*y, sin(x)*z, exp(y)]", at={"x": x, "y": y, "z": z}, kind="jvp", vector=v, repeat=1)
    jacobian = np.array([[y, x, 0.0], [z * math.cos(x), 0.0, math.sin(x)], [0.0, math.exp(y), 0.0]])
    for name in ("autograd", "autograd-functional", "symbolic", "complex-step"):
        assert np.allclose(values(s, name), jacobian @ v, rtol=1e-14), name
    assert np.allclose(values(s, "central-difference"), jacobian @ v, rtol=1e-9)
    assert s.exit_status == 0


def doubled(x):
    """The seed article's loop: y = x * 2, doubled while its norm is below 1000."""
    y = x * 2
    while norm(y) < 1000:
        y = y * 2
    return y


def test_seed_004_doubling_gives_v_times_two_to_the_k():
    x0 = [0.3, -1.1, 0.8]
    k, y = 1, np.array(x0) * 2          # the doublings, counted independently in NumPy
    while np.sqrt(np.sum(y ** 2)) < 1000:
        y, k = y * 2, k + 1
    v = [0.1, 1.0, 0.0001]

    x = ag.tensor(x0, requires_grad=True)          # the engine, as the article writes it
    out = doubled(x)
    out.backward(ag.tensor(v))
    assert x.grad.tolist() == [c * 2 ** k for c in v]

    s = diffcompare.compare(doubled, at={"x": x0}, kind="vjp", vector=v, repeat=1)
    assert values(s, "autograd").tolist() == [c * 2 ** k for c in v]
    assert np.allclose(values(s, "central-difference"), np.array(v) * 2 ** k, rtol=1e-9)
    assert values(s, "complex-step").tolist() == [c * 2 ** k for c in v]   # NumPy orders complex by real part
    # control flow on values: no SymPy form, so no exact reference and nothing judged
    assert s.method("symbolic").verdict == "not applicable"
    assert not s.reference.available and s.exit_status == 4      # no reference: nothing could be judged
    assert "no reference" in why(s.method("autograd").judgement)


def test_matrix_variables_quadratic_form():
    a = np.array([[2.0, 1.0, 0.0], [0.5, 3.0, -1.0], [0.0, 0.25, 1.5]])
    x = np.array([0.3, -0.7, 1.1])
    s = diffcompare.compare("x @ A @ x", at={"x": x.tolist(), "A": a.tolist()}, repeat=1)
    # ∂/∂x xᵀAx = (A + Aᵀ) x; ∂/∂A_ij = x_i x_j
    expected = np.concatenate([(a + a.T) @ x, np.outer(x, x).ravel()])
    for name in ("autograd", "symbolic"):
        assert np.allclose(values(s, name), expected, rtol=1e-14, atol=1e-15), name
    assert s.task.input_labels[3:5] == ["A[0,0]", "A[0,1]"]
    assert s.exit_status == 0


def test_reductions_and_norm():
    x = np.array([0.5, -1.5, 2.0])
    s = diffcompare.compare("norm(x) + mean(x) + prod(x) + dot(x, x)", at={"x": x.tolist()}, repeat=1)
    expected = x / np.linalg.norm(x) + 1 / 3 + np.prod(x) / x + 2 * x
    assert np.allclose(values(s, "autograd"), expected, rtol=1e-14)
    assert s.exit_status == 0


def test_many_points_summarise_the_error_distribution():
    s = diffcompare.compare("sin(x)*exp(y)*z", at={"z": 2.0}, box="x=-2:2,y=0.1:3", points=500, seed=7, repeat=1)
    assert len(s.points) == 500 and s.reference.indices.size == 500
    flat = s.points.flat
    x, y, z = flat[:, 0], flat[:, 1], flat[:, 2]
    assert ((-2 <= x) & (x <= 2) & (0.1 <= y) & (y <= 3) & (z == 2.0)).all()
    expected = np.stack([np.cos(x) * np.exp(y) * z, np.sin(x) * np.exp(y) * z, np.sin(x) * np.exp(y)], axis=1)
    autograd = s.method("autograd")
    assert np.allclose(autograd.estimate.values, expected, rtol=1e-14, atol=1e-15)
    assert autograd.estimate.details["vectorised"] is True
    assert autograd.statistic("max") < 1e-14 and autograd.statistic("median") <= autograd.statistic("max")
    central = s.method("central-difference")
    assert 1e-13 < central.statistic("max") < 1e-6 and central.worst["point"] in range(500)
    assert s.exit_status == 0
    again = diffcompare.compare("sin(x)*exp(y)*z", at={"z": 2.0}, box="x=-2:2,y=0.1:3", points=500, seed=7, repeat=1)
    assert np.array_equal(again.points.flat, flat)          # the seed fixes the points


def test_a_grid_and_vector_variables_point_by_point():
    g = diffcompare.compare("x**2 * y", box="x=-1:1,y=0:2", points=9, grid=True, repeat=1)
    assert g.points.flat.tolist()[:3] == [[-1.0, 0.0], [-1.0, 1.0], [-1.0, 2.0]]
    assert np.allclose(g.method("autograd").estimate.values, np.stack(
        [2 * g.points.flat[:, 0] * g.points.flat[:, 1], g.points.flat[:, 0] ** 2], axis=1))
    s = diffcompare.compare(ROSENBROCK, at={"x": [0.0, 0.0, 0.0]}, box="x=-1:1", points=20, repeat=1,
                            methods="autograd,symbolic,central-difference")
    assert s.method("autograd").estimate.details["vectorised"] is False     # sum over x: one point at a time
    for p in range(20):
        assert np.allclose(s.method("autograd").estimate.values[p], rosenbrock_gradient(s.points.flat[p]),
                           rtol=1e-13, atol=1e-12)
    assert s.exit_status == 0


def test_at_a_kink_exact_methods_meet_the_one_sided_interval_and_differences_are_not_judged():
    s = diffcompare.compare("[abs(x), x*y]", at={"x": 0.0, "y": 1.0}, repeat=1)
    # by hand: d|x|/dx lies in [-1, 1] at 0 (one-sided -1 and 1); x*y's row is (y, x) = (1, 0)
    finding = s.reference.findings[(0, 0)]
    assert finding.kind == "kink" and (float(finding.lower), float(finding.upper)) == (-1.0, 1.0)
    assert s.reference.high[0, 1:].tolist() == [0.0, 1.0, 0.0]
    assert s.method("autograd").verdict == "pass"           # abs'(0) = 0: a subgradient
    assert all(m.verdict in ("not judged", "not applicable") for m in s.methods
               if m.estimate.family == "finite differences")
    assert s.method("complex-step").verdict == "not applicable"      # abs has no analytic extension
    assert any(n.kind == "kink" for n in s.notes) and s.exit_status == 4


@pytest.mark.parametrize("call, message", [
    (dict(f="[x, y]", at={"x": 1, "y": 2}, kind="hessian"), "a Hessian needs a scalar f"),
    (dict(f="[x, y]", at={"x": 1, "y": 2}, kind="vjp", vector=[1, 2, 3]), "vector= has 3 elements, but it needs 2"),
    (dict(f="[x, y]", at={"x": 1, "y": 2}, kind="vjp"), "vjp needs a vector v"),
    (dict(f="x*y", at={"x": 1, "y": 2}, kind="jacobain"), "did you mean 'jacobian'"),
    (dict(f="x*y", at={"x": 1, "y": 2}, kind="hessian", methods="central-difference"), "does not compute the hessian"),
    (dict(f="x*y", at={"y": 1}, box="x=0:1", points=0), "from 1 to"),
    (dict(f="x*y", at={"y": 1}, box="x=1:0", points=5), "low bound must be below"),
    (dict(f="x*y", at={"y": 1}, box="z=0:1", points=5), "not a variable of f"),
    (dict(f="x*y", at={"x": 1, "y": 1}, points=5), "points= needs a region"),
    (dict(f="sum(x)", box="x=0:1", at={"x": [1, 2]}, points=4, grid=True), "use random points"),
    (dict(f="x[3]", at={"x": [1, 2]}), "cannot be evaluated with these shapes"),
])
def test_bad_requests_get_clear_errors(call, message):
    with pytest.raises(InputError, match=message.replace("(", r"\(")):
        diffcompare.compare(**call)


def test_every_format_renders():
    import json
    s = diffcompare.compare("[x*y, sin(x)*z, exp(y)]", at={"x": 1, "y": 2, "z": 3}, kind="vjp",
                            vector=[0.1, 1.0, 0.0001], repeat=1)
    data = json.loads(s.render("json"))
    assert data["report"] == "compare" and data["kind"] == "vjp" and data["entries"][0] == "(vᵀJ)[x]"
    assert data["methods"][0]["forms_jacobian"] is False and data["exit_status"] == 0
    assert float(data["reference"]["values"][0]) == pytest.approx(0.1 * 2 + 1.0 * 3 * math.cos(1))
    text = s.render("text")
    assert "(vᵀJ)[x]" in text and "J is never formed" in text
    assert "| autograd |" in s.render("markdown")
    assert r"\begin{tabular}" in s.render("latex")
