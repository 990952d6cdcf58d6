"""``torch.nn``'s normalisation modules other than batch normalisation: ``LayerNorm`` (over the
trailing ``normalized_shape`` axes with a learnable elementwise affine map, ones and zeros to start,
recorded as NativeLayerNormBackward0), ``GroupNorm``, ``InstanceNorm1d/2d/3d``, ``RMSNorm`` and
``LocalResponseNorm``.

>>> from diffcompare import autograd as ag
>>> ln = ag.nn.LayerNorm(2)
>>> ln, ln(ag.tensor([[1.0, 3.0]])).detach()
(LayerNorm((2,), eps=1e-05, elementwise_affine=True, bias=True), tensor([[-1.0000,  1.0000]]))
"""

from __future__ import annotations

import warnings

import numpy as np

from ..dtypes import default_dtype
from ..tensor import Tensor
from . import functional as F
from .module import Module, Parameter, reset_affine, reset_running_stats


class LayerNorm(Module):
    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True, device=None, dtype=None):
        super().__init__()
        shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
        self.normalized_shape, self.eps, self.elementwise_affine = shape, eps, elementwise_affine
        dtype = np.dtype(dtype) if dtype is not None else default_dtype()
        if elementwise_affine:
            self.weight = Parameter(np.ones(shape, dtype=dtype))
            self.register_parameter("bias", Parameter(np.zeros(shape, dtype=dtype)) if bias else None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def reset_parameters(self):
        reset_affine(self)

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        affine = f"elementwise_affine={self.elementwise_affine}"
        return f"{self.normalized_shape}, eps={self.eps}, {affine}" + (f", bias={self.bias is not None}" if self.elementwise_affine else "")


def _dtype(dtype):
    return np.dtype(dtype) if dtype is not None else default_dtype()


class GroupNorm(Module):
    """Group normalisation (``F.group_norm``, NativeGroupNormBackward0) with per-channel affine
    parameters (ones and zeros to start)."""

    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, device=None, dtype=None, *, bias=True):
        super().__init__()
        if num_channels % num_groups:
            raise ValueError("num_channels must be divisible by num_groups")
        self.num_groups, self.num_channels, self.eps, self.affine = num_groups, num_channels, eps, affine
        if affine:
            self.weight = Parameter(np.ones(num_channels, dtype=_dtype(dtype)))
            self.register_parameter("bias", Parameter(np.zeros(num_channels, dtype=_dtype(dtype))) if bias else None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def reset_parameters(self):
        reset_affine(self)

    def forward(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
                f"bias={self.bias is not None}")


class _InstanceNorm(Module):
    """Instance normalisation (``F.instance_norm``): per sample and channel; optional affine
    parameters and running statistics (both off by default)."""
    batched = 3          # the rank of a batched input

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False, track_running_stats=False, device=None,
                 dtype=None, *, bias=True):
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        if affine:
            self.weight = Parameter(np.ones(num_features, dtype=_dtype(dtype)))
            self.register_parameter("bias", Parameter(np.zeros(num_features, dtype=_dtype(dtype))) if bias else None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", Tensor._make(np.zeros(num_features, dtype=_dtype(dtype))))
            self.register_buffer("running_var", Tensor._make(np.ones(num_features, dtype=_dtype(dtype))))
            self.register_buffer("num_batches_tracked", Tensor._make(np.array(0, dtype=np.int64)))
        else:
            for name in ("running_mean", "running_var", "num_batches_tracked"):
                self.register_buffer(name, None)

    def reset_running_stats(self):
        reset_running_stats(self)

    def reset_parameters(self):
        reset_running_stats(self)
        reset_affine(self)

    def forward(self, input):
        if input.ndim not in (self.batched - 1, self.batched):
            raise ValueError(f"expected {self.batched - 1}D or {self.batched}D input (got {input.ndim}D input)")
        feature_dim = input.ndim - (self.batched - 1)
        if input.shape[feature_dim] != self.num_features:
            if self.affine:
                raise ValueError(f"expected input's size at dim={feature_dim} to match num_features "
                                 f"({self.num_features}), but got: {input.shape[feature_dim]}.")
            warnings.warn(f"input's size at dim={feature_dim} does not match num_features. You can silence this "
                          "warning by not passing in num_features, which is not used because affine=False",
                          UserWarning, stacklevel=2)
        if input.ndim == self.batched - 1:
            return self._normalise(input.unsqueeze(0)).squeeze(0)
        return self._normalise(input)

    def _normalise(self, input):
        return F.instance_norm(input, self.running_mean, self.running_var, self.weight, self.bias,
                               self.training or not self.track_running_stats,
                               self.momentum if self.momentum is not None else 0.0, self.eps)

    def extra_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
                f"bias={self.bias is not None}, track_running_stats={self.track_running_stats}")


class InstanceNorm1d(_InstanceNorm):
    """Instance normalisation of (N, C, L) or (C, L) inputs."""
    batched = 3


class InstanceNorm2d(_InstanceNorm):
    """Instance normalisation of (N, C, H, W) or (C, H, W) inputs."""
    batched = 4


class InstanceNorm3d(_InstanceNorm):
    """Instance normalisation of (N, C, D, H, W) or (C, D, H, W) inputs."""
    batched = 5


class RMSNorm(Module):
    """RMS normalisation over the trailing ``normalized_shape`` axes (``F.rms_norm``), with a
    learnable elementwise scale (ones to start)."""

    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, device=None, dtype=None):
        super().__init__()
        shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
        self.normalized_shape, self.eps, self.elementwise_affine = shape, eps, elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(np.ones(shape, dtype=_dtype(dtype)))
        else:
            self.register_parameter("weight", None)

    def reset_parameters(self):
        reset_affine(self)

    def forward(self, x):
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self):
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"


class LocalResponseNorm(Module):
    """Local response normalisation across channels (``F.local_response_norm``)."""

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1.0):
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input):
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


__all__ = ["GroupNorm", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "LayerNorm", "LocalResponseNorm",
           "RMSNorm"]
