"""steps: the finite-difference error against h. The optimum steps are predicted from the
error models with the derivatives of the Squire–Trapp function computed here by SymPy,
independently of the sweep."""

import json
import math

import numpy as np
import pytest

import diffcompare
from diffcompare.problem.errors import InputError

SQUIRE_TRAPP = "exp(x)/sqrt(sin(x)**3 + cos(x)**3)"


@pytest.fixture(scope="module")
def sweep():
    return diffcompare.step_sweep(SQUIRE_TRAPP, at={"x": 1.5})


@pytest.fixture(scope="module")
def derivatives():
    import sympy
    x = sympy.Symbol("x")
    f = sympy.exp(x) / sympy.sqrt(sympy.sin(x) ** 3 + sympy.cos(x) ** 3)
    return [abs(float(sympy.diff(f, x, k).subs(x, 1.5).evalf(30))) for k in range(6)]


def test_exact_derivative(sweep, derivatives):
    assert sweep.exact == pytest.approx(4.053427893898621, rel=1e-15)
    assert sweep.exact == pytest.approx(derivatives[1], rel=1e-15)
    assert sweep.steps.tolist() == [10.0 ** -k for k in range(1, 21)]


@pytest.mark.parametrize("scheme, dtype", [
    ("forward", "float64"), ("central", "float64"), ("five-point", "float64"), ("complex-step", "float64"),
    ("central", "float32"), ("five-point", "float32"), ("complex-step", "float32"),
])
def test_best_step_within_a_decade_of_the_predicted_optimum(sweep, derivatives, scheme, dtype):
    eps = float(np.finfo(dtype).eps)
    f, f1, f2, f3, _, f5 = derivatives
    predicted = {"forward": 2 * math.sqrt(eps * f / f2), "central": (3 * eps * f / f3) ** (1 / 3),
                 "five-point": (45 * eps * f / (4 * f5)) ** (1 / 5),
                 "complex-step": math.sqrt(6 * eps * f1 / f3)}[scheme]
    curve = sweep.curve(scheme, dtype)
    assert curve.predicted_h == pytest.approx(predicted, rel=1e-12)
    # where rounding dominates, the error at one step is luck (the two roundings of f may
    # cancel or add, and each CPU's sin rounds its own way): the steps within a decade of
    # the predicted optimum reach the best error within 10x
    near = [e for h, e in zip(sweep.steps, curve.errors) if abs(math.log10(h / predicted)) <= 1.0]
    assert min(near) <= 10 * curve.best_error, (near, curve.best_error, curve.best_h, predicted)


@pytest.mark.parametrize("scheme, crossover", [
    # where the model's two terms are equal, solved by hand: t·h^p = ε·r/h^q
    ("forward", lambda e, d: (2 * e * d[0] / (d[2] / 2)) ** (1 / 2)),
    ("central", lambda e, d: (e * d[0] / (d[3] / 6)) ** (1 / 3)),
    ("five-point", lambda e, d: (1.5 * e * d[0] / (d[5] / 30)) ** (1 / 5)),
    ("complex-step", lambda e, d: (e * d[1] / (d[3] / 6)) ** (1 / 2)),
])
def test_crossover_and_regimes(sweep, derivatives, scheme, crossover):
    eps = float(np.finfo(np.float64).eps)
    curve = sweep.curve(scheme, "float64")
    assert curve.crossover_h == pytest.approx(crossover(eps, derivatives), rel=1e-12)
    regimes = curve.regimes(sweep.steps)
    assert all(r == ("truncation" if h > curve.crossover_h else "round-off") for h, r in zip(sweep.steps, regimes))
    assert regimes[0] == "truncation" and regimes[-1] == "round-off"


def test_absolute_and_relative_errors(sweep):
    central = sweep.curve("central", "float64")
    assert central.measure == "absolute" and central.errors is central.abs_errors
    assert np.allclose(central.rel_errors, central.abs_errors / abs(sweep.exact), rtol=1e-15, equal_nan=True)
    relative = diffcompare.step_sweep(SQUIRE_TRAPP, at={"x": 1.5}, measure="relative", schemes="central",
                                      precisions="float64", h_range="1e-8..1e-2")
    c = relative.curve("central", "float64")
    assert c.errors is c.rel_errors and relative.steps.tolist() == [1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8]
    assert np.array_equal(c.abs_errors, central.abs_errors[1:8])


def test_the_curves_are_v_shaped(sweep):
    for scheme in ("forward", "central", "five-point"):
        errors = sweep.curve(scheme, "float64").errors
        best = int(np.nanargmin(errors))
        assert errors[0] > 100 * errors[best] and errors[14] > 100 * errors[best]   # h = 1e-1 and 1e-15
    complex_step = sweep.curve("complex-step", "float64").rel_errors
    assert np.all(complex_step[7:] <= 4 * np.finfo(float).eps)     # every h ≤ 1e-8: no rounding wall


def test_float32_gradient_checks_fail_by_rounding(sweep):
    central32 = sweep.curve("central", "float32")
    k = list(sweep.steps).index(1e-6)
    # rounding: ε|f| / (h |f'|) = 1.19e-7 · 4.50 / (1e-6 · 4.05) ≈ 0.13 at worst; at one step the
    # two roundings may happen to cancel, so the median over h = 1e-5, 1e-6, 1e-7 is tested
    assert 1e-3 < float(np.median(central32.rel_errors[k - 1:k + 2])) < 0.5
    assert central32.best_rel_error > 1e-6 > sweep.curve("central", "float64").best_rel_error
    assert any("float32" in note and "gradcheck" in note for note in sweep.notes)


