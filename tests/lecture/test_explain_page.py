"""explain's web page, read without a browser: the step data embedded as JSON agree with
the walk derived by hand, the drawing has a node per step and an arrow per gradient
sent, the full table is there for a reader without JavaScript, and nothing is fetched
from the network. tests/lecture/test_explain_page_browser.py steps through it in Chromium."""

import json
import math
import re
from html.parser import HTMLParser

import numpy as np
import pytest
from cli_runner import in_process as run

import diffcompare
from custom_ops import WrongCube
from diffcompare.functions import sin
from diffcompare.render.explain import html_fragment, html_report
from diffcompare.render.page import data_script


class Page(HTMLParser):
    """Every element's tag and attributes, the text of each script, and the text inside
    the elements of chosen classes."""

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.elements, self.scripts, self.stack = [], [], []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        self.elements.append((tag, attributes))
        self.stack.append([tag, attributes, []])

    def handle_startendtag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))

    def handle_data(self, data):
        for entry in self.stack:
            entry[2].append(data)

    def handle_endtag(self, tag):
        while self.stack:
            open_tag, attributes, text = self.stack.pop()
            if open_tag == "script":
                self.scripts.append((attributes, "".join(text)))
            if open_tag == tag:
                break

    def with_class(self, name):
        return [(tag, a) for tag, a in self.elements if name in a.get("class", "").split()]


def _data(text):
    parsed = Page(text)
    found = [body for attributes, body in parsed.scripts if attributes.get("type") == "application/json"]
    assert len(found) == 1

    def refuse(constant):                    # JSON.parse in the browser refuses NaN and Infinity
        raise AssertionError(f"{constant} in the page's JSON")
    return json.loads(found[0], parse_constant=refuse), parsed


def test_the_step_data_are_the_walk_of_sin_x_times_x_by_hand():
    e = diffcompare.explain("sin(x)*x", at={"x": 2.0})
    data, parsed = _data(html_report(e))
    steps = data["steps"]
    assert [s["node"] for s in steps] == ["MulBackward0", "SinBackward0", "AccumulateGrad"]
    # d(a·b): the product sends b = sin x to x and a = x to sin; sin sends 2·cos 2 to x
    assert steps[0]["adjoint"] == 1.0
    assert steps[1]["adjoint"] == 2.0 and steps[1]["received"][0]["from"] == 1
    assert steps[1]["sends"][0]["to"] == 3 and steps[1]["sends"][0]["value"] == pytest.approx(2 * math.cos(2), rel=1e-15)
    received = {r["from"]: r["value"] for r in steps[2]["received"]}
    assert received == pytest.approx({1: math.sin(2), 2: 2 * math.cos(2)}, rel=1e-15)
    assert steps[2]["adjoint"] == pytest.approx(math.sin(2) + 2 * math.cos(2), rel=1e-15)
    # the texts the script shows are the numbers, formatted (6 digits)
    assert steps[2]["received"][0]["text"] == f"{math.sin(2):.6g} (from 1)"
    assert steps[1]["grad_box"] == "grad 2"


def test_the_drawing_has_a_node_per_step_and_an_arrow_per_gradient_sent():
    e = diffcompare.explain("sin(x)*x", at={"x": 2.0})
    parsed = Page(html_report(e))
    nodes = parsed.with_class("node")
    assert sorted(int(a["data-step"]) for _, a in nodes) == [1, 2, 3]
    edges = sorted((int(a["data-from"]), int(a["data-to"])) for _, a in parsed.with_class("edge"))
    assert edges == [(1, 2), (1, 3), (2, 3)]            # the product sends to sin and to x; sin to x
    leaves = [a for _, a in nodes if "leaf" in a["class"].split()]
    assert [a["data-step"] for a in leaves] == ["3"]


def test_without_javascript_the_whole_walk_is_there():
    e = diffcompare.explain("sin(x)*x", at={"x": 2.0})
    text = html_report(e)
    parsed = Page(text)
    rows = [a for tag, a in parsed.elements if tag == "tr" and "data-step" in a]
    assert [a["data-step"] for a in rows] == ["1", "2", "3"]
    # every row's adjoint is written in the table itself (the script only hides what is not reached yet)
    full = re.findall(r'<span class="full">([^<]*)</span>', text)
    assert f"{math.sin(2):.6g} (from 1) + {2 * math.cos(2):.6g} (from 2) = {math.sin(2) + 2 * math.cos(2):.6g}" in full
    assert len(parsed.with_class("card")) == 3 and parsed.with_class("nojs-note")
    assert text.startswith("<!DOCTYPE html>") and "<title>the backward pass of sin(x)*x</title>" in text


def test_nothing_is_fetched_from_the_network():
    e = diffcompare.explain("sum(sin(A)*A) + sum(A @ x)", at={"A": [[1.0, 2.0], [3.0, 4.0]], "x": [0.5, -1.0]})
    for text in (html_report(e), html_fragment(e)):
        parsed = Page(text)
        for tag, attributes in parsed.elements:
            assert tag not in ("link", "iframe", "img", "object", "embed")
            for name in ("src", "href", "xlink:href", "action", "data"):
                assert not re.match(r"\s*(https?:)?//", attributes.get(name) or ""), (tag, name)
            assert "src" not in attributes                       # every script is inline
        assert "http://" not in text and "https://" not in text and "@import" not in text


