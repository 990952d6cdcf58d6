"""Ops PyTorch records without a derivative (histogram, unique, unique_consecutive): their
values, the node recorded where the input requires grad, and the error backward gives, as in
PyTorch 2.13 (the messages are PyTorch's, compared with it where it is installed)."""

from __future__ import annotations

import numpy as np
import pytest

from diffcompare import autograd as ag

CASES = {
    "histogram": (lambda m, x: m.histogram(x, 4).hist, "torch::autograd::NotImplemented",
                  "derivative for aten::histogram is not implemented"),
    "histogram edges": (lambda m, x: m.histogram(x, 4).bin_edges, "torch::autograd::NotImplemented",
                        "derivative for aten::histogram is not implemented"),
    "unique": (lambda m, x: m.unique(x), "Unique2Backward0", "the derivative for '_unique2' is not implemented."),
    "unique_consecutive": (lambda m, x: m.unique_consecutive(x), "UniqueConsecutiveBackward0",
                           "the derivative for 'unique_consecutive' is not implemented."),
}
VALUES = [0.5, 0.5, 2.0, -1.0, 3.5, 3.5, 0.0]


@pytest.mark.parametrize("label", list(CASES))
def test_recorded_and_refused(label):
    op, node, message = CASES[label]
    x = ag.tensor(VALUES, requires_grad=True)
    out = op(ag, x)
    assert out.requires_grad and out.grad_fn.name() == node
    with pytest.raises(RuntimeError, match=f"^{message}$".replace("(", r"\(").replace(")", r"\)")):
        out.sum().backward()
    assert not op(ag, ag.tensor(VALUES)).requires_grad          # nothing recorded for a constant


def test_values_by_hand():
    x = ag.tensor(VALUES)
    assert ag.unique(x).tolist() == [-1.0, 0.0, 0.5, 2.0, 3.5]
    assert ag.unique_consecutive(x).tolist() == [0.5, 2.0, -1.0, 3.5, 0.0]
    hist, edges = ag.histogram(x, 3)            # bins of width 1.5 from -1 to 3.5
    assert edges.tolist() == [-1.0, 0.5, 2.0, 3.5] and hist.tolist() == [2.0, 2.0, 3.0]


@pytest.mark.parametrize("label", list(CASES))
def test_as_pytorch(label):
    torch = pytest.importorskip("torch")
    op, node, message = CASES[label]
    theirs = op(torch, torch.tensor(VALUES, dtype=torch.float64, requires_grad=True))
    mine = op(ag, ag.tensor(VALUES, requires_grad=True))
    assert np.array_equal(mine.detach().numpy(), theirs.detach().numpy())
    assert theirs.grad_fn.name() == node
    with pytest.raises(RuntimeError) as error:
        theirs.sum().backward()
    assert str(error.value) == message
