"""compare's tables show each method's band (the expected accuracy its verdict used) and
its step h, in text, Markdown and LaTeX; narrow terminals leave them out before the
essentials; JSON has them always."""

import json
import math

import numpy as np
import pytest

import diffcompare
from diffcompare.render.compare import SUMMARY_DROP_ORDER


@pytest.fixture(scope="module")
def one_point():
    return diffcompare.compare("sin(x)", at={"x": 1.0}, methods="autograd,forward,central,complex-step", repeat=1)


def _row(markdown, method):
    lines = [line for line in markdown.splitlines() if line.startswith("| ")]
    headers = [h.strip() for h in lines[0].strip("|").split("|")]
    row = next(line for line in lines if line.startswith(f"| {method} "))
    return dict(zip(headers, (cell.strip() for cell in row.strip("|").split("|"))))


def test_band_and_step_at_one_point(one_point):
    markdown = one_point.render("markdown")
    data = json.loads(one_point.render("json"))
    eps = 2.0 ** -52
    # the steps by hand: a power of two near eps^(1/2) and eps^(1/3) (times max(1, |x|)), and 1e-20
    expected_steps = {"forward": 2.0 ** round(math.log2(math.sqrt(eps))),
                      "central": 2.0 ** round(math.log2(eps ** (1 / 3))), "complex-step": 1e-20}
    for method in ("autograd", "forward", "central", "complex-step"):
        row = _row(markdown, method)
        band = next(m for m in data["methods"] if m["name"] == method)["entries"]["∂f/∂x"]["tolerance"]
        assert row["band"] == f"{band:.2e}"
        assert row["step h"] == (f"{expected_steps[method]:.1e}" if method in expected_steps else "—")
        assert float(row["abs error"]) <= float(row["band"])          # each passed within its band
    latex = one_point.render("latex")
    assert "band" in latex and "step h" in latex


def test_band_at_the_worst_entry_and_step_range_at_many_points():
    c = diffcompare.compare("sin(x)*y", box="x=-1:3,y=0:2", points=12, methods="autograd,central", repeat=1)
    markdown = c.render("markdown")
    central = c.method("central")
    row = _row(markdown, "central")
    rows = np.flatnonzero(c.reference.indices == central.worst["point"])
    k = c.task.entry_labels().index(central.worst["entry"])
    assert row["band"] == f"{central.tolerance[rows[0], k]:.2e}"
    steps = np.asarray(central.estimate.details["steps"])
    assert row["step h"] == f"{steps.min():.1e}–{steps.max():.1e}" and steps.min() < steps.max()


def test_the_new_columns_drop_before_the_essentials(one_point):
    order = list(SUMMARY_DROP_ORDER)
    for essential in ("abs error", "rel error", "max rel error", "digits", "time"):
        assert order.index("band") < order.index(essential) and order.index("step h") < order.index(essential)
    text = one_point.render("text", width=80)
    header = next(line for line in text.splitlines() if line.startswith("method"))
    note = " ".join(text.split("not shown at 80 columns:")[1].split("(")[0].split())
    assert "rel error" in header and "verdict" in header and "band" not in header and "step h" not in header
    assert "band" in note and "step h" in note
    wide = one_point.render("text", width=200)
    assert "band" in wide and "step h" in wide
