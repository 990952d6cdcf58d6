"""Deep graphs: the backward walk is a loop, so depth is bounded by memory, not recursion."""

import sys

import numpy as np

from diffcompare import autograd as ag


def test_deep_chain_has_no_recursion_limit():
    depth = 20 * sys.getrecursionlimit()      # far past any recursive walk
    x = ag.tensor([0.5], requires_grad=True)
    y = x
    for _ in range(depth):
        y = y * 1.0000001
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), [1.0000001 ** depth], rtol=1e-9)


def test_deep_chain_second_order():
    x = ag.tensor(0.3, requires_grad=True)
    y = x
    for _ in range(3000):
        y = y.sin() * 0.5 + y * 0.5
    (g,) = ag.grad(y, x, create_graph=True)
    (h,) = ag.grad(g, x)
    assert np.isfinite(g.item()) and np.isfinite(h.item())


def test_saved_arrays_are_released_after_backward():
    x = ag.tensor(np.ones(10), requires_grad=True)
    y = x.exp()
    node = y.grad_fn
    y.sum().backward()
    assert node._saved is None and node._freed
