"""``torch.optim``: the optimizers (:mod:`.optimizers`: SGD, Adam, AdamW, RMSprop, Adagrad;
:mod:`.adaptive`: Adadelta, Adamax, NAdam, RAdam, ASGD, Rprop; :mod:`.lbfgs`: LBFGS;
:mod:`.muon`: Muon) and the
learning-rate schedulers (:mod:`.lr_scheduler`), and weight averaging (:mod:`.swa_utils`).

Each optimizer is also where PyTorch defines it, for code that imports it from there
(``from torch.optim.adamw import AdamW``).

>>> from diffcompare.autograd.optim.adamw import AdamW
>>> from diffcompare.autograd.optim.sgd import SGD
>>> AdamW is globals()["AdamW"] and SGD.__name__
'SGD'
"""

import sys
import types

from . import lr_scheduler, optimizer, swa_utils
from .adaptive import ASGD, Adadelta, Adamax, NAdam, RAdam, Rprop
from .lbfgs import LBFGS
from .muon import Muon
from .optimizers import SGD, Adagrad, Adam, AdamW, Optimizer, RMSprop

__all__ = ["ASGD", "LBFGS", "SGD", "Adadelta", "Adagrad", "Adam", "AdamW", "Adamax", "Muon", "NAdam", "Optimizer", "RAdam",
           "RMSprop", "Rprop", "lr_scheduler", "swa_utils"]

# PyTorch's files under torch/optim that each define one optimizer (torch.optim.adamw: AdamW)
SUBMODULES = {"adadelta": "Adadelta", "adagrad": "Adagrad", "adam": "Adam", "adamax": "Adamax", "adamw": "AdamW",
              "asgd": "ASGD", "nadam": "NAdam", "radam": "RAdam", "rmsprop": "RMSprop", "rprop": "Rprop",
              "sgd": "SGD"}
for _name, _class in SUBMODULES.items():
    _module = types.ModuleType(f"{__name__}.{_name}", f"torch.optim.{_name}: {_class}")
    _module.__dict__.update({_class: globals()[_class], "Optimizer": Optimizer})
    sys.modules[_module.__name__] = _module
    globals()[_name] = _module
del _name, _class, _module

