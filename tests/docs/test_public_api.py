"""The public functions of ``diffcompare`` show their options to ``help()``: each has the
same parameters, with the same defaults, as the function it calls (they cannot drift)."""

from __future__ import annotations

import inspect

import pytest

import diffcompare
import diffcompare.testing
from diffcompare.auditing.audit import audit
from diffcompare.pipeline.compare import compare
from diffcompare.lecture.explain import explain
from diffcompare.lecture.steps import step_sweep
from diffcompare.lecture.swell import swell


def _parameters(function):
    return [(p.name, p.default) for p in inspect.signature(function).parameters.values()]


@pytest.mark.parametrize("public, inner", [(diffcompare.compare, compare), (diffcompare.audit, audit),
                                           (diffcompare.explain, explain), (diffcompare.step_sweep, step_sweep),
                                           (diffcompare.swell, swell)])
def test_public_signatures_match_the_functions_they_call(public, inner):
    public_parameters = _parameters(public)
    assert not any(p.kind == p.VAR_KEYWORD for p in inspect.signature(public).parameters.values())
    inner_parameters = dict(_parameters(inner))
    for name, default in public_parameters:
        assert name in inner_parameters, name
        assert inner_parameters[name] == default, (name, default, inner_parameters[name])


def test_the_testing_module_exports_its_helpers_only():
    assert diffcompare.testing.__all__ == ["assert_gradients"]
    names = {n for n in dir(diffcompare.testing) if not n.startswith("_")}
    assert "annotations" not in diffcompare.testing.__all__ and "FAILING" not in diffcompare.testing.__all__
    assert "assert_gradients" in names


@pytest.mark.parametrize("build", [
    lambda: diffcompare.compare("x**2", at={"x": 3.0}, methods="autograd", repeat=1),
    lambda: diffcompare.audit("x**2", points={"x": 1.0}),
    lambda: diffcompare.explain("x**2", {"x": 3.0}),
    lambda: diffcompare.step_sweep("sin(x)", {"x": 1.0}),
])
def test_reports_have_a_short_repr_and_notebook_views(build):
    report = build()
    text = repr(report)
    assert text.startswith(f"<{type(report).__name__}: ") and len(text) < 400 and "\n" not in text
    # one rich view (HTML), so that a notebook shows the report once; no rich renderable either
    views = {name for name in dir(report) if name.startswith("_repr_") and name.endswith("_")}
    assert views == {"_repr_html_", "_repr_pretty_"}
    assert not hasattr(report, "__rich__") and not hasattr(report, "__rich_console__")
    html = report._repr_html_()
    if type(report).__name__ == "Explanation":      # the walk to step through, a block for the notebook
        assert html.startswith("<style>") and 'class="dc-walk"' in html and "<svg" in html
    else:
        assert "<table" in html
    assert "<html" not in html


def test_install_hints_name_what_pyproject_installs():
    from pathlib import Path

    import tomllib

    from diffcompare.version import EXTRAS, install_hint
    extras = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]
    # test and notebook: tools to run the tests and the example notebooks, never imported by the package
    assert {k: v for k, v in extras.items() if k not in ("test", "notebook")} == {k: [v] for k, v in EXTRAS.items()}
    assert all(">=" in v and "==" not in v for v in EXTRAS.values())          # lower bounds, never pins
    assert install_hint("torch") == 'pip install "torch>=2.13" (or, in the diffcompare checkout, pip install -e ".[torch]")'


def test_a_tensor_in_a_notebook():
    from diffcompare import autograd as ag
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    assert x._repr_html_() == f"<pre>{repr(x)}</pre>"
    assert "grad_fn=&lt;SumBackward0&gt;" in y._repr_html_()
