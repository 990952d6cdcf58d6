"""Adadelta, Adamax, NAdam, RAdam, ASGD, Rprop and LBFGS against torch.optim in float64: the
same parameters and the same state_dict() after several steps from the same start, on the
2-d Rosenbrock function and a tiny MLP regression; PyTorch's defaults and error texts; the
closure protocol; and values known independently (a hand-computed first step, the
Rosenbrock minimum)."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from diffcompare import autograd as ag

torch = pytest.importorskip("torch")

_rng = np.random.default_rng(3)
MLP0 = [_rng.standard_normal((3, 4)) * 0.7, _rng.standard_normal(4) * 0.1, _rng.standard_normal((4, 1)) * 0.7,
        _rng.standard_normal(1) * 0.1]
X, Y = _rng.standard_normal((6, 3)), _rng.standard_normal((6, 1))
ROSEN0 = [np.array([-1.2, 1.0])]


def _rosenbrock(lib, x):
    return (1 - x[0]) ** 2 + 100 * (x[1] - x[0] ** 2) ** 2


def _mlp(lib, w1, b1, w2, b2):
    x, y = lib.tensor(X), lib.tensor(Y)
    return ((lib.tanh(x @ w1 + b1) @ w2 + b2 - y) ** 2).mean()


PROBLEMS = {"rosenbrock": (ROSEN0, _rosenbrock), "mlp": (MLP0, _mlp)}


def _params(lib, start):
    return [lib.tensor(a, dtype=lib.float64, requires_grad=True) for a in start]


def _plain(state_dict):
    """A state dict with its tensors as (dtype name, array), lists element-wise."""
    def value(v):
        if isinstance(v, list):
            return [value(e) for e in v]
        if hasattr(v, "detach"):
            return (str(v.dtype).rpartition(".")[2], np.array(v.detach().numpy()))
        return v
    return {"state": {i: {k: value(v) for k, v in s.items()} for i, s in state_dict["state"].items()},
            "param_groups": [dict(g) for g in state_dict["param_groups"]]}


def _assert_same_value(mine, theirs, where):
    if isinstance(theirs, list):
        assert isinstance(mine, list) and len(mine) == len(theirs), where
        for a, b in zip(mine, theirs):
            _assert_same_value(a, b, where)
    elif isinstance(theirs, tuple):
        assert isinstance(mine, tuple) and mine[0] == theirs[0], where
        # 1e-12 relative to the buffer's largest entry (a small entry of a direction is a difference)
        scale = float(np.abs(theirs[1]).max(initial=0.0))
        np.testing.assert_allclose(mine[1], theirs[1], rtol=1e-12, atol=1e-12 * scale + 1e-15, err_msg=str(where))
    else:
        assert type(mine) is type(theirs), (where, mine, theirs)
        if isinstance(theirs, float):
            assert mine == pytest.approx(theirs, rel=1e-12, abs=1e-15), where
        else:
            assert mine == theirs, where


def _assert_same_state(mine, theirs):
    mine, theirs = _plain(mine), _plain(theirs)
    assert mine["param_groups"] == theirs["param_groups"]
    assert mine["state"].keys() == theirs["state"].keys()
    for i in theirs["state"]:
        assert list(mine["state"][i]) == list(theirs["state"][i])
        for k in theirs["state"][i]:
            _assert_same_value(mine["state"][i][k], theirs["state"][i][k], (i, k))


CASES = [
    ("Adadelta", {}), ("Adadelta", {"lr": 0.5, "rho": 0.8, "eps": 1e-4, "weight_decay": 0.1, "maximize": True}),
    ("Adamax", {}), ("Adamax", {"lr": 0.05, "betas": (0.8, 0.95), "weight_decay": 0.2}),
    ("NAdam", {}), ("NAdam", {"lr": 0.01, "momentum_decay": 0.01, "weight_decay": 0.1}),
    ("NAdam", {"lr": 0.01, "weight_decay": 0.1, "decoupled_weight_decay": True, "maximize": True}),
    ("RAdam", {}), ("RAdam", {"lr": 1e-4, "betas": (0.9, 0.5), "weight_decay": 0.1}),
    ("RAdam", {"lr": 0.01, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("ASGD", {}), ("ASGD", {"lr": 0.002, "lambd": 0.1, "alpha": 0.5, "t0": 3, "weight_decay": 0.05}),
    ("Rprop", {}), ("Rprop", {"lr": 0.05, "etas": (0.3, 1.5), "step_sizes": (1e-3, 0.2), "maximize": True}),
    ("Adam", {"lr": 0.01, "amsgrad": True}), ("AdamW", {"lr": 0.01, "amsgrad": True, "maximize": True}),
    ("Adam", {"lr": 0.01, "weight_decay": 0.1, "maximize": True}),
    ("SGD", {"lr": 1e-3, "momentum": 0.9, "nesterov": True}), ("SGD", {"lr": 1e-3, "momentum": 0.5, "dampening": 0.3}),
    ("SGD", {"lr": 1e-5, "momentum": 0.5, "weight_decay": 0.1, "maximize": True}),
    ("RMSprop", {"lr": 1e-3, "centered": True, "momentum": 0.5}), ("RMSprop", {"lr": 1e-3, "maximize": True}),
    ("Adagrad", {"lr": 0.05, "weight_decay": 0.1, "maximize": True}),
]
NEW = {"Adadelta", "Adamax", "NAdam", "RAdam", "ASGD", "Rprop"}


def _run(lib, name, kwargs, problem, steps, groups=False):
    start, f = PROBLEMS[problem]
    params = _params(lib, start)
    spec = [{"params": params[:1]}, {"params": params[1:], "lr": 0.003}] if groups else params
    opt = getattr(lib.optim, name)(spec, **kwargs)
    for _ in range(steps):
        opt.zero_grad()
        f(lib, *params).backward()
        opt.step()
    return params, opt


@pytest.mark.parametrize("problem", ["rosenbrock", "mlp"])
@pytest.mark.parametrize("name,kwargs", CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)])
def test_trajectory_and_state_as_torch(name, kwargs, problem):
    torch.set_default_dtype(torch.float64)   # scalar state (step) is float64, as PyTorch's under float64 (the engine's default)
    mine, opt = _run(ag, name, kwargs, problem, 12, groups=problem == "mlp")
    theirs, topt = _run(torch, name, kwargs, problem, 12, groups=problem == "mlp")
    for a, b in zip(mine, theirs):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12, atol=1e-14)
    _assert_same_state(opt.state_dict(), topt.state_dict())


@pytest.mark.parametrize("name,kwargs", [c for c in CASES if c[0] in NEW],
                         ids=[f"{n}-{i}" for i, (n, _) in enumerate(c for c in CASES if c[0] in NEW)])
def test_resuming_from_pytorchs_state_dict(name, kwargs):
    torch.set_default_dtype(torch.float64)
    theirs, topt = _run(torch, name, kwargs, "mlp", 4)
    saved = copy.deepcopy(topt.state_dict())
    mine = _params(ag, [t.detach().numpy() for t in theirs])
    opt = getattr(ag.optim, name)(mine)
    opt.load_state_dict(saved)
    _assert_same_state(opt.state_dict(), saved)
    for lib, o, params in ((ag, opt, mine), (torch, topt, theirs)):
        for _ in range(3):
            o.zero_grad()
            _mlp(lib, *params).backward()
            o.step()
    for a, b in zip(mine, theirs):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12, atol=1e-14)


def test_first_steps_by_hand():
    """One step from w = 2 on f(w) = w**2 (gradient 4), each optimizer's formula worked out."""
    def one(name, steps=1, **kwargs):
        w = ag.tensor([2.0], requires_grad=True)
        opt = getattr(ag.optim, name)([w], **kwargs)
        for _ in range(steps):
            opt.zero_grad()
            (w * w).sum().backward()
            opt.step()
        return w.item()
    # Adadelta: square_avg = 0.1 * 16, delta = sqrt(eps) / sqrt(1.6 + eps) * 4
    assert one("Adadelta") == pytest.approx(2 - np.sqrt(1e-6) / np.sqrt(1.6 + 1e-6) * 4, rel=1e-15)
    # Adamax: exp_avg = 0.4, exp_inf = 4 + eps, lr / (1 - 0.9) * 0.4 / (4 + eps)
    assert one("Adamax") == pytest.approx(2 - 2e-3 * 4 / (4 + 1e-8), rel=1e-15)
    # RAdam's first step (rho_t = 1) is SGD with the bias-corrected momentum: lr * 4
    assert one("RAdam", lr=0.1) == pytest.approx(1.6, rel=1e-15)
    # NAdam: mu = 0.9 (1 - 0.5 * 0.96 ** 0.004), mu' the same at step 2; m_hat and v_hat are 4 and 16
    mu, mu2 = 0.9 * (1 - 0.5 * 0.96 ** 0.004), 0.9 * (1 - 0.5 * 0.96 ** 0.008)
    expected = 2 - 2e-3 * (1 - mu) / (1 - mu) * 4 / (4 + 1e-8) - 2e-3 * mu2 / (1 - mu * mu2) * 0.4 / (4 + 1e-8)
    assert one("NAdam") == pytest.approx(expected, rel=1e-14)
    # ASGD: w (1 - lambd lr) - lr g
    assert one("ASGD", lr=0.1, lambd=0.5) == pytest.approx(2 * 0.95 - 0.4, rel=1e-15)
    # Rprop: the sign holds for two steps, so the second moves by lr * 1.2
    assert one("Rprop", steps=2, lr=0.1) == pytest.approx(2 - 0.1 - 0.12, rel=1e-15)


