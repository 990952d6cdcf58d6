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


class _TwoOutputs(ag.Function):
    """(2x, 3x) with gradients not materialised: backward gets None for an undefined one.
    ``flaw``: what it does wrong when output 1's gradient is undefined and output 0's is zero
    (a case only the undefined-gradient check produces: the Jacobians seed one output at a
    time with a nonzero seed, the grad_output check passes zeros for both)."""
    flaw = None

    @staticmethod
    def forward(ctx, x):
        ctx.set_materialize_grads(False)
        return x * 2, x * 3

    @staticmethod
    def backward(ctx, g1, g2):
        if g2 is None and g1 is not None and not g1.numpy().any():
            if _TwoOutputs.flaw == "raises":
                raise RuntimeError("cannot handle an undefined gradient")
            if _TwoOutputs.flaw == "leaks":
                return ag.ones(2)               # a gradient out of nothing
        total = None
        for g, c in ((g1, 2.0), (g2, 3.0)):
            if g is not None:
                total = g * c if total is None else total + g * c
        return total


def test_undefined_output_grads_are_checked(monkeypatch):
    x = ag.tensor([0.5, 1.5], requires_grad=True)
    assert ag.gradcheck(_TwoOutputs.apply, (x,))
    monkeypatch.setattr(_TwoOutputs, "flaw", "raises")
    with pytest.raises(ag.GradcheckError, match="Expected backward function to handle undefined output grads"):
        ag.gradcheck(_TwoOutputs.apply, (x,))
    assert ag.gradcheck(_TwoOutputs.apply, (x,), check_undefined_grad=False)
    monkeypatch.setattr(_TwoOutputs, "flaw", "leaks")
    with pytest.raises(ag.GradcheckError, match="Expected all input grads to be undefined or zero"):
        ag.gradcheck(_TwoOutputs.apply, (x,))
    assert ag.gradcheck(_TwoOutputs.apply, (x,), check_undefined_grad=False)


def test_output_zero_of_a_two_output_function_used_alone():
    """Output 0 consumed alone: its producer gets (gradient, None), not the gradient split up."""
    x = ag.tensor([0.5, 1.5], requires_grad=True)
    a, _ = _TwoOutputs.apply(x)
    (g,) = ag.grad(a.sum(), x)
    assert g.numpy().tolist() == [2.0, 2.0]


def test_batched_grad_is_checked_against_one_backward_per_row(monkeypatch):
    """A batched rule that disagrees with the op's own rule is caught, and only when asked."""
    x = ag.tensor([0.5, -1.0, 2.0], requires_grad=True)
    assert ag.gradcheck(lambda t: t.exp() * t, (x,), check_batched_grad=True)
    monkeypatch.setattr(ag.ops.ExpBackward0, "batched_backward", lambda self, g, r: (2 * g * r,))
    assert ag.gradcheck(lambda t: t.exp() * t, (x,))
    with pytest.raises(ag.GradcheckError, match="For output 0 and input 0"):
        ag.gradcheck(lambda t: t.exp() * t, (x,), check_batched_grad=True)
    with pytest.raises(ag.GradcheckError, match="For output 0 and input 0"):
        ag.gradgradcheck(lambda t: t.exp() * t, (x,), check_batched_grad=True)


def test_options_the_engine_cannot_honour_are_refused():
    x = ag.tensor([0.5], requires_grad=True)
    with pytest.raises(NotImplementedError, match="check_batched_forward_grad=True: the engine's forward mode"):
        ag.gradcheck(ag.sin, (x,), check_batched_forward_grad=True)
    with pytest.raises(NotImplementedError, match="sparse"):
        ag.gradcheck(ag.sin, (x,), masked=True)
    with pytest.raises(ValueError, match="nothing to check"):
        ag.gradcheck(ag.sin, (x,), check_backward_ad=False, check_forward_ad=False)
    with pytest.raises(ValueError, match="nothing to check"):
        ag.gradgradcheck(ag.sin, (x,), check_rev_over_rev=False, check_fwd_over_rev=False)


class _WrongTangent(ag.Function):
    """sin with a right backward and a forward-mode rule off by a factor of 2."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        ctx.save_for_forward(x)
        return x.sin()

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * x.cos()

    @staticmethod
    def jvp(ctx, tangent):
        (x,) = ctx.saved_tensors
        return 2 * tangent * x.cos()


def test_check_forward_ad_checks_forward_mode():
    x = ag.tensor([0.5, -1.0, 2.0], dtype="float64", requires_grad=True)
    assert ag.gradcheck(lambda t: (t * t).sin() * t.exp(), (x,), check_forward_ad=True)
    assert ag.gradcheck(lambda t: t.tanh().sum(), (x,), check_forward_ad=True, check_backward_ad=False)
    # the backward is right, so only the forward check can see the wrong tangent rule
    assert ag.gradcheck(_WrongTangent.apply, (x,))
    with pytest.raises(ag.GradcheckError, match="Jacobian computed with forward mode mismatch for output 0"):
        ag.gradcheck(_WrongTangent.apply, (x,), check_forward_ad=True)
    # forward over reverse: H by forward mode through the backward graph
    assert ag.gradgradcheck(lambda t: (t ** 3).sum(), (x,), check_fwd_over_rev=True)
    # complex inputs are checked as their real and imaginary parts (test_gradcheck_complex_vs_torch)
    assert ag.gradcheck(ag.sin, (ag.tensor([0.5 + 1j], requires_grad=True),), check_forward_ad=True)


def test_grad_dtypes_and_non_contiguous_grad_outputs():
    x = ag.tensor([0.5, -1.0, 2.0], requires_grad=True)
    assert ag.gradcheck(lambda t: (t * t).sin(), (x,), check_grad_dtypes=True)
    assert ag.gradgradcheck(lambda t: (t * t).sin(), (x,), gen_non_contig_grad_outputs=True)
