"""Ops on meta tensors give meta tensors of PyTorch's shape and dtype, printed as PyTorch prints
them; reading their values raises PyTorch's errors. Every expectation comes from PyTorch."""

import numpy as np
import pytest

from diffcompare import autograd as ag

torch = pytest.importorskip("torch")


pytestmark = pytest.mark.usefixtures("torch_float64")     # PyTorch in float64, as the engine


def _repr(t):
    return repr(t).replace("torch.", "")


def _same(ours, theirs):
    assert ours.is_meta and theirs.is_meta
    assert ours.device == ag.device("meta") and str(ours.device) == str(theirs.device)
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert str(ours.dtype) == str(theirs.dtype).replace("torch.", "")
    assert _repr(ours) == _repr(theirs)


def _both(build):
    return build(ag), build(torch)


@pytest.mark.parametrize("build", [
    lambda m: m.rand(2, 3, device="meta"),
    lambda m: m.randn(4, dtype=m.float32, device="meta"),
    lambda m: m.randint(0, 5, (3, 2), device="meta"),
    lambda m: m.empty(2, 2, device="meta"),
    lambda m: m.zeros(3, device="meta"),
    lambda m: m.ones(1, 2, device="meta", requires_grad=True),
    lambda m: m.full((2,), 3, device="meta"),
    lambda m: m.rand(2**10, 3, 2**16, 2**16, device="meta"),   # nothing allocated
])
def test_factories(build):
    _same(*_both(build))


def test_factories_under_device_context():
    def build(m):
        with m.device("meta"):
            return [m.randn((4, 3)), m.rand(2), m.empty(3), m.zeros(2, dtype=m.float32), m.ones(1)]
    for ours, theirs in zip(*_both(build)):
        _same(ours, theirs)
    assert not ag.zeros(2).is_meta


@pytest.mark.parametrize("op", [
    lambda m, x: x + 1,
    lambda m, x: (x * x).sum(),
    lambda m, x: x @ m.ones(3, 4, device="meta"),
    lambda m, x: x > 0,
    lambda m, x: x.float(),
    lambda m, x: x.long(),
    lambda m, x: m.exp(x).mean(dim=0),
    lambda m, x: x.reshape(3, 2).t(),
    lambda m, x: x[0],
    lambda m, x: m.flatten(x.unsqueeze(0), 1),
    lambda m, x: m.nn.functional.relu(x),
    lambda m, x: x.detach(),
])
def test_ops_give_meta(op):
    _same(op(ag, ag.rand(2, 3, device="meta")), op(torch, torch.rand(2, 3, device="meta")))


def test_grad_fn_recorded():
    def build(m):
        x = m.rand(2, 3, device="meta", requires_grad=True)
        return (x * 2).sum()
    ours, theirs = _both(build)
    _same(ours, theirs)
    assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__


def test_reading_values_raises_as_pytorch():
    x, tx = ag.rand(2, 3, device="meta"), torch.rand(2, 3, device="meta")
    for read in (lambda t: t.item(), lambda t: t.sum().item(), lambda t: t.numpy(), lambda t: t.tolist()):
        with pytest.raises(Exception) as theirs:
            read(tx)
        with pytest.raises(type(theirs.value)) as ours:
            read(x)
        assert str(ours.value) == str(theirs.value)


def test_conv_pool_linear_chain():
    def build(m):
        F = m.nn.functional
        with m.device("meta"):
            conv1, conv2 = m.nn.Conv2d(3, 6, 5), m.nn.Conv2d(6, 16, 5)
            pool, fc = m.nn.MaxPool2d(2, 2), m.nn.Linear(16 * 5 * 5, 10)
            inp = m.randn((8, 3, 32, 32))
        seen = []
        conv1.register_forward_hook(lambda mod, i, o: seen.append(tuple(o.shape)))
        x = pool(F.relu(conv1(inp)))
        x = pool(F.relu(conv2(x)))
        return [x, fc(m.flatten(x, 1)), conv1.weight], seen
    (ours, ours_seen), (theirs, theirs_seen) = _both(build)
    for a, b in zip(ours, theirs):
        _same(a, b)
        assert (a.grad_fn is None) == (b.grad_fn is None)
    assert ours_seen == theirs_seen


def test_conv_on_a_huge_meta_input():
    def build(m):
        return m.nn.Conv2d(3, 5, 2, device="meta")(m.rand(2**10, 3, 2**16, 2**16, device="meta"))
    _same(*_both(build))


def test_cpu_tensors_unaffected():
    x = ag.tensor([1.0, 2.0])
    y = x * 3
    assert not y.is_meta and type(y._data) is np.ndarray
    assert y.tolist() == torch.tensor([1.0, 2.0]).mul(3).tolist()
