"""The one difference stencil: exact on polynomials up to each scheme's order, with the
truncation error worked out by hand beyond it; and every caller that forms central
differences (the finite-difference methods, gradcheck, the audit's gradcheck reference,
explain's check by differences) goes through it and gives the hand-written difference."""

import importlib

import numpy as np
import pytest

from diffcompare import autograd as ag
from diffcompare import stencil
from diffcompare.auditing import evaluate
from diffcompare.lecture.explain import explain
from diffcompare.methods import entries, finite_differences
from diffcompare.methods.finite_differences import SCHEMES
from diffcompare.problem.points import Points
from diffcompare.problem.problem import make_problem
from diffcompare.problem.tasks import make_task
from diffcompare.stencil import CENTRAL, STENCILS, combine, difference, reach, sample

gradcheck = importlib.import_module("diffcompare.autograd.gradcheck")     # the module, not the function

ORDERS = {"forward-difference": 1, "backward-difference": 1, "central-difference": 2, "five-point": 4, "richardson": 6}


def test_every_stencil_has_its_order():
    assert set(STENCILS) == set(ORDERS)
    for name, order in ORDERS.items():
        assert SCHEMES[name].order == order
        # Σ w o^k / k! is the coefficient of h^(k-1) f^(k): 1 for k = 1, 0 for the rest up to the order
        moments = [sum(w * o ** k for o, w in STENCILS[name]) for k in range(order + 2)]
        assert moments[:order + 1] == pytest.approx([0.0, 1.0] + [0.0] * (order - 1), abs=1e-12)
        assert abs(moments[order + 1]) > 1e-3, name


@pytest.mark.parametrize("name", sorted(ORDERS))
def test_polynomials_up_to_the_order_are_differentiated_exactly(name):
    # p(x) = Σ_k (k + 1) x^k up to the order, at x = 1.5: p'(x) = Σ_k k (k + 1) x^(k-1)
    order, x, h = ORDERS[name], 1.5, 0.25
    derivative = sum(k * (k + 1) * x ** (k - 1) for k in range(1, order + 1))
    got = difference(lambda step: sum((k + 1) * (x + step) ** k for k in range(order + 1)), h, STENCILS[name])
    assert got == pytest.approx(derivative, rel=1e-13)


@pytest.mark.parametrize("name, f, x, h, want", [
    ("forward-difference", lambda x: x ** 2, 1.5, 0.25, 2 * 1.5 + 0.25),                 # ((x+h)² - x²)/h = 2x + h
    ("backward-difference", lambda x: x ** 2, 1.5, 0.25, 2 * 1.5 - 0.25),                # 2x - h
    ("central-difference", lambda x: x ** 3, 1.0, 0.5, 3 + 0.5 ** 2),                    # 3x² + h²
    ("five-point", lambda x: x ** 5, 0.0, 0.5, -4 * 0.5 ** 4),                # -h⁴ f⁽⁵⁾/30 = -4h⁴
    # 64 D(h/4) - 20 D(h/2) + D(h) over 45 keeps (64/4⁶ - 20/2⁶ + 1)/45 = 1/64 of D's h⁶ f⁽⁷⁾/7! term
    ("richardson", lambda x: x ** 7, 0.0, 1.0, 1 / 64),
])
def test_the_first_error_beyond_the_order_is_the_one_derived_by_hand(name, f, x, h, want):
    assert difference(lambda step: f(x + step), h, STENCILS[name]) == pytest.approx(want, rel=1e-12, abs=1e-15)


def test_sampling_order_and_the_shared_centre():
    # f(x - h) before f(x + h), as PyTorch's gradcheck samples; a given centre is not evaluated again
    seen = []
    assert sample(lambda step: seen.append(step) or step, 0.5) == [-0.5, 0.5]
    assert seen == [-0.5, 0.5]
    assert sample(lambda step: 1 / 0, 2.0, STENCILS["forward-difference"][:1], centre=7.0) == [7.0]
    assert reach(STENCILS["backward-difference"]) == (1, 0) and reach(STENCILS["five-point"]) == (2, 2)


def test_central_differences_are_those_of_pytorch_also_for_subnormal_values():
    # (b - a) / 2h: the smallest subnormal is not halved (to 0) before the division
    tiny = np.float64(5e-324)
    assert combine([np.float64(0.0), tiny], 0.5) == tiny
    assert combine([np.float32(1.0), np.float32(1.5)], 0.25).dtype == np.float32     # in the samples' dtype


def test_the_schemes_stencils_are_the_shared_table():
    assert finite_differences.STENCILS is STENCILS
    assert SCHEMES["central-difference"].stencil is CENTRAL and SCHEMES["complex-step"].stencil is None


