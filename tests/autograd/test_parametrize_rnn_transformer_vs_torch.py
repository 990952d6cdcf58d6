"""Parametrizations (``nn.utils.parametrize``, ``nn.utils.parametrizations``), packed and padded
sequences (``nn.utils.rnn``, recurrent layers over a PackedSequence), attention and the
Transformer, against PyTorch: values, gradients (float64, 1e-10), grad_fn names, parameter and
state_dict names, errors; and against expectations derived by hand or by finite differences."""

import math
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from diffcompare import autograd as ag  # noqa: E402
from diffcompare.autograd.nn.utils import parametrize as P  # noqa: E402

TP = torch.nn.utils.parametrize


pytestmark = pytest.mark.usefixtures("torch_float64")     # PyTorch in float64, as the engine


def _np(t):
    return t.detach().numpy() if isinstance(t, torch.Tensor) else np.asarray(t.detach()._data)


def close(a, b, tol=1e-10):
    a, b = _np(a), _np(b)
    assert a.shape == b.shape
    scale = max(np.abs(a).max(initial=0.0), 1e-300)
    assert np.abs(a - b).max(initial=0.0) <= tol * scale


def copy_params(src, dst):
    """The engine module takes the torch module's parameter values (same names, same order)."""
    ours = dict(dst.named_parameters())
    theirs = dict(src.named_parameters())
    assert list(ours) == list(theirs)
    for name, p in theirs.items():
        ours[name]._data[...] = p.detach().numpy()


def both(build):
    """``build(T)`` on each side: PyTorch first, then the engine."""
    return build(torch), build(ag)


def torch_bernoulli(monkeypatch):
    """The engine's ``bernoulli_`` draws PyTorch's values into a tensor laid out as the
    engine's (as the porting harness does), so seeding PyTorch gives both sides the same masks."""
    def draw(t, p=0.5, *, generator=None):
        t._data[...] = torch.from_numpy(np.empty_like(t._data)).bernoulli_(p).numpy()
        return t
    monkeypatch.setattr(ag.Tensor, "bernoulli_", draw)


# -- parametrize ------------------------------------------------------------------------------
def symmetric_class(T):
    class Symmetric(T.nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).transpose(-1, -2)

        def right_inverse(self, A):
            return A.triu()
    return Symmetric


def test_register_parametrization_layout_values_and_gradients():
    x = np.linspace(-1, 1, 6).reshape(2, 3)

    def run(T):
        Pm = TP if T is torch else P
        layer = T.nn.Linear(3, 3)
        with T.no_grad():
            layer.weight.copy_(T.tensor(np.arange(9.0).reshape(3, 3)))
            layer.bias.copy_(T.tensor([1.0, -1.0, 0.5]))
        Pm.register_parametrization(layer, "weight", symmetric_class(T)())
        out = layer(T.tensor(x))
        (out ** 2).sum().backward()
        return layer, out

    (tl, to), (el, eo) = both(run)
    assert type(el).__name__ == type(tl).__name__ == "ParametrizedLinear"
    assert isinstance(el, ag.nn.Linear) and P.type_before_parametrizations(el) is ag.nn.Linear
    assert list(el.state_dict()) == list(tl.state_dict()) == ["bias", "parametrizations.weight.original"]
    assert [n for n, _ in el.named_parameters()] == [n for n, _ in tl.named_parameters()]
    assert el.weight.grad_fn.name() == tl.weight.grad_fn.name() == "AddBackward0"
    assert type(el.parametrizations.weight).__name__ == "ParametrizationList"
    close(to, eo)
    close(tl.parametrizations.weight.original.grad, el.parametrizations.weight.original.grad)
    # by hand: right_inverse kept the upper triangle, so the weight is that triangle mirrored
    w = np.triu(np.arange(9.0).reshape(3, 3))
    np.testing.assert_array_equal(_np(el.weight), w + np.triu(w, 1).T)
    assert P.is_parametrized(el) and P.is_parametrized(el, "weight") and not P.is_parametrized(el, "bias")


