"""``torch.distributions.HalfNormal``: |x| of a Normal(0, scale).

>>> from diffcompare import autograd as ag
>>> from diffcompare.autograd.distributions import HalfNormal
>>> HalfNormal(ag.tensor([1.0])).log_prob(ag.tensor([0.0]))     # log(2 / sqrt(2 pi))
tensor([-0.2258])
"""

from __future__ import annotations

import math

from .folded import FoldedAtZero
from .normal import Normal

__all__ = ["HalfNormal"]


class HalfNormal(FoldedAtZero):
    """HalfNormal(scale)."""

    base = Normal

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(HalfNormal, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def mean(self):
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def variance(self):
        return self.scale.pow(2) * (1 - 2 / math.pi)
