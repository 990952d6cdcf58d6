"""``torch.testing.make_tensor`` against PyTorch's: shapes, dtypes, the default and clamped
intervals, non-contiguous views, excluded zeros and the errors."""

import numpy as np
import pytest

from diffcompare import autograd as ag

torch = pytest.importorskip("torch")

DTYPES = ["float64", "float32", "complex128", "int64", "int32", "int8", "uint8", "bool"]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kwargs", [{}, {"low": -2, "high": 3}, {"noncontiguous": True}, {"exclude_zero": True}],
                         ids=repr)
def test_make_tensor_gives_pytorchs_kind_of_tensor(dtype, kwargs):
    ours = ag.testing.make_tensor(3, 4, dtype=getattr(ag, dtype), device="cpu", **kwargs)
    theirs = torch.testing.make_tensor(3, 4, dtype=getattr(torch, dtype), device="cpu", **kwargs)
    assert tuple(ours.shape) == tuple(theirs.shape) == (3, 4)
    assert str(ours.dtype) == str(theirs.dtype).replace("torch.", "")
    assert ours.is_contiguous() == theirs.is_contiguous()
    values = np.asarray(ours.tolist())
    parts = [values.real, values.imag] if np.iscomplexobj(values) else [values]
    low, high = kwargs.get("low"), kwargs.get("high")
    if dtype == "bool":
        low, high = 0, 2
    elif dtype == "uint8":
        low, high = (0 if low is None else max(low, 0)), (10 if high is None else high)
    else:
        low = -9 if low is None else low
        high = (9 if dtype.startswith(("float", "complex")) else 10) if high is None else high
    for part in parts:       # drawn in [low, high), as PyTorch's documentation states
        assert (part >= low).all() and (part < high).all()
    if kwargs.get("exclude_zero"):
        assert (values != 0).all()


def test_make_tensor_requires_grad_and_its_refusals():
    t = ag.testing.make_tensor((2,), dtype=ag.float64, device="cpu", requires_grad=True)
    assert t.requires_grad and t.is_leaf
    cases = [dict(dtype="int64", requires_grad=True), dict(dtype="float64", low=3, high=1),
             dict(dtype="float64", low=float("nan")), dict(dtype="uint8", low=-5, high=-1),
             dict(dtype="float64", noncontiguous=True, memory_format="contiguous_format")]
    for case in cases:
        case = dict(case)
        dtype = case.pop("dtype")
        errors = []
        for lib in (ag, torch):
            extra = dict(case)
            if extra.get("memory_format"):
                extra["memory_format"] = lib.contiguous_format
            with pytest.raises(ValueError) as error:
                lib.testing.make_tensor((2, 2), dtype=getattr(lib, dtype), device="cpu", **extra)
            errors.append(str(error.value).split(",")[0])
        assert errors[0] == errors[1]


def test_make_tensor_draws_as_pytorchs_does():
    # the same draws as PyTorch's make_tensor: uniform_ on a float tensor, randint for integers
    torch.manual_seed(7)
    want = torch.testing.make_tensor(5, dtype=torch.float64, device="cpu", low=-1, high=1)
    torch.manual_seed(7)
    drawn = torch.empty(5, dtype=torch.float64).uniform_(-1, 1)
    assert torch.equal(want, drawn)
    ag.manual_seed(7)
    ours = ag.testing.make_tensor(5, dtype=ag.float64, device="cpu", low=-1, high=1)
    ag.manual_seed(7)
    np.testing.assert_array_equal(ours.numpy(), ag.empty(5).uniform_(-1, 1).numpy())
