"""``--methods torch,jax,jax-jit``: PyTorch's and JAX's autodiff beside the engine, through the
function table's worlds, judged by the one judge; a clear error (exit 2) when the package is
not installed."""

from __future__ import annotations

import json
import math

import pytest
from cli_runner import run


@pytest.mark.parametrize("module, method, words", [("torch_autograd", "torch", "needs PyTorch"),
                                                   ("jax_method", "jax", "needs JAX")])
def test_missing_package_is_a_clear_error(monkeypatch, capsys, module, method, words):
    import importlib
    monkeypatch.setattr(importlib.import_module(f"diffcompare.methods.{module}"), "available", lambda: False)
    code, out = run(["compare", "sin(x)", "--at", "x=1", "--methods", f"autograd,{method}"], capsys)
    assert code == 2 and words in out.err and "Traceback" not in out.err


@pytest.mark.parametrize("method, package", [("torch", "torch"), ("jax", "jax"), ("jax-jit", "jax")])
@pytest.mark.parametrize("extra", [[], ["--jvp", "1,0.5,2"], ["--vjp", "1,2"]])
def test_peer_values_and_verdicts(extra, method, package, capsys):
    pytest.importorskip(package)
    code, out = run(["compare", "[x*y, sin(x)*z]", "--at", "x=1,y=2,z=3", "--methods", f"autograd,{method}",
                     "--repeat", "1", "--format", "json"] + extra, capsys)
    assert code == 0
    methods = {m["name"]: m for m in json.loads(out.out)["methods"]}
    assert methods[method]["verdict"] == "pass"
    # J = [[y, x, 0], [z cos x, 0, sin x]] at (1, 2, 3), by hand
    jacobian = [[2.0, 1.0, 0.0], [3 * math.cos(1), 0.0, math.sin(1)]]
    if not extra:
        want = [v for row in jacobian for v in row]
    elif extra[0] == "--jvp":
        want = [sum(a * b for a, b in zip(row, (1, 0.5, 2))) for row in jacobian]
    else:
        want = [jacobian[0][j] * 1 + jacobian[1][j] * 2 for j in range(3)]
    assert methods[method]["values"] == pytest.approx(want, rel=1e-15, abs=1e-300)


def test_jax_hessian_by_hand(capsys):
    pytest.importorskip("jax")
    from hand_derived import rosenbrock_hessian
    code, out = run(["compare", "sum(100*(x[1:]-x[:-1]**2)**2 + (1-x[:-1])**2)", "--at", "x=[1.2,1.0,0.8]",
                     "--order", "2", "--methods", "jax-jit", "--repeat", "1", "--format", "json"], capsys)
    assert code == 0
    (method,) = json.loads(out.out)["methods"]
    want = rosenbrock_hessian([1.2, 1.0, 0.8]).reshape(-1).tolist()
    assert method["values"] == pytest.approx(want, rel=1e-14, abs=1e-12)