def _spy(monkeypatch, module, name="combine"):
    calls = []
    original = getattr(stencil, name)

    def spy(*args, **kwargs):
        calls.append(args)
        return original(*args, **kwargs)
    monkeypatch.setattr(module, name, spy)
    return calls


def test_gradcheck_is_the_central_stencil(monkeypatch):
    calls = _spy(monkeypatch, gradcheck)
    x = ag.tensor([0.5, 1.5], requires_grad=True)
    jac = gradcheck.numerical_jacobian(lambda t: t * t, (x,))[0][0]
    eps = 1e-6
    by_hand = [((v + eps) * (v + eps) - (v - eps) * (v - eps)) / (2 * eps) for v in (0.5, 1.5)]
    assert jac[0, 0] == by_hand[0] and jac[1, 1] == by_hand[1] and jac[0, 1] == jac[1, 0] == 0
    assert len(calls) == 2
    # float32: x ± eps and f rounded to float32, the difference too
    x32 = ag.tensor(np.array([0.5], dtype=np.float32), requires_grad=True)
    low, high = np.float32(0.5) - np.float32(eps), np.float32(0.5) + np.float32(eps)
    want = (high * high - low * low) / np.float32(2 * eps)
    assert gradcheck.numerical_jacobian(lambda t: t * t, (x32,))[0][0][0, 0] == want
    assert gradcheck.gradcheck(lambda t: t * t, (x,), fast_mode=True) and len(calls) == 4


def test_the_difference_methods_are_the_stencils(monkeypatch):
    calls = _spy(monkeypatch, entries, "difference")
    p = make_problem("x**3", {"x": 1.0})
    points = Points(np.array([[1.0], [2.0]]), "two points")
    task = make_task(p, "gradient")
    central = entries.fd_entries(p, task, points, "central-difference", step=0.5, batches=0).values
    assert central.ravel().tolist() == [3 * 1.0 + 0.25, 3 * 4.0 + 0.25]           # 3x² + h²
    q = make_problem("x**5", {"x": 0.0})
    five = entries.fd_entries(q, make_task(q, "gradient"), Points(np.zeros((1, 1)), "0"), "five-point", step=0.5,
                              batches=0).values
    assert five.ravel().tolist() == [-0.25]                                          # -4h⁴
    assert len(calls) == 2
    calls = _spy(monkeypatch, entries)
    rich = entries.fd_entries(p, task, points, "richardson", step=0.5, batches=0).values
    assert rich.ravel() == pytest.approx([3.0, 12.0], rel=1e-14)                    # exact on cubics
    assert len(calls) == 3                               # at h, h/2 and h/4, every point at once


def test_the_audits_gradcheck_reference_is_the_central_stencil(monkeypatch):
    calls = _spy(monkeypatch, evaluate)
    p = make_problem("x**2 * y", {"x": 0.5, "y": 2.0})
    flat = np.array([[0.5, 2.0], [1.5, -1.0]])
    got, sizes = evaluate.gradcheck_differences(p, make_task(p, "gradient"), flat, "float64", "diffcompare")
    eps = 1e-6
    for row, (x, y) in enumerate(flat):
        by_hand = [((x + eps) ** 2 * y - (x - eps) ** 2 * y) / (2 * eps),
                   (x ** 2 * (y + eps) - x ** 2 * (y - eps)) / (2 * eps)]
        assert got[row].tolist() == pytest.approx(by_hand, rel=1e-15)
    assert len(calls) == 2
    assert sizes.tolist() == pytest.approx([0.5 ** 2 * 2.0, 1.5 ** 2], rel=1e-5)


def test_explains_check_by_differences_is_the_central_stencil(monkeypatch):
    calls = _spy(monkeypatch, finite_differences, "difference")

    class Cube(ag.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * 3 * x ** 2

    e = explain(lambda x: Cube.apply(x) * 2.0, at={"x": 0.5}, check=True)
    cube = next(s for s in e.steps if s.name == "CubeBackward")
    # Richardson's three central differences of 2x³ at x = 0.5 (h = 2^-7, the scheme's step there)
    f, x, h = (lambda v: 2.0 * v ** 3), 0.5, 2.0 ** -7
    d = [(f(x + s) - f(x - s)) / ((x + s) - (x - s)) for s in (h, h / 2, h / 4)]
    r01, r12 = (4 * d[1] - d[0]) / 3, (4 * d[2] - d[1]) / 3
    assert float(cube.edges[0].reference) == (16 * r12 - r01) / 15
    assert float(cube.edges[0].reference) == pytest.approx(6 * x ** 2, rel=1e-14)
    assert cube.check == "ok" and {step for _, step in calls} == {h, h / 2, h / 4}
