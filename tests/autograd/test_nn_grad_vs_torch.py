"""``torch.nn.grad`` (``F.grad``): a convolution's input and weight gradients from its output's,
checked by hand on a small case and against PyTorch's ``convolution_backward`` where installed."""

from __future__ import annotations

import numpy as np
import pytest

from diffcompare import autograd as ag

F = ag.nn.functional


def test_one_dimensional_by_hand():
    """conv1d of 4 inputs with taps (1, 2), output gradient ones(3): input i gets the taps it
    meets (1, 1+2, 1+2, 2); tap k gets the sum of the inputs it met (x1+x2+x3, x2+x3+x4)."""
    x = ag.tensor([[[1.0, 2.0, 3.0, 4.0]]])
    w = ag.tensor([[[1.0, 2.0]]])
    assert F.grad.conv1d_input(x.shape, w, ag.ones(1, 1, 3)).tolist() == [[[1.0, 3.0, 3.0, 2.0]]]
    assert F.grad.conv1d_weight(x, w.shape, ag.ones(1, 1, 3)).tolist() == [[[6.0, 9.0]]]
    assert ag.nn.grad is F.grad


@pytest.mark.parametrize("d, kw", [(1, dict(stride=2, padding=1)), (2, dict(dilation=2, groups=2)), (3, dict(padding=1))])
def test_as_pytorch(d, kw):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(d)
    xs, ws = (2, 4) + (6,) * d, (6, 4 // kw.get("groups", 1)) + (3,) * d
    X, W = rng.standard_normal(xs), rng.standard_normal(ws)
    seen = {}
    for lib in (torch, ag):
        x, w = lib.tensor(X, requires_grad=True), lib.tensor(W, requires_grad=True)
        out = getattr(lib.nn.functional, f"conv{d}d")(x, w, **kw)
        go = lib.tensor(np.cos(np.arange(out.numel())).reshape(tuple(out.shape)))
        gi = getattr(lib.nn.functional.grad, f"conv{d}d_input")(x.shape, w, go, **kw)
        gw = getattr(lib.nn.functional.grad, f"conv{d}d_weight")(x, w.shape, go, **kw)
        seen[lib] = (gi.detach().numpy(), gw.detach().numpy(), gi.requires_grad, gw.requires_grad)
    assert np.allclose(seen[ag][0], seen[torch][0], rtol=1e-12, atol=1e-12)
    assert np.allclose(seen[ag][1], seen[torch][1], rtol=1e-12, atol=1e-12)
    assert seen[ag][2:] == seen[torch][2:]
