"""``torch.nn.parameter``: the module scripts import ``Parameter`` from
(``from torch.nn.parameter import Parameter``); the class itself lives with ``Module``.

>>> from diffcompare.autograd.nn.parameter import Parameter
>>> from diffcompare import autograd as ag
>>> Parameter(ag.zeros(2)).requires_grad, Parameter is ag.nn.Parameter
(True, True)
"""

from __future__ import annotations

import numpy as np

from ..dtypes import default_dtype
from ..tensor import Tensor
from .module import Buffer, Parameter


class UninitializedTensorMixin:
    """A parameter or buffer whose shape is not known yet: ``materialize(shape)`` gives it one
    (zeros here; PyTorch's memory is unset) and makes it the class it stands for."""

    cls_to_become = Parameter

    def materialize(self, shape, device=None, dtype=None):
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        self._data = np.zeros(shape, np.dtype(dtype) if dtype is not None else self._data.dtype)
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError("Can't access the shape of an uninitialized parameter or buffer. This error usually "
                           "happens in `load_state_dict` when trying to load an uninitialized parameter into an "
                           "initialized one. Call `forward` to initialize the parameters before accessing their "
                           "attributes.")

    def __repr__(self):
        return f"<{type(self).__name__}>"

    __str__ = __repr__


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """``torch.nn.parameter.UninitializedParameter``: a Parameter without a shape yet.

    >>> p = UninitializedParameter()
    >>> is_lazy(p), p
    (True, <UninitializedParameter>)
    >>> p.materialize((2, 3)); type(p).__name__, tuple(p.shape)
    ('Parameter', (2, 3))
    """

    cls_to_become = Parameter

    def __init__(self, requires_grad=True, device=None, dtype=None):
        super().__init__(np.zeros(0, np.dtype(dtype) if dtype is not None else default_dtype()), requires_grad)


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """``torch.nn.parameter.UninitializedBuffer``: a buffer without a shape yet."""

    cls_to_become = Tensor

    def __init__(self, requires_grad=False, device=None, dtype=None, persistent=True):
        super().__init__(np.zeros(0, np.dtype(dtype) if dtype is not None else default_dtype()))
        self.requires_grad = requires_grad


def is_lazy(param) -> bool:
    """Whether ``param`` is uninitialised (an ``UninitializedParameter`` or ``UninitializedBuffer``)."""
    return isinstance(param, UninitializedTensorMixin)


__all__ = ["Buffer", "Parameter", "UninitializedBuffer", "UninitializedParameter", "UninitializedTensorMixin",
           "is_lazy"]
