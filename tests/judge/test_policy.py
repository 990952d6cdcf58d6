"""The one verdict policy, on hand-built errors and bands, and its causes as the reports
carry them (JSON ``judgement``), in compare and in the audit."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import diffcompare
from diffcompare.judge.policy import decide
from diffcompare.judge.verdicts import CAUSES, Verdict
from diffcompare.render.verdicts import reason

LABELS = ["a", "b", "c"]


def judge(errors, tolerance, exact, values=None, **kw):
    values = exact if values is None else values
    return decide(np.array([errors]), np.array([tolerance]), np.array([exact]), np.array([values]), LABELS, **kw)


def test_the_worst_entry_is_the_one_furthest_outside_its_band():
    # b is 10x outside its band, c 1000x: c is named, with its numbers
    v = judge([0.0, 1e-11, 1e-9], [1e-12, 1e-12, 1e-12], [1.0, 2.0, 3.0])
    assert (v.outcome, v.cause, v.numbers["entry"], v.numbers["outside"]) == ("fail", "outside", "c", 2)
    assert v.numbers["error"] == 1e-9 and v.numbers["tolerance"] == 1e-12


def test_nan_or_inf_where_the_reference_is_finite_fails():
    v = judge([math.inf, 0.0, 0.0], [1e-12, 1e-12, 1e-12], [1.0, 2.0, 3.0], values=[math.nan, 2.0, 3.0])
    assert (v.outcome, v.cause) == ("fail", "non-finite")


def test_a_band_as_wide_as_the_value_is_inconclusive_never_a_pass():
    # the error is tiny, but a value of the other sign would pass too
    v = judge([1e-20, 0.0, 0.0], [0.5, 1e-12, 1e-12], [0.25, 2.0, 3.0])
    assert (v.outcome, v.cause, v.numbers["entry"]) == ("inconclusive", "wide-band", "a")
    v = judge([0.0, 0.0, 0.0], [math.inf, 1e-12, 1e-12], [0.25, 2.0, 3.0])
    assert v.outcome == "inconclusive"
    # an exact zero with a finite band is decidable: 0 has no sign to lose
    assert judge([1e-17, 0.0, 0.0], [1e-15, 1e-12, 1e-12], [0.0, 2.0, 3.0]).outcome == "pass"


def test_entries_without_a_band():
    assert judge([0.0] * 3, [math.nan] * 3, [1.0, 2.0, 3.0]).cause == "no-band"
    assert judge([0.0] * 3, [math.nan] * 3, [1.0, 2.0, 3.0]).outcome == "not judged"
    v = judge([0.0] * 3, [math.nan, 1e-12, 1e-12], [1.0, 2.0, 3.0])
    assert (v.outcome, v.cause, v.numbers["no_band"]) == ("inconclusive", "no-band", 1)


def test_a_pass_that_skipped_points_is_incomplete():
    v = judge([0.0] * 3, [1e-12] * 3, [1.0, 2.0, 3.0], skipped=2)
    assert (v.outcome, v.incomplete) == ("pass", True)
    assert not judge([0.0] * 3, [1e-12] * 3, [1.0, 2.0, 3.0]).incomplete
    assert judge([0.0] * 3, [1e-12] * 3, [math.nan] * 3).cause == "no-reference"


def test_every_cause_has_words():
    for cause in CAUSES:
        numbers = {"entry": "∂f/∂x", "value": 1.0, "exact": 2.0, "error": 1.0, "tolerance": 0.5, "outside": 1,
                   "judged": 1, "wide": 1, "no_band": 1, "skipped": 0, "source": "a band"}
        assert reason(Verdict("x", cause, numbers, "detail")).strip()


@pytest.mark.parametrize("f, at, method, outcome, cause", [
    ("1/x", "x=1e-8", "central-difference", "not judged", "crossing"),       # the stencil straddles the pole
    ("log(x)", "x=-1", "autograd", "not judged", "domain"),
    ("abs(x)", "x=0", "autograd", "pass", "within"),              # 0 lies between the one-sided -1 and 1
    ("abs(x)", "x=0", "central-difference", "not judged", "kink"),           # its stencil straddles the kink
    ("sin(x)", "x=1e22", "central-difference", "inconclusive", "wide-band"),  # truncation as large as the value
    ("x**3", "x=2", "autograd", "pass", "within"),
])
def test_compare_reports_carry_the_cause(f, at, method, outcome, cause, capsys):
    from diffcompare.cli.main import main
    main(["compare", f, "--at", at, "--repeat", "1", "--format", "json"])
    data = json.loads(capsys.readouterr().out)
    m = next(m for m in data["methods"] if m["name"] == method)
    assert (m["verdict"], m["judgement"]["outcome"], m["judgement"]["cause"]) == (outcome, outcome, cause)


def test_the_api_gives_the_verdict_as_data_and_in_words():
    c = diffcompare.compare("x**3", at={"x": 2.0}, methods="autograd", repeat=1)
    m = c.method("autograd")
    assert m.judgement.outcome == m.verdict == "pass" and m.reason == "within the expected accuracy"


def test_a_kink_asked_for_is_judged_against_the_one_sided_derivatives():
    # abs(x) * y at x = 0: ∂f/∂x has one-sided derivatives -y and y (by hand), so the engine's
    # abs'(0) = 0 is a subgradient, a right value: the point is checked, and it passes
    report = diffcompare.audit("abs(x) * y", at=[{"x": 0.0, "y": 2.0}, {"x": 1.5, "y": 2.0}])
    case = report.cases[0]
    assert case.status == "pass" and report.exit_status == 0
    assert [p.cause for p in case.points] == ["kink", "within"]
    assert [p.verdict for p in case.points] == ["subgradient", "agree"]


def test_a_point_asked_for_that_cannot_be_decided_makes_the_case_undecided():
    # sqrt at 0 has an infinite slope: no finite derivative to hold autograd to
    report = diffcompare.audit("sqrt(x) * y", at=[{"x": 0.0, "y": 2.0}, {"x": 1.5, "y": 2.0}])
    case = report.cases[0]
    assert case.status == "undecided" and report.exit_status == 4
    assert [p.verdict for p in case.points] == ["undefined", "agree"]


def test_kinks_the_audit_adds_itself_are_judged_too():
    report = diffcompare.audit("abs(x) * y", domain={"x": (-1, 1), "y": (1, 2)}, points=4, seed=1)
    case = report.cases[0]
    kinks = [p for p in case.points if p.verdict == "subgradient"]
    assert any("kink of abs" in p.origin for p in kinks)          # found by the kink search
    assert case.status == "pass" and report.exit_status == 0


def test_audit_counts_fd_causes_from_codes():
    report = diffcompare.audit("exp(x) * sin(3 * x)", domain={"x": (-3, 3)}, points=20, seed=0, dtype="float32")
    case = report.cases[0]
    causes = {p.cause for p in case.points if p.verdict == "fd-unreliable"}
    assert causes and causes <= {"kink", "float32 rounding", "cancellation", "truncation"}
    assert [f["causes"] for f in case.findings if f["code"] == "fd-unreliable"][0].get("float32 rounding")


def test_audit_point_where_f_itself_is_not_finite_is_undefined_not_wrong():
    # y/y is 1 to SymPy, nan at y = 0 in binary64: autograd's nan there is no wrong rule
    report = diffcompare.audit("y / y - x", at=[{"x": 1.0, "y": 0.0}])
    point = report.cases[0].points[0]
    assert (point.verdict, point.cause) == ("undefined", "domain")
    assert report.exit_status == 4


def test_a_nan_gradient_where_f_is_differentiable_is_wrong_even_when_every_rule_is_right():
    # f = 1 for x ≠ 0, but the adjoint of x*x at x = 3e-151 is about 1e453: following these
    # rules, binary64 overflows and the gradient is nan where the exact one is 0 (by hand):
    # a wrong gradient, which the report explains
    report = diffcompare.audit("((x + x)/(x*x)) / ((2*x)/(x*x))", at=[{"x": 3e-151}, {"x": 0.5}])
    tiny, ordinary = report.cases[0].points
    assert tiny.verdict == "wrong" and tiny.reference == [0.0]
    assert "f's program" in tiny.reason         # why: it must hold what binary64 cannot
    assert ordinary.verdict == "agree" and report.exit_status == 1


def test_f_that_divides_by_zero_is_undefined_not_judged():
    # atan(x)/(0.25/y) at y = 0 divides by zero: binary64 makes f 0 (atan(x)/inf), but f
    # itself has no value there, so there is nothing to hold its gradient to
    report = diffcompare.audit("atan(x) / (0.25 / y)", at=[{"x": 1.0, "y": 0.0}])
    point = report.cases[0].points[0]
    assert point.verdict == "undefined" and report.exit_status == 4


def test_audit_float32_infinity_that_float64_resolves_is_rounding():
    # sqrt(1.5/x - sqrt(x)) where the argument is 0 in float32 but not at the binary32 point
    # itself: float32 autograd gives -inf, float64 a value near the exact one
    x = float(np.float32(1.3103706971044482))
    report = diffcompare.audit("sqrt(1.5 / x - sqrt(x))", at=[{"x": x}], dtype="float32")
    point = report.cases[0].points[0]
    u = 1.5 / x - math.sqrt(x)          # in binary64: positive, and small
    assert u > 0
    # rounding, not a wrong rule: -inf cannot be told from the right value, so no pass either
    assert point.verdict == "inconclusive"
    assert point.cause == "rounding" and report.exit_status == 4


def test_an_exact_value_beyond_binary64_is_judged_not_skipped():
    # ∂f/∂x of 3y/sqrt(x) at x = 5e-324 is 1.4e485: beyond binary64, so the right binary64
    # answer is inf; a method with another value and no band must not pass on ∂f/∂y alone
    c = diffcompare.compare("((y * 3.0) / sqrt(x))", at={"y": -1.0, "x": 5e-324}, repeat=1)
    # inf is that correct rounding: autograd's and SymPy's inf are right; a difference scheme's
    # finite value there is not, and has no band: never a pass
    assert c.method("autograd").verdict == c.method("symbolic").verdict == "pass"
    assert all(m.verdict != "pass" for m in c.methods if m.estimate.family == "finite differences")
    v = decide(np.array([[0.0, math.inf]]), np.array([[1e-12, math.nan]]), np.array([[1.0, math.inf]]),
               np.array([[1.0, 9e169]]), ["a", "b"])
    assert (v.outcome, v.cause) == ("inconclusive", "no-band")