def test_assignment_goes_through_right_inverse_and_removal_keeps_or_drops_the_value():
    def run(T, leave):
        Pm = TP if T is torch else P
        layer = T.nn.Linear(3, 3)
        with T.no_grad():
            layer.weight.copy_(T.tensor(np.arange(9.0).reshape(3, 3)))
        Pm.register_parametrization(layer, "weight", symmetric_class(T)())
        layer.weight = T.tensor(np.ones((3, 3)))
        original = layer.parametrizations.weight.original.detach().clone()
        Pm.remove_parametrizations(layer, "weight", leave_parametrized=leave)
        return layer, original

    for leave in (True, False):
        (tl, to), (el, eo) = run(torch, leave), run(ag, leave)
        close(to, eo)
        np.testing.assert_array_equal(_np(eo), np.triu(np.ones((3, 3))))
        assert type(el) is ag.nn.Linear and not hasattr(el, "parametrizations")
        assert list(el.state_dict()) == list(tl.state_dict()) == ["bias", "weight"]
        assert isinstance(el.weight, ag.nn.Parameter)
        close(tl.weight, el.weight)


def test_chained_parametrizations_cached_and_errors():
    calls = []

    class Skew(ag.nn.Module):
        def forward(self, X):
            A = X.triu(1)
            return A - A.mT

    class Counted(ag.nn.Module):
        def forward(self, X):
            calls.append(1)
            return X * 2.0

    layer = ag.nn.Linear(3, 3)
    P.register_parametrization(layer, "weight", Skew())
    P.register_parametrization(layer, "weight", Counted())
    assert len(layer.parametrizations.weight) == 2
    calls.clear()
    layer.weight, layer.weight
    assert len(calls) == 2
    calls.clear()
    with P.cached():
        first, second = layer.weight, layer.weight
    assert len(calls) == 1 and first is second
    np.testing.assert_allclose(_np(layer.weight), -_np(layer.weight).T)
    # a second registration changing the shape is refused without unsafe, as PyTorch's
    with pytest.raises(ValueError, match="may not change the shape"):
        P.register_parametrization(layer, "weight", type("Cut", (ag.nn.Module,), {"forward": lambda s, X: X[:2]})())
    with pytest.raises(ValueError, match="does not have a parameter, a buffer, or a parametrized element"):
        P.register_parametrization(layer, "nothing", Skew())
    with pytest.raises(RuntimeError, match="does not implement right_inverse"):
        layer.weight = ag.zeros(3, 3)
    with pytest.raises(KeyError):
        layer.weight = ag.nn.Parameter(ag.zeros(3, 3))


def test_several_originals_from_right_inverse():
    def run(T):
        Pm = TP if T is torch else P

        class RankOne(T.nn.Module):
            def forward(self, x, y):
                return x.unsqueeze(-1) @ y.unsqueeze(-2)

            def right_inverse(self, Z):
                return Z[:, 0], Z[0, :] / Z[0, 0]

        layer = T.nn.Linear(3, 4)
        with T.no_grad():
            layer.weight.copy_(T.tensor(np.outer([1.0, 2.0, 3.0, 4.0], [2.0, 1.0, -1.0])))
            layer.bias.fill_(0.5)
        Pm.register_parametrization(layer, "weight", RankOne())
        layer(T.tensor(np.ones((2, 3)))).pow(2).sum().backward()
        return layer

    tl, el = both(run)
    assert list(el.state_dict()) == list(tl.state_dict()) == [
        "bias", "parametrizations.weight.original0", "parametrizations.weight.original1"]
    for name in ("original0", "original1"):
        close(getattr(tl.parametrizations.weight, name).grad, getattr(el.parametrizations.weight, name).grad)
    np.testing.assert_allclose(_np(el.weight), np.outer([1.0, 2.0, 3.0, 4.0], [2.0, 1.0, -1.0]) * 2.0 / 2.0)
    with pytest.raises(ValueError, match="Cannot leave unparametrized"):
        P.remove_parametrizations(el, "weight", leave_parametrized=False)


