"""Gradient conventions at special points: the spec's section 10 table, as exact expectations."""

import math

import numpy as np
import pytest

from diffcompare import autograd as ag

nan, inf = math.nan, math.inf

# expression of x -> gradient of its sum at x = -1, 0, 1 (float64)
TABLE = [
    ("abs", lambda x: x.abs(), [-1, 0, 1]),
    ("relu", lambda x: x.relu(), [0, 0, 1]),
    ("clamp(0,1)", lambda x: x.clamp(0, 1), [0, 1, 1]),
    ("clamp(min=0)", lambda x: x.clamp(min=0), [0, 1, 1]),
    ("clamp(max=0)", lambda x: x.clamp(max=0), [1, 1, 0]),
    ("clamp(1,1)", lambda x: x.clamp(1, 1), [0, 0, 1]),
    ("clamp(1,0)", lambda x: x.clamp(1, 0), [0, 0, 0]),
    ("maximum(x,0)", lambda x: ag.maximum(x, ag.zeros(3)), [0, 0.5, 1]),
    ("where(x>0,x,0)", lambda x: ag.where(x > 0, x, ag.zeros(3)), [0, 0, 1]),
    ("(x+|x|)/2", lambda x: (x + x.abs()) / 2, [0, 0.5, 1]),
    ("softplus", lambda x: ag.softplus(x), [0.2689414213699951, 0.5, 0.7310585786300049]),
    ("sign", lambda x: x.sign(), [0, 0, 0]),
    ("floor", lambda x: x.floor(), [0, 0, 0]),
    ("sqrt", lambda x: x.sqrt(), [nan, inf, 0.5]),
    ("x**0.5", lambda x: x ** 0.5, [nan, inf, 0.5]),
    ("x**(1/3)", lambda x: x ** (1 / 3), [nan, inf, 1 / 3]),
    ("rsqrt", lambda x: x.rsqrt(), [nan, -inf, -0.5]),
    ("log", lambda x: x.log(), [-1, inf, 1]),
    ("reciprocal", lambda x: x.reciprocal(), [-1, -inf, -1]),
    ("1/x", lambda x: 1 / x, [-1, -inf, -1]),
    ("x**-1", lambda x: x ** -1, [-1, -inf, -1]),
    ("x/x", lambda x: x / x, [0, nan, 0]),
    ("x**0", lambda x: x ** 0, [0, 0, 0]),
    ("x**0.0", lambda x: x ** 0.0, [0, 0, 0]),
    ("x**1", lambda x: x ** 1, [1, 1, 1]),
    ("x**1.5", lambda x: x ** 1.5, [nan, 0, 1.5]),
    ("x**2", lambda x: x ** 2, [-2, 0, 2]),
    ("x**tensor(2.)", lambda x: x ** ag.tensor(2.0), [-2, 0, 2]),
    ("x*log(x)", lambda x: x * x.log(), [nan, nan, 1]),
    ("sqrt(x**2)", lambda x: (x ** 2).sqrt(), [-1, nan, 1]),
    ("atan2(x,0)", lambda x: ag.atan2(x, ag.zeros(3)), [0, 0, 0]),
    ("cbrt", lambda x: x.cbrt(), [1 / 3, inf, 1 / 3]),
    ("hypot(x,0)", lambda x: ag.hypot(x, ag.zeros(3)), [-1, nan, 1]),
    ("tanh", lambda x: x.tanh(), [0.41997434161402614, 1, 0.41997434161402614]),
]


@pytest.mark.parametrize("name,fn,expected", TABLE, ids=[t[0] for t in TABLE])
def test_convention(name, fn, expected):
    x = ag.tensor([-1.0, 0.0, 1.0], requires_grad=True)
    fn(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-12, equal_nan=True)


def test_reductions_at_special_points():
    for values, expected in (([1.0, 3.0, 3.0, 2.0], [0, 0.5, 0.5, 0]),):
        for reduce in (lambda t: t.max(), lambda t: t.amax(), lambda t: t.amax(0)):
            x = ag.tensor(values, requires_grad=True)
            reduce(x).backward()
            assert x.grad.tolist() == expected          # ties share evenly
    x = ag.tensor([1.0, 3.0, 3.0, 2.0], requires_grad=True)
    x.max(0).values.backward()
    assert x.grad.tolist() == [0, 1, 0, 0]              # the returned index only
    x = ag.zeros(3, requires_grad=True)
    x.norm().backward()
    assert x.grad.tolist() == [0, 0, 0]                 # sub-gradient 0
    x = ag.zeros(3, requires_grad=True)
    (x * x).sum().sqrt().backward()
    assert np.isnan(x.grad.numpy()).all()               # the hand-written norm: 0 * inf
    x = ag.full((3,), 2.0, requires_grad=True)
    x.std().backward()
    assert x.grad.tolist() == [0, 0, 0]
    for values, expected in (([0.0, 2.0], [2, 0]), ([0.0, 0.0, 2.0], [0, 0, 0])):
        x = ag.tensor(values, requires_grad=True)
        x.prod().backward()
        assert x.grad.tolist() == expected


