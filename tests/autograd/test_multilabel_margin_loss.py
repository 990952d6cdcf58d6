"""nn.MultiLabelMarginLoss / F.multilabel_margin_loss against PyTorch: values, gradients, grad_fn."""

import numpy as np
import pytest

from diffcompare import autograd as ag

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("target", [
    [[3, 0, -1, 1], [0, 1, 2, 3], [-1, 1, 2, 3]],     # ended by -1, all classes, none
    [[2, 2, -1, 0], [1, -1, -1, -1], [0, 3, -1, 2]],  # a repeated class
    [3, 0, -1, 1],                                   # unbatched
])
def test_against_pytorch(reduction, target):
    target = np.array(target)
    x = np.random.default_rng(7).standard_normal(target.shape)
    ours_x = ag.tensor(x, requires_grad=True)
    theirs_x = torch.tensor(x, requires_grad=True)
    ours = ag.nn.MultiLabelMarginLoss(reduction=reduction)(ours_x, ag.tensor(target))
    theirs = torch.nn.functional.multilabel_margin_loss(theirs_x, torch.tensor(target), reduction=reduction)
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-12, atol=1e-14)
    assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__
    g = np.random.default_rng(8).standard_normal(tuple(theirs.shape))
    ours.backward(ag.tensor(g))
    theirs.backward(torch.tensor(g))
    np.testing.assert_allclose(ours_x.grad.numpy(), theirs_x.grad.numpy(), rtol=1e-12, atol=1e-14)