# -- parametrizations ---------------------------------------------------------------------------
@pytest.mark.parametrize("shape,orthogonal_map", [((3, 5), None), ((5, 3), None), ((4, 4), None),
                                                  ((4, 4), "cayley"), ((3, 5), "matrix_exp")])
def test_orthogonal_against_torch(shape, orthogonal_map):
    rng = np.random.default_rng(0)
    w0 = rng.normal(size=shape)
    x = rng.normal(size=(2, shape[1]))

    def run(T):
        layer = T.nn.Linear(shape[1], shape[0])
        with T.no_grad():
            layer.weight.copy_(T.tensor(w0))
            layer.bias.fill_(0.5)
        return T.nn.utils.parametrizations.orthogonal(layer, orthogonal_map=orthogonal_map)

    tl, el = both(run)
    assert list(el.state_dict()) == list(tl.state_dict())
    # the base PyTorch drew (for a non-square weight) taken by the engine; the original is -I
    el.parametrizations.weight[0].base._data[...] = _np(tl.parametrizations.weight[0].base)
    close(tl.parametrizations.weight.original, el.parametrizations.weight.original)
    with torch.no_grad():
        step = rng.normal(size=shape) * 0.1
        np.fill_diagonal(step, 0.0)     # (the Householder map keeps the diagonal's signs, truncated)
        tl.parametrizations.weight.original.add_(torch.tensor(step))
    el.parametrizations.weight.original._data[...] = _np(tl.parametrizations.weight.original)
    tw, ew = tl.weight, el.weight
    assert ew.grad_fn.name() == tw.grad_fn.name()
    close(tw, ew)
    (tl(torch.tensor(x)) ** 3).sum().backward()
    (el(ag.tensor(x)) ** 3).sum().backward()
    close(tl.parametrizations.weight.original.grad, el.parametrizations.weight.original.grad)
    # independently: the weight has orthonormal rows or columns
    q = _np(ew) if shape[0] >= shape[1] else _np(ew).T
    np.testing.assert_allclose(q.T @ q, np.eye(min(shape)), atol=1e-12)


def test_weight_norm_against_torch_and_finite_differences():
    rng = np.random.default_rng(1)
    w0 = rng.normal(size=(4, 3))
    x = rng.normal(size=(2, 3))

    def run(T, dim):
        layer = T.nn.Linear(3, 4)
        with T.no_grad():
            layer.weight.copy_(T.tensor(w0))
            layer.bias.fill_(0.5)
        m = T.nn.utils.parametrizations.weight_norm(layer, dim=dim)
        (m(T.tensor(x)) ** 2).sum().backward()
        return m

    for dim in (0, 1, None):
        tm, em = run(torch, dim), run(ag, dim)
        assert list(em.state_dict()) == list(tm.state_dict()) == [
            "bias", "parametrizations.weight.original0", "parametrizations.weight.original1"]
        assert em.weight.grad_fn.name() == tm.weight.grad_fn.name() == (
            "MulBackward0" if dim is None else "WeightNormInterfaceBackward0")
        close(tm.weight, em.weight)
        for name in ("original0", "original1"):
            close(getattr(tm.parametrizations.weight, name).grad, getattr(em.parametrizations.weight, name).grad)
    # by finite differences: the VJP of v * g / ‖v‖ (norm over rows' other axis)
    v = ag.tensor(rng.normal(size=(4, 3)), requires_grad=True)
    g = ag.tensor(rng.normal(size=(4, 1)), requires_grad=True)
    fn = ag.nn.utils.parametrizations.apply_weight_norm
    assert ag.autograd.gradcheck(lambda a, b: fn(a, b, 0), (v, g))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        legacy = ag.nn.utils.weight_norm(ag.nn.Linear(3, 4))
        twin = torch.nn.utils.weight_norm(torch.nn.Linear(3, 4))
    assert list(legacy.state_dict()) == list(twin.state_dict()) == ["bias", "weight_g", "weight_v"]
    ag.nn.utils.remove_weight_norm(legacy)
    assert [n for n, _ in legacy.named_parameters()] == ["bias", "weight"]


