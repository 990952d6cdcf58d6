"""The lecture's table of the logistic map (after Baydin et al. 2018, Table 1): swell keeps
f, SymPy's raw derivative, its cse form and the two straight-line programs for small n, in
every format. Expected expressions are built by hand from l₀ = x, l_{k+1} = 4 l_k (1 - l_k)."""

from __future__ import annotations

import json

import pytest
import sympy

from diffcompare.lecture.swell import swell
from diffcompare.problem.errors import InputError

x = sympy.Symbol("x", real=True)


def logistic(n):
    y = x
    for _ in range(n):
        y = 4 * y * (1 - y)
    return y


def run_program(program, value):
    """A straight-line program evaluated by substitution, in order."""
    env = {s: value for s in program.inputs}
    for symbol, expression in program.assignments:
        env[symbol] = expression.subs(env)
    return [sympy.sympify(o).subs(env) for o in program.outputs]


@pytest.fixture(scope="module")
def report():
    return swell("logistic", [1, 2, 3, 5], expressions=3)


def test_the_expressions_by_hand(report):
    for row in report.rows[:3]:
        e = row.expressions
        assert sympy.simplify(e.f - logistic(row.n)) == 0
        assert sympy.simplify(e.derivative - sympy.diff(logistic(row.n), x)) == 0
        replacements, reduced = e.cse
        assert sympy.simplify(reduced.subs(list(reversed(replacements))) - e.derivative) == 0
        half = sympy.Rational(3, 10)
        assert run_program(e.forward, half)[0] == logistic(row.n).subs(x, half)
        assert run_program(e.reverse, half)[0] == sympy.diff(logistic(row.n), x).subs(x, half)
    assert report.rows[3].expressions is None                   # only n up to 3 were asked for
    # the programs grow by a constant per iterate: the raw derivative does not
    sizes = [len(row.expressions.reverse.assignments) for row in report.rows[:3]]
    assert sizes[2] - sizes[1] == sizes[1] - sizes[0]


def test_every_format_shows_them(report):
    text = report.render("text", width=100)
    assert "n = 2" in text and "f's program (the engine's graph): t1 = 4*x; t2 = 1 - x" in text
    markdown = report.render("markdown")
    assert "| 1 | `4*x*(1 - x)` | `4 - 8*x` | `df/dx = 4 - 8*x` |" in markdown
    latex = report.render("latex")
    assert r"\usepackage{booktabs}" in latex and r"1 & $4 x \penalty900 (1 - x)$ & $4 - 8 x$" in latex
    data = json.loads(report.render("json"))
    assert data["rows"][0]["expressions"]["f"] == "4*x*(1 - x)" and data["rows"][3]["expressions"] is None


def test_how_many_can_be_asked_for():
    with pytest.raises(InputError, match="--expressions must be an integer from 0 to 8"):
        swell("logistic", [1], expressions=9)
