"""One small fixed sample of each kind of gradient bug that really ships (the benchmark
benchmarks/real_bug_detection.py measures the whole corpus): each wrong rule beside its
fix, at the point where users meet it, with the right answer derived by hand here."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

import diffcompare
from diffcompare import autograd as ag
from diffcompare.functions import max as fmax
from diffcompare.functions import sin, sqrt
from diffcompare.problem.errors import InputError


class NormSquared(ag.Function):
    """sqrt(x² + y²)²: the norm's backward through sqrt, x/r, is 0/0 at the origin."""
    @staticmethod
    def forward(ctx, x, y):
        r = sqrt(x * x + y * y)
        ctx.save_for_backward(x, y, r)
        return r * r

    @staticmethod
    def backward(ctx, g):
        x, y, r = ctx.saved_tensors
        return g * 2 * r * (x / r), g * 2 * r * (y / r)


class NormSquaredFixed(NormSquared):
    @staticmethod
    def backward(ctx, g):
        x, y, r = ctx.saved_tensors
        return g * 2 * x, g * 2 * y


class Abs(ag.Function):
    """|x| with the backward x/|x|: nan at the kink."""
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return abs(x)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * x / abs(x)


class AbsFixed(Abs):
    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * ag.sign(x)


class Max2(ag.Function):
    """max(x, y) whose backward gives the whole gradient to every maximal input."""
    @staticmethod
    def forward(ctx, x, y):
        ctx.save_for_backward(x, y)
        return fmax(x, y)

    @staticmethod
    def backward(ctx, g):
        x, y = ctx.saved_tensors
        return g * (x >= y), g * (y >= x)


class Max2Fixed(Max2):
    @staticmethod
    def backward(ctx, g):
        x, y = ctx.saved_tensors
        tie = (x == y) * 0.5
        return g * ((x > y) + tie), g * ((y > x) + tie)


class Prod(ag.Function):
    """prod(x) with the backward prod/x: nan at a zero element."""
    @staticmethod
    def forward(ctx, x):
        out = x.prod()
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx, g):
        x, out = ctx.saved_tensors
        return g * out / x


class ProdFixed(Prod):
    @staticmethod
    def backward(ctx, g):
        (x, _) = ctx.saved_tensors
        n = x.shape[0]
        return g * ag.stack([ag.cat([x[:i], x[i + 1:]]).prod() for i in range(n)])


def norm_squared(x, y):
    return NormSquared.apply(x, y)


def norm_squared_fixed(x, y):
    return NormSquaredFixed.apply(x, y)


# -- nan where f is differentiable --------------------------------------------------------------

def test_nan_at_a_special_point_where_f_is_differentiable_fails_and_its_fix_passes():
    # f = x² + y²: the gradient at the origin is (0, 0), by hand
    wrong = diffcompare.audit(norm_squared, at=[{"x": 0.0, "y": 0.0}], adversarial=False)
    assert wrong.cases[0].status == "fail" and wrong.exit_status == 1
    point = wrong.cases[0].points[0]
    assert point.reference == [0.0, 0.0] and "differentiable" in point.reason
    right = diffcompare.audit(norm_squared_fixed, at=[{"x": 0.0, "y": 0.0}], adversarial=False)
    assert right.cases[0].status == "pass" and right.exit_status == 0


def test_the_reference_does_not_stop_at_the_formulas_indeterminate_form():
    # x**y at x = 0: f(0, y) = 0 near y = 2, so ∂f/∂y = 0; ∂f/∂x = y x^(y-1) = 0 (by hand).
    # SymPy's formulas are 0/0 and 0·(-∞) there: the symbolic method's nan is wrong
    c = diffcompare.compare("x**y", at={"x": 0.0, "y": 2.0}, methods="autograd,symbolic", repeat=1)
    assert c.reference.high[0].tolist() == [0.0, 0.0]
    assert c.method("autograd").verdict == "pass" and c.method("symbolic").verdict == "fail"


# -- nan at a kink -----------------------------------------------------------------------------------

def test_nan_at_a_kink_fails_and_a_subgradient_passes():
    # |x| at 0: one-sided derivatives -1 and 1 (by hand); sign(0) = 0 lies between, nan does not
    wrong = diffcompare.audit(lambda x: Abs.apply(x), at=[{"x": 0.0}], adversarial=False)
    assert wrong.cases[0].status == "fail"
    right = diffcompare.audit(lambda x: AbsFixed.apply(x), at=[{"x": 0.0}], adversarial=False)
    assert right.cases[0].status == "pass"
    assert right.cases[0].points[0].verdict == "subgradient"


# -- ties counted twice ----------------------------------------------------------------------------

def test_a_tie_counted_twice_fails_though_each_entry_lies_in_its_interval():
    # max(x, y) at x = y = 1: along (1, 1) f grows by exactly 1, so a subgradient's entries add
    # up to 1 (by hand); (1, 1) adds up to 2, (0.5, 0.5) to 1
    wrong = diffcompare.audit(lambda x, y: Max2.apply(x, y), at=[{"x": 1.0, "y": 1.0}], adversarial=False)
    assert wrong.cases[0].status == "fail" and "add up" in wrong.cases[0].points[0].reason
    right = diffcompare.audit(lambda x, y: Max2Fixed.apply(x, y), at=[{"x": 1.0, "y": 1.0}], adversarial=False)
    assert right.cases[0].status == "pass"


