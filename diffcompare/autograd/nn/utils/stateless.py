"""``torch.nn.utils.stateless``: the place ``functional_call`` had before ``torch.func``
(deprecated in PyTorch 2.0, with PyTorch's FutureWarning, still imported by older code).

>>> import warnings
>>> from diffcompare import autograd as ag
>>> with warnings.catch_warnings():
...     warnings.simplefilter("ignore", FutureWarning)
...     functional_call(ag.nn.Linear(1, 1), {"weight": ag.ones(1, 1), "bias": ag.zeros(1)}, (ag.ones(1),))
tensor([1.])
"""

import functools
import warnings

from ... import stateless

__all__ = ["functional_call"]

DEPRECATED = ("`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 and will be removed in a "
              "future version of PyTorch. Please use `torch.func.functional_call` instead which is a drop-in "
              "replacement.")


@functools.wraps(stateless.functional_call)
def functional_call(*args, **kwargs):
    warnings.warn(DEPRECATED, FutureWarning, stacklevel=2)
    return stateless.functional_call(*args, **kwargs)
