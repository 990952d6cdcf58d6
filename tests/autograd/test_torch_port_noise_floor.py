"""The porting harness's noise floor: an array that is zero up to rounding on both sides (a
bias gradient that batch norm cancels) agrees; a small but real difference still differs."""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import torch_port  # noqa: E402


def _array(values, dtype="float64"):
    return ("array", np.asarray(values, dtype=float), dtype)


def test_floors_are_64_ulps_of_the_largest_value_of_each_kind():
    values = {"w.grad": _array([0.5, -2.0]), "b.grad": _array([1e-18]), "x": _array([255.0]),
              "h": _array([3.0], "float32")}
    floors = torch_port.noise_floors(values, list(values))
    eps64, eps32 = 2.0 ** -52, 2.0 ** -23
    assert floors[(True, False)] == 64 * eps64 * 2.0        # gradients: from w.grad, not from x
    assert floors[(False, False)] == 64 * eps64 * 255.0
    assert floors[(False, True)] == 64 * eps32 * 3.0


def test_rounding_noise_around_zero_agrees_and_a_real_difference_does_not():
    floor = 64 * 2.0 ** -52 * 2.0
    assert torch_port.same(_array([1e-18, 0.0]), _array([-3e-18, 2e-19]), floor) is None
    assert torch_port.same(_array([1e-18]), _array([-3e-18]), 0.0) is not None     # without a floor
    assert torch_port.same(_array([1e-12]), _array([2e-12]), floor) is not None    # above the floor
    # one side zero, the other above the floor: a real difference
    assert torch_port.same(_array([0.0]), _array([1e-10]), floor) is not None


def _number(value):
    return ("number", np.asarray(value, dtype=float), "")


def test_a_python_number_both_sides_give_as_a_float32_value_is_compared_as_float32():
    one, next_up = float(np.float32(0.1)), float(np.nextafter(np.float32(0.1), np.float32(1)))
    assert torch_port.same(_number(one), _number(next_up)) is None          # one float32 ulp: agree
    assert torch_port.same(_number(0.1), _number(0.1 + 1e-9)) is not None  # float64 values: 1e-10
    assert torch_port.same(_number(one), _number(float(np.float32(one * 1.001)))) is not None  # 1e-3 apart
    assert torch_port.same(_number(3.0), _number(3.0000001)) is not None    # an integer is not a float32 sign