def test_spectral_norm_against_torch_and_the_largest_singular_value():
    rng = np.random.default_rng(2)
    w0 = rng.normal(size=(5, 3))
    x = rng.normal(size=(2, 3))

    def run(T):
        layer = T.nn.Linear(3, 5)
        with T.no_grad():
            layer.weight.copy_(T.tensor(w0))
            layer.bias.fill_(0.5)
        return T.nn.utils.parametrizations.spectral_norm(layer)

    tm, em = both(run)
    assert list(em.state_dict()) == list(tm.state_dict()) == [
        "bias", "parametrizations.weight.original", "parametrizations.weight.0._u", "parametrizations.weight.0._v"]
    # PyTorch's u and v (drawn with normal_ and iterated 15 times) taken by the engine
    for name in ("_u", "_v"):
        getattr(em.parametrizations.weight[0], name)._data[...] = _np(getattr(tm.parametrizations.weight[0], name))
    (tm(torch.tensor(x)) ** 2).sum().backward()
    (em(ag.tensor(x)) ** 2).sum().backward()
    close(tm.parametrizations.weight[0]._u, em.parametrizations.weight[0]._u)
    close(tm.parametrizations.weight.original.grad, em.parametrizations.weight.original.grad)
    assert em.weight.grad_fn.name() == tm.weight.grad_fn.name() == "DivBackward0"
    # independently: after enough power iterations the weight's spectral norm is 1
    for _ in range(30):
        em.weight
    assert abs(np.linalg.norm(_np(em.weight), 2) - 1.0) < 1e-9


# -- packed and padded sequences ----------------------------------------------------------------
def test_pack_and_pad_against_torch_and_by_hand():
    rng = np.random.default_rng(3)
    arrays = [rng.normal(size=(n, 2)) for n in (3, 5, 1)]

    def run(T):
        U = T.nn.utils.rnn
        seqs = [T.tensor(a, requires_grad=True) for a in arrays]
        padded = U.pad_sequence(seqs, batch_first=True, padding_value=-1.0, padding_side="left")
        packed = U.pack_sequence(seqs, enforce_sorted=False)
        unpacked, lengths = U.pad_packed_sequence(packed, batch_first=True, total_length=6)
        pieces = U.unpack_sequence(packed)
        loss = (padded ** 2).sum() + (packed.data ** 3).sum() + (unpacked * 2).sum() + sum((p ** 2).sum() for p in pieces)
        loss.backward()
        return padded, packed, unpacked, lengths, pieces, seqs

    t, e = both(run)
    for a, b in [(t[0], e[0]), (t[1].data, e[1].data), (t[2], e[2])] + list(zip(t[4], e[4])):
        close(a, b)
        assert a.grad_fn.name() == b.grad_fn.name()
    for a, b in zip(t[5], e[5]):
        close(a.grad, b.grad)
    for name in ("batch_sizes", "sorted_indices", "unsorted_indices"):
        np.testing.assert_array_equal(getattr(t[1], name).numpy(), _np(getattr(e[1], name)))
    np.testing.assert_array_equal(t[3].numpy(), _np(e[3]))
    # by hand: PyTorch's docstring example
    packed = ag.nn.utils.rnn.pack_padded_sequence(ag.tensor([[1, 2, 0], [3, 0, 0], [4, 5, 6]]), [2, 1, 3],
                                                  batch_first=True, enforce_sorted=False)
    assert _np(packed.data).tolist() == [4, 1, 3, 5, 2, 6] and _np(packed.batch_sizes).tolist() == [3, 2, 1]
    assert _np(packed.sorted_indices).tolist() == [2, 0, 1] and _np(packed.unsorted_indices).tolist() == [1, 2, 0]
    with pytest.raises(RuntimeError, match="must be sorted in decreasing order"):
        ag.nn.utils.rnn.pack_sequence([ag.ones(1), ag.ones(2)])


