"""In-place operations and the version counter (spec sections 4 and 6)."""

import numpy as np
import pytest

from diffcompare import autograd as ag

MODIFIED = "one of the variables needed for gradient computation has been modified by an inplace operation"


def vec(*values):
    return ag.tensor(list(values), requires_grad=True)


@pytest.mark.parametrize("program", [
    lambda x: (lambda y: (y.add_(1), y.sum()))(x.exp())[1],
    lambda x: (lambda y: (lambda z: (y.mul_(2), z.sum()))(y * y)[1])(x * 1),
    lambda x: (lambda z: (z.mul_(2), z.sum()))(x.sigmoid())[1],
    lambda x: (lambda out: (out.__iadd__(1), out.sum()))((x.reshape(1, 2) @ ag.ones(2, 2)).relu())[1],
    lambda x: (lambda y: (y.detach().add_(1), y.sum()))(x.exp())[1],
])
def test_modified_saved_tensor_is_caught(program):
    x = vec(1.0, 2.0)
    loss = program(x)
    with pytest.raises(RuntimeError, match=MODIFIED):
        loss.backward()


def test_error_message_names_producer_and_versions():
    x = vec(1.0, 2.0)
    y = x.exp()
    y.add_(1)
    with pytest.raises(RuntimeError, match=r"\[torch.DoubleTensor \[2\]\], which is output 0 of Exp, is at version 1; expected version 0"):
        y.sum().backward()


def test_modified_constant_operand():
    x, c = vec(1.0, 2.0), ag.tensor([1.0, 1.0])
    y = (x * c).sum()
    c.add_(1)
    with pytest.raises(RuntimeError, match=MODIFIED):
        y.backward()


def test_version_counts_under_no_grad():
    x = vec(1.0, 2.0)
    y = x.exp()
    with ag.no_grad():
        y.add_(1)
    with pytest.raises(RuntimeError, match=MODIFIED):
        y.sum().backward()
    x = vec(1.0, 2.0)
    y = (x * x).sum()
    with ag.no_grad():
        x.add_(1)
    assert x._version == 1
    with pytest.raises(RuntimeError, match="is at version 1; expected version 0"):
        y.backward()


def test_inplace_that_is_safe_gives_right_gradients():
    x = vec(1.0, 2.0)
    y = x * 1
    z = y + y            # Add saves nothing
    y.mul_(2)
    z.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]
    x = vec(1.0, 2.0)
    y = x * 1
    y.exp_()             # rewrites y's history: d/dx e^x
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.exp([1.0, 2.0]))
    x = vec(1.0, 2.0)
    y = x * 1
    y[0].mul_(3)         # through a view of a non-leaf
    y.sum().backward()
    assert x.grad.tolist() == [3.0, 1.0]


def test_setitem_records_copy_slices():
    x = vec(1.0, 2.0)
    y = x * 1
    y[0] = 5.0
    assert type(y.grad_fn).__name__ == "CopySlices"
    y.sum().backward()
    assert x.grad.tolist() == [0.0, 1.0]
    x, v = vec(1.0, 2.0, 3.0), ag.tensor(4.0, requires_grad=True)
    y = x * 2
    y[[0, 2]] = v
    assert type(y.grad_fn).__name__ == "IndexPutBackward0"
    (y * y).sum().backward()
    assert x.grad.tolist() == [0.0, 16.0, 0.0] and v.grad.item() == 16.0   # 2y*2 = 2*4*2 at 1; 2v twice


def test_leaf_in_place_rules():
    w = vec(1.0, 2.0)
    for action in (lambda: w.add_(1), lambda: w.zero_(), lambda: w.__isub__(0.1)):
        with pytest.raises(RuntimeError, match="^a leaf Variable that requires grad is being used in an in-place operation.$"):
            action()
    with pytest.raises(RuntimeError, match="a view of a leaf Variable"):
        w[0] = 5.0
    with pytest.raises(RuntimeError, match="a view of a leaf Variable"):
        w.view(2).add_(1)
    with ag.no_grad():
        w -= 0.1 * ag.ones(2)
        w.mul_(2)
    np.testing.assert_allclose(w.detach().numpy(), [1.8, 3.8])
    assert w.is_leaf and w.grad_fn is None and w.requires_grad


def test_inplace_cannot_grow_and_constant_becomes_non_leaf():
    y = vec(1.0, 2.0) * 1
    with pytest.raises(RuntimeError, match=r"output with shape \[2\] doesn't match the broadcast shape \[3, 2\]"):
        y += ag.ones(3, 2)
    x, c = vec(1.0, 2.0), ag.tensor([1.0, 1.0])
    c.add_(x)
    assert not c.is_leaf and type(c.grad_fn).__name__ == "AddBackward0"
    (c * c).sum().backward()
    assert x.grad.tolist() == [4.0, 6.0]     # 2(1 + x)


def test_inplace_multiply_by_tensor_uses_the_old_value():
    x, w = vec(1.0, 2.0), vec(3.0, 4.0)
    y = x * 1
    y.mul_(w)            # y = x w
    y.sum().backward()
    assert x.grad.tolist() == [3.0, 4.0] and w.grad.tolist() == [1.0, 2.0]


def test_copy_and_fill():
    x = vec(1.0, 2.0)
    y = ag.zeros(2)
    y.copy_(x * 3)
    y.sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]
    t = ag.zeros(3)
    t.fill_(2.5)
    assert t.tolist() == [2.5, 2.5, 2.5] and t._version == 1
