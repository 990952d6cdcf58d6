"""gradcheck's own behaviour (spec section 9): defaults, warnings, failures at known points."""

import numpy as np
import pytest

from diffcompare import autograd as ag


def test_defaults_match_pytorch():
    import inspect

    params = inspect.signature(ag.gradcheck).parameters
    assert (params["eps"].default, params["atol"].default, params["rtol"].default) == (1e-6, 1e-5, 1e-3)


def test_float32_warns_and_fails_then_passes_with_wider_tolerances():
    x = ag.tensor([0.5, -1.0, 2.0], dtype=ag.float32, requires_grad=True)
    with pytest.warns(UserWarning, match="Input #0 requires gradient and is not a double precision"):
        assert not ag.gradcheck(ag.sin, (x,), raise_exception=False)
    with pytest.warns(UserWarning):
        assert ag.gradcheck(ag.sin, (x,), eps=1e-3, atol=1e-2, rtol=1e-2)


def test_input_checks():
    with pytest.raises(ValueError, match="at least one input tensor to require gradient"):
        ag.gradcheck(ag.sin, (ag.tensor([1.0]),))
    x = ag.tensor([1.0], requires_grad=True).detach().expand(3).requires_grad_()
    with pytest.raises(RuntimeError, match="has a dimension with stride 0"):
        ag.gradcheck(ag.sin, (x,))
    assert ag.gradcheck(lambda a, k: a ** k, (ag.tensor([1.5], requires_grad=True), 3))


@pytest.mark.parametrize("fn,x,passes", [
    (lambda t: t.abs(), 0.0, True),               # numerical (eps - eps)/2eps = 0 = analytical
    (lambda t: t.relu(), 0.0, False),             # numerical 0.5 vs 0
    (lambda t: t.clamp(0, 1), 0.0, False),        # 0.5 vs 1
    (lambda t: t.clamp(0, 1), 1.0, False),
    (lambda t: t.sqrt(), 1e-7, False),            # x - eps < 0: nan
    (lambda t: t * t.detach(), 1.0, False),       # the detach hides a term
])
def test_non_differentiable_points(fn, x, passes):
    assert ag.gradcheck(fn, (ag.tensor([x], requires_grad=True),), raise_exception=False) is passes


def test_unused_input_and_no_differentiable_outputs():
    a, b = ag.tensor([1.0], requires_grad=True), ag.tensor([2.0], requires_grad=True)
    assert ag.gradcheck(lambda p, q: p * 2, (a, b))
    assert ag.gradcheck(lambda p: (p > 1).double(), (ag.tensor([0.5, 2.0], requires_grad=True),))


def test_backward_must_multiply_by_grad_output():
    class Ignores(ag.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return ag.full_like(g, 2.0)      # right only for g = 1

    with pytest.raises(ag.GradcheckError, match="backward not multiplied by grad_output"):
        ag.gradcheck(Ignores.apply, (ag.tensor([1.0], requires_grad=True),))   # Jacobian right for g = 1


def test_gradgradcheck_catches_detach_in_backward():
    from custom_ops import DetachedSquare  # its backward reads x detached: no second derivative
    x = ag.tensor([0.4, -0.7, 1.3], requires_grad=True)
    assert ag.gradcheck(DetachedSquare.apply, (x,))
    assert not ag.gradgradcheck(DetachedSquare.apply, (x,), raise_exception=False)


def test_numerical_jacobian_layout():
    from diffcompare.autograd.gradcheck import numerical_jacobian

    x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
    jac = numerical_jacobian(lambda t: (t[:2] * t[1:]), (x,))[0][0]
    # rows: input elements, columns: output elements; y0 = x0 x1, y1 = x1 x2
    np.testing.assert_allclose(jac, [[2, 0], [1, 3], [0, 2]], atol=1e-8)
