"""The torch functions added for ported code (composites, selection, distances, pointwise,
padding, the learning-rate schedulers): values, gradients, grad_fn names and errors beside
PyTorch where it is installed, and engine-only checks with values derived by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest

from diffcompare import autograd as ag
from diffcompare.autograd.nn import functional as F


# -- engine only: values by hand ------------------------------------------------------------

def test_stacking_and_splitting_by_hand():
    a, b = ag.tensor([1.0, 2.0]), ag.tensor([3.0, 4.0])
    assert ag.hstack([a, b]).tolist() == [1.0, 2.0, 3.0, 4.0]
    assert ag.vstack([a, b]).tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert ag.column_stack([a, b]).tolist() == [[1.0, 3.0], [2.0, 4.0]]
    assert [t.tolist() for t in ag.tensor_split(ag.arange(7.0), 3)] == [[0.0, 1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]
    assert [t.tolist() for t in ag.tensor_split(ag.arange(7.0), [1, 6])] == [[0.0], [1.0, 2.0, 3.0, 4.0, 5.0], [6.0]]
    assert ag.narrow(ag.arange(5.0), 0, 1, 2).tolist() == [1.0, 2.0]
    assert ag.diff(ag.tensor([1.0, 4.0, 9.0, 16.0]), n=2).tolist() == [2.0, 2.0]
    assert ag.unflatten(ag.arange(6.0), 0, (2, -1)).shape == (2, 3)


def test_reading_values_by_hand():
    assert ag.nonzero(ag.tensor([0.0, 3.0, 0.0, 1.0])).tolist() == [[1], [3]]
    assert ag.histc(ag.tensor([1.0, 2.0, 1.0]), bins=4, min=0, max=3).tolist() == [0.0, 2.0, 1.0, 0.0]
    assert ag.bucketize(ag.tensor([1, 5, 9]), ag.tensor([1, 3, 5, 7, 9]), right=True).tolist() == [1, 3, 5]
    values, inverse, counts = ag.unique(ag.tensor([1, 3, 2, 3]), return_inverse=True, return_counts=True)
    assert (values.tolist(), inverse.tolist(), counts.tolist()) == ([1, 2, 3], [0, 2, 1, 2], [1, 1, 2])
    assert [t.tolist() for t in ag.unravel_index(ag.tensor([4, 1]), (2, 3))] == [[1, 0], [1, 1]]
    assert ag.median(ag.tensor([4.0, 1.0, 3.0, 2.0])).item() == 2.0      # the lower of the two middle values


def test_dist_gradient_by_finite_differences():
    mpmath = pytest.importorskip("mpmath")
    x0 = [0.3, -1.2, 2.0]
    x = ag.tensor(x0, requires_grad=True)
    ag.dist(x, ag.zeros(3), 3).backward()

    def norm3(*v):
        return mpmath.power(sum(abs(t) ** 3 for t in v), mpmath.mpf(1) / 3)
    for i in range(3):
        expected = mpmath.diff(lambda t: norm3(*[t if j == i else x0[j] for j in range(3)]), x0[i])
        assert abs(float(x.grad[i]) - float(expected)) < 1e-12


def test_remainder_and_rounded_division_by_hand():
    x = ag.tensor([-3.5, 3.5], requires_grad=True)
    assert ag.remainder(x, 2).tolist() == [0.5, 1.5]
    assert ag.fmod(x, 2).tolist() == [-1.5, 1.5]
    assert ag.div(x, 2, rounding_mode="floor").tolist() == [-2.0, 1.0]
    assert ag.div(x, 2, rounding_mode="trunc").tolist() == [-1.0, 1.0]
    (x % 2).sum().backward()
    assert x.grad.tolist() == [1.0, 1.0]


def test_constant_padding_and_its_gradient_by_hand():
    x = ag.arange(4.0).reshape(1, 4).requires_grad_()
    y = F.pad(x, (1, -1), value=9)
    assert y.tolist() == [[9.0, 0.0, 1.0, 2.0]]
    y.sum().backward()
    assert x.grad.tolist() == [[1.0, 1.0, 1.0, 0.0]]


def test_step_lr_by_hand():
    w = ag.zeros(1, requires_grad=True)
    opt = ag.optim.SGD([w], lr=1.0)
    sched = ag.optim.lr_scheduler.MultiStepLR(opt, milestones=[1, 3], gamma=0.5)
    rates = []
    for _ in range(4):
        opt.step()
        sched.step()
        rates.append(opt.param_groups[0]["lr"])
    assert rates == [0.5, 0.5, 0.25, 0.25]


# -- beside PyTorch -----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def torch():
    torch = pytest.importorskip("torch")
    previous = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    yield torch
    torch.set_default_dtype(previous)    # later test files see PyTorch's default again


def _pair(torch, values, grad=True):
    array = np.asarray(values, dtype=np.float64)
    return torch.tensor(array, requires_grad=grad), ag.tensor(array, requires_grad=grad)


CASES = {
    "hstack": lambda m, a, b: m.hstack([a, b]),
    "vstack": lambda m, a, b: m.vstack([a, b]),
    "dstack": lambda m, a, b: m.dstack([a, b]),
    "column_stack": lambda m, a, b: m.column_stack([a[:, 0], b]),
    "narrow": lambda m, a, b: m.narrow(a, 1, 1, 2),
    "tensor_split": lambda m, a, b: m.tensor_split(a, 2, dim=1)[1],
    "diff": lambda m, a, b: m.diff(a, n=2, dim=1, prepend=b[:, :1]),
    "inner": lambda m, a, b: m.inner(a, b),
    "tensordot": lambda m, a, b: m.tensordot(a, b, dims=([1], [1])),
    "broadcast_to": lambda m, a, b: m.broadcast_to(a[0], (4, 3)),
    "repeat_interleave": lambda m, a, b: m.repeat_interleave(a, 2, dim=0),
    "atleast_3d": lambda m, a, b: m.atleast_3d(a),
    "cartesian_prod": lambda m, a, b: m.cartesian_prod(a[0], b[1]),
    "masked_select": lambda m, a, b: m.masked_select(a, a > 0),
    "take": lambda m, a, b: m.take(a, m.tensor([0, 5, 2])),
    "median": lambda m, a, b: m.median(a),
    "median_dim": lambda m, a, b: m.median(a, 1).values,
    "cummax": lambda m, a, b: m.cummax(a, 1).values,
    "dist": lambda m, a, b: m.dist(a, b, 2.5),
    "cdist": lambda m, a, b: m.cdist(a, b),
    "block_diag": lambda m, a, b: m.block_diag(a, b[0]),
    "addmv": lambda m, a, b: m.addmv(a[:, 0], a, b[0], beta=0.5, alpha=2),
    "addr": lambda m, a, b: m.addr(a, a[:, 0], b[0], alpha=3),
    "remainder": lambda m, a, b: m.remainder(a, b + 3),
    "fmod": lambda m, a, b: m.fmod(a, b + 3),
    "round_decimals": lambda m, a, b: m.round(a, decimals=1),
    "div_floor": lambda m, a, b: m.div(a, 0.7, rounding_mode="floor"),
    "pad": lambda m, a, b: (m.nn.functional.pad(a, (1, 2, 0, 1), value=0.5)),
    "pixel_shuffle": lambda m, a, b: m.nn.functional.pixel_shuffle(m.cat([a, b]).reshape(1, 4, 1, 3), 2),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_gradients_and_nodes_as_torch(torch, name):
    rng = np.random.default_rng(7)
    a0, b0 = rng.normal(size=(2, 3)), rng.normal(size=(2, 3))
    ta, ea = _pair(torch, a0)
    tb, eb = _pair(torch, b0)
    t_out = CASES[name](torch, ta, tb)
    e_out = CASES[name](ag, ea, eb)
    np.testing.assert_allclose(e_out.detach().numpy(), t_out.detach().numpy(), rtol=1e-12, atol=1e-12)
    assert e_out.grad_fn.name() == t_out.grad_fn.name()
    weights = rng.normal(size=tuple(t_out.shape))
    (t_out * torch.tensor(weights)).sum().backward()
    (e_out * ag.tensor(weights)).sum().backward()
    for t, e in ((ta, ea), (tb, eb)):
        if t.grad is None:
            assert e.grad is None or not np.any(e.grad.numpy())
        else:
            np.testing.assert_allclose(e.grad.numpy(), t.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_reading_functions_as_torch(torch):
    x = [[0.0, 1.5, -2.0], [3.0, 0.0, 1.5]]
    for name, call in {
        "nonzero": lambda m: m.nonzero(m.tensor(x)),
        "unique": lambda m: m.unique(m.tensor(x), return_counts=True)[1],
        "unique_consecutive": lambda m: m.unique_consecutive(m.tensor([1, 1, 2, 2, 3, 1]), return_inverse=True)[1],
        "histc": lambda m: m.histc(m.tensor(x), bins=5),
        "searchsorted": lambda m: m.searchsorted(m.tensor([[1, 3, 5], [2, 4, 6]]), m.tensor([[3, 6], [1, 5]])),
        "isclose": lambda m: m.isclose(m.tensor(x), m.tensor(x) + 1e-9),
        "one_hot": lambda m: m.nn.functional.one_hot(m.tensor([0, 3, 1])),
        "meshgrid_xy": lambda m: m.meshgrid(m.tensor([1, 2]), m.tensor([3, 4, 5]), indexing="xy")[0],
        "cummax_indices": lambda m: m.cummax(m.tensor([1.0, 3.0, 2.0, 3.0]), 0).indices,
        "and": lambda m: (m.tensor(x) > 0) & (m.tensor(x) < 2),
    }.items():
        np.testing.assert_array_equal(call(ag).numpy(), call(torch).numpy(), err_msg=name)


def test_out_argument_as_torch(torch):
    t_out, e_out = torch.zeros(2, 2), ag.zeros(2, 2)
    torch.mul(torch.ones(2, 2), 3, out=t_out)
    ag.mul(ag.ones(2, 2), 3, out=e_out)
    assert e_out.tolist() == t_out.tolist()
    with pytest.raises(RuntimeError) as t_err:
        torch.mul(torch.ones(2, requires_grad=True), 2, out=torch.zeros(2))
    with pytest.raises(RuntimeError) as e_err:
        ag.mul(ag.ones(2, requires_grad=True), 2, out=ag.zeros(2))
    assert str(e_err.value) == str(t_err.value)


def test_errors_as_torch(torch):
    for call in (lambda m: m.narrow(m.zeros(3), 0, 2, 2), lambda m: m.block_diag(m.zeros(1, 1, 1))):
        with pytest.raises(RuntimeError) as t_err:
            call(torch)
        with pytest.raises(RuntimeError) as e_err:
            call(ag)
        assert str(e_err.value) == str(t_err.value)


SCHEDULERS = {
    "StepLR": lambda s, o: s.StepLR(o, step_size=3, gamma=0.5),
    "MultiStepLR": lambda s, o: s.MultiStepLR(o, milestones=[2, 5], gamma=0.3),
    "ExponentialLR": lambda s, o: s.ExponentialLR(o, gamma=0.9),
    "LambdaLR": lambda s, o: s.LambdaLR(o, lr_lambda=lambda e: 1 / (e + 1)),
    "MultiplicativeLR": lambda s, o: s.MultiplicativeLR(o, lr_lambda=lambda e: 0.95),
    "ConstantLR": lambda s, o: s.ConstantLR(o, factor=0.5, total_iters=4),
    "LinearLR": lambda s, o: s.LinearLR(o, start_factor=0.2, total_iters=6),
    "PolynomialLR": lambda s, o: s.PolynomialLR(o, total_iters=7, power=0.9),
    "CosineAnnealingLR": lambda s, o: s.CosineAnnealingLR(o, T_max=4, eta_min=0.01),
    "CosineAnnealingWarmRestarts": lambda s, o: s.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2),
    "SequentialLR": lambda s, o: s.SequentialLR(o, [s.ConstantLR(o, factor=0.1, total_iters=2),
                                                    s.ExponentialLR(o, gamma=0.9)], milestones=[3]),
    "ChainedScheduler": lambda s, o: s.ChainedScheduler([s.ConstantLR(o, factor=0.1, total_iters=2),
                                                         s.ExponentialLR(o, gamma=0.9)]),
}


@pytest.mark.parametrize("name", sorted(SCHEDULERS))
def test_schedulers_as_torch(torch, name):
    def rates(m):
        w = m.zeros(1, requires_grad=True)
        opt = m.optim.SGD([{"params": [w]}, {"params": [m.zeros(1, requires_grad=True)], "lr": 0.2}], lr=0.05)
        sched = SCHEDULERS[name](m.optim.lr_scheduler, opt)
        seen = [[g["lr"] for g in opt.param_groups]]
        for _ in range(12):
            opt.step()
            sched.step()
            seen.append(list(sched.get_last_lr()))
        return seen
    np.testing.assert_allclose(rates(ag), rates(torch), rtol=1e-13)


def test_reduce_on_plateau_as_torch(torch):
    losses = [1.0, 0.9, 0.95, 0.95, 0.95, 0.89, 0.9, 0.9, 0.9, 0.9]

    def rates(m):
        opt = m.optim.SGD([m.zeros(1, requires_grad=True)], lr=0.1)
        sched = m.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=2, factor=0.5, cooldown=1)
        out = []
        for loss in losses:
            sched.step(loss)
            out.append(opt.param_groups[0]["lr"])
        return out
    assert rates(ag) == pytest.approx(rates(torch), rel=1e-14)


def test_sequential_insert_and_extend_as_torch(torch):
    def layout(m):
        seq = m.nn.Sequential(m.nn.Linear(1, 2), m.nn.Linear(2, 3))
        seq.insert(1, m.nn.ReLU())
        seq.extend(m.nn.Sequential(m.nn.Tanh()))
        return [type(x).__name__ for x in seq], [name for name, _ in seq.named_children()]
    assert layout(ag) == layout(torch)


def test_constants():
    assert ag.pi == math.pi and ag.e == math.e and ag.inf == math.inf and math.isnan(ag.nan)
