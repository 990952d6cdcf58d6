"""Convolutions of every rank (and transposed), tensor-dependent random draws, dropout as
PyTorch draws it, scatter / index_add / index_fill, batched matmul's node names and the module
containers: engine-only checks with values derived by hand or by finite differences, then
differential checks beside PyTorch (skipped where it is absent)."""

from __future__ import annotations

import numpy as np
import pytest

from diffcompare import autograd as ag
import diffcompare.autograd.nn.functional as F

RNG = np.random.default_rng(20240613)


def _fd_grad(f, a, eps=1e-6):
    """Central finite differences of the scalar ``f`` at the array ``a``."""
    g = np.zeros_like(a)
    for i in np.ndindex(a.shape):
        d = np.zeros_like(a)
        d[i] = eps
        g[i] = (f(a + d) - f(a - d)) / (2 * eps)
    return g


# -- engine only ------------------------------------------------------------------------------

def test_conv_transpose1d_by_hand():
    # each input element spreads its value times the kernel, shifted by stride: [1, 2] * [1, 1, 1], stride 2
    y = ag.conv_transpose1d(ag.tensor([[[1.0, 2.0]]]), ag.ones(1, 1, 3), stride=2)
    assert y.tolist() == [[[1.0, 1.0, 3.0, 2.0, 2.0]]]
    # output_padding adds a zero position at the end; padding crops both ends
    y = ag.conv_transpose1d(ag.tensor([[[1.0, 2.0]]]), ag.ones(1, 1, 3), stride=2, padding=1, output_padding=1)
    assert y.tolist() == [[[1.0, 3.0, 2.0, 2.0]]]


def test_conv1d_by_hand_and_node():
    x = ag.tensor([[[1.0, 2.0, 3.0, 4.0]]], requires_grad=True)
    y = ag.conv1d(x, ag.tensor([[[1.0, -1.0]]]), ag.tensor([0.5]), dilation=2)
    assert y.tolist() == [[[-1.5, -1.5]]] and y.grad_fn.name() == "ConvolutionBackward0"
    y.sum().backward()
    assert x.grad.tolist() == [[[1.0, 1.0, -1.0, -1.0]]]


@pytest.mark.parametrize("transposed", [False, True])
def test_conv3d_gradients_match_finite_differences(transposed):
    x = RNG.standard_normal((1, 2, 3, 3, 3))
    w = RNG.standard_normal((2, 2, 2, 1, 2))
    g = RNG.standard_normal(ag.conv_transpose3d(ag.tensor(x), ag.tensor(w), stride=(2, 1, 1), padding=(1, 0, 0)).shape
                            if transposed else ag.conv3d(ag.tensor(x), ag.tensor(w), stride=(2, 1, 1), padding=(1, 0, 0)).shape)
    conv = ag.conv_transpose3d if transposed else ag.conv3d

    def value(xa, wa):
        return float((conv(ag.tensor(xa), ag.tensor(wa), stride=(2, 1, 1), padding=(1, 0, 0)) * ag.tensor(g)).sum())

    tx, tw = ag.tensor(x, requires_grad=True), ag.tensor(w, requires_grad=True)
    (conv(tx, tw, stride=(2, 1, 1), padding=(1, 0, 0)) * ag.tensor(g)).sum().backward()
    np.testing.assert_allclose(tx.grad.numpy(), _fd_grad(lambda a: value(a, w), x), atol=1e-7)
    np.testing.assert_allclose(tw.grad.numpy(), _fd_grad(lambda a: value(x, a), w), atol=1e-7)


def test_conv_modules_shapes_and_reprs():
    assert ag.nn.ConvTranspose2d(4, 6, 3, stride=2, groups=2).weight.shape == (4, 3, 3, 3)
    assert ag.nn.ConvTranspose2d(4, 6, 3, stride=2, output_padding=1)(ag.randn(1, 4, 5, 5)).shape == (1, 6, 12, 12)
    assert ag.nn.Conv1d(3, 5, 2)(ag.randn(2, 3, 7)).shape == (2, 5, 6)
    assert ag.nn.Conv3d(1, 2, (1, 2, 3))(ag.randn(1, 1, 2, 3, 4)).shape == (1, 2, 2, 2, 2)
    assert repr(ag.nn.Conv1d(16, 33, 3, stride=2)) == "Conv1d(16, 33, kernel_size=(3,), stride=(2,))"
    with pytest.raises(RuntimeError, match="output padding must be smaller than either stride or dilation"):
        ag.conv_transpose1d(ag.ones(1, 1, 2), ag.ones(1, 1, 2), output_padding=1)


