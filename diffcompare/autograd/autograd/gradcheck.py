"""``torch.autograd.gradcheck`` as a module (``from torch.autograd.gradcheck import gradcheck``):
the engine's :mod:`diffcompare.autograd.gradcheck`."""

from ..gradcheck import GradcheckError, gradcheck, gradgradcheck

__all__ = ["GradcheckError", "gradcheck", "gradgradcheck"]
