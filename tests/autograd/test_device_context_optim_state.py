"""``with device(...)`` as PyTorch 2's default-device context, and ``Optimizer.state_dict()`` /
``load_state_dict()`` for SGD, Adam and AdamW, against PyTorch 2.13."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from diffcompare import autograd as ag

torch = pytest.importorskip("torch")


@pytest.fixture(autouse=True)
def _pytorch_under_the_engines_default_dtype():
    """Optimizers keep their step counts in float64 under a float64 default dtype (the engine's),
    float32 otherwise: PyTorch is compared under the same default (tests/conftest.py puts it back)."""
    torch.set_default_dtype(torch.float64)


def _devices(lib):
    """Where tensors and a Linear's weights land inside nested device contexts, and after."""
    seen = []
    with lib.device("meta"):
        seen += [lib.zeros(2).device.type, lib.tensor([1.0]).device.type, lib.nn.Linear(3, 2).weight.is_meta,
                 lib.nn.Conv2d(1, 2, 3).bias.is_meta, str(lib.get_default_device())]
        with lib.device("cpu"):
            seen += [lib.ones(2).device.type, lib.nn.Linear(3, 2).weight.is_meta, str(lib.get_default_device())]
        seen += [lib.empty(3).device.type, tuple(lib.nn.Linear(3, 2).weight.shape)]
    seen += [lib.zeros(2).device.type, lib.nn.Linear(3, 2).weight.is_meta, str(lib.get_default_device())]
    return seen


def test_device_context_as_torch():
    assert _devices(ag) == _devices(torch)
    assert "meta" in _devices(torch)          # the scenario does reach the meta device


def test_device_context_restores_on_error_as_torch():
    for lib in (ag, torch):
        with pytest.raises(KeyError):
            with lib.device("meta"):
                raise KeyError
        assert lib.zeros(1).device.type == "cpu"


def test_meta_linear_draws_nothing_from_the_generator():
    ag.manual_seed(5)
    expected = ag.nn.Linear(3, 2).weight.detach().numpy()
    ag.manual_seed(5)
    with ag.device("meta"):
        ag.nn.Linear(3, 2)
    np.testing.assert_array_equal(ag.nn.Linear(3, 2).weight.detach().numpy(), expected)


OPTIMIZERS = [
    ("SGD", {"lr": 0.1, "momentum": 0.9}),
    ("SGD", {"lr": 0.1, "momentum": 0.5, "nesterov": True, "weight_decay": 0.1}),
    ("SGD", {"lr": 0.1}),
    ("Adam", {"lr": 0.05}),
    ("Adam", {"lr": 0.05, "amsgrad": True, "weight_decay": 0.1}),
    ("AdamW", {"lr": 0.05, "betas": (0.8, 0.9)}),
]
_rng = np.random.default_rng(13)
W0, B0, X = _rng.standard_normal((2, 3)), _rng.standard_normal(2), _rng.standard_normal((4, 3))


def _setup(lib, name, kwargs, w=W0, b=B0):
    w = lib.tensor(w, dtype=lib.float64, requires_grad=True)
    b = lib.tensor(b, dtype=lib.float64, requires_grad=True)
    opt = getattr(lib.optim, name)([{"params": [w]}, {"params": [b], "lr": 0.02}], **kwargs)
    return w, b, opt


def _train(lib, w, b, opt, steps):
    x = lib.tensor(X, dtype=lib.float64)
    for _ in range(steps):
        opt.zero_grad()
        ((x @ w.T + b).tanh() ** 2).sum().backward()
        opt.step()


def _plain(state_dict):
    """A state dict with its tensors as (dtype name, array)."""
    def value(v):
        if hasattr(v, "detach"):
            return (str(v.dtype).rpartition(".")[2], np.array(v.detach().numpy()))
        return v
    return {"state": {i: {k: value(v) for k, v in s.items()} for i, s in state_dict["state"].items()},
            "param_groups": [dict(g) for g in state_dict["param_groups"]]}


def _assert_same_state(mine, theirs):
    mine, theirs = _plain(mine), _plain(theirs)
    assert mine["param_groups"] == theirs["param_groups"]
    assert mine["state"].keys() == theirs["state"].keys()
    for i in theirs["state"]:
        assert mine["state"][i].keys() == theirs["state"][i].keys()
        for k, (dtype, array) in theirs["state"][i].items():
            assert mine["state"][i][k][0] == dtype
            np.testing.assert_allclose(mine["state"][i][k][1], array, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("name,kwargs", OPTIMIZERS, ids=lambda v: v if isinstance(v, str) else None)
def test_state_dict_and_resuming_as_torch(name, kwargs):
    runs = {}
    for lib in (ag, torch):
        w, b, opt = _setup(lib, name, kwargs)
        empty = opt.state_dict()
        _train(lib, w, b, opt, 3)
        saved = copy.deepcopy(opt.state_dict())
        snapshot = copy.deepcopy(saved)     # torch's loaded buffers alias `saved` and move with opt2
        # resume: a new optimizer on the current weights, loaded, trained on
        w2, b2, opt2 = _setup(lib, name, {}, w.detach().numpy(), b.detach().numpy())
        opt2.load_state_dict(saved)
        _train(lib, w2, b2, opt2, 2)
        _train(lib, w, b, opt, 2)          # the original, never interrupted
        runs[lib] = (empty, snapshot, opt2.state_dict(), w2.detach().numpy(), w.detach().numpy(), b2.detach().numpy())
    mine, theirs = runs[ag], runs[torch]
    for k in range(3):
        _assert_same_state(mine[k], theirs[k])
    np.testing.assert_allclose(mine[3], theirs[3], rtol=1e-12)
    np.testing.assert_allclose(mine[3], mine[4], rtol=1e-14)     # resuming is the same as not stopping
    np.testing.assert_allclose(mine[5], theirs[5], rtol=1e-12)


@pytest.mark.parametrize("name,kwargs", OPTIMIZERS[:2] + OPTIMIZERS[4:5],
                         ids=lambda v: v if isinstance(v, str) else None)
def test_loading_a_state_dict_pytorch_wrote(name, kwargs):
    tw, tb, topt = _setup(torch, name, kwargs)
    _train(torch, tw, tb, topt, 3)
    saved = copy.deepcopy(topt.state_dict())
    w, b, opt = _setup(ag, name, {}, tw.detach().numpy(), tb.detach().numpy())
    opt.load_state_dict(saved)
    _assert_same_state(opt.state_dict(), saved)
    _train(ag, w, b, opt, 2)
    _train(torch, tw, tb, topt, 2)
    np.testing.assert_allclose(w.detach().numpy(), tw.detach().numpy(), rtol=1e-12)


@pytest.mark.parametrize("groups", [[], [{"lr": 0.1, "params": [0]}, {"lr": 0.1, "params": [1, 2]}]])
def test_load_state_dict_refuses_other_groups_as_torch(groups):
    errors = []
    for lib in (ag, torch):
        _, _, opt = _setup(lib, "SGD", {"lr": 0.1})
        with pytest.raises(ValueError) as caught:
            opt.load_state_dict({"state": {}, "param_groups": groups})
        errors.append(str(caught.value))
    assert errors[0] == errors[1]
