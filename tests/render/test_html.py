"""The HTML reports, read back with the standard library's parser: every table has its
headers and every column the data has (none left out for width, as a terminal does),
numbers right-aligned, verdict cells classed by their verdict; the cells hold what the JSON
rendering of the same report holds; the plots are inline SVG; the page fetches nothing and
runs no script; and rendering never displays anything on the side in a notebook."""

from __future__ import annotations

import json
import math
import re
import shutil
import subprocess
from html.parser import HTMLParser

import pytest

import diffcompare
from tests.cli_runner import run


class Page(HTMLParser):
    """The tables of an HTML text (caption, headers, cells with their class and style), the
    tags met, and the attributes that could fetch something."""

    def __init__(self, text: str):
        super().__init__()
        self.tables, self.tags, self.links = [], [], []
        self._cell = None
        self._caption = False
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.append((tag, attrs))
        self.links += [v for k, v in attrs.items() if k in ("src", "href") and v]
        if tag == "table":
            self.tables.append({"caption": "", "headers": [], "rows": []})
        elif tag == "caption":
            self._caption = True
        elif tag == "tr" and self.tables:
            self.tables[-1]["rows"].append([])
        elif tag in ("th", "td"):
            self._cell = {"tag": tag, "text": "", "class": attrs.get("class", "").split(),
                          "style": attrs.get("style", "")}

    def handle_endtag(self, tag):
        if tag == "caption":
            self._caption = False
        elif tag in ("th", "td") and self._cell is not None:
            table = self.tables[-1]
            if tag == "th":
                table["headers"].append(self._cell["text"])
            else:
                table["rows"][-1].append(self._cell)
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell["text"] += data
        elif self._caption:
            self.tables[-1]["caption"] += data

    def table(self, first_header: str, containing: str | None = None) -> dict:
        found = [t for t in self.tables if t["headers"] and t["headers"][0] == first_header
                 and (containing is None or containing in t["headers"])]
        assert len(found) == 1, [t["headers"] for t in self.tables]
        table = found[0]
        table["rows"] = [r for r in table["rows"] if r]         # the header's row holds no td
        return table

    def count(self, tag: str) -> int:
        return sum(1 for t, _ in self.tags if t == tag)


def column(table, header) -> list:
    j = table["headers"].index(header)
    return [row[j] for row in table["rows"]]


NUMBER = re.compile(r"(≤ |×)?-?[\d,]*\.?\d+(e[+-]?\d+)?( ◀| [µmn]?s( ±\d+%)?)?")


def is_number(text: str) -> bool:
    """A number, as the reports print them: 1.2e-05, 12,345, 2.5 ms, 1e-08 ◀, ≤ 3.7e-08."""
    return NUMBER.fullmatch(text) is not None


def assert_numbers_right_aligned(table):
    numeric = 0
    for row in table["rows"]:
        for cell in row:
            if is_number(cell["text"]):
                numeric += 1
                assert "text-align:right" in cell["style"], (table["headers"], cell)
    assert numeric, "a table of numbers"


def markdown_headers(markdown: str, first: str) -> list:
    """The headers of the Markdown table that starts with ``first``."""
    line = next(line for line in markdown.splitlines() if line.startswith(f"| {first} |"))
    return [h.strip() for h in line.strip("|").split(" | ")]


def close(text: str, value: float, digits: int = 2) -> bool:
    """A cell printed to ``digits`` significant digits holds ``value``."""
    shown = float(text.split(" ")[0])
    return shown == value == 0 or math.isclose(shown, value, rel_tol=10 ** (1 - digits))


# -- compare ------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def gradient():
    return diffcompare.compare("x**2*y + sin(y)", at={"x": 1.5, "y": 0.5}, methods="autograd,central,complex-step",
                               repeat=1)


def test_a_gradient_at_a_point_is_a_table_of_every_partial(gradient):
    page = Page(gradient._repr_html_())
    data = json.loads(gradient.render("json"))
    table = page.table("method", "value")
    assert table["headers"] == markdown_headers(gradient.render("markdown"), "method")
    assert len(table["rows"]) == 2 * len(data["methods"])            # one row per method and partial
    values = column(table, "value")
    # by hand: ∂f/∂x = 2xy = 1.5, ∂f/∂y = x² + cos(y)
    assert float(values[0]["text"]) == 1.5 and math.isclose(float(values[1]["text"]), 2.25 + math.cos(0.5), rel_tol=1e-15)
    for k, method in enumerate(data["methods"]):
        for j, label in enumerate(data["entries"]):
            row = table["rows"][2 * k + j]
            assert float(row[table["headers"].index("value")]["text"]) == method["values"][j]
            assert close(row[table["headers"].index("rel error")]["text"], method["entries"][label]["rel_error"])
        verdict = table["rows"][2 * k][table["headers"].index("verdict")]
        assert verdict["text"] == method["verdict"] and f"verdict-{method['verdict']}" in verdict["class"]
        assert "color:" in verdict["style"]
    assert_numbers_right_aligned(table)


