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

    g = ag.Generator().manual_seed(3)
    ag.empty((), dtype=ag.int64).random_(generator=g)      # the pass's base seed comes from g first
    order = ag.randperm(6, generator=g).tolist()
    g.manual_seed(3)
    xs, ys = zip(*DataLoader(Squares(), batch_size=4, shuffle=True, generator=g))
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


# --- layers and losses of the classification tutorials ---------------------------------------

def _pair_run(make, data, v):
    """Value, node name and the input's gradient (a vector-Jacobian product with ``v``) on
    both libraries."""
    out = []
    for lib in (ag, torch):
        x = lib.tensor(data, dtype=lib.float64, requires_grad=True)
        y = make(lib, x)
        (g,) = lib.autograd.grad((y * lib.tensor(v(y.shape), dtype=lib.float64)).sum(), x)
        out.append((y, type(y.grad_fn).__name__, g))
    return out


@pytest.mark.parametrize("args", [(2,), (3, 2, 1), ((3, 2), (2, 1), (1, 0)), (3, 2, 1, True),
                                  (3, 2, 1, False, False), (3, 2, 1, True, False), (2, None, 0, False, True, 3)])
def test_avg_pool2d_as_pytorch(args):
    rng = np.random.default_rng(1)
    data = rng.standard_normal((2, 3, 7, 6))
    (y, name, g), (ty, tname, tg) = _pair_run(lambda lib, x: lib.nn.functional.avg_pool2d(x, *args), data,
                                              lambda shape: np.cos(np.arange(np.prod(shape))).reshape(shape))
    assert name == tname == "AvgPool2DBackward0"
    _same(y, ty)
    _same(g, tg)


@pytest.mark.parametrize("size", [(7, 3), (2, 4), (3, 5), (None, 2), 1])
def test_adaptive_avg_pool2d_as_pytorch(size):
    data = np.random.default_rng(2).standard_normal((2, 3, 7, 6))
    (y, name, g), (ty, tname, tg) = _pair_run(lambda lib, x: lib.nn.AdaptiveAvgPool2d(size)(x), data,
                                              lambda shape: np.sin(np.arange(np.prod(shape))).reshape(shape))
    assert name == tname == ("MeanBackward1" if size == 1 else "AdaptiveAvgPool2DBackward0")
    _same(y, ty)
    _same(g, tg)


def test_avg_pool_differentiates_twice_and_modules_print_as_pytorch():
    x = ag.tensor(np.arange(25.0).reshape(1, 1, 5, 5), requires_grad=True)
    tx = torch.tensor(np.arange(25.0).reshape(1, 1, 5, 5), requires_grad=True)
    w, tw = ag.tensor(np.ones((1, 1, 3, 3)), requires_grad=True), torch.ones(1, 1, 3, 3, dtype=torch.float64,
                                                                              requires_grad=True)
    (g,) = ag.autograd.grad((ag.nn.functional.avg_pool2d(x, 3, 2, 1) * w).sum(), x, create_graph=True)
    (tg,) = torch.autograd.grad((torch.nn.functional.avg_pool2d(tx, 3, 2, 1) * tw).sum(), tx, create_graph=True)
    assert type(g.grad_fn).__name__ == type(tg.grad_fn).__name__ == "AvgPool2DBackwardBackward0"
    (gg,) = ag.autograd.grad((g * g).sum(), w)
    (tgg,) = torch.autograd.grad((tg * tg).sum(), tw)
    _same(gg, tgg)
    for name, args in (("AvgPool2d", (2,)), ("AdaptiveAvgPool2d", ((1, 1),)), ("Softmax", ()), ("LogSoftmax", (1,)),
                       ("NLLLoss", ())):
        kwargs = {"dim": 1} if name == "Softmax" else {}
        assert repr(getattr(ag.nn, name)(*args, **kwargs)) == repr(getattr(torch.nn, name)(*args, **kwargs))


def test_softmax_modules_as_pytorch_with_the_implicit_dim_warning():
    data = np.random.default_rng(3).standard_normal((2, 3, 4))
    for name, dim in (("Softmax", 1), ("LogSoftmax", -1)):
        (y, n, g), (ty, tn, tg) = _pair_run(lambda lib, x: getattr(lib.nn, name)(dim=dim)(x), data,
                                            lambda shape: np.cos(np.arange(np.prod(shape))).reshape(shape))
        assert n == tn == name + "Backward0"
        _same(y, ty)
        _same(g, tg)
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmax has been deprecated"):
        y = ag.nn.Softmax()(ag.tensor(data))
    with pytest.warns(UserWarning, match="Implicit dimension choice"):
        ty = torch.nn.Softmax()(torch.tensor(data))
    _same(y, ty)


@pytest.mark.parametrize("kwargs", [{}, {"weight": True}, {"ignore_index": -100}, {"reduction": "sum", "weight": True},
                                    {"reduction": "none", "weight": True}, {"ignore_index": 1, "weight": True}])
def test_nll_loss_and_cross_entropy_weights_and_ignore_index_as_pytorch(kwargs):
    logits = np.random.default_rng(4).standard_normal((5, 3))
    target = np.array([0, 2, -100, 1, 2]) if kwargs.get("ignore_index") == -100 else np.array([0, 2, 1, 1, 2])
    outs = []
    for lib in (ag, torch):
        kw = dict(kwargs)
        if kw.pop("weight", False):
            kw["weight"] = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64)
        x, t = lib.tensor(logits, dtype=lib.float64, requires_grad=True), lib.tensor(target)
        y = lib.nn.functional.nll_loss(x.log_softmax(1), t, **kw)
        module = lib.nn.NLLLoss(**kw)(x.log_softmax(1), t)
        ce = lib.nn.CrossEntropyLoss(**kw)(x, t)
        (g,) = lib.autograd.grad((y * y).sum() + ce.sum(), x)
        outs.append((y, module, ce, g, type(y.grad_fn).__name__))
    for a, t in zip(outs[0][:4], outs[1][:4]):
        _same(a, t)
    assert outs[0][4] == outs[1][4] == "NllLossBackward0"


