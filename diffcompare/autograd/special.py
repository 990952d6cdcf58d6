"""``torch.special`` as ``ag.special``: the special functions under their SciPy-style names.

>>> from diffcompare import autograd as ag
>>> ag.special.expit(ag.tensor([0.0])), ag.special.logit(ag.tensor([0.5]))
(tensor([0.5000]), tensor([0.]))
"""

from __future__ import annotations

from .ops import (digamma, erf, erfinv, exp, expm1, lgamma, log1p, log_softmax, logit, logsumexp, mvlgamma, polygamma,
                  sigmoid, softmax, xlogy)

expit = sigmoid
gammaln = lgamma
psi = digamma
multigammaln = mvlgamma

__all__ = ['digamma', 'erf', 'erfinv', 'exp2', 'expit', 'expm1', 'gammaln', 'log1p', 'log_softmax', 'logit', 'logsumexp',
           'multigammaln', 'polygamma', 'psi', 'softmax', 'xlogy']


def exp2(x):
    """2 ** x."""
    return 2.0 ** x


del exp
