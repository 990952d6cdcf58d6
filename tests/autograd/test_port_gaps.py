"""APIs that ported PyTorch tutorial code reaches for, each compared with real PyTorch:
``torch.utils.data``, ``torch.autograd.function``, ``inference_mode``, indexing with a
``range``, and the layers and losses of the classification tutorials."""

import numpy as np
import pytest

from diffcompare import autograd as ag
from diffcompare.autograd.utils.data import DataLoader, Dataset, TensorDataset, default_collate, random_split

torch = pytest.importorskip("torch")


def _same(a, t):
    assert a.shape == tuple(t.shape)
    np.testing.assert_allclose(np.asarray(a.tolist()), t.detach().numpy(), rtol=1e-10, atol=1e-12)


# --- torch.utils.data ------------------------------------------------------------------------

def test_dataloader_batches_a_tensor_dataset_as_pytorch_does():
    xs, ys = np.arange(14.0).reshape(7, 2), np.arange(7)
    for kwargs in ({}, {"batch_size": 3}, {"batch_size": 3, "drop_last": True}, {"batch_size": None}):
        ours = list(DataLoader(TensorDataset(ag.tensor(xs), ag.tensor(ys)), **kwargs))
        theirs = list(torch.utils.data.DataLoader(
            torch.utils.data.TensorDataset(torch.tensor(xs), torch.tensor(ys)), **kwargs))
        assert len(ours) == len(theirs)
        for (a, b), (ta, tb) in zip(ours, theirs):
            _same(a, ta)
            _same(b, tb)
            assert str(b.dtype) == str(tb.dtype).replace("torch.", "")
        assert len(DataLoader(TensorDataset(ag.tensor(xs)), **kwargs)) == len(theirs)


def test_default_collate_numbers_tuples_and_dicts():
    samples = [(1, 2.0, {"k": 3}), (4, 5.0, {"k": 6})]
    ours, theirs = default_collate(samples), torch.utils.data.default_collate(samples)
    assert type(ours) is type(theirs) is list
    for a, t in zip(ours[:2], theirs[:2]):
        _same(a, t)
        assert str(a.dtype) == str(t.dtype).replace("torch.", "")
    _same(ours[2]["k"], theirs[2]["k"])


def test_shuffle_draws_its_order_from_randperm_and_dataset_subclasses_load():
    class Squares(Dataset):
        def __len__(self):
            return 6

        def __getitem__(self, i):
            return ag.tensor([float(i)]), i * i

    ag.manual_seed(3)
    order = ag.randperm(6).tolist()
    ag.manual_seed(3)
    xs, ys = zip(*DataLoader(Squares(), batch_size=4, shuffle=True))
    assert [len(x) for x in xs] == [4, 2]
    assert ag.cat(xs)[:, 0].tolist() == order and ag.cat(ys).tolist() == [i * i for i in order]
    assert sorted(order) == list(range(6)) and ag.randperm(3).dtype == np.int64


def test_random_split_lengths_and_fractions_as_pytorch():
    for lengths in ([3, 7], [0.7, 0.3], [0.5, 0.25, 0.25]):
        ours = random_split(TensorDataset(ag.arange(10.0)), lengths)
        theirs = torch.utils.data.random_split(torch.utils.data.TensorDataset(torch.arange(10.0)), lengths)
        assert [len(s) for s in ours] == [len(s) for s in theirs]
        assert sorted(sum((s.indices for s in ours), [])) == list(range(10))
    with pytest.raises(ValueError, match="Sum of input lengths"):
        random_split(TensorDataset(ag.arange(4.0)), [1, 2])


# --- torch.autograd.function -----------------------------------------------------------------

def _square_function(lib, function_module):
    class Square(function_module.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @function_module.once_differentiable
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            assert not lib.is_grad_enabled()
            return 2 * x * g

    return Square


def test_autograd_function_module_and_once_differentiable_as_pytorch():
    import torch.autograd.function as tf

    import diffcompare.autograd.autograd.function as af
    assert af.FunctionCtx is ag.autograd.FunctionCtx and af.Function is ag.Function
    results = []
    for lib, module in ((ag, af), (torch, tf)):
        x = lib.tensor([3.0, -1.0], dtype=lib.float64, requires_grad=True)
        v = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        square = _square_function(lib, module)
        (plain,) = lib.autograd.grad(square.apply(x).sum(), x, create_graph=True)
        (g,) = lib.autograd.grad(square.apply(x), x, grad_outputs=v, create_graph=True)
        assert not plain.requires_grad
        assert type(g.grad_fn).__name__ == "Error"
        with pytest.raises(RuntimeError, match="differentiate twice a function that was marked with @once_diff"):
            g.sum().backward()
        results.append(g.tolist())
    assert results[0] == results[1] == [6.0, -4.0]


# --- inference_mode --------------------------------------------------------------------------

def test_inference_mode_as_context_and_decorator_as_pytorch():
    for lib in (ag, torch):
        x = lib.ones(2, requires_grad=True)
        with lib.inference_mode():
            y = x * 2
            state = lib.is_grad_enabled(), lib.is_inference_mode_enabled()
            with lib.inference_mode(False):
                inner = lib.is_grad_enabled(), lib.is_inference_mode_enabled(), (x * 2).requires_grad
        assert not y.requires_grad and state == (False, True) and inner == (True, False, True)
        with lib.no_grad(), lib.inference_mode(mode=False):
            assert lib.is_grad_enabled()           # inference_mode(False) switches recording on, as in PyTorch

        @lib.inference_mode
        def bare(t):
            return t * 2, lib.is_inference_mode_enabled()

        @lib.inference_mode(mode=False)
        def off(t):
            return t * 2

        out, flag = bare(x)
        assert flag and not out.requires_grad and off(x).requires_grad
        assert type(off(x).grad_fn).__name__ == "MulBackward0"
        assert lib.is_grad_enabled() and not lib.is_inference_mode_enabled()
        assert lib.autograd.inference_mode is lib.inference_mode


# --- indexing with a range -------------------------------------------------------------------

def test_range_indexes_as_an_integer_array_as_pytorch():
    data = np.arange(12.0).reshape(3, 4)
    results = []
    for lib in (ag, torch):
        x = lib.tensor(data, dtype=lib.float64, requires_grad=True)
        y = x[range(3), lib.tensor([1, 0, 3])]
        (y * lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64)).sum().backward()
        z = x.detach().clone()
        z[range(0, 3, 2), 1] = -1.0
        results.append((y, type(y.grad_fn).__name__, x.grad, x[:, range(1, 3)], z))
    (y, name, grad, cols, z), (ty, tname, tgrad, tcols, tz) = results
    assert name == tname == "IndexBackward0"
    for a, t in ((y, ty), (grad, tgrad), (cols, tcols), (z, tz)):
        _same(a, t)
