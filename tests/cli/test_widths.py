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


def _check(text, width):
    lines = text.split("\n")
    assert len(lines) > 3
    too_long = [line for line in lines if cell_len(line) > width]
    assert not too_long, f"{len(too_long)} lines wider than {width}: {too_long[:3]}"
    assert not [line for line in lines if line != line.rstrip()], "trailing spaces"
    assert not ANSI.search(text), "colour codes in a pipe"
    assert not re.search(r"\w…", text), "a cell was cut"


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_text_fits_the_width(name, reports):
    code, printed, report = reports[name]
    assert code in (0, 1, 4)
    _check(printed, 80)                                 # what the command printed in a pipe
    for width in (60, 80, 120, 200):
        if report is not None:                          # functions and graph print no report
            _check(report.render("text", width=width), width)


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


def test_a_narrow_pipe_names_the_columns_left_out(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "60")
    code, out = run(COMMANDS["compare gradient"], capsys)
    assert "not shown at 60 columns: setup" in " ".join(out.out.split())
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
