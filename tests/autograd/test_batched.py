"""Batched vector-Jacobian products (``grad(..., is_grads_batched=True)``): one walk for a
batch of seeds must give, row for row, what one ``grad`` call per seed gives, for every op
of the catalogue and through the graph of a gradient (Hessians); and ``functional``'s
``vectorize=True`` uses it."""

from __future__ import annotations

import numpy as np
import pytest
from hand_derived import rosenbrock_hessian
from op_catalogue import CASES, Case

from diffcompare import autograd as ag
from diffcompare.autograd.ops import Op

BATCH = 3


def _setitem_view(T, a):
    y = a * 1
    y[1:].mul_(2.0)          # in place through a view: CopySlices on y
    return y * a


EXTRA = [
    Case("index_advanced_apart", lambda T, a: a[[0, 1], :, [1, 0]], [(2, 3, 2)]),
    Case("index_int_then_array_apart", lambda T, a: a[0, :, [1, 1]], [(2, 3, 2)]),
    Case("index_arrays_adjacent", lambda T, a: a[:, [0, 2], [1, 1]], [(2, 3, 2)]),
    Case("setitem_view", _setitem_view, [(4,)]),
    Case("chain", lambda T, a, b: ((a @ b).tanh().sum(0) * a[0, :2].exp()).cumsum(0).softmax(0), [(3, 2), (2, 2)]),
]


def _loop(out, inputs, seeds):
    rows = [ag.grad(out, inputs, ag.tensor(s), retain_graph=True, allow_unused=True) for s in seeds]
    return [None if rows[0][k] is None else np.stack([r[k].numpy() for r in rows]) for k in range(len(inputs))]


def _check(out, inputs, seeds):
    batched = ag.grad(out, inputs, ag.tensor(seeds), retain_graph=True, allow_unused=True, is_grads_batched=True)
    expected = _loop(out, inputs, seeds)
    for got, want, t in zip(batched, expected, inputs):
        if want is None:
            assert got is None
            continue
        assert got.shape == (len(seeds),) + tuple(t.shape)
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("case", CASES + EXTRA, ids=str)
def test_batched_vjp_equals_one_vjp_per_row(case):
    inputs = case.inputs(3)
    out = case.fn(ag, *inputs)
    seeds = np.random.default_rng(5).uniform(-1, 1, (BATCH,) + tuple(out.shape))
    _check(out, inputs, seeds)


@pytest.mark.parametrize("case", [c for c in CASES + EXTRA if c.twice], ids=str)
def test_batched_vjp_through_the_graph_of_a_gradient(case):
    """Row b of the batch through the backward's own graph is row b of a Hessian-vector product."""
    inputs = case.inputs(4)
    out = case.fn(ag, *inputs)
    seed = ag.tensor(np.random.default_rng(6).uniform(-1, 1, tuple(out.shape)))
    grads = [g for g in ag.grad(out, inputs, seed, create_graph=True, allow_unused=True)
             if g is not None and g.requires_grad]
    if not grads:
        pytest.skip("the gradient does not depend on the inputs")
    flat = ag.cat([g.reshape(-1) for g in grads])
    seeds = np.random.default_rng(7).uniform(-1, 1, (BATCH,) + tuple(flat.shape))
    _check(flat, inputs, seeds)


def test_common_ops_take_the_batch_at_once(monkeypatch):
    """The ops of gradients, Jacobians and Hessians of everyday functions run one NumPy call
    for the whole batch: the row-by-row fallback is never reached."""
    from diffcompare.autograd.graph import Node

    def no_rows(self, grads, size):
        raise AssertionError(f"{type(self).__name__} went row by row")

    x = ag.tensor(np.linspace(0.2, 1.4, 5), requires_grad=True)
    w = ag.tensor(np.random.default_rng(1).normal(size=(5, 3)), requires_grad=True)
    f = ((x[1:] - x[:-1] ** 2) ** 2).sum() * 100 + (1 - x[:-1]).pow(2).sum()
    f = f + (x @ w).tanh().softmax(0).log().mean() + x.exp().sin().prod() / x.norm()
    (g,) = ag.grad(f, x, create_graph=True)
    monkeypatch.setattr(Node, "_apply_batched", no_rows)
    monkeypatch.setattr(Op, "_rows", lambda self, g: no_rows(self, g, len(g)))
    (h,) = ag.grad(g, x, ag.eye(5), is_grads_batched=True)
    assert h.shape == (5, 5)
    np.testing.assert_allclose(h.numpy(), h.numpy().T, rtol=1e-10)


