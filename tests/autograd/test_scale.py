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


def _garbage_of(run):
    """Run ``run`` with the cyclic GC off and return the engine's types among what only a
    collection could free: nothing, when reference counting frees all it left (a cycle would make every later
    collection, and so every op, slower)."""
    import gc

    from diffcompare.autograd import collector

    collector.resume()      # what an earlier test's graph froze (garbage among it) is scanned too
    gc.unfreeze()           # and whatever else sits in the permanent generation (another test's figures)
    gc.collect()
    gc.disable()
    try:
        run()
        gc.set_debug(gc.DEBUG_SAVEALL)      # keep what a collection finds, to name it
        gc.collect()
        # a cycle the engine makes holds one of its own objects (a node, a tensor, a saved value);
        # another library's garbage freed meanwhile (a figure's transforms) is not the engine's
        found = sorted(type(o).__name__ for o in gc.garbage if type(o).__module__.startswith("diffcompare"))
        return found
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()


class _Square(ag.Function):
    @staticmethod
    def forward(ctx, x):
        y = x * x
        ctx.save_for_backward(x, y)
        return y

    @staticmethod
    def backward(ctx, g):
        x, _ = ctx.saved_tensors
        return g * 2 * x


def test_graphs_make_no_reference_cycles():
    def slices():
        x = ag.tensor(np.ones(5000), requires_grad=True)
        ((x[1:] - x[:-1] ** 2) ** 2).sum().backward()

    def hooks_and_inplace():
        x = ag.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        y.retain_grad()
        y.register_hook(lambda g: g)
        z = y * 1
        z[0] = 5.0
        z.mul_(2)
        (z * y).sum().backward()

    def custom_and_second_order():
        x = ag.tensor([1.0, 2.0], requires_grad=True)
        _Square.apply(x).sum().backward()
        (g,) = ag.grad((x ** 3).sum(), x, create_graph=True)
        ag.grad(g.sum(), x)

    def dropped_without_backward():
        x = ag.tensor(np.ones(10), requires_grad=True)
        (x.exp() * x).sum()

    for run in (slices, hooks_and_inplace, custom_and_second_order, dropped_without_backward):
        garbage = _garbage_of(run)
        assert not garbage, (run.__name__, garbage[:20])
