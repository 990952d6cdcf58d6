"""steps in float32 computes as plain NumPy float32 code does: f on float32 scalars with
NumPy's own operators, the difference formed and divided by h in float32. Each sweep is
checked against a hand-written NumPy float32 evaluation, bit for bit."""

import numpy as np
import pytest

import diffcompare
from diffcompare.problem.problem import make_problem

F32 = np.float32

# the expression, the same function written in plain NumPy, the point, the exact derivative (by hand)
FUNCTIONS = [
    ("exp(x)/sqrt(sin(x)**3 + cos(x)**3)", lambda x: np.exp(x) / np.sqrt(np.sin(x) ** 3 + np.cos(x) ** 3), 1.5),
    ("x**2 * sin(x)", lambda x: x ** 2 * np.sin(x), 1.3),
    ("x**0.5 + log(x)**2", lambda x: x ** 0.5 + np.log(x) ** 2, 2.7),
    ("tanh(x) / (1 + x**2)", lambda x: np.tanh(x) / (1 + x ** 2), 0.4),
]


@pytest.mark.parametrize("text, plain, x", FUNCTIONS)
def test_float32_sweep_is_plain_numpy_float32(text, plain, x):
    sweep = diffcompare.step_sweep(text, {"x": x}, schemes="forward,central", precisions="float32")
    x32 = F32(x)
    for scheme, difference in (("forward", lambda h: (plain(x32 + h) - plain(x32)) / h),
                               ("central", lambda h: (plain(x32 + h) - plain(x32 - h)) / (2 * h))):
        curve = sweep.curve(scheme, "float32")
        for k, h in enumerate(sweep.steps):
            by_hand = difference(F32(h))
            assert isinstance(by_hand, np.float32)
            # the same float32 estimate: the same distance from the same exact derivative
            assert curve.abs_errors[k] == abs(float(by_hand) - sweep.exact) or \
                (np.isnan(curve.abs_errors[k]) and not np.isfinite(by_hand)), (scheme, h)


def test_the_single_precision_world_takes_numpys_scalar_power():
    # NumPy's float32 scalar power and np.power's loop round differently in the last bit for some
    # arguments (x ** 2 and x ** 0.5 on this kind of CPU): f in float32 is what `x ** 2` gives
    values = np.linspace(F32(0.01), F32(3.0), 20001, dtype=F32)
    square, root = make_problem("x**2", {"x": 1.0}), make_problem("x**0.5", {"x": 1.0})
    for v in values[::7]:
        assert square.evaluate("float32", {"x": v}) == v ** 2
        assert root.evaluate("float32", {"x": v}) == v ** 0.5
    differ = [v for v in values if np.power(v, F32(2)) != v ** 2]
    for v in differ:
        assert square.evaluate("float32", {"x": v}) == v ** 2


def test_a_sweep_where_numpys_two_powers_differ():
    # at a point where np.power(x, 2) and x ** 2 round apart in float32 (found here: the CPU decides),
    # every forward difference samples f(x) itself: the sweep must follow x ** 2
    values = np.linspace(F32(0.5), F32(2.0), 20001, dtype=F32)
    differ = [v for v in values if np.power(v, F32(2)) != v ** 2]
    if not differ:
        pytest.skip("NumPy's two float32 powers agree on this machine")
    test_float32_sweep_is_plain_numpy_float32("x**2 * sin(x)", lambda x: x ** 2 * np.sin(x), float(differ[0]))
