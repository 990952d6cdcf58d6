"""``torch.utils.hooks``: ``RemovableHandle``, the handle every ``register_*_hook`` returns
(``handle.remove()``), for code that names its type.

>>> from diffcompare import autograd as ag
>>> x = ag.ones(1, requires_grad=True)
>>> isinstance(x.register_hook(lambda g: g), RemovableHandle)
True
"""

from ..tensor import HookHandle as RemovableHandle

__all__ = ["RemovableHandle"]
