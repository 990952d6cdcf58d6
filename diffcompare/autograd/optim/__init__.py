"""``torch.optim``: the optimizers (:mod:`.optimizers`: SGD, Adam, AdamW, RMSprop, Adagrad)
and the learning-rate schedulers (:mod:`.lr_scheduler`)."""

from . import lr_scheduler
from .optimizers import SGD, Adagrad, Adam, AdamW, Optimizer, RMSprop

__all__ = ["SGD", "Adagrad", "Adam", "AdamW", "Optimizer", "RMSprop", "lr_scheduler"]
