"""Two things published code relies on, by hand and beside PyTorch where it is installed:
the deprecated number-first orders of the scaled products (CenterLoss's
``distmat.addmm_(1, -2, x, centers.t())``), and ``nn.Parameter(p)`` of an existing tensor as a
new leaf on the same storage (blitz's samplers wrap a layer's parameters again: the gradient
goes to the wrapper, and an optimizer's step on it changes the layer's)."""

from __future__ import annotations

import warnings

import pytest

from engines import each


@each
def test_scaled_products_in_the_number_first_orders(T):
    """beta C + alpha (A @ B) with C, A, B of ones, the inner size 3: beta + 3 alpha."""
    C, A, B = T.ones(2, 2), T.ones(2, 3), T.ones(3, 2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        values = {
            "x.addmm_(b, a, m1, m2)": C.clone().addmm_(1, -2, A, B),          # 1 - 6
            "x.addmm(b, m1, m2)": C.addmm(2, A, B),                            # 2 + 3
            "torch.addmm(b, x, a, m1, m2)": T.addmm(0.5, C, 2, A, B),          # 0.5 + 6
            "x.addmv(b, a, m, v)": T.ones(2).addmv(1, -2, A, T.ones(3)),       # 1 - 6
            "x.baddbmm(b, a, b1, b2)": T.ones(4, 2, 2).baddbmm(1, -2, T.ones(4, 2, 3), T.ones(4, 3, 2)),
            "x.addbmm(b, a, b1, b2)": C.addbmm(1, -2, T.ones(4, 2, 3), T.ones(4, 3, 2)),   # 1 - 2 * 4 * 3
            "x.addr(b, a, v1, v2)": C.addr(1, -2, T.ones(2), T.ones(2)),       # 1 - 2
        }
    expected = {"x.addmm_(b, a, m1, m2)": -5.0, "x.addmm(b, m1, m2)": 5.0, "torch.addmm(b, x, a, m1, m2)": 6.5,
                "x.addmv(b, a, m, v)": -5.0, "x.baddbmm(b, a, b1, b2)": -5.0, "x.addbmm(b, a, b1, b2)": -23.0,
                "x.addr(b, a, v1, v2)": -1.0}
    for name, value in values.items():
        assert set(value.flatten().tolist()) == {expected[name]}, name
    if T.__name__.startswith("diffcompare"):      # (PyTorch warns once per process)
        messages = [str(w.message) for w in caught]
        assert "This overload of addmm is deprecated:\n\taddmm(Number beta, Number alpha, Tensor mat1, Tensor mat2)" \
            in messages[0]
        assert any("addmm(Number beta, Tensor input, Number alpha, Tensor mat1, Tensor mat2, *, Tensor out = None)"
                   in m for m in messages)


@each
def test_the_number_first_order_keeps_the_gradients(T):
    """y = x.addmm(b, a, m1, m2): dy/dx = b, dy/dm1 = a (g m2^T) with g of ones."""
    x, m1, m2 = T.ones(2, 2, requires_grad=True), T.ones(2, 3, requires_grad=True), T.full((3, 2), 2.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        x.addmm(3, -2, m1, m2).sum().backward()
    assert x.grad.tolist() == [[3.0, 3.0]] * 2 and m1.grad.tolist() == [[-8.0] * 3] * 2


@each
def test_a_parameter_made_from_a_parameter_shares_its_storage(T):
    layer = T.nn.Linear(3, 1)
    with T.no_grad():
        layer.bias.fill_(1.0)
    wrapper = T.nn.Parameter(layer.bias)
    assert wrapper is not layer.bias and wrapper.is_leaf and wrapper.requires_grad
    (wrapper * 4).sum().backward()
    assert wrapper.grad.tolist() == [4.0] and layer.bias.grad is None         # the gradient: the wrapper's
    T.optim.SGD([wrapper], lr=0.25).step()
    assert layer.bias.tolist() == [0.0] and wrapper.tolist() == [0.0]         # the step: both, one storage
    data = T.zeros(2)
    param = T.nn.Parameter(data)
    data[0] = 5.0
    assert param.tolist() == [5.0, 0.0] and param._version == data._version
    assert tuple(T.nn.Parameter().shape) == (0,)
    assert str(T.nn.Parameter(T.tensor(3.0))).startswith("Parameter containing:")
