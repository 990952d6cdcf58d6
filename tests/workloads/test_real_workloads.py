"""The real-workload objectives (diffcompare/workloads/: ADBench's and GradBench's GMM, BA,
hand tracking and LSTM, log-sum-exp, the determinant by minors) at a tiny size: the
engine's gradient against central differences of its own forward, and against PyTorch's
gradient where installed. The JAX objectives are checked (jitted, against the engine) by
the timed comparison at ADBench's sizes, benchmarks/real_workloads.py: JAX's op-by-op
dispatch takes seconds here."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from real_workloads import difference, engine_forward, engine_gradient, finite_difference_error  # noqa: E402
from diffcompare.workloads import WORKLOADS  # noqa: E402

NAMES = sorted(WORKLOADS)


@pytest.fixture(scope="module", params=NAMES)
def workload(request):
    module = WORKLOADS[request.param]
    data = module.make_data("tiny", seed=1)
    return module, data, engine_gradient(module, data)()


def test_engine_gradient_matches_central_differences(workload):
    module, data, (value, grads) = workload
    assert np.isfinite(value)
    assert [g.shape for g in grads] == [p.shape for p in data.params]
    assert finite_difference_error(engine_forward(module, data), data, grads) <= 1e-6


def test_engine_matches_pytorch(workload):
    torch = pytest.importorskip("torch")
    from real_workloads import torch_gradient
    module, data, (value, grads) = workload
    torch_value, torch_grads = torch_gradient(torch, module, data)()
    assert value == pytest.approx(torch_value, rel=1e-12, abs=1e-12)
    assert difference(grads, torch_grads) <= 1e-10