def test_many_points_keep_every_column_a_terminal_leaves_out():
    c = diffcompare.compare("[x*y, sin(x)*y]", kind="jacobian", points=8, box={"x": (-1, 1), "y": (0.5, 2)},
                            methods="autograd,central,forward", repeat=1)
    narrow = c.render("text", width=80)
    left_out = re.search(r"not shown at 80 columns: (.*?) \(", narrow.replace("\n", " ")).group(1).split(", ")
    assert left_out, "the terminal leaves columns out at 80"
    table = Page(c._repr_html_()).table("method", "verdict")
    assert set(left_out) <= set(table["headers"])
    assert table["headers"] == markdown_headers(c.render("markdown"), "method")
    data = json.loads(c.render("json"))
    assert [cell["text"] for cell in column(table, "method")] == [m["name"] for m in data["methods"]]
    for cell, method in zip(column(table, "max rel error"), data["methods"]):
        assert close(cell["text"], method["errors"]["max_rel"], digits=3)
    assert [cell["text"] for cell in column(table, "verdict")] == [m["verdict"] for m in data["methods"]]
    assert_numbers_right_aligned(table)


def test_the_page_is_whole_and_fetches_nothing(gradient):
    page_text = gradient.render("html")
    assert page_text.startswith("<!doctype html>") and gradient._repr_html_() in page_text
    page = Page(page_text)
    assert page.count("script") == 0 and page.links == [] and page.count("style") == 1


# -- steps, swell, the graph ----------------------------------------------------------------------------

def test_the_step_sweep_has_its_errors_and_a_plot_per_precision():
    sweep = diffcompare.step_sweep("exp(x)", {"x": 1.0})
    data = json.loads(sweep.render("json"))
    page = Page(sweep._repr_html_())
    table = page.table("h")
    curves = data["curves"]
    assert table["headers"] == ["h"] + [f"{c['scheme']} {c['dtype']}" for c in curves]
    shown = [float(cell["text"]) for cell in column(table, "h")]
    assert sorted(shown) == pytest.approx(sorted(data["steps"]), rel=1e-12)       # in the sweep's direction
    row_of = {h: min(range(len(shown)), key=lambda k: abs(shown[k] / h - 1)) for h in data["steps"]}
    for c in curves:
        cells = column(table, f"{c['scheme']} {c['dtype']}")
        for error, h in zip(c["errors"], data["steps"]):
            text = cells[row_of[h]]["text"].rstrip(" ◀×")
            assert close(text, float(error))
            assert cells[row_of[h]]["text"].rstrip(" ×").endswith("◀") == (h == c["best_h"])
    assert_numbers_right_aligned(table)
    summary = page.table("scheme")
    assert len(summary["rows"]) == len(curves)
    assert page.count("svg") == len(data["curves"]) // len({c["scheme"] for c in curves})   # one per precision
    assert page.count("polyline") >= len(curves)


def test_swell_has_its_sizes_and_two_plots():
    report = diffcompare.swell("logistic", [1, 2, 3])
    data = json.loads(report.render("json"))
    page = Page(report._repr_html_())
    table = page.table("n")
    assert [int(cell["text"]) for cell in column(table, "n")] == [row["n"] for row in data["rows"]]
    assert [int(cell["text"].replace(",", "")) for cell in column(table, "raw derivative")] == \
        [row["size_raw"] for row in data["rows"]]
    assert [int(cell["text"]) for cell in column(table, "raw derivative")] == [2, 21, 82]    # by hand: 4-8x, ...
    assert table["headers"] == markdown_headers(report.render("markdown"), "n")
    assert_numbers_right_aligned(table)
    assert page.count("svg") == 2


def test_the_graph_is_drawn_box_by_box():
    from diffcompare.render.graph import html_report
    walk = diffcompare.explain("sin(x)*exp(y) + x*y", {"x": 1.0, "y": 2.0})
    page = Page(html_report(walk))
    edges = sum(1 for step in walk.steps for e in step.edges if e.target is not None)
    assert page.count("svg") == 1
    assert sorted(int(a["data-step"]) for t, a in page.tags if "data-step" in a) == [s.number for s in walk.steps]
    assert sum(1 for t, a in page.tags if "data-from" in a and t != "text") == edges         # one arrow per edge
    leaves = [a for t, a in page.tags if "data-step" in a and "leaf" in a.get("class", "").split()]
    assert len(leaves) == 2                                                                   # x and y


