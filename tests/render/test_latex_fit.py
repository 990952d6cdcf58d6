"""Every command's LaTeX fits a 16:9 beamer frame and a 10-pt article page: pdflatex's own
log says so (no "Overfull \\hbox", no error) for fragments of short and long expressions,
six variables, vectors and matrices, a Jacobian, a Hessian and swell's expressions, all
compiled in one document per wrapper; and, without pdflatex, every tabular row and formula
is estimated within the characters a line holds (benchmarks/latex_fit.py, which also
measures the whole set of cases)."""

import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import latex_fit  # noqa: E402

import diffcompare  # noqa: E402
from diffcompare.lecture.steps import step_sweep  # noqa: E402
from diffcompare.lecture.swell import swell  # noqa: E402
from diffcompare.render.graph import latex_report as graph_latex  # noqa: E402

SIX = "x1*x2*x3 + sin(x4)*exp(x5) + x6**2*log(x1 + x2 + x3 + x4 + x5 + x6)"
SIX_AT = {"x1": 0.5, "x2": 1.5, "x3": 2.0, "x4": 0.3, "x5": 0.7, "x6": 1.1}
LONG = "sin(x)*exp(y)/(1 + x**2 + y**2) + log(1 + exp(x*y))*cos(x - y) + tanh(x*y**2)*atan(y/x)"
METHODS = "autograd,symbolic,central-difference"


@pytest.fixture(scope="module")
def fragments():
    """{case: LaTeX} of every command, for functions of every shape."""
    def compare(f, at, **options):
        return diffcompare.compare(f, at=at, repeat=1, methods=METHODS, **options).render("latex")
    return {
        "compare: long expression": compare(LONG, {"x": 0.5, "y": 1.5}),
        "compare: six variables": compare(SIX, SIX_AT),
        "compare: matrix variable": compare("sum(A**2)*prod(A) + log(sum(A))",
                                            {"A": [[2, 1, 0.5], [1, 3, 1], [0.5, 1, 4]]}),
        "compare: jacobian": compare("[x*y*z, sin(x)*exp(z), x**2 + y**2 + z**2, log(1 + x*y*z)]",
                                     {"x": 0.5, "y": 1.5, "z": 2.0}),
        "compare: hessian": diffcompare.compare(SIX, at=SIX_AT, repeat=1, kind="hessian",
                                                methods="autograd,symbolic,second-differences").render("latex"),
        "explain: two variables": diffcompare.explain("sin(x)*exp(y)", {"x": 0.5, "y": 1.5}).render("latex"),
        "explain: long expression, checked": diffcompare.explain(LONG, {"x": 0.5, "y": 1.5}, check=True).render("latex"),
        "explain: vector variable": diffcompare.explain("sum(x**2)*exp(-sum(x))",
                                                        {"x": [0.5, 1.5, 2.0, 0.3, 0.7, 1.1]}).render("latex"),
        "steps: two variables": step_sweep("sin(x)*exp(y)", {"x": 0.5, "y": 1.5}, variable="x",
                                           label="sin(x)*exp(y)").render("latex"),
        "swell: Baydin et al.'s Table 1": swell("logistic", "1..4", expressions=4, numbering="paper").render("latex"),
        "swell: nested-sin 1..5": swell("nested-sin", "1..5", expressions=5).render("latex"),
        "swell: sines 1..4": swell("sines", "1..4", expressions=3).render("latex"),
        "graph: long expression": graph_latex(diffcompare.explain(LONG, {"x": 0.5, "y": 1.5})),
        "audit: a wrong gradient": diffcompare.audit("x**2", domain={"x": (-1.0, 1.0)}, points=3,
                                                     gradient=lambda x: 3 * x, name="x squared, wrong 3x").render("latex"),
    }


def test_every_fragment_names_the_packages_it_needs(fragments):
    for name, text in fragments.items():
        named = latex_fit.packages([text])
        assert {r"\usepackage{booktabs}", r"\usepackage{array}", r"\usepackage{amsmath}"} <= set(named), name


def test_within_a_line_by_estimate(fragments):
    """No pdflatex: the widest row or formula of each fragment, in characters."""
    for name, text in fragments.items():
        if name.startswith("graph"):            # a picture, shrunk to the line by \resizebox
            continue
        widths = latex_fit.estimated_widths(text)
        assert widths, name
        widest = max(widths)
        assert widest[0] <= latex_fit.LINE_CHARACTERS, (name, widest)


def test_the_estimate_sees_a_table_too_wide():
    """The estimate is not blind: seven columns of 18-digit numbers are wider than a line."""
    row = " & ".join(["0.9092974268256817"] * 7) + r" \\"
    wide = "\n".join([r"\begin{tabular}{rrrrrrr}", row, r"\end{tabular}"])
    assert max(latex_fit.estimated_widths(wide))[0] > latex_fit.LINE_CHARACTERS


@pytest.mark.skipif(latex_fit.pdflatex() is None, reason="pdflatex is not installed")
@pytest.mark.parametrize("wrapper", sorted(latex_fit.WRAPPERS))
def test_no_overfull_box_in_pdflatex(fragments, wrapper):
    results = latex_fit.compile_fragments(fragments, wrapper)
    assert set(results) == set(fragments)
    errors = {name: r["errors"] for name, r in results.items() if r["errors"]}
    overfull = {name: f"{r['boxes']} overfull, the widest {r['widest']:.1f} pt too wide"
                for name, r in results.items() if r["boxes"]}
    assert errors == {} and overfull == {}


@pytest.mark.skipif(latex_fit.pdflatex() is None, reason="pdflatex is not installed")
def test_pdflatex_log_is_read():
    """The compile sees an overfull box where there is one, and names its fragment."""
    wide = r"\begin{tabular}{l}" + "x" * 20 + r"\rule{600pt}{1pt}\end{tabular}"
    results = latex_fit.compile_fragments({"fits": "fits", "too wide": wide}, "article")
    assert results["fits"]["boxes"] == 0
    assert results["too wide"]["boxes"] == 1 and 200 < results["too wide"]["widest"] < 400
    assert re.fullmatch(r"\d+", str(results["too wide"]["boxes"]))
