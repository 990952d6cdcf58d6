"""``nn.LinearCrossEntropyLoss`` and ``F.linear_cross_entropy`` (PyTorch's reference path), and
the ``label_smoothing`` of ``F.cross_entropy`` they pass on, differentially against PyTorch:
values, gradients, node names, the module's parameters and repr, the errors; independently,
the loss computed in NumPy from log-sum-exp and the gradient by central differences."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")
if not hasattr(torch.nn, "LinearCrossEntropyLoss"):
    pytest.skip("this PyTorch has no nn.LinearCrossEntropyLoss", allow_module_level=True)
TF = torch.nn.functional

from diffcompare import autograd as ag  # noqa: E402
import diffcompare.autograd.nn.functional as AF  # noqa: E402

RNG = np.random.default_rng(9)
X = RNG.standard_normal((4, 5))
W = RNG.standard_normal((10, 5))
B = RNG.standard_normal(10)
CLASS_WEIGHT = RNG.uniform(0.5, 2.0, 10)
INDICES = np.array([1, 2, -100, 9])
PROBS = RNG.uniform(size=(4, 10))
PROBS /= PROBS.sum(1, keepdims=True)


pytestmark = pytest.mark.usefixtures("torch_float64")     # PyTorch in float64, as the engine


def _run(lib, F, target, weight, reduction, smoothing, bias):
    x, w = lib.tensor(X, requires_grad=True), lib.tensor(W, requires_grad=True)
    b = lib.tensor(B, requires_grad=True) if bias else None
    t = lib.tensor(INDICES if target == "indices" else PROBS)
    loss = F.linear_cross_entropy(x, w, t, linear_bias=b, weight=None if weight is None else lib.tensor(weight),
                                  reduction=reduction, label_smoothing=smoothing)
    (loss * loss).sum().backward()
    return loss.grad_fn.name(), [loss, x.grad, w.grad] + ([b.grad] if bias else [])


@pytest.mark.parametrize("target", ["indices", "probabilities"])
@pytest.mark.parametrize("weight", [None, CLASS_WEIGHT])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("smoothing", [0.0, 0.3])
@pytest.mark.parametrize("bias", [False, True])
def test_values_gradients_and_node_match_pytorch(target, weight, reduction, smoothing, bias):
    mine = _run(ag, AF, target, weight, reduction, smoothing, bias)
    theirs = _run(torch, TF, target, weight, reduction, smoothing, bias)
    assert mine[0] == theirs[0]
    for m, t in zip(mine[1], theirs[1]):
        np.testing.assert_allclose(m.detach().numpy(), t.detach().numpy(), rtol=1e-12, atol=1e-14)


def test_k_dimensional_module_matches_pytorch():
    runs = []
    weight, bias = RNG.standard_normal((120, 5)), RNG.standard_normal(120)
    x, target = RNG.standard_normal((2, 5)), RNG.integers(0, 10, (2, 4, 3))
    for lib in (ag, torch):
        m = lib.nn.LinearCrossEntropyLoss(5, 10, out_features=(4, 3), bias=True, label_smoothing=0.1)
        assert [n for n, _ in m.named_parameters()] == ["linear.weight", "linear.bias"]
        m.linear.weight.data, m.linear.bias.data = lib.tensor(weight), lib.tensor(bias)
        xt = lib.tensor(x, requires_grad=True)
        loss = m(xt, lib.tensor(target))
        loss.backward()
        runs.append((repr(m), loss.grad_fn.name(), loss.item(), xt.grad.numpy(), m.linear.weight.grad.numpy()))
    assert runs[0][:2] == runs[1][:2]
    for a, b in zip(runs[0][2:], runs[1][2:]):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


def test_loss_by_hand():
    logits = X @ W.T + B
    logp = logits - np.log(np.exp(logits).sum(1, keepdims=True))
    keep = INDICES != -100
    nll = -logp[keep, INDICES[keep]].mean()
    smooth = -logp[keep].sum(1).mean() / 10
    loss = AF.linear_cross_entropy(ag.tensor(X), ag.tensor(W), ag.tensor(INDICES), linear_bias=ag.tensor(B),
                                   label_smoothing=0.3)
    assert loss.item() == pytest.approx(0.7 * nll + 0.3 * smooth, rel=1e-13)
    m = ag.nn.LinearCrossEntropyLoss(5, 10)
    m.linear.weight.data = ag.tensor(W)
    plain = -(X @ W.T - np.log(np.exp(X @ W.T).sum(1, keepdims=True)))[keep, INDICES[keep]].mean()
    assert m(ag.tensor(X), ag.tensor(INDICES)).item() == pytest.approx(plain, rel=1e-13)


def test_weight_gradient_matches_finite_differences():
    def f(w):
        return AF.linear_cross_entropy(ag.tensor(X), ag.tensor(w), ag.tensor(INDICES), weight=ag.tensor(CLASS_WEIGHT),
                                       label_smoothing=0.2).item()
    w = ag.tensor(W, requires_grad=True)
    AF.linear_cross_entropy(ag.tensor(X), w, ag.tensor(INDICES), weight=ag.tensor(CLASS_WEIGHT),
                            label_smoothing=0.2).backward()
    h, numeric = 1e-6, np.zeros(W.shape)
    for idx in np.ndindex(*W.shape):
        step = np.zeros(W.shape)
        step[idx] = h
        numeric[idx] = (f(W + step) - f(W - step)) / (2 * h)
    np.testing.assert_allclose(w.grad.numpy(), numeric, rtol=1e-6, atol=1e-9)


def _errors(lib, F):
    zeros, long = lib.zeros, lib.int64
    return [
        lambda: F.linear_cross_entropy(zeros(2, 3, 4), zeros(5, 4), zeros(2, dtype=long)),
        lambda: F.linear_cross_entropy(zeros(2, 4), zeros(4), zeros(2, dtype=long)),
        lambda: F.linear_cross_entropy(zeros(2, 4), zeros(5, 3), zeros(2, dtype=long)),
        lambda: F.linear_cross_entropy(zeros(2, 4), zeros(5, 4), zeros(2, dtype=long), linear_bias=zeros(4)),
        lambda: F.linear_cross_entropy(zeros(4), zeros(5, 2, 4), zeros(2, dtype=long)),
        lambda: F.linear_cross_entropy(zeros(2, 4), zeros(5, 4), zeros(2, 5), ignore_index=1),
        lambda: F.cross_entropy(zeros(2, 4), zeros(2, dtype=long), label_smoothing=1.5),
        lambda: lib.nn.LinearCrossEntropyLoss(3, 4, weight=lib.ones(3)),
        lambda: lib.nn.LinearCrossEntropyLoss(3, 4, label_smoothing=2.0),
    ]


@pytest.mark.parametrize("k", range(9))
def test_errors_match(k):
    messages = []
    for lib, F in ((ag, AF), (torch, TF)):
        with pytest.raises(RuntimeError) as error:
            _errors(lib, F)[k]()
        messages.append(str(error.value))
    assert messages[0] == messages[1]


def test_negative_smoothing_smooths_nothing_as_in_pytorch():
    for lib, F in ((ag, AF), (torch, TF)):
        x, t = lib.tensor(X[:, :4]), lib.tensor([0, 1, 2, 3])
        assert F.cross_entropy(x, t, label_smoothing=-0.5).item() == pytest.approx(F.cross_entropy(x, t).item())
