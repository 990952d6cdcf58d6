"""``torch.fft`` as ``ag.fft``: discrete Fourier transforms (one-, two- and n-dimensional,
complex, real and Hermitian), their sample frequencies and shifts, each differentiable with
PyTorch's nodes and gradients (see :mod:`.ops.fourier`).

>>> from diffcompare import autograd as ag
>>> x = ag.tensor([1.0, 2.0, 0.0, -1.0], requires_grad=True)
>>> ag.fft.fft(x).abs().pow(2).sum().backward()      # Parseval: the sum is 4 sum x^2, its gradient 8 x
>>> x.grad
tensor([ 8., 16.,  0., -8.])
"""

from __future__ import annotations

from .ops.fourier import (fft, fft2, fftfreq, fftn, fftshift, hfft, hfft2, hfftn, ifft, ifft2, ifftn, ifftshift, ihfft,
                          ihfft2, ihfftn, irfft, irfft2, irfftn, rfft, rfft2, rfftfreq, rfftn)
from .tensor import Tensor  # noqa: F401  (torch.fft.Tensor, as PyTorch's module has it)

__all__ = ['fft', 'fft2', 'fftfreq', 'fftn', 'fftshift', 'hfft', 'hfft2', 'hfftn', 'ifft', 'ifft2', 'ifftn', 'ifftshift',
           'ihfft', 'ihfft2', 'ihfftn', 'irfft', 'irfft2', 'irfftn', 'rfft', 'rfft2', 'rfftfreq', 'rfftn']
