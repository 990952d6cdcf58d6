"""``nn.utils.prune`` against PyTorch's: masks, parameter / buffer / state_dict names and order,
forward values, gradients through the pruned weight, the hooks, iterative and global pruning,
``remove``, ties, and error messages. Random pruning draws PyTorch's numbers on both sides (the
engine's ``rand_like`` / ``rand`` take them, as the porting harness makes them)."""

import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from diffcompare import autograd as ag  # noqa: E402
from diffcompare.autograd.nn.utils import prune as AP  # noqa: E402

import torch.nn.utils.prune as TP  # noqa: E402


pytestmark = pytest.mark.usefixtures("torch_float64")     # PyTorch in float64, as the engine


@pytest.fixture
def torch_draws(monkeypatch):
    """The engine's ``rand_like`` and ``rand`` return PyTorch's draws for the same call."""
    def rand_like(t, **kwargs):
        return ag.tensor(torch.rand(tuple(t.shape), dtype=torch.float64).numpy())

    def rand(*size, **kwargs):
        return ag.tensor(torch.rand(*size, dtype=torch.float64).numpy())

    monkeypatch.setattr(ag, "rand_like", rand_like)
    monkeypatch.setattr(ag, "rand", rand)


def _np(t):
    if isinstance(t, np.ndarray):
        return t
    return t.detach().numpy() if isinstance(t, torch.Tensor) else np.asarray(t.detach()._data)


def same(a, b, tol=1e-12):
    a, b = _np(a), _np(b)
    assert a.shape == b.shape
    assert np.abs(a - b).max(initial=0.0) <= tol * max(np.abs(b).max(initial=0.0), 1.0)


def pair(make_torch, make_ag, seed=0, values=None):
    """A PyTorch module and the engine's with the same parameter values."""
    torch.manual_seed(seed)
    t = make_torch()
    e = make_ag()
    theirs = dict(t.named_parameters())
    for name, p in e.named_parameters():
        src = theirs[name].detach().numpy()
        if values is not None and name in values:
            src = np.asarray(values[name], dtype=float)
            with torch.no_grad():
                theirs[name].copy_(torch.from_numpy(src))
        p._data[...] = src
    return t, e


def linear_pair(i=6, o=4, **kw):
    return pair(lambda: torch.nn.Linear(i, o), lambda: ag.nn.Linear(i, o), **kw)


def conv_pair(**kw):
    return pair(lambda: torch.nn.Conv2d(3, 6, 3), lambda: ag.nn.Conv2d(3, 6, 3), **kw)


def check_state(t, e):
    """Names and order of parameters, buffers, state_dict; mask and weight values; hooks."""
    assert [n for n, _ in e.named_parameters()] == [n for n, _ in t.named_parameters()]
    assert [n for n, _ in e.named_buffers()] == [n for n, _ in t.named_buffers()]
    assert list(e.state_dict().keys()) == list(t.state_dict().keys())
    for (_, a), (_, b) in zip(t.state_dict().items(), e.state_dict().items()):
        same(b, a)
    assert [type(h).__name__ for h in e._forward_pre_hooks.values()] == [
        type(h).__name__ for h in t._forward_pre_hooks.values()]
    for name in ("weight", "bias"):
        if hasattr(t, name):
            same(getattr(e, name), getattr(t, name))
            tf, ef = getattr(t, name).grad_fn, getattr(e, name).grad_fn
            assert (ef.name() if ef else None) == (tf.name() if tf else None)


def check_forward_backward(t, e, shape):
    x = np.random.default_rng(3).standard_normal(shape)
    yt, ye = t(torch.from_numpy(x)), e(ag.tensor(x))
    same(ye, yt)
    u = np.random.default_rng(4).standard_normal(tuple(yt.shape))
    (yt * torch.from_numpy(u)).sum().backward()
    (ye * ag.tensor(u)).sum().backward()
    for (name, a), (_, b) in zip(t.named_parameters(), e.named_parameters()):
        same(b.grad, a.grad)


@pytest.mark.parametrize("amount", [0.3, 5, 0, 1.0])
def test_l1_unstructured(amount):
    t, e = conv_pair()
    TP.l1_unstructured(t, "weight", amount=amount)
    AP.l1_unstructured(e, "weight", amount=amount)
    check_state(t, e)
    check_forward_backward(t, e, (2, 3, 5, 5))


