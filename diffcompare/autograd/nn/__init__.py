"""Just enough of ``torch.nn`` for a PyTorch training loop to run by changing the import.

>>> from diffcompare import autograd as ag
>>> _ = ag.manual_seed(0)
>>> net = ag.nn.Sequential(ag.nn.Linear(3, 4), ag.nn.ReLU(), ag.nn.Linear(4, 1))
>>> loss = ag.nn.MSELoss()(net(ag.randn(5, 3)), ag.zeros(5, 1))
>>> loss.backward()
>>> [tuple(p.grad.shape) for p in net.parameters()]
[(4, 3), (4,), (1, 4), (1,)]
"""

from __future__ import annotations

import math
from collections import OrderedDict

import numpy as np

from .. import ops
from ..tensor import Tensor, generator
from . import functional  # noqa: F401  (ag.nn.functional, as torch.nn.functional)
from .functional import cross_entropy, mse_loss


class Parameter(Tensor):
    """A tensor that a Module registers as a learnable parameter (requires grad by default)."""

    __slots__ = ()

    def __init__(self, data=None, requires_grad=True):
        array = np.array(data._data if isinstance(data, Tensor) else data, dtype=None)
        if array.dtype.kind not in "fc":
            array = array.astype(np.float64)
        super().__init__(array)
        self.requires_grad_(requires_grad)

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()


class Module:
    """Base class: assign Parameters and Modules as attributes; define ``forward``."""

    def __init__(self):
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_modules", OrderedDict())
        object.__setattr__(self, "training", True)

    def __setattr__(self, name, value):
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign module attributes before Module.__init__() call "
                                 "(call super().__init__() first in your __init__)")
        if isinstance(value, Parameter):
            self._parameters[name] = value
        elif isinstance(value, Module):
            self._modules[name] = value
        object.__setattr__(self, name, value)

    def forward(self, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} must define forward()")

    def __call__(self, *args, **kwargs):
        return self.forward(*args, **kwargs)

    def named_parameters(self, prefix=""):
        seen = set()
        for name, p in self._parameters.items():
            if id(p) not in seen:
                seen.add(id(p))
                yield prefix + name, p
        for mname, module in self._modules.items():
            for name, p in module.named_parameters(prefix + mname + "."):
                if id(p) not in seen:
                    seen.add(id(p))
                    yield name, p

    def parameters(self):
        return (p for _, p in self.named_parameters())

    def children(self):
        return iter(self._modules.values())

    def modules(self):
        yield self
        for m in self._modules.values():
            yield from m.modules()

    def zero_grad(self, set_to_none=True):
        for p in self.parameters():
            zero_grad_of(p, set_to_none)

    def train(self, mode=True):
        for m in self.modules():
            object.__setattr__(m, "training", mode)
        return self

    def eval(self):
        return self.train(False)

    def state_dict(self):
        return OrderedDict((name, Tensor._make(p._data.copy())) for name, p in self.named_parameters())

    def load_state_dict(self, state):
        for name, p in self.named_parameters():
            if name not in state:
                raise KeyError(f"missing key in state_dict: {name!r}")
            value = state[name]
            p._data[...] = value._data if isinstance(value, Tensor) else value

    def __repr__(self):
        lines = [f"  ({name}): " + repr(m).replace("\n", "\n  ") for name, m in self._modules.items()]
        extra = self.extra_repr()
        if not lines:
            return f"{type(self).__name__}({extra})"
        return f"{type(self).__name__}(\n" + "\n".join(lines) + "\n)"

    def extra_repr(self):
        return ""


def zero_grad_of(p, set_to_none):
    """Clear a parameter's gradient as ``zero_grad`` does: drop it, or zero it in place."""
    if p._grad is None:
        return
    if set_to_none:
        p._grad = None
    else:
        if p._grad.grad_fn is not None:
            p._grad = p._grad.detach()
        p._grad._data[...] = 0


class Linear(Module):
    """y = x Wᵀ + b, with W and b drawn from U(-1/√in, 1/√in) as in PyTorch."""

    def __init__(self, in_features, out_features, bias=True, dtype=None):
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        bound = 1.0 / math.sqrt(in_features) if in_features else 0.0
        rng = generator()
        dtype = np.dtype(dtype) if dtype is not None else np.float64
        self.weight = Parameter(rng.uniform(-bound, bound, (out_features, in_features)).astype(dtype))
        self.bias = Parameter(rng.uniform(-bound, bound, (out_features,)).astype(dtype)) if bias else None

    def forward(self, x):
        if x.shape[-1] != self.in_features:
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({'x'.join(map(str, x.shape))} and "
                               f"{self.in_features}x{self.out_features}): Linear({self.in_features}, "
                               f"{self.out_features}) expects inputs whose last dimension is {self.in_features}")
        y = x @ self.weight.t()
        return y + self.bias if self.bias is not None else y

    def extra_repr(self):
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class ReLU(Module):
    def forward(self, x):
        return ops.relu(x)


class Tanh(Module):
    def forward(self, x):
        return ops.tanh(x)


class Sigmoid(Module):
    def forward(self, x):
        return ops.sigmoid(x)


class Softplus(Module):
    def __init__(self, beta=1.0, threshold=20.0):
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def forward(self, x):
        return ops.softplus(x, self.beta, self.threshold)


class Sequential(Module):
    """Modules applied in order."""

    def __init__(self, *modules):
        super().__init__()
        for i, m in enumerate(modules):
            setattr(self, str(i), m)

    def forward(self, x):
        for m in self._modules.values():
            x = m(x)
        return x

    def __getitem__(self, i):
        return list(self._modules.values())[i]

    def __len__(self):
        return len(self._modules)


class MSELoss(Module):
    def __init__(self, reduction="mean"):
        super().__init__()
        self.reduction = reduction

    def forward(self, input, target):
        return mse_loss(input, target, self.reduction)


class CrossEntropyLoss(Module):
    def __init__(self, reduction="mean"):
        super().__init__()
        self.reduction = reduction

    def forward(self, input, target):
        return cross_entropy(input, target, self.reduction)
