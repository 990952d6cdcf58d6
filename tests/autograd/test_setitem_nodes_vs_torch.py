"""``x[index] = value`` with tensor indices, differentially against PyTorch: the node the
written tensor records (CopySlices where the index takes a view first, IndexPutBackward0 for
index tensors alone, FillBackward3 / CopyBackwards for the whole tensor), the values and the
gradients; the gradients are also checked against the ones worked out by hand."""

import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from diffcompare import autograd as ag  # noqa: E402

WEIGHTS = np.arange(6.0).reshape(3, 2)


def _indices(lib):
    T = lib.tensor
    return {
        "0-d long": lambda: T(1),
        "0-d negative": lambda: T(-1),
        "0-d int32": lambda: T(1, dtype=lib.int32),
        "0-d bool True": lambda: T(True),
        "0-d bool False": lambda: T(False),
        "long": lambda: T([1]),
        "long repeated": lambda: T([2, 0]),
        "bool mask": lambda: T([True, False, True]),
        "(0-d, slice)": lambda: (T(1), slice(None)),
        "(slice, 0-d)": lambda: (slice(None), T(0)),
        "(0-d, 0-d)": lambda: (T(1), T(0)),
        "(0-d, long)": lambda: (T(1), T([0, 1])),
        "(full slice, long)": lambda: (slice(None), T([0])),
        "(part slice, long)": lambda: (slice(0, 2), T([0])),
        "(None, long)": lambda: (None, T([0])),
        "(..., long)": lambda: (Ellipsis, T([0])),
        "(long, part slice)": lambda: (T([0, 2]), slice(0, 1)),
        "(int, long)": lambda: (1, T([0])),
        "full slice": lambda: slice(None),
        "...": lambda: Ellipsis,
        "slice(0, 3)": lambda: slice(0, 3),
        "slice(-3, None)": lambda: slice(-3, None),
        "int": lambda: 1,
    }


def _run(lib, name, value_shape):
    t = lib.zeros(3, 2, dtype=lib.float64, requires_grad=True)
    y = lib.tensor(np.full(value_shape, 2.0), requires_grad=True)
    w = t.clone()
    w[_indices(lib)[name]()] = y
    (w * lib.tensor(WEIGHTS)).sum().backward()
    return w, t.grad, y.grad


@pytest.mark.parametrize("name", list(_indices(torch)))
@pytest.mark.parametrize("value_shape", [(), (2,), (1, 2), (1, 1)])
def test_setitem_records_pytorchs_node_values_and_gradients(name, value_shape):
    try:
        theirs = _run(torch, name, value_shape)
    except RuntimeError as error:          # the value does not fit: the same words
        with pytest.raises(RuntimeError) as mine:
            _run(ag, name, value_shape)
        assert str(mine.value) == str(error)
        return
    mine = _run(ag, name, value_shape)
    assert mine[0].grad_fn.name() == theirs[0].grad_fn.name()
    assert [n.name() for n, _ in mine[0].grad_fn.next_functions] == \
        [n.name() for n, _ in theirs[0].grad_fn.next_functions]
    for m, t in zip(mine, theirs):
        np.testing.assert_array_equal(m.detach().numpy(), t.detach().numpy())


def test_setitem_gradients_by_hand():
    # x[1] = y via a 0-d tensor: y gets the sum of the weights of row 1, x's row 1 gets none
    w, gx, gy = _run(ag, "0-d long", ())
    assert gy.item() == 2.0 + 3.0
    np.testing.assert_array_equal(gx.numpy(), [[0, 1], [0, 0], [4, 5]])
    # a repeated row index writes once per row but the value's gradient gathers both rows
    w, gx, gy = _run(ag, "long repeated", (2,))
    np.testing.assert_array_equal(gy.numpy(), [4.0 + 0.0, 5.0 + 1.0])
    # a 0-d True writes everything; a 0-d False writes nothing
    assert _run(ag, "0-d bool True", ())[2].item() == WEIGHTS.sum()
    assert _run(ag, "0-d bool False", ())[2].item() == 0.0


