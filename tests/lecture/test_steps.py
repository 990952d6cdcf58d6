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


def test_the_curves_are_v_shaped(sweep):
    for scheme in ("forward", "central", "five-point"):
        errors = sweep.curve(scheme, "float64").errors
        best = int(np.nanargmin(errors))
        assert errors[0] > 100 * errors[best] and errors[14] > 100 * errors[best]   # h = 1e-1 and 1e-15
    complex_step = sweep.curve("complex-step", "float64").errors
    assert np.all(complex_step[7:] <= 4 * np.finfo(float).eps)     # every h ≤ 1e-8: no rounding wall


def test_float32_gradient_checks_fail_by_rounding(sweep):
    central32 = sweep.curve("central", "float32")
    k = list(sweep.steps).index(1e-6)
    # rounding: ε|f| / (h |f'|) = 1.19e-7 · 4.50 / (1e-6 · 4.05) ≈ 0.13 at worst; at one step the
    # two roundings may happen to cancel, so the median over h = 1e-5, 1e-6, 1e-7 is tested
    assert 1e-3 < float(np.median(central32.errors[k - 1:k + 2])) < 0.5
    assert central32.best_error > 1e-6 > sweep.curve("central", "float64").best_error
    assert any("float32" in note and "gradcheck" in note for note in sweep.notes)


def test_per_decade_and_other_variables():
    s = diffcompare.step_sweep("sin(x)*exp(y)", at={"x": 1.0, "y": 0.5}, variable="y", per_decade=2)
    assert len(s.steps) == 39 and s.exact == pytest.approx(math.sin(1) * math.exp(0.5), rel=1e-15)


def test_formats(sweep):
    data = json.loads(sweep.render("json"))
    assert data["report"] == "steps" and data["schema_version"] == 2
    assert len(data["curves"]) == 8 and all(len(c["errors"]) == 20 for c in data["curves"])
    text = sweep.render("text", width=200)
    assert "float64:" in text and "float32:" in text and "◀" in text
    markdown = sweep.render("markdown")
    assert markdown.count("\n| 1e-") == 20


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


@pytest.mark.parametrize("f, at, variable, message", [
    ("x*y", {"x": 1.0, "y": 2.0}, None, "say which one with --var"),
    ("x*y", {"x": 1.0, "y": 2.0}, "z", "not a variable of f"),
    ("log(x)", {"x": -1.0}, None, "outside the real domain"),
    ("sum(x)", {"x": [1.0, 2.0]}, None, "one scalar variable"),
])
def test_bad_requests(f, at, variable, message):
    with pytest.raises(InputError, match=message):
        diffcompare.step_sweep(f, at=at, variable=variable)
