"""nn's layers and losses against PyTorch 2.13 in float64: forward values, the gradients of
inputs and parameters, the nodes recorded (grad_fn names), errors; Module's hooks, buffers,
state_dict and ``delattr``; and a small CNN trained side by side from the same weights."""

from __future__ import annotations

import numpy as np
import pytest

from diffcompare import autograd as ag
import diffcompare.autograd.nn.functional as F

torch = pytest.importorskip("torch")
TF = torch.nn.functional
RNG = np.random.default_rng(29)


def _pair(*shapes):
    """The same random float64 data as an engine tensor and a torch tensor, requiring grad."""
    arrays = [RNG.standard_normal(s) for s in shapes]
    return ([ag.tensor(a, requires_grad=True) for a in arrays], [torch.tensor(a, requires_grad=True) for a in arrays])


def _same(mine, theirs, tol=1e-10):
    np.testing.assert_allclose(np.asarray(mine.detach().numpy()), theirs.detach().numpy(), rtol=tol, atol=tol)


def _compare(f_mine, f_torch, mine, theirs, seed_shape=None):
    """Forward values, grad_fn name and the gradient of every input for a random cotangent."""
    out, tout = f_mine(*mine), f_torch(*theirs)
    _same(out, tout)
    assert out.grad_fn.name() == tout.grad_fn.name()
    seed = RNG.standard_normal(tuple(tout.shape))
    out.backward(ag.tensor(seed))
    tout.backward(torch.tensor(seed))
    for a, b in zip(mine, theirs):
        _same(a.grad, b.grad)


@pytest.mark.parametrize("kw", [dict(), dict(stride=2), dict(padding=1), dict(padding=(2, 1), dilation=2),
                                dict(stride=(2, 1), padding="valid"), dict(padding="same"), dict(groups=2)],
                         ids=str)
def test_conv2d(kw):
    mine, theirs = _pair((2, 4, 7, 6), (6, 4 // kw.get("groups", 1), 3, 2), (6,))
    _compare(lambda x, w, b: F.conv2d(x, w, b, **kw), lambda x, w, b: TF.conv2d(x, w, b, **kw), mine, theirs)


def test_conv2d_without_bias_and_unbatched():
    mine, theirs = _pair((3, 5, 5), (2, 3, 2, 2))
    _compare(F.conv2d, TF.conv2d, mine, theirs)
    for lib in (ag, torch):
        with pytest.raises(RuntimeError, match="channels"):
            lib.conv2d(lib.ones(1, 2, 4, 4), lib.ones(1, 3, 2, 2))


@pytest.mark.parametrize("kw", [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1),
                                dict(kernel_size=2, stride=1, dilation=2), dict(kernel_size=3, stride=2, ceil_mode=True),
                                dict(kernel_size=(2, 3))], ids=str)
def test_max_pool2d(kw):
    mine, theirs = _pair((2, 3, 7, 6))
    _compare(lambda x: F.max_pool2d(x, **kw), lambda x: TF.max_pool2d(x, **kw), mine, theirs)
    _, idx = F.max_pool2d(mine[0], return_indices=True, **kw)
    _, tidx = TF.max_pool2d(theirs[0], return_indices=True, **kw)
    np.testing.assert_array_equal(idx.numpy(), tidx.numpy())


def test_max_pool2d_ties_and_module():
    data = np.zeros((1, 1, 4, 4))
    x, tx = ag.tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)
    _compare(ag.nn.MaxPool2d(2), torch.nn.MaxPool2d(2), [x], [tx])