def test_per_decade_and_other_variables():
    s = diffcompare.step_sweep("sin(x)*exp(y)", at={"x": 1.0, "y": 0.5}, variable="y", per_decade=2)
    assert len(s.steps) == 39 and s.exact == pytest.approx(math.sin(1) * math.exp(0.5), rel=1e-15)


def test_formats(sweep):
    data = json.loads(sweep.render("json"))
    assert data["report"] == "steps" and data["schema_version"] == 3 and data["error"] == "absolute"
    assert len(data["curves"]) == 8 and all(len(c["errors"]) == 20 for c in data["curves"])
    assert all(len(c["abs_errors"]) == len(c["rel_errors"]) == len(c["regimes"]) == 20 for c in data["curves"])
    text = sweep.render("text", width=200)
    assert "float64:" in text and "float32:" in text and "◀" in text and " ×" in text
    assert "truncation error dominates" in text and "round-off error dominates" in text and "h×" in text
    markdown = sweep.render("markdown")
    assert markdown.count("\n| 1e-") == 20 and "crossover h×" in markdown and "round-off error dominates" in markdown
    rows = [line for line in markdown.splitlines() if line.startswith("| 1e-")]
    assert rows[0].startswith("| 1e-20") and rows[-1].startswith("| 1e-01")        # h increasing down the table
    latex = sweep.render("latex")
    assert "round-off error dominates" in latex and "truncation error dominates" in latex


def test_h_decreasing():
    s = diffcompare.step_sweep("sin(x)", at={"x": 1.0}, axis="decreasing", schemes="central", precisions="float64")
    rows = [line for line in s.render("markdown").splitlines() if line.startswith("| 1e-")]
    assert rows[0].startswith("| 1e-01") and "h shrinks to the right" in s.render("text", width=200)


def test_png_is_written_when_matplotlib_is_installed(sweep, tmp_path):
    pytest.importorskip("matplotlib")
    from diffcompare.render.plots import steps_png
    path = tmp_path / "steps.png"
    steps_png(sweep, path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_png_without_matplotlib_is_a_clear_error(sweep, tmp_path, monkeypatch):
    import sys
    from diffcompare.render.plots import PlotUnavailable, steps_png
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(PlotUnavailable, match=r'pip install "matplotlib>=3.6" \(or, in the diffcompare checkout, pip install -e "\.\[plot\]"\)'):
        steps_png(sweep, tmp_path / "x.png")


@pytest.mark.parametrize("f, at, variable, extra, message", [
    ("x*y", {"x": 1.0, "y": 2.0}, None, {}, "say which one with --var"),
    ("x*y", {"x": 1.0, "y": 2.0}, "z", {}, "not a variable of f"),
    ("sum(x)", {"x": [1.0, 2.0]}, None, {}, "one scalar variable"),
    ("sin(x)", {"x": 1.0}, None, {"h_range": "1e-3..0.5"}, "0.5 is not a power of ten"),
    ("sin(x)", {"x": 1.0}, None, {"h_range": "1e-3"}, "two powers of ten joined by"),
    ("sin(x)", {"x": 1.0}, None, {"h_range": "1e-3..1e-3"}, "the same step"),
    ("sin(x)", {"x": 1.0}, None, {"h_range": "1e-40..1e-1"}, "from 1e-30 to 1e0"),
    ("sin(x)", {"x": 1.0}, None, {"h_range": "abc..1e-1"}, "'abc' is not a number"),
    ("sin(x)", {"x": 1.0}, None, {"measure": "ulps"}, "choose absolute or relative"),
    ("sin(x)", {"x": 1.0}, None, {"schemes": "richardson"}, "choose from forward"),
    ("sin(x)", {"x": 1.0}, None, {"precisions": "float16"}, "choose from float64, float32"),
])
def test_bad_requests(f, at, variable, extra, message):
    with pytest.raises(InputError, match=message):
        diffcompare.step_sweep(f, at=at, variable=variable, **extra)


@pytest.mark.parametrize("f, x, state", [
    ("abs(x)", 0.0, "kink"), ("relu(x)", 0.0, "kink"), ("sqrt(x)", 0.0, "singular"), ("1/x", 0.0, "domain"),
    ("log(x)", 0.0, "domain"), ("log(x)", -1.0, "domain"),
])
def test_no_sweep_where_f_is_not_differentiable(f, x, state):
    s = diffcompare.step_sweep(f, at={"x": x})
    assert s.exit_status == 4 and not s.differentiable and s.curves == [] and s.smoothness["state"] == state
    text = s.render("text", width=200)
    assert "no single exact value here" in text and "0.0e+00" not in text and "rounding, not a wrong" not in text
    data = json.loads(s.render("json"))
    assert data["exit_status"] == 4 and data["differentiable"] is False and data["exact"] is None


@pytest.mark.parametrize("f, x", [("abs(x)", 0.0), ("sqrt(x)", 0.0), ("log(x)", -1.0)])
def test_the_exit_status_is_compares(f, x):
    assert diffcompare.step_sweep(f, at={"x": x}).exit_status == \
        diffcompare.compare(f, at={"x": x}, methods="autograd,central", repeat=1).exit_status