def test_hessian_of_rosenbrock_by_hand():
    """Rosenbrock's Hessian at x, derived by hand, against one batched walk."""
    xs = np.array([0.3, -1.2, 0.8, 1.1])
    x = ag.tensor(xs, requires_grad=True)
    f = (100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2).sum()
    (g,) = ag.grad(f, x, create_graph=True)
    (h,) = ag.grad(g, x, ag.eye(4), is_grads_batched=True)
    np.testing.assert_allclose(h.numpy(), rosenbrock_hessian(xs), rtol=1e-13)


def test_functional_vectorize_matches_the_loop_and_takes_one_walk(monkeypatch):
    def f(x):
        return (x.sin() * x[[2, 0, 1]]).cumsum(0)

    def g(x):
        return (x.exp() * x[0]).sum() + (x ** 3).prod()

    x = ag.tensor([0.3, 0.7, -0.4])
    calls = []
    real = ag.grad

    def counting(*args, **kwargs):
        calls.append(kwargs.get("is_grads_batched", False))
        return real(*args, **kwargs)
    from diffcompare.autograd import functional
    monkeypatch.setattr(functional, "grad", counting)
    for fn, fun in ((ag.functional.jacobian, f), (ag.functional.hessian, g)):
        calls.clear()
        vec = fn(fun, x, vectorize=True)
        assert calls.count(True) == 1
        loop = fn(fun, x, vectorize=False)
        np.testing.assert_allclose(vec.numpy(), loop.numpy(), rtol=1e-13)


def test_functional_vectorize_tuple_inputs_and_outputs():
    def f(a, b):
        return a * b.sum(), (a ** 2).sum() + b[0]

    a, b = ag.tensor([1.0, 2.0]), ag.tensor([3.0, -1.0, 0.5])
    vec = ag.functional.jacobian(f, (a, b), vectorize=True)
    loop = ag.functional.jacobian(f, (a, b))
    for vo, lo in zip(vec, loop):
        for v, w in zip(vo, lo):
            np.testing.assert_allclose(v.numpy(), w.numpy(), rtol=1e-14)
    hv = ag.functional.hessian(lambda a, b: (a.exp() * b[:2]).sum(), (a, b), vectorize=True)
    hl = ag.functional.hessian(lambda a, b: (a.exp() * b[:2]).sum(), (a, b))
    for ro, rl in zip(hv, hl):
        for v, w in zip(ro, rl):
            np.testing.assert_allclose(v.numpy(), w.numpy(), rtol=1e-14)


def test_hooks_see_one_row_at_a_time():
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    y = x * x
    seen = []
    y.register_hook(lambda g: seen.append(tuple(g.shape)))
    (j,) = ag.grad(y, x, ag.eye(2), is_grads_batched=True)
    assert seen == [(2,), (2,)]
    np.testing.assert_array_equal(j.numpy(), np.diag([2.0, 4.0]))


def test_create_graph_gives_a_differentiable_batch():
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    (j,) = ag.grad(x ** 3, x, ag.eye(2), create_graph=True, is_grads_batched=True)
    assert j.requires_grad
    (d,) = ag.grad(j.sum(), x)                      # d/dx of trace-like sum of diag(3x^2) = 6x
    np.testing.assert_array_equal(d.numpy(), [6.0, 12.0])


def test_unused_inputs_and_materialize():
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    z = ag.tensor([5.0], requires_grad=True)
    out = x.exp()
    with pytest.raises(RuntimeError, match="index 1 appears to not have been used"):
        ag.grad(out, (x, z), ag.eye(2), is_grads_batched=True, retain_graph=True)
    gx, gz = ag.grad(out, (x, z), ag.eye(2), is_grads_batched=True, materialize_grads=True, retain_graph=True)
    assert gz.shape == (2, 1) and not gz.numpy().any()
    assert ag.grad(out, (x, z), ag.eye(2), is_grads_batched=True, allow_unused=True)[1] is None


