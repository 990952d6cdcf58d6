"""Every command's text report in a pipe: as wide as COLUMNS (80 when unset), no line
longer, no trailing spaces, no colour codes; numbers and names whole (a column that does
not fit is left out, with a note)."""

from __future__ import annotations

import contextlib
import io
import re

import pytest
from cli_runner import run
from rich.cells import cell_len

SUITE = "tests/golden/suites/wrong.toml"
COMMANDS = {
    "compare gradient": ["compare", "sin(x)*exp(y) + log1p(x*y)", "--at", "x=1,y=2", "--repeat", "1"],
    "compare jacobian": ["compare", "[x*y, sin(x)*z, exp(y), x+y+z]", "--at", "x=1,y=2,z=3", "--repeat", "1"],
    "compare hessian": ["compare", "sum(100*(x[1:]-x[:-1]**2)**2 + (1-x[:-1])**2)", "--at", "x=[1.2,1.2,1.2]",
                        "--order", "2", "--repeat", "1"],
    "compare points": ["compare", "sin(x)*exp(y)", "--box", "x=-2:2,y=0.1:3", "--points", "50", "--repeat", "1"],
    "explain": ["explain", "tanh(x*w + b)*x", "--at", "x=0.5,w=-1.25,b=0.1", "--check"],
    "steps": ["steps", "exp(x)/sqrt(sin(x)**3 + cos(x)**3)", "--at", "x=1.5"],
    "audit": ["audit", SUITE, "--points", "3"],
    "functions": ["functions"],
    "swell": ["swell", "logistic", "--n", "1..4", "--expressions", "3"],
    "graph": ["graph", "tanh(x*w + b)*x", "--at", "x=0.5,w=-1.25,b=0.1", "--format", "text"],
}
ANSI = re.compile("\x1b\\[")


@pytest.fixture(scope="module")
def reports():
    """Each command's report, built once by the command line (in a pipe, 80 columns), and
    what it printed there; the other widths render the same report again."""
    from diffcompare.cli import main as cli
    built = {}
    original = cli._show

    def keep(report, args, command):
        built["report"] = report
        return original(report, args, command)
    out = {}
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(cli, "_show", keep)
        patch.setenv("COLUMNS", "80")
        for name, argv in COMMANDS.items():
            built.clear()
            buffer = io.StringIO()
            with contextlib.redirect_stdout(buffer), contextlib.redirect_stderr(io.StringIO()):
                code = cli.main(argv)
            out[name] = (code, buffer.getvalue(), built.get("report"))
    return out


@pytest.fixture(scope="module")
def text_at():
    """``text_at(report, width)``: ``report.render("text", width=width)``, rendered once for
    the tests that read the same report at the same width."""
    rendered = {}

    def text(report, width):
        if (id(report), width) not in rendered:
            rendered[id(report), width] = (report, report.render("text", width=width))
        return rendered[id(report), width][1]
    return text


def _check(text, width):
    lines = text.split("\n")
    assert len(lines) > 3
    too_long = [line for line in lines if cell_len(line) > width]
    assert not too_long, f"{len(too_long)} lines wider than {width}: {too_long[:3]}"
    assert not [line for line in lines if line != line.rstrip()], "trailing spaces"
    assert not ANSI.search(text), "colour codes in a pipe"
    assert not re.search(r"\w…", text), "a cell was cut"


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_text_fits_the_width(name, reports, text_at):
    code, printed, report = reports[name]
    assert code in (0, 1, 4)
    _check(printed, 80)                                 # what the command printed in a pipe
    for width in (60, 80, 120, 200):
        if report is not None:                          # functions and graph print no report
            _check(text_at(report, width), width)


