"""The audit shows a wrong value and the exact one to the digits that tell them apart: a
gradient wrong in the 8th significant digit must not read "0.330464, exact 0.330464"."""

from __future__ import annotations

import re

import numpy as np

from diffcompare import audit
from diffcompare.auditing.results import apart

N = 300         # more inputs than are checked entry by entry: the audit narrows a wrong direction down
WRONG_BY = 3e-8


def _significant(text):
    return len(text.lstrip("-").replace(".", "").lstrip("0").split("e")[0])


def test_apart_shows_the_first_differing_digit():
    a, b = 0.330464123, 0.330464123 * (1 + WRONG_BY)
    shown = apart(a, b)
    assert shown[0] != shown[1]
    assert all(_significant(s) >= 8 for s in shown)
    assert apart(0.25, 0.5) == ["0.25", "0.5"]                      # no more digits than needed


def test_a_gradient_wrong_in_the_8th_digit_is_shown_apart_from_the_exact_one():
    def grad(x):
        g = 2.0 * x
        g[7] *= 1 + WRONG_BY            # the exact gradient of Σx² is 2x; entry 7 is wrong in the 8th digit
        return g
    x = np.linspace(0.2, 0.9, N)
    report = audit(lambda x: np.sum(x * x), gradient=grad, at={"x": x}, adversarial=False, points=0)
    case = report.cases[0]
    assert case.status == "fail"
    text = " ".join(report.render("text", width=200).split())
    narrowed = re.findall(r"∂\(uᵀf\)/∂x\[7\]: gradient grad (-?[0-9.e+-]+), exact (-?[0-9.e+-]+)", text)
    assert narrowed, text
    for judged, exact in narrowed:
        assert judged != exact
        assert _significant(judged) >= 8 and _significant(exact) >= 8
        # the exact entry by hand: d(Σx²)/dx_7 along u is u·2x_7, and the wrong one is (1 + WRONG_BY) times it
        assert abs(float(judged) / float(exact) - (1 + WRONG_BY)) < 2 * 0.5e-8 / 0.4      # 8 digits of ~0.4