def test_zero_dim_integer_index_is_a_view_as_in_pytorch():
    x, tx = ag.zeros(3, 2, requires_grad=True), torch.zeros(3, 2, requires_grad=True)
    r, tr = x[ag.tensor(1)], tx[torch.tensor(1)]
    assert r.grad_fn.name() == tr.grad_fn.name() == "SelectBackward0"
    assert r._base is x and tr._base is tx


def test_setitem_names_are_pytorchs_qualified_ones():
    t = ag.zeros(3, requires_grad=True).clone()
    t[0] = 1.0
    assert t.grad_fn.name() == "torch::autograd::CopySlices" and type(t.grad_fn).__name__ == "CopySlices"
    leaf = ag.zeros(3, requires_grad=True)
    assert (leaf * 2).grad_fn.next_functions[0][0].name() == "torch::autograd::AccumulateGrad"


@pytest.mark.parametrize("index", ["0-d long", "long", "full slice", "(part slice, long)"])
def test_leaf_errors_match(index):
    messages = []
    for lib in (ag, torch):
        x = lib.zeros(3, 2, requires_grad=True)
        with pytest.raises(RuntimeError) as error:
            x[_indices(lib)[index]()] = 1.0
        messages.append(str(error.value))
    assert messages[0] == messages[1]


@pytest.mark.parametrize("index", [5, (0, 7), (0, 0, 0)])
def test_index_errors_in_pytorchs_words(index):
    messages = []
    for lib in (ag, torch):
        for write in (False, True):
            x = lib.zeros(3, 2)
            with pytest.raises(IndexError) as error:
                if write:
                    x[index] = 1.0
                else:
                    x[index]
            messages.append(str(error.value))
    assert messages[:2] == messages[2:]


def test_byte_mask_is_a_mask_with_pytorchs_warning():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = ag.arange(6.0).reshape(3, 2)[ag.tensor([1, 0, 1], dtype=ag.uint8)]
    np.testing.assert_array_equal(r.numpy(), [[0, 1], [4, 5]])
    assert "indexing with dtype torch.uint8 is now deprecated" in str(caught[0].message)


GETITEM = [Ellipsis, slice(None), (slice(None), slice(None)), None, (None, 0), (0, None), (0, slice(1, 3)),
           (slice(1, 3), 0), (slice(1, 3), None), (Ellipsis, None), (None, Ellipsis), (0, Ellipsis, 1), (slice(None), 1),
           True, False, (True, 0), (0, True), (slice(0, 3), slice(None)), (slice(0, 2), slice(None)),
           (slice(None, None, 2),), (0, 1, 2), (Ellipsis, slice(1, 2)), (None, None), (slice(0, 9), None, 1)]


@pytest.mark.parametrize("index", GETITEM, ids=repr)
def test_getitem_records_the_node_of_pytorchs_last_step(index):
    """Basic indices record the last view step's node (AliasBackward0 when there is none); a
    Python bool is a 0-d mask (a copy: IndexBackward0)."""
    x, tx = ag.zeros(3, 4, 5, requires_grad=True), torch.zeros(3, 4, 5, requires_grad=True)
    r, tr = x[index], tx[index]
    assert r.grad_fn.name() == tr.grad_fn.name()
    assert tuple(r.shape) == tuple(tr.shape) and (r._base is x) == (tr._base is tx)
    w = np.arange(float(r.numel())).reshape(tuple(r.shape))
    (r * ag.tensor(w)).sum().backward()
    (tr * torch.tensor(w, dtype=torch.float32)).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), tx.grad.numpy())


def test_python_false_writes_nothing_and_a_byte_mask_with_a_number_is_refused():
    for lib in (ag, torch):
        t = lib.zeros(3, requires_grad=True).clone()
        t[False] = 1.0
        assert t.grad_fn.name() == "CloneBackward0" and not t.detach().numpy().any()
    messages = []
    for lib in (ag, torch):
        with pytest.raises(RuntimeError) as error:
            lib.zeros(3)[lib.tensor([1, 0, 1], dtype=lib.uint8)] = 1.0
        messages.append(str(error.value))
    assert messages[0] == messages[1]