def test_linear_records_what_torch_records():
    for shape in [(3,), (4, 3), (2, 4, 3)]:
        for bias in (True, False):
            layer, tlayer = ag.nn.Linear(3, 2, bias=bias), torch.nn.Linear(3, 2, bias=bias, dtype=torch.float64)
            with torch.no_grad():
                tlayer.weight.copy_(torch.tensor(layer.weight.detach().numpy()))
                if bias:
                    tlayer.bias.copy_(torch.tensor(layer.bias.detach().numpy()))
            mine, theirs = _pair(shape)
            out, tout = layer(mine[0]), tlayer(theirs[0])
            _same(out, tout)
            if (len(shape), bias) != (3, False):          # torch: UnsafeViewBackward0 there
                assert out.grad_fn.name() == tout.grad_fn.name()
            out.sum().backward()
            tout.sum().backward()
            _same(mine[0].grad, theirs[0].grad)
            _same(layer.weight.grad, tlayer.weight.grad)


def test_linear_functional_and_addmm():
    mine, theirs = _pair((4, 3), (2, 3), (2,))
    _compare(F.linear, TF.linear, mine, theirs)
    mine, theirs = _pair((4,), (4, 3), (3, 4))
    _compare(lambda b, x, y: ag.addmm(b, x, y, beta=0.5, alpha=2.0),
             lambda b, x, y: torch.addmm(b, x, y, beta=0.5, alpha=2.0), mine, theirs)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_mse_loss(reduction):
    mine, theirs = _pair((4, 3), (4, 3))
    _compare(lambda a, b: F.mse_loss(a, b, reduction=reduction),
             lambda a, b: TF.mse_loss(a, b, reduction=reduction), mine, theirs)
    assert F.mse_loss(*mine).grad_fn.name() == "MseLossBackward0"


@pytest.mark.parametrize("kw", [dict(), dict(reduction="sum"), dict(reduction="none"), dict(pos_weight=True),
                                dict(weight=True)], ids=str)
def test_binary_cross_entropy_with_logits(kw):
    mine, theirs = _pair((4, 3))
    target = RNG.random((4, 3))
    extra, textra = {}, {}
    for name in ("weight", "pos_weight"):
        if kw.get(name):
            w = RNG.random(3) + 0.5
            extra[name], textra[name] = ag.tensor(w), torch.tensor(w)
    red = {"reduction": kw["reduction"]} if "reduction" in kw else {}
    y, ty = ag.tensor(target, requires_grad=True), torch.tensor(target, requires_grad=True)
    _compare(lambda x, t: F.binary_cross_entropy_with_logits(x, t, **extra, **red),
             lambda x, t: TF.binary_cross_entropy_with_logits(x, t, **textra, **red), [mine[0], y], [theirs[0], ty])


def test_cross_entropy_records_nll_over_log_softmax():
    mine, theirs = _pair((5, 4))
    target = RNG.integers(0, 4, 5)
    out, tout = F.cross_entropy(mine[0], ag.tensor(target)), TF.cross_entropy(theirs[0], torch.tensor(target))
    _same(out, tout)
    names = [out.grad_fn.name(), out.grad_fn.next_functions[0][0].name()]
    assert names == [tout.grad_fn.name(), tout.grad_fn.next_functions[0][0].name()]
    assert names == ["NllLossBackward0", "LogSoftmaxBackward0"]


@pytest.mark.parametrize("shape", [(6, 3), (4, 3, 5)])
def test_batch_norm_1d_train_and_eval(shape):
    bn, tbn = ag.nn.BatchNorm1d(3, momentum=0.3), torch.nn.BatchNorm1d(3, momentum=0.3, dtype=torch.float64)
    for weight in (bn.weight, tbn.weight):
        with torch.no_grad():
            weight.data[...] = torch.tensor([0.5, 1.5, -2.0]) if weight is tbn.weight else np.array([0.5, 1.5, -2.0])
    for step in range(2):
        mine, theirs = _pair(shape)
        _compare(bn, tbn, mine, theirs)
        _same(bn.weight.grad, tbn.weight.grad)
        _same(bn.bias.grad, tbn.bias.grad)
    for name in ("running_mean", "running_var", "num_batches_tracked"):
        _same(getattr(bn, name), getattr(tbn, name), 1e-12)
    bn.eval()
    tbn.eval()
    mine, theirs = _pair(shape)
    _compare(bn, tbn, mine, theirs)
    assert list(bn.state_dict()) == list(tbn.state_dict())


