"""``torch.optim``: the optimizers (:mod:`.optimizers`: SGD, Adam, AdamW, RMSprop, Adagrad;
:mod:`.adaptive`: Adadelta, Adamax, NAdam, RAdam, ASGD, Rprop; :mod:`.lbfgs`: LBFGS;
:mod:`.muon`: Muon) and the
learning-rate schedulers (:mod:`.lr_scheduler`), and weight averaging (:mod:`.swa_utils`)."""

from . import lr_scheduler, optimizer, swa_utils
from .adaptive import ASGD, Adadelta, Adamax, NAdam, RAdam, Rprop
from .lbfgs import LBFGS
from .muon import Muon
from .optimizers import SGD, Adagrad, Adam, AdamW, Optimizer, RMSprop

__all__ = ["ASGD", "LBFGS", "SGD", "Adadelta", "Adagrad", "Adam", "AdamW", "Adamax", "Muon", "NAdam", "Optimizer", "RAdam",
           "RMSprop", "Rprop", "lr_scheduler", "swa_utils"]