def test_add_and_sub_with_alpha_as_pytorch():
    results = []
    for lib in (ag, torch):
        a = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        b = lib.tensor([[3.0, 4.0], [5.0, 6.0]], dtype=lib.float64, requires_grad=True)
        y, z = lib.add(a, b, alpha=2), lib.sub(a, b, alpha=2.5)
        ga, gb = lib.autograd.grad((y * y).sum() + (z * z * z).sum(), (a, b))
        c = a.detach().clone()
        c.add_(b[0], alpha=-0.1)
        c.sub_(b[1], alpha=2)
        with lib.no_grad():
            p = a.clone().requires_grad_()
            p.add_(lib.ones(2, dtype=lib.float64), alpha=-0.1)
        names = [type(t.grad_fn).__name__ for t in (y, z, c, lib.add(a, 3, alpha=2), a.add(b, alpha=0.5))]
        with pytest.raises(RuntimeError, match="For integral input tensors, argument alpha must not be a floating"):
            lib.add(lib.tensor([1, 2]), lib.tensor([1, 2]), alpha=0.5)
        results.append(((y, z, ga, gb, c, p, lib.add(a, 3, alpha=2), a.sub(b, alpha=0.5)), names))
    (ours, names), (theirs, tnames) = results
    assert names == tnames == ["AddBackward0", "SubBackward0", "SubBackward0", "AddBackward0", "AddBackward0"]
    for a, t in zip(ours, theirs):
        _same(a, t)


# --- torch.func.linearize and stack_module_state --------------------------------------------

def test_linearize_as_pytorch():
    """Against ``torch.func.jvp`` (what ``torch.func.linearize`` computes; it takes seconds to
    trace, so the test leaves it out); its shape error as PyTorch words it."""
    from diffcompare.autograd.func import linearize
    x = np.array([0.5, 1.5, -2.0])
    out, jvp_fn = linearize(lambda t: t.sin() * t, ag.tensor(x))
    tout, tjvp = torch.func.jvp(lambda t: t.sin() * t, (torch.tensor(x),), (torch.tensor([1.0, 2.0, 3.0],
                                                                                         dtype=torch.float64),))
    _same(out, tout)
    _same(jvp_fn(ag.tensor([1.0, 2.0, 3.0])), tjvp)
    with pytest.raises(RuntimeError, match=r"tangent:0 with shape torch.Size\(\[2\]\) in flattened pytree doesn't "
                                           r"match the shape torch.Size\(\[3\]\) of the corresponding primal"):
        jvp_fn(ag.ones(2))


def test_stack_module_state_ensembles_with_vmap_as_pytorch():
    from diffcompare.autograd.func import functional_call, stack_module_state, vmap
    rng = np.random.default_rng(5)
    weights = [(rng.standard_normal((2, 3)), rng.standard_normal(2)) for _ in range(4)]
    data = rng.standard_normal((5, 3))
    results = []
    for lib, stack_state, call, vm in ((ag, stack_module_state, functional_call, vmap),
                                       (torch, torch.func.stack_module_state, torch.func.functional_call,
                                        torch.func.vmap)):
        models = []
        for w, b in weights:
            m = lib.nn.Linear(3, 2).to(lib.float64)
            with lib.no_grad():
                m.weight.copy_(lib.tensor(w))
                m.bias.copy_(lib.tensor(b))
            models.append(m)
        params, buffers = stack_state(models)
        assert params["weight"].is_leaf and params["weight"].requires_grad and buffers == {}
        out = vm(lambda p, bufs, x: call(models[0], (p, bufs), (x,)), in_dims=(0, 0, None))(
            params, buffers, lib.tensor(data))
        out.pow(2).sum().backward()
        results.append((out, params["weight"].grad, params["bias"].grad))
        with pytest.raises(RuntimeError, match="Expected at least one model, got 0"):
            stack_state([])
    for a, t in zip(*results):
        _same(a, t)


def test_matmul_and_mm_take_pytorchs_keyword_names():
    torch = pytest.importorskip("torch")
    a, b = np.arange(6.0).reshape(2, 3), np.arange(3.0)
    mine = ag.matmul(input=ag.tensor(a), other=ag.tensor(b))
    theirs = torch.matmul(input=torch.tensor(a), other=torch.tensor(b))
    assert np.array_equal(mine.numpy(), theirs.numpy())
    assert np.array_equal(ag.mm(input=ag.tensor(a), mat2=ag.tensor(a.T)).numpy(), a @ a.T)


def test_tensor_type_names_and_casts_as_pytorch():
    torch = pytest.importorskip("torch")
    for dtype in ("float64", "float32", "int64", "bool"):
        assert ag.ones(2, dtype=getattr(ag, dtype)).type() == torch.ones(2, dtype=getattr(torch, dtype)).type()
    x = ag.ones(2, requires_grad=True)
    assert x.type(ag.float64) is x and x.type("torch.FloatTensor").dtype == np.float32
    assert x.type(ag.float32).grad_fn.name() == "ToCopyBackward0"
    with pytest.raises(ValueError, match="invalid type"):
        x.type("torch.NoSuchTensor")
