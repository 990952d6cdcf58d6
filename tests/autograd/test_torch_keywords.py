"""Keywords real PyTorch code passes: dtype= on reductions, PyTorch's parameter names (mat2=,
vec=, vec2=, tensor=), placement keywords a CPU engine of dense tensors accepts (layout,
memory_format, pin_memory=False, non_blocking), in-place division's rounding_mode, the
legacy size_average/reduce of losses, mse_loss's weight, F.normalize: by hand, and against
PyTorch where it is installed."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from diffcompare import autograd as ag

X = np.array([[1.0, -2.0, 3.0], [0.5, 4.0, -1.0]])


def test_reduction_dtype_casts_first():
    x = ag.tensor(X, dtype=ag.float32, requires_grad=True)
    y = x.cumsum(1, dtype=ag.float64)
    assert y.dtype == ag.float64 and y.tolist() == [[1.0, -1.0, 2.0], [0.5, 4.5, 3.5]]
    assert y.grad_fn.next_functions[0][0].name() == "ToCopyBackward0"
    assert ag.softmax(x, 1, dtype=ag.float64).dtype == ag.float64
    assert float(x.prod(dtype=ag.float64)) == 12.0 and float(x.mean(dtype=ag.float64)) == 5.5 / 6


def test_pytorchs_parameter_names():
    a, v = ag.tensor(X), ag.tensor([1.0, 0.0, 2.0])
    assert ag.mv(a, vec=v).tolist() == [7.0, -1.5]
    assert ag.outer(v, vec2=v)[2].tolist() == [2.0, 0.0, 4.0]
    assert float(ag.dot(v, tensor=v)) == 5.0
    assert ag.bmm(a[None], mat2=a.T[None]).tolist() == [[[14.0, -10.5], [-10.5, 17.25]]]


def test_placement_keywords():
    assert ag.zeros(2, layout=ag.strided, pin_memory=False).tolist() == [0.0, 0.0]
    assert ag.ones_like(ag.tensor(X), memory_format=ag.preserve_format).shape == (2, 3)
    assert ag.tensor(X).float(memory_format=ag.contiguous_format).dtype == ag.float32
    assert ag.tensor(X).layout is ag.strided
    with pytest.raises(RuntimeError, match="pin_memory=True requires"):
        ag.zeros(2, pin_memory=True)
    with pytest.raises(NotImplementedError, match="dense"):
        ag.zeros(2, layout=ag.sparse_coo)
    t = ag.zeros(2)
    t.copy_(ag.tensor([1.0, 2.0]), non_blocking=True)
    assert t.tolist() == [1.0, 2.0]
    assert ag.tensor([7.0, -7.0]).div_(2.0, rounding_mode="floor").tolist() == [3.0, -4.0]
    assert ag.tensor(X).expand(size=(2, 2, 3)).shape == (2, 2, 3)


def test_legacy_reduction_arguments_warn_and_reduce():
    x, y = ag.tensor([1.0, 2.0]), ag.tensor([0.0, 0.0])
    with pytest.warns(UserWarning, match="reduction='sum' instead"):
        assert float(ag.nn.functional.mse_loss(x, y, size_average=False)) == 5.0
    with pytest.warns(UserWarning, match="reduction='none' instead"):
        assert ag.nn.MSELoss(reduce=False)(x, y).tolist() == [1.0, 4.0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert float(ag.nn.MSELoss()(x, y)) == 2.5


def test_mse_loss_weight_and_normalize_by_hand():
    x, y, w = ag.tensor([1.0, 2.0]), ag.tensor([0.0, 0.0]), ag.tensor([3.0, 1.0])
    assert float(ag.nn.functional.mse_loss(x, y, weight=w)) == (3.0 * 1 + 1.0 * 4) / 4.0
    with pytest.raises(ValueError, match="Weights and input must have the same size"):
        ag.nn.functional.mse_loss(x, y, weight=ag.ones(3))
    assert ag.nn.functional.normalize(ag.tensor([[3.0, 4.0]])).tolist() == [[0.6, 0.8]]
    assert ag.nn.functional.normalize(ag.tensor([[0.0, 0.0]])).tolist() == [[0.0, 0.0]]   # eps keeps it finite


def test_loss_weights_are_buffers():
    assert list(ag.nn.CrossEntropyLoss(weight=ag.ones(2)).state_dict()) == ["weight"]
    assert list(ag.nn.BCEWithLogitsLoss(pos_weight=ag.ones(2)).state_dict()) == ["pos_weight"]


@pytest.mark.parametrize("expression", [
    "F.mse_loss(X, X * 2, weight=W)", "F.normalize(X, p=1, dim=0)", "X.softmax(1, dtype=L.float32)",
    "F.binary_cross_entropy_with_logits(X, (X > 0).double(), W, None, None, 'sum')",
    "L.nn.BCEWithLogitsLoss(pos_weight=W[0])(X, (X > 0).double())", "X.cumprod(0, dtype=L.float32)"])
def test_against_pytorch(expression):
    torch = pytest.importorskip("torch")
    results = []
    for L in (torch, ag):
        x = L.tensor(X, requires_grad=True)
        value = eval(expression, {"L": L, "F": L.nn.functional, "X": x,   # noqa: S307 (fixed test text)
                                  "W": L.tensor(np.abs(X) + 0.5)})
        value.sum().backward()
        results.append((value.detach().double().numpy(), x.grad.numpy(), value.grad_fn.name()))
    (tv, tg, tn), (ev, eg, en) = results
    assert np.allclose(tv, ev, rtol=1e-6) and np.allclose(tg, eg, rtol=1e-6) and tn == en