@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
def test_recurrent_layers_over_a_packed_sequence(kind):
    rng = np.random.default_rng(4)
    arrays = [rng.normal(size=(n, 2)) for n in (3, 5, 1, 3)]
    h0 = rng.normal(size=(4, 4, 3))

    def run(T):
        layer = getattr(T.nn, kind)(2, 3, num_layers=2, bidirectional=True)
        seqs = [T.tensor(a, requires_grad=True) for a in arrays]
        hx = T.tensor(h0)
        hx = (hx, hx * 0.5) if kind == "LSTM" else hx
        out, state = layer(T.nn.utils.rnn.pack_sequence(seqs, enforce_sorted=False), hx)
        states = state if isinstance(state, tuple) else (state,)
        ((out.data ** 2).sum() + sum((s ** 3).sum() for s in states)).backward()
        return layer, out, states, seqs

    tl, to, ts, tq = run(torch)
    el = getattr(ag.nn, kind)(2, 3, num_layers=2, bidirectional=True)
    copy_params(tl, el)
    seqs = [ag.tensor(a, requires_grad=True) for a in arrays]
    hx = ag.tensor(h0)
    hx = (hx, hx * 0.5) if kind == "LSTM" else hx
    eo, state = el(ag.nn.utils.rnn.pack_sequence(seqs, enforce_sorted=False), hx)
    es = state if isinstance(state, tuple) else (state,)
    ((eo.data ** 2).sum() + sum((s ** 3).sum() for s in es)).backward()
    assert isinstance(eo, ag.nn.utils.rnn.PackedSequence)
    close(to.data, eo.data)
    assert eo.data.grad_fn.name() == to.data.grad_fn.name() == "CatBackward0"
    for a, b in zip(ts, es):
        close(a, b)
        assert a.grad_fn.name() == b.grad_fn.name() == "IndexSelectBackward0"
    for a, b in zip(tq, seqs):
        close(a.grad, b.grad)
    for (name, a), b in zip(tl.named_parameters(), el.parameters()):
        close(a.grad, b.grad)
    # independently of PyTorch: each sequence alone through the layer gives its packed rows
    alone = el(ag.tensor(arrays[1]).unsqueeze(1), tuple(h[:, 1:2] for h in hx) if kind == "LSTM" else hx[:, 1:2])
    padded, _ = ag.nn.utils.rnn.pad_packed_sequence(eo)
    close(alone[0][:, 0], padded[:, 1])


# -- attention and the Transformer --------------------------------------------------------------
def naive_attention(q, k, v, mask=None, scale=None):
    s = q @ np.swapaxes(k, -1, -2) * (scale if scale is not None else 1 / math.sqrt(q.shape[-1]))
    if mask is not None:
        s = s + mask
    p = np.exp(s - s.max(-1, keepdims=True))
    return (p / p.sum(-1, keepdims=True)) @ v


def test_scaled_dot_product_attention():
    rng = np.random.default_rng(5)
    q, k, v = (rng.normal(size=(2, 3, n, 4)) for n in (4, 6, 6))
    mask = rng.normal(size=(4, 6))
    for kw in ({}, {"is_causal": True}, {"attn_mask": "float", "scale": 0.3}, {"attn_mask": "bool"}):
        results = []
        for T in (torch, ag):
            args = dict(kw)
            if args.get("attn_mask") == "float":
                args["attn_mask"] = T.tensor(mask)
            elif args.get("attn_mask") == "bool":
                args["attn_mask"] = T.tensor(mask > -0.5)
            tensors = [T.tensor(a, requires_grad=True) for a in (q, k, v)]
            out = T.nn.functional.scaled_dot_product_attention(*tensors, **args)
            (out ** 3).sum().backward()
            results.append((out, tensors))
        (to, tt), (eo, et) = results
        close(to, eo)
        assert eo.grad_fn.name() == to.grad_fn.name() == "ScaledDotProductFlashAttentionForCpuBackward0"
        for a, b in zip(tt, et):
            close(a.grad, b.grad)
    # by hand, and the fused rule's gradient by finite differences
    close(ag.nn.functional.scaled_dot_product_attention(ag.tensor(q), ag.tensor(k), ag.tensor(v)),
          ag.tensor(naive_attention(q, k, v)))
    small = [ag.tensor(rng.normal(size=(1, 2, n, 3)), requires_grad=True) for n in (2, 3, 3)]
    assert ag.autograd.gradcheck(ag.nn.functional.scaled_dot_product_attention, small)
    assert ag.autograd.gradgradcheck(ag.nn.functional.scaled_dot_product_attention, small)