def test_the_gradient_of_orig_is_the_mask_times_the_upstream_gradient():
    t, e = linear_pair()
    TP.l1_unstructured(t, "weight", amount=0.5)
    AP.l1_unstructured(e, "weight", amount=0.5)
    u = np.random.default_rng(0).standard_normal((4, 6))
    (t.weight * torch.from_numpy(u)).sum().backward()
    (e.weight * ag.tensor(u)).sum().backward()
    same(e.weight_orig.grad, t.weight_orig.grad)
    same(e.weight_orig.grad, _np(t.weight_mask) * u)


@pytest.mark.parametrize("n", [1, 2, 3, math.inf, -math.inf])
@pytest.mark.parametrize("dim", [0, 1, -1, 3])
def test_ln_structured(n, dim):
    t, e = conv_pair()
    TP.ln_structured(t, "weight", amount=0.5, n=n, dim=dim)
    AP.ln_structured(e, "weight", amount=0.5, n=n, dim=dim)
    check_state(t, e)
    check_forward_backward(t, e, (1, 3, 4, 4))


@pytest.mark.parametrize("dim", [0, 1])
def test_ln_structured_frobenius_of_a_matrix(dim):
    t, e = linear_pair()
    TP.ln_structured(t, "weight", amount=2, n="fro", dim=dim)
    AP.ln_structured(e, "weight", amount=2, n="fro", dim=dim)
    check_state(t, e)


def test_random_unstructured(torch_draws):
    t, e = conv_pair()
    torch.manual_seed(5)
    TP.random_unstructured(t, "weight", amount=0.3)
    torch.manual_seed(5)
    AP.random_unstructured(e, "weight", amount=0.3)
    check_state(t, e)
    check_forward_backward(t, e, (1, 3, 4, 4))


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_random_structured(torch_draws, dim):
    t, e = conv_pair()
    torch.manual_seed(6)
    TP.random_structured(t, "weight", amount=2, dim=dim)
    torch.manual_seed(6)
    AP.random_structured(e, "weight", amount=2, dim=dim)
    check_state(t, e)


def test_the_tutorials_iterative_pruning(torch_draws):
    t, e = conv_pair()
    torch.manual_seed(7)
    for P in (TP, AP):
        module = t if P is TP else e
        if P is AP:
            torch.manual_seed(7)
        P.random_unstructured(module, name="weight", amount=0.3)
        P.l1_unstructured(module, name="bias", amount=3)
        P.ln_structured(module, name="weight", amount=0.5, n=2, dim=0)
        P.random_structured(module, name="weight", amount=1, dim=1)
        P.l1_unstructured(module, name="weight", amount=0.2)
    check_state(t, e)
    (ht,), (he,) = [[h for h in m._forward_pre_hooks.values() if h._tensor_name == "weight"] for m in (t, e)]
    assert [type(h).__name__ for h in he] == [type(h).__name__ for h in ht]
    check_forward_backward(t, e, (1, 3, 4, 4))
    TP.remove(t, "weight")
    AP.remove(e, "weight")
    check_state(t, e)
    assert isinstance(e.weight, ag.nn.Parameter)
    TP.remove(t, "bias")
    AP.remove(e, "bias")
    check_state(t, e)
    check_forward_backward(t, e, (1, 3, 4, 4))


def test_identity_and_custom_from_mask():
    t, e = linear_pair()
    mask = np.random.default_rng(1).integers(0, 2, (4, 6))
    TP.identity(t, "bias")
    AP.identity(e, "bias")
    TP.custom_from_mask(t, "weight", torch.from_numpy(mask))
    AP.custom_from_mask(e, "weight", ag.tensor(mask))
    TP.custom_from_mask(t, "weight", torch.from_numpy(1 - mask[::-1].copy()))
    AP.custom_from_mask(e, "weight", ag.tensor(1 - mask[::-1].copy()))
    check_state(t, e)
    check_forward_backward(t, e, (3, 6))


def test_global_unstructured_over_several_modules():
    torch.manual_seed(0)
    tm = torch.nn.Sequential(torch.nn.Conv2d(1, 4, 3), torch.nn.Flatten(), torch.nn.Linear(4 * 4 * 4, 10),
                             torch.nn.Linear(10, 3))
    em = ag.nn.Sequential(ag.nn.Conv2d(1, 4, 3), ag.nn.Flatten(), ag.nn.Linear(4 * 4 * 4, 10), ag.nn.Linear(10, 3))
    for (_, a), (_, b) in zip(tm.named_parameters(), em.named_parameters()):
        b._data[...] = a.detach().numpy()
    TP.l1_unstructured(tm[3], "weight", amount=4)          # one of them pruned already
    AP.l1_unstructured(em[3], "weight", amount=4)
    for P, m in ((TP, tm), (AP, em)):
        params = [(m[0], "weight"), (m[2], "weight"), (m[3], "weight"), (m[3], "bias")]
        P.global_unstructured(params, pruning_method=P.L1Unstructured, amount=0.4)
        P.global_unstructured(params, pruning_method=P.L1Unstructured, amount=25)
    for i in (0, 2, 3):
        check_state(tm[i], em[i])
    assert list(em.state_dict().keys()) == list(tm.state_dict().keys())
    check_forward_backward(tm, em, (2, 1, 6, 6))


