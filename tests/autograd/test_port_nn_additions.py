"""nn's activations, LayerNorm, Embedding, the recurrent layers, nn.init, nn.utils' clipping and
the legacy names (Variable, FloatTensor, a 0-d tensor's format): values, gradients, second
derivatives and node names beside PyTorch's, and engine-only checks with values derived by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest

from diffcompare import autograd as ag
import diffcompare.autograd.nn.functional as F

RNG = np.random.default_rng(7)
X = RNG.standard_normal((2, 3)) * 3

ACTIVATIONS = [("leaky_relu", {"negative_slope": 0.1}), ("elu", {}), ("selu", {}), ("celu", {"alpha": 0.7}),
               ("gelu", {}), ("gelu", {"approximate": "tanh"}), ("silu", {}), ("mish", {}), ("hardtanh", {}),
               ("relu6", {}), ("hardsigmoid", {}), ("hardswish", {}), ("hardshrink", {}), ("softshrink", {}),
               ("threshold", {"threshold": 0.1, "value": 20.0}), ("softsign", {}), ("tanhshrink", {}),
               ("softmin", {"dim": 1}), ("glu", {"dim": 0})]
NO_TORCH_DOUBLE_BACKWARD = {"hardsigmoid", "hardswish"}


def _torch():
    torch = pytest.importorskip("torch")
    torch.set_default_dtype(torch.float64)    # (put back after each test by tests/conftest.py)
    return torch


@pytest.mark.parametrize("name,kw", ACTIVATIONS, ids=[f"{n}{kw or ''}" for n, kw in ACTIVATIONS])
def test_an_activation_is_pytorchs(name, kw):
    torch = _torch()
    x, t = ag.tensor(X, requires_grad=True), torch.tensor(X, requires_grad=True)
    y, ty = getattr(F, name)(x, **kw), getattr(torch.nn.functional, name)(t, **kw)
    assert y.grad_fn.name() == ty.grad_fn.name()
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=1e-12, atol=1e-14)
    g, = ag.autograd.grad((y * y).sum(), x, create_graph=True)
    tg, = torch.autograd.grad((ty * ty).sum(), t, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), tg.detach().numpy(), rtol=1e-12, atol=1e-13)
    if name not in NO_TORCH_DOUBLE_BACKWARD:
        h, = ag.autograd.grad(g.sum(), x)
        th, = torch.autograd.grad(tg.sum(), t)
        np.testing.assert_allclose(h.numpy(), th.numpy(), rtol=1e-12, atol=1e-12)


def test_the_activation_modules_print_and_compute_as_pytorchs():
    torch = _torch()
    for name, args in [("LeakyReLU", (0.2,)), ("ELU", ()), ("GELU", ("tanh",)), ("Hardtanh", (-2, 2)), ("ReLU6", ()),
                       ("Softshrink", (0.3,)), ("Threshold", (0.1, 20)), ("PReLU", (3,)), ("Softmin", (1,)),
                       ("SiLU", ()), ("Mish", ()), ("CELU", ()), ("SELU", ()), ("GLU", ())]:
        m, tm = getattr(ag.nn, name)(*args), getattr(torch.nn, name)(*args)
        assert repr(m) == repr(tm)
        x = X if name != "GLU" else np.hstack([X, X])
        y, ty = m(ag.tensor(x)), tm(torch.tensor(x))
        np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=1e-12, atol=1e-14)


def test_prelu_sums_the_slopes_gradient_over_its_channel():
    torch = _torch()
    x, w = ag.tensor(X, requires_grad=True), ag.tensor([0.25, 0.1, 0.3], requires_grad=True)
    t, tw = torch.tensor(X, requires_grad=True), torch.tensor([0.25, 0.1, 0.3], requires_grad=True)
    y, ty = F.prelu(x, w), torch.nn.functional.prelu(t, tw)
    (y * y).sum().backward()
    (ty * ty).sum().backward()
    assert [n.name() for n, _ in y.grad_fn.next_functions] == ["torch::autograd::AccumulateGrad", "ViewBackward0"]
    np.testing.assert_allclose(w.grad.numpy(), tw.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-12)


def test_leaky_relu_and_hardtanh_by_hand():
    x = ag.tensor([-2.0, -1.0, 0.5, 3.0], requires_grad=True)
    F.leaky_relu(x, 0.1).sum().backward()
    assert x.grad.tolist() == [0.1, 0.1, 1.0, 1.0]
    x = ag.tensor([-2.0, -1.0, 0.5, 1.0], requires_grad=True)
    y = F.hardtanh(x)
    y.sum().backward()
    assert y.tolist() == [-1.0, -1.0, 0.5, 1.0] and x.grad.tolist() == [0.0, 0.0, 1.0, 0.0]   # open interval


def test_layer_norm_and_its_second_derivative_are_pytorchs():
    torch = _torch()
    a, wa, ba = RNG.standard_normal((2, 3, 4)), RNG.standard_normal((3, 4)), RNG.standard_normal((3, 4))
    mine = [ag.tensor(v, requires_grad=True) for v in (a, wa, ba)]
    theirs = [torch.tensor(v, requires_grad=True) for v in (a, wa, ba)]
    y, ty = F.layer_norm(mine[0], (3, 4), *mine[1:]), torch.nn.functional.layer_norm(theirs[0], (3, 4), *theirs[1:])
    assert y.grad_fn.name() == ty.grad_fn.name() == "NativeLayerNormBackward0"
    gs = ag.autograd.grad((y ** 3).sum(), mine, create_graph=True)
    tgs = torch.autograd.grad((ty ** 3).sum(), theirs, create_graph=True)
    for g, tg in zip(gs, tgs):
        np.testing.assert_allclose(g.detach().numpy(), tg.detach().numpy(), rtol=1e-10, atol=1e-12)
    h, = ag.autograd.grad(gs[0].sum(), mine[0])
    th, = torch.autograd.grad(tgs[0].sum(), theirs[0])
    np.testing.assert_allclose(h.numpy(), th.numpy(), rtol=1e-10, atol=1e-12)
    assert repr(ag.nn.LayerNorm(4)) == repr(torch.nn.LayerNorm(4))


def test_layer_norm_by_hand():
    y = ag.nn.LayerNorm(2, eps=0.0)(ag.tensor([[1.0, 3.0], [0.0, -4.0]]))
    assert y.detach().tolist() == [[-1.0, 1.0], [1.0, -1.0]]


def test_embedding_sums_the_gradients_of_repeated_rows_and_skips_padding():
    torch = _torch()
    wa, idx = RNG.standard_normal((3, 4)), [[0, 2, 0], [1, 1, 2]]
    w, tw = ag.tensor(wa, requires_grad=True), torch.tensor(wa, requires_grad=True)
    e, te = F.embedding(ag.tensor(idx), w, padding_idx=1), torch.nn.functional.embedding(torch.tensor(idx), tw, padding_idx=1)
    assert e.grad_fn.name() == te.grad_fn.name()
    g, = ag.autograd.grad((e ** 2).sum(), w, create_graph=True)
    tg, = torch.autograd.grad((te ** 2).sum(), tw, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), tg.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(ag.autograd.grad(g.sum(), w)[0].numpy(), torch.autograd.grad(tg.sum(), tw)[0].numpy())
    emb = ag.nn.Embedding(3, 2)
    emb(ag.tensor([0, 0, 2])).sum().backward()
    assert emb.weight.grad.tolist() == [[2.0, 2.0], [0.0, 0.0], [1.0, 1.0]]
    assert repr(ag.nn.Embedding(10, 3, padding_idx=0)) == repr(torch.nn.Embedding(10, 3, padding_idx=0))


@pytest.mark.parametrize("kind", ["LSTM", "GRU", "RNN"])
@pytest.mark.parametrize("kw", [{}, {"num_layers": 2, "bidirectional": True, "batch_first": True}], ids=["1", "2bi"])
def test_a_recurrent_layer_is_pytorchs(kind, kw):
    torch = _torch()
    tm, am = getattr(torch.nn, kind)(3, 4, **kw), getattr(ag.nn, kind)(3, 4, **kw)
    assert [n for n, _ in tm.named_parameters()] == [n for n, _ in am.named_parameters()] and repr(tm) == repr(am)
    for p, q in zip(tm.parameters(), am.parameters()):
        q._data[...] = p.detach().numpy()
    x = RNG.standard_normal((5, 2, 3))
    (tout, th), (aout, ah) = tm(torch.tensor(x)), am(ag.tensor(x))
    if kind == "LSTM" or not kw:     # batch_first RNN/GRU: PyTorch's kernel transposes in place (TransposeBackward1)
        assert aout.grad_fn.name() == tout.grad_fn.name()
    np.testing.assert_allclose(aout.detach().numpy(), tout.detach().numpy(), rtol=1e-12, atol=1e-14)
    (tout ** 2).sum().backward()
    (aout ** 2).sum().backward()
    for p, q in zip(tm.parameters(), am.parameters()):
        np.testing.assert_allclose(q.grad.numpy(), p.grad.numpy(), rtol=1e-10, atol=1e-13)


@pytest.mark.parametrize("kind", ["LSTMCell", "GRUCell", "RNNCell"])
def test_a_recurrent_cell_is_pytorchs(kind):
    torch = _torch()
    tm, am = getattr(torch.nn, kind)(3, 4), getattr(ag.nn, kind)(3, 4)
    for p, q in zip(tm.parameters(), am.parameters()):
        q._data[...] = p.detach().numpy()
    x = RNG.standard_normal((2, 3))
    t, a = tm(torch.tensor(x)), am(ag.tensor(x))
    t, a = (t[0], a[0]) if isinstance(t, tuple) else (t, a)
    assert a.grad_fn.name() == t.grad_fn.name()
    np.testing.assert_allclose(a.detach().numpy(), t.detach().numpy(), rtol=1e-12, atol=1e-14)


def test_init_gains_and_deterministic_initialisers_are_pytorchs():
    torch = _torch()
    for args in [("relu",), ("tanh",), ("leaky_relu", 0.2), ("selu",), ("conv2d",)]:
        assert ag.nn.init.calculate_gain(*args) == torch.nn.init.calculate_gain(*args)
    w, tw = ag.empty(3, 2, 3, 3), torch.empty(3, 2, 3, 3)
    ag.nn.init.dirac_(w)
    torch.nn.init.dirac_(tw)
    np.testing.assert_array_equal(w.numpy(), tw.numpy())
    w = ag.empty(4, 6)
    bound = math.sqrt(3.0) * math.sqrt(2.0 / 10.0)
    assert ag.nn.init.xavier_uniform_(w) is w and float(w.abs().max()) <= bound
    q = ag.nn.init.orthogonal_(ag.empty(3, 5))
    np.testing.assert_allclose((q @ q.t()).numpy(), np.eye(3), atol=1e-12)
    assert ag.nn.init.trunc_normal_(ag.empty(1000), a=-0.5, b=0.5).abs().max().item() <= 0.5


def test_clip_grad_norm_scales_to_the_bound_and_returns_the_norm_before():
    torch = _torch()
    a, b = ag.nn.Parameter(ag.ones(4)), ag.nn.Parameter(ag.ones(2))
    ((a * 3).sum() + (b * 4).sum()).backward()                      # norms 6 and 4√2: total √68
    total = ag.nn.utils.clip_grad_norm_([a, b], 1.0)
    assert abs(float(total) - math.sqrt(68)) < 1e-12
    ta, tb = torch.ones(4, requires_grad=True), torch.ones(2, requires_grad=True)
    ((ta * 3).sum() + (tb * 4).sum()).backward()
    torch.nn.utils.clip_grad_norm_([ta, tb], 1.0)
    np.testing.assert_allclose(a.grad.numpy(), ta.grad.numpy(), rtol=1e-12)
    ag.nn.utils.clip_grad_value_([a], 0.1)
    assert float(a.grad.max()) <= 0.1
    v = ag.nn.utils.parameters_to_vector([a, b])
    assert v.shape == (6,) and v.grad_fn.name() == "CatBackward0"


def test_clip_grads_with_norm_by_hand():
    """The second half of clip_grad_norm_, given the total norm: (3, 4) of norm 5 scaled to 1,
    and a norm already under the bound leaves the gradients as they are."""
    w = ag.nn.Parameter(ag.ones(2))
    w.grad = ag.tensor([3.0, 4.0])
    assert ag.nn.utils.clip_grads_with_norm_([w], 1.0, ag.nn.utils.get_total_norm([w.grad])) is None
    np.testing.assert_allclose(w.grad.numpy(), [3.0 / (5.0 + 1e-6), 4.0 / (5.0 + 1e-6)], rtol=1e-15)
    ag.nn.utils.clip_grads_with_norm_(w, 10.0, ag.tensor(1.0))
    np.testing.assert_allclose(w.grad.numpy(), [3.0 / (5.0 + 1e-6), 4.0 / (5.0 + 1e-6)], rtol=1e-15)


def _engine_and_torch_if_installed():
    """The engine, and PyTorch where it is installed (a property each must have on its own)."""
    try:
        import torch
    except ImportError:
        return [ag]
    return [ag, torch]


@pytest.mark.parametrize("name,args", [("xavier_uniform", ()), ("xavier_normal", (2.0,)), ("kaiming_uniform", ()),
                                       ("kaiming_normal", ()), ("orthogonal", ()), ("uniform", (-1.0, 1.0)),
                                       ("normal", (0.0, 0.5)), ("constant", (0.25,)), ("eye", ())])
def test_init_names_without_underscore_warn_and_fill_as_the_underscored(name, args):
    """Older code's ``nn.init.xavier_uniform(w)``: PyTorch's FutureWarning (its words, on both
    sides where PyTorch is installed), and the tensor filled as the underscored function fills
    it from the same seed."""
    for L in _engine_and_torch_if_installed():
        filled = []
        for deprecated in (True, False):
            L.manual_seed(3)
            w = L.empty(4, 6, dtype=L.float64)
            if deprecated:
                with pytest.warns(FutureWarning, match=rf"^`nn.init.{name}` is now deprecated in favor of "
                                                       rf"`nn.init.{name}_`\.$"):
                    assert getattr(L.nn.init, name)(w, *args) is w
            else:
                getattr(L.nn.init, f"{name}_")(w, *args)
            filled.append(w.numpy())
        np.testing.assert_array_equal(*filled)


def test_the_legacy_names():
    torch = _torch()
    t = ag.ones(2)
    v = ag.autograd.Variable(t, requires_grad=True)
    tv = torch.autograd.Variable(torch.ones(2), requires_grad=True)
    assert (v is t, v.is_leaf, v.requires_grad) == (False, tv.is_leaf, tv.requires_grad) == (False, True, True)
    assert isinstance(t, ag.autograd.Variable)
    assert ag.FloatTensor([1, 2]).dtype == ag.float32 and ag.LongTensor([1]).dtype == ag.int64
    assert ag.FloatTensor(2, 3).shape == (2, 3) and isinstance(ag.ones(2, dtype=ag.float32), ag.FloatTensor)
    assert "{:+.2f}".format(ag.tensor(1.5, requires_grad=True)) == "{:+.2f}".format(torch.tensor(1.5)) == "+1.50"
    with pytest.raises(TypeError):
        "{:.2f}".format(ag.ones(2))


RESETTABLE = [("Linear", (3, 2)), ("Conv1d", (2, 3, 3)), ("Conv2d", (2, 4, (3, 2))), ("ConvTranspose2d", (4, 2, 3)),
              ("Bilinear", (3, 4, 2)), ("RNNCell", (3, 4)), ("LSTMCell", (3, 4)), ("GRUCell", (2, 3))]


@pytest.mark.parametrize("name,args", RESETTABLE)
def test_reset_parameters_draws_again_as_the_constructor_drew(name, args):
    """``layer.reset_parameters()`` (FSDP's meta-device initialisation, k-fold re-initialisation):
    the same Parameter objects, filled again with what the constructor draws from the same seed
    (PyTorch's constructors call reset_parameters, so the two agree there too)."""
    for L in _engine_and_torch_if_installed():
        L.manual_seed(5)
        fresh = [p.detach().clone() for p in getattr(L.nn, name)(*args).parameters()]
        layer = getattr(L.nn, name)(*args)
        before = list(layer.parameters())
        with L.no_grad():
            for p in before:
                p.fill_(7.0)
        L.manual_seed(5)
        assert layer.reset_parameters() is None
        assert all(a is b for a, b in zip(layer.parameters(), before))
        for got, want in zip(layer.parameters(), fresh):
            np.testing.assert_array_equal(got.detach().numpy(), want.numpy())


def test_norm_and_prelu_reset_parameters_as_pytorchs():
    """The deterministic resets: a norm layer's weight ones and bias zeros, a batch norm's
    running statistics back to mean 0, variance 1 and no batch counted, PReLU's slopes to init."""
    torch = _torch()
    for name, args in [("BatchNorm1d", (3,)), ("InstanceNorm1d", (3,)), ("LayerNorm", (3,)), ("GroupNorm", (1, 3)),
                       ("RMSNorm", (3,)), ("PReLU", (3, 0.1))]:
        state = {}
        for L in (ag, torch):
            kwargs = {"affine": True, "track_running_stats": True} if name == "InstanceNorm1d" else {}
            layer = getattr(L.nn, name)(*args, **kwargs)
            x = L.tensor([[1.0, 2.0, 4.0], [0.5, -1.0, 3.0]])
            if "Instance" in name:
                x = L.stack([x, 2 * x], -1)              # (2, 3, 2): two positions per channel
            with L.no_grad():
                for p in layer.parameters():
                    p.add_(0.3)
            layer(x)                                  # running statistics move
            layer.reset_parameters()
            state[L] = {k: v.detach().double().numpy().tolist() for k, v in layer.state_dict().items()}
        assert state[ag] == state[torch], name
    bn = ag.nn.BatchNorm1d(2)
    bn(ag.tensor([[1.0, 2.0], [3.0, 5.0]]))
    bn.reset_running_stats()
    assert (bn.running_mean.tolist(), bn.running_var.tolist(), int(bn.num_batches_tracked)) == ([0.0, 0.0],
                                                                                                [1.0, 1.0], 0)
    assert ag.nn.LSTM(2, 3).flatten_parameters() is None


@pytest.mark.parametrize("name,x_shape", [("Conv1d", (2, 3, 7)), ("Conv2d", (2, 3, 5, 5)), ("Conv2d", (3, 5, 5)),
                                          ("ConvTranspose2d", (2, 3, 5, 5)), ("Conv3d", (1, 2, 3, 3, 3))])
def test_lazy_convolutions_become_the_eager_layer_at_the_first_input(name, x_shape):
    """``nn.LazyConv2d(4, 3)``: in_channels from the first input (unbatched too); the weight and
    bias drawn as the eager layer draws them from the same seed, into the Parameters an
    optimizer made before may already hold; then it is that layer."""
    for L in _engine_and_torch_if_installed():
        x = L.ones(*x_shape, dtype=L.float64)
        in_channels = x_shape[1] if len(x_shape) > int(name[-2]) + 1 else x_shape[0]
        L.manual_seed(9)
        eager = getattr(L.nn, name)(in_channels, 4, 3, padding=1, dtype=L.float64)
        L.manual_seed(9)
        lazy = getattr(L.nn, "Lazy" + name)(4, 3, padding=1, dtype=L.float64)
        held = list(lazy.parameters())
        out = lazy(x)
        assert type(lazy) is type(eager) and repr(lazy) == repr(eager)
        assert all(a is b for a, b in zip(lazy.parameters(), held))
        for got, want in zip(lazy.parameters(), eager.parameters()):
            np.testing.assert_array_equal(got.detach().numpy(), want.detach().numpy())
        np.testing.assert_allclose(out.detach().numpy(), eager(x).detach().numpy(), rtol=1e-15)
