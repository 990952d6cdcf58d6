"""Functions that branch on the value, which SymPy cannot follow: mpmath differentiates f
itself for every kind of derivative, and a difference stencil across the branch is not
judged. Expected values are written by hand."""

from __future__ import annotations

import math

import pytest
from custom_ops import DetachedSquare

import diffcompare
from diffcompare.functions import exp, sin, tanh


def smooth_branch(x, y):
    if x > 0:
        return exp(x) * y * y + tanh(x * y)
    return sin(x) * y


def vector_branch(x, y):
    if x > 0:
        return [x * y, exp(x) * sin(y)]
    return [x, y]


def wrong_second_derivative(x, y):
    if x > 0:
        return DetachedSquare.apply(x) * y
    return x * y


def hessian_by_hand(x, y):
    # f = e^x y² + tanh(xy); s = sech²(xy), t = tanh(xy)
    t = math.tanh(x * y)
    s = 1 - t * t
    fxx = math.exp(x) * y * y - 2 * y * y * s * t
    fxy = 2 * math.exp(x) * y + s - 2 * x * y * s * t
    fyy = 2 * math.exp(x) - 2 * x * x * s * t
    return [[fxx, fxy], [fxy, fyy]]


@pytest.mark.parametrize("x, y", [(0.7, 1.3), (2.5, -0.4)])
def test_the_hessian_of_a_branching_function_has_a_reference(x, y):
    s = diffcompare.compare(smooth_branch, at={"x": x, "y": y}, kind="hessian", repeat=1)
    assert s.reference.available
    exact = [v for row in hessian_by_hand(x, y) for v in row]
    assert s.reference.high[0].tolist() == pytest.approx(exact, rel=1e-13)
    assert s.method("autograd").verdict == "pass" and s.exit_status == 0


def test_a_lost_second_derivative_is_caught_behind_a_branch():
    s = diffcompare.compare(wrong_second_derivative, at={"x": 0.7, "y": 1.3}, kind="hessian", repeat=1)
    # ∂²f/∂x² = 2y = 2.6; the detached backward gives 0
    assert s.reference.high[0][0] == pytest.approx(2.6, rel=1e-13)
    assert s.method("autograd").verdict == "fail" and s.exit_status == 1


def test_a_callable_returning_a_list_keeps_its_graph():
    x, y, v = 0.7, 1.3, (0.3, -2.0)
    s = diffcompare.compare(vector_branch, at={"x": x, "y": y}, kind="vjp", vector=list(v), repeat=1)
    # J = [[y, x], [e^x sin y, e^x cos y]]; vᵀJ by hand
    expected = [v[0] * y + v[1] * math.exp(x) * math.sin(y), v[0] * x + v[1] * math.exp(x) * math.cos(y)]
    assert s.method("autograd").estimate.values[0].tolist() == pytest.approx(expected, rel=1e-14)
    assert s.reference.high[0].tolist() == pytest.approx(expected, rel=1e-13)
    assert s.method("autograd").verdict == "pass"


def test_a_stencil_across_a_branch_is_not_judged():
    # x = 1e-3: five-point differences reach 2h ≈ 1.5e-3 beyond 0, into the other branch
    c = diffcompare.compare(smooth_branch, at={"x": 1e-3, "y": 30.0}, repeat=1)
    five = c.method("five-point")
    assert five.verdict == "not judged" and five.judgement.cause == "crossing"
    assert "not those of one smooth function" in five.reason
    assert c.method("autograd").verdict == "pass" and c.exit_status == 4