@pytest.mark.parametrize("width", [60, 120, 200])
@pytest.mark.parametrize("name", ["functions", "graph"])
def test_text_without_a_report_fits_the_width(name, width, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", str(width))
    code, out = run(COMMANDS[name], capsys)
    assert code == 0
    _check(out.out, width)


def test_unset_columns_means_80(capsys, monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)
    code, out = run(COMMANDS["compare gradient"], capsys)
    assert max(cell_len(line) for line in out.out.split("\n")) <= 80


def test_a_narrow_pipe_moves_columns_to_a_second_table(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "60")
    code, out = run(COMMANDS["compare gradient"], capsys)
    headers = [line.split() for line in out.out.splitlines() if line.startswith("method ")]
    assert len(headers) >= 2 and any("setup" in h for h in headers[1:]) and "verdict" in headers[0]
    monkeypatch.setenv("COLUMNS", "200")
    code, out = run(COMMANDS["compare gradient"], capsys)
    assert "not shown" not in out.out and "ULP" in out.out


@pytest.mark.parametrize("name", ["compare gradient", "compare jacobian", "compare points", "explain", "steps"])
def test_latex_tables_fit_a_slide(name, capsys):
    from diffcompare.render.common import LATEX_COLUMNS
    code, out = run(COMMANDS[name] + ["--format", "latex"], capsys)
    assert "\\usepackage{booktabs}" in out.out                    # what the fragment needs is said
    specs = re.findall(r"\\begin\{tabular\}\{((?:[lrc]|>\{[^{}]*\}p\{[^{}]*\})+)\}", out.out)
    columns = [len(re.sub(r">\{[^{}]*\}|\{[^{}]*\}", "", spec)) for spec in specs]    # p{} columns wrap prose
    assert specs and all(n <= LATEX_COLUMNS for n in columns), specs


MATRIX_VARIABLE = ["compare", "sum(A*A)", "--at", "A=[[1,2],[3,4]]", "--repeat", "1"]


@pytest.fixture(scope="module")
def matrix_variable():
    """The report on f of a matrix variable, from Python, once for every width."""
    import diffcompare
    return diffcompare.compare("sum(A*A)", at={"A": [[1.0, 2.0], [3.0, 4.0]]}, repeat=1)


@pytest.mark.parametrize("width", [60, 80, 120])
@pytest.mark.parametrize("name", ["compare gradient", "compare jacobian", "compare hessian", "compare points",
                                  "matrix variable"])
def test_no_essential_column_is_left_out(name, width, reports, matrix_variable, text_at):
    """At any width every method keeps its name, its verdict and its time: columns that do
    not fit move to a second table beside the method's name, they are not left out."""
    report = matrix_variable if name == "matrix variable" else reports[name][2]
    text = text_at(report, width)
    _check(text, width)
    dropped = re.search(r"not shown at \d+ columns: ([^(]*)", " ".join(text.split()))
    left_out = {c.strip() for c in dropped.group(1).split(",")} if dropped else set()
    assert not left_out & {"time", "time (all points)", "verdict", "max rel error", "rel error", "worst entry"}, left_out
    for m in report.methods:
        lines = [line for line in text.splitlines() if line.split()[:1] == [m.name]]
        assert lines, f"{m.name} is not in the table at {width} columns"
        assert any(line.rstrip().endswith(m.verdict) for line in lines), f"{m.name}'s verdict at {width}"


def test_a_hessian_is_shown_as_a_matrix(reports, text_at):
    """The Hessian of Rosenbrock at x = (1.2, 1.2, 1.2) as a 3 × 3 matrix: its rows, by hand,
    are [1250, -480, 0], [-480, 1450, -480], [0, -480, 200] (f = Σ 100(x_{i+1} - x_i²)² + (1 - x_i)²)."""
    text = text_at(reports["compare hessian"][2], 120)
    rows = {}
    for line in text.splitlines():
        cells = line.split()
        if cells[:1] in (["x[0]"], ["x[1]"], ["x[2]"]) and len(cells) == 4 and cells[0] not in rows:
            rows[cells[0]] = [float(c) for c in cells[1:]]
    assert rows == {"x[0]": [1250.0, -480.0, 0.0], "x[1]": [-480.0, 1450.0, -480.0], "x[2]": [0.0, -480.0, 200.0]}
