"""Symbolic reverse mode as a method of compare: asked for by name for every task, judged
by the one judge, its size shown beside SymPy's. Expected values by hand."""

from __future__ import annotations

import math

import pytest

from diffcompare import compare


def test_a_gradient_by_symbolic_reverse_mode():
    c = compare("x**3 * y + sin(x)", at={"x": 2.0, "y": 5.0}, methods="symbolic-reverse", repeat=1)
    m = c.method("symbolic-reverse")
    assert m.verdict == "pass" and c.exit_status == 0
    # by hand: (3x²y + cos x, x³)
    assert m.estimate.values[0].tolist() == pytest.approx([60 + math.cos(2.0), 8.0], rel=1e-15)
    assert m.estimate.details["size"] > 0
    assert "symbolic reverse mode" in c.render("text", width=200)


@pytest.mark.parametrize("kind, vector, expected", [
    ("jacobian", None, [[2.0, 1.0], [0.0, 3.0]]),          # [x*y, 3y] at (1, 2): [[y, x], [0, 3]]
    ("vjp", [1.0, -1.0], [2.0, -2.0]),
    ("jvp", [1.0, 1.0], [3.0, 3.0]),
])
def test_every_task(kind, vector, expected):
    c = compare("[x*y, 3*y]", at={"x": 1.0, "y": 2.0}, kind=kind, vector=vector, methods="symbolic-reverse",
                repeat=1)
    assert c.method("symbolic-reverse").verdict == "pass"
    assert c.method("symbolic-reverse").estimate.values[0].tolist() == expected


def test_a_hessian_by_reverse_over_reverse():
    c = compare("x**2 * y**3", at={"x": 1.5, "y": -2.0}, kind="hessian", methods="symbolic-reverse", repeat=1)
    # by hand: [[2y³, 6xy²], [6xy², 6x²y]]
    assert c.method("symbolic-reverse").estimate.values[0].tolist() == [[-16.0, 36.0], [36.0, -27.0]]
