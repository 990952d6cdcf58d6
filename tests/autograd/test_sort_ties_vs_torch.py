"""sort and argsort order equal values as PyTorch's CPU kernel does (std::sort's steps when not
stable, std::stable_sort's when stable, NaN the largest): checked against PyTorch on rows with
many ties, and by hand on a stable sort."""

from __future__ import annotations

import numpy as np
import pytest

from diffcompare import autograd as ag


def test_stable_sort_by_hand():
    x = ag.tensor([1.0, float("nan"), 3.0, 1.0, float("nan")])
    assert ag.sort(x, descending=True, stable=True).indices.tolist() == [1, 4, 2, 0, 3]
    assert ag.sort(x, stable=True).indices.tolist() == [0, 3, 2, 1, 4]
    assert ag.argsort(ag.tensor([2, 1, 2, 1]), stable=True).tolist() == [1, 3, 0, 2]


@pytest.mark.parametrize("seed", range(6))
def test_ties_in_pytorchs_order(seed):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(seed)
    n = [5, 17, 40, 100, 300, 1000][seed]
    a = rng.integers(0, 4, (3, n)).astype(np.float64 if seed % 2 else np.int64)
    if seed % 2:
        a[rng.random(a.shape) < 0.2] = np.nan
    for descending in (False, True):
        for stable in (False, True):
            expected = torch.tensor(a).sort(dim=-1, descending=descending, stable=stable)
            got = ag.tensor(a).sort(dim=-1, descending=descending, stable=stable)
            assert np.array_equal(got.indices.numpy(), expected.indices.numpy())
            assert np.array_equal(got.values.numpy(), expected.values.numpy(), equal_nan=True)
            assert np.array_equal(ag.tensor(a).argsort(dim=0, descending=descending).numpy(),
                                  torch.tensor(a).argsort(dim=0, descending=descending).numpy())
