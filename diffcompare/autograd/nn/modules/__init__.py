"""``torch.nn.modules`` and its submodules (``torch.nn.modules.module``, ``.linear``, ``.loss``,
``.batchnorm``, ``.utils``, ...), for code that imports a layer or a base class from where
PyTorch defines it (``from torch.nn.modules.loss import _Loss``). The engine defines its
layers in other files; each of these names holds all of ``nn``'s classes, public and private,
and ``utils`` PyTorch's ``_single``/``_pair``/``_triple``/``_quadruple``.

>>> from diffcompare.autograd.nn.modules.loss import _Loss
>>> from diffcompare.autograd.nn.modules.module import Module
>>> from diffcompare.autograd.nn.modules.utils import _pair
>>> issubclass(_Loss, Module), _pair(3)
(True, (3, 3))
"""

from __future__ import annotations

import collections.abc
import itertools
import sys
import types

# PyTorch's files under torch/nn/modules
SUBMODULES = ("activation", "adaptive", "batchnorm", "channelshuffle", "container", "conv", "distance", "dropout",
              "flatten", "fold", "instancenorm", "lazy", "linear", "loss", "module", "normalization", "padding",
              "pixelshuffle", "pooling", "rnn", "sparse", "transformer", "upsampling", "utils")


def _ntuple(n, name):
    def parse(x):
        if isinstance(x, collections.abc.Iterable) and not isinstance(x, str):
            return tuple(x)
        return tuple(itertools.repeat(x, n))
    parse.__name__ = name
    return parse


_single, _pair, _triple, _quadruple = (_ntuple(n, f"_{name}") for n, name in
                                       ((1, "single"), (2, "pair"), (3, "triple"), (4, "quadruple")))


def install(namespace, **submodule_only):
    """Fill this package and its submodules with the classes of ``namespace`` (``nn``'s, which
    calls this once its classes are defined: ``torch.nn.modules`` is then an attribute of
    ``torch.nn``, as in PyTorch, with no import of ``nn`` from here); ``submodule_only``:
    classes PyTorch defines in a submodule and exports from neither ``nn`` nor this package
    (``linear.NonDynamicallyQuantizableLinear``)."""
    classes = {name: value for name, value in namespace.items() if isinstance(value, type)}
    globals().update({name: value for name, value in classes.items() if not name.startswith("_")})
    classes.update(submodule_only)
    for name in SUBMODULES:
        module = types.ModuleType(f"{__name__}.{name}", f"torch.nn.modules.{name}: nn's classes")
        module.__dict__.update(classes)
        if name == "utils":
            module.__dict__.update(_single=_single, _pair=_pair, _triple=_triple, _quadruple=_quadruple,
                                   _ntuple=lambda n, name="parse": _ntuple(n, name))
        sys.modules[module.__name__] = module
        globals()[name] = module