# -- one odd element --------------------------------------------------------------------------------

def test_one_zero_element_among_ordinary_ones_is_tried_and_caught():
    # prod(x)'s gradient at x = (0, a, b) is (ab, 0, 0), by hand; prod/x is 0/0 at the zero
    wrong = diffcompare.audit(lambda x: Prod.apply(x), domain={"x": (-2.0, 2.0)}, shape={"x": [3]}, points=2)
    case = wrong.cases[0]
    assert case.status == "fail"
    failing = [p for p in case.points if p.verdict == "wrong"]
    assert any(p.point["x"].count(0.0) == 1 and "the others ordinary" in p.origin for p in failing)
    x = [0.0, 1.5, 0.75]
    assert diffcompare.audit(lambda x: ProdFixed.apply(x), at=[{"x": x}]).cases[0].points[0].reference == \
        [1.5 * 0.75, 0.0, 0.0]


# -- tiny and saturating scales, jumps ---------------------------------------------------------------

def sinc(x):
    return sin(x) / x if x != 0 else 1.0


@pytest.mark.parametrize("x", [3.05e-151, -3.05e-151])
def test_a_branchy_function_at_a_tiny_point_gets_its_true_derivative(x):
    # sinc(x) = 1 - x²/6 + x⁴/120 - ...: sinc'(x) = -x/3 + x³/30, which is -x/3 to 1e-300 here
    c = diffcompare.compare(sinc, at={"x": x}, methods="autograd", repeat=1)
    assert float(c.reference.value("x")) == pytest.approx(-x / 3, rel=1e-15)


def test_a_jump_has_no_derivative_to_judge():
    c = diffcompare.compare(lambda x: 1.0 if x > 0 else 0.0, at={"x": 0.0}, methods="central-difference", repeat=1)
    finding = c.reference.finding("x")
    assert finding.kind == "singular" and c.reference.value("x") is None


def test_saturation_is_decided_by_more_digits_not_called_uncertain():
    x = -184.61094599530887
    c = diffcompare.compare("tanh(x)", at={"x": x}, methods="autograd", repeat=1)
    with mpmath.workdps(80):
        exact = 1 / mpmath.cosh(mpmath.mpf(x)) ** 2
    assert c.reference.uncertain == {} and float(c.reference.value("x")) == pytest.approx(float(exact), rel=1e-20)


def test_a_three_variable_reference_takes_milliseconds_not_a_time_out():
    at = {"x": 2.4260055062371038, "y": 1.962532805991824, "z": 2.3011056939145034}
    c = diffcompare.compare("erf(sin(x/y)*tanh(z**y))", at=at, methods="autograd", repeat=1)
    assert c.reference.available and c.reference.seconds < 2.0
    assert c.method("autograd").verdict == "pass"


# -- the same verdict in any company, never silent ---------------------------------------------------

def test_a_point_gets_the_same_verdict_alone_and_in_a_batch():
    alone = diffcompare.audit(norm_squared, at=[{"x": 0.0, "y": 0.0}], adversarial=False).cases[0].points[0]
    batch = diffcompare.audit(norm_squared, at=[{"x": 0.5, "y": 2.0}, {"x": 0.0, "y": 0.0}],
                              adversarial=False).cases[0].points[1]
    assert (alone.verdict, alone.reason, alone.reference) == (batch.verdict, batch.reason, batch.reference)


def test_assert_gradients_says_which_asked_point_could_not_be_decided():
    with pytest.raises(AssertionError, match="could not be decided at 1 of the 2 points"):
        diffcompare.testing.assert_gradients("sqrt(x)", at=[{"x": 0.0}, {"x": 1.0}])
    diffcompare.testing.assert_gradients("sqrt(x)", at=[{"x": 0.0}, {"x": 1.0}], allow_undecided=True)


def test_a_complex_user_gradient_is_bad_input_in_every_route():
    def g(x):
        return np.cos(x) + 0.5j
    with pytest.raises(InputError, match="complex"):
        diffcompare.compare(lambda x: np.sin(x), at={"x": 0.5}, gradient=g, repeat=1)
    assert diffcompare.audit(lambda x: np.sin(x), gradient=g, at={"x": 0.5}).cases[0].status == "error"
    with pytest.raises(ValueError, match="complex"):
        diffcompare.testing.assert_gradients(lambda x: np.sin(x), at={"x": 0.5}, gradient=g)


def test_many_drawn_points_of_a_smooth_function_do_not_exit_4_for_an_undecidable_entry():
    c = diffcompare.compare("sin(x)*exp(y)", box="x=-2:2,y=-2:2", points=300, seed=0, repeat=1,
                            methods="autograd,central-difference,five-point")
    assert c.exit_status == 0, c.verdicts()
    assert math.isfinite(c.method("central-difference").judgement.numbers.get("judged", math.nan))
