"""diffcompare.functions answers in the world of its arguments."""

import math

import mpmath
import numpy as np
import pytest
import sympy

from diffcompare import autograd as ag
from diffcompare import functions as F


def test_floats_and_arrays_use_numpy():
    assert F.sin(0.5) == math.sin(0.5)
    assert np.array_equal(F.exp(np.array([0.0, 1.0])), np.exp([0.0, 1.0]))
    assert F.atan2(1.0, -1.0) == math.atan2(1.0, -1.0)
    assert F.max(2.0, 3.0) == 3.0 and F.hypot(3.0, 4.0) == 5.0


def test_complex_numbers_use_the_analytic_extension():
    h = 1e-20
    # the complex step through cbrt and erf, whose NumPy forms are real-only
    assert math.isclose(F.cbrt(complex(-8.0, h)).imag / h, 1 / 12, rel_tol=1e-14)     # (1/3) · 8^(-2/3)
    assert math.isclose(F.erf(complex(0.5, h)).imag / h, 2 / math.sqrt(math.pi) * math.exp(-0.25), rel_tol=1e-14)
    with pytest.raises(TypeError, match="not analytic"):
        F.abs(complex(1.0, h))


def test_mpmath_numbers_use_mpmath_and_plain_numbers_join_them():
    with mpmath.workdps(40):
        value = F.exp(mpmath.mpf(1))
        assert isinstance(value, mpmath.mpf) and abs(value - mpmath.e) < mpmath.mpf(10) ** -38
        assert isinstance(F.max(mpmath.mpf(1), 2.0), mpmath.mpf)


def test_sympy_objects_build_expressions():
    x, y = sympy.symbols("x y", real=True)
    assert F.sin(x) * F.exp(y) == sympy.sin(x) * sympy.exp(y)
    assert F.relu(x) == sympy.Max(0, x)
    assert F.log1p(x).diff(x) == 1 / (x + 1)


def test_tensors_record_a_graph():
    x = ag.tensor(0.5, requires_grad=True)
    y = F.sigmoid(x) * F.max(x, 0.0)
    y.backward()
    s = 1 / (1 + math.exp(-0.5))
    assert math.isclose(x.grad.item(), s * (1 - s) * 0.5 + s, rel_tol=1e-15)


def test_wrong_arity_is_a_type_error():
    with pytest.raises(TypeError, match=r"atan2\(\) takes 2 arguments \(1 given\)"):
        F.atan2(1.0)
