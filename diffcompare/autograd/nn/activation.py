"""``torch.nn``'s activation modules beyond ReLU, Tanh, Sigmoid and Softplus: each the
function of ``nn.functional`` with its arguments, printed as PyTorch prints it.

>>> from diffcompare import autograd as ag
>>> m = ag.nn.LeakyReLU(0.1)
>>> m, m(ag.tensor([-1.0, 2.0]))
(LeakyReLU(negative_slope=0.1), tensor([-0.1000,  2.0000]))
"""

from __future__ import annotations

import numpy as np

from ..dtypes import default_dtype
from . import functional as F
from .module import Module, Parameter
from ..grad_mode import no_grad


class _Activation(Module):
    """A module calling ``function(x, **arguments)``; ``extra_repr`` lists the arguments."""

    function = None
    shown = ()          # the arguments extra_repr prints, in order

    def __init__(self, **arguments):
        super().__init__()
        for name, value in arguments.items():
            object.__setattr__(self, name, value)
        object.__setattr__(self, "_arguments", tuple(arguments))

    def forward(self, input):
        return type(self).function(input, **{name: getattr(self, name) for name in self._arguments})

    def extra_repr(self):
        return ", ".join(f"{name}={getattr(self, name)}" for name in self.shown)


class Threshold(_Activation):
    function = staticmethod(F.threshold)
    shown = ("threshold", "value")

    def __init__(self, threshold, value, inplace=False):
        super().__init__(threshold=threshold, value=value, inplace=inplace)


class Hardtanh(_Activation):
    function = staticmethod(F.hardtanh)
    shown = ("min_val", "max_val")

    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False, min_value=None, max_value=None):
        min_val = min_val if min_value is None else min_value
        max_val = max_val if max_value is None else max_value
        if min_val > max_val:
            raise AssertionError()
        super().__init__(min_val=min_val, max_val=max_val, inplace=inplace)


class ReLU6(Hardtanh):
    shown = ()

    def __init__(self, inplace=False):
        super().__init__(0.0, 6.0, inplace)


class Hardsigmoid(_Activation):
    function = staticmethod(F.hardsigmoid)

    def __init__(self, inplace=False):
        super().__init__(inplace=inplace)


class Hardswish(Hardsigmoid):
    function = staticmethod(F.hardswish)


class SiLU(Hardsigmoid):
    function = staticmethod(F.silu)


class Mish(Hardsigmoid):
    function = staticmethod(F.mish)


class SELU(Hardsigmoid):
    function = staticmethod(F.selu)


class ELU(_Activation):
    function = staticmethod(F.elu)
    shown = ("alpha",)

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__(alpha=alpha, inplace=inplace)


class CELU(ELU):
    function = staticmethod(F.celu)


class GLU(_Activation):
    function = staticmethod(F.glu)
    shown = ("dim",)

    def __init__(self, dim=-1):
        super().__init__(dim=dim)


class GELU(_Activation):
    function = staticmethod(F.gelu)
    shown = ("approximate",)

    def __init__(self, approximate="none"):
        super().__init__(approximate=approximate)

    def extra_repr(self):
        return f"approximate={self.approximate!r}"


class Hardshrink(_Activation):
    function = staticmethod(F.hardshrink)

    def __init__(self, lambd=0.5):
        super().__init__(lambd=lambd)

    def extra_repr(self):
        return f"{self.lambd}"


class Softshrink(Hardshrink):
    function = staticmethod(F.softshrink)


class LeakyReLU(_Activation):
    function = staticmethod(F.leaky_relu)
    shown = ("negative_slope",)

    def __init__(self, negative_slope=0.01, inplace=False):
        super().__init__(negative_slope=negative_slope, inplace=inplace)


class LogSigmoid(_Activation):
    function = staticmethod(F.logsigmoid)


class Softsign(_Activation):
    function = staticmethod(F.softsign)


class Tanhshrink(_Activation):
    function = staticmethod(F.tanhshrink)


class Softmin(_Activation):
    shown = ("dim",)

    def __init__(self, dim=None):
        super().__init__(dim=dim)

    def forward(self, input):
        return F.softmin(input, self.dim, _stacklevel=5)


class Softmax2d(Module):
    """softmax over the channels of a (N, C, H, W) or (C, H, W) input."""

    def forward(self, input):
        if input.ndim not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.ndim}D instead")
        return F.softmax(input, -3, _stacklevel=5)


class PReLU(Module):
    """x above 0, a x below: ``num_parameters`` learnable slopes (one, or one per channel),
    starting at ``init``."""

    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        super().__init__()
        self.num_parameters, self.init = num_parameters, init
        self.weight = Parameter(np.full(num_parameters, init, dtype=np.dtype(dtype) if dtype is not None else default_dtype()))

    def reset_parameters(self):
        """Every slope back to ``init``."""
        with no_grad():
            self.weight.fill_(self.init)

    def forward(self, input):
        return F.prelu(input, self.weight)

    def extra_repr(self):
        return f"num_parameters={self.num_parameters}"


class RReLU(Module):
    """Randomized leaky ReLU: slopes drawn from U(lower, upper) below zero in training, their
    mean in evaluation (``F.rrelu``)."""

    def __init__(self, lower=1.0 / 8, upper=1.0 / 3, inplace=False):
        super().__init__()
        self.lower, self.upper, self.inplace = lower, upper, inplace

    def forward(self, input):
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self):
        return f"lower={self.lower}, upper={self.upper}" + (", inplace=True" if self.inplace else "")


__all__ = ["CELU", "ELU", "GELU", "GLU", "Hardshrink", "Hardsigmoid", "Hardswish", "Hardtanh", "LeakyReLU",
           "LogSigmoid", "Mish", "PReLU", "RReLU", "ReLU6", "SELU", "SiLU", "Softmax2d", "Softmin", "Softshrink", "Softsign",
           "Tanhshrink", "Threshold"]