def test_matrices_and_vectors_show_their_shapes_and_the_gradient_by_hand():
    A, x = np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([0.5, -1.0])
    e = diffcompare.explain("sum(sin(A)*A) + sum(A @ x)", at={"A": A.tolist(), "x": x.tolist()})
    data, parsed = _data(html_report(e))
    leaves = {s["computes"]: s for s in data["steps"] if s["leaf"]}
    # ∂/∂A_ij: sin A_ij + A_ij cos A_ij + x_j; ∂/∂x_j: the column sums of A
    assert leaves["A"]["shape"] == [2, 2] and leaves["x"]["shape"] == [2]
    assert np.allclose(leaves["A"]["adjoint"], np.sin(A) + A * np.cos(A) + x[None, :], rtol=1e-14, atol=0)
    assert np.allclose(leaves["x"]["adjoint"], A.sum(axis=0), rtol=1e-15, atol=0)
    text = html_report(e)
    assert "shape 2×2" in text and "(shape 2×2)" in text        # in the node's box and on its card


def test_the_wrong_rule_is_red_on_the_page_and_said():
    e = diffcompare.explain(lambda x: sin(WrongCube.apply(x)), at={"x": 0.5}, check=True)
    data, parsed = _data(html_report(e))
    wrong = [a for _, a in parsed.with_class("node") if "wrong" in a["class"].split()]
    assert [a["data-step"] for a in wrong] == [str(data["first_wrong"])]
    assert data["steps"][data["first_wrong"] - 1]["node"] == "WrongCubeBackward"
    assert parsed.with_class("summary") and "wrong" in parsed.with_class("summary")[0][1]["class"]


def test_non_finite_numbers_and_markup_in_the_data_cannot_break_the_page():
    e = diffcompare.explain("sqrt(x)", at={"x": 0.0})       # d√x/dx at 0: inf
    data, _ = _data(html_report(e))
    assert data["steps"][-1]["adjoint"] == "inf"
    script = data_script({"label": "</script><script>alert(1)</script>", "value": float("nan")})
    assert script.count("</script>") == 1 and "<script>alert" not in script
    body = script.removeprefix('<script type="application/json" class="dc-data">').removesuffix("</script>")
    assert json.loads(body) == {"label": "</script><script>alert(1)</script>", "value": "nan"}


def test_a_fragment_for_the_notebook_and_unique_ids():
    e = diffcompare.explain("x**2", at={"x": 3.0})
    one, two = html_fragment(e), html_fragment(e)
    ids = [re.search(r'class="dc-walk" id="([^"]+)"', t).group(1) for t in (one, two)]
    assert ids[0] != ids[1] and "<html" not in one and one.startswith("<style>")
    assert e._repr_html_().startswith("<style>")


def test_the_command_writes_the_page(tmp_path):
    path = tmp_path / "walk.html"
    result = run("explain", "sin(x)*x", "--at", "x=2", "--output", str(path), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    data, _ = _data(path.read_text(encoding="utf-8"))
    assert len(data["steps"]) == 3
    piped = run("explain", "sin(x)*x", "--at", "x=2", "--format", "html", cwd=tmp_path)
    assert piped.returncode == 0 and piped.stdout.startswith("<!DOCTYPE html>")


def test_the_drawing_is_laid_out_in_layers_without_overlaps():
    # x and y each feed several nodes at different depths: arrows that skip layers
    e = diffcompare.explain("exp(x)/sqrt(sin(x)**3 + cos(x*y)**3) + y", at={"x": 1.5, "y": 0.5})
    text = html_report(e)
    boxes = {int(m.group(1)): tuple(float(v) for v in m.group(2, 3, 4, 5))
             for m in re.finditer(r'<g class="node[^"]*" id="[^"]*-n(\d+)"[^>]*>(?:<title>[^<]*</title>)?'
                                  r'<rect x="([\d.-]+)" y="([\d.-]+)" width="([\d.-]+)" height="([\d.-]+)"', text)}
    assert sorted(boxes) == list(range(1, len(e.steps) + 1))
    for a, (ax, ay, aw, ah) in boxes.items():
        for b, (bx, by, bw, bh) in boxes.items():
            if a < b:
                assert ax + aw <= bx or bx + bw <= ax or ay + ah <= by or by + bh <= ay, (a, b)
    for step in e.steps:                  # every gradient flows down: an input is drawn below its consumer
        for target in step.inputs:
            assert boxes[target][1] > boxes[step.number][1] + boxes[step.number][3]


def test_a_long_function_is_shortened_in_the_title_and_said_whole():
    label = " + ".join(f"sin({k}*x)" for k in range(1, 30))
    text = html_report(diffcompare.explain(label, at={"x": 0.3}))
    title = re.search(r"<title>([^<]*)</title>", text).group(1)
    assert len(title) < 100 and title.endswith("…") and f"f = {label}" in text
