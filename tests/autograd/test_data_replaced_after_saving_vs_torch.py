"""A saved input whose data is replaced afterwards (``u.data = ...``, as spectral normalisation
does between forwards): PyTorch's saved variable is the tensor itself, so backward reads the
new data. The engine's saved inputs follow it the same way; the gradients compared with PyTorch."""

import numpy as np
import pytest

from diffcompare import autograd as ag

torch = pytest.importorskip("torch")


def _mul_by_a_replaced_constant(lib):
    w = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    u = lib.ones(3)
    y = (u * w).sum()
    u.data = lib.full((3,), 5.0)
    y.backward()
    return w.grad


def _dot_with_a_replaced_parameter(lib):
    w = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    u = lib.nn.Parameter(lib.ones(3), requires_grad=False)
    y = u.dot(w)
    u.data = lib.full((3,), 2.0)
    y.backward()
    return w.grad


def _leaf_replaced(lib):
    w = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = (w * w).sum()
    w.data = lib.full((3,), 5.0)
    y.backward()
    return w.grad


def _intermediate_replaced(lib):
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    b = a * 2
    c = (b * b).sum()
    b.data = lib.tensor([10.0, 10.0])
    c.backward()
    return a.grad


def _power_iteration_twice_before_backward(lib):
    # spectral normalisation by hand: the discriminator runs twice (real, fake), u and v are
    # re-estimated with .data = on each run, one backward follows
    weight = lib.tensor([[1.0, 2.0, 0.5], [0.0, 1.0, -1.0]], requires_grad=True)
    u, v = lib.tensor([1.0, 0.0]), lib.tensor([0.0, 1.0, 0.0])
    losses = []
    for x in (lib.tensor([1.0, 1.0, 1.0]), lib.tensor([0.5, -1.0, 2.0])):
        v.data = lib.mv(weight.data.t(), u.data) / lib.mv(weight.data.t(), u.data).norm()
        u.data = lib.mv(weight.data, v.data) / lib.mv(weight.data, v.data).norm()
        sigma = u.dot(weight.mv(v))
        losses.append((weight / sigma).mv(x).sum())
    (losses[0] - losses[1]).backward()
    return weight.grad


CASES = [_mul_by_a_replaced_constant, _dot_with_a_replaced_parameter, _leaf_replaced, _intermediate_replaced,
         _power_iteration_twice_before_backward]


@pytest.mark.parametrize("case", CASES, ids=lambda f: f.__name__.strip("_"))
def test_backward_reads_the_replaced_data_as_pytorch_does(torch_float64, case):
    np.testing.assert_allclose(case(ag).numpy(), case(torch).numpy(), rtol=1e-12, atol=0)
