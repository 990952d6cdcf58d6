"""``torch.utils.backcompat``: the switches of PyTorch's old warnings about broadcasting and
``keepdim`` changes (from PyTorch 0.2); old scripts still turn them on. They only warn, so
here they are switches that are kept and do nothing.

>>> from diffcompare.autograd.utils import backcompat
>>> backcompat.broadcast_warning.enabled = True
>>> backcompat.broadcast_warning.enabled
True
"""

from __future__ import annotations

__all__ = ["broadcast_warning", "keepdim_warning"]


class Warning:  # noqa: A001  (PyTorch's name)
    """A warning switch: its ``enabled`` flag, off by default."""

    def __init__(self):
        self.enabled = False


broadcast_warning = Warning()
keepdim_warning = Warning()
