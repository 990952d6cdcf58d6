"""``torch.autograd.graph``'s names: ``from torch.autograd.graph import saved_tensors_hooks``
becomes ``from diffcompare.autograd.autograd.graph import saved_tensors_hooks``.

>>> from diffcompare.autograd.autograd.graph import save_on_cpu, saved_tensors_hooks
>>> saved_tensors_hooks.__module__
'diffcompare.autograd.saved'
"""

from ..graph import Node, allow_mutation_on_saved_tensors, register_multi_grad_hook
from ..saved import disable_saved_tensors_hooks, save_on_cpu, saved_tensors_hooks

__all__ = ["Node", "allow_mutation_on_saved_tensors", "disable_saved_tensors_hooks", "register_multi_grad_hook", "save_on_cpu", "saved_tensors_hooks"]
