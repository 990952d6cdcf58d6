"""``torch.nn.LayerNorm``: normalisation over the trailing ``normalized_shape`` axes with a
learnable elementwise affine map (ones and zeros to start), recorded as NativeLayerNormBackward0.

>>> from diffcompare import autograd as ag
>>> ln = ag.nn.LayerNorm(2)
>>> ln, ln(ag.tensor([[1.0, 3.0]])).detach()
(LayerNorm((2,), eps=1e-05, elementwise_affine=True, bias=True), tensor([[-1.0000,  1.0000]]))
"""

from __future__ import annotations

import numpy as np

from ..dtypes import default_dtype
from . import functional as F
from .module import Module, Parameter


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

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        affine = f"elementwise_affine={self.elementwise_affine}"
        return f"{self.normalized_shape}, eps={self.eps}, {affine}" + (f", bias={self.bias is not None}" if self.elementwise_affine else "")


__all__ = ["LayerNorm"]
