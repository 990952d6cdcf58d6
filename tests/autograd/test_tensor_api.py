"""The common tensor API against PyTorch 2.13: gather/scatter, sorting, splitting,
repeating, the extra elementwise functions, factories, ``new_*`` and dtype conversions.
Values and gradients (float64, 1e-10), grad_fn names, errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from diffcompare import autograd as ag

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(7)
X = RNG.standard_normal((4, 3))
V = RNG.standard_normal(3)
I = np.array([[0, 2, 1], [1, 1, 0]])

CASES = {
    'gather': lambda L,x,v: L.gather(x,1,L.tensor([[0,2],[1,1],[2,0],[0,0]])),
    'scatter_add': lambda L,x,v: L.zeros(3,3,dtype=L.float64).scatter_add(0,L.tensor(I),x[:2]*1) ,
    'index_select': lambda L,x,v: x.index_select(0,L.tensor([3,0,3])),
    'masked_fill': lambda L,x,v: x.masked_fill(x>0, 2.0),
    'masked_fill_b': lambda L,x,v: x.masked_fill(L.tensor([True,False,True]), -1.0),
    'repeat': lambda L,x,v: v.repeat(2,3),
    'tile': lambda L,x,v: x.tile((2,)),
    'roll': lambda L,x,v: x.roll(1,0),
    'roll2': lambda L,x,v: x.roll((1,-1),(0,1)),
    'rollflat': lambda L,x,v: x.roll(2),
    'flip': lambda L,x,v: x.flip(0,1) if L is torch else x.flip((0,1)),
    'split': lambda L,x,v: x.split(3)[1],
    'splitsizes': lambda L,x,v: x.split([1,3])[1],
    'chunk': lambda L,x,v: x.chunk(2,1)[0],
    'unbind': lambda L,x,v: x.unbind(1)[2],
    'cumprod': lambda L,x,v: x.cumprod(0),
    'cumprod0': lambda L,x,v: (x*L.tensor([1.,0.,1.],dtype=L.float64)).cumprod(1),
    'sort': lambda L,x,v: x.sort(0)[0],
    'sortd': lambda L,x,v: L.sort(x, descending=True).values,
    'topk': lambda L,x,v: x.topk(2,dim=0)[0],
    'movedim': lambda L,x,v: x.unsqueeze(0).movedim(0,2),
    'clamp_min': lambda L,x,v: x.clamp_min(0.1),
    'clamp_max': lambda L,x,v: L.clamp_max(x,0.1),
    'lerp': lambda L,x,v: L.lerp(x,v*2,0.3),
    'lerpT': lambda L,x,v: L.lerp(x,x*2,v),
    'addcmul': lambda L,x,v: L.addcmul(x,v,x,value=0.5),
    'addcdiv': lambda L,x,v: x.addcdiv(v,x+3,value=2),
    'logaddexp': lambda L,x,v: L.logaddexp(x,v),
    'xlogy': lambda L,x,v: L.xlogy(x,v.abs()),
    'logit': lambda L,x,v: L.logit(x.sigmoid()),
    'logiteps': lambda L,x,v: L.special.logit(x.sigmoid(),eps=0.3),
    'expit': lambda L,x,v: L.special.expit(x),
    'nan_to_num': lambda L,x,v: L.nan_to_num(x/(x>0).to(L.float64)),
    'where': lambda L,x,v: L.where(x>0,x,0.),
    'where2': lambda L,x,v: L.where(x>0,1.5,x),
    'softmax0': lambda L,x,v: x.softmax(0),
    'logsm': lambda L,x,v: L.log_softmax(x,dim=-1),
    'T': lambda L,x,v: x.T,
    'mT': lambda L,x,v: x.mT,
    'outer': lambda L,x,v: L.outer(v,x[0]),
    'kron': lambda L,x,v: L.kron(x,v.unsqueeze(0)),
    'cross': lambda L,x,v: L.linalg.cross(x,v.expand(4,3)),
    'crossT': lambda L,x,v: L.cross(x[:3],x[1:],dim=0),
    'bmm': lambda L,x,v: L.bmm(x.reshape(2,2,3),x.reshape(2,3,2)),
    'baddbmm': lambda L,x,v: L.baddbmm(v[:2], x.reshape(2,2,3),x.reshape(2,3,2),beta=0.5,alpha=2),
    'addmm': lambda L,x,v: L.addmm(v,x.T,x[:,:3],alpha=0.3),
    'tril': lambda L,x,v: x.tril(-1),
    'triu': lambda L,x,v: L.triu(x,1),
    'trace': lambda L,x,v: x.trace(),
    'diag': lambda L,x,v: L.diag(v,1),
    'diagm': lambda L,x,v: x.diag(-1),
    'diagonal': lambda L,x,v: x.diagonal(1),
    'diag_embed': lambda L,x,v: L.diag_embed(x,offset=-1),
    'float': lambda L,x,v: x.float().double()*1,
}


def _np(t):
    return np.asarray(t.detach().tolist(), dtype=np.float64).reshape(tuple(t.shape))


@pytest.mark.parametrize("case", sorted(CASES))
def test_value_gradient_and_grad_fn_agree_with_torch(case):
    results = {}
    seed = None
    for L in (ag, torch):
        x, v = (L.tensor(a, requires_grad=True, dtype=L.float64) for a in (X, V))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")      # torch.cross without dim warns (so does the engine)
            out = CASES[case](L, x, v)
        if seed is None:
            seed = np.random.default_rng(1).uniform(-1, 1, tuple(out.shape))
        grads = L.autograd.grad(out, [x, v], L.tensor(seed, dtype=L.float64), allow_unused=True)
        results[L] = (_np(out), [np.zeros(s) if g is None else _np(g) for g, s in zip(grads, (X.shape, V.shape))],
                      type(out.grad_fn).__name__)
    (value, grads, name), (t_value, t_grads, t_name) = results[ag], results[torch]
    np.testing.assert_allclose(value, t_value, rtol=1e-12, atol=1e-12)
    for g, h in zip(grads, t_grads):
        np.testing.assert_allclose(g, h, rtol=1e-10, atol=1e-10)
    assert name == t_name


def test_factories_follow_torchs_signatures():
    x = ag.tensor(X, requires_grad=True)
    for L, t in ((ag, x), (torch, torch.tensor(X, requires_grad=True))):
        assert tuple(L.randint(10, (2, 3)).shape) == (2, 3)          # randint(high, size)
        low_high = L.randint(3, 5, (50,))                              # randint(low, high, size)
        assert low_high.min() >= 3 and low_high.max() < 5 and str(low_high.dtype).endswith("int64")
        assert tuple(L.randint(4, size=(2,)).shape) == (2,)
        for like in (L.rand_like(t), L.randn_like(t), L.randint_like(t, 3, 5), L.empty_like(t)):
            assert tuple(like.shape) == (4, 3) and str(like.dtype).endswith("float64") and not like.requires_grad
        assert 0 <= float(L.rand_like(t).min()) and float(L.rand_like(t).max()) < 1
        assert tuple(L.empty(2, 3).shape) == (2, 3) and tuple(L.empty((2,)).shape) == (2,)
        assert str(t.new_zeros(2).dtype).endswith("float64") and t.new_ones(2, 3).tolist() == [[1.0] * 3] * 2
        assert t.new_full((2,), 3).tolist() == [3.0, 3.0] and tuple(t.new_empty(2).shape) == (2,)
        assert t.new_tensor([1, 2]).tolist() == [1.0, 2.0] and str(t.new_tensor([1, 2]).dtype).endswith("float64")
        assert not t.new_tensor([1.0]).requires_grad
    with pytest.raises(RuntimeError, match="random_ expects 'from' to be less than 'to'"):
        ag.randint(5, 5, (2,))


def test_conversions_equal_all_any_and_shape_queries():
    for L in (ag, torch):
        x = L.tensor(X, requires_grad=True, dtype=L.float64)
        assert [str(c.dtype).split(".")[-1] for c in (x.long(), x.int(), x.bool(), x.half(), x.float())] == \
            ["int64", "int32", "bool", "float16", "float32"]
        assert x.float().grad_fn.name() == "ToCopyBackward0" and x.long().grad_fn is None
        assert L.equal(x, x.clone()) and not L.equal(x, x[:2]) and x.equal(x * 1)
        assert bool(L.all(x > -10)) and bool(x.any()) and tuple((x > 0).all(dim=0).shape) == (3,)
        assert tuple(x.any(1, keepdim=True).shape) == (4, 1)
        assert x.numel() == 12 and x.ndim == 2 and tuple(x.size()) == (4, 3) and x.size(1) == 3
        assert x.argmax(1, keepdim=True).tolist() == torch.tensor(X).argmax(1, keepdim=True).tolist()
        y = (x * 2).detach_()
        assert y.grad_fn is None and not y.requires_grad and y.requires_grad_().requires_grad


def test_sort_and_topk_indices_agree_with_torch():
    values = [3.0, 1.0, 2.0, 5.0]
    for descending in (False, True):
        mine, theirs = ag.sort(ag.tensor(values), descending=descending), torch.sort(torch.tensor(values),
                                                                                     descending=descending)
        assert mine.values.tolist() == theirs.values.tolist() and mine.indices.tolist() == theirs.indices.tolist()
    assert ag.tensor(values).topk(2).indices.tolist() == torch.tensor(values).topk(2).indices.tolist()
    assert ag.tensor(values).topk(2, largest=False).values.tolist() == [1.0, 2.0]


def test_cumprod_through_zeros_and_its_second_derivative():
    z = [0.0, 2.0, 0.0, 3.0]
    for values in (z, [1.5, 2.0, -0.5, 3.0]):
        mine = ag.tensor(values, requires_grad=True)
        theirs = torch.tensor(values, requires_grad=True, dtype=torch.float64)
        g = ag.autograd.grad(mine.cumprod(0).sum(), mine, create_graph=True)[0]
        h = torch.autograd.grad(theirs.cumprod(0).sum(), theirs, create_graph=True)[0]
        np.testing.assert_allclose(_np(g), _np(h), rtol=1e-12)
        np.testing.assert_allclose(_np(ag.autograd.grad((g * g).sum(), mine)[0]),
                                   _np(torch.autograd.grad((h * h).sum(), theirs)[0]), rtol=1e-10, atol=1e-12)


def test_special_values_agree_with_torch():
    for L in (ag, torch):
        zero = L.tensor([0.0, 0.0, 1.0], dtype=L.float64)
        assert np.array_equal(_np(L.xlogy(zero, L.tensor([0.0, float("nan"), -1.0], dtype=L.float64))),
                              [0.0, np.nan, np.nan], equal_nan=True)
        p = L.tensor([-0.1, 0.5, 1.2], dtype=L.float64)
        np.testing.assert_allclose(_np(L.logit(p, eps=0.1)), [-np.log(9), 0.0, np.log(9)], rtol=1e-14)
        assert np.isnan(_np(L.logit(p))[[0, 2]]).all()
        y = L.tensor([0.0, float("nan"), float("inf"), 1.0], dtype=L.float64, requires_grad=True)
        L.nan_to_num(y).sum().backward()
        assert y.grad.tolist() == [1.0, 0.0, 0.0, 1.0]


@pytest.mark.parametrize("call, message", [
    (lambda L: L.gather(L.ones(2, 3), 1, L.tensor([[5]])), "index 5 is out of bounds for dimension 1 with size 3"),
    (lambda L: L.ones(5).split([2, 2]), r"split_with_sizes expects split_sizes to sum exactly to 5"),
    (lambda L: L.ones(2, 3).repeat(2), "Number of dimensions of repeat dims can not be smaller"),
    (lambda L: L.ones(3).topk(4), "selected index k out of range"),
    (lambda L: L.ones(3).masked_fill(L.ones(3), 0.0), "masked_fill_ only supports boolean masks"),
    (lambda L: L.linalg.cross(L.ones(2, 3), L.ones(3)), "inputs must have the same number of dimensions"),
])
def test_errors_match_torch(call, message):
    for L in (ag, torch):
        with pytest.raises(RuntimeError, match=message):
            call(L)


def test_torch_cross_without_dim_warns_and_takes_the_first_dimension_of_size_3():
    a, b = RNG.standard_normal((3, 3)), RNG.standard_normal((3, 3))
    with pytest.warns(UserWarning, match="Using torch.cross without specifying the dim arg is deprecated"):
        mine = ag.cross(ag.tensor(a), ag.tensor(b))
    with pytest.warns(UserWarning):
        theirs = torch.cross(torch.tensor(a), torch.tensor(b))
    np.testing.assert_allclose(_np(mine), _np(theirs), rtol=1e-14)
