"""Large arrays take the walk's memory-saving paths (gradients kept lazy, sums and fresh
results used in place, no defensive copies): values against closed forms by hand, and no
two gradients may ever share memory."""

import numpy as np
import pytest

from diffcompare import autograd as ag

N = 20_000   # well above the sizes where the lazy paths start


def leaf(values):
    return ag.tensor(values, requires_grad=True)


@pytest.fixture
def x():
    return np.random.default_rng(3).uniform(-2, 2, N)


def test_rosenbrock_against_its_closed_form(x):
    t = leaf(x)
    (100 * (t[1:] - t[:-1] ** 2) ** 2 + (1 - t[:-1]) ** 2).sum().backward()
    a, b = x[:-1], x[1:]
    expected = np.zeros(N)
    expected[1:] += 200 * (b - a * a)
    expected[:-1] += -400 * (b - a * a) * a - 2 * (1 - a)
    np.testing.assert_allclose(t.grad.numpy(), expected, rtol=1e-12, atol=1e-9)


def test_negations_and_scalings_fold_correctly(x):
    t = leaf(x)
    y = -(1 - 3 * t) * 0.5          # d/dx = 1.5
    z = (y - t ** 2) ** 2           # d/dx = 2 (y - x^2) (1.5 - 2x)
    w = (2.5 - t) ** 3              # d/dx = -3 (2.5 - x)^2
    (z.sum() + w.sum()).backward()
    y_ = -(1 - 3 * x) * 0.5
    expected = 2 * (y_ - x ** 2) * (1.5 - 2 * x) - 3 * (2.5 - x) ** 2
    np.testing.assert_allclose(t.grad.numpy(), expected, rtol=1e-11, atol=1e-9)


def test_two_dimensional_slices(x):
    m = x.reshape(100, 200)
    t = leaf(m)
    ((t[1:, 2:] - t[:-1, :-2]) ** 2).sum().backward()
    d = m[1:, 2:] - m[:-1, :-2]
    expected = np.zeros_like(m)
    expected[1:, 2:] += 2 * d
    expected[:-1, :-2] -= 2 * d
    np.testing.assert_allclose(t.grad.numpy(), expected, rtol=1e-12, atol=1e-12)


def test_one_slice_alone_is_zero_outside(x):
    t = leaf(x)
    (t[5:-7] ** 2).sum().backward()
    expected = np.zeros(N)
    expected[5:-7] = 2 * x[5:-7]
    np.testing.assert_array_equal(t.grad.numpy(), expected)


def test_leaves_never_share_a_gradient_array(x):
    a, b = leaf(x), leaf(x[::-1].copy())
    h = (a * b) ** 2                 # a fresh gradient array flows into the sum below
    (h + h * 0).sum().backward()
    c, d = leaf(x), leaf(x)
    ((c ** 2) + (d ** 2) * 1.0).sum().backward()
    e, f = leaf(x), leaf(x)
    (e ** 2 + f).exp().clamp(max=5.0).sum().backward()
    g, h = leaf(x), leaf(x)
    (g + h).exp().clamp(max=5.0).sum().backward()   # Add hands one array to both leaves
    u, v = leaf(x), leaf(x)
    (u - v).exp().clamp(max=5.0).sum().backward()   # Sub: the array and its negation, lazily
    for p, q in ((a, b), (c, d), (e, f), (g, h), (u, v)):
        assert not np.shares_memory(p.grad.numpy(), q.grad.numpy())
    before = f.grad.numpy().copy()
    e.grad.numpy()[:] = 0
    np.testing.assert_array_equal(f.grad.numpy(), before)


def test_gradient_does_not_alias_the_seed_or_the_graph(x):
    t = leaf(x)
    seed = ag.tensor(np.ones(N))
    (t * 1).backward(seed)
    assert not np.shares_memory(t.grad.numpy(), seed.numpy())
    t2 = leaf(x)
    y = t2 * 3.0
    y.backward(seed)
    np.testing.assert_array_equal(t2.grad.numpy(), np.full(N, 3.0))
    assert not np.shares_memory(t2.grad.numpy(), y.detach().numpy())


def test_accumulating_twice_into_large_grads(x):
    t = leaf(x)
    y = ((t[1:] - t[:-1]) ** 2).sum()
    y.backward(retain_graph=True)
    first = t.grad.numpy().copy()
    y.backward()
    np.testing.assert_allclose(t.grad.numpy(), 2 * first, rtol=1e-14)


def test_grad_returns_independent_arrays(x):
    a, b = leaf(x), leaf(x)
    ga, gb = ag.grad((a ** 2 + b).sum() * 2, [a, b])
    np.testing.assert_allclose(ga.numpy(), 4 * x)
    np.testing.assert_array_equal(gb.numpy(), np.full(N, 2.0))
    assert not np.shares_memory(ga.numpy(), gb.numpy())


def _gradients(seed, lazy):
    import differential
    from diffcompare.autograd import gradients

    saved = gradients.LAZY_MIN_SIZE, gradients.OWNERSHIP_MIN_SIZE
    if not lazy:   # the plain path: every gradient materialised, every leaf gradient copied
        gradients.LAZY_MIN_SIZE = gradients.OWNERSHIP_MIN_SIZE = 1 << 62
    try:
        rng = np.random.default_rng(seed)
        program = differential.random_program(rng, int(rng.integers(2, 6)))
        x, y = leaf(rng.uniform(-1.5, 1.5, (90, 60))), leaf(rng.uniform(-1.5, 1.5, 60))
        out = differential._evaluate(ag, program, {"x": x, "y": y})
        if not out.requires_grad:
            return None
        (out * out).sum().backward()
        return [None if t.grad is None else t.grad.numpy().copy() for t in (x, y)]
    finally:
        gradients.LAZY_MIN_SIZE, gradients.OWNERSHIP_MIN_SIZE = saved


@pytest.mark.parametrize("seed", range(200, 230))
def test_memory_saving_paths_agree_with_the_plain_path(seed):
    fast, plain = _gradients(seed, lazy=True), _gradients(seed, lazy=False)
    assert (fast is None) == (plain is None)
    for a, b in zip(fast or (), plain or ()):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-13)
