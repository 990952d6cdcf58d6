"""Audits of functions of many inputs: checked along random directions against the
high-precision directional derivative, a failing direction narrowed down to the wrong
entries. Expected values are derived by hand."""

from __future__ import annotations

import re

import numpy as np
import pytest

from diffcompare import audit
from diffcompare import autograd as ag
from diffcompare.auditing.directional import FULL_ENTRIES, directional_reference, directions
from diffcompare.auditing.results import AGREE, WRONG
from diffcompare.problem.problem import make_problem
from diffcompare.problem.tasks import make_task

N = 400          # above FULL_ENTRIES: checked along directions (benchmarks/audit_large.py times 1,000)


def test_the_directional_reference_by_hand():
    rng = np.random.default_rng(5)
    x, v = rng.uniform(-1, 1, 40), rng.standard_normal(40)
    u = np.array([0.75])
    p = make_problem("sum(x**3)", {"x": x})
    reference = directional_reference(p, make_task(p, "gradient"), p.flat_point(), u, v)
    # d/dt Σ (x + t v)³ at 0 = 3 Σ x² v, summed exactly in fractions
    from fractions import Fraction
    exact = Fraction(u[0]) * 3 * sum(Fraction(a) ** 2 * Fraction(b) for a, b in zip(x, v))
    assert reference.available and reference.trusted[0, 0] >= 15
    assert float(reference.high[0, 0]) == float(exact)


def test_directions_are_reproducible():
    p = make_problem("sum(x)", {"x": np.zeros(300)})
    task = make_task(p, "gradient")
    first, again = directions(task, 3, 17), directions(task, 3, 17)
    assert all(np.array_equal(a[1], b[1]) for a, b in zip(first, again))
    assert not np.array_equal(first[0][1], directions(task, 4, 17)[0][1])


def test_a_right_layer_of_many_inputs_passes():
    report = audit("sum(x * x * sin(x)) / 1000", domain={"x": (-2, 2)}, shape={"x": [N]}, points=3)
    case = report.cases[0]
    assert N > FULL_ENTRIES
    assert case.status == "pass", case.findings
    assert case.entries == ["uᵀJv1", "uᵀJv2"]
    assert sum(p.verdict == AGREE for p in case.points) >= 3
    assert any("random directions" in note for note in case.notes)


class _Scaled(ag.Function):
    """Σ x² whose backward scales entries 7 and 300 of its gradient: wrong there only."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return (x * x).sum()

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        scale = np.ones(x.shape[0])
        scale[[7, 300]] = [1.5, -1.0]
        return grad * 2 * x * ag.tensor(scale)


def test_a_wrong_entry_is_narrowed_down():
    report = audit(_Scaled, domain={"x": (0.5, 2)}, shape={"x": [N]}, points=1, adversarial=False)
    point = report.cases[0].points[0]
    assert point.verdict == WRONG and report.exit_status == 1
    named = point.reason.split("narrowed down along direction ")[1]
    # both wrong entries are named, with autograd's u·(scale × 2x_j) against u·2x_j; no right entry is
    assert named.count("∂(uᵀf)/∂x[") == 2
    found = {j: float(a) / float(e) for j, a, e in
             re.findall(r"∂\(uᵀf\)/∂x\[(\d+)\]: autograd (\S+), exact ([^;\s]+)", named)}
    assert set(found) == {"7", "300"}
    ratios = found
    assert ratios["7"] == pytest.approx(1.5, rel=1e-5) and ratios["300"] == pytest.approx(-1.0, rel=1e-5)


def test_a_large_jacobian_by_directions():
    report = audit("x * tanh(x)", domain={"x": (-2, 2)}, shape={"x": [300]}, kind="jacobian", points=2)
    case = report.cases[0]
    assert case.status == "pass", case.findings


def test_the_users_gradient_of_many_inputs():
    right = audit("sum(x**3)", gradient=lambda x: 3 * x ** 2, domain={"x": (-1, 1)}, shape={"x": [N]}, points=2)
    assert right.cases[0].status == "pass", right.cases[0].findings

    def off_by_one(x):
        g = 3 * x ** 2
        g[123] += 1.0
        return g
    wrong = audit("sum(x**3)", gradient=off_by_one, domain={"x": (-1, 1)}, shape={"x": [N]}, points=1,
                  adversarial=False)
    point = wrong.cases[0].points[0]
    assert point.verdict == WRONG
    assert "∂(uᵀf)/∂x[123]" in point.reason and point.reason.count("∂(uᵀf)/∂x[") == 1


@pytest.mark.parametrize("n", [8, 9])
def test_the_full_gradient_while_it_is_small(n, monkeypatch):
    from diffcompare.auditing import directional
    monkeypatch.setattr(directional, "FULL_ENTRIES", 8)
    case = audit("sum(x**2)", at={"x": list(np.linspace(-1, 1, n))}).cases[0]
    assert (len(case.entries) == n) == (n <= 8)
    assert FULL_ENTRIES == 256
