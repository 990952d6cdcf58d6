"""``optim.Muon``: the bfloat16 rounding by hand, the Newton–Schulz iteration emulated in
bfloat16 bit for bit against PyTorch's (small matrices), and the optimizer's steps."""

from __future__ import annotations

import numpy as np
import pytest

from diffcompare import autograd as ag
from diffcompare.autograd.dtypes import round_to_bfloat16
from diffcompare.autograd.optim.muon import zeropower_via_newtonschulz

COEFFS = (3.4445, -4.7750, 2.0315)


def test_bfloat16_rounding_by_hand():
    """bfloat16 keeps 8 significant bits: 1 + 2^-8 is a tie (to even: 1), 1 + 3 * 2^-8 rounds up
    to 1 + 2^-6; infinities and NaN stay."""
    values = np.array([1.0 + 2 ** -8, 1.0 + 3 * 2 ** -8, -2.0 ** 100, np.inf, np.nan])
    out = round_to_bfloat16(values)
    assert out[:4].tolist() == [1.0, 1.0 + 2 ** -6, -2.0 ** 100, np.inf] and np.isnan(out[4])


def test_orthogonalisation_of_an_orthogonal_matrix_stays_near_it():
    """A rotation is its own orthogonal factor: the iteration returns it up to S' in about (0.7, 1.2)."""
    c, s = np.cos(0.3), np.sin(0.3)
    out = zeropower_via_newtonschulz(np.array([[c, -s], [s, c]]) * 5.0, COEFFS, 5, 1e-7)
    singular = np.linalg.svd(out.astype(np.float64), compute_uv=False)
    assert np.all((singular > 0.6) & (singular < 1.3))
    assert np.allclose(out / singular[0], [[c, -s], [s, c]], atol=0.05)


def test_refusals():
    with pytest.raises(ValueError, match="Muon only supports 2D parameters"):
        ag.optim.Muon([ag.ones(3, requires_grad=True)])
    with pytest.raises(ValueError, match="Adjust learning rate function half is not supported"):
        ag.optim.Muon([ag.ones(2, 2, requires_grad=True)], adjust_lr_fn="half")


@pytest.mark.parametrize("shape", [(16, 4), (4, 16), (1, 8), (8, 8)])
def test_iteration_bit_for_bit_as_pytorch(shape):
    torch = pytest.importorskip("torch")
    muon = pytest.importorskip("torch.optim._muon")
    rng = np.random.default_rng(sum(shape))
    for _ in range(5):
        g = rng.standard_normal(shape)
        theirs = muon._zeropower_via_newtonschulz(torch.tensor(g), COEFFS, 5, 1e-7).float().numpy()
        assert np.array_equal(zeropower_via_newtonschulz(g, COEFFS, 5, 1e-7), theirs)


def test_steps_as_pytorch():
    """Five steps on two matrices: within one bfloat16 rounding of the update (the gradients
    differ in their last bits, which can move an update entry across a rounding boundary)."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    W0, V0, X = rng.standard_normal((16, 4)), rng.standard_normal((3, 16)), rng.standard_normal((8, 4))
    seen = {}
    for lib in (torch, ag):
        W = lib.tensor(W0, requires_grad=True, dtype=lib.float64)
        V = lib.tensor(V0, requires_grad=True, dtype=lib.float64)
        opt = lib.optim.Muon([W, V], lr=0.02, momentum=0.95, adjust_lr_fn="match_rms_adamw")
        for _ in range(5):
            opt.zero_grad()
            ((lib.tensor(X, dtype=lib.float64) @ W.T).tanh() @ V.T).pow(2).sum().backward()
            opt.step()
        seen[lib] = (W.detach().numpy().copy(), V.detach().numpy().copy())
    for mine, theirs in zip(seen[ag], seen[torch]):
        assert np.allclose(mine, theirs, rtol=0, atol=0.02 * 0.2 * 4 * 2 ** -7 * 5)
