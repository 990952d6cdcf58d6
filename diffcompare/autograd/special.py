"""``torch.special`` as ``ag.special``: the special functions under their SciPy-style names.

>>> from diffcompare import autograd as ag
>>> ag.special.expit(ag.tensor([0.0])), ag.special.logit(ag.tensor([0.5]))
(tensor([0.5000]), tensor([0.]))
"""

from __future__ import annotations

from .ops import erf, exp, expm1, log1p, log_softmax, logit, logsumexp, sigmoid, softmax, xlogy

expit = sigmoid

__all__ = ['erf', 'exp2', 'expit', 'expm1', 'log1p', 'log_softmax', 'logit', 'logsumexp', 'softmax', 'xlogy']


def exp2(x):
    """2 ** x."""
    return 2.0 ** x


del exp
