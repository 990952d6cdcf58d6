"""Custom Functions and the functional API (spec sections 3 and 5)."""

import numpy as np
import pytest
from custom_ops import Square

from diffcompare import autograd as ag
from diffcompare.autograd import functional as F


class ScaleBy(ag.Function):
    """Two inputs, one a plain number; two outputs."""

    @staticmethod
    def forward(ctx, x, k):
        ctx.k = k
        y = x * k
        ctx.save_for_backward(y)
        return y, y * y

    @staticmethod
    def backward(ctx, g1, g2):
        (y,) = ctx.saved_tensors
        return (g1 + g2 * 2 * y) * ctx.k, None


def test_custom_function_first_and_second_order():
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    y = Square.apply(x)
    assert type(y.grad_fn).__name__ == "SquareBackward" and ctx_needs(y) == (True,)
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 4.0]
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    g, = ag.grad(Square.apply(x).sum(), x, create_graph=True)
    h, = ag.grad(g.sum(), x)
    assert h.tolist() == [2.0, 2.0]
    assert ag.gradcheck(Square.apply, (ag.tensor([0.3, -1.2], requires_grad=True),))


def ctx_needs(t):
    return t.grad_fn.needs_input_grad


def test_custom_function_several_outputs_and_constants():
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    y, z = ScaleBy.apply(x, 3.0)
    (y + z).sum().backward()     # d/dx (3x + 9x^2) = 3 + 18x
    assert x.grad.tolist() == [21.0, 39.0]
    assert ag.gradcheck(lambda t: ScaleBy.apply(t, 0.5), (ag.tensor([0.3, 1.1], requires_grad=True),))


def identity_with_backward(name, backward):
    """A custom Function named ``name`` computing x * 1, with the given (deliberately odd) backward."""
    return type(name, (ag.Function,), {"forward": staticmethod(lambda ctx, x: x * 1),
                                       "backward": staticmethod(backward)})


def test_custom_function_gradient_checks():
    Broadcasting = identity_with_backward("Broadcasting", lambda ctx, g: ag.ones(3, 2))
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    Broadcasting.apply(x).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]

    WrongSize = identity_with_backward("WrongSize", lambda ctx, g: ag.ones(1, 3))
    with pytest.raises(RuntimeError, match=r"Function WrongSizeBackward returned an invalid gradient at index 0 - got \[1, 3\] but expected shape compatible with \[2\]"):
        WrongSize.apply(ag.tensor([1.0, 2.0], requires_grad=True)).sum().backward()

    TooMany = identity_with_backward("TooMany", lambda ctx, g: (g, g))
    with pytest.raises(RuntimeError, match=r"function TooManyBackward returned an incorrect number of gradients \(expected 1, got 2\)"):
        TooMany.apply(ag.tensor([1.0], requires_grad=True)).sum().backward()

    NoGrad = identity_with_backward("NoGrad", lambda ctx, g: None)
    x = ag.tensor([1.0], requires_grad=True)
    NoGrad.apply(x).sum().backward()
    assert x.grad is None
    with pytest.raises(RuntimeError, match="appears to not have been used"):
        ag.grad(NoGrad.apply(x).sum(), x)


def test_wrong_backward_is_caught_by_gradcheck():
    class BadExp(ag.Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, g):
            (y,) = ctx.saved_tensors
            return g * y * 1.01

    x = ag.tensor([0.5, 0.1, -0.3], requires_grad=True)
    with pytest.raises(ag.GradcheckError) as err:
        ag.gradcheck(BadExp.apply, (x,))
    message = str(err.value)
    assert "Jacobian mismatch for output 0 with respect to input 0" in message
    assert "numerical:" in message and "analytical:" in message and "The worst element" in message
    assert not ag.gradcheck(BadExp.apply, (x,), raise_exception=False)
    with pytest.raises(ag.GradcheckError, match="computed \nin fast mode"):
        ag.gradcheck(BadExp.apply, (x,), fast_mode=True)


