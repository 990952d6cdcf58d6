"""The array kernels behind backward steps give NumPy's own answers: the broadcast view, the
one-pass sums of products, the maximum's gradient over a whole tensor, and log-sum-exp's
backward from the forward's exponentials (checked against the formula, computed here in
mpmath, and reentrant)."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from diffcompare import autograd as ag
from diffcompare.autograd.broadcast import broadcast_view
from diffcompare.autograd.ops.recording import sum_to
from diffcompare.autograd.ops.short_axis import _tiled, binary, summed


@st.composite
def broadcastable(draw):
    """(array shape, target shape): the array's shape broadcasts to the target."""
    target = draw(st.lists(st.integers(0, 4), min_size=0, max_size=4))
    ndim = draw(st.integers(0, len(target)))
    own = [draw(st.sampled_from([1, n])) for n in target[len(target) - ndim:]]
    return tuple(own), tuple(target)


@given(broadcastable(), st.booleans())
@settings(max_examples=200, deadline=None)
def test_broadcast_view_is_numpys_broadcast(shapes, sliced):
    own, target = shapes
    a = np.arange(float(np.prod(own, dtype=int))).reshape(own)
    if sliced and a.ndim:
        a = np.repeat(a, 2, axis=-1)[..., ::2]       # the same values, not contiguous
    view, expected = broadcast_view(a, target), np.broadcast_to(a, target)
    assert view.shape == expected.shape and (view == expected).all()
    assert not view.flags.writeable
    assert view.size == 0 or np.shares_memory(view, a)


def test_broadcast_view_refuses_what_numpy_refuses():
    with pytest.raises(ValueError):
        broadcast_view(np.ones(3), (2,))
    with pytest.raises(ValueError):
        broadcast_view(np.ones((2, 3)), (3,))


@pytest.mark.parametrize("shape, axes", [((5, 1000, 2), (1,)), ((6, 400, 20), (1,)), ((3000, 2), (0,)),
                                         ((4, 8, 9, 9), (0, 2, 3)), ((10, 3), (0,)), ((2, 3000), (1,))])
def test_summed_is_the_sum_of_the_product(shape, axes):
    rng = np.random.default_rng(0)
    g, b = rng.standard_normal(shape), rng.standard_normal(shape)
    expected = (g * b).sum(axis=axes, keepdims=True)
    assert np.allclose(summed((g, b), axes), expected, rtol=1e-13, atol=1e-12)
    assert np.allclose(summed((g,), axes), g.sum(axis=axes, keepdims=True), rtol=1e-13, atol=1e-12)
    # one operand broadcast (a zero stride), as a gradient expanded from a sum
    c = broadcast_view(rng.standard_normal(shape[-1:]), shape)
    assert np.allclose(summed((g, c), axes), (g * c).sum(axis=axes, keepdims=True), rtol=1e-13, atol=1e-12)


@given(st.integers(1, 6), st.sampled_from([8, 12, 97, 1000]), st.integers(1, 4),
       st.sampled_from([np.add, np.subtract, np.multiply, np.true_divide]), st.booleans(), st.booleans())
@settings(max_examples=150, deadline=None)
def test_short_axis_products_are_numpys_bit_for_bit(lead, n, short, ufunc, swap, lead_broadcast):
    """A row broadcast against n rows of a short last axis (grouped rows or one index at a
    time) gives exactly NumPy's own elementwise result."""
    rng = np.random.default_rng(n * 31 + short)
    rows = rng.standard_normal((lead, n, short))
    row = rng.standard_normal((1 if lead_broadcast else lead, 1, short)) + 2.5
    a, b = (row, rows) if swap else (rows, row)
    expected = ufunc(a, b)
    assert np.array_equal(binary(ufunc, a, b), expected)
    tiled = _tiled(ufunc, a, b, expected.shape)
    assert tiled is None or (tiled.shape == expected.shape and np.array_equal(tiled, expected))