@pytest.mark.parametrize("options,call", [
    ({}, {}), ({}, {"need_weights": False}), ({"batch_first": True}, {"average_attn_weights": False}),
    ({"kdim": 3, "vdim": 5}, {}), ({"add_bias_kv": True, "add_zero_attn": True}, {}),
    ({}, {"attn_mask": "bool"}), ({}, {"key_padding_mask": True, "need_weights": False})])
def test_multihead_attention_against_torch(options, call):
    rng = np.random.default_rng(6)
    L, S, N, E = 3, 5, 2, 4
    first = options.get("batch_first")
    q = rng.normal(size=(N, L, E) if first else (L, N, E))
    k = rng.normal(size=((N, S) if first else (S, N)) + (options.get("kdim", E),))
    v = rng.normal(size=((N, S) if first else (S, N)) + (options.get("vdim", E),))
    masks = {}
    if call.get("attn_mask") == "bool":
        masks["attn_mask"] = rng.random((L, S)) < 0.3
        masks["attn_mask"][:, 0] = False
    if call.get("key_padding_mask"):
        masks["key_padding_mask"] = np.array([[False] * 4 + [True], [False] * 5])
    call = {key: value for key, value in call.items() if key not in masks}
    tm, em = torch.nn.MultiheadAttention(E, 2, **options), ag.nn.MultiheadAttention(E, 2, **options)
    assert [n for n, _ in em.named_parameters()] == [n for n, _ in tm.named_parameters()]
    assert isinstance(em.out_proj, ag.nn.Linear)
    copy_params(tm, em)
    results = []
    for T, m in ((torch, tm), (ag, em)):
        tensors = [T.tensor(a, requires_grad=True) for a in (q, k, v)]
        out, weights = m(*tensors, **call, **{key: T.tensor(value) for key, value in masks.items()})
        ((out ** 2).sum() + (0 if weights is None else (weights ** 3).sum())).backward()
        results.append((out, weights, tensors, [p.grad for p in m.parameters()]))
    (to, tw, tt, tg), (eo, ew, et, eg) = results
    close(to, eo)
    assert eo.grad_fn.name() == to.grad_fn.name()
    assert (tw is None) == (ew is None)
    if tw is not None:
        close(tw, ew)
    for a, b in zip(tt, et):
        close(a.grad, b.grad)
    for a, b in zip(tg, eg):
        close(a, b)


