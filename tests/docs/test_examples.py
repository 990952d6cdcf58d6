"""Every script in examples/ runs (and checks its own hand-derived values) without error.

The scripts run in this process (runpy, as ``__main__``, their output captured): starting a
Python for each would cost a second of imports apiece. Each runs once; the tests that read
what a script printed share that run."""

import contextlib
import io
import runpy
from functools import lru_cache
from pathlib import Path

import pytest

EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "examples").glob("*.py"))


@lru_cache(maxsize=None)
def ran(name: str):
    """(exit code, standard output, standard error) of examples/``name`` run as a script."""
    out, err = io.StringIO(), io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            runpy.run_path(str(EXAMPLES[0].parent / name), run_name="__main__")
        except SystemExit as stop:
            code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("script", EXAMPLES, ids=lambda p: p.name)
def test_example_runs(script):
    code, _, err = ran(script.name)
    assert code == 0, err
    assert "Traceback" not in err


def test_seed_bugs_are_shown_as_clear_errors():
    def run(name):
        return ran(name)[1]
    assert "as written, mm fails: self must be a matrix" in run("seed_mm_shape_mistake.py")
    square = run("seed_square_gradient_argument.py")
    assert "as written: grad can be implicitly created only for scalar outputs" in square
    assert "autograd.grad as written: grad can be implicitly created only for scalar outputs" in square
    assert "x.grad = tensor([1.0240e+02, 1.0240e+03, 1.0240e-01])" in run("seed_vjp_doubling.py")


def test_audit_example_names_the_wrong_node():
    out = ran("audit_wrong_backward.py")[1]
    assert "gradcheck: Jacobian mismatch" in out
    assert "compare: autograd fail" in out and "explain --check: step" in out and "SwishBackward" in out
