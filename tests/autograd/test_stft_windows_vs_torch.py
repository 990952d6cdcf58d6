"""Window functions, ``stft`` and ``view_as_real``/``view_as_complex``: by hand, and values,
gradients and nodes against PyTorch where installed."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from diffcompare import autograd as ag


def test_windows_by_hand():
    """Hann of 4 (periodic: 5 points, the last dropped): 0.5 - 0.5 cos(2 pi n / 4)."""
    assert np.allclose(ag.hann_window(4).numpy(), [0.0, 0.5, 1.0, 0.5])
    assert np.allclose(ag.bartlett_window(5, periodic=False).numpy(), [0.0, 0.5, 1.0, 0.5, 0.0])
    assert np.allclose(ag.hamming_window(3, periodic=False).numpy(), [0.08, 1.0, 0.08])
    assert ag.kaiser_window(1).tolist() == [1.0] and ag.blackman_window(0).numel() == 0


def test_stft_of_a_constant_by_hand():
    """Frames of ones under a rectangular window: n_fft at frequency 0, nothing elsewhere."""
    s = ag.stft(ag.ones(8), 4, hop_length=2, window=ag.ones(4), return_complex=True, center=False)
    assert tuple(s.shape) == (3, 3)
    assert np.allclose(s.numpy(), [[4, 4, 4], [0, 0, 0], [0, 0, 0]])
    with pytest.raises(RuntimeError, match="stft requires the return_complex parameter"):
        ag.stft(ag.ones(8), 4)


def test_view_as_real_and_back():
    z = ag.tensor([1 + 2j, 3 - 1j], requires_grad=True)
    r = ag.view_as_real(z)
    assert r.tolist() == [[1.0, 2.0], [3.0, -1.0]] and r.grad_fn.name() == "ViewAsRealBackward0"
    (r * ag.tensor([[1.0, 10.0], [100.0, 1000.0]])).sum().backward()
    assert z.grad.tolist() == [1 + 10j, 100 + 1000j]
    assert ag.view_as_complex(ag.tensor([[1.0, 2.0]])).tolist() == [1 + 2j]


@pytest.mark.parametrize("kw", [dict(n_fft=16), dict(n_fft=16, hop_length=5, win_length=10, window=True),
                                dict(n_fft=8, center=False, normalized=True, window=True),
                                dict(n_fft=12, onesided=False, pad_mode="constant"),
                                dict(n_fft=16, return_complex=False, window=True)])
def test_stft_as_pytorch(kw):
    torch = pytest.importorskip("torch")
    X = np.random.default_rng(0).standard_normal((2, 50))
    seen = {}
    for lib in (torch, ag):
        x = lib.tensor(X, requires_grad=True, dtype=lib.float64)
        k = dict(kw)
        k.setdefault("return_complex", True)
        if k.get("window"):
            k["window"] = lib.hann_window(k.get("win_length", k["n_fft"]), dtype=lib.float64)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            s = lib.stft(x, **k)
        w = lib.tensor(np.cos(np.arange(s.numel())).reshape(tuple(s.shape)))
        ((s.abs() * w).sum() if s.is_complex() else (s * w).sum()).backward()
        seen[lib] = (s.detach().numpy(), x.grad.numpy())
    assert seen[ag][0].shape == seen[torch][0].shape
    assert np.allclose(seen[ag][0], seen[torch][0], rtol=1e-12, atol=1e-12)
    assert np.allclose(seen[ag][1], seen[torch][1], rtol=1e-10, atol=1e-12)


def test_windows_as_pytorch():
    torch = pytest.importorskip("torch")
    for name in ("hann_window", "hamming_window", "blackman_window", "bartlett_window", "kaiser_window"):
        for n in (1, 2, 5, 8):
            for periodic in (True, False):
                theirs = getattr(torch, name)(n, periodic, dtype=torch.float64).numpy()
                assert np.allclose(getattr(ag, name)(n, periodic).numpy(), theirs, rtol=1e-13, atol=1e-15)


def test_istft_inverts_stft():
    """istft(stft(x)) is x (Hann window at 75 % overlap satisfies the NOLA condition)."""
    x = np.random.default_rng(1).standard_normal(64)
    w = ag.hann_window(16)
    s = ag.stft(ag.tensor(x), 16, window=w, return_complex=True)
    assert np.allclose(ag.istft(s, 16, window=w).numpy(), x, atol=1e-14)
    assert np.allclose(ag.istft(s, 16, window=w, length=50).numpy(), x[:50], atol=1e-14)
    with pytest.raises(RuntimeError, match="window overlap add min"):
        ag.istft(s, 16, window=ag.zeros(16))


@pytest.mark.parametrize("kw", [dict(n_fft=16, window=True), dict(n_fft=16, hop_length=4, win_length=12, window=True, length=60),
                                dict(n_fft=8, center=False, normalized=True), dict(n_fft=16, window=True, length=70)])
def test_istft_as_pytorch(kw):
    torch = pytest.importorskip("torch")
    X = np.random.default_rng(0).standard_normal((2, 64))
    seen = {}
    for lib in (torch, ag):
        k = dict(kw)
        win = lib.hann_window(k.get("win_length", k["n_fft"]), dtype=lib.float64) if k.pop("window", None) else None
        length = k.pop("length", None)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            S = lib.stft(lib.tensor(X, dtype=lib.float64), k["n_fft"], hop_length=k.get("hop_length"),
                         win_length=k.get("win_length"), window=win, center=k.get("center", True),
                         normalized=k.get("normalized", False), return_complex=True).detach().requires_grad_()
            y = lib.istft(S, window=win, length=length, **k)
        (y * lib.tensor(np.cos(np.arange(y.numel())).reshape(tuple(y.shape)))).sum().backward()
        seen[lib] = (y.detach().numpy(), S.grad.numpy())
    assert seen[ag][0].shape == seen[torch][0].shape
    assert np.allclose(seen[ag][0], seen[torch][0], rtol=1e-12, atol=1e-12)
    assert np.allclose(seen[ag][1], seen[torch][1], rtol=1e-10, atol=1e-12)


def test_signal_windows_by_hand():
    w = ag.signal.windows
    assert np.allclose(w.bartlett(5).numpy(), [0.0, 0.5, 1.0, 0.5, 0.0])
    assert np.allclose(w.gaussian(3, std=1.0).numpy(), [np.exp(-0.5), 1.0, np.exp(-0.5)])
    assert np.allclose(w.exponential(3, tau=2.0).numpy(), [np.exp(-0.5), 1.0, np.exp(-0.5)])
    assert np.allclose(w.cosine(2).numpy(), [np.sin(np.pi / 4), np.sin(3 * np.pi / 4)])
    with pytest.raises(ValueError, match="Tau must be positive"):
        w.exponential(3, tau=0.0)


def test_signal_windows_as_pytorch():
    torch = pytest.importorskip("torch")
    import torch.signal.windows as theirs
    for name in theirs.__all__:
        for M in (0, 1, 2, 5, 8):
            for sym in (True, False):
                kw = {"a": [0.5, 0.3, 0.2]} if name == "general_cosine" else {}
                expected = getattr(theirs, name)(M, sym=sym, dtype=torch.float64, **kw).numpy()
                mine = getattr(ag.signal.windows, name)(M, sym=sym, **kw).numpy()
                assert mine.shape == expected.shape and np.allclose(mine, expected, rtol=1e-13, atol=1e-15), name
