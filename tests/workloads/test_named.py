"""A named workload as compare's function: one body on the engine's tensors, on NumPy arrays
and on PyTorch's, and the command line's --workload."""

from __future__ import annotations

import json

import numpy as np
import pytest
from cli_runner import run

import diffcompare
from diffcompare.workloads import WORKLOADS
from diffcompare.workloads.named import UnknownWorkload, parameter_names, workload_function


# what ADBench and GradBench differentiate each objective with respect to, in their order
DIFFERENTIATED = {"ba": ["cams", "X", "w"], "det": ["A"], "gmm": ["alphas", "means", "icf"], "ht": ["theta"],
                  "lse": ["x"], "lstm": ["main_params", "extra_params"]}


def test_every_workload_names_its_parameters_in_order():
    assert set(WORKLOADS) == set(DIFFERENTIATED)
    for name, module in WORKLOADS.items():
        f, at, label = workload_function(name, "tiny")
        data = module.make_data("tiny")
        assert list(at) == DIFFERENTIATED[name] == parameter_names(module, len(data.params)) and name in label
        assert [a.shape for a in at.values()] == [p.shape for p in data.params]


def test_lse_by_compare_matches_the_softmax_by_hand():
    f, at, _ = workload_function("lse", "tiny", seed=3)
    x = at["x"]
    softmax = np.exp(x - x.max()) / np.exp(x - x.max()).sum()       # d/dx log Σ exp(x) = softmax(x)
    assert np.isclose(f(x), np.log(np.exp(x).sum()), rtol=1e-14)
    c = diffcompare.compare(f, at=at, methods="autograd,forward-mode,central-difference", repeat=1)
    for name in ("autograd", "forward-mode"):
        assert np.allclose(np.ravel(c.method(name).estimate.values[0]), softmax, rtol=1e-13, atol=0), name
    assert np.allclose(np.ravel(c.method("central-difference").estimate.values[0]), softmax, rtol=1e-7)


def test_the_body_runs_on_torch_tensors_too():
    torch = pytest.importorskip("torch")
    f, at, _ = workload_function("det", "tiny")
    a = at["A"]
    assert float(f(torch.tensor(a))) == pytest.approx(np.linalg.det(a), rel=1e-12)


def test_unknown_names_and_sizes_say_what_exists():
    with pytest.raises(UnknownWorkload, match="choose from ba, det, gmm, ht, lse, lstm"):
        workload_function("gmmm")
    with pytest.raises(UnknownWorkload, match="choose from tiny, small, medium"):
        workload_function("gmm", "huge")


def test_the_command_line_compares_a_workload(capsys):
    code, out = run(["compare", "--workload", "det", "--size", "tiny", "--methods", "autograd,forward-mode",
                     "--repeat", "1", "--format", "json"], capsys)
    report = json.loads(out.out)
    values = {m["name"]: m["values"] for m in report["methods"]}
    assert np.allclose(values["autograd"], values["forward-mode"], rtol=1e-13)
    assert report["inputs"][0].startswith("A[") and code == 4       # no exact reference: nothing judged
    code, out = run(["compare", "--workload", "det", "--at", "x=1"], capsys)
    assert code == 2 and "without EXPR, --at or --box" in out.err and "Traceback" not in out.err
