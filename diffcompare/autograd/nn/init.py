"""``torch.nn.init``: in-place initialisation of parameters, as PyTorch's (the same gains and
fans, and the same draws: each function calls the tensor's ``uniform_``/``normal_``, so a
generator seeded as PyTorch's gives PyTorch's numbers). Every function runs without
recording and returns the tensor.

>>> from diffcompare import autograd as ag
>>> w = ag.empty(3, 5)
>>> nn_init_result = xavier_uniform_(w, gain=calculate_gain("relu"))
>>> nn_init_result is w, float(w.abs().max()) <= math.sqrt(2.0) * math.sqrt(6.0 / 8.0)
(True, True)
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from ..grad_mode import no_grad
from ..tensor import Tensor, empty, randperm

_LINEAR = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d")


def calculate_gain(nonlinearity, param=None):
    """The recommended gain for ``nonlinearity`` (PyTorch's table)."""
    if nonlinearity in _LINEAR or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            negative_slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, (int, float)):
            negative_slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + negative_slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor):
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    receptive = math.prod(tensor.shape[2:]) if tensor.dim() > 2 else 1
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


def _calculate_correct_fan(tensor, mode):
    """The fan ``mode`` names ("fan_in" or "fan_out"): PyTorch's private helper, which
    initialisers outside PyTorch import too (SIREN's)."""
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of {['fan_in', 'fan_out']}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    with no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """N(mean, std²) truncated to [a, b], by rejection as PyTorch 2.13 draws it: normal draws
    redrawn where outside [a, b] when the interval holds more than 0.3 of the mass, else
    uniform draws on [a, b] accepted with the normal density's ratio to its peak."""
    def norm_cdf(x):
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The distribution of values "
                      "may be incorrect.", stacklevel=2)
    dtype = tensor._data.dtype
    lo, hi = dtype.type(a), dtype.type(b)

    def draw(method, *args):
        return getattr(empty(*tensor.shape, dtype=tensor.dtype), method)(*args, generator=generator)._data

    with no_grad():
        if norm_cdf((b - mean) / std) - norm_cdf((a - mean) / std) > 0.3:
            result = tensor.normal_(mean, std, generator=generator)._data.copy()
            while True:
                outside = (result < lo) | (result > hi)
                if not outside.any():
                    break
                result = np.where(outside, draw("normal_", mean, std), result)
        else:
            mode = max(a, min(mean, b))
            log_peak = -0.5 * ((mode - mean) / std) ** 2
            result = tensor.uniform_(a, b, generator=generator)._data.copy()
            log_pdf = -0.5 * ((result - mean) / std) ** 2 - log_peak
            pending = np.log(draw("uniform_", 0.0, 1.0)) > log_pdf
            while pending.any():
                candidates = draw("uniform_", a, b)
                result = np.where(pending, candidates, result)
                log_pdf = -0.5 * ((candidates - mean) / std) ** 2 - log_peak
                pending = np.where(pending, np.log(draw("uniform_", 0.0, 1.0)) > log_pdf, pending)
        tensor._data[...] = result.astype(dtype)
        tensor._bump()
        return tensor


_no_grad_uniform_, _no_grad_normal_, _no_grad_trunc_normal_ = uniform_, normal_, trunc_normal_   # PyTorch's
#   private names of the same, which initialisers outside PyTorch import (timm's, older ones)


def constant_(tensor, val):
    with no_grad():
        return tensor.fill_(val)


def ones_(tensor):
    return constant_(tensor, 1.0)


def zeros_(tensor):
    with no_grad():
        return tensor.zero_()


_no_grad_fill_, _no_grad_zero_ = constant_, zeros_


def eye_(tensor):
    """The identity matrix (a 2-d tensor)."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with no_grad():
        tensor._data[...] = np.eye(*tensor.shape, dtype=tensor._data.dtype)
        tensor._bump()
    return tensor


def dirac_(tensor, groups=1):
    """The Dirac delta (identity) kernel of a convolution, in each of ``groups`` groups."""
    dims = tensor.dim()
    if dims not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tensor.shape
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    out_per_group = sizes[0] // groups
    with no_grad():
        data = np.zeros(sizes, dtype=tensor._data.dtype)
        for g in range(groups):
            for d in range(min(out_per_group, sizes[1])):
                data[(g * out_per_group + d, d) + tuple(s // 2 for s in sizes[2:])] = 1
        tensor._data[...] = data
        tensor._bump()
    return tensor


def xavier_uniform_(tensor, gain=1.0, generator=None):
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    bound = math.sqrt(3.0) * gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)), generator)


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    bound = math.sqrt(3.0) * calculate_gain(nonlinearity, a) / math.sqrt(_calculate_correct_fan(tensor, mode))
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    std = calculate_gain(nonlinearity, a) / math.sqrt(_calculate_correct_fan(tensor, mode))
    return normal_(tensor, 0, std, generator)


def orthogonal_(tensor, gain=1, generator=None):
    """A (semi-)orthogonal matrix: the Q of the QR decomposition of a normal draw, its signs
    fixed by R's diagonal, as PyTorch's."""
    if tensor.dim() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    flattened = empty(rows, cols, dtype=tensor.dtype).normal_(0, 1, generator=generator)._data
    if rows < cols:
        flattened = flattened.T
    q, r = np.linalg.qr(flattened)
    q = q * np.sign(np.diag(r))
    if rows < cols:
        q = q.T
    with no_grad():
        tensor._data[...] = (q * gain).reshape(tensor.shape).astype(tensor._data.dtype)
        tensor._bump()
    return tensor


def sparse_(tensor, sparsity, std=0.01, generator=None):
    """A normal draw with a fraction ``sparsity`` of each column set to zero."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    num_zeros = int(math.ceil(sparsity * rows))
    with no_grad():
        tensor.normal_(0, std, generator=generator)
        for col in range(cols):
            zero_rows = randperm(rows)[:num_zeros]
            tensor[zero_rows, col] = 0
    return tensor


def _deprecated(function):
    """The name without the trailing underscore, as older code writes it (``nn.init.xavier_uniform(w)``):
    the same function, with PyTorch's FutureWarning."""
    new_name = function.__name__
    old_name = new_name[:-1]

    def deprecated_init(*args, **kwargs):
        warnings.warn(f"`nn.init.{old_name}` is now deprecated in favor of `nn.init.{new_name}`.", FutureWarning,
                      stacklevel=2)
        return function(*args, **kwargs)
    deprecated_init.__name__ = deprecated_init.__qualname__ = old_name
    deprecated_init.__doc__ = f"``{old_name}(...)``: deprecated in favor of :func:`{new_name}`."
    return deprecated_init


uniform, normal, constant, eye, dirac = (_deprecated(f) for f in (uniform_, normal_, constant_, eye_, dirac_))
xavier_uniform, xavier_normal = _deprecated(xavier_uniform_), _deprecated(xavier_normal_)
kaiming_uniform, kaiming_normal = _deprecated(kaiming_uniform_), _deprecated(kaiming_normal_)
orthogonal, sparse = _deprecated(orthogonal_), _deprecated(sparse_)

__all__ = ["calculate_gain", "constant", "constant_", "dirac", "dirac_", "eye", "eye_", "kaiming_normal",
           "kaiming_normal_", "kaiming_uniform", "kaiming_uniform_", "normal", "normal_", "ones_", "orthogonal",
           "orthogonal_", "sparse", "sparse_", "trunc_normal_", "uniform", "uniform_", "xavier_normal",
           "xavier_normal_", "xavier_uniform", "xavier_uniform_", "zeros_"]
