"""``torch.tensor`` of nested lists that hold tensors: the dtype PyTorch infers (the entries'
dtypes promoted by PyTorch's rule, where a float32 tensor beside a Python int stays float32),
the shape, and the values, compared with PyTorch."""

import pytest

from diffcompare import autograd as ag

torch = pytest.importorskip("torch")

# each case: the nested list, written once for either library
CASES = {
    "float32 tensor and an int": lambda t: [t.tensor(1.5, dtype=t.float32), 2],
    "float32 tensor and a float": lambda t: [t.tensor(1.5, dtype=t.float32), 2.5],
    "float16 tensor and an int": lambda t: [t.tensor(1.5, dtype=t.float16), 2],
    "int32 tensor and an int": lambda t: [t.tensor(1, dtype=t.int32), 2],
    "bool tensor and an int": lambda t: [t.tensor(True), 2],
    "int64 tensor and a float": lambda t: [t.tensor(3), 2.5],
    "float32 and float64 tensors": lambda t: [t.tensor(1.5, dtype=t.float32), t.tensor(2.5, dtype=t.float64)],
    "one-element float32 tensors": lambda t: [t.tensor([1.5], dtype=t.float32), t.tensor([2.0], dtype=t.float32)],
    "nested rows": lambda t: [[t.tensor(1.0, dtype=t.float32), 2], [3, 4]],
    "complex64 tensor and a float": lambda t: [t.tensor(1 + 2j, dtype=t.complex64), 0.5],
    "uint8 and int8 tensors": lambda t: [t.tensor(200, dtype=t.uint8), t.tensor(-1, dtype=t.int8)],
}


def _seen(lib, case):
    value = lib.tensor(CASES[case](lib))
    return str(value.dtype).replace("torch.", ""), tuple(value.shape), value.tolist()


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_dtype_shape_and_values_are_pytorchs(torch_float64, case):
    assert _seen(ag, case) == _seen(torch, case)


def test_an_explicit_dtype_still_wins():
    assert ag.tensor([ag.tensor(1.5, dtype=ag.float32), 2], dtype=ag.float64).dtype == ag.float64