def test_multihead_attention_weights_by_hand():
    mha = ag.nn.MultiheadAttention(2, 1, bias=False)
    for p in (mha.in_proj_weight, mha.out_proj.weight):
        p._data[...] = np.vstack([np.eye(2)] * (p.shape[0] // 2))
    x = ag.tensor([[[1.0, 0.0]], [[0.0, 2.0]]])
    out, weights = mha(x, x, x)
    xs = np.array([[1.0, 0.0], [0.0, 2.0]])
    expected = naive_attention(xs, xs, xs)
    np.testing.assert_allclose(_np(out)[:, 0], expected, atol=1e-14)
    s = xs @ xs.T / math.sqrt(2)
    np.testing.assert_allclose(_np(weights)[0], np.exp(s) / np.exp(s).sum(1, keepdims=True), atol=1e-14)


@pytest.mark.parametrize("options", [{}, {"norm_first": True, "activation": "gelu"}, {"batch_first": True}])
def test_transformer_against_torch_in_training_mode_with_dropout(options, monkeypatch):
    torch_bernoulli(monkeypatch)
    rng = np.random.default_rng(7)
    first = options.get("batch_first")
    src = rng.normal(size=(3, 4, 8) if first else (4, 3, 8))
    tgt = rng.normal(size=(3, 5, 8) if first else (5, 3, 8))
    padding = np.zeros((3, 4), bool)
    padding[0, 3] = True

    def build(T):
        return T.nn.Transformer(d_model=8, nhead=2, num_encoder_layers=2, num_decoder_layers=1, dim_feedforward=16,
                                dropout=0.2, **options)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tm, em = both(build)
    assert [n for n, _ in em.named_parameters()] == [n for n, _ in tm.named_parameters()]
    assert list(em.state_dict()) == list(tm.state_dict())
    copy_params(tm, em)
    results = []
    for T, m in ((torch, tm), (ag, em)):
        torch.manual_seed(11)
        s, t = T.tensor(src, requires_grad=True), T.tensor(tgt, requires_grad=True)
        out = m(s, t, tgt_mask=m.generate_square_subsequent_mask(5), src_key_padding_mask=T.tensor(padding),
                memory_key_padding_mask=T.tensor(padding))
        (out ** 3).sum().backward()
        results.append((out, [s, t], list(m.parameters())))
    (to, tt, tp), (eo, et, ep) = results
    close(to, eo)
    assert eo.grad_fn.name() == to.grad_fn.name() == "NativeLayerNormBackward0"
    for a, b in zip(tt + tp, et + ep):
        close(a.grad, b.grad)


@pytest.mark.filterwarnings("ignore:The PyTorch API of nested tensors")
def test_transformer_encoder_in_eval_matches_torch_fast_path():
    rng = np.random.default_rng(8)
    src = rng.normal(size=(2, 5, 8))
    padding = np.zeros((2, 5), bool)
    padding[1, 3:] = True

    def build(T, nested):
        layer = T.nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16, batch_first=True)
        return T.nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=nested).eval()

    for nested in (False, True):
        tm, em = build(torch, nested), build(ag, nested)
        copy_params(tm, em)
        with torch.no_grad():
            expected = tm(torch.tensor(src), src_key_padding_mask=torch.tensor(padding))
        with ag.no_grad():
            got = em(ag.tensor(src), src_key_padding_mask=ag.tensor(padding))
        close(expected[~torch.tensor(padding)], got[ag.tensor(~padding)])
        if nested:      # PyTorch's nested-tensor path leaves the padded positions at zero
            close(expected, got)
            assert not _np(got)[padding].any()


def test_square_subsequent_mask_and_errors():
    mask = ag.nn.Transformer.generate_square_subsequent_mask(3)
    np.testing.assert_array_equal(_np(mask), np.triu(np.full((3, 3), -np.inf), 1))
    with pytest.raises(AssertionError, match="embed_dim must be divisible by num_heads"):
        ag.nn.MultiheadAttention(5, 2)
    with pytest.raises(RuntimeError, match="activation should be relu/gelu, not tanh"):
        ag.nn.TransformerEncoderLayer(4, 2, activation="tanh")
    with pytest.raises(RuntimeError, match="Need attn_mask if specifying the is_causal hint"):
        x = ag.ones(2, 1, 4)
        ag.nn.MultiheadAttention(4, 2)(x, x, x, is_causal=True)


def test_legacy_spectral_norm_against_torch():
    rng = np.random.default_rng(9)
    w0, x = rng.normal(size=(5, 3)), rng.normal(size=(2, 3))
    results = []
    for T in (torch, ag):
        layer = T.nn.Linear(3, 5)
        with T.no_grad():
            layer.weight.copy_(T.tensor(w0))
            layer.bias.fill_(0.1)
        m = T.nn.utils.spectral_norm(layer)
        if T is ag:     # PyTorch's draws of u and v
            m.weight_u._data[...], m.weight_v._data[...] = start
        else:
            start = (m.weight_u.numpy().copy(), m.weight_v.numpy().copy())
        (m(T.tensor(x)) ** 2).sum().backward()
        results.append((m, [m.weight, m.weight_u, m.weight_v, m.weight_orig.grad]))
    (tm, tv), (em, ev) = results
    assert [n for n, _ in em.named_parameters()] == [n for n, _ in tm.named_parameters()] == ["bias", "weight_orig"]
    assert list(em.state_dict()) == list(tm.state_dict())
    assert em.weight.grad_fn.name() == tm.weight.grad_fn.name() == "DivBackward0"
    for a, b in zip(tv, ev):
        close(a, b)
    ag.nn.utils.remove_spectral_norm(em)
    assert [n for n, _ in em.named_parameters()] == ["bias", "weight"]


