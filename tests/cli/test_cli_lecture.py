"""End to end: `diffcompare explain`, `graph`, `steps` and `swell` — output structure,
exit codes, files written, and one-line errors without tracebacks."""

import json
import math
import subprocess
import sys

import pytest
from cli_runner import in_process as run


def test_explain_text_shows_tree_walk_and_gradient(tmp_path):
    result = run("explain", "sin(x)*x", "--at", "x=2", "--check", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    for piece in ("MulBackward0  x*sin(x)", "AccumulateGrad  x = 2  (leaf, requires_grad)",
                  "∂/∂a sin(a) = cos(a)", "(from 1) +", "x*cos(x) + sin(x)", "every node's backward rule agrees"):
        assert piece in out, piece


def test_explain_json_vjp(tmp_path):
    result = run("explain", "[x*y, sin(x)*z, exp(y)]", "--at", "x=1,y=2,z=3", "--vjp", "0.1,1.0,0.0001",
                 "--format", "json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["seed"] == [0.1, 1.0, 0.0001] and len(data["steps"]) == 8
    assert data["gradient"]["x"] == pytest.approx(0.2 + 3 * math.cos(1), rel=1e-15)


def test_explain_markdown_and_latex_to_files(tmp_path):
    for form, marker in (("markdown", "| step | node |"), ("latex", r"\begin{tabular}")):
        path = tmp_path / f"walk.{form}"
        result = run("explain", "-x**2", "--at", "x=3", "--format", form, "--output", str(path), cwd=tmp_path)
        assert result.returncode == 0, result.stderr
        assert marker in path.read_text(encoding="utf-8")


def test_graph_dot_text_and_drawings(tmp_path):
    dot = run("graph", "x*y + sin(x)", "--at", "x=1,y=2", cwd=tmp_path)
    assert dot.returncode == 0 and dot.stdout.startswith("digraph backward {")
    assert dot.stdout.count(" -> ") == 5
    text = run("graph", "x*y + sin(x)", "--at", "x=1,y=2", "--output", str(tmp_path / "g.txt"), cwd=tmp_path)
    assert text.returncode == 0 and "AddBackward0" in (tmp_path / "g.txt").read_text(encoding="utf-8")
    png = run("graph", "x*y + sin(x)", "--at", "x=1,y=2", "--output", str(tmp_path / "g.png"), cwd=tmp_path)
    if png.returncode == 0:                      # graphviz and its dot program are installed
        assert (tmp_path / "g.png").read_bytes()[:4] == b"\x89PNG"
    else:                                        # the fallback: the graph as text and why
        assert png.returncode == 2 and "AddBackward0" in png.stdout and "cannot draw PNG" in png.stderr
        assert "Traceback" not in png.stderr


def test_steps_text_json_and_plot(tmp_path):
    result = run("steps", "exp(x)/sqrt(sin(x)**3 + cos(x)**3)", "--at", "x=1.5", "--format", "json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert {(c["scheme"], c["dtype"]) for c in data["curves"]} == {
        (s, d) for s in ("forward", "central", "five-point", "complex-step") for d in ("float64", "float32")}
    text = run("steps", "sin(x)", "--at", "x=1", cwd=tmp_path)
    assert text.returncode == 0 and "log10 h (h grows to the right)" in text.stdout
    plot = run("steps", "sin(x)", "--at", "x=1", "--plot", str(tmp_path / "s.png"), "--format", "json", cwd=tmp_path)
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        assert plot.returncode == 2 and "matplotlib" in plot.stderr
    else:
        assert plot.returncode == 0 and (tmp_path / "s.png").read_bytes()[:4] == b"\x89PNG"


def test_swell_table(tmp_path):
    result = run("swell", "logistic", "--n", "1..5", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    text = " ".join(result.stdout.split())      # the growth line wraps at the pipe's 80 columns
    assert "raw derivative" in text and "the engine's graph ×" in text and "symbolic reverse" in text
    assert "symbolic reverse mode's gradient ×8, f's own program ×5" in text
    data = json.loads(run("swell", "nested-sin", "--n", "1,2,4", "--format", "json", cwd=tmp_path).stdout)
    assert [row["graph_nodes"] for row in data["rows"]] == [2, 3, 5]
    assert [row["symbolic_reverse"]["size"] for row in data["rows"]] == [1, 4, 10]


def test_swell_symbolic_backend(tmp_path):
    pytest.importorskip("symengine")
    result = run("swell", "nested-sin", "--n", "1..3", "--symbolic-backend", "symengine", "--format", "json",
                 cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["symbolic_backend"] == "symengine"
    assert all(row["symengine"]["status"] == "ok" for row in data["rows"])


def test_swell_symbolic_backend_not_installed(tmp_path):
    # symengine hidden from the import system: the command says how to install it, in one line
    code = ("import sys; sys.modules['symengine'] = None; from diffcompare.cli.main import main; "
            "sys.exit(main(['swell', 'logistic', '--n', '1..2', '--symbolic-backend', 'symengine']))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines() == [
        'diffcompare swell: error: --symbolic-backend symengine needs SymEngine, which is not installed: '
        'pip install "symengine>=0.11" (or, in the diffcompare checkout, pip install -e ".[symengine]")']


@pytest.mark.parametrize("args, message", [
    (("explain", "[x, y]", "--at", "x=1,y=2"), "implicitly created only for scalar outputs"),
    (("explain", "sin(x", "--at", "x=1"), "in EXPR"),
    (("explain", "x*y", "--at", "x=1"), "'y' has no value"),
    (("graph", "x*y", "--at", "x=1,y=2", "--output", "g.pdf"), "cannot tell the format"),
    (("steps", "x*y", "--at", "x=1,y=2"), "--var"),
    (("steps", "sin(x)", "--at", "x=1", "--h-range", "1e-3..0.5"), "0.5 is not a power of ten"),
    (("steps", "sin(x)", "--at", "x=1", "--schemes", "central,backwards"), "choose from forward"),
    (("swell", "logistc"), "did you mean 'logistic'"),
    (("swell", "logistic", "--n", "9..1"), "down to"),
    (("swell", "logistic", "--timeout", "0"), "positive"),
    (("swell", "template", "--template", "sin(y"), "in --template"),
    (("swell", "logistic", "--symbolic-backend", "maple"), "invalid choice: 'maple'"),
])
def test_bad_input_exits_2_without_traceback(tmp_path, args, message):
    result = run(*args, cwd=tmp_path)
    assert result.returncode == 2, result.stdout + result.stderr
    assert message in result.stderr and "Traceback" not in result.stderr
