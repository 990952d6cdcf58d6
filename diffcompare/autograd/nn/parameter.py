"""``torch.nn.parameter``: the module scripts import ``Parameter`` from
(``from torch.nn.parameter import Parameter``); the class itself lives with ``Module``.

>>> from diffcompare.autograd.nn.parameter import Parameter
>>> from diffcompare import autograd as ag
>>> Parameter(ag.zeros(2)).requires_grad, Parameter is ag.nn.Parameter
(True, True)
"""

from __future__ import annotations

from .module import Buffer, Parameter


def is_lazy(param) -> bool:
    """Whether ``param`` is an uninitialised (lazy) parameter: never, in this engine."""
    return False


__all__ = ["Buffer", "Parameter", "is_lazy"]