def test_batch_norm_momentum_none_is_a_cumulative_average():
    bn, tbn = ag.nn.BatchNorm1d(2, momentum=None), torch.nn.BatchNorm1d(2, momentum=None, dtype=torch.float64)
    for _ in range(3):
        mine, theirs = _pair((5, 2))
        bn(mine[0]), tbn(theirs[0])
    _same(bn.running_var, tbn.running_var, 1e-12)


def test_batch_norm_double_backward():
    mine, theirs = _pair((5, 2))
    outs = []
    for lib, x in ((ag, mine[0]), (torch, theirs[0])):
        bn = lib.nn.BatchNorm1d(2) if lib is ag else torch.nn.BatchNorm1d(2, dtype=torch.float64)
        y = (bn(x) ** 3).sum()
        (g,) = lib.autograd.grad(y, x, create_graph=True)
        (g * g).sum().backward()
        outs.append(x.grad)
    _same(*outs)


def test_dropout_flatten_identity():
    x, tx = _pair((4, 5))
    for lib, t in ((ag, x[0]), (torch, tx[0])):
        drop = lib.nn.Dropout(0.4)
        out = drop(t)
        assert out.grad_fn.name() == "MulBackward0"
        kept = out.detach().numpy() != 0
        np.testing.assert_allclose(out.detach().numpy()[kept], t.detach().numpy()[kept] / 0.6, rtol=1e-12)
        drop.eval()
        assert drop(t) is t
        assert lib.nn.Identity(3, foo=1)(t) is t
        assert lib.nn.Flatten()(lib.ones(2, 3, 4)).shape == (2, 12)
        assert lib.nn.Flatten(0)(lib.ones(2, 3, requires_grad=True) * 1).grad_fn.name() == "ViewBackward0"
    ag.manual_seed(3)
    a = F.dropout(ag.ones(50), 0.5)
    ag.manual_seed(3)
    np.testing.assert_array_equal(a.numpy(), F.dropout(ag.ones(50), 0.5).numpy())


def test_module_structure_hooks_and_state():
    for lib in (ag, torch):
        net = lib.nn.Sequential(lib.nn.Conv2d(1, 2, 3), lib.nn.ReLU(), lib.nn.Flatten(), lib.nn.Linear(8, 3),
                                lib.nn.BatchNorm1d(3))
        names = [n for n, _ in net.named_modules()]
        assert names == ["", "0", "1", "2", "3", "4"]
        keys = list(net.state_dict())
        assert keys == ["0.weight", "0.bias", "3.weight", "3.bias", "4.weight", "4.bias", "4.running_mean",
                        "4.running_var", "4.num_batches_tracked"]
        assert [n for n, _ in net.named_parameters()] == keys[:6]
        layer = net[3]
        del layer.weight
        assert [n for n, _ in layer.named_parameters()] == ["bias"] and not hasattr(layer, "weight")
        layer.weight = lib.ones(3, 8)               # a plain tensor now: no parameter
        assert [n for n, _ in layer.named_parameters()] == ["bias"]
        with pytest.raises(TypeError, match="cannot assign"):
            layer.bias = lib.ones(3)
        assert net.train(False) is net and not net[4].training
    mine, theirs = ag.nn.Linear(2, 2), torch.nn.Linear(2, 2)
    with pytest.raises(RuntimeError, match="Missing key"):
        mine.load_state_dict({"weight": ag.ones(2, 2)})
    with pytest.raises(RuntimeError, match="size mismatch for bias"):
        mine.load_state_dict({"weight": ag.ones(2, 2), "bias": ag.ones(3)})
    assert repr(mine.load_state_dict({"weight": ag.ones(2, 2), "bias": ag.ones(2)})) == \
        repr(theirs.load_state_dict({"weight": torch.ones(2, 2), "bias": torch.ones(2)}))
    assert mine.to("cpu") is mine and mine.to(ag.float32).weight.dtype == ag.float32
    with pytest.raises(AssertionError, match="CUDA"):
        mine.to("cuda")