def test_ties_pick_as_pytorch():
    # many equal magnitudes: which of them go is topk's choice among ties
    values = {"weight": np.tile([[0.5, -0.5, 1.0], [1.0, 0.5, -1.0]], (4, 4))}
    t, e = pair(lambda: torch.nn.Linear(12, 8), lambda: ag.nn.Linear(12, 8), values=values)
    TP.l1_unstructured(t, "weight", amount=37)
    AP.l1_unstructured(e, "weight", amount=37)
    TP.ln_structured(t, "weight", amount=3, n=1, dim=1)
    AP.ln_structured(e, "weight", amount=3, n=1, dim=1)
    t.bias.data.zero_()
    e.bias.data.zero_()
    TP.l1_unstructured(t, "bias", amount=3)
    AP.l1_unstructured(e, "bias", amount=3)
    check_state(t, e)


def test_topk_ties_against_torch():
    rng = np.random.default_rng(2)
    for _ in range(200):
        n = int(rng.integers(1, 300))
        x = rng.integers(0, int(rng.integers(1, 5)), n).astype(float)
        if rng.random() < 0.2:
            x[rng.integers(0, n, 2)] = np.nan
        k = int(rng.integers(0, n + 1))
        for largest in (True, False):
            for srt in (True, False):
                a = torch.topk(torch.from_numpy(x), k, largest=largest, sorted=srt)
                b = ag.topk(ag.tensor(x), k, largest=largest, sorted=srt)
                assert b.indices.tolist() == a.indices.tolist()
                np.testing.assert_array_equal(_np(b.values), _np(a.values))
    x = rng.integers(0, 3, (3, 50, 4)).astype(float)
    for d in range(3):
        assert ag.topk(ag.tensor(x), 2, dim=d).indices.tolist() == torch.topk(torch.from_numpy(x), 2, dim=d).indices.tolist()


def test_importance_scores():
    t, e = linear_pair()
    s = np.random.default_rng(5).standard_normal((4, 6))
    TP.l1_unstructured(t, "weight", amount=7, importance_scores=torch.from_numpy(s))
    AP.l1_unstructured(e, "weight", amount=7, importance_scores=ag.tensor(s))
    TP.ln_structured(t, "weight", amount=1, n=2, dim=0, importance_scores=torch.from_numpy(s))
    AP.ln_structured(e, "weight", amount=1, n=2, dim=0, importance_scores=ag.tensor(s))
    check_state(t, e)


def test_the_forward_pre_hook_follows_orig():
    t, e = linear_pair()
    TP.l1_unstructured(t, "weight", amount=10)
    AP.l1_unstructured(e, "weight", amount=10)
    for m in (t, e):
        with (torch if m is t else ag).no_grad():
            m.weight_orig.mul_(-2.0)
    check_forward_backward(t, e, (2, 6))
    same(e.weight, t.weight)


def _error(call):
    with pytest.raises(Exception) as info:
        call()
    return type(info.value), str(info.value)


@pytest.mark.parametrize("call", [
    lambda P, m: P.l1_unstructured(m, "weight", amount=-2),
    lambda P, m: P.l1_unstructured(m, "weight", amount=1.2),
    lambda P, m: P.l1_unstructured(m, "weight", amount=None),
    lambda P, m: P.l1_unstructured(m, "weight", amount=25),
    lambda P, m: P.random_structured(m, "bias", amount=1, dim=0),
    lambda P, m: P.ln_structured(m, "weight", amount=1, n=2, dim=2),
    lambda P, m: P.ln_structured(m, "weight", amount=7, n=2, dim=1),
    lambda P, m: P.global_unstructured([(m, "weight")], P.LnStructured, amount=1, n=1, dim=0),
    lambda P, m: P.custom_from_mask(m, "weight", mask=(torch if P is TP else ag).ones(3)),
])
def test_errors_are_pytorchs(call):
    t, e = linear_pair()
    kind, message = _error(lambda: call(TP, t))
    kind_e, message_e = _error(lambda: call(AP, e))
    assert kind_e.__name__ == kind.__name__
    assert message_e == message.replace("torch.nn.utils.prune", "diffcompare.autograd.nn.utils.prune")
    check_state(t, e)                 # both rolled back alike
