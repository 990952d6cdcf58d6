"""A view whose base (or another view of it) is written in place takes its history again from the
base (``AsStridedBackward0``), as PyTorch does on reading ``grad_fn``; views made in no_grad mode
and views an op returned several of are refused PyTorch's way; ``diagonal`` and ``as_strided``
are views that write through. Gradients are checked against values worked out by hand, and the
node names, messages and gradients against PyTorch where it is installed."""

from __future__ import annotations

import numpy as np
import pytest

from diffcompare import autograd as ag


def _chain(t):
    """The names of the nodes from ``t`` down its first inputs."""
    names, fn = [], t.grad_fn
    while fn is not None and type(fn).__name__ != "AccumulateGrad":
        names.append(type(fn).__name__)
        fn = fn.next_functions[0][0] if fn.next_functions else None
    return names


def test_view_of_a_base_written_in_place_takes_the_new_history():
    """y = base[:, 2] with base = w * 1, then base *= 2: d sum(c * y)/dw = 2 c in column 2.
    The view's old history (SelectBackward0 then MulBackward0) would give c."""
    w = ag.ones(3, 5, requires_grad=True)
    base = w * 1
    y = base[:, 2]
    base.mul_(2)
    assert _chain(y) == ["AsStridedBackward0", "MulBackward0", "MulBackward0"]
    (y * ag.tensor([0.0, 1.0, 2.0])).sum().backward()
    expected = np.zeros((3, 5))
    expected[:, 2] = [0.0, 2.0, 4.0]
    assert np.array_equal(w.grad.numpy(), expected)


def test_sibling_view_sees_a_write_through_another_view():
    """column = base[:, 2] after base[0] *= 3: row 0 of the column is 3 w, the rest w."""
    w = ag.ones(3, 5, requires_grad=True)
    base = w * 1
    column = base[:, 2]
    base[0].mul_(3)
    assert _chain(column)[:2] == ["AsStridedBackward0", "CopySlices"]
    (column * ag.tensor([1.0, 2.0, 3.0])).sum().backward()
    expected = np.zeros((3, 5))
    expected[:, 2] = [3.0, 2.0, 3.0]
    assert np.array_equal(w.grad.numpy(), expected)


def test_view_of_a_view_and_a_written_view_itself():
    w = ag.ones(4, 3, requires_grad=True)
    base = w * 1
    rows = base[1:]
    element = rows[0]
    rows.add_(1)                            # written through the outer view
    assert _chain(element)[0] == "AsStridedBackward0" and _chain(rows)[0] == "AsStridedBackward0"
    (element * 5).sum().backward()           # element = w[1] + 1: the gradient 5 on row 1
    expected = np.zeros((4, 3))
    expected[1] = 5.0
    assert np.array_equal(w.grad.numpy(), expected)


def test_leaf_changed_by_an_optimizer_step_renames_its_views_only():
    w = ag.ones(2, 3, requires_grad=True)
    column = w[:, 1]
    with ag.no_grad():
        w.mul_(3)
    assert _chain(column) == ["AsStridedBackward0"]
    assert type(column.grad_fn.next_functions[0][0]).__name__ == "AccumulateGrad"
    (column * 2).sum().backward()
    assert np.array_equal(w.grad.numpy(), [[0, 2, 0], [0, 2, 0]])


def test_view_of_a_constant_base_that_copies_a_tensor_with_history():
    """Before, the view kept requires_grad=False and its gradient was lost."""
    w = ag.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    b = ag.zeros(2, 2)
    first_column = b[:, 0]
    b.copy_(w * w)
    assert first_column.requires_grad and _chain(first_column)[:2] == ["AsStridedBackward0", "CopyBackwards"]
    first_column.sum().backward()
    assert np.array_equal(w.grad.numpy(), [[2.0, 0.0], [6.0, 0.0]])      # d(w^2)/dw = 2w in column 0


def test_history_recorded_before_the_write_stays_as_it_was():
    w = ag.ones(3, requires_grad=True)
    base = w * 1
    y = base[1:] * 3
    base.add_(1)
    y.sum().backward()
    assert np.array_equal(w.grad.numpy(), [0.0, 3.0, 3.0])
    assert _chain(y)[:2] == ["MulBackward0", "SliceBackward0"]


