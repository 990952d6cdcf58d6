"""Short-time Fourier analysis: the window functions (``hann_window``, ``hamming_window``,
``blackman_window``, ``bartlett_window``, ``kaiser_window``, computed in PyTorch's order of
operations) and ``stft`` (with ``istft``, its inverse by windowed overlap-add), composed as PyTorch composes it — the signal padded at both ends
(``center``), cut into overlapping frames, each multiplied by the window and transformed
(``FftR2CBackward0``), so its gradient flows through the same nodes.

>>> from diffcompare import autograd as ag
>>> ag.hann_window(4)
tensor([0.0000, 0.5000, 1.0000, 0.5000])
>>> ag.stft(ag.ones(8), 4, hop_length=2, window=ag.ones(4), return_complex=True, center=False)[:, 0]
tensor([4.+0.j, 0.+0.j, 0.+0.j])
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from ..dtypes import default_dtype
from ..tensor import Tensor
from .fourier import BY_ROOT_N, NONE, c2c, ifft, irfft, r2c
from .selection import index_add
from .pointwise import view_as_real
from .resampling import nonconstant_pad
from .layers import constant_pad_nd
from .special_functions import i0_array

PUBLIC = ("bartlett_window", "blackman_window", "hamming_window", "hann_window", "istft", "kaiser_window", "stft")
__all__ = [*PUBLIC]


def _window(name, window_length, periodic, dtype, requires_grad, make):
    """A window of ``window_length`` points: ``make(n, positions)`` on n points (one more when
    ``periodic``, the last then dropped), in ``dtype`` (floating)."""
    dtype = np.dtype(dtype or default_dtype())
    if dtype.kind != "f":
        raise RuntimeError(f"{name} expects floating point dtypes, got: {dtype}")
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got window_length={window_length}")
    if window_length <= 1:
        values = np.ones(window_length, dtype)
    else:
        n = window_length + 1 if periodic else window_length
        values = make(n, np.arange(n, dtype=dtype))
        if periodic:
            values = values[:-1].copy()
    out = Tensor._make(values)
    out.requires_grad = requires_grad
    return out


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None, layout=None, device=None,
                   requires_grad=False):
    """alpha - beta cos(2 pi n / (N - 1)), as ``torch.hamming_window``."""
    return _window("hamming_window", window_length, periodic, dtype, requires_grad,
                   lambda n, k: np.cos(k * (2 * math.pi / (n - 1))) * -beta + alpha)


def hann_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, requires_grad=False):
    """0.5 - 0.5 cos(2 pi n / (N - 1)) (a Hamming window with alpha = beta = 1/2)."""
    return hamming_window(window_length, periodic, 0.5, 0.5, dtype=dtype, requires_grad=requires_grad)


def blackman_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, requires_grad=False):
    """0.42 - 0.5 cos(2 pi n / (N - 1)) + 0.08 cos(4 pi n / (N - 1))."""
    def make(n, k):
        w = k * (math.pi / (n - 1))
        return np.cos(w * 4) * 0.08 - np.cos(w * 2) * 0.5 + 0.42
    return _window("blackman_window", window_length, periodic, dtype, requires_grad, make)


def bartlett_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, requires_grad=False):
    """The triangle 1 - |2n / (N - 1) - 1|."""
    def make(n, k):
        w = k * (2.0 / (n - 1))
        half = ((n - 1) >> 1) + 1
        w[half:] = 2 - w[half:]
        return w
    return _window("bartlett_window", window_length, periodic, dtype, requires_grad, make)


def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, layout=None, device=None,
                  requires_grad=False):
    """I0(beta sqrt(1 - ((n - a) / a)^2)) / I0(beta), a = (N - 1) / 2."""
    def make(n, k):
        a = (n - 1) / 2.0
        return (i0_array(beta * np.sqrt(np.maximum(0.0, 1 - ((k - a) / a) ** 2))) / i0_array(np.float64(beta))).astype(k.dtype)
    return _window("kaiser_window", window_length, periodic, dtype, requires_grad, make)


def stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True, pad_mode="reflect",
         normalized=False, onesided=None, return_complex=None):
    """The short-time Fourier transform of a signal (L,) or a batch (B, L): (n_fft // 2 + 1
    frequencies or n_fft, frames), as ``torch.stft``. ``return_complex`` must be given for a
    real signal (PyTorch's rule); False gives the real and imaginary parts in a last axis."""
    complex_input = input.dtype.kind == "c"
    if return_complex is None:
        if not complex_input and (window is None or window.dtype.kind != "c"):
            raise RuntimeError("stft requires the return_complex parameter be given for real inputs, and will "
                               "further require that return_complex=True in a future PyTorch release.")
        return_complex = True
    hop = n_fft // 4 if hop_length is None else int(hop_length)
    win_length = n_fft if win_length is None else int(win_length)
    if input.ndim not in (1, 2):
        raise RuntimeError(f"stft: expected a 1D or 2D tensor, but got {input.ndim}D tensor")
    x = input.unsqueeze(0) if input.ndim == 1 else input
    if center:
        half = n_fft // 2
        if pad_mode == "constant":
            x = constant_pad_nd(x.unsqueeze(1), (half, half)).squeeze(1)
        else:
            x = nonconstant_pad(x.unsqueeze(1), (half, half), pad_mode).squeeze(1)
    length = x.shape[-1]
    if not 0 < n_fft <= length:
        raise RuntimeError(f"stft: expected 0 < n_fft < {length}, but got n_fft={n_fft}")
    if hop <= 0:
        raise RuntimeError(f"stft: expected hop_length > 0, but got hop_length={hop}")
    if not 0 < win_length <= n_fft:
        raise RuntimeError(f"stft: expected 0 < win_length <= n_fft, but got win_length={win_length}")
    frames = x.unfold(-1, n_fft, hop)                        # (B, frames, n_fft)
    if window is None:
        warnings.warn("A window was not provided. A rectangular window will be applied,which is known to cause "
                      "spectral leakage. Other windows such as torch.hann_window or torch.hamming_window are "
                      "recommended to reduce spectral leakage.To suppress this warning and use a rectangular "
                      "window, explicitly set `window=torch.ones(n_fft, device=<device>)`.", UserWarning, stacklevel=2)
        if win_length < n_fft:         # ones over win_length, zeros around them
            frames = frames * _padded_window("stft", None, win_length, n_fft, x.dtype)
    else:
        frames = frames * _padded_window("stft", window, win_length, n_fft, x.dtype)
    mode = BY_ROOT_N if normalized else NONE
    if frames.dtype.kind == "c":
        if onesided:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        spectrum = c2c(frames, (frames.ndim - 1,), mode, True)
    else:
        spectrum = r2c(frames, (frames.ndim - 1,), mode, True if onesided is None else bool(onesided))
    spectrum = spectrum.transpose(-1, -2)
    if input.ndim == 1:
        spectrum = spectrum.squeeze(0)
    return spectrum if return_complex else view_as_real(spectrum)


def _padded_window(name, window, win_length, n_fft, dtype):
    """The window (ones when None) centred in ``n_fft`` points."""
    if window is None:
        window = Tensor._make(np.ones(win_length, dtype))
    elif window.ndim != 1 or window.shape[0] != win_length:
        raise RuntimeError(f"{name}: expected a 1D window tensor of size equal to win_length={win_length}, but got "
                           f"window with size {tuple(window.shape)}")
    if win_length < n_fft:
        left = (n_fft - win_length) // 2
        window = constant_pad_nd(window, (left, n_fft - win_length - left))
    return window


def istft(input, n_fft, hop_length=None, win_length=None, window=None, center=True, normalized=False,
          onesided=None, length=None, return_complex=False):
    """The inverse of ``stft``: each frame transformed back, windowed, added where frames
    overlap and divided by the overlapped squared window (the least-squares estimate), then
    trimmed to ``length``, as ``torch.istft``; refused where the window's overlap-add
    vanishes (the NOLA condition)."""
    if input.dtype.kind != "c":
        raise RuntimeError("istft requires a complex-valued input tensor matching the output from stft with "
                           "return_complex=True.")
    hop = n_fft // 4 if hop_length is None else int(hop_length)
    win_length = n_fft if win_length is None else int(win_length)
    if input.ndim not in (2, 3):
        raise RuntimeError(f"istft: expected a tensor with 2 or 3 dimensions of complex, but got {input.ndim}")
    x = input.unsqueeze(0) if input.ndim == 2 else input
    fft_size, n_frames = x.shape[-2], x.shape[-1]
    onesided = fft_size != n_fft if onesided is None else bool(onesided)
    if onesided and n_fft // 2 + 1 != fft_size:
        raise RuntimeError(f"istft: expected the frequency dimension (3rd to the last) of the input tensor to match "
                           f"n_fft / 2 + 1 when onesided=True, but got {fft_size}")
    if return_complex and onesided:
        raise RuntimeError("cannot have onesided output if window or input is complex")
    real_dtype = np.dtype(np.float64 if x.dtype == np.complex128 else np.float32)
    window = _padded_window("istft", window, win_length, n_fft, real_dtype)
    norm = "ortho" if normalized else "backward"
    x = x.transpose(1, 2)                                           # (B, frames, frequencies)
    if return_complex:
        frames = ifft(x, n_fft, -1, norm)
    else:
        frames = irfft(x if onesided else x.narrow(-1, 0, n_fft // 2 + 1), n_fft, -1, norm)
    frames = frames * window
    total = n_fft + hop * (n_frames - 1)
    places = Tensor._make((np.arange(n_frames)[:, None] * hop + np.arange(n_fft)).reshape(-1))
    batch = frames.shape[0]
    y = index_add(Tensor._make(np.zeros((batch, total), frames.dtype)), 1, places, frames.reshape(batch, -1))
    envelope = np.zeros(total, real_dtype)
    np.add.at(envelope, places._data, np.tile(window._data.astype(real_dtype) ** 2, n_frames))
    start = n_fft // 2 if center else 0
    end = start + length if length is not None else (total - n_fft // 2 if center else total)
    y, envelope = y[:, start:min(end, total)], envelope[start:min(end, total)]
    if envelope.size and np.abs(envelope).min() < 1e-11:
        raise RuntimeError(f"istft(...): window overlap add min: {np.abs(envelope).min():.0f}")
    y = y / Tensor._make(envelope)
    if end > total:
        y = constant_pad_nd(y, (0, end - total))
    return y.squeeze(0) if input.ndim == 2 else y