def test_forward_and_full_backward_hooks():
    seen = {}
    mine, theirs = _pair((4, 3))
    for lib, x in ((ag, mine[0]), (torch, theirs[0])):
        layer = lib.nn.Linear(3, 2) if lib is ag else torch.nn.Linear(3, 2, dtype=torch.float64)
        with torch.no_grad():
            layer.weight.data[...] = torch.ones(2, 3) if lib is torch else np.ones((2, 3))
            layer.bias.data[...] = torch.zeros(2) if lib is torch else np.zeros(2)
        calls = []
        h1 = layer.register_forward_hook(lambda m, args, out: calls.append(("fwd", tuple(out.shape))))
        h2 = layer.register_full_backward_hook(
            lambda m, gi, go: calls.append(("bwd", [None if g is None else g.detach().numpy().copy() for g in gi],
                                            [g.detach().numpy().copy() for g in go])) or (gi[0] * 2,))
        out = layer(x)
        (out * out).sum().backward()
        h1.remove(), h2.remove()
        layer(x)
        seen[lib] = (calls, x.grad.detach().numpy(), out.grad_fn.name())
        # an input that does not require grad: grad_input is (None,)
        calls2 = []
        layer.register_full_backward_hook(lambda m, gi, go: calls2.append(gi))
        with pytest.warns(UserWarning, match="Full backward hook is firing when gradients are computed with "
                                             "respect to module outputs since no inputs require gradients"):
            layer(x.detach()).sum().backward()
        assert calls2 == [(None,)]
    (c1, g1, n1), (c2, g2, n2) = seen[ag], seen[torch]
    assert n1 == n2 == "BackwardHookFunctionBackward"
    assert [c[0] for c in c1] == [c[0] for c in c2] == ["fwd", "bwd"]
    assert c1[0] == c2[0]
    np.testing.assert_allclose(c1[1][1][0], c2[1][1][0], rtol=1e-12)
    np.testing.assert_allclose(c1[1][2][0], c2[1][2][0], rtol=1e-12)
    np.testing.assert_allclose(g1, g2, rtol=1e-12)


class _CNN:
    """Conv2d -> ReLU -> MaxPool2d -> Flatten -> Linear, for either library."""

    @staticmethod
    def build(lib):
        return lib.nn.Sequential(lib.nn.Conv2d(2, 3, 3, padding=1), lib.nn.ReLU(), lib.nn.MaxPool2d(2),
                                 lib.nn.Flatten(), lib.nn.Linear(3 * 3 * 3, 4))


@pytest.mark.parametrize("optimizer", ["SGD", "Adam"])
def test_a_small_cnn_trains_as_in_torch(optimizer):
    torch.manual_seed(0)
    tnet = _CNN.build(torch).double()
    net = _CNN.build(ag)
    net.load_state_dict({k: ag.tensor(v.numpy()) for k, v in tnet.state_dict().items()})
    kwargs = {"lr": 0.1, "momentum": 0.9} if optimizer == "SGD" else {"lr": 0.01}
    opt, topt = getattr(ag.optim, optimizer)(net.parameters(), **kwargs), \
        getattr(torch.optim, optimizer)(tnet.parameters(), **kwargs)
    x = RNG.standard_normal((5, 2, 6, 6))
    y = RNG.integers(0, 4, 5)
    losses, tlosses = [], []
    for _ in range(4):
        for model, o, lib, out in ((net, opt, ag, losses), (tnet, topt, torch, tlosses)):
            o.zero_grad()
            loss = lib.nn.functional.cross_entropy(model(lib.tensor(x)), lib.tensor(y))
            loss.backward()
            o.step()
            out.append(loss.item())
    np.testing.assert_allclose(losses, tlosses, rtol=1e-10, atol=1e-12)
    for (name, p), (_, tp) in zip(net.named_parameters(), tnet.named_parameters()):
        _same(p, tp)
