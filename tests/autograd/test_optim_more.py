"""RMSprop, AdamW, Adagrad (and Adam, SGD) against torch.optim: the same parameters after
several steps on the same objective, to 1e-12 in float64, for their defaults and options."""

from __future__ import annotations

import numpy as np
import pytest

from diffcompare import autograd as ag

torch = pytest.importorskip("torch")

CASES = [
    ("RMSprop", {}), ("RMSprop", {"lr": 0.05, "momentum": 0.9, "centered": True, "weight_decay": 0.1}),
    ("RMSprop", {"alpha": 0.9, "eps": 1e-6, "momentum": 0.5}),
    ("AdamW", {}), ("AdamW", {"lr": 0.05, "weight_decay": 0.3, "amsgrad": True, "betas": (0.8, 0.9)}),
    ("Adagrad", {}), ("Adagrad", {"lr": 0.2, "lr_decay": 0.1, "weight_decay": 0.05, "initial_accumulator_value": 0.3}),
    ("Adam", {"lr": 0.05, "weight_decay": 0.1, "amsgrad": True}),
    ("SGD", {"lr": 0.05, "momentum": 0.9, "nesterov": True, "weight_decay": 0.01}),
]


def _objective(lib, w, b):
    return ((w * w * w).sum() - (w[0] * b).sum() + (b * b).sum() * 0.5 + lib.sin(w).sum())


@pytest.mark.parametrize("name,kwargs", CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)])
def test_trajectory_matches_torch(name, kwargs):
    rng = np.random.default_rng(7)
    w0, b0 = rng.standard_normal((2, 3)), rng.standard_normal(3)
    mine = [ag.tensor(w0, requires_grad=True), ag.tensor(b0, requires_grad=True)]
    theirs = [torch.tensor(w0, requires_grad=True), torch.tensor(b0, requires_grad=True)]
    opt, topt = getattr(ag.optim, name)(mine, **kwargs), getattr(torch.optim, name)(theirs, **kwargs)
    for _ in range(6):
        for lib, o, params in ((ag, opt, mine), (torch, topt, theirs)):
            o.zero_grad()
            _objective(lib, *params).backward()
            o.step()
    for a, b in zip(mine, theirs):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12, atol=1e-12)


def test_defaults_as_torch():
    p = [ag.tensor([1.0], requires_grad=True)]
    tp = [torch.tensor([1.0], requires_grad=True)]
    for name in ("RMSprop", "AdamW", "Adagrad"):
        mine, theirs = getattr(ag.optim, name)(p).param_groups[0], getattr(torch.optim, name)(tp).param_groups[0]
        for key, value in mine.items():
            if key != "params":
                assert theirs[key] == value, (name, key)


@pytest.mark.parametrize("name,kwargs", [("RMSprop", {"lr": -1}), ("AdamW", {"eps": -1}), ("Adagrad", {"lr_decay": -1}),
                                         ("RMSprop", {"alpha": -0.5}), ("AdamW", {"betas": (1.0, 0.9)})])
def test_invalid_hyperparameters_as_torch(name, kwargs):
    with pytest.raises(ValueError) as theirs:
        getattr(torch.optim, name)([torch.zeros(1, requires_grad=True)], **kwargs)
    with pytest.raises(ValueError) as mine:
        getattr(ag.optim, name)([ag.zeros(1, requires_grad=True)], **kwargs)
    assert str(mine.value) == str(theirs.value)


def test_model_zero_grad_set_to_none_and_sgd_with_a_module():
    net = ag.nn.Linear(2, 1)
    net(ag.ones(3, 2)).sum().backward()
    net.zero_grad(set_to_none=False)
    assert all(float(p.grad.abs().sum()) == 0 for p in net.parameters())
    net.zero_grad()
    assert all(p.grad is None for p in net.parameters())
