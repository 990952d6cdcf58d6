"""Tensor's operators and methods are attributes of a class, ``TensorOperators``, Tensor's
base: none is attached to ``Tensor`` afterwards, each one-input function of the elementwise
table is a method, and ``help`` finds the methods' documentation."""

from __future__ import annotations

import math
import pydoc

import numpy as np
import pytest

from diffcompare import autograd as ag
from diffcompare.autograd import ops
from diffcompare.autograd.operators import TensorOperators


def test_the_methods_live_on_the_base_class():
    assert ag.Tensor.__mro__[1] is TensorOperators
    own = set(vars(ag.Tensor))
    for name in ("__add__", "__radd__", "__mul__", "__eq__", "sin", "sum", "add_", "backward", "real", "imag"):
        assert name in vars(TensorOperators) and name not in own


def test_tensors_hash_by_identity_though_eq_is_elementwise():
    a, b = ag.tensor([1.0]), ag.tensor([1.0])
    assert {a: 1, b: 2}[a] == 1
    assert (a == b).tolist() == [True]


@pytest.mark.parametrize("name", sorted(set(ops.ELEMENTWISE) - {"real", "imag"}))
def test_every_function_of_the_elementwise_table_is_a_method(name):
    assert getattr(ag.Tensor, name) is getattr(ops, name)


def test_real_and_imag_are_properties():
    z = ag.tensor([1.0 + 2.0j])
    assert z.real.tolist() == [1.0] and z.imag.tolist() == [2.0]
    assert isinstance(vars(TensorOperators)["real"], property)


def test_help_shows_a_methods_documentation():
    assert "grad * cos(x)" in pydoc.render_doc(ag.Tensor.sin)
    assert "vector-Jacobian product" in pydoc.render_doc(ag.Tensor.backward)


def test_reflected_operators_and_in_place_methods():
    x = ag.tensor([0.5, 2.0], requires_grad=True)
    assert (3 / x).grad_fn.name() == "MulBackward0"      # PyTorch: reciprocal(x) * 3
    assert (1 - x).grad_fn.name() == "RsubBackward1"
    assert np.allclose((3 / x).detach().numpy(), [6.0, 1.5])
    y = x.clone()
    y.sin_()
    y.mul_(2.0)
    assert np.allclose(y.detach().numpy(), [2 * math.sin(0.5), 2 * math.sin(2.0)])
    y.sum().backward()
    assert np.allclose(x.grad.numpy(), [2 * math.cos(0.5), 2 * math.cos(2.0)])