DEFAULTS = ["Adadelta", "Adamax", "NAdam", "RAdam", "ASGD", "Rprop", "LBFGS"]


@pytest.mark.parametrize("name", DEFAULTS)
def test_defaults_as_torch(name):
    mine = getattr(ag.optim, name)([ag.zeros(2, requires_grad=True)]).state_dict()
    theirs = getattr(torch.optim, name)([torch.zeros(2, requires_grad=True)]).state_dict()
    assert mine == theirs


ERRORS = [("Adadelta", {"lr": -1}), ("Adadelta", {"rho": 1.5}), ("Adadelta", {"eps": -1}),
          ("Adadelta", {"weight_decay": -1}), ("Adamax", {"betas": (0.9, 1.0)}), ("Adamax", {"eps": -1e-3}),
          ("NAdam", {"momentum_decay": -1}), ("NAdam", {"betas": (-0.1, 0.9)}), ("RAdam", {"weight_decay": -2}),
          ("ASGD", {"lr": -0.5}), ("ASGD", {"weight_decay": -1}), ("Rprop", {"etas": (1.5, 1.2)}),
          ("Rprop", {"lr": -1}), ("LBFGS", {"lr": -1})]


@pytest.mark.parametrize("name,kwargs", ERRORS)
def test_argument_errors_as_torch(name, kwargs):
    with pytest.raises(ValueError) as theirs:
        getattr(torch.optim, name)([torch.zeros(1, requires_grad=True)], **kwargs)
    with pytest.raises(ValueError) as mine:
        getattr(ag.optim, name)([ag.zeros(1, requires_grad=True)], **kwargs)
    assert str(mine.value) == str(theirs.value)


