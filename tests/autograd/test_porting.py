"""Code written for PyTorch runs when its imports name diffcompare.autograd instead of torch
(issue: ``import diffcompare.autograd.autograd`` was a ModuleNotFoundError). The values are
checked by hand."""

import diffcompare.autograd.autograd as autograd
import diffcompare.autograd.nn.functional as F
from diffcompare import autograd as torch
from diffcompare.autograd.autograd import Function, grad
from diffcompare.autograd.autograd.functional import hessian, jacobian


class Cube(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * 3 * x ** 2


def test_torch_style_imports_run_a_custom_function_grad_and_the_functional_api():
    x = torch.tensor([1.0, -2.0], requires_grad=True)
    (g,) = grad(Cube.apply(x).sum(), x)
    assert g.tolist() == [3.0, 12.0]                                  # 3x²
    assert autograd.grad is grad and autograd.Function is Function
    assert jacobian(lambda t: t * t, torch.tensor([1.0, 3.0])).tolist() == [[2.0, 0.0], [0.0, 6.0]]
    assert hessian(lambda t: (t ** 3).sum(), torch.tensor([2.0])).tolist() == [[12.0]]        # 6x
    loss = F.mse_loss(torch.tensor([1.0, 3.0]), torch.tensor([0.0, 1.0]))
    assert loss.item() == (1 + 4) / 2
    assert F.relu(torch.tensor([-1.0, 2.0])).tolist() == [0.0, 2.0]
    with autograd.no_grad():
        assert not (x * 2).requires_grad
