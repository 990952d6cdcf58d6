"""`diffcompare lecture`: the numbers of the deck against derivatives by hand, the deck
compiled by pdflatex with no overfull box, the notebook as nbformat 4, the code on the
slides as Python that parses to the same program."""

import ast
import itertools
import json
import math
import shutil
import subprocess
import timeit

import pytest

from diffcompare.lecture.lecture import lecture
from diffcompare.problem.errors import InputError
from diffcompare.render.graph import graph_layout
from diffcompare.render.lecture import deck, notebook, wrap_code


def _one_call(call) -> float:
    """The cost slide's time of ``call`` from one timed call: what these tests check of the
    lecture does not depend on how its times were measured, and the lecture's own timer
    (test_the_timer_gives_seconds_per_call) takes timeit's 0.2 s rounds for each of them."""
    return timeit.timeit(call, number=1)


@pytest.fixture(scope="module")
def x_sin_x():
    from diffcompare.lecture import lecture as module
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(module, "_seconds", _one_call)
        return lecture("sin(x) * x", at={"x": 2.0}, ns=(1, 2), sizes=(1, 4))


@pytest.fixture
def one_call_timer(monkeypatch):
    from diffcompare.lecture import lecture as module
    monkeypatch.setattr(module, "_seconds", _one_call)


def test_the_timer_gives_seconds_per_call():
    from diffcompare.lecture.lecture import _seconds
    calls = itertools.count()
    seconds = _seconds(lambda: next(calls))
    assert 0 < seconds < 1e-3 and next(calls) >= 4          # auto-ranged, then three rounds: per call


def test_the_numbers_are_the_derivatives_by_hand(x_sin_x):
    lec, x = x_sin_x, 2.0
    first = math.sin(x) + x * math.cos(x)                 # (x sin x)' by hand
    second = 2 * math.cos(x) - x * math.sin(x)            # (x sin x)''
    assert lec.retain.first == pytest.approx(first, rel=1e-15)
    assert lec.retain.accumulated == pytest.approx(2 * first, rel=1e-15)       # accumulated, not replaced
    assert "backward through the graph a second time" in lec.retain.freed_error
    assert lec.second.first == pytest.approx(first, rel=1e-15)
    assert lec.second.second == pytest.approx(second, rel=1e-14)
    assert lec.second.exact_second == pytest.approx(second, rel=1e-15)
    xs = [x + d for d in (0.0, 0.25, 0.5)]
    grads = lec.vjp.gradient["x"]
    for xi, vi, gi in zip(xs, (1.0, 0.1, 0.01), grads):   # vᵀJ with J = diag(f'(xᵢ))
        assert gi == pytest.approx(vi * (math.sin(xi) + xi * math.cos(xi)), rel=1e-14)
    assert [(c.n, c.forward_passes, c.reverse_passes) for c in lec.cost] == [(1, 1, 1), (4, 4, 1)]
    assert all(c.difference <= 1e-14 for c in lec.cost)
    assert lec.template == "sin(y) * y"


def test_the_graph_is_drawn_in_the_forward_direction(x_sin_x):
    place = graph_layout(x_sin_x.explanation)
    # x (step 3) feeds sin (2) and the product (1); sin feeds the product
    assert place[3][0] < place[2][0] < place[1][0]


def test_bad_input_is_refused_with_what_would_be_right():
    with pytest.raises(InputError, match="one number"):
        lecture("sin(x)", at={"x": [1.0, 2.0]})
    with pytest.raises(InputError, match="not a variable"):
        lecture("sin(x)", at={"x": 1.0}, variable="y")


@pytest.mark.parametrize("line", [
    "y = exp(x)/sqrt(sin(x)**3 + cos(x)**3) + log(1 + exp(x)) * tanh(x)**2 + sqrt(1 + x**2) / (1 + sin(x)**2)",
    "y = x*y*z + sin(x*y)/(1+z**2) + exp(-w**2)*x    # a comment that is long enough to need its own line",
    "z = a_rather_long_name_without_any_place_to_break_it_at_all_because_it_is_one_token_only_indeed",
])
def test_code_on_a_slide_breaks_only_where_python_allows(line):
    lines = wrap_code(line, 40)
    code = line.partition("  #")[0]
    joined = "\n".join(l for l in lines if not l.lstrip().startswith("#"))
    assert ast.dump(ast.parse(joined)) == ast.dump(ast.parse(code))
    breakable = any(ch in " +-*/," for ch in code.partition(" = ")[2])
    assert not breakable or all(len(l) <= 40 for l in lines if not l.lstrip().startswith("#"))


def test_the_notebook_is_nbformat_4_telling_the_same_story(x_sin_x):
    nb = json.loads(notebook(x_sin_x))
    assert nb["nbformat"] == 4 and nb["nbformat_minor"] >= 5
    sources = ["".join(c["source"]) for c in nb["cells"]]
    code = [s for c, s in zip(nb["cells"], sources) if c["cell_type"] == "code"]
    for cell in code:
        ast.parse(cell)                                    # every code cell is Python
    assert any("create_graph=True" in s for s in code) and any("retain_graph=True" in s for s in code)
    assert any("diffcompare.compare(F" in s for s in code)


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex is not installed")
def test_the_deck_compiles_with_no_overfull_box(tmp_path, one_call_timer):
    text = "log(1 + exp(x)) * tanh(x)**2 + sqrt(1 + x**2) / (1 + sin(x)**2) - atan(x)*cosh(x)/3 + softplus(y)*x"
    lec = lecture(text, at={"x": 0.7, "y": -1.25}, ns=(1,), sizes=(1, 2))
    (tmp_path / "deck.tex").write_text(deck(lec))
    run = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "deck.tex"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)
    log = (tmp_path / "deck.log").read_text(errors="replace")
    assert run.returncode == 0, log[-2000:]
    assert "Overfull" not in log, [line for line in log.splitlines() if "Overfull" in line]
    pages = int(log.rsplit("Output written on deck.pdf (", 1)[1].split(" page")[0])
    assert pages >= 12                                    # title, function, graph, passes, ..., side by side


def test_the_command_writes_the_deck_and_refuses_an_unknown_extension(tmp_path, monkeypatch, capsys,
                                                                      one_call_timer):
    from diffcompare.cli.main import main
    from diffcompare.lecture import lecture as module

    monkeypatch.setattr(module, "COST_SIZES", (1, 2))       # the same story, timed on fewer sizes
    monkeypatch.setattr(module, "SWELL_NS", (1,))
    assert main(["lecture", "x**3", "--at", "x=2", "--output", str(tmp_path / "l.pdf")]) == 2
    err = capsys.readouterr().err
    assert ".tex" in err and "Traceback" not in err and not (tmp_path / "l.pdf").exists()
    assert main(["lecture", "x**3", "--at", "x=2", "--output", str(tmp_path / "l.tex")]) == 0
    text = (tmp_path / "l.tex").read_text()
    assert text.startswith("% diffcompare lecture") and r"\end{document}" in text
    assert "$12$" in text                                 # f'(2) = 3·2² = 12, on the gradient slide
    assert main(["lecture", "x**3", "--at", "x=2", "--output", str(tmp_path / "l.ipynb")]) == 0
    assert json.loads((tmp_path / "l.ipynb").read_text())["nbformat"] == 4