def test_batched_errors_say_what_is_wrong():
    x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * x
    with pytest.raises(RuntimeError, match=r"grad_output\[0\] has a shape of Size\(\[2\]\) and output\[0\] has a "
                                           r"shape of Size\(\[3\]\)"):
        ag.grad(y, x, ag.ones(2, 2), is_grads_batched=True, retain_graph=True)
    with pytest.raises(ValueError, match=r"same size in the mapped dimension, got sizes \[2, 4\]"):
        ag.grad([y, y.sum()], x, [ag.ones(2, 3), ag.ones(4)], is_grads_batched=True, retain_graph=True)
    with pytest.raises(ValueError, match=r"grad_output\[0\] is None"):
        ag.grad(y.sum(), x, None, is_grads_batched=True, retain_graph=True)


def test_freed_graph_after_a_batched_walk():
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    ag.grad(y, x, ag.eye(2), is_grads_batched=True)
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        ag.grad(y, x, ag.eye(2), is_grads_batched=True)


def test_matches_torch_is_grads_batched():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(2)
    a0, b0 = rng.normal(size=(3, 4)), rng.normal(size=(4,))
    seeds = rng.normal(size=(5, 3))
    results = []
    for lib in (ag, torch):
        a = lib.tensor(a0, requires_grad=True)
        b = lib.tensor(b0, requires_grad=True)
        out = (a @ b.sin()).tanh() * a[:, 1]
        ga, gb = lib.autograd.grad(out, (a, b), lib.tensor(seeds), is_grads_batched=True)
        results.append((ga.detach().numpy(), gb.detach().numpy()))
    for mine, theirs in zip(*results):
        np.testing.assert_allclose(mine, theirs, rtol=1e-12)


def test_strict_and_vectorize_refused_as_in_pytorch():
    with pytest.raises(RuntimeError, match="`strict=True` and `vectorized=True` are not supported together"):
        ag.functional.jacobian(lambda x: x.exp(), ag.tensor([1.0]), strict=True, vectorize=True)


class _TwoOutputs(ag.Function):
    """(2a, a²): a custom backward runs row by row inside the batched walk."""

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return a * 2, a * a

    @staticmethod
    def backward(ctx, g1, g2):
        (a,) = ctx.saved_tensors
        return g1 * 2 + g2 * 2 * a


def test_custom_functions_and_intermediate_targets():
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    p, q = _TwoOutputs.apply(x)
    (both,) = ag.grad(p + q, x, ag.eye(2), is_grads_batched=True, retain_graph=True)
    np.testing.assert_array_equal(both.numpy(), np.diag([2 + 2 * 1.0, 2 + 2 * 2.0]))
    (second,) = ag.grad(q, x, ag.eye(2), is_grads_batched=True, retain_graph=True)   # output 1 alone
    np.testing.assert_array_equal(second.numpy(), np.diag([2.0, 4.0]))
    y = x * 3
    (at_y,) = ag.grad(y.exp(), y, ag.eye(2), is_grads_batched=True)     # a target inside the graph
    np.testing.assert_allclose(at_y.numpy(), np.diag(np.exp([3.0, 6.0])), rtol=1e-15)
    (itself,) = ag.grad(x, x, ag.eye(2), is_grads_batched=True)          # an output that is the input
    np.testing.assert_array_equal(itself.numpy(), np.eye(2))


def _torch_cases():
    from differential import DIFFERENTIAL_CASES
    return DIFFERENTIAL_CASES


@pytest.mark.parametrize("case", _torch_cases(), ids=str)
def test_catalogue_matches_torch_is_grads_batched(case):
    torch = pytest.importorskip("torch")
    from differential import torch_namespace
    _, spelling = torch_namespace()
    arrays = [t.detach().numpy() for t in case.inputs(8)]
    results = []
    for lib, namespace in ((ag, ag), (torch, spelling)):
        inputs = [lib.tensor(a, requires_grad=True, dtype=lib.float64) for a in arrays]
        out = case.fn(namespace, *inputs)
        seeds = np.random.default_rng(9).uniform(-1, 1, (BATCH,) + tuple(out.shape))
        grads = lib.autograd.grad(out, inputs, lib.tensor(seeds, dtype=lib.float64), is_grads_batched=True,
                                  allow_unused=True)
        results.append([None if g is None else g.detach().numpy() for g in grads])
    for mine, theirs in zip(*results):
        if theirs is None or mine is None:
            assert (mine is None or not mine.any()) and (theirs is None or not theirs.any())
            continue
        np.testing.assert_allclose(mine, theirs, rtol=1e-10, atol=1e-12)
