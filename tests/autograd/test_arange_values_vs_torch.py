"""``arange`` with a fractional start or step: PyTorch's values to the last bit (its CPU kernel's
roundings, not NumPy's), so that a function with a kink at a grid point — d2l's
``relu(arange(-8.0, 8.0, 0.1))`` — has PyTorch's gradient there; and a float64 check that does
not use PyTorch: each value is the correctly rounded ``start + step * i`` or within an ulp of it."""

import numpy as np
import pytest

from diffcompare import autograd as ag

torch = pytest.importorskip("torch")

CASES = [(-8.0, 8.0, 0.1), (0.0, 1.0, 0.01), (-3.3, 7.1, 1 / 3), (1.5, 40.0, 0.7), (0.1, 0.9, 0.1),
         (-1.0, 1.0, 0.05), (2.0, -2.0, -0.3), (0, 5, 0.25), (0.5, 5, 1), (-10.0, 10.0, 0.013)]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("start, end, step", CASES)
def test_values_are_pytorchs(start, end, step, dtype):
    ours = ag.arange(start, end, step, dtype=getattr(ag, dtype)).numpy()
    theirs = torch.arange(start, end, step, dtype=getattr(torch, dtype)).numpy()
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
    assert (ours == theirs).all(), np.nonzero(ours != theirs)[0][:5]


def test_random_grids_are_pytorchs():
    rng = np.random.default_rng(7)
    for _ in range(200):
        start, step = float(rng.uniform(-10, 10)), float(rng.uniform(0.001, 1.0))
        end = start + step * int(rng.integers(1, 600)) + float(rng.uniform(0, step))
        assert (ag.arange(start, end, step).numpy() == torch.arange(start, end, step, dtype=torch.float64).numpy()).all()


def test_relus_gradient_at_the_grid_point_zero_is_pytorchs():
    torch.set_default_dtype(torch.float64)
    try:
        xt = torch.arange(-8.0, 8.0, 0.1, requires_grad=True)
        torch.relu(xt).backward(torch.ones_like(xt))
    finally:
        torch.set_default_dtype(torch.float32)
    xe = ag.arange(-8.0, 8.0, 0.1, requires_grad=True)
    ag.relu(xe).backward(ag.ones_like(xe))
    assert (xe.grad.numpy() == xt.grad.numpy()).all()
    assert xe.grad[80].item() == 1.0          # x[80] is 4.4e-16 > 0, not NumPy's -2.8e-14


def test_each_value_is_within_an_ulp_of_the_exact_grid_point():
    from fractions import Fraction
    start, step = -8.0, 0.1
    values = ag.arange(start, 8.0, step).numpy()
    for i, v in enumerate(values):
        exact = float(Fraction(start) + Fraction(step) * i)       # the rounded exact value
        assert abs(v - exact) <= np.spacing(max(abs(exact), 1.0)), (i, v, exact)
