"""APIs of newer PyTorch code: optimizers' implementation flags (foreach, fused; capturable and
differentiable refused), Adam's decoupled_weight_decay, nn.Buffer, nn.LazyLinear, the pooling
*_with_indices names: by hand, and against PyTorch where it is installed."""

from __future__ import annotations

import numpy as np
import pytest

from diffcompare import autograd as ag


def test_fused_and_foreach_compute_the_same_step():
    runs = []
    for options in ({}, {"fused": True}, {"foreach": True}):
        w = ag.tensor([1.0, -2.0], requires_grad=True)
        opt = ag.optim.AdamW([w], lr=0.1, **options)
        (w ** 2).sum().backward()
        opt.step()
        runs.append(w.detach().numpy().copy())
        assert opt.state_dict()["param_groups"][0]["fused"] == options.get("fused")
    assert np.array_equal(runs[0], runs[1]) and np.array_equal(runs[0], runs[2])


def test_adam_decoupled_weight_decay_is_adamw():
    a, b = ag.tensor([1.0, -2.0], requires_grad=True), ag.tensor([1.0, -2.0], requires_grad=True)
    opt_a = ag.optim.Adam([a], lr=0.1, weight_decay=0.5, decoupled_weight_decay=True)
    opt_b = ag.optim.AdamW([b], lr=0.1, weight_decay=0.5)
    for opt, w in ((opt_a, a), (opt_b, b)):
        (w * 0).sum().backward()
        opt.step()
    # zero gradient: the decay alone, w (1 - lr wd)
    assert a.tolist() == b.tolist() == [0.95, -1.9]


def test_capturable_and_differentiable_are_refused():
    with pytest.raises(NotImplementedError, match="differentiable=True"):
        ag.optim.SGD([ag.tensor([1.0], requires_grad=True)], lr=0.1, differentiable=True)
    with pytest.raises(NotImplementedError, match="capturable=True"):
        ag.optim.Adam([ag.tensor([1.0], requires_grad=True)], capturable=True)


def test_buffer_assignment_registers():
    m = ag.nn.Module()
    m.stats = ag.nn.Buffer(ag.tensor([1.0, 2.0]))
    m.scratch = ag.nn.Buffer(ag.zeros(1), persistent=False)
    assert list(m.state_dict()) == ["stats"] and [n for n, _ in m.named_buffers()] == ["stats", "scratch"]
    assert m.stats.tolist() == [1.0, 2.0] and list(m.parameters()) == []


def test_lazy_linear_takes_its_input_size():
    ag.manual_seed(0)
    lazy = ag.nn.LazyLinear(3)
    y = lazy(ag.ones(2, 5))
    assert isinstance(lazy, ag.nn.Linear) and lazy.weight.shape == (3, 5) and y.shape == (2, 3)
    bound = 1 / np.sqrt(5)
    assert np.all(np.abs(lazy.weight.detach().numpy()) <= bound)
    expected = ag.ones(2, 5) @ lazy.weight.T + lazy.bias
    assert np.allclose(y.detach().numpy(), expected.detach().numpy())


def test_with_indices_names():
    x = ag.tensor(np.arange(16.0).reshape(1, 1, 4, 4))
    values, indices = ag.nn.functional.max_pool2d_with_indices(x, 2)
    assert values.tolist() == [[[[5.0, 7.0], [13.0, 15.0]]]] and indices.tolist() == [[[[5, 7], [13, 15]]]]


@pytest.mark.parametrize("name, options", [("Adam", {"fused": True}), ("Adam", {"decoupled_weight_decay": True,
                                           "weight_decay": 0.1}), ("SGD", {"momentum": 0.9, "fused": True}),
                                           ("Adagrad", {"foreach": True}), ("RMSprop", {"foreach": False})])
def test_optimizer_flags_against_pytorch(name, options):
    torch = pytest.importorskip("torch")
    results = []
    for L in (torch, ag):
        w = L.tensor([1.0, -2.0, 3.0], dtype=L.float64, requires_grad=True)
        opt = getattr(L.optim, name)([w], lr=0.1, **options)
        for _ in range(3):
            opt.zero_grad()
            (w ** 2).sum().backward()
            opt.step()
        results.append(w.detach().numpy().copy())
    assert np.array_equal(results[0], results[1])


