"""The walk's plan is kept when the graph is retained and reused by the next walk from the
same roots to the same targets; what is kept makes no reference cycle."""

from __future__ import annotations

import gc
import weakref

import numpy as np

from diffcompare import autograd as ag
from diffcompare.autograd import graph


def _counting(monkeypatch):
    calls = []
    real = graph._plan

    def counted(roots, targets):
        calls.append(1)
        return real(roots, targets)
    monkeypatch.setattr(graph, "_plan", counted)
    return calls


def test_rows_of_a_jacobian_plan_once(monkeypatch):
    calls = _counting(monkeypatch)
    x = ag.tensor([0.3, -0.2, 0.9], requires_grad=True)
    y = (x.exp() * x.sin()).cumsum(0)
    rows = [ag.grad(y, x, ag.tensor(np.eye(3)[i]), retain_graph=True)[0].numpy() for i in range(3)]
    assert len(calls) == 1
    want = np.tril(np.ones((3, 3))) * (np.exp(x.detach().numpy()) * (np.sin(x.detach().numpy()) + np.cos(x.detach().numpy())))
    np.testing.assert_allclose(np.array(rows), want, rtol=1e-14)


def test_other_targets_or_roots_plan_again(monkeypatch):
    calls = _counting(monkeypatch)
    x = ag.tensor([0.3, -0.2], requires_grad=True)
    w = ag.tensor([1.5, 2.0], requires_grad=True)
    y = (x * w).sin()
    ag.grad(y.sum(), x, retain_graph=True)
    s = y.sum()
    ag.grad(s, x, retain_graph=True)        # a new root: planned again
    (gx,) = ag.grad(s, x, retain_graph=True)     # the same: reused
    ag.grad(s, w, retain_graph=True)        # other targets: planned again
    (gw,) = ag.grad(s, w, retain_graph=True)     # reused
    assert len(calls) == 3
    np.testing.assert_allclose(gx.detach().numpy(), np.cos(x.detach().numpy() * w.detach().numpy()) * w.detach().numpy(), rtol=1e-15)
    np.testing.assert_allclose(gw.detach().numpy(), np.cos(x.detach().numpy() * w.detach().numpy()) * x.detach().numpy(), rtol=1e-15)


def test_a_kept_plan_does_not_keep_the_graph_alive():
    x = ag.tensor([0.3, -0.2], requires_grad=True)
    y = (x.exp() * x).sum()
    y.backward(retain_graph=True)
    root = weakref.ref(y.grad_fn)
    inner = weakref.ref(y.grad_fn._next[0])
    was = gc.isenabled()
    gc.disable()
    try:
        del y
        assert root() is None and inner() is None     # freed by reference counting alone
    finally:
        if was:
            gc.enable()


def test_hooks_added_after_planning_still_run():
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    z = y.sum()
    z.backward(retain_graph=True)
    seen = []
    y.register_hook(lambda g: seen.append(g.numpy().tolist()))
    z.backward(retain_graph=True)
    assert seen == [[1.0, 1.0]] and x.grad.numpy().tolist() == [6.0, 6.0]