def test_the_way_decided_for_one_layout_is_not_used_for_another():
    """binary decides how to compute once per shapes and strides: operands of the same shapes
    laid out otherwise (rows every other one, a transposed copy, float32) get their own way,
    and every result is NumPy's."""
    rng = np.random.default_rng(3)
    rows, row = rng.standard_normal((3, 2000, 2)), rng.standard_normal((3, 1, 2))
    for a in (rows[:, :1000], rows[:, ::2], np.ascontiguousarray(rows[:, :1000].transpose(0, 2, 1)).transpose(0, 2, 1),
              rows[:, :1000].astype(np.float32), rows[:, :1000]):
        for ufunc in (np.subtract, np.multiply):
            assert np.array_equal(binary(ufunc, a, row), ufunc(a, row))
            assert np.array_equal(binary(ufunc, row, a), ufunc(row, a))
    with pytest.raises(ValueError):         # shapes that do not broadcast: NumPy's error, every time
        binary(np.add, rows[:, :1000], rng.standard_normal((3, 1, 3)))
    with pytest.raises(ValueError):
        binary(np.add, rows[:, :1000], rng.standard_normal((3, 1, 3)))


def test_grouped_rows_only_take_what_they_can_regroup():
    rows = np.arange(6000.0).reshape(3, 1000, 2)
    assert _tiled(np.add, rows, rows[:, :1, :1], rows.shape) is None          # a broadcast last axis
    assert _tiled(np.add, rows[:, ::2], rows[:, :1], (3, 500, 2)) is None      # rows not contiguous
    assert _tiled(np.add, rows[:, :997], rows[:, :1], (3, 997, 2)) is None     # 997 rows: no grouping
    grouped = _tiled(np.add, rows, rows[:, :1], rows.shape)
    assert grouped is not None and np.array_equal(grouped, rows + rows[:, :1])


@pytest.mark.parametrize("shape, axes", [((1000, 100), (0,)), ((50, 100, 3), (0, 1)), ((4, 300, 5), (1,)),
                                         ((7, 300), (1,)), ((2, 3, 500), (1, 2))])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128])
def test_summed_over_one_block_of_axes(shape, axes, dtype):
    """Sums over a block of axes of a contiguous array (by BLAS) and of a transposed one (not
    contiguous), against a sum in exact rational arithmetic of small integers."""
    rng = np.random.default_rng(2)
    ints = rng.integers(-50, 50, shape)
    g = ints.astype(dtype) * (1 + 1j if np.dtype(dtype).kind == "c" else 1)
    exact = ints.sum(axis=axes, keepdims=True) * (1 + 1j if np.dtype(dtype).kind == "c" else 1)
    assert np.array_equal(summed((g,), axes), exact)
    flipped = np.ascontiguousarray(g.T).T          # the same values, Fortran order
    assert np.array_equal(summed((flipped,), axes), exact)


def test_gradient_skips_inputs_that_want_none():
    """x - means with x constant: only the means' gradient is formed, -sum over the points."""
    rng = np.random.default_rng(3)
    x, m0, w = rng.standard_normal((1, 1000, 2)), rng.standard_normal((5, 1, 2)), rng.standard_normal((5, 1000, 2))
    means = ag.tensor(m0, requires_grad=True)
    out = ag.tensor(x) - means
    assert out.grad_fn.meta[0] is None
    (out * ag.tensor(w)).sum().backward()
    expected = -np.array([[[sum(w[k, i, d] for i in range(1000)) for d in range(2)]] for k in range(5)])
    assert np.allclose(means.grad.numpy(), expected, rtol=1e-12, atol=1e-12)


def test_maximum_subtracted_from_every_element():
    """d/dx sum(x - max(x)) = 1 everywhere, 1 - n at the (unique) maximum: the maximum's
    gradient arrives as a NumPy scalar, the sum of a whole gradient."""
    x0 = np.array([0.5, -1.0, 4.0, 2.0, 3.5])
    x = ag.tensor(x0, requires_grad=True)
    (x - ag.max(x)).sum().backward()
    assert np.array_equal(x.grad.numpy(), [1.0, 1.0, 1.0 - 5, 1.0, 1.0])


def test_sum_to_over_leading_and_size_one_axes():
    g = np.arange(24.0).reshape(2, 3, 4)
    assert (sum_to(g, (3, 1)) == g.sum(axis=(0, 2)).reshape(3, 1)).all()
    assert (sum_to(g, (4,)) == g.sum(axis=(0, 1))).all()
    assert sum_to(g, (2, 3, 4)) is g