def test_functional_api():
    x = ag.tensor([1.0, 2.0])
    assert F.jacobian(lambda t: t ** 2, x).tolist() == [[2, 0], [0, 4]]
    assert F.jacobian(lambda t: (t ** 3).sum(), x).tolist() == [3, 12]
    m = ag.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert F.jacobian(lambda t: t @ t.T, m).shape == (2, 2, 2, 3)
    assert F.jacobian(lambda t: ag.ones(2), x).tolist() == [[0, 0], [0, 0]]
    with pytest.raises(RuntimeError, match="Output 0 of the user-provided function does not require gradients"):
        F.jacobian(lambda t: ag.ones(2), x, strict=True)
    ja, jb = F.jacobian(lambda a, b: a * b, (x, ag.tensor([3.0, 4.0])))
    assert ja.tolist() == [[3, 0], [0, 4]] and jb.tolist() == [[1, 0], [0, 2]]
    assert F.hessian(lambda t: (t ** 3).sum(), x).tolist() == [[6, 0], [0, 12]]
    with pytest.raises(RuntimeError, match="should contain a single element"):
        F.hessian(lambda t: t ** 3, x)
    out, v = F.vjp(lambda t: t ** 2, x, ag.tensor([1.0, 10.0]))
    assert out.tolist() == [1, 4] and v.tolist() == [2, 40]
    with pytest.raises(RuntimeError, match="The vector v can only be None"):
        F.vjp(lambda t: t ** 2, x)
    with pytest.raises(RuntimeError, match="input to the user-provided function is a single Tensor with a single element"):
        F.jvp(lambda t: t ** 2, x)
    out, jv = F.jvp(lambda t: ag.stack([t[0] * t[1], t[0].sin()]), x, ag.tensor([1.0, -1.0]))
    np.testing.assert_allclose(jv.numpy(), [2 - 1, np.cos(1.0)])    # J = [[x1, x0], [cos x0, 0]]
    value, hv = F.hvp(lambda t: (t ** 3).sum(), x, ag.tensor([1.0, 0.0]))
    assert value.item() == 9 and hv.tolist() == [6, 0]
    value, vh = F.vhp(lambda t: (t ** 3).sum(), x, ag.tensor([1.0, 0.0]))
    assert vh.tolist() == [6, 0]
    assert x.grad is None and not x.requires_grad


def test_functional_create_graph_gives_differentiable_results():
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    jac = F.jacobian(lambda t: t ** 3, x, create_graph=True)
    jac.sum().backward()
    assert x.grad.tolist() == [6.0, 12.0]          # d/dx sum(diag(3x^2))


def test_once_differentiable_backward_carries_no_graph():
    from diffcompare.autograd.function import once_differentiable

    class OnceSquare(Square):
        backward = staticmethod(once_differentiable(Square.backward))

    x = ag.tensor([3.0, -1.0], requires_grad=True)
    (g,) = ag.grad(OnceSquare.apply(x).sum(), x, create_graph=True)
    assert g.tolist() == [6.0, -2.0] and not g.requires_grad       # as PyTorch 2.13: no graph behind it
    with pytest.raises(RuntimeError, match="does not require grad"):
        ag.grad(g.sum(), x)


def test_only_inputs_false_warns_as_in_pytorch():
    x = ag.tensor([1.0], requires_grad=True)
    with pytest.warns(UserWarning, match="only_inputs argument is deprecated and is ignored now"):
        ag.grad((x * x).sum(), x, only_inputs=False)


def test_custom_function_gradient_count_as_pytorch():
    """Extra Nones after one gradient per input are dropped; fewer gradients than inputs
    (non-tensor inputs count) are refused, as PyTorch 2.13 does."""
    ExtraNones = identity_with_backward("ExtraNones", lambda ctx, g: (g * 2, None, None))
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    ExtraNones.apply(x).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]

    Fewer = type("Fewer", (ag.Function,), {"forward": staticmethod(lambda ctx, x, eps: x * 2),
                                           "backward": staticmethod(lambda ctx, g: (g * 2,))})
    with pytest.raises(RuntimeError, match=r"function FewerBackward returned an incorrect number of gradients "
                                           r"\(expected 2, got 1\)"):
        Fewer.apply(ag.tensor([1.0], requires_grad=True), 0.1).sum().backward()