@pytest.mark.parametrize("name", ["Adadelta", "NAdam", "Rprop", "SGD"])
def test_closure_is_called_once_with_grad_enabled_and_its_loss_returned(name):
    w = ag.tensor([1.0, 2.0], requires_grad=True)
    opt = getattr(ag.optim, name)([w], lr=0.1)
    calls = []

    def closure():
        calls.append(ag.is_grad_enabled())
        opt.zero_grad()
        loss = (w * w).sum()
        loss.backward()
        return loss

    with ag.no_grad():
        loss = opt.step(closure)
    assert calls == [True] and loss.item() == 5.0


# -- LBFGS ------------------------------------------------------------------------------------------------------

def _lbfgs(lib, problem, kwargs, steps, change=None):
    start, f = PROBLEMS[problem]
    params = _params(lib, start)
    opt = lib.optim.LBFGS(params, **kwargs)
    if change:
        opt.param_groups[0].update(change)
    calls, losses = [0], []

    def closure():
        calls[0] += 1
        opt.zero_grad()
        loss = f(lib, *params)
        loss.backward()
        return loss

    for _ in range(steps):
        losses.append(opt.step(closure).item())
    return params, opt, calls[0], losses


LBFGS_CASES = [
    ("rosenbrock", {"line_search_fn": "strong_wolfe"}, 6, None),
    ("rosenbrock", {"lr": 0.02, "history_size": 3}, 4, None),
    ("rosenbrock", {"line_search_fn": "strong_wolfe", "max_iter": 50000, "max_eval": 50000,
                    "tolerance_change": np.finfo(float).eps, "history_size": 5}, 1, None),
    ("rosenbrock", {"line_search_fn": "strong_wolfe"}, 3, {"max_iter": 4}),
    # the engine's and PyTorch's MLP gradients can differ in the last bit, and many quasi-Newton
    # iterations on a network that can fit its data amplify that: a few iterations here
    ("mlp", {"lr": 0.8, "max_iter": 6}, 2, None),
    ("mlp", {"line_search_fn": "strong_wolfe", "history_size": 4, "max_iter": 6}, 2, None),
]