def test_broadcast_product_gradients_by_hand():
    """d/da sum(w * (a * b)) = sum over the broadcast axis of w * b, and d/db = w * a."""
    rng = np.random.default_rng(1)
    a0, b0, w = rng.standard_normal((5, 1, 2)), rng.standard_normal((5, 1000, 2)), rng.standard_normal((5, 1000, 2))
    a, b = ag.tensor(a0, requires_grad=True), ag.tensor(b0, requires_grad=True)
    ((a * b) * ag.tensor(w)).sum().backward()
    expected_a = np.array([[[sum(w[k, n, d] * b0[k, n, d] for n in range(1000)) for d in range(2)]] for k in range(5)])
    assert np.allclose(a.grad.numpy(), expected_a, rtol=1e-12, atol=1e-12)
    assert np.allclose(b.grad.numpy(), w * a0, rtol=0, atol=0)


@pytest.mark.parametrize("x, share", [([1.0, 3.0, 3.0, 2.0], [0, 0.5, 0.5, 0]), ([[2.0, 7.0], [1.0, 0.0]], [[0, 1], [0, 0]]),
                                      ([1.0, float("nan"), float("nan")], [0, 0.5, 0.5]), ([4.0], [1.0])])
def test_maximum_of_a_whole_tensor_shares_its_gradient_among_ties(x, share):
    t = ag.tensor(x, requires_grad=True)
    (ag.max(t) * 3.0).backward()
    assert np.array_equal(t.grad.numpy(), 3.0 * np.array(share))


def _logsumexp_gradient_mpmath(x, axis):
    """exp(x - logsumexp(x)) along ``axis`` of a 2-D array, in 50-digit arithmetic."""
    mpmath.mp.dps = 50
    rows = x if axis == 1 else x.T
    out = []
    for row in rows:
        lse = mpmath.log(sum(mpmath.exp(mpmath.mpf(v)) for v in row))
        out.append([float(mpmath.exp(mpmath.mpf(v) - lse)) for v in row])
    out = np.array(out)
    return out if axis == 1 else out.T


@pytest.mark.parametrize("axis", [0, 1])
def test_logsumexp_backward_is_the_softmax_and_reentrant(axis):
    x0 = np.random.default_rng(2).standard_normal((4, 6)) * 4
    x = ag.tensor(x0, requires_grad=True)
    y = ag.logsumexp(x, axis).sum()
    y.backward(retain_graph=True)
    first = x.grad.numpy().copy()
    assert np.allclose(first, _logsumexp_gradient_mpmath(x0, axis), rtol=1e-14, atol=1e-16)
    x.grad = None
    y.backward()        # the second backward computes the exponentials again: the same bits
    assert np.array_equal(x.grad.numpy(), first)
    assert ag.gradcheck(lambda t: ag.logsumexp(t, axis), (ag.tensor(x0, requires_grad=True),))


def test_logsumexp_backward_with_infinite_results_follows_the_formula():
    x = ag.tensor([[-np.inf, -np.inf], [1.0, np.inf]], requires_grad=True)
    ag.logsumexp(x, 1).sum().backward()
    # exp(x - result): exp(-inf + inf) and exp(inf - inf) are nan, exp(1 - inf) is 0
    assert np.isnan(x.grad.numpy()[0]).all() and x.grad.numpy()[1, 0] == 0 and np.isnan(x.grad.numpy()[1, 1])


def test_float32_draws_are_numpys_float32_draws():
    """A float32 tensor's draws come from NumPy's float32 generator methods (24 random bits, as
    PyTorch's float32 draws), a float64 one's from its float64 methods."""
    from diffcompare.autograd.generators import normal_draws, uniform_draws
    u = uniform_draws(np.random.default_rng(3), -2.0, 2.0, (1000,), np.dtype(np.float32))
    expected = np.random.default_rng(3).random(1000, dtype=np.float32) * np.float32(4.0) + np.float32(-2.0)
    assert u.dtype == np.float32 and np.array_equal(u, expected)
    n = normal_draws(np.random.default_rng(3), 1.0, 0.5, (4,), np.dtype(np.float64))
    assert np.array_equal(n, np.random.default_rng(3).normal(1.0, 0.5, size=4))
