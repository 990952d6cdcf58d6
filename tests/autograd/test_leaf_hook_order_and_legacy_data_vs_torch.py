"""The order in which leaves' hooks run (PyTorch's ready queue gives the AccumulateGrad nodes
that one node makes ready together the highest priority, ties coming out as its binary heap
leaves them), the legacy constructors reading a plain tuple as data, and iteration
(``unbind(0)``), compared with PyTorch."""

import pytest

from diffcompare import autograd as ag

torch = pytest.importorskip("torch")

GRAPHS = {
    "a * b * c": (3, lambda a, b, c: a * b * c),
    "a * b + c * d": (4, lambda a, b, c, d: a * b + c * d),
    "(a + b) * (c + d)": (4, lambda a, b, c, d: (a + b) * (c + d)),
    "a + b + c + d": (4, lambda a, b, c, d: a + b + c + d),
    "addcmul": (3, lambda a, b, c: a.addcmul(b, c)),
    "a used twice": (2, lambda a, b: a * b + a),
}


def _stack(lib, n):
    return lambda *xs: lib.stack(xs).sum()


def _order(lib, n, fn):
    xs = [lib.tensor(float(i + 1), requires_grad=True) for i in range(n)]
    seen = []
    for i, x in enumerate(xs):
        x.register_hook(lambda g, i=i: seen.append((i, float(g))))
    fn(*xs).backward()
    return seen


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_leaf_hooks_run_in_pytorchs_order(torch_float64, name):
    n, fn = GRAPHS[name]
    assert _order(ag, n, fn) == _order(torch, n, fn)


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6, 7])
def test_leaves_made_ready_by_one_node_run_in_pytorchs_heap_order(torch_float64, n):
    assert _order(ag, n, _stack(ag, n)) == _order(torch, n, _stack(torch, n))


@pytest.mark.parametrize("args", [((5, 5),), ([5, 5],), (5, 5), ((),), (), (3,)])
@pytest.mark.parametrize("name", ["FloatTensor", "DoubleTensor", "LongTensor"])
def test_legacy_constructors_read_a_tuple_as_data_and_ints_as_sizes(name, args):
    ours, theirs = getattr(ag, name)(*args), getattr(torch, name)(*args)
    assert tuple(ours.shape) == tuple(theirs.shape)
    if len(args) == 1 and isinstance(args[0], (tuple, list)):   # data (sizes give PyTorch uninitialised memory)
        assert ours.tolist() == theirs.tolist()


def test_a_torch_size_is_still_a_size():
    assert tuple(ag.FloatTensor(ag.Size([2, 3])).shape) == (2, 3)


def _iterated(lib):
    a = lib.tensor([3.0, 1.0, 2.0], requires_grad=True) * 1
    names = [type(r.grad_fn).__name__ for r in a]
    x = lib.zeros(2, 3)
    for row in x:
        row.add_(1)
    y = lib.ones(2, 2, requires_grad=True) * 2
    try:
        for row in y:
            row.mul_(2)
        refused = None
    except RuntimeError as error:
        refused = str(error)
    return names, x.tolist(), refused


def test_iterating_a_tensor_gives_unbinds_views_as_pytorch_does(torch_float64):
    # PyTorch's Tensor.__iter__ is unbind(0): UnbindBackward0 rows, writable without grad,
    # refused in place when they require grad (one of several views)
    assert _iterated(ag) == _iterated(torch)
