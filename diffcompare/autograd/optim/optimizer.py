"""``torch.optim.optimizer``: where custom optimizers import their base class from
(``from torch.optim.optimizer import Optimizer, required``).

>>> from diffcompare.autograd.optim.optimizer import Optimizer, required
>>> required
<required parameter>
"""

from __future__ import annotations

from .optimizers import Optimizer, register_optimizer_step_post_hook, register_optimizer_step_pre_hook

__all__ = ["Optimizer", "register_optimizer_step_post_hook", "register_optimizer_step_pre_hook", "required"]


class _RequiredParameter:
    """The default of a hyperparameter that has none (SGD's ``lr`` in old PyTorch code)."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()
