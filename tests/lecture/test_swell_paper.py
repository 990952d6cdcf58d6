"""Baydin et al. (2018), "Automatic differentiation in machine learning: a survey", JMLR
18(153), Table 1: the logistic map l_{n+1} = 4 l_n (1 − l_n) with l_1 = x, l_n factored,
its raw derivative and the derivative simplified. The rows here are built by SymPy on its
own from the recurrence, and the paper's printed l_4 and simplified derivative are
transcribed and checked against SymPy first."""

import json

import pytest
import sympy

from cli_runner import in_process as run
from diffcompare.lecture.swell import swell

x = sympy.Symbol("x")

# as printed in the paper's Table 1 (rows 1 to 4): l_n and the simplified derivative
PAPER_L = {1: "x", 2: "4*x*(1 - x)", 3: "16*x*(1 - x)*(1 - 2*x)**2",
           4: "64*x*(1 - x)*(1 - 2*x)**2*(1 - 8*x + 8*x**2)**2"}
PAPER_SIMPLIFIED = {1: "1", 2: "4 - 8*x", 3: "16*(1 - 10*x + 24*x**2 - 16*x**3)",
                    4: "64*(1 - 42*x + 504*x**2 - 2640*x**3 + 7040*x**4 - 9984*x**5 + 7168*x**6 - 2048*x**7)"}
PAPER_RAW = {2: "4*(1 - x) - 4*x", 3: "16*(1 - x)*(1 - 2*x)**2 - 16*x*(1 - 2*x)**2 - 64*x*(1 - x)*(1 - 2*x)"}


def l(n):
    """l_n by the recurrence, l_1 = x."""
    value = x
    for _ in range(n - 1):
        value = 4 * value * (1 - value)
    return value


def mine(expr):
    """``expr`` in this file's x (the tool's symbol carries assumptions of its own)."""
    return sympy.sympify(expr).subs({s: x for s in sympy.sympify(expr).free_symbols})


def test_the_papers_numbers_are_the_recurrences():
    """Before the tool is asked anything: the transcribed table agrees with SymPy."""
    for n in range(1, 5):
        assert sympy.expand(sympy.sympify(PAPER_L[n]) - l(n)) == 0
        assert sympy.expand(sympy.sympify(PAPER_SIMPLIFIED[n]) - sympy.diff(l(n), x)) == 0
    for n, raw in PAPER_RAW.items():
        assert sympy.expand(sympy.sympify(raw) - sympy.diff(l(n), x)) == 0


@pytest.fixture(scope="module")
def paper():
    return swell("logistic", "1..4", expressions=4, numbering="paper")


def test_the_table_as_printed(paper):
    assert [row.n for row in paper.rows] == [1, 2, 3, 4]
    for row in paper.rows:
        forms = row.expressions.paper
        assert sympy.sstr(forms.factored, order="none") == PAPER_L[row.n]
        assert sympy.sstr(forms.simplified, order="none") == PAPER_SIMPLIFIED[row.n]
        assert sympy.expand(mine(forms.product_rule) - sympy.diff(l(row.n), x)) == 0
        if row.n in PAPER_RAW:
            assert sympy.sstr(forms.product_rule, order="none") == PAPER_RAW[row.n]
    # l_4's raw derivative: the product rule over its four distinct factors, one term each
    assert len(paper.rows[3].expressions.paper.product_rule.args) == 4


def test_numbering_from_one_is_the_iterations_shifted(paper):
    """Row n of the paper is n − 1 steps of the map: f is l_n, and the straight-line
    program of symbolic reverse mode computes its derivative."""
    for row in paper.rows:
        assert sympy.expand(mine(row.expressions.f) - l(row.n)) == 0
        program = row.expressions.reverse
        values = {s: e for s, e in program.assignments}
        out = program.outputs[0]
        for _ in range(len(values) + 1):
            out = out.subs(values)
        assert sympy.expand(mine(out) - sympy.diff(l(row.n), x)) == 0


def test_every_format_carries_it(paper):
    text = paper.render("text", width=200)
    assert "f as Baydin et al. print it: 64*x*(1 - x)*(1 - 2*x)**2*(1 - 8*x + 8*x**2)**2" in text
    markdown = paper.render("markdown")
    assert "| 3 | `16*x*(1 - x)*(1 - 2*x)**2` |" in markdown and "Table 1" in markdown
    latex = paper.render("latex")
    assert r"$l_n$" in latex and "Straight-line programs" in latex
    assert r"64 (1 - 42 x + 504 x^{2} - 2640 x^{3} + 7040 x^{4} - 9984 x^{5} + 7168 x^{6} - 2048 x^{7})" in latex
    data = json.loads(paper.render("json"))
    assert data["command"]["numbering"] == "paper"
    assert data["rows"][1]["expressions"]["df/dx simplified"] == "4 - 8*x"


def test_not_a_polynomial_has_no_paper_columns():
    row = swell("nested-sin", [2], expressions=2).rows[0]
    assert row.expressions.paper is None


def test_the_command_line():
    done = run("swell", "logistic", "--numbering", "paper", "--n", "1..2", "--expressions", "2", "--format", "latex")
    assert done.returncode == 0 and r"4 (1 - x) - 4 x" in done.stdout
    refused = run("swell", "sines", "--numbering", "paper", "--n", "1..2")
    assert refused.returncode == 2 and "--numbering paper" in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1, refused.stderr
    unknown = run("swell", "logistic", "--numbering", "papers", "--n", "1..2")
    assert unknown.returncode == 2 and "Traceback" not in unknown.stderr