def test_scaled_dot_product_attention_grouped_queries_and_fully_masked_rows():
    rng = np.random.default_rng(10)
    q, k, v = rng.normal(size=(2, 4, 3, 5)), rng.normal(size=(2, 2, 6, 5)), rng.normal(size=(2, 2, 6, 5))
    results = []
    for T in (torch, ag):
        tensors = [T.tensor(a, requires_grad=True) for a in (q, k, v)]
        out = T.nn.functional.scaled_dot_product_attention(*tensors, enable_gqa=True)
        (out ** 2).sum().backward()
        results.append([out] + [t.grad for t in tensors])
    for a, b in zip(*results):
        close(a, b)
    # the math path (3-d inputs): a query row with every key masked gives zeros and no NaN gradient
    mask = np.ones((3, 6), bool)
    mask[1] = False
    x = ag.tensor(rng.normal(size=(2, 3, 5)), requires_grad=True)
    kv = ag.tensor(rng.normal(size=(2, 6, 5)))
    out = ag.nn.functional.scaled_dot_product_attention(x, kv, kv, attn_mask=ag.tensor(mask))
    out.sum().backward()
    assert not _np(out)[:, 1].any() and not _np(x.grad)[:, 1].any() and np.isfinite(_np(x.grad)).all()


@pytest.mark.parametrize("shape", [(5, 3), (3, 5)])
def test_orthogonal_householder_without_trivialization(shape):
    rng = np.random.default_rng(11)
    w0, x = rng.normal(size=shape), rng.normal(size=(2, shape[1]))
    results = []
    for T in (torch, ag):
        layer = T.nn.Linear(shape[1], shape[0])
        with T.no_grad():
            layer.weight.copy_(T.tensor(w0))
            layer.bias.fill_(0.0)
        m = T.nn.utils.parametrizations.orthogonal(layer, orthogonal_map="householder", use_trivialization=False)
        (m(T.tensor(x)) ** 3).sum().backward()     # (a square would not see an orthogonal weight)
        original = m.parametrizations.weight.original
        results.append((m.weight, [original, m.weight, original.grad]))
    (tw, tv), (ew, ev) = results
    assert ew.grad_fn.name() == tw.grad_fn.name()
    for a, b in zip(tv, ev):
        close(a, b)


def test_sdpa_kernel_chooses_the_math_path_or_the_fused_kernel():
    from diffcompare.autograd.nn.attention import SDPBackend, sdpa_kernel
    from torch.nn.attention import SDPBackend as TorchBackend, sdpa_kernel as torch_kernel
    rng = np.random.default_rng(12)
    q = rng.normal(size=(2, 3, 4, 5))
    for backend in ("MATH", "FLASH_ATTENTION"):
        results = []
        for T, kernel, names in ((torch, torch_kernel, TorchBackend), (ag, sdpa_kernel, SDPBackend)):
            x = T.tensor(q, requires_grad=True)
            with kernel(getattr(names, backend)):
                out = T.nn.functional.scaled_dot_product_attention(x, x, x)
            (out ** 3).sum().backward()
            results.append((out, x.grad))
        (to, tg), (eo, eg) = results
        assert eo.grad_fn.name() == to.grad_fn.name()
        close(to, eo)
        close(tg, eg)
    with pytest.raises(RuntimeError, match="No viable backend"):
        with sdpa_kernel([SDPBackend.EFFICIENT_ATTENTION]):
            ag.nn.functional.scaled_dot_product_attention(ag.tensor(q), ag.tensor(q), ag.tensor(q))