@pytest.mark.parametrize("problem,kwargs,steps,change", LBFGS_CASES)
def test_lbfgs_as_torch(problem, kwargs, steps, change):
    torch.set_default_dtype(torch.float64)
    mine, opt, my_calls, my_losses = _lbfgs(ag, problem, kwargs, steps, change)
    theirs, topt, their_calls, their_losses = _lbfgs(torch, problem, kwargs, steps, change)
    assert my_calls == their_calls
    # near the minimum a loss is a difference of nearly equal numbers: compared to the first one's scale
    np.testing.assert_allclose(my_losses, their_losses, rtol=1e-12, atol=1e-12 * their_losses[0])
    for a, b in zip(mine, theirs):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12, atol=1e-14)
    _assert_same_state(opt.state_dict(), topt.state_dict())


def test_lbfgs_finds_the_rosenbrock_minimum():
    (x,), opt, calls, _ = _lbfgs(ag, "rosenbrock", {"line_search_fn": "strong_wolfe", "tolerance_grad": 1e-10,
                                                    "tolerance_change": 1e-14}, 3)
    np.testing.assert_allclose(x.detach().numpy(), [1.0, 1.0], atol=1e-7)
    assert opt.state_dict()["state"][0]["func_evals"] == calls


def test_lbfgs_without_line_search_solves_a_quadratic():
    """0.5 x.A x - b.x has its minimum at A^-1 b = (0.2, 0.4)."""
    x = ag.tensor([2.0, -1.0], requires_grad=True)
    a, b = ag.tensor([[3.0, 1.0], [1.0, 2.0]]), ag.tensor([1.0, 1.0])
    opt = ag.optim.LBFGS([x], tolerance_grad=1e-12, tolerance_change=1e-15)

    def closure():
        opt.zero_grad()
        loss = 0.5 * (x @ (a @ x)) - b @ x
        loss.backward()
        return loss

    opt.step(closure)
    np.testing.assert_allclose(x.detach().numpy(), [0.2, 0.4], atol=1e-8)


def test_lbfgs_max_iter_changed_after_construction_takes_effect():
    _, _, calls, _ = _lbfgs(ag, "rosenbrock", {"lr": 0.01}, 1, {"max_iter": 3})
    assert calls == 3          # the first evaluation and two re-evaluations; the last iteration skips its own


def test_lbfgs_resumes_from_pytorchs_state_dict():
    torch.set_default_dtype(torch.float64)
    kwargs = {"line_search_fn": "strong_wolfe", "max_iter": 3, "history_size": 2}
    theirs, topt, _, _ = _lbfgs(torch, "mlp", kwargs, 2)
    saved = copy.deepcopy(topt.state_dict())
    mine = _params(ag, [t.detach().numpy() for t in theirs])
    opt = ag.optim.LBFGS(mine, **kwargs)
    opt.load_state_dict(saved)
    for lib, o, params in ((ag, opt, mine), (torch, topt, theirs)):
        def closure(o=o, lib=lib, params=params):
            o.zero_grad()
            loss = _mlp(lib, *params)
            loss.backward()
            return loss
        o.step(closure)
    for a, b in zip(mine, theirs):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12, atol=1e-14)
    _assert_same_state(opt.state_dict(), topt.state_dict())


def test_lbfgs_errors_as_torch():
    def caught(lib, make, *args):
        with pytest.raises(Exception) as error:
            make(lib)(*args)
        return type(error.value).__name__, str(error.value)

    def two_groups(lib):
        return lambda: lib.optim.LBFGS([{"params": [lib.zeros(1, requires_grad=True)]},
                                        {"params": [lib.zeros(1, requires_grad=True)]}])

    assert caught(ag, two_groups) == caught(torch, two_groups)

    def unknown_search(lib):
        w = lib.ones(1, requires_grad=True)
        opt = lib.optim.LBFGS([w], line_search_fn="backtracking")

        def closure():
            opt.zero_grad()
            loss = (w * w).sum()
            loss.backward()
            return loss
        return lambda: opt.step(closure)

    assert caught(ag, unknown_search) == caught(torch, unknown_search) == ("RuntimeError",
                                                                            "only 'strong_wolfe' is supported")


# -- swa_utils --------------------------------------------------------------------------------------------------

