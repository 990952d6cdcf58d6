"""Activations with drawn noise: ``rrelu`` (randomized leaky ReLU), recorded as PyTorch records
it, ``RreluWithNoiseBackward0``, in training (each value at or below zero times a slope drawn from
U(lower, upper), drawn in order as PyTorch draws them: ``uniform_`` over those values) and in
evaluation (the mean slope ``(lower + upper) / 2`` below zero).

>>> from diffcompare import autograd as ag
>>> x = ag.tensor([-2.0, 3.0], requires_grad=True)
>>> y = ag.rrelu(x, 0.25, 0.75)
>>> y, y.grad_fn.name()
(tensor([-1.,  3.], grad_fn=<RreluWithNoiseBackward0>), 'RreluWithNoiseBackward0')
"""

from __future__ import annotations

import numpy as np

from ..tensor import Tensor
from .recording import Op, apply


class RreluWithNoiseBackward0(Op):
    """x times ``noise`` (training: the drawn slopes, 1 above zero) or leaky ReLU with the mean
    slope (evaluation); the gradient is g times the same factors."""

    @staticmethod
    def forward(x, noise, slope, training, factor):
        if training:
            return x * noise
        return np.where(x > 0, x, x * slope).astype(x.dtype)

    def backward(self, g):
        return (g * self.noise if self.training else g * self.factor,)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    """Randomized leaky ReLU (``torch.rrelu``)."""
    data = input._data
    slope = (lower + upper) / 2
    if training:
        negative = data <= 0
        noise = np.ones_like(data)
        count = int(negative.sum())
        if count:
            drawn = Tensor._make(np.empty(count, dtype=data.dtype)).uniform_(lower, upper)
            noise[negative] = drawn._data
        factor = None
    else:
        noise = None
        factor = np.where(data > 0, 1.0, slope).astype(data.dtype)
    return apply(RreluWithNoiseBackward0, (input,),
                 {"noise": noise, "slope": slope, "training": bool(training), "factor": factor})


PUBLIC = ('rrelu',)
__all__ = ['RreluWithNoiseBackward0', 'rrelu']