@pytest.mark.parametrize("base,exponent,dx,dy", [
    (0.0, 0.0, 0, 0), (0.0, 2.0, 0, 0), (0.0, 0.5, inf, 0), (0.0, -1.0, -inf, -inf),
    (-2.0, 2.0, -4, nan), (-2.0, 3.0, 12, nan), (-2.0, 0.5, nan, nan)])
def test_pow_with_tensor_exponent(base, exponent, dx, dy):
    x, y = ag.tensor(base, requires_grad=True), ag.tensor(exponent, requires_grad=True)
    (x ** y).backward()
    np.testing.assert_allclose([x.grad.item(), y.grad.item()], [dx, dy], equal_nan=True)


def test_scalar_base_pow():
    y = ag.tensor([0.0, 1.0, 2.0], requires_grad=True)
    (0.0 ** y).sum().backward()
    assert y.grad.tolist() == [0, 0, 0]
    y = ag.tensor([0.0, 1.0, 2.0], requires_grad=True)
    ((-2.0) ** y).sum().backward()
    assert np.isnan(y.grad.numpy()).all()


def test_where_nan_trap_and_double_where_fix():
    x = ag.tensor([-1.0, 0.0, 4.0], requires_grad=True)
    out = ag.where(x > 0, x.sqrt(), ag.zeros(3))
    assert out.tolist() == [0, 0, 2]
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [nan, nan, 0.25], equal_nan=True)
    x = ag.tensor([-1.0, 0.0, 4.0], requires_grad=True)
    safe = ag.where(x > 0, x, ag.ones(3))
    ag.where(x > 0, safe.sqrt(), ag.zeros(3)).sum().backward()
    assert x.grad.tolist() == [0, 0, 0.25]
    x = ag.tensor([0.0, 2.0], requires_grad=True)
    ag.where(x == 0, ag.ones(2), x.sin() / x).sum().backward()
    assert np.isnan(x.grad.numpy()[0])
    np.testing.assert_allclose(x.grad.numpy()[1], (2 * math.cos(2) - math.sin(2)) / 4)


def test_clamp_with_tensor_bounds_tie():
    x, lo = ag.tensor([0.0, -1.0], requires_grad=True), ag.tensor([0.0, 0.0], requires_grad=True)
    x.clamp(lo, None).sum().backward()
    assert x.grad.tolist() == [1, 0] and lo.grad.tolist() == [0, 1]


BROADCAST = [
    ((3, 1), (1, 4), lambda a, b: a + b, None, [[4], [4], [4]], [[3, 3, 3, 3]]),
    ((2, 1, 3), (4, 1), lambda a, b: a + b, np.arange(24.0).reshape(2, 4, 3),
     [[[18, 22, 26]], [[66, 70, 74]]], [[42], [60], [78], [96]]),
]


@pytest.mark.parametrize("sa,sb,fn,upstream,ga,gb", BROADCAST)
def test_broadcast_gradients_sum_back(sa, sb, fn, upstream, ga, gb):
    a, b = ag.ones(*sa, requires_grad=True), ag.ones(*sb, requires_grad=True)
    out = fn(a, b)
    out.backward(ag.tensor(upstream) if upstream is not None else ag.ones(*out.shape))
    assert a.grad.tolist() == ga and b.grad.tolist() == gb


def test_broadcast_values():
    a = ag.tensor([[1.0], [2.0], [3.0]], requires_grad=True)
    b = ag.tensor([1.0, 10.0, 100.0, 1000.0], requires_grad=True)
    (a * b).sum().backward()
    assert a.grad.tolist() == [[1111]] * 3 and b.grad.tolist() == [6, 6, 6, 6]
    s, o = ag.tensor(2.0, requires_grad=True), ag.ones(2, 3, requires_grad=True)
    (s * o).sum().backward()
    assert s.grad.shape == () and s.grad.item() == 6 and o.grad.tolist() == [[2] * 3] * 2
    a, b = ag.tensor([1.0, 2.0], requires_grad=True), ag.tensor(5.0, requires_grad=True)
    (a ** b).sum().backward()
    assert a.grad.tolist() == [5, 80]
    np.testing.assert_allclose(b.grad.item(), 32 * math.log(2))     # sum a^b ln a
