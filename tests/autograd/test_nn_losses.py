"""The losses of ``torch.nn`` beyond MSE, NLL, cross-entropy and BCE-with-logits, and
``cosine_similarity``/``pairwise_distance``/channel dropout, against PyTorch 2.13 in float64:
values (to 1e-12 relative), the gradient of every input requiring one, the node recorded
(``grad_fn.name()``), and the errors and warnings PyTorch gives for bad shapes and reductions."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from diffcompare import autograd as ag
import diffcompare.autograd.nn.functional as F

torch = pytest.importorskip("torch")
TF = torch.nn.functional

REDUCTIONS = ("none", "mean", "sum")
_rng = np.random.default_rng(2913)


def _data(kind, shape):
    if kind == "n":
        return _rng.standard_normal(shape)
    if kind == "p":                                         # probabilities, away from 0 and 1
        return _rng.uniform(0.05, 0.95, shape)
    if kind == "pos":
        return _rng.uniform(0.2, 3.0, shape)
    if kind == "sign":
        return np.where(_rng.random(shape) < 0.5, -1.0, 1.0)
    if kind == "bits":
        return (_rng.random(shape) < 0.5).astype(float)
    if kind == "count":
        return _rng.integers(0, 6, shape).astype(float)
    raise ValueError(kind)


def _tensors(lib, arrays, grads):
    return [lib.tensor(a, dtype=lib.float64, requires_grad=g) if a.dtype.kind == "f" else lib.tensor(a)
            for a, g in zip(arrays, grads)]


def _run(lib, fn, arrays, grads, cot):
    ts = _tensors(lib, arrays, grads)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = fn(lib, ts)
    name = out.grad_fn.name() if out.grad_fn is not None else None
    value = np.array(out.detach().numpy())
    out.backward(lib.tensor(cot if cot.shape == value.shape else np.ones(value.shape), dtype=lib.float64))
    return value, name, [np.array(t.grad.numpy()) if g else None for t, g in zip(ts, grads)]


def _check(fn, specs, grads=None):
    """``fn(lib, tensors)`` on both libraries, from the same data: values, grad_fn, gradients."""
    arrays = [spec if isinstance(spec, np.ndarray) else _data(*spec) for spec in specs]
    grads = grads or [a.dtype.kind == "f" for a in arrays]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        probe = fn(torch, _tensors(torch, arrays, [False] * len(arrays)))
    cot = _rng.standard_normal(tuple(probe.shape))
    mine, theirs = _run(ag, fn, arrays, grads, cot), _run(torch, fn, arrays, grads, cot)
    np.testing.assert_allclose(mine[0], theirs[0], rtol=1e-12, atol=1e-14)
    assert mine[0].shape == theirs[0].shape
    assert mine[1] == theirs[1]
    for g_mine, g_theirs in zip(mine[2], theirs[2]):
        if g_theirs is None:
            assert g_mine is None
        else:
            np.testing.assert_allclose(g_mine, g_theirs, rtol=1e-10, atol=1e-13)


def _fn(lib):
    return F if lib is ag else TF


# name -> (call, data specs, which need grad or None for every float)
CASES = {
    "l1": (lambda lib, red, t: _fn(lib).l1_loss(t[0], t[1], reduction=red), [("n", (4, 3)), ("n", (4, 3))], None),
    "l1_weight": (lambda lib, red, t: _fn(lib).l1_loss(t[0], t[1], reduction=red, weight=t[2]),
                  [("n", (4, 3)), ("n", (4, 3)), ("pos", (4, 3))], [True, True, False]),
    "smooth_l1": (lambda lib, red, t: _fn(lib).smooth_l1_loss(t[0], t[1], reduction=red, beta=0.7),
                  [("n", (5, 3)), ("n", (5, 3))], None),
    "smooth_l1_beta0": (lambda lib, red, t: _fn(lib).smooth_l1_loss(t[0], t[1], reduction=red, beta=0.0),
                        [("n", (5, 3)), ("n", (5, 3))], None),
    "huber": (lambda lib, red, t: _fn(lib).huber_loss(t[0], t[1], reduction=red, delta=0.6),
              [("n", (5, 3)), ("n", (5, 3))], None),
    "huber_weight": (lambda lib, red, t: _fn(lib).huber_loss(t[0], t[1], reduction=red, weight=t[2]),
                     [("n", (5, 3)), ("n", (5, 3)), ("pos", (5, 3))], [True, True, False]),
    "bce": (lambda lib, red, t: _fn(lib).binary_cross_entropy(t[0], t[1], reduction=red),
            [("p", (4, 3)), ("p", (4, 3))], None),
    "bce_weight": (lambda lib, red, t: _fn(lib).binary_cross_entropy(t[0], t[1], t[2], reduction=red),
                   [("p", (4, 3)), ("bits", (4, 3)), ("pos", (3,))], [True, False, False]),
    "kl_div": (lambda lib, red, t: _fn(lib).kl_div(t[0], t[1], reduction=red),
               [("n", (4, 3)), ("p", (4, 3))], [True, False]),
    "kl_div_log_target": (lambda lib, red, t: _fn(lib).kl_div(t[0], t[1], reduction=red, log_target=True),
                          [("n", (4, 3)), ("n", (4, 3))], None),
    "soft_margin": (lambda lib, red, t: _fn(lib).soft_margin_loss(t[0], t[1], reduction=red),
                    [("n", (4, 3)), ("sign", (4, 3))], [True, False]),
    "margin_ranking": (lambda lib, red, t: _fn(lib).margin_ranking_loss(t[0], t[1], t[2], 0.3, reduction=red),
                       [("n", (6,)), ("n", (6,)), ("sign", (6,))], [True, True, False]),
    "hinge_embedding": (lambda lib, red, t: _fn(lib).hinge_embedding_loss(t[0], t[1], 0.8, reduction=red),
                        [("n", (4, 3)), ("sign", (4, 3))], [True, False]),
    "cosine_embedding": (lambda lib, red, t: _fn(lib).cosine_embedding_loss(t[0], t[1], t[2], 0.1, reduction=red),
                         [("n", (6, 3)), ("n", (6, 3)), ("sign", (6,))], [True, True, False]),
    "poisson_nll": (lambda lib, red, t: _fn(lib).poisson_nll_loss(t[0], t[1], reduction=red),
                    [("n", (4, 3)), ("count", (4, 3))], [True, False]),
    "poisson_nll_rate": (lambda lib, red, t: _fn(lib).poisson_nll_loss(t[0], t[1], log_input=False, reduction=red),
                         [("pos", (4, 3)), ("count", (4, 3))], [True, False]),
    "poisson_nll_full": (lambda lib, red, t: _fn(lib).poisson_nll_loss(t[0], t[1], full=True, reduction=red),
                         [("n", (4, 3)), ("count", (4, 3))], [True, False]),
    "gaussian_nll": (lambda lib, red, t: _fn(lib).gaussian_nll_loss(t[0], t[1], t[2], reduction=red),
                     [("n", (4, 3)), ("n", (4, 3)), ("pos", (4, 3))], None),
    "gaussian_nll_full_homoscedastic": (
        lambda lib, red, t: _fn(lib).gaussian_nll_loss(t[0], t[1], t[2], full=True, reduction=red),
        [("n", (4, 3)), ("n", (4, 3)), ("pos", (4,))], None),
    "gaussian_nll_clamped_var": (
        lambda lib, red, t: _fn(lib).gaussian_nll_loss(t[0], t[1], t[2], eps=0.5, reduction=red),
        [("n", (4, 3)), ("n", (4, 3)), ("p", (4, 3))], None),
    "multilabel_soft_margin": (lambda lib, red, t: _fn(lib).multilabel_soft_margin_loss(t[0], t[1], reduction=red),
                               [("n", (4, 3)), ("bits", (4, 3))], [True, False]),
    "multilabel_soft_margin_weight": (
        lambda lib, red, t: _fn(lib).multilabel_soft_margin_loss(t[0], t[1], t[2], reduction=red),
        [("n", (4, 3)), ("bits", (4, 3)), ("pos", (3,))], [True, False, False]),
    "triplet_margin": (lambda lib, red, t: _fn(lib).triplet_margin_loss(t[0], t[1], t[2], margin=2.0, reduction=red),
                       [("n", (5, 3)), ("n", (5, 3)), ("n", (5, 3))], None),
    "triplet_margin_swap_p1": (
        lambda lib, red, t: _fn(lib).triplet_margin_loss(t[0], t[1], t[2], margin=2.0, p=1, swap=True,
                                                         reduction=red),
        [("n", (5, 3)), ("n", (5, 3)), ("n", (5, 3))], None),
    "multi_margin": (lambda lib, red, t: _fn(lib).multi_margin_loss(t[0], t[1], reduction=red),
                     [("n", (5, 4)), np.array([0, 3, 1, 1, 2])], [True, False]),
    "multi_margin_p2_weight": (
        lambda lib, red, t: _fn(lib).multi_margin_loss(t[0], t[1], p=2, margin=0.7, weight=t[2], reduction=red),
        [("n", (5, 4)), np.array([0, 3, 1, 1, 2]), ("pos", (4,))], [True, False, False]),
    "multi_margin_vector": (lambda lib, red, t: _fn(lib).multi_margin_loss(t[0], t[1], reduction=red),
                            [("n", (4,)), np.array(2)], [True, False]),
    "nll_2d": (lambda lib, red, t: _fn(lib).nll_loss(t[0], t[1], reduction=red),
               [("n", (2, 3, 4, 5)), _rng.integers(0, 3, (2, 4, 5))], [True, False]),
    "nll_1d_spatial_weight_ignore": (
        lambda lib, red, t: _fn(lib).nll_loss(t[0], t[1], weight=t[2], ignore_index=1, reduction=red),
        [("n", (2, 3, 4)), _rng.integers(0, 3, (2, 4)), ("pos", (3,))], [True, False, False]),
    "nll_3d_spatial": (lambda lib, red, t: _fn(lib).nll_loss(t[0], t[1], reduction=red),
                       [("n", (2, 3, 2, 2, 3)), _rng.integers(0, 3, (2, 2, 2, 3))], [True, False]),
    "cross_entropy_2d": (lambda lib, red, t: _fn(lib).cross_entropy(t[0], t[1], reduction=red),
                         [("n", (2, 3, 4, 5)), _rng.integers(0, 3, (2, 4, 5))], [True, False]),
    "cross_entropy_probs": (lambda lib, red, t: _fn(lib).cross_entropy(t[0], t[1], reduction=red),
                            [("n", (4, 3)), ("p", (4, 3))], None),
    "cross_entropy_probs_weight_spatial": (
        lambda lib, red, t: _fn(lib).cross_entropy(t[0], t[1], weight=t[2], reduction=red),
        [("n", (2, 3, 4)), ("p", (2, 3, 4)), ("pos", (3,))], [True, True, False]),
}


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("case", sorted(CASES))
def test_loss_agrees_with_torch(case, reduction):
    call, specs, grads = CASES[case]
    _check(lambda lib, t: call(lib, reduction, t), specs, grads)


def test_kl_div_batchmean():
    _check(lambda lib, t: _fn(lib).kl_div(t[0], t[1], reduction="batchmean"), [("n", (4, 3)), ("p", (4, 3))],
           [True, False])


@pytest.mark.parametrize("kwargs", [{}, {"dim": 0, "eps": 1e-3}])
def test_cosine_similarity(kwargs):
    _check(lambda lib, t: _fn(lib).cosine_similarity(t[0], t[1], **kwargs), [("n", (4, 3)), ("n", (4, 3))])


def test_cosine_similarity_of_a_zero_vector_and_broadcasting():
    zero = np.zeros((1, 3))
    _check(lambda lib, t: _fn(lib).cosine_similarity(t[0], t[1]), [zero, ("n", (4, 3))])


@pytest.mark.parametrize("kwargs", [{}, {"p": 1.0, "keepdim": True}, {"p": 3.0, "eps": 0.0}])
def test_pairwise_distance(kwargs):
    _check(lambda lib, t: _fn(lib).pairwise_distance(t[0], t[1], **kwargs), [("n", (4, 3)), ("n", (4, 3))])


MODULES = [
    ("L1Loss", {}, [("n", (3, 2)), ("n", (3, 2))]),
    ("SmoothL1Loss", {"beta": 0.5, "reduction": "sum"}, [("n", (3, 2)), ("n", (3, 2))]),
    ("HuberLoss", {"delta": 0.5}, [("n", (3, 2)), ("n", (3, 2))]),
    ("BCELoss", {"reduction": "none"}, [("p", (3, 2)), ("p", (3, 2))]),
    ("KLDivLoss", {"reduction": "batchmean", "log_target": True}, [("n", (3, 2)), ("n", (3, 2))]),
    ("SoftMarginLoss", {"size_average": False}, [("n", (3, 2)), ("sign", (3, 2))]),
    ("MarginRankingLoss", {"margin": 0.5}, [("n", (4,)), ("n", (4,)), ("sign", (4,))]),
    ("HingeEmbeddingLoss", {"reduce": False}, [("n", (3, 2)), ("sign", (3, 2))]),
    ("CosineEmbeddingLoss", {"margin": 0.2}, [("n", (4, 3)), ("n", (4, 3)), ("sign", (4,))]),
    ("PoissonNLLLoss", {"full": True}, [("n", (3, 2)), ("count", (3, 2))]),
    ("GaussianNLLLoss", {"full": True}, [("n", (3, 2)), ("n", (3, 2)), ("pos", (3, 1))]),
    ("MultiLabelSoftMarginLoss", {}, [("n", (3, 4)), ("bits", (3, 4))]),
    ("TripletMarginLoss", {"margin": 1.5, "swap": True}, [("n", (4, 3)), ("n", (4, 3)), ("n", (4, 3))]),
    ("MultiMarginLoss", {"p": 2}, [("n", (3, 4)), np.array([3, 0, 1])]),
    ("CosineSimilarity", {"dim": 0}, [("n", (4, 3)), ("n", (4, 3))]),
    ("PairwiseDistance", {"p": 1.0}, [("n", (4, 3)), ("n", (4, 3))]),
]


@pytest.mark.parametrize("name,kwargs,specs", MODULES, ids=[m[0] for m in MODULES])
def test_module_agrees_with_torch(name, kwargs, specs):
    targets = {"SoftMarginLoss", "HingeEmbeddingLoss", "PoissonNLLLoss", "MultiLabelSoftMarginLoss", "BCELoss"}
    grads = [True] + [not (name in targets or (name in ("MarginRankingLoss", "CosineEmbeddingLoss") and i == 2))
                      for i in range(1, len(specs))]
    grads = [g and not isinstance(s, np.ndarray) for g, s in zip(grads, specs)]

    def call(lib, t):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            module = getattr(lib.nn, name)(**kwargs)
        return module(*t)
    _check(call, specs, grads)


def _outcome(fn):
    """The class of the error ``fn`` raises (None if none) and the warnings' categories."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            fn()
            error = None
        except Exception as e:      # noqa: BLE001 - the class is what is compared
            error = type(e).__name__
    return error, sorted({w.category.__name__ for w in caught})