def test_an_svg_plot_by_hand():
    from diffcompare.render.plots import svg_line_plot
    svg = svg_line_plot([1e-1, 1e-2, 1e-3], [("central", [1e-2, 1e-4, 0.0])], "h", "error", log_x=True,
                        reverse_x=True, floor=1e-18)
    page = Page(svg)
    line = next(a for t, a in page.tags if t == "polyline")
    (x1, y1), (x2, y2) = [tuple(map(float, p.split(","))) for p in line["points"].split()]
    assert x2 > x1 and y2 > y1            # h shrinks to the right; a smaller error is lower
    hollow = [a for t, a in page.tags if t == "circle" and a.get("fill") == "white"]
    assert len(hollow) == 1 and float(hollow[0]["cy"]) > y2        # the exact 0, on the floor under 1e-4
    assert "0, drawn at 1e-18" in svg


# -- the audit ----------------------------------------------------------------------------------------------

def test_the_audit_table_and_its_verdicts():
    report = diffcompare.audit("x**2", domain={"x": (-1, 1)}, random=3, grad=lambda x: 3 * x, name="wrong 3x")
    data = json.loads(report.render("json"))
    table = Page(report._repr_html_()).table("case")
    assert [c["text"] for c in column(table, "case")] == [c["name"] for c in data["cases"]]
    verdicts = column(table, "verdict")
    assert [v["text"] for v in verdicts] == [c["status"] for c in data["cases"]] == ["fail"]
    assert "verdict-fail" in verdicts[0]["class"] and "color:" in verdicts[0]["style"]
    assert [int(c["text"]) for c in column(table, "points")] == [len(c["points"]) for c in data["cases"]]
    assert_numbers_right_aligned(table)


def test_audit_writes_an_html_report(tmp_path, capsys):
    suite = tmp_path / "suite.toml"
    suite.write_text('[[case]]\nname = "square"\nexpression = "x**2"\ndomain = { x = [-1, 1] }\nrandom = 2\n')
    code, out = run(["audit", str(suite), "--no-adversarial", "--report", str(tmp_path / "a.html"),
                     "--report", str(tmp_path / "a.json")], capsys)
    assert code == 0, out.err
    data = json.loads((tmp_path / "a.json").read_text())
    text = (tmp_path / "a.html").read_text()
    assert text.startswith("<!doctype html>")
    table = Page(text).table("case")
    assert [c["text"] for c in column(table, "verdict")] == [c["status"] for c in data["cases"]] == ["pass"]


# -- the command line and notebooks --------------------------------------------------------------------------

def test_format_html_and_output_html_write_the_same_page(tmp_path, capsys):
    argv = ["steps", "exp(x)", "--at", "x=1"]
    code, out = run(argv + ["--format", "html"], capsys)
    assert code == 0
    code, _ = run(argv + ["--output", str(tmp_path / "s.html")], capsys)
    assert code == 0 and (tmp_path / "s.html").read_text() == out.out and out.out.startswith("<!doctype html>")


def test_rendering_displays_nothing_in_a_notebook(gradient, monkeypatch, capsys):
    """rich, finding itself in Jupyter, would display what is printed to a string; every
    console rendering uses is told it is not in a notebook."""
    import rich.console
    import rich.jupyter
    shown = []
    monkeypatch.setattr(rich.console, "_is_jupyter", lambda: True)
    monkeypatch.setattr(rich.jupyter, "display", lambda *a, **k: shown.append(a))
    sweep = diffcompare.step_sweep("exp(x)", {"x": 1.0})
    for report in (gradient, sweep):
        for format in ("text", "html", "markdown", "json"):
            assert report.render(format)
        assert report._repr_html_()
    from diffcompare.render import terminal
    assert not terminal.console().is_jupyter
    assert shown == [] and capsys.readouterr().out == ""


def test_a_page_looks_right_in_a_browser(tmp_path):
    """The steps page drawn by headless Chromium: the picture is not blank (seen by eye once)."""
    browser = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if browser is None:
        pytest.skip("no Chromium to draw the page")
    page = tmp_path / "steps.html"
    page.write_text(diffcompare.step_sweep("exp(x)", {"x": 1.0}).render("html"), encoding="utf-8")
    picture = tmp_path / "steps.png"
    subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", f"--screenshot={picture}",
                    "--window-size=1200,900", page.as_uri()], capture_output=True, timeout=60)
    data = picture.read_bytes()
    assert data.startswith(b"\x89PNG") and len(data) > 20_000        # a blank page is a few kB
