"""Tensors: construction, attributes, conversions, repr, leaf rules (spec section 3)."""

import numpy as np
import pytest

from diffcompare import autograd as ag


def test_repr_reads_like_pytorch():
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    assert repr(x) == "tensor([1., 2.], requires_grad=True)"
    assert repr((x * 2).sum()) == "tensor(6., grad_fn=<SumBackward0>)"
    assert repr(ag.tensor([1.5, 2.25])) == "tensor([1.5000, 2.2500])"
    assert repr(ag.tensor([1e-5, 1.0])) == "tensor([1.0000e-05, 1.0000e+00])"
    assert repr(ag.tensor([[1.0, 2.0], [3.0, 4.0]])) == "tensor([[1., 2.],\n        [3., 4.]])"
    assert repr(ag.tensor([1.0], dtype=ag.float32)) == "tensor([1.], dtype=float32)"
    assert repr(ag.tensor([1, 2])) == "tensor([1, 2])"
    assert repr(ag.tensor([float("nan"), float("inf"), 1.0])) == "tensor([nan, inf, 1.])"
    assert "..." in repr(ag.zeros(2000))


def test_factories():
    assert ag.zeros(2, 3).shape == (2, 3) and ag.zeros((2, 3)).dtype == np.float64
    assert ag.ones(2, requires_grad=True).requires_grad
    assert ag.full((2,), 7.0).tolist() == [7.0, 7.0]
    assert ag.arange(4).tolist() == [0, 1, 2, 3] and ag.arange(0.0, 1.0, 0.5).tolist() == [0.0, 0.5]
    assert ag.linspace(0, 1, 3).tolist() == [0.0, 0.5, 1.0]
    assert ag.eye(2).tolist() == [[1.0, 0.0], [0.0, 1.0]]
    x = ag.tensor([1.0, 2.0])
    assert ag.zeros_like(x).tolist() == [0.0, 0.0] and ag.ones_like(x).tolist() == [1.0, 1.0]
    ag.manual_seed(5)
    a = ag.randn(3)
    ag.manual_seed(5)
    assert ag.randn(3).tolist() == a.tolist()
    r = ag.rand(1000)
    assert 0 <= r.numpy().min() and r.numpy().max() < 1
    assert ag.rand(2, dtype=ag.float32).dtype == np.float32


def test_attributes_and_shape_methods():
    x = ag.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    assert x.shape == (2, 3) and x.ndim == 2 and x.dim() == 2 and x.numel() == 6 and x.size(1) == 3
    assert x.T.shape == (3, 2) and x.is_leaf and x.grad_fn is None
    assert x.reshape(3, 2).shape == (3, 2) and x.view(-1).shape == (6,)
    assert x.unsqueeze(0).shape == (1, 2, 3) and x.unsqueeze(0).squeeze().shape == (2, 3)
    assert x.permute(1, 0).shape == (3, 2) and x.t().shape == (3, 2)
    assert x[0].expand(4, 3).shape == (4, 3)
    assert x.sum().item() == 21.0 and x.detach().tolist() == [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    with pytest.raises(RuntimeError, match="elements cannot be converted to Scalar"):
        x.item()
    with pytest.raises(RuntimeError, match="shape '\\[4, 2\\]' is invalid for input of size 6"):
        x.reshape(4, 2)


def test_leaf_rules():
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    c = ag.tensor([1.0, 2.0])
    assert (c * 2).is_leaf and not (c * 2).requires_grad
    y = x * 2
    assert not y.is_leaf and y.grad_fn.name() == "MulBackward0"
    d = y.detach()
    assert d.is_leaf and not d.requires_grad and d.grad_fn is None
    d[0] = 100.0
    assert y.tolist()[0] == 100.0                    # shares storage
    assert y.detach().requires_grad_().is_leaf
    with pytest.raises(RuntimeError, match="you can only change requires_grad flags of leaf variables"):
        y.requires_grad_(False)
    assert y.requires_grad_(True) is y
    with pytest.raises(RuntimeError, match="only Tensors of floating point dtype can require gradients"):
        ag.tensor([1, 2]).requires_grad_()
    with pytest.raises(RuntimeError, match="Only Tensors of floating point and complex dtype can require gradients"):
        ag.tensor([1, 2], requires_grad=True)


def test_non_leaf_grad_warns_unless_retained():
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    with pytest.warns(UserWarning, match="is not a leaf Tensor is being accessed"):
        assert y.grad is None
    y.retain_grad()
    (y * y).sum().backward(retain_graph=True)
    assert y.grad.tolist() == [4.0, 8.0] and x.grad.tolist() == [8.0, 16.0]   # 2y, 2y*2
    (y * y).sum().backward()
    assert y.grad.tolist() == [8.0, 16.0]
    x.retain_grad()
    assert not x.retains_grad
    with pytest.raises(RuntimeError, match="can't retain_grad on Tensor that has requires_grad=False"):
        ag.tensor(1.0).retain_grad()


def test_conversions():
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="Use tensor.detach\\(\\).numpy\\(\\) instead"):
        x.numpy()
    with pytest.warns(UserWarning, match="Converting a tensor with requires_grad=True to a scalar"):
        assert float((x * 3)[0]) == 3.0
    with pytest.warns(UserWarning, match="recommended to use sourceTensor.detach\\(\\).clone\\(\\)"):
        ag.tensor(x)
    assert x.detach().numpy().tolist() == [1.0, 2.0] and x.detach().cpu().numpy().tolist() == [1.0, 2.0]


