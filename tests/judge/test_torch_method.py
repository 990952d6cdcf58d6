"""``--methods torch``: PyTorch's autograd beside the engine, judged by the one judge; a
clear error (exit 2) when PyTorch is not installed."""

from __future__ import annotations

import json
import math

import pytest
from cli_runner import run


def test_missing_pytorch_is_a_clear_error(monkeypatch, capsys):
    from diffcompare.methods import torch_autograd
    monkeypatch.setattr(torch_autograd, "available", lambda: False)
    code, out = run(["compare", "sin(x)", "--at", "x=1", "--methods", "autograd,torch"], capsys)
    assert code == 2 and "--methods torch needs PyTorch" in out.err and "Traceback" not in out.err


@pytest.mark.parametrize("extra", [[], ["--jvp", "1,0.5,2"], ["--vjp", "1,2"]])
def test_torch_values_and_verdicts(extra, capsys):
    pytest.importorskip("torch")
    code, out = run(["compare", "[x*y, sin(x)*z]", "--at", "x=1,y=2,z=3", "--methods", "autograd,torch",
                     "--repeat", "1", "--format", "json"] + extra, capsys)
    assert code == 0
    methods = {m["name"]: m for m in json.loads(out.out)["methods"]}
    assert methods["torch"]["verdict"] == "pass"
    # J = [[y, x, 0], [z cos x, 0, sin x]] at (1, 2, 3), by hand
    jacobian = [[2.0, 1.0, 0.0], [3 * math.cos(1), 0.0, math.sin(1)]]
    if not extra:
        want = [v for row in jacobian for v in row]
    elif extra[0] == "--jvp":
        want = [sum(a * b for a, b in zip(row, (1, 0.5, 2))) for row in jacobian]
    else:
        want = [jacobian[0][j] * 1 + jacobian[1][j] * 2 for j in range(3)]
    assert methods["torch"]["values"] == pytest.approx(want, rel=1e-15, abs=1e-300)
