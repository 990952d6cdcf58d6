"""Behaviours that PyTorch issue threads and course notebooks lean on: a fill value that is a
tensor gets a gradient (MaskedFillBackward1, IndexFillBackward1), complex acosh's branch, a
node's ``metadata`` kept, a hook that removes itself, forward hooks ``with_kwargs``,
``torch.norm_except_dim``, and vector @ matrix recorded as unsqueeze, mm, squeeze. Values by
hand (or by central differences), then beside PyTorch where it is installed."""

from __future__ import annotations

import cmath

import numpy as np
import pytest

from diffcompare import autograd as ag


def _torch():
    return pytest.importorskip("torch")


# -- by hand ----------------------------------------------------------------------------------

def test_a_tensor_fill_value_gets_the_gradient_of_the_places_it_fills():
    x = ag.ones(2, 3, requires_grad=True)
    value = ag.tensor(2.0, requires_grad=True)
    weights = ag.arange(6.0).reshape(2, 3)
    y = x.masked_fill(ag.tensor([True, False, True]), value)
    assert y.grad_fn.name() == "MaskedFillBackward1" and y.tolist() == [[2.0, 1.0, 2.0]] * 2
    (y * weights).sum().backward()
    assert value.grad.item() == 0 + 2 + 3 + 5 and x.grad.tolist() == [[0.0, 1.0, 0.0], [0.0, 4.0, 0.0]]
    value.grad = None
    z = x.index_fill(1, ag.tensor([0, 0, 2]), value)          # column 0 named twice: filled, and counted, once
    assert z.grad_fn.name() == "IndexFillBackward1"
    (z * weights).sum().backward()
    assert value.grad.item() == 0 + 2 + 3 + 5
    with pytest.raises(RuntimeError, match="masked_fill_ only supports a 0-dimensional value tensor"):
        x.masked_fill(ag.tensor([True, False, True]), ag.ones(1))


def test_complex_acosh_gradient_is_the_derivative_on_its_branch():
    """At Re z < 0, 1/sqrt(z^2 - 1) is the negative of acosh'(z); the gradient (PyTorch's
    convention: conj of the derivative, for a real loss's Re part) agrees with central
    differences of cmath.acosh."""
    points = [0.3 + 0.4j, -1.2 + 0.1j, -3.0 - 2.0j]
    z = ag.tensor(points, requires_grad=True)
    ag.acosh(z).real.sum().backward()
    h = 1e-6
    for got, p in zip(z.grad.tolist(), points):
        derivative = (cmath.acosh(p + h) - cmath.acosh(p - h)) / (2 * h)
        assert abs(got - derivative.conjugate()) < 1e-8


def test_node_metadata_is_kept_and_a_hook_may_remove_itself():
    out = ag.nn.Linear(2, 2)(ag.ones(1, 2))
    out.grad_fn.metadata["module"] = "kept"
    assert out.grad_fn.metadata == {"module": "kept"}
    w = ag.ones(2, requires_grad=True)
    handle = []

    def once(grad):
        handle[0].remove()
        return grad * 2
    handle.append(w.register_hook(once))
    (w * 3).sum().backward()
    (w * 3).sum().backward()                                   # the hook is gone: 6 + 3
    assert w.grad.tolist() == [9.0, 9.0]


def test_forward_hooks_with_kwargs_and_prepend():
    calls = []

    class Scale(ag.nn.Module):
        def forward(self, x, factor=1.0):
            return x * factor

    m = Scale()
    m.register_forward_pre_hook(lambda mod, args, kwargs: (args, {**kwargs, "factor": 3.0}), with_kwargs=True)
    m.register_forward_hook(lambda mod, args, kwargs, out: calls.append(("kw", kwargs["factor"])) or out + 1,
                            with_kwargs=True)
    m.register_forward_hook(lambda mod, args, out: calls.append("first"), prepend=True)
    assert m(ag.tensor([2.0]), factor=5.0).tolist() == [7.0]
    assert calls == ["first", ("kw", 3.0)]
    m2 = Scale()
    m2.register_forward_pre_hook(lambda mod, args, kwargs: args, with_kwargs=True)
    with pytest.raises(RuntimeError, match=r"forward pre-hook must return None or a tuple of \(new_args, new_kwargs\)"):
        m2(ag.tensor([1.0]))


def test_norm_except_dim_by_hand():
    v = ag.arange(6.0).reshape(2, 3)                           # rows (0, 1, 2), (3, 4, 5)
    np.testing.assert_allclose(ag.norm_except_dim(v, 2, 0).numpy(), [[5 ** 0.5], [50 ** 0.5]], rtol=1e-15)
    np.testing.assert_allclose(ag.norm_except_dim(v, 2, 1).numpy(), [[3.0, 17 ** 0.5, 29 ** 0.5]], rtol=1e-15)
    np.testing.assert_allclose(float(ag.norm_except_dim(v, 2, -1)), 55 ** 0.5, rtol=1e-15)