BAD = {
    "l1_bad_reduction": lambda F_, L: F_.l1_loss(L.ones(3), L.ones(3), reduction="avg"),
    "l1_broadcast_warning": lambda F_, L: F_.l1_loss(L.ones(3, 1), L.ones(3)),
    "smooth_l1_broadcast_warning": lambda F_, L: F_.smooth_l1_loss(L.ones(3, 1), L.ones(3)),
    "huber_bad_reduction": lambda F_, L: F_.huber_loss(L.ones(3), L.ones(3), reduction="avg"),
    "l1_bad_weight": lambda F_, L: F_.l1_loss(L.ones(3), L.ones(3), weight=L.ones(2)),
    "bce_shape": lambda F_, L: F_.binary_cross_entropy(L.ones(3) / 2, L.ones(3, 1)),
    "bce_out_of_range": lambda F_, L: F_.binary_cross_entropy(L.ones(3) * 2, L.ones(3)),
    "kl_mean_warning": lambda F_, L: F_.kl_div(L.zeros(3), L.ones(3) / 3),
    "kl_bad_reduction": lambda F_, L: F_.kl_div(L.zeros(3), L.ones(3) / 3, reduction="avg"),
    "margin_ranking_dims": lambda F_, L: F_.margin_ranking_loss(L.ones(3), L.ones(3), L.ones(3, 1)),
    "cosine_embedding_2d_target": lambda F_, L: F_.cosine_embedding_loss(L.ones(3, 2), L.ones(3, 2), L.ones(3, 1)),
    "cosine_embedding_input_dims": lambda F_, L: F_.cosine_embedding_loss(L.ones(3), L.ones(3), L.ones(3)),
    "poisson_bad_reduction": lambda F_, L: F_.poisson_nll_loss(L.ones(3), L.ones(3), reduction="avg"),
    "gaussian_negative_var": lambda F_, L: F_.gaussian_nll_loss(L.ones(3), L.ones(3), -L.ones(3)),
    "gaussian_var_size": lambda F_, L: F_.gaussian_nll_loss(L.ones(4, 3), L.ones(4, 3), L.ones(2, 2)),
    "multilabel_bad_reduction": lambda F_, L: F_.multilabel_soft_margin_loss(L.ones(2, 3), L.ones(2, 3),
                                                                             reduction="avg"),
    "triplet_margin_nonpositive": lambda F_, L: F_.triplet_margin_loss(L.ones(2, 3), L.ones(2, 3), L.ones(2, 3),
                                                                       margin=0.0),
    "triplet_dims": lambda F_, L: F_.triplet_margin_loss(L.ones(2, 3), L.ones(2, 3), L.ones(3)),
    "multi_margin_p": lambda F_, L: F_.multi_margin_loss(L.ones(2, 3), L.tensor([0, 1]), p=3),
    "multi_margin_target_size": lambda F_, L: F_.multi_margin_loss(L.ones(2, 3), L.tensor([0, 1, 2])),
    "nll_2d_target_dims": lambda F_, L: F_.nll_loss(L.zeros(2, 3, 4, 5), L.zeros(2, 4, dtype=L.int64)),
    "nll_2d_target_size": lambda F_, L: F_.nll_loss(L.zeros(2, 3, 4, 5), L.zeros(2, 4, 4, dtype=L.int64)),
    "nll_kd_target_size": lambda F_, L: F_.nll_loss(L.zeros(2, 3, 4), L.zeros(2, 5, dtype=L.int64)),
    "dropout2d_5d_warning": lambda F_, L: F_.dropout2d(L.ones(1, 2, 2, 2, 2)),
    "dropout2d_3d_warning": lambda F_, L: F_.dropout2d(L.ones(1, 2, 2)),
    "dropout1d_4d": lambda F_, L: F_.dropout1d(L.ones(1, 2, 2, 2)),
    "dropout2d_p": lambda F_, L: F_.dropout2d(L.ones(1, 2, 2, 2), p=1.5),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_errors_and_warnings_as_torch(case):
    theirs = _outcome(lambda: BAD[case](TF, torch))
    assert theirs != (None, [])                 # each case is one PyTorch objects to
    assert _outcome(lambda: BAD[case](F, ag)) == theirs


def test_soft_margin_refuses_a_target_requiring_grad():
    with pytest.raises(RuntimeError, match="not differentiable with respect to argument 'target'"):
        TF.soft_margin_loss(torch.zeros(2), torch.ones(2, requires_grad=True))
    with pytest.raises(RuntimeError, match="not differentiable with respect to argument 'target'"):
        F.soft_margin_loss(ag.zeros(2), ag.ones(2, requires_grad=True))


def test_bce_clamps_the_log_at_minus_100_as_torch():
    x, y = np.array([0.0, 1.0, 0.5]), np.array([1.0, 0.0, 0.5])
    mine = F.binary_cross_entropy(ag.tensor(x), ag.tensor(y), reduction="none").numpy()
    theirs = TF.binary_cross_entropy(torch.tensor(x), torch.tensor(y), reduction="none").numpy()
    np.testing.assert_allclose(mine, theirs, rtol=1e-12)


@pytest.mark.parametrize("fn,shape", [("dropout1d", (3, 4, 5)), ("dropout1d", (4, 5)), ("dropout2d", (3, 4, 2, 2)),
                                      ("dropout3d", (3, 4, 2, 2, 2)), ("dropout3d", (4, 2, 2, 2))])
def test_channel_dropout_zeroes_whole_channels_and_records_mul(fn, shape):
    # The draws come from the engine's generator, so the pattern is PyTorch's in kind, not in value:
    # whole channels zeroed, the rest scaled by 1/(1 - p), recorded as MulBackward0 (as torch records).
    ag.manual_seed(3)
    x = ag.tensor(np.arange(1.0, 1 + np.prod(shape)).reshape(shape), requires_grad=True)
    y = getattr(F, fn)(x, p=0.4)
    assert y.grad_fn.name() == getattr(TF, fn)(torch.ones(shape, requires_grad=True), p=0.4).grad_fn.name()
    ratio = y.detach().numpy() / x.detach().numpy()
    spatial = int(fn[-2])                       # 1, 2 or 3 dimensions share a channel's draw
    flat = ratio.reshape(-1, int(np.prod(shape[-spatial:])))
    for row in flat:
        assert np.allclose(row, 0) or np.allclose(row, 1 / 0.6)
    assert any(np.allclose(r, 0) for r in flat) and any(np.allclose(r, 1 / 0.6) for r in flat)
    y.backward(ag.ones(shape))
    np.testing.assert_allclose(x.grad.numpy(), ratio)
    evaluated = getattr(F, fn)(x, p=0.4, training=False)      # unbatched: squeezed back, as in torch
    reference = getattr(TF, fn)(torch.ones(shape, requires_grad=True), p=0.4, training=False)
    assert (evaluated.grad_fn and evaluated.grad_fn.name()) == (reference.grad_fn and reference.grad_fn.name())
    np.testing.assert_array_equal(evaluated.detach().numpy(), x.detach().numpy())


def test_dropout2d_module_in_eval_is_identity_and_p_one_zeroes():
    m = ag.nn.Dropout2d(1.0)
    x = ag.ones(2, 3, 2, 2)
    assert (m(x).numpy() == 0).all()
    m.eval()
    assert m(x) is x
