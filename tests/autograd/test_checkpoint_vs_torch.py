"""``torch.utils.checkpoint`` on the engine: the reentrant variant runs the function again in
backward and gives the gradients of running it plainly (by hand here), with PyTorch's limits
and warnings; the non-reentrant one is the plain run. Against PyTorch where it is installed."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from diffcompare import autograd as ag
from diffcompare.autograd.utils.checkpoint import checkpoint, checkpoint_sequential


def _f(w):
    return lambda t: (t * w).sin().sum()


def test_reentrant_gradients_are_those_of_the_plain_run():
    """d/dx sum sin(w x) = w cos(w x); d/dw = x cos(w x) (w, reached only inside, accumulates too)."""
    x = ag.tensor([0.3, -1.2], requires_grad=True)
    w = ag.tensor([2.0, 0.5], requires_grad=True)
    y = checkpoint(_f(w), x, use_reentrant=True)
    assert y.grad_fn.name() == "CheckpointFunctionBackward"
    y.backward()
    assert np.allclose(x.grad.numpy(), [2.0 * np.cos(0.6), 0.5 * np.cos(-0.6)], rtol=1e-15)
    assert np.allclose(w.grad.numpy(), [0.3 * np.cos(0.6), -1.2 * np.cos(-0.6)], rtol=1e-15)


def test_reentrant_output_needs_an_input_that_requires_grad():
    """PyTorch's pitfall, reproduced: with no input requiring grad the output requires none."""
    w = ag.tensor([2.0], requires_grad=True)
    with pytest.warns(UserWarning, match="None of the inputs have requires_grad=True"):
        y = checkpoint(_f(w), ag.tensor([1.0]), use_reentrant=True)
    assert not y.requires_grad


def test_non_reentrant_is_the_plain_graph():
    w = ag.tensor([2.0], requires_grad=True)
    y = checkpoint(_f(w), ag.tensor([1.0]), use_reentrant=False)
    assert y.grad_fn.name() == "SumBackward0"
    y.backward()
    assert np.allclose(w.grad.numpy(), [np.cos(2.0)])


def test_missing_use_reentrant_warns_and_means_reentrant():
    x = ag.tensor([1.0], requires_grad=True)
    with pytest.warns(UserWarning, match="the use_reentrant parameter should be passed explicitly"):
        y = checkpoint(lambda t: t * 2, x)
    assert y.grad_fn.name() == "CheckpointFunctionBackward"


def test_reentrant_refuses_grad_and_backward_inputs():
    x = ag.tensor([1.0], requires_grad=True)
    y = checkpoint(lambda t: (t * 3).sum(), x, use_reentrant=True)
    with pytest.raises(RuntimeError, match="incompatible with .grad\\(\\) or passing an `inputs` parameter"):
        ag.autograd.grad(y, x)


def test_dropout_inside_is_replayed_with_the_same_mask():
    """The second run draws what the first drew: the gradient is the mask the output shows."""
    ag.manual_seed(3)
    x = ag.ones(200, requires_grad=True)
    y = checkpoint(lambda t: ag.nn.functional.dropout(t, 0.5, training=True), x, use_reentrant=True)
    y.sum().backward()
    assert np.array_equal(x.grad.numpy(), y.detach().numpy())
    assert 0 < np.count_nonzero(y.detach().numpy()) < 200


def test_sequential_in_segments():
    model = ag.nn.Sequential(ag.nn.Linear(3, 4), ag.nn.Tanh(), ag.nn.Linear(4, 2), ag.nn.Tanh())
    x = ag.randn(5, 3, requires_grad=True)
    plain = model(x).sum()
    expected = ag.autograd.grad(plain, [x] + list(model.parameters()))
    out = checkpoint_sequential(model, 2, x, use_reentrant=True)
    out.sum().backward()
    assert np.allclose(x.grad.numpy(), expected[0].numpy(), rtol=1e-14)
    for p, g in zip(model.parameters(), expected[1:]):
        assert np.allclose(p.grad.numpy(), g.numpy(), rtol=1e-14)


def test_as_pytorch():
    torch = pytest.importorskip("torch")
    import torch.utils.checkpoint as tc
    seen = {}
    for lib, ck in ((torch, tc.checkpoint), (ag, checkpoint)):
        x = lib.tensor([[0.5, -0.25], [1.5, 2.0]], dtype=lib.float64, requires_grad=True)
        w = lib.tensor([[1.0, 2.0], [-0.5, 0.25]], dtype=lib.float64, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            a = ck(lambda t: (t @ w).tanh(), x, use_reentrant=True)
            b = ck(lambda t: (t @ w).exp(), x, use_reentrant=False)
        (a.sum() + b.sum()).backward()
        seen[lib] = (a.grad_fn.name(), b.grad_fn.name(), x.grad.numpy(), w.grad.numpy())
    assert seen[ag][:2] == seen[torch][:2]
    assert np.allclose(seen[ag][2], seen[torch][2], rtol=1e-14) and np.allclose(seen[ag][3], seen[torch][3], rtol=1e-14)