def test_data_shares_storage_but_not_the_version_counter():
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    y.data.add_(1)
    y.sum().backward()          # silently wrong, as in PyTorch: e^x + 1
    np.testing.assert_allclose(x.grad.numpy(), np.exp([1.0, 2.0]) + 1)


def test_dtype_rules():
    x32 = ag.tensor([1.0, 2.0], dtype=ag.float32, requires_grad=True)
    assert (x32 * 2.5).dtype == np.float32                      # Python scalars never change the dtype
    assert (x32 * ag.tensor([1.0, 2.0])).dtype == np.float64     # float32 x float64 -> float64
    x32.double().sum().backward()
    assert x32.grad.dtype == np.float32
    assert ag.tensor(1.5).dtype == np.float64
    assert ag.Tensor([1, 2]).tolist() == [1.0, 2.0] and ag.Tensor([1, 2]).dtype == np.float64


def test_graph_introspection():
    x, w = ag.tensor([1.0, 2.0], requires_grad=True), ag.tensor([3.0, 4.0], requires_grad=True)
    y = (x * w + ag.tensor([1.0, 1.0])).exp().sum()
    fn = y.grad_fn
    assert fn.name() == "SumBackward0" and fn.metadata == {}
    exp = fn.next_functions[0][0]
    add = exp.next_functions[0][0]
    assert [type(n).__name__ if n else None for n, _ in add.next_functions] == ["MulBackward0", None]
    mul = add.next_functions[0][0]
    accs = [n for n, _ in mul.next_functions]
    assert all(type(a).__name__ == "AccumulateGrad" for a in accs)
    assert accs[0].variable is x and accs[1].variable is w and accs[0].next_functions == ()


def test_a_recorded_result_has_every_slot_a_made_tensor_has():
    # recording builds its result inline (Tensor._make's fields, without the call): a slot
    # added to Tensor and not set there would surface here, not as an AttributeError later
    slots = [s for s in ag.Tensor.__slots__ if s not in ("__weakref__", "__dict__")]
    made = ag.Tensor._make(np.ones(2), True, None)
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    for result in (x.sigmoid(), x * x, x.exp()):       # one-input, two-input, a saved result
        for slot in slots:
            assert hasattr(result, slot) == hasattr(made, slot), slot
        assert result._grad is None and result._output_nr == 0 and result.requires_grad
