"""What code that differentiates with respect to inputs relies on (gradient penalties, attacks,
saliency): the second derivative through ReLU-like activations, recorded as PyTorch records
it (``ThresholdBackwardBackward0``, ...) and reaching what their input depends on with zeros,
not nothing; these activations at NaN and infinities; ``torch.where(condition)`` alone — by
hand, and beside PyTorch where it is installed."""

from __future__ import annotations

import math

import pytest

from engines import each

ACTIVATIONS = {   # name -> (function of T, PyTorch's node of the first backward, its derivative by hand at X)
    "relu": (lambda T: T.relu, "ThresholdBackwardBackward0", lambda x: 1.0 if x > 0 else 0.0),
    "nn.ReLU": (lambda T: T.nn.ReLU(), "ThresholdBackwardBackward0", lambda x: 1.0 if x > 0 else 0.0),
    "threshold": (lambda T: lambda z: T.nn.functional.threshold(z, 0.5, -1.0), "ThresholdBackwardBackward0",
                  lambda x: 1.0 if x > 0.5 else 0.0),
    "leaky_relu": (lambda T: lambda z: T.nn.functional.leaky_relu(z, 0.2), "LeakyReluBackwardBackward0",
                   lambda x: 1.0 if x > 0 else 0.2),
    "hardtanh": (lambda T: T.nn.functional.hardtanh, "HardtanhBackwardBackward0",
                 lambda x: 1.0 if -1 < x < 1 else 0.0),
    "relu6": (lambda T: T.nn.functional.relu6, "HardtanhBackwardBackward0", lambda x: 1.0 if 0 < x < 6 else 0.0),
}
X = [-1.5, -0.3, 0.2, 0.7, 1.4, 3.5, 6.5]


@each
@pytest.mark.parametrize("name", list(ACTIVATIONS))
def test_a_piecewise_linear_activations_backward_is_an_op_of_its_input(T, name):
    make, node, slope = ACTIVATIONS[name]
    f = make(T)
    x = T.tensor(X, dtype=T.float64, requires_grad=True)
    z = x * 2
    (g,) = T.autograd.grad((f(z) * 3).sum(), z, create_graph=True)
    assert [s * 3 for s in map(slope, [2 * v for v in X])] == g.tolist()           # by hand
    assert g.grad_fn.name() == node
    assert g.grad_fn.next_functions[1][0] is not None       # the activation's input (or result) is an input of it
    # the input-gradient of a function that is linear between kinks does not depend on the input:
    # its derivative is zeros, and it reaches the leaf (a gradient penalty's parameters get zeros, not None)
    w = T.tensor(X, dtype=T.float64, requires_grad=True)
    (gw,) = T.autograd.grad(f(w * 2).sum(), w, create_graph=True)
    assert gw.requires_grad
    (h,) = T.autograd.grad((gw ** 2).sum(), w)
    assert h.tolist() == [0.0] * len(X)


@each
def test_a_gradient_penalty_gives_the_first_layers_bias_zeros_not_none(T):
    """WGAN-GP's penalty on a ReLU critic: through the ReLU the bias before it gets zeros."""
    T.manual_seed(0)
    critic = T.nn.Sequential(T.nn.Linear(4, 6), T.nn.ReLU(), T.nn.Linear(6, 1)).double()
    points = T.randn(5, 4, dtype=T.float64, requires_grad=True)
    (gradients,) = T.autograd.grad(critic(points), points, grad_outputs=T.ones(5, 1, dtype=T.float64),
                                   create_graph=True)
    ((gradients.norm(2, dim=1) - 1) ** 2).mean().backward()
    first, last = critic[0], critic[2]
    assert first.bias.grad is not None and first.bias.grad.abs().sum().item() == 0.0
    assert first.weight.grad.abs().sum().item() > 0 and last.weight.grad.abs().sum().item() > 0
    assert last.bias.grad is None           # the penalty does not depend on the last bias at all


NAN, INF = float("nan"), float("inf")
POINTS = [NAN, -1.0, 0.0, 0.5, 1.0, 6.0, INF, -INF]
SEED = [2.0, 1.0, 1.0, 1.0, 1.0, 1.0, INF, 3.0]
EXPECTED = {    # (forward, gradient) by PyTorch's kernels: threshold x <= t ? value : x; hardtanh's gradient 0 outside (min, max) and at NaN
    "threshold": ([NAN, -1.0, -1.0, -1.0, 1.0, 6.0, INF, -1.0], [2.0, 0.0, 0.0, 0.0, 1.0, 1.0, INF, 0.0]),
    "hardtanh": ([NAN, -1.0, 0.0, 0.5, 1.0, 1.0, 1.0, -1.0], [0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0]),
    "relu6": ([NAN, 0.0, 0.0, 0.5, 1.0, 6.0, 6.0, 0.0], [0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0]),
    "leaky_relu": ([NAN, -0.2, 0.0, 0.5, 1.0, 6.0, INF, -INF], [0.4, 0.2, 0.2, 1.0, 1.0, 1.0, INF, 0.2 * 3.0]),
    "relu": ([NAN, 0.0, 0.0, 0.5, 1.0, 6.0, INF, 0.0], [2.0, 0.0, 0.0, 1.0, 1.0, 1.0, INF, 0.0]),
}


def _same(a, b):
    return len(a) == len(b) and all((math.isnan(u) and math.isnan(v)) or u == v for u, v in zip(a, b))


@each
@pytest.mark.parametrize("name", list(EXPECTED))
def test_activations_at_nan_and_infinities(T, name):
    f = ACTIVATIONS[name][0](T)
    x = T.tensor(POINTS, dtype=T.float64, requires_grad=True)
    y = f(x)
    y.backward(T.tensor(SEED, dtype=T.float64))
    forward, gradient = EXPECTED[name]
    assert _same(y.tolist(), forward) and _same(x.grad.tolist(), gradient), (y.tolist(), x.grad.tolist())


@each
def test_where_given_the_condition_alone_gives_its_indices(T):
    c = T.tensor([[True, False, True], [False, True, False]])
    rows, columns = T.where(c)
    assert rows.tolist() == [0, 0, 1] and columns.tolist() == [0, 2, 1] and rows.dtype == T.int64
    assert [t.tolist() for t in T.where(T.tensor(True))] == [[0]]
    assert [t.tolist() for t in T.where(T.tensor([0.0, 2.0, -1.0]))] == [[1, 2]]
    with pytest.raises(TypeError, match=r"where\(\) received an invalid combination of arguments"):
        T.where(c, T.ones(2, 3))