def test_lazy_linear_and_buffer_against_pytorch():
    torch = pytest.importorskip("torch")
    for L in (torch, ag):
        m = L.nn.Module()
        m.b = L.nn.Buffer(L.zeros(2), persistent=False)
        assert list(m.state_dict()) == [] and [n for n, _ in m.named_buffers()] == ["b"]
        lazy = L.nn.LazyLinear(4)
        assert repr(lazy) == "LazyLinear(in_features=0, out_features=4, bias=True)"
        lazy(L.ones(1, 3, dtype=L.float64) if L is ag else L.ones(1, 3))
        assert type(lazy).__name__ == "Linear" and tuple(lazy.weight.shape) == (4, 3)


def test_version_compares_as_a_version():
    assert ag.__version__.startswith("2.13.0") and ag.__version__ > "2.9" and ag.__version__ >= (2, 13)
    assert not ag.__version__ < "2.13" and ag.__version__ != "2.12.1"


@pytest.mark.parametrize("a_shape, b_shape, message", [
    ((2, 3), (3, 2), "expected m1 and m2 to have the same dtype, but got: float != double"),
    ((2, 3), (3,), "addmv input tensors must have the same dtype, but got Double, Float, and Double"),
    ((3,), (3,), "dot : expected both vectors to have same dtype, but found Float and Double"),
    ((4, 2, 3), (4, 3, 2), "expected scalar type Float but found Double")])
def test_products_of_two_dtypes_are_refused_in_pytorchs_words(a_shape, b_shape, message):
    a, b = ag.ones(*a_shape, dtype=ag.float32), ag.ones(*b_shape, dtype=ag.float64)
    with pytest.raises(RuntimeError, match=message):
        a @ b
    with pytest.raises(RuntimeError, match="mat1 and mat2 must have the same dtype, but got Float and Double"):
        ag.nn.Linear(3, 2)(ag.ones(1, 3, dtype=ag.float32))


def test_vmap_of_autograd_grad_without_retain_graph():
    """PyTorch's vmap calls ``get_vjp`` once on the batch; the engine calls it per row, keeping
    the graph between rows: the Jacobian of x**2 is diag(2x) (the torch.func docs' example)."""
    x = ag.tensor([1.0, -2.0, 0.5], requires_grad=True)
    y = x ** 2
    (jacobian,) = ag.vmap(lambda v: ag.autograd.grad(y, x, v))(ag.eye(3))
    assert np.array_equal(jacobian.numpy(), np.diag([2.0, -4.0, 1.0]))


def test_vmap_of_linear_is_named_as_pytorchs_decomposition():
    """Under vmap PyTorch decomposes linear into matmul + add (AddBackward0), a product without
    bias into a folded matmul (UnsafeViewBackward0)."""
    x = ag.randn(5, 2, 4)
    assert ag.vmap(ag.nn.Linear(4, 3))(x).grad_fn.name() == "AddBackward0"
    assert ag.vmap(ag.nn.Linear(4, 3, bias=False))(x).grad_fn.name() == "UnsafeViewBackward0"


def test_vmap_of_vector_products_is_named_as_pytorchs_batched_call():
    """One vector per example: linear (a view of addmm per example) is matmul + add batched,
    a vector times a matrix a squeeze of the batched product, a matrix times a vector a
    permute of it (the names PyTorch 2.13's vmap records)."""
    layer, vectors = ag.nn.Linear(3, 2), ag.randn(5, 3)
    assert ag.vmap(layer)(vectors).grad_fn.name() == "AddBackward0"
    assert ag.vmap(lambda v: v @ layer.weight.t())(vectors).grad_fn.name() == "SqueezeBackward5"
    assert ag.vmap(lambda v: layer.weight @ v)(vectors).grad_fn.name() == "PermuteBackward0"
    assert ag.vmap(lambda v: v.reshape(3, 1))(vectors.requires_grad_()).grad_fn.name() == "ViewBackward0"


def test_lazy_linear_takes_its_shapes_from_a_state_dict():
    """Loaded before its first input, a LazyLinear takes the checkpoint's shapes and values, and
    keeps them at that first forward (no new draw), as PyTorch's."""
    full = ag.nn.Linear(4, 3)
    lazy = ag.nn.LazyLinear(3)
    lazy.load_state_dict(full.state_dict())
    assert lazy.weight.shape == (3, 4)
    x = ag.randn(2, 4)
    assert np.array_equal(lazy(x).detach().numpy(), full(x).detach().numpy())
    assert type(lazy).__name__ == "Linear" and lazy.in_features == 4
