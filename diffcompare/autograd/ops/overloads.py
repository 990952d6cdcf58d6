"""PyTorch's deprecated overloads that put a number before the tensors it scales, still
common in older training code: ``p.data.add_(-lr, grad)``, ``exp_avg.add_(1 - beta1, grad)``,
``exp_avg_sq.addcmul_(1 - beta2, grad, grad)``, ``p.data.addcdiv_(-step, exp_avg, denom)``.
PyTorch runs them with a warning; so does the engine.

>>> import warnings
>>> from diffcompare import autograd as ag
>>> with warnings.catch_warnings():
...     warnings.simplefilter("ignore")
...     ag.zeros(2).add_(-0.5, ag.ones(2))
tensor([-0.5000, -0.5000])
"""

from __future__ import annotations

import numbers
import warnings

from ..tensor import Tensor


def number_first(name, number, tensors, rest, scalar_name, tensor_names):
    """``(number, tensors)`` of a call of ``name`` in its deprecated order (Number scalar,
    Tensor, ...): ``number`` and ``tensors`` are what arrived in the places of the current
    order's tensors, ``rest`` the extra positional arguments after them."""
    given = [number, *tensors, *rest]
    if not isinstance(number, numbers.Number) or isinstance(number, bool) or len(given) != len(tensor_names) + 1 \
            or not all(isinstance(t, Tensor) for t in given[1:]):
        raise TypeError(f"{name}() received an invalid combination of arguments: expected ({', '.join(tensor_names)}, "
                        f"*, Number {scalar_name}=1)")
    old = ", ".join([f"Number {scalar_name}"] + [f"Tensor {t}" for t in tensor_names])
    new = ", ".join([f"Tensor {t}" for t in tensor_names] + [f"*, Number {scalar_name} = 1"])
    warnings.warn(f"This overload of {name} is deprecated:\n\t{name}({old})\nConsider using one of the following "
                  f"signatures instead:\n\t{name}({new})", UserWarning, stacklevel=4)
    return number, given[1:]


__all__ = ['number_first']
