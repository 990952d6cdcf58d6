"""``torch.func.replace_all_batch_norm_modules_`` (vmap over a model with batch norm),
``torch.func.functionalize`` (the same values as the function, input mutations included),
vmap's randomness modes ("error" refuses a draw, "same", "different") and
functorch's ``combine_state_for_ensemble``, compared with PyTorch."""

import warnings

import numpy as np
import pytest

from diffcompare import autograd as ag
from diffcompare.autograd import functorch as ag_functorch

torch = pytest.importorskip("torch")


def _set(lib, module):
    with lib.no_grad():
        for k, p in enumerate(module.parameters()):
            p.copy_(lib.linspace(-1, 1, p.numel()).reshape(p.shape) * (k + 1))
    return module


def _batch_norm(lib):
    net = _set(lib, lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4), lib.nn.ReLU()))
    x = lib.linspace(-2, 2, 24).reshape(2, 4, 3)
    lib.func.replace_all_batch_norm_modules_(net)
    net.eval()
    return (net[1].running_mean is None, net[1].track_running_stats, sorted(dict(net.named_buffers())),
            lib.func.vmap(net)(x).detach().numpy())


def test_batch_norm_without_running_stats_under_vmap(torch_float64):
    ours, theirs = _batch_norm(ag), _batch_norm(torch)
    assert ours[:3] == theirs[:3] == (True, False, [])
    np.testing.assert_allclose(ours[3], theirs[3], rtol=1e-12, atol=1e-14)


def _functionalized(lib):
    def f(a):
        b = a.view(-1)
        b.add_(1)
        return a * 2
    inp = lib.zeros(2, 2)
    out = lib.func.functionalize(f)(inp)
    out2 = lib.func.functionalize(f, remove="mutations_and_views")(inp)
    try:
        lib.func.functionalize(f, remove="views")
        refused = None
    except RuntimeError as error:
        refused = str(error).split(".")[0]
    return out.tolist(), out2.tolist(), inp.tolist(), refused


def test_functionalize_gives_the_functions_values(torch_float64):
    assert _functionalized(ag) == _functionalized(torch)


def test_combine_state_for_ensemble_as_functorch(torch_float64):
    functorch = pytest.importorskip("functorch")

    def run(lib, ft):
        models = [lib.nn.Linear(3, 3) for _ in range(5)]
        with lib.no_grad():
            for i, m in enumerate(models):
                m.weight.fill_(i * 0.1)
                m.bias.fill_(-i)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fmodel, params, buffers = ft.combine_state_for_ensemble(models)
            out = ft.vmap(fmodel, (0, 0, None))(params, buffers, lib.ones(4, 3))
        return tuple(out.shape), out.detach().numpy().tolist(), [p.requires_grad for p in params], buffers
    assert run(ag, ag_functorch) == run(torch, functorch)
    with pytest.raises(RuntimeError, match="Expected at least one model"):
        ag_functorch.combine_state_for_ensemble([])


def _randomness(lib):
    seen = []
    for mode in ("error", "same", "different"):
        lib.manual_seed(0)
        try:
            out = lib.func.vmap(lambda x: x + lib.randn(()), randomness=mode)(lib.ones(3))
            seen.append((mode, bool((out == out[0]).all())))
        except RuntimeError as error:
            seen.append((mode, str(error)))
    for name, f in (("dropout", lambda x: lib.nn.functional.dropout(x, 0.5)),
                    ("a new Linear", lambda x: lib.nn.Linear(2, 1)(x)),
                    ("dropout in eval", lambda x: lib.nn.functional.dropout(x, 0.5, training=False))):
        try:
            seen.append((name, tuple(lib.func.vmap(f)(lib.ones(3, 2)).shape)))
        except RuntimeError as error:
            seen.append((name, str(error)))
    same = lib.func.vmap(lambda x: x * lib.rand_like(x), randomness="same")(lib.ones(3, 2))
    seen.append(("rand_like same", bool((same == same[0]).all())))
    try:
        lib.func.vmap(lambda x: x, randomness="bad")
    except RuntimeError as error:
        seen.append(("bad", str(error)))
    return seen


def test_vmap_randomness_modes_are_pytorchs(torch_float64):
    assert _randomness(ag) == _randomness(torch)