def test_vector_times_matrix_records_unsqueeze_mm_squeeze():
    v, A = ag.ones(3, requires_grad=True), ag.ones(3, 4, requires_grad=True)
    y = v @ A
    chain, fn = [], y.grad_fn
    while fn is not None:
        chain.append(fn.name())
        fn = fn.next_functions[0][0] if fn.next_functions else None
    assert chain == ["SqueezeBackward4", "MmBackward0", "UnsqueezeBackward0", "torch::autograd::AccumulateGrad"]
    (y * ag.arange(4.0)).sum().backward()
    assert v.grad.tolist() == [6.0, 6.0, 6.0] and A.grad.tolist() == [[0.0, 1.0, 2.0, 3.0]] * 3


# -- beside PyTorch ----------------------------------------------------------------------------

def _walk(L):
    L.manual_seed(0)
    v = L.ones(3, requires_grad=True)
    A, B = L.ones(3, 4, requires_grad=True), L.ones(4, 2, requires_grad=True)
    loss = L.nn.functional.mse_loss(v @ A @ B, L.zeros(2))
    names, fn = [], loss.grad_fn
    while fn is not None:
        names.append(fn.name())
        fn = fn.next_functions[0][0] if fn.next_functions else None
    loss.backward()
    return names, v.grad.tolist(), A.grad.tolist(), B.grad.tolist()


def test_grad_fn_walks_and_fill_values_as_pytorch():
    torch = _torch()
    assert _walk(ag) == _walk(torch)

    def fills(L):
        x = L.ones(2, 3, dtype=L.float64, requires_grad=True)
        value = L.tensor(2.0, dtype=L.float64, requires_grad=True)
        plain = L.tensor(5.0, dtype=L.float64)
        out = [x.masked_fill(L.tensor([True, False, True]), plain).grad_fn.name(),
               x.index_fill(0, L.tensor([1]), plain).grad_fn.name()]
        y = x.masked_fill(L.tensor([[True, False, False]]), value) + x.index_fill(1, L.tensor([2, 2]), value)
        (y * L.arange(6.0, dtype=L.float64).reshape(2, 3)).sum().backward()
        return out, value.grad.item(), x.grad.tolist()
    assert fills(ag) == fills(torch)


def test_acosh_and_norm_except_dim_as_pytorch():
    torch = _torch()
    points = np.array([0.3 + 0.4j, -1.2 + 0.1j, -3.0 - 2.0j, 2.5 + 0.0j])
    grads = {}
    for L in (ag, torch):
        z = L.tensor(points, dtype=L.complex128, requires_grad=True)
        (L.acosh(z) * L.tensor(np.array([1 + 2j, -0.5j, 3, 1]))).real.sum().backward()
        grads[L] = np.array(z.grad.tolist())
    np.testing.assert_allclose(grads[ag], grads[torch], rtol=1e-14)
    v = np.arange(24.0).reshape(2, 3, 4) - 7
    for dim in (0, 1, 2, -1):
        np.testing.assert_allclose(ag.norm_except_dim(ag.tensor(v), 2, dim).numpy(),
                                   torch.norm_except_dim(torch.tensor(v), 2, dim).numpy(), rtol=1e-14)


def _derivatives_of_a_square(L):
    x = L.tensor([1.0, 2.0], dtype=L.float64, requires_grad=True)
    d1 = L.autograd.grad((x ** 2).sum(), x, create_graph=True)[0]
    d2 = L.autograd.grad(d1.sum(), x, create_graph=True)[0]
    d3 = L.autograd.grad(d2.sum(), x, create_graph=True)[0]
    zero = L.autograd.grad((x ** 0).sum(), x, create_graph=True)[0]
    return [(d.tolist(), d.requires_grad) for d in (d1, d2, d3, zero)]


def test_a_constant_derivative_has_no_history():
    """x**2: 2x, then 2 (through pow's formula, still connected to x), then zeros that do not
    require grad (pow_backward's zeros for exponent 0, as in PyTorch): a fourth derivative
    asked for is PyTorch's error, not a silent zero."""
    assert _derivatives_of_a_square(ag) == [([2.0, 4.0], True), ([2.0, 2.0], True), ([0.0, 0.0], False),
                                            ([0.0, 0.0], False)]
    try:
        import torch
    except ImportError:
        return
    assert _derivatives_of_a_square(torch) == _derivatives_of_a_square(ag)
