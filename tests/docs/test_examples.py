"""Every script in examples/ runs (and checks its own hand-derived values) without error."""

import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "examples").glob("*.py"))


@pytest.mark.parametrize("script", EXAMPLES, ids=lambda p: p.name)
def test_example_runs(script):
    result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr


def test_seed_bugs_are_shown_as_clear_errors():
    run = lambda name: subprocess.run([sys.executable, str(Path(EXAMPLES[0]).parent / name)],  # noqa: E731
                                      capture_output=True, text=True, timeout=120).stdout
    assert "as written, mm fails: self must be a matrix" in run("seed_mm_shape_mistake.py")
    square = run("seed_square_gradient_argument.py")
    assert "as written: grad can be implicitly created only for scalar outputs" in square
    assert "autograd.grad as written: grad can be implicitly created only for scalar outputs" in square
    assert "x.grad = tensor([1.0240e+02, 1.0240e+03, 1.0240e-01])" in run("seed_vjp_doubling.py")


def test_audit_example_names_the_wrong_node():
    out = subprocess.run([sys.executable, str(Path(EXAMPLES[0]).parent / "audit_wrong_backward.py")],
                         capture_output=True, text=True, timeout=120).stdout
    assert "gradcheck: Jacobian mismatch" in out
    assert "compare: autograd fail" in out and "explain --check: step" in out and "SwishBackward" in out