def test_a_view_written_into_its_own_base_is_taken_with_the_history_it_was_read_with():
    """R[2, 2] = R[1, 1] (ADBench's rotation matrices): the value is a view of R read before the
    write, so the write's CopySlices takes its select history, as PyTorch's copy does, not a
    history made again from R after the write. Afterwards the same view, read again, is stale
    (R changed under it) and does take the new history. d/dt of sum(R * k) for
    R = eye with R[1, 1] = cos t, R[2, 2] = R[1, 1]: -(k11 + k22) sin t."""
    t = ag.tensor(0.3, requires_grad=True)
    R = ag.eye(3)
    R[1, 1] = ag.cos(t)
    v = R[1, 1]
    R[2, 2] = v
    node = R.grad_fn
    assert [type(f).__name__ for f, _ in node.next_functions] == ["CopySlices", "SelectBackward0"]
    assert type(v.grad_fn).__name__ == "AsStridedBackward0"
    (R * ag.arange(9.0).reshape(3, 3)).sum().backward()
    assert float(t.grad) == pytest.approx(-(4.0 + 8.0) * np.sin(0.3), rel=1e-15)


@pytest.mark.parametrize("split, name, index", [(lambda t: t.unbind(0), "Unbind", 1),
                                                 (lambda t: t.split(1), "Split", 1),
                                                 (lambda t: t.chunk(3), "Split", 2)])
def test_views_of_a_multi_output_op_are_refused(split, name, index):
    w = ag.ones(3, 2, requires_grad=True)
    base = w * 1
    piece = split(base)[index]
    base.add_(1)
    with pytest.raises(RuntimeError, match=f"^Output {index} of {name} is a view and its base or another view of its "
                                           "base has been modified inplace. This view is the output of a function"):
        piece.grad_fn
    assert f"{piece!r}".endswith("grad_fn=<Invalid>)")
    with ag.no_grad():
        assert not (piece * 2).requires_grad        # using it without recording is allowed
    other = split(w * 1)[index]
    with pytest.raises(RuntimeError, match=f"^Output {index} of {name} is a view and is being modified inplace"):
        other.mul_(2)


def test_view_made_in_no_grad_mode():
    w = ag.ones(3, requires_grad=True)
    with ag.no_grad():
        v = w[:2]
    assert v.requires_grad and v.grad_fn is None and v.is_leaf        # PyTorch's view says so
    y = v * 2
    assert y.requires_grad and y.grad_fn is not None
    y.sum().backward()                                                # no edge back to w
    assert w.grad is None
    with pytest.raises(RuntimeError, match="^A view was created in no_grad mode and is being modified inplace with "
                                           "grad mode enabled"):
        v.mul_(2)
    with ag.no_grad():
        w.add_(1)
    with pytest.raises(RuntimeError, match="^A view was created in no_grad mode and its base or another view of its "
                                           "base has been modified inplace with grad mode enabled"):
        v.grad_fn
    assert repr(v).endswith("grad_fn=<Invalid>)")


def test_diagonal_is_a_view_that_writes_through():
    x = ag.zeros(3, 4)
    x.diagonal().fill_(1.0)
    x.diagonal(1).add_(2.0)
    assert np.array_equal(x.numpy(), np.eye(3, 4) + 2 * np.eye(3, 4, 1))
    batch = ag.zeros(2, 3, 3)
    batch.diagonal(dim1=1, dim2=2).add_(5.0)
    assert np.array_equal(batch.numpy(), 5 * np.broadcast_to(np.eye(3), (2, 3, 3)))
    assert ag.diag(ag.ones(2, 2))._base is None                      # diag() of a matrix is a copy


def test_gradient_through_a_diagonal_written_in_place():
    """b = w * 1, b.diagonal() *= 3: d sum(b)/dw is 3 on the diagonal, 1 elsewhere."""
    w = ag.ones(3, 3, requires_grad=True)
    b = w * 1
    b.diagonal().mul_(3)
    b.sum().backward()
    assert np.array_equal(w.grad.numpy(), np.ones((3, 3)) + 2 * np.eye(3))


def test_as_strided_values_and_gradient_of_overlapping_windows():
    """Windows of length 2, step 1 over w (length 4): each element's gradient is the sum of the
    weights of the windows that hold it."""
    w = ag.arange(4.0, requires_grad=True)
    windows = w.as_strided((3, 2), (1, 1))
    assert np.array_equal(windows.detach().numpy(), [[0, 1], [1, 2], [2, 3]])
    weights = np.array([[1.0, 10.0], [100.0, 1000.0], [1e4, 1e5]])
    (windows * ag.tensor(weights)).sum().backward()
    assert np.array_equal(w.grad.numpy(), [1.0, 10.0 + 100.0, 1000.0 + 1e4, 1e5])
    assert windows.grad_fn.name() == "AsStridedBackward0" and windows.grad_fn._saved_size == (3, 2)


