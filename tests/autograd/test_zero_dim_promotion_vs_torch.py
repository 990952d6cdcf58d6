"""PyTorch's type promotion with 0-d tensors: a scalar tensor does not raise the dtype of
dimensioned tensors of its category or a higher one; of a higher category, it sets the result's
dtype. NumPy promotes otherwise (float32 array times a float64 0-d array is float64), so these
would be silently different precisions, and a float32 model fed a float64 scalar parameter
would refuse its matmul."""

from __future__ import annotations

import numpy as np
import pytest

from diffcompare import autograd as ag

CASES = [  # (dimensioned dtype, 0-d dtype, result dtype), by PyTorch's rule
    ("float32", "float64", "float32"), ("float64", "float32", "float64"), ("int32", "int64", "int32"),
    ("int64", "float32", "float32"), ("int32", "float64", "float64"), ("float32", "int64", "float32"),
    ("bool", "int64", "int64"),
]


@pytest.mark.parametrize("nd, zero, result", CASES)
@pytest.mark.parametrize("op", ["add", "mul", "sub", "maximum"])
def test_result_dtype(nd, zero, result, op):
    a = ag.ones(3, dtype=getattr(ag, nd))
    s = ag.tensor(2, dtype=getattr(ag, zero))
    if op == "sub" and "bool" in (nd, zero):
        pytest.skip("PyTorch refuses to subtract booleans")
    assert getattr(ag, op)(a, s).dtype == np.dtype(result)
    assert getattr(ag, op)(s, a).dtype == np.dtype(result)


def test_float32_model_with_a_float64_scalar_parameter():
    """exp(log_scale) * X @ X.T with float32 X and a float64 0-d parameter stays float32, and
    the parameter's gradient stays float64: d/dl sum(e^l X X^T) = e^l sum(X X^T)."""
    X = ag.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=ag.float32)
    log_scale = ag.tensor(np.log(0.5), requires_grad=True)
    K = (ag.exp(log_scale) * X) @ X.T
    assert K.dtype == np.float32
    K.sum().backward()
    assert log_scale.grad.dtype == np.float64
    assert log_scale.grad.item() == pytest.approx(0.5 * (5 + 11 + 11 + 25), rel=1e-6)


def test_as_pytorch():
    torch = pytest.importorskip("torch")
    for nd, zero, _ in CASES:
        for op in ("add", "mul", "div", "atan2", "pow", "maximum", "where"):
            if op in ("atan2", "div") and "bool" in (nd, zero):
                continue
            if op in ("atan2", "div", "pow") and "float" not in nd + zero:
                continue    # integers divided: the default float dtype (float64 here, float32 in PyTorch)
            dtypes = []
            for lib in (torch, ag):
                a = lib.ones(3, dtype=getattr(lib, nd))
                s = lib.tensor(2, dtype=getattr(lib, zero))
                out = lib.where(a > 0, a, s) if op == "where" else getattr(lib, op)(a, s)
                dtypes.append(str(out.dtype).replace("torch.", ""))
            assert dtypes[0] == dtypes[1], (nd, zero, op)


def test_integers_made_floating_take_the_default_dtype():
    """Under a float32 default, int32 / 2 and sqrt of integers are float32, as in PyTorch; a
    float64 tensor in the operation keeps float64."""
    ag.set_default_dtype(ag.float32)
    try:
        y = ag.tensor([1, -1], dtype=ag.int32)
        assert ((y + 1) / 2).dtype == np.float32 and ag.sqrt(y.abs()).dtype == np.float32
        assert (y * 0.5).dtype == np.float32
        assert (y + ag.tensor(1.0, dtype=ag.float64)).dtype == np.float64
    finally:
        ag.set_default_dtype(ag.float64)
    assert ((ag.tensor([1, 3]) + 1) / 2).dtype == np.float64
