"""Properties that hold for any input (hypothesis)."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes, arrays

from diffcompare import autograd as ag

finite = st.floats(-10, 10, allow_nan=False, allow_infinity=False)


def vectors(n=st.integers(1, 6)):
    return n.flatmap(lambda k: arrays(np.float64, k, elements=finite))


@given(vectors())
def test_gradient_of_a_sum_is_the_sum_of_gradients(v):
    f = lambda t: (t.sin() * t).sum()          # noqa: E731
    g = lambda t: (t * t).exp().clamp(max=1e3).sum()  # noqa: E731
    x = ag.tensor(v, requires_grad=True)
    (f(x) + g(x)).backward()
    a, b = ag.tensor(v, requires_grad=True), ag.tensor(v, requires_grad=True)
    f(a).backward()
    g(b).backward()
    np.testing.assert_allclose(x.grad.numpy(), a.grad.numpy() + b.grad.numpy(), rtol=1e-12, atol=1e-12)


@given(st.integers(1, 5), st.integers(1, 5), st.data())
def test_backward_of_a_linear_map_is_its_transpose(m, n, data):
    a = data.draw(arrays(np.float64, (m, n), elements=finite))
    v = data.draw(arrays(np.float64, m, elements=finite))
    x = ag.tensor(data.draw(arrays(np.float64, n, elements=finite)), requires_grad=True)
    (ag.tensor(a) @ x).backward(ag.tensor(v))
    np.testing.assert_allclose(x.grad.numpy(), a.T @ v, rtol=1e-12, atol=1e-9)


@given(arrays(np.float64, array_shapes(max_dims=3, max_side=3), elements=finite),
       arrays(np.float64, array_shapes(max_dims=3, max_side=3), elements=finite))
def test_broadcast_gradients_have_the_input_shapes(a, b):
    try:
        out_shape = np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        return
    x, y = ag.tensor(a, requires_grad=True), ag.tensor(b, requires_grad=True)
    upstream = np.arange(np.prod(out_shape), dtype=float).reshape(out_shape)
    (x * y).backward(ag.tensor(upstream))
    assert x.grad.shape == a.shape and y.grad.shape == b.shape
    # independent check: walk every output position and add its contribution by hand
    expected = np.zeros(a.shape)
    for index in np.ndindex(out_shape):
        source = tuple(0 if n == 1 else i for i, n in zip(index[len(index) - a.ndim:], a.shape))
        other = tuple(0 if n == 1 else i for i, n in zip(index[len(index) - b.ndim:], b.shape))
        expected[source] += b[other] * upstream[index]
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-12, atol=1e-9)


@given(vectors(), st.data())
def test_vjp_equals_v_times_the_jacobian(v, data):
    vec = data.draw(arrays(np.float64, v.shape, elements=finite))
    fn = lambda t: t.tanh() * t.sum() + t.cumsum(0)   # noqa: E731
    jac = ag.functional.jacobian(fn, ag.tensor(v)).numpy()
    _, vjp = ag.functional.vjp(fn, ag.tensor(v), ag.tensor(vec))
    np.testing.assert_allclose(vjp.numpy(), vec @ jac, rtol=1e-10, atol=1e-9)


@given(vectors(st.integers(1, 4)))
def test_hessian_is_symmetric_and_matches_the_jacobian_of_the_gradient(v):
    fn = lambda t: (t.sin() * t.cos().sum() + t ** 3 / 10).sum()   # noqa: E731
    h = ag.functional.hessian(fn, ag.tensor(v)).numpy()
    np.testing.assert_allclose(h, h.T, rtol=1e-12, atol=1e-12)
    grad_fn = lambda t: ag.grad(fn(t), t, create_graph=True)[0]    # noqa: E731
    j = ag.functional.jacobian(grad_fn, ag.tensor(v)).numpy()
    np.testing.assert_allclose(h, j, rtol=1e-12, atol=1e-12)


@given(vectors(), st.integers(1, 4))
def test_accumulation_is_linear_in_the_number_of_backward_calls(v, k):
    x = ag.tensor(v, requires_grad=True)
    y = (x * x).sum()
    for _ in range(k):
        y.backward(retain_graph=True)
    np.testing.assert_allclose(x.grad.numpy(), 2 * k * v, rtol=1e-12)