def test_draws_record_zero_gradients():
    p = ag.tensor([0.0, 1.0, 1.0], requires_grad=True)
    y = ag.bernoulli(p)
    assert y.tolist() == [0.0, 1.0, 1.0] and y.grad_fn.name() == "BernoulliBackward0"
    m = ag.tensor([1.0, 2.0], requires_grad=True)
    z = ag.normal(m, 0.0)
    assert z.tolist() == [1.0, 2.0] and z.grad_fn.name() == "NormalBackward1"
    (y.sum() + z.sum()).backward()
    assert p.grad.tolist() == [0.0, 0.0, 0.0] and m.grad.tolist() == [0.0, 0.0]
    assert ag.normal(1.0, m).grad_fn.name() == "NormalBackward2"
    assert ag.normal(m, m).grad_fn.name() == "NormalBackward3"
    assert ag.zeros(4).bernoulli_(1.0).tolist() == [1.0] * 4
    assert ag.multinomial(ag.tensor([0.0, 0.0, 1.0]), 1).tolist() == [2]
    assert sorted(ag.multinomial(ag.tensor([1.0, 1.0, 1.0]), 3).tolist()) == [0, 1, 2]
    with pytest.raises(RuntimeError, match="without replacement"):
        ag.multinomial(ag.tensor([1.0, 1.0]), 3)


def test_dropout_is_input_times_scaled_noise():
    x = ag.ones(2000, requires_grad=True)
    y = F.dropout(x, 0.25)
    kept = y.detach().numpy() != 0
    assert y.grad_fn.name() == "MulBackward0"
    np.testing.assert_allclose(y.detach().numpy()[kept], 1 / 0.75)
    assert 0.7 < kept.mean() < 0.8
    assert F.dropout(x, 0.0) is x and F.dropout(x, 0.5, training=False) is x
    assert F.dropout(x, 1.0).detach().numpy().max() == 0.0
    channels = F.dropout2d(ag.ones(3, 40, 2, 2), 0.5).numpy()
    assert np.all(channels.min(axis=(2, 3)) == channels.max(axis=(2, 3)))     # whole channels kept or zeroed


def test_scatter_index_add_index_fill_by_hand():
    x = ag.zeros(2, 3, requires_grad=True)
    src = ag.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
    y = x.scatter(0, ag.tensor([[1, 0, 1]]), src)
    assert y.tolist() == [[0.0, 2.0, 0.0], [1.0, 0.0, 3.0]] and y.grad_fn.name() == "ScatterBackward0"
    (y * ag.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])).sum().backward()
    assert x.grad.tolist() == [[1.0, 0.0, 3.0], [0.0, 5.0, 0.0]] and src.grad.tolist() == [[4.0, 2.0, 6.0]]
    a = ag.ones(3, 2).index_add_(0, ag.tensor([0, 2, 0]), ag.tensor([[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]]), alpha=2)
    assert a.tolist() == [[9.0, 9.0], [1.0, 1.0], [5.0, 5.0]]
    assert ag.ones(2, 3).index_fill(1, ag.tensor([0, 2]), -1.0).tolist() == [[-1.0, 1.0, -1.0]] * 2


def test_batched_matmul_node_names():
    a = ag.ones(2, 3, 4, requires_grad=True)
    assert (a @ ag.ones(4, 5)).grad_fn.name() == "UnsafeViewBackward0"
    assert (ag.ones(3, 4, requires_grad=True) @ ag.ones(2, 4, 5)).grad_fn.name() == "CloneBackward0"


def test_module_containers_register_their_members():
    blocks = ag.nn.ModuleList([ag.nn.Linear(2, 2), ag.nn.Linear(2, 1)])
    heads = ag.nn.ModuleDict(dict(h=blocks, out=ag.nn.Linear(1, 1)))
    names = [n for n, _ in heads.named_parameters()]
    assert names == ["h.0.weight", "h.0.bias", "h.1.weight", "h.1.bias", "out.weight", "out.bias"]
    assert blocks[-1] is heads["h"][1] and len(heads) == 2 and "out" in heads
    params = ag.nn.ParameterList([ag.ones(2)])
    assert isinstance(params[0], ag.nn.Parameter) and len(list(params.parameters())) == 1
    pdict = ag.nn.ParameterDict({"a": ag.ones(1)})
    assert [n for n, _ in pdict.named_parameters()] == ["a"]


# -- beside PyTorch ---------------------------------------------------------------------------

CONVS = [
    ("conv1d", (2, 4, 9), (6, 2, 3), dict(stride=2, padding=1, dilation=2, groups=2)),
    ("conv2d", (2, 4, 7, 6), (4, 2, 3, 3), dict(stride=2, padding=(1, 2), groups=2)),
    ("conv3d", (1, 2, 4, 5, 4), (3, 2, 2, 3, 2), dict(stride=(1, 2, 1), padding=1)),
    ("conv_transpose1d", (2, 4, 5), (4, 3, 3), dict(stride=2, padding=1, output_padding=1)),
    ("conv_transpose2d", (2, 4, 5, 4), (4, 2, 3, 2), dict(stride=(2, 3), padding=(1, 0), output_padding=(1, 2), groups=2)),
    ("conv_transpose2d", (1, 2, 4, 4), (2, 2, 3, 3), dict(stride=2, padding=1, dilation=2, output_padding=1)),
    ("conv_transpose3d", (1, 2, 3, 4, 3), (2, 3, 2, 2, 3), dict(stride=2, padding=1)),
]