def test_as_strided_of_a_view_starts_at_the_views_offset_and_writes_through():
    x = ag.arange(6.0)
    assert np.array_equal(x[3:].as_strided((2,), (1,)).numpy(), [3.0, 4.0])
    z = ag.zeros(4, 4)
    z.as_strided((4,), (5,)).fill_(1.0)
    assert np.array_equal(z.numpy(), np.eye(4))
    w = ag.ones(6, requires_grad=True)
    v = (w * 1)[2:].as_strided((2, 2), (1, 1))          # storage places 2, 3 / 3, 4
    v.sum().backward()
    assert np.array_equal(w.grad.numpy(), [0.0, 0.0, 1.0, 2.0, 1.0, 0.0])


def test_as_strided_refuses_what_pytorch_refuses():
    w = ag.arange(6.0)
    with pytest.raises(RuntimeError, match=r"setStorage: sizes \[3, 3\], strides \[1, 1\], storage offset 5, and "
                                           r"itemsize 8 requiring a storage size of 80 are out of bounds for storage of "
                                           r"size 48"):
        w.as_strided((3, 3), (1, 1), 5)
    with pytest.raises(RuntimeError, match="Negative strides are not supported"):
        ag.as_strided(w, (2,), (-1,))
    with pytest.raises(RuntimeError, match="invalid storage offset -1"):
        ag.as_strided(w, (2,), (1,), -1)


def _cases(lib):
    """(label, grad_fn chain, w.grad) for a set of view and in-place programs, on ``lib``."""
    out = []
    programs = {
        "select": lambda b: b[:, 2], "slice": lambda b: b[1:], "view": lambda b: b.view(15),
        "t": lambda b: b.t(), "unsqueeze": lambda b: b.unsqueeze(0), "narrow": lambda b: b.narrow(1, 1, 2),
        "diagonal": lambda b: b.diagonal(), "expand": lambda b: b[:1].expand(4, 5), "view of t": lambda b: b.t().reshape(15),
    }
    for label, view in programs.items():
        w = lib.ones(3, 5, dtype=lib.float64, requires_grad=True)
        base = w * 1
        v = view(base)
        base.mul_(2)
        chain = _chain(v)
        (v * lib.arange(float(v.numel()), dtype=lib.float64).reshape(v.shape)).sum().backward()
        out.append((label, chain, w.grad.detach().numpy().copy()))
    return out


def test_view_histories_and_gradients_as_pytorch():
    torch = pytest.importorskip("torch")
    for (label, chain, grad), (_, theirs, their_grad) in zip(_cases(ag), _cases(torch)):
        assert chain == theirs, label
        assert np.array_equal(grad, their_grad), label


def test_index_out_of_range_names_the_dimension_of_the_tensor_indexed():
    x = ag.zeros(3, 4, requires_grad=True)
    with pytest.raises(IndexError, match="^index 7 is out of bounds for dimension 1 with size 4$"):
        x[0, 7]


def test_in_place_view_op_on_a_view_keeps_its_own_node_and_follows_later_writes():
    x = ag.ones(2, 3, requires_grad=True)
    y = (x * 1).unsqueeze(-1)
    y.squeeze_(-1)
    assert y.grad_fn.name() == "SqueezeBackward4" and y.shape == (2, 3)
    base = x * 1
    row = base[0]
    row.unsqueeze_(0)
    assert row.grad_fn.name() == "UnsqueezeBackward1"
    base.add_(1)                                    # the row takes its history again, by its new view
    assert row.grad_fn.name() == "AsStridedBackward0"
    (row * 3).sum().backward()
    assert np.array_equal(x.grad.numpy(), [[3.0, 3.0, 3.0], [0.0, 0.0, 0.0]])


def test_a_gradient_with_history_is_copied_into_grad():
    """backward(create_graph=True): the leaf's .grad is a copy of the gradient (CopyBackwards),
    differentiable: d/dx sum(3 x^2) = 6 x."""
    x = ag.tensor([1.0, 2.0, -1.0], requires_grad=True)
    with pytest.warns(UserWarning, match="create_graph=True will create a reference cycle"):
        (x * x * x).sum().backward(create_graph=True)
    assert x.grad.grad_fn.name() == "torch::autograd::CopyBackwards"
    assert x.grad.tolist() == [3.0, 12.0, 3.0]
    g = x.grad.sum()
    x.grad = None
    g.backward()
    assert x.grad.tolist() == [6.0, 12.0, -6.0]
