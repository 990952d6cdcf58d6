"""``torch.ops.aten``: PyTorch's operators by their ATen names, as code refers to them —
selective checkpointing's policies (``op in [torch.ops.aten.mm.default]``), a custom op calling
``torch.ops.aten.add.Tensor(a, b)``. Each name is one object (so lists of them compare), and
calling it calls the engine's torch-level function of that name (or the Tensor method).

>>> from diffcompare import autograd as ag
>>> mm = ag.ops.aten.mm.default
>>> mm is ag.ops.aten.mm.default, mm
(True, aten.mm.default)
>>> mm(ag.ones(1, 2), ag.ones(2, 1))
tensor([[2.]])
"""

from __future__ import annotations

import sys

__all__ = ["aten"]


def _engine_function(name):
    """The engine's torch-level function ``name`` (a Tensor method if there is none)."""
    package = sys.modules[__name__.rsplit(".", 2)[0]]       # diffcompare.autograd, imported by now
    function = getattr(package, name, None)
    if function is None:
        method = getattr(package.Tensor, name, None)
        if method is None:
            raise NotImplementedError(f"aten::{name} has no counterpart in this engine")
        return method
    return function


class OpOverload:
    """One overload of an operator (``aten.add.Tensor``, ``aten.mm.default``)."""

    def __init__(self, name, overload):
        self._name, self._overloadname = name, overload

    def __call__(self, *args, **kwargs):
        return _engine_function(self._name)(*args, **kwargs)

    def name(self):
        return f"aten::{self._name}" + ("" if self._overloadname == "default" else f".{self._overloadname}")

    def __repr__(self):
        return f"aten.{self._name}.{self._overloadname}"


class OpOverloadPacket:
    """An operator with all its overloads (``aten.mm``); called, it calls the function."""

    def __init__(self, name):
        self._name, self._overloads = name, {}

    def __getattr__(self, overload):
        if overload.startswith("__"):
            raise AttributeError(overload)
        if overload not in self._overloads:
            self._overloads[overload] = OpOverload(self._name, overload)
        return self._overloads[overload]

    def __call__(self, *args, **kwargs):
        return _engine_function(self._name)(*args, **kwargs)

    def __repr__(self):
        return f"<OpOverloadPacket(op='aten.{self._name}')>"


class _Namespace:
    """``torch.ops.aten``: an operator packet for every name, made once."""

    def __init__(self, name):
        self._name, self._packets = name, {}

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        if name not in self._packets:
            self._packets[name] = OpOverloadPacket(name)
        return self._packets[name]

    def __repr__(self):
        return f"<module 'torch.ops.{self._name}'>"


aten = _Namespace("aten")

# the namespaces of custom operators (``torch.library.custom_op("mylib::foo", ...)``): ``torch.ops.mylib``
CUSTOM_NAMESPACES: dict[str, "CustomNamespace"] = {}


class CustomNamespace:
    """``torch.ops.<namespace>`` of custom operators: the operators defined in it, by name."""

    def __init__(self, name):
        self._name, self._ops = name, {}

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        try:
            return self._ops[name]
        except KeyError:
            raise AttributeError(f"'_OpNamespace' 'torch.ops.{self._name}' object has no attribute '{name}'") from None

    def __repr__(self):
        return f"<module 'torch.ops.{self._name}'>"


def custom_namespace(name) -> CustomNamespace:
    """The namespace ``torch.ops.<name>`` of custom operators, made on first use."""
    if name not in CUSTOM_NAMESPACES:
        CUSTOM_NAMESPACES[name] = CustomNamespace(name)
    return CUSTOM_NAMESPACES[name]