@pytest.mark.parametrize("name,xs,ws,kw", CONVS, ids=[c[0] + str(i) for i, c in enumerate(CONVS)])
def test_convolutions_beside_torch(name, xs, ws, kw):
    torch = pytest.importorskip("torch")
    groups = kw.get("groups", 1)
    x, w = RNG.standard_normal(xs), RNG.standard_normal(ws)
    b = RNG.standard_normal(ws[1] * groups if "transpose" in name else ws[0])
    tx, tw, tb = (torch.tensor(a, requires_grad=True) for a in (x, w, b))
    ax, aw, ab = (ag.tensor(a, requires_grad=True) for a in (x, w, b))
    ty = getattr(torch.nn.functional, name)(tx, tw, tb, **kw)
    ay = getattr(F, name)(ax, aw, ab, **kw)
    assert ay.grad_fn.name() == ty.grad_fn.name()
    np.testing.assert_allclose(ay.detach().numpy(), ty.detach().numpy(), rtol=1e-12, atol=1e-12)
    g = RNG.standard_normal(tuple(ty.shape))
    ty.backward(torch.tensor(g))
    ay.backward(ag.tensor(g))
    for t, a in ((tx, ax), (tw, aw), (tb, ab)):
        np.testing.assert_allclose(a.grad.numpy(), t.grad.numpy(), rtol=1e-12, atol=1e-12)


def test_conv_module_initialisation_beside_torch():
    torch = pytest.importorskip("torch")
    for ours, theirs in ((ag.nn.ConvTranspose2d(4, 6, 3, groups=2), torch.nn.ConvTranspose2d(4, 6, 3, groups=2)),
                         (ag.nn.Conv1d(3, 5, 2), torch.nn.Conv1d(3, 5, 2))):
        assert ours.weight.shape == tuple(theirs.weight.shape) and repr(ours) == repr(theirs)
        bound = 1 / np.sqrt(theirs.weight.shape[1] * np.prod(theirs.kernel_size))
        assert np.abs(ours.weight.detach().numpy()).max() <= bound


def test_index_ops_and_matmul_names_beside_torch():
    torch = pytest.importorskip("torch")
    x, src = RNG.standard_normal((3, 5)), RNG.standard_normal((2, 5))
    idx = np.array([[0, 1, 2, 0, 0], [2, 0, 0, 1, 2]])
    results = []
    for lib in (torch, ag):
        X, S = lib.tensor(x, requires_grad=True), lib.tensor(src, requires_grad=True)
        y = X.scatter(0, lib.tensor(idx), S)
        z = X * 1
        z.scatter_(0, lib.tensor(idx), 2.5)
        w = (X * 1).index_add_(1, lib.tensor([0, 4, 2]), (S * 3)[:, :3].repeat(2, 1)[:3], alpha=2)
        v = X.index_fill(1, lib.tensor([1, 3]), -1.0)
        m = X.reshape(1, 3, 5) @ S.t()
        (y.sin().sum() + (z * 2).sum() + (w ** 2).sum() + (v ** 3).sum() + m.sum()).backward()
        results.append(([t.grad_fn.name() for t in (y, z, w, v, m)], X.grad.numpy().copy(), S.grad.numpy().copy(),
                        [t.detach().numpy() for t in (y, z, w, v, m)]))
    (tn, tgx, tgs, tv), (an, agx, ags, av) = results
    assert an == tn
    np.testing.assert_allclose(agx, tgx, rtol=1e-12)
    np.testing.assert_allclose(ags, tgs, rtol=1e-12)
    for a, t in zip(av, tv):
        np.testing.assert_allclose(a, t, rtol=1e-12)


def test_draw_nodes_and_errors_beside_torch():
    torch = pytest.importorskip("torch")
    p_t = torch.tensor([0.2, 0.7], requires_grad=True)
    p_a = ag.tensor([0.2, 0.7], requires_grad=True)
    pairs = [(torch.bernoulli(p_t), ag.bernoulli(p_a)), (torch.normal(p_t, 1.0), ag.normal(p_a, 1.0)),
             (torch.normal(1.0, p_t), ag.normal(1.0, p_a)), (torch.normal(p_t, p_t), ag.normal(p_a, p_a)),
             (torch.zeros(2).requires_grad_().clone().bernoulli_(0.5), ag.zeros(2).requires_grad_().clone().bernoulli_(0.5)),
             (torch.nn.functional.dropout(p_t, 0.5), F.dropout(p_a, 0.5))]
    for t, a in pairs:
        assert a.grad_fn.name() == t.grad_fn.name()
    assert ag.multinomial(p_a, 2).dtype == ag.int64
    with pytest.raises(RuntimeError) as theirs:
        torch.multinomial(torch.tensor([1.0, 1.0]), 3)
    with pytest.raises(RuntimeError) as ours:
        ag.multinomial(ag.tensor([1.0, 1.0]), 3)
    assert str(ours.value) == str(theirs.value)