def _swa_run(lib):
    net = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4), lib.nn.Linear(4, 1))
    with lib.no_grad():
        for p, shape in zip(net.parameters(), [(4, 3), (4,), (4,), (4,), (1, 4), (1,)]):
            p.copy_(lib.tensor(np.linspace(-1, 1, int(np.prod(shape))).reshape(shape)))
    opt = lib.optim.SGD(net.parameters(), lr=0.1)
    swa_utils = lib.optim.swa_utils
    models = [swa_utils.AveragedModel(net), swa_utils.AveragedModel(net, multi_avg_fn=swa_utils.get_ema_multi_avg_fn(0.9)),
              swa_utils.AveragedModel(net, avg_fn=swa_utils.get_ema_avg_fn(0.8), use_buffers=True)]
    sched = swa_utils.SWALR(opt, swa_lr=0.05, anneal_epochs=3)
    x, y = lib.tensor(np.linspace(-2, 2, 24).reshape(8, 3)), lib.tensor(np.linspace(0, 1, 8).reshape(8, 1))
    lrs = []
    for _ in range(5):
        opt.zero_grad()
        ((net(x) - y) ** 2).mean().backward()
        opt.step()
        sched.step()
        lrs.append(opt.param_groups[0]["lr"])
        for m in models:
            m.update_parameters(net)
    models[0].eval()
    swa_utils.update_bn([x[:4], (x[4:], None)], models[0])
    values = [t.detach().numpy().copy() for m in models for t in list(m.parameters()) + list(m.buffers())]
    return values, lrs, models[0].training, net


def test_swa_utils_as_torch():
    torch.set_default_dtype(torch.float64)
    mine, theirs = _swa_run(ag), _swa_run(torch)
    assert mine[1] == pytest.approx(theirs[1], rel=1e-15) and mine[2] is theirs[2] is False
    for a, b in zip(mine[0], theirs[0]):
        assert a.dtype == b.dtype
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12 * float(np.abs(b).max()))


def test_swa_average_and_swalr_by_hand():
    """SWA's weights are the mean of the models seen; SWALR's cosine schedule from 0.1 to 0.05
    over 2 epochs is 0.1 -> 0.075 -> 0.05."""
    net = ag.nn.Linear(2, 1)
    swa = ag.optim.swa_utils.AveragedModel(net)
    seen = []
    for k in range(4):
        with ag.no_grad():
            net.weight.copy_(ag.tensor([[k ** 2, -k]], dtype=ag.float64))
        seen.append(net.weight.detach().numpy().copy())
        swa.update_parameters(net)
    np.testing.assert_allclose(swa.module.weight.detach().numpy(), np.mean(seen, axis=0), rtol=1e-15)
    assert int(swa.n_averaged) == 4
    opt = ag.optim.SGD(net.parameters(), lr=0.1)
    sched = ag.optim.swa_utils.SWALR(opt, swa_lr=0.05, anneal_epochs=2)
    rates = [opt.param_groups[0]["lr"]]
    for _ in range(3):
        opt.step()
        sched.step()
        rates.append(opt.param_groups[0]["lr"])
    assert rates == pytest.approx([0.1, 0.075, 0.05, 0.05], rel=1e-15)


# -- the base class ---------------------------------------------------------------------------------------------

def test_add_param_group_and_named_parameters_as_torch():
    torch.set_default_dtype(torch.float64)
    dicts, errors = {}, {}
    for lib in (ag, torch):
        net = lib.nn.Linear(2, 1)
        extra = lib.zeros(3, requires_grad=True)
        opt = lib.optim.NAdam(net.named_parameters(), lr=0.1)
        with pytest.raises(ValueError) as caught:
            opt.add_param_group({"params": [extra]})      # a group without names beside one with them
        opt2 = lib.optim.Adamax([net.weight], lr=0.1)
        opt2.add_param_group({"params": extra, "lr": 0.5})
        dicts[lib] = (opt.state_dict(), opt2.state_dict())
        errors[lib] = [str(caught.value)]
        for bad in (lambda: opt2.add_param_group({"params": [extra]}), lambda: lib.optim.Rprop(extra),
                    lambda: lib.optim.RAdam([extra, 3])):
            with pytest.raises((ValueError, TypeError)) as caught:
                bad()
            errors[lib].append((type(caught.value).__name__, str(caught.value).replace("Float", "Double")))
    for k in range(2):
        _assert_same_state(dicts[ag][k], dicts[torch][k])
    assert errors[ag] == errors[torch]
