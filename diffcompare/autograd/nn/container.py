"""``nn.ModuleList``, ``nn.ModuleDict``, ``nn.ParameterList`` and ``nn.ParameterDict``: modules
(parameters) held by index or by key, registered as submodules (parameters) so that
``parameters()``, ``state_dict()``, ``to()`` and ``train()`` reach them, as in PyTorch.

>>> from diffcompare import autograd as ag
>>> blocks = ag.nn.ModuleList([ag.nn.Linear(2, 2) for _ in range(3)])
>>> len(blocks), len(list(blocks.parameters()))
(3, 6)
>>> heads = ag.nn.ModuleDict(dict(a=ag.nn.Linear(2, 1)))
>>> [name for name, _ in heads.named_parameters()]
['a.weight', 'a.bias']
"""

from __future__ import annotations

from collections import OrderedDict

from ..tensor import Tensor
from .module import Module, Parameter


def _index(i, n):
    if not -n <= i < n:
        raise IndexError(f"index {i} is out of range")
    return i + n if i < 0 else i


class ModuleList(Module):
    """Submodules in a list, named ``"0"``, ``"1"``, ..."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return type(self)(list(self._modules.values())[i])
        return self._modules[str(_index(i, len(self)))]

    def __setitem__(self, i, module):
        self.add_module(str(_index(i, len(self))), module)

    def __delitem__(self, i):
        modules = list(self._modules.values())
        del modules[i if isinstance(i, slice) else _index(i, len(self))]
        self._modules.clear()
        for k, m in enumerate(modules):
            self.add_module(str(k), m)

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __iadd__(self, modules):
        return self.extend(modules)

    def __add__(self, other):
        return ModuleList(list(self) + list(other))

    def __dir__(self):
        return [k for k in super().__dir__() if not k.isdigit()]

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules):
        if isinstance(modules, (str, bytes)) or not hasattr(modules, "__iter__"):
            raise TypeError("ModuleList.extend should be called with an iterable, but got " + type(modules).__name__)
        for m in modules:
            self.append(m)
        return self

    def insert(self, index, module):
        modules = list(self._modules.values())
        modules.insert(index, module)
        self._modules.clear()
        for k, m in enumerate(modules):
            self.add_module(str(k), m)

    def pop(self, key):
        module = self[key]
        del self[key]
        return module


class ModuleDict(Module):
    """Submodules by name, in insertion order."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key):
        return self._modules[key]

    def __setitem__(self, key, module):
        self.add_module(key, module)

    def __delitem__(self, key):
        del self._modules[key]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key):
        return key in self._modules

    def clear(self):
        self._modules.clear()

    def pop(self, key):
        value = self[key]
        del self[key]
        return value

    def keys(self):
        return self._modules.keys()

    def items(self):
        return self._modules.items()

    def values(self):
        return self._modules.values()

    def update(self, modules):
        items = modules.items() if hasattr(modules, "items") else modules
        for key, module in items:
            self[key] = module


class ParameterList(Module):
    """Parameters in a list, named ``"0"``, ``"1"``, ... (a tensor given becomes a Parameter)."""

    def __init__(self, values=None):
        super().__init__()
        self._size = 0
        if values is not None:
            self.extend(values)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return ParameterList([self[k] for k in range(len(self))[i]])
        return getattr(self, str(_index(i, len(self))))

    def __setitem__(self, i, value):
        i = _index(i, len(self))
        if isinstance(value, Tensor) and not isinstance(value, Parameter):
            value = Parameter(value)
        setattr(self, str(i), value)

    def __len__(self):
        return self._size

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def __iadd__(self, values):
        return self.extend(values)

    def append(self, value):
        self._size += 1
        self[self._size - 1] = value
        return self

    def extend(self, values):
        for v in values:
            self.append(v)
        return self


class ParameterDict(Module):
    """Parameters by name, in insertion order (a tensor given becomes a Parameter)."""

    def __init__(self, parameters=None):
        super().__init__()
        self._keys = OrderedDict()
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key):
        return getattr(self, key)

    def __setitem__(self, key, value):
        self._keys[key] = None
        if isinstance(value, Tensor) and not isinstance(value, Parameter):
            value = Parameter(value)
        setattr(self, key, value)

    def __delitem__(self, key):
        del self._keys[key]
        delattr(self, key)

    def __len__(self):
        return len(self._keys)

    def __iter__(self):
        return iter(self._keys)

    def __contains__(self, key):
        return key in self._keys

    def keys(self):
        return self._keys.keys()

    def items(self):
        return ((k, self[k]) for k in self._keys)

    def values(self):
        return (self[k] for k in self._keys)

    def update(self, parameters):
        items = parameters.items() if hasattr(parameters, "items") else parameters
        for key, value in items:
            self[key] = value


__all__ = ["ModuleDict", "ModuleList", "ParameterDict", "ParameterList"]
