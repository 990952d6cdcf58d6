"""``torch.utils.data._utils.collate`` (``collate``, ``default_collate``, ``default_convert``,
``default_collate_fn_map``) and ``torch.Size`` as a tensor's ``.shape``, compared with PyTorch."""

from collections import namedtuple

import numpy as np
import pytest

from diffcompare import autograd as ag
from diffcompare.autograd.utils.data import DataLoader, Dataset, default_convert
from diffcompare.autograd.utils.data._utils import collate as ours

torch = pytest.importorskip("torch")
from torch.utils.data._utils import collate as theirs  # noqa: E402

Point = namedtuple("Point", ["x", "y"])


def _plain(value):
    """A collated structure with its tensors as (dtype name, nested lists), its containers kept
    apart by type name, so that the engine's and PyTorch's can be compared with ==."""
    if isinstance(value, (ag.Tensor, torch.Tensor)):
        return ("tensor", str(value.dtype).replace("torch.", ""), value.tolist())
    if isinstance(value, dict):
        return ("dict", {k: _plain(v) for k, v in value.items()})
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return (type(value).__name__, [_plain(v) for v in value])
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [_plain(v) for v in value])
    if isinstance(value, np.ndarray):
        return ("ndarray", value.tolist())
    return value


BATCHES = [
    [0, 1, 2],
    [0.5, 1.5],
    [True, False],
    ["a", "b"],
    [b"a", b"b"],
    [(0, 1.5), (1, 2.5)],
    [[0, 1], [2, 3]],
    [{"A": 0, "B": 1.0}, {"A": 100, "B": 2.0}],
    [Point(0, 0), Point(1, 1)],
    [np.array([1.0, 2.0]), np.array([3.0, 4.0])],
    [np.int32(3), np.int32(4)],
    [np.float32(0.25), np.float32(0.5)],
    [{"img": np.ones((2, 2)), "label": 3, "name": "x"}, {"img": np.zeros((2, 2)), "label": 4, "name": "y"}],
]


@pytest.mark.parametrize("batch", BATCHES, ids=lambda b: type(b[0]).__name__)
def test_default_collate_gives_pytorchs_structure_types_and_dtypes(batch):
    engine_batch = [ag.tensor(b) if isinstance(b, torch.Tensor) else b for b in batch]
    assert _plain(ours.default_collate(engine_batch)) == _plain(theirs.default_collate(batch))


def test_default_collate_stacks_tensors_along_a_new_first_dimension():
    rows = np.arange(6.0).reshape(3, 2)
    got = ours.default_collate([ag.tensor(r) for r in rows])
    want = theirs.default_collate([torch.tensor(r) for r in rows])
    assert _plain(got) == _plain(want) and got.shape == (3, 2)


@pytest.mark.parametrize("data", [
    0, np.array([0, 1]), Point(np.array(0), np.array(0)), [np.array([0, 1]), np.array([2, 3])],
    (np.float64(2.0), 3), {"a": np.arange(3)}, np.array(["s", "t"]), "text",
], ids=repr)
def test_default_convert_turns_numpy_values_into_tensors_as_pytorch_does(data):
    assert _plain(default_convert(data)) == _plain(theirs.default_convert(data))


def test_collate_with_a_custom_map_dispatches_by_type_then_by_subclass(torch_float64):
    def ours_fn(batch, *, collate_fn_map):
        return ag.cat(batch)

    def theirs_fn(batch, *, collate_fn_map):
        return torch.cat(batch)

    got = ours.collate([ag.ones(2), ag.zeros(2)], collate_fn_map={ag.Tensor: ours_fn})
    want = theirs.collate([torch.ones(2), torch.zeros(2)], collate_fn_map={torch.Tensor: theirs_fn})
    assert _plain(got) == _plain(want)

    class Score(float):
        pass

    # a subclass of a key's type takes that key's function
    assert _plain(ours.collate([Score(1.0), Score(2.0)], collate_fn_map=ours.default_collate_fn_map)) == \
        _plain(theirs.collate([Score(1.0), Score(2.0)], collate_fn_map=theirs.default_collate_fn_map))


def test_collate_refuses_what_it_cannot_collate_with_pytorchs_message():
    for module in (ours, theirs):
        with pytest.raises(TypeError, match="batch must contain tensors, numpy arrays, numbers, dicts or lists"):
            module.default_collate([object(), object()])
        with pytest.raises(RuntimeError, match="each element in list of batch should be of equal size"):
            module.default_collate([[1, 2], [3]])


def test_extending_default_collate_through_its_map():
    class Pair:
        def __init__(self, a):
            self.a = a

    def collate_pair(batch, *, collate_fn_map):
        return sum(p.a for p in batch)

    ours.default_collate_fn_map[Pair] = collate_pair
    try:
        assert ours.default_collate([Pair(1), Pair(2)]) == 3
    finally:
        del ours.default_collate_fn_map[Pair]


def test_a_loader_without_batching_converts_numpy_samples_as_pytorch_does():
    class Samples(Dataset):
        def __len__(self):
            return 3

        def __getitem__(self, i):
            return np.full(2, float(i)), i

    got = list(DataLoader(Samples(), batch_size=None))
    want = list(torch.utils.data.DataLoader(Samples(), batch_size=None))
    assert [_plain(g) for g in got] == [_plain(w) for w in want]


def test_shape_and_size_are_torch_sizes():
    x, t = ag.zeros(2, 3, 4), torch.zeros(2, 3, 4)
    for got, want in [(x.shape, t.shape), (x.size(), t.size()), (x.shape[1:], t.shape[1:]),
                      (x[0].shape, t[0].shape)]:
        assert isinstance(got, ag.Size) and isinstance(got, tuple)
        assert repr(got) == repr(want) and str(got) == str(want)
        assert got == tuple(want) and got.numel() == want.numel()
    assert x.size(-1) == 4 and type(x.size(-1)) is int and type(x.shape[0]) is int
    assert f"{x.shape}" == f"{t.shape}" == "torch.Size([2, 3, 4])"
    # a Size passed to the legacy constructor is a shape, as in PyTorch
    assert ag.Tensor(x.shape).shape == torch.Tensor(t.shape).shape
