"""Discrete Fourier transforms (``torch.fft``), built as PyTorch builds them: three kernels
(complex to complex, real to complex, complex to real; ``FftC2CBackward0``,
``FftR2CBackward0``, ``FftC2RBackward0``), each scaled by its normalization mode, and every
public transform composed of them with PyTorch's padding, cropping, conjugations and casts,
so that the graph has PyTorch's nodes and each gradient is PyTorch's (its
``fft_r2c_backward`` and ``fft_c2r_backward``).

A kernel's normalization is a scale: 1, 1/sqrt(n) or 1/n (``NONE``, ``BY_ROOT_N``,
``BY_N``) with n the number of points transformed; ``norm="backward"`` means none on the
forward transform and 1/n on the inverse, ``"forward"`` the other way round, ``"ortho"``
1/sqrt(n) on both. The backward of a kernel is the adjoint transform with the same scale.

>>> from diffcompare import autograd as ag
>>> ag.fft.fft(ag.tensor([1.0, 2.0, 3.0, 4.0]))
tensor([10.+0.j, -2.+2.j, -2.+0.j, -2.-2.j])
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from ..dtypes import default_dtype, scalar_type_name
from ..tensor import Tensor
from .composites import narrow
from .elementwise import conj
from .inplace import rename_node_of
from .layers import constant_pad_nd
from .outputs import write_out
from .recording import Op, apply, check_dim
from .selection import roll
from .shape import to

NONE, BY_ROOT_N, BY_N = 0, 1, 2


def norm_mode(norm, forward):
    """The scale of a transform in direction ``forward`` under ``norm`` (PyTorch's
    ``norm_from_string``)."""
    if norm is None or norm == "backward":
        return NONE if forward else BY_N
    if norm == "forward":
        return BY_N if forward else NONE
    if norm == "ortho":
        return BY_ROOT_N
    raise RuntimeError(f'Invalid normalization mode: "{norm}"')


def _scaled(out, mode, n):
    if mode == BY_N:
        out *= 1.0 / n
    elif mode == BY_ROOT_N:
        out *= 1.0 / math.sqrt(n)
    return out


def _points(shape, dim):
    return math.prod(shape[d] for d in dim)


class FftC2CBackward0(Op):
    """A complex transform over ``dim``; its backward is the transform the other way."""

    @staticmethod
    def forward(x, dim, normalization, forward_direction):
        out = np.fft.fftn(x, axes=dim) if forward_direction else np.fft.ifftn(x, axes=dim, norm="forward")
        return _scaled(out, normalization, _points(x.shape, dim))

    def backward(self, g):
        return (c2c(g, self.dim, self.normalization, not self.forward_direction),)


class FftR2CBackward0(Op):
    """The forward transform of real values over ``dim``: all of it, or (``onesided``) the
    non-negative frequencies of the last dimension."""

    @staticmethod
    def forward(x, dim, normalization, onesided, last_size):
        out = np.fft.rfftn(x, axes=dim) if onesided else np.fft.fftn(x, axes=dim)
        return _scaled(out, normalization, _points(x.shape, dim))

    def backward(self, g):
        last = self.dim[-1]
        missing = self.last_size - g.shape[last]
        if self.onesided and missing > 0:       # the dropped half of the frequencies: zeros
            pad = [0, 0] * (g.ndim - 1 - last) + [0, missing]
            g = constant_pad_nd(g, pad) if isinstance(g, Tensor) else np.pad(g, [(0, 0)] * last + [(0, missing)] +
                                                                            [(0, 0)] * (g.ndim - 1 - last))
        full = c2c(g, self.dim, self.normalization, False)
        return (full.real if isinstance(full, Tensor) else np.real(full),)


class FftC2RBackward0(Op):
    """The inverse transform to real values of ``last_size`` points along the last of ``dim``
    from its non-negative frequencies (the rest taken as their conjugates)."""

    @staticmethod
    def forward(z, dim, normalization, last_size):
        sizes = [z.shape[d] for d in dim[:-1]] + [last_size]
        out = np.fft.irfftn(z, s=sizes, axes=dim, norm="forward")
        return _scaled(out, normalization, math.prod(sizes))

    def backward(self, g):
        # the forward transform of the gradient, with the frequencies whose mirror images
        # lie outside the one-sided half counted twice (PyTorch's fft_c2r_backward)
        gi = r2c(g, self.dim, self.normalization, True)
        last = self.dim[-1]
        twice = g.shape[last] - gi.shape[last]
        if twice > 0:
            weights = np.ones(gi.shape[last])
            weights[1:1 + twice] = 2.0
            gi = gi * weights.reshape((-1,) + (1,) * (gi.ndim - 1 - last))
        return (gi,)


def c2c(x, dim, normalization, forward_direction):
    """``FftC2CBackward0`` on a tensor (recorded) or an array (a backward's plain values)."""
    params = {"dim": tuple(dim), "normalization": normalization, "forward_direction": forward_direction}
    return apply(FftC2CBackward0, (x,), params) if isinstance(x, Tensor) else FftC2CBackward0.forward(x, **params)


def r2c(x, dim, normalization, onesided):
    params = {"dim": tuple(dim), "normalization": normalization, "onesided": onesided,
              "last_size": x.shape[dim[-1]]}
    return apply(FftR2CBackward0, (x,), params) if isinstance(x, Tensor) else FftR2CBackward0.forward(x, **params)


def c2r(z, dim, normalization, last_size):
    params = {"dim": tuple(dim), "normalization": normalization, "last_size": last_size}
    return apply(FftC2RBackward0, (z,), params) if isinstance(z, Tensor) else FftC2RBackward0.forward(z, **params)


# -- what the transforms share -----------------------------------------------------------------

def _promoted(x, require_complex):
    """``x`` as a transform takes it: integers and booleans in the default dtype, and (when
    ``require_complex``) real values as complex ones (ToCopyBackward0), as PyTorch promotes."""
    kind = x.dtype.kind
    if kind in "biu":
        x = to(x, default_dtype())
        kind = "f"
    if require_complex and kind == "f":
        x = to(x, np.result_type(x.dtype, np.complex64))
    return x


def _resized(x, dims, sizes):
    """``x`` cut (SliceBackward0) or zero-padded at the end (ConstantPadNdBackward0) to
    ``sizes`` along ``dims`` (PyTorch's ``resize_fft_input``)."""
    pad = [0] * (2 * x.ndim)
    padded = False
    for d, n in zip(dims, sizes):
        have = x.shape[d]
        if have < n:
            pad[2 * (x.ndim - 1 - d) + 1] = n - have
            padded = True
        elif have > n:
            x = narrow(x, d, 0, n)
    return constant_pad_nd(x, pad) if padded else x


def _check_points(n):
    if n < 1:
        raise RuntimeError(f"Invalid number of data points ({n}) specified")


def _one_dim(x, n, dim):
    """The dimension and the number of points of a one-dimensional transform."""
    d = check_dim(dim, x.ndim)
    n = x.shape[d] if n is None else int(n)
    _check_points(n)
    return d, n


def _shape_and_dims(x, s, dim):
    """The dimensions an n-dimensional transform runs over and its number of points along
    each (PyTorch's ``canonicalize_fft_shape_and_dim_args``)."""
    if isinstance(dim, numbers.Integral):
        dim = (dim,)
    if isinstance(s, numbers.Integral):
        s = (s,)
    dims = None
    if dim is not None:
        dims = tuple(check_dim(d, x.ndim) for d in dim)
        if len(set(dims)) != len(dims):
            raise RuntimeError("FFT dims must be unique")
    if s is not None:
        s = tuple(int(n) for n in s)
        if dims is not None and len(dims) != len(s):
            raise RuntimeError("When given, dim and shape arguments must have the same length")
        if len(s) > x.ndim:
            raise RuntimeError(f"Got shape with {len(s)} values but input tensor only has {x.ndim} dimensions.")
        if dims is None:
            dims = tuple(range(x.ndim - len(s), x.ndim))
        sizes = tuple(x.shape[d] if n == -1 else n for d, n in zip(dims, s))
    else:
        if dims is None:
            dims = tuple(range(x.ndim))
        sizes = tuple(x.shape[d] for d in dims)
    for n in sizes:
        _check_points(n)
    return dims, sizes


def _c2r_shape_and_dims(name, x, s, dim):
    """``_shape_and_dims`` for a transform to real values: the output's number of points
    along the last dimension, and the input sizes it reads (half of it, plus one)."""
    dims, sizes = _shape_and_dims(x, s, dim)
    if not dims:
        raise RuntimeError(f"{name} must transform at least one axis")
    last = 2 * (x.shape[dims[-1]] - 1) if s is None or (not isinstance(s, numbers.Integral) and s[-1] == -1) \
        else sizes[-1]
    _check_points(last)
    return dims, sizes[:-1] + (last // 2 + 1,), last


def _require_real(name, x):
    if x.dtype.kind == "c":
        raise RuntimeError(f"{name} expects a real input tensor, but got {scalar_type_name(x.dtype)}")


# -- the transforms ----------------------------------------------------------------------------

def fft(input, n=None, dim=-1, norm=None, *, out=None):
    """The discrete Fourier transform along ``dim`` (``n`` points: the input cut or
    zero-padded to them), as ``torch.fft.fft``.

    >>> from diffcompare import autograd as ag
    >>> ag.fft.fft(ag.tensor([0.0, 1.0, 0.0, 0.0]))
    tensor([ 1.+0.j,  0.-1.j, -1.+0.j,  0.+1.j])
    """
    return write_out(_c2c_or_r2c(input, n, dim, norm, True), out, "fft_fft")


def ifft(input, n=None, dim=-1, norm=None, *, out=None):
    """The inverse discrete Fourier transform along ``dim``, as ``torch.fft.ifft``.

    >>> from diffcompare import autograd as ag
    >>> ag.fft.ifft(ag.tensor([6.0 + 0j, -2 + 2j, -2, -2 - 2j]))
    tensor([0.+0.j, 1.+0.j, 2.+0.j, 3.+0.j])
    """
    return write_out(_c2c_or_r2c(input, n, dim, norm, False), out, "fft_ifft")


def _c2c_or_r2c(input, n, dim, norm, forward):
    x = _promoted(input, False)
    d, n = _one_dim(x, n, dim)
    x = _resized(x, (d,), (n,))
    mode = norm_mode(norm, forward)
    if x.dtype.kind == "c":
        return c2c(x, (d,), mode, forward)
    out = r2c(x, (d,), mode, False)
    return out if forward else conj(out)


def rfft(input, n=None, dim=-1, norm=None, *, out=None):
    """The transform of real values, its non-negative frequencies only (n // 2 + 1 of them).

    >>> from diffcompare import autograd as ag
    >>> ag.fft.rfft(ag.tensor([0.0, 1.0, 2.0, 3.0]))
    tensor([ 6.+0.j, -2.+2.j, -2.+0.j])
    """
    return write_out(_r2c_one_dim("rfft", input, n, dim, norm, True), out, "fft_rfft")


def ihfft(input, n=None, dim=-1, norm=None, *, out=None):
    """The inverse of ``hfft``: the inverse transform of real values, its non-negative
    frequencies only."""
    return write_out(_r2c_one_dim("ihfft", input, n, dim, norm, False), out, "fft_ihfft")


def _r2c_one_dim(name, input, n, dim, norm, forward):
    _require_real(name, input)
    x = _promoted(input, False)
    d, n = _one_dim(x, n, dim)
    x = _resized(x, (d,), (n,))
    out = r2c(x, (d,), norm_mode(norm, forward), True)
    return out if forward else conj(out)


def irfft(input, n=None, dim=-1, norm=None, *, out=None):
    """The inverse of ``rfft``: ``n`` real values (by default 2 (m - 1) from m frequencies).

    >>> from diffcompare import autograd as ag
    >>> ag.fft.irfft(ag.fft.rfft(ag.tensor([0.0, 1.0, 2.0, 3.0])))
    tensor([0., 1., 2., 3.])
    """
    return write_out(_c2r_one_dim(input, n, dim, norm, False), out, "fft_irfft")


def hfft(input, n=None, dim=-1, norm=None, *, out=None):
    """The transform of a Hermitian-symmetric signal given by its first half: ``n`` real values."""
    return write_out(_c2r_one_dim(input, n, dim, norm, True), out, "fft_hfft")


def _c2r_one_dim(input, n, dim, norm, forward):
    x = _promoted(input, True)
    d = check_dim(dim, x.ndim)
    if n is None:
        n = 2 * (x.shape[d] - 1)
    else:
        n = int(n)
        x = _resized(x, (d,), (n // 2 + 1,)) if n >= 1 else x
    _check_points(n)
    if forward:
        x = conj(x)
    return c2r(x, (d,), norm_mode(norm, forward), n)


def fftn(input, s=None, dim=None, norm=None, *, out=None):
    """The n-dimensional transform over ``dim`` (all dimensions by default; the last
    ``len(s)`` when only ``s`` is given), as ``torch.fft.fftn``."""
    return write_out(_c2c_n(input, s, dim, norm, True), out, "fft_fftn")


def ifftn(input, s=None, dim=None, norm=None, *, out=None):
    """The inverse n-dimensional transform, as ``torch.fft.ifftn``."""
    return write_out(_c2c_n(input, s, dim, norm, False), out, "fft_ifftn")


def fft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """The two-dimensional transform over the last two dimensions, as ``torch.fft.fft2``."""
    return write_out(_c2c_n(input, s, dim, norm, True), out, "fft_fft2")


def ifft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    return write_out(_c2c_n(input, s, dim, norm, False), out, "fft_ifft2")


def _c2c_n(input, s, dim, norm, forward):
    x = _promoted(input, True)
    dims, sizes = _shape_and_dims(x, s, dim)
    x = _resized(x, dims, sizes)
    return c2c(x, dims, norm_mode(norm, forward), forward) if dims else x


def rfftn(input, s=None, dim=None, norm=None, *, out=None):
    """``rfft`` in n dimensions: the last one halved, as ``torch.fft.rfftn``."""
    return write_out(_r2c_n("rfftn", input, s, dim, norm), out, "fft_rfftn")


def rfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    return write_out(_r2c_n("rfftn", input, s, dim, norm), out, "fft_rfft2")


def _r2c_n(name, input, s, dim, norm):
    _require_real(name, input)
    x = _promoted(input, False)
    dims, sizes = _shape_and_dims(x, s, dim)
    if not dims:
        raise RuntimeError(f"{name} must transform at least one axis")
    return r2c(_resized(x, dims, sizes), dims, norm_mode(norm, True), True)


def irfftn(input, s=None, dim=None, norm=None, *, out=None):
    """The inverse of ``rfftn``, as ``torch.fft.irfftn``."""
    return write_out(_c2r_n("irfftn", input, s, dim, norm), out, "fft_irfftn")


def irfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    return write_out(_c2r_n("irfftn", input, s, dim, norm), out, "fft_irfft2")


def _c2r_n(name, input, s, dim, norm):
    x = _promoted(input, True)
    dims, sizes, last = _c2r_shape_and_dims(name, x, s, dim)
    return c2r(_resized(x, dims, sizes), dims, norm_mode(norm, False), last)


def hfftn(input, s=None, dim=None, norm=None, *, out=None):
    """The n-dimensional transform of a Hermitian-symmetric signal given by its half along
    the last dimension: real values, as ``torch.fft.hfftn``."""
    return write_out(_hfft_n("hfftn", input, s, dim, norm), out, "fft_hfftn")


def hfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    return write_out(_hfft_n("hfftn", input, s, dim, norm), out, "fft_hfft2")


def _hfft_n(name, input, s, dim, norm):
    x = _promoted(input, True)
    dims, sizes, last = _c2r_shape_and_dims(name, x, s, dim)
    x = _resized(x, dims, sizes)
    mode = norm_mode(norm, True)
    if len(dims) > 1:
        x = c2c(x, dims[:-1], mode, True)
    return c2r(conj(x), dims[-1:], mode, last)


def ihfftn(input, s=None, dim=None, norm=None, *, out=None):
    """The inverse of ``hfftn``, as ``torch.fft.ihfftn``."""
    return write_out(_ihfft_n(input, s, dim, norm), out, "fft_ihfftn")


def ihfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    return write_out(_ihfft_n(input, s, dim, norm), out, "fft_ihfft2")


def _ihfft_n(input, s, dim, norm):
    _require_real("ihfftn", input)
    x = _promoted(input, False)
    dims, sizes = _shape_and_dims(x, s, dim)
    if not dims:
        raise RuntimeError("ihfftn must transform at least one axis")
    x = _resized(x, dims, sizes)
    mode = norm_mode(norm, False)
    half = r2c(x, dims[-1:], mode, True)
    if len(dims) == 1:
        return conj(half)
    return c2c(rename_node_of(conj(half), "ConjPhysicalBackward0"), dims[:-1], mode, False)


# -- frequencies and shifts --------------------------------------------------------------------

def fftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """The sample frequencies of an ``n``-point transform with spacing ``d``: 0, 1, ...,
    then the negative ones, over n d.

    >>> from diffcompare import autograd as ag
    >>> ag.fft.fftfreq(5)
    tensor([ 0.0000,  0.2000,  0.4000, -0.4000, -0.2000])
    """
    n = int(n)
    values = np.arange(n, dtype=np.dtype(dtype or default_dtype()))
    values[(n + 1) // 2:] = np.arange(-(n // 2), 0)
    return _frequencies(values, n, d, out, requires_grad)


def rfftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """The non-negative sample frequencies of ``rfft``: 0, 1, ..., n // 2, over n d.

    >>> from diffcompare import autograd as ag
    >>> ag.fft.rfftfreq(4)
    tensor([0.0000, 0.2500, 0.5000])
    """
    n = int(n)
    return _frequencies(np.arange(n // 2 + 1, dtype=np.dtype(dtype or default_dtype())), n, d, out, requires_grad)


def _frequencies(values, n, d, out, requires_grad):
    values *= 1.0 / (n * d)         # PyTorch multiplies by the reciprocal
    result = Tensor._make(values)
    if requires_grad:
        result.requires_grad = True
    return write_out(result, out, "fft_fftfreq")


def fftshift(input, dim=None):
    """The zero frequency moved to the middle: a roll by half of each dimension in ``dim``
    (all by default), as ``torch.fft.fftshift`` (RollBackward0).

    >>> from diffcompare import autograd as ag
    >>> ag.fft.fftshift(ag.fft.fftfreq(4))
    tensor([-0.5000, -0.2500,  0.0000,  0.2500])
    """
    return _shift(input, dim, lambda n: n // 2)


def ifftshift(input, dim=None):
    """The inverse of ``fftshift``."""
    return _shift(input, dim, lambda n: (n + 1) // 2)


def _shift(input, dim, amount):
    if dim is None:
        dims = tuple(range(input.ndim))
    elif isinstance(dim, numbers.Integral):
        dims = (check_dim(dim, input.ndim),)
    else:
        dims = tuple(check_dim(d, input.ndim) for d in dim)
    return roll(input, tuple(amount(input.shape[d]) for d in dims), dims)


PUBLIC = ()     # the transforms live in `torch.fft` (the namespace module `fft`), not at the top level
__all__ = ["FftC2CBackward0", "FftC2RBackward0", "FftR2CBackward0"]
