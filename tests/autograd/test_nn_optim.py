"""nn and optim: a PyTorch-style training loop runs, and each update equals the hand formula."""

import numpy as np
import pytest

from diffcompare import autograd as ag
from diffcompare.autograd import nn


def test_linear_is_x_w_transpose_plus_b():
    ag.manual_seed(0)
    layer = nn.Linear(3, 2)
    x = ag.randn(4, 3)
    expected = x.numpy() @ layer.weight.detach().numpy().T + layer.bias.detach().numpy()
    np.testing.assert_allclose(layer(x).detach().numpy(), expected)
    bound = 1 / np.sqrt(3)
    assert np.all(np.abs(layer.weight.detach().numpy()) <= bound)
    assert [n for n, _ in layer.named_parameters()] == ["weight", "bias"]
    with pytest.raises(RuntimeError, match="mat1 and mat2 shapes cannot be multiplied"):
        layer(ag.randn(4, 5))


def test_losses():
    pred, target = ag.tensor([[1.0, 2.0], [3.0, 5.0]], requires_grad=True), ag.tensor([[1.0, 1.0], [1.0, 1.0]])
    loss = nn.MSELoss()(pred, target)
    assert loss.item() == pytest.approx((0 + 1 + 4 + 16) / 4)
    loss.backward()
    np.testing.assert_allclose(pred.grad.numpy(), 2 * (pred.detach().numpy() - 1) / 4)
    logits = ag.tensor([[2.0, 1.0, 0.1], [0.5, 2.5, 0.3]], requires_grad=True)
    target = ag.tensor([0, 1])
    loss = nn.CrossEntropyLoss()(logits, target)
    z = logits.detach().numpy()
    logp = z - np.log(np.exp(z).sum(1, keepdims=True))
    assert loss.item() == pytest.approx(-(logp[0, 0] + logp[1, 1]) / 2)
    loss.backward()
    softmax = np.exp(logp)
    np.testing.assert_allclose(logits.grad.numpy(), (softmax - np.eye(3)[[0, 1]]) / 2)


def test_sgd_and_momentum_and_weight_decay():
    w = ag.tensor([1.0, -2.0], requires_grad=True)
    opt = ag.optim.SGD([w], lr=0.1, momentum=0.9, weight_decay=0.01)
    expected, buf = np.array([1.0, -2.0]), None
    for _ in range(3):
        opt.zero_grad()
        (w * w).sum().backward()
        d = 2 * expected + 0.01 * expected
        buf = d if buf is None else 0.9 * buf + d
        expected = expected - 0.1 * buf
        opt.step()
    np.testing.assert_allclose(w.detach().numpy(), expected)
    assert w.is_leaf and w.grad_fn is None


def test_adam_first_step_is_lr_times_sign():
    w = ag.tensor([1.0, -2.0, 0.5], requires_grad=True)
    opt = ag.optim.Adam([w], lr=0.01)
    (w ** 3).sum().backward()
    opt.step()
    # after one step m_hat = g, v_hat = g^2: the update is lr * g / (|g| + eps)
    np.testing.assert_allclose(w.detach().numpy(), [0.99, -2.01, 0.49], rtol=1e-6)   # g = 3w^2 > 0


def test_zero_grad_set_to_none():
    net = nn.Sequential(nn.Linear(2, 2), nn.Tanh())
    net(ag.ones(1, 2)).sum().backward()
    assert all(p.grad is not None for p in net.parameters())
    net.zero_grad()
    assert all(p.grad is None for p in net.parameters())
    net(ag.ones(1, 2)).sum().backward()
    opt = ag.optim.SGD(net.parameters(), lr=0.1)
    opt.zero_grad(set_to_none=False)
    assert all(np.all(p.grad.numpy() == 0) for p in net.parameters())
    assert net.train() is net and net.eval().training is False


def test_training_reduces_the_loss():
    ag.manual_seed(1)
    x = ag.randn(64, 3)
    y = (x.numpy() @ np.array([1.0, -2.0, 0.5]))[:, None]
    net = nn.Sequential(nn.Linear(3, 16), nn.ReLU(), nn.Linear(16, 1))
    opt = ag.optim.Adam(net.parameters(), lr=0.01)
    loss_fn = nn.MSELoss()
    first = None
    for _ in range(200):
        opt.zero_grad()
        loss = loss_fn(net(x), ag.tensor(y))
        loss.backward()
        opt.step()
        first = first if first is not None else loss.item()
    assert loss.item() < 0.05 * first
