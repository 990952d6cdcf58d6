"""``torch.save`` and ``torch.load``: tensors, state dicts and checkpoints to a file or a buffer.

The file is a pickle of the object (tensors as their arrays and ``requires_grad``), so an
engine file is read by the engine, not by PyTorch, and a PyTorch file (a zip archive) is
refused with that said. ``load`` reads, as PyTorch 2.13 does by default (``weights_only=True``),
only tensors, arrays, numbers, strings and the containers state dicts are made of: a pickle
can run code when it is loaded, so anything else (a whole pickled module, a class of the
program's) needs ``weights_only=False`` — for a file one trusts — or the class made known with
``serialization.add_safe_globals([...])``.

>>> import io
>>> from diffcompare import autograd as ag
>>> buffer = io.BytesIO()
>>> ag.save({"w": ag.tensor([1.0, 2.0]), "step": 3}, buffer)
>>> _ = buffer.seek(0)
>>> ag.load(buffer)
{'w': tensor([1., 2.]), 'step': 3}
"""

from __future__ import annotations

import contextlib
import io
import os
import pickle
import warnings

from .device import device as _device

DEFAULT_PROTOCOL = 2
_ZIP_MAGIC = b"PK\x03\x04"

# what a state dict, an optimizer's state or a checkpoint of them is made of
_SAFE = {
    ("collections", "OrderedDict"), ("collections", "defaultdict"), ("collections", "Counter"),
    ("numpy", "ndarray"), ("numpy", "dtype"), ("_codecs", "encode"),
    ("builtins", "set"), ("builtins", "frozenset"), ("builtins", "slice"), ("builtins", "complex"),
    ("builtins", "range"), ("builtins", "bytearray"),
}
# NumPy's arrays and scalars: the arrays behind the engine's tensors (which pickle as them) are
# read; one that is not a tensor's (a NumPy value of the program's) is refused, as PyTorch
# refuses every NumPy value
_NUMPY_VALUES = {("numpy._core.multiarray", "_reconstruct"), ("numpy.core.multiarray", "_reconstruct"),
                 ("numpy._core.multiarray", "scalar"), ("numpy.core.multiarray", "scalar")}
_TENSOR = ("diffcompare.autograd.tensor", "_rebuild")
_ADDED: dict = {}


def add_safe_globals(safe_globals) -> None:
    """Allow these classes or functions in ``load(..., weights_only=True)``."""
    for obj in safe_globals:
        if isinstance(obj, tuple):
            obj, name = obj
            _ADDED[(obj.__module__, name)] = obj
        else:
            _ADDED[(obj.__module__, obj.__qualname__)] = obj


def get_safe_globals() -> list:
    return list(_ADDED.values())


def clear_safe_globals() -> None:
    _ADDED.clear()


@contextlib.contextmanager
def safe_globals(safe_globals):
    """Allow these classes or functions in ``load(..., weights_only=True)`` within the block:
    ``with serialization.safe_globals([np._core.multiarray.scalar]): ag.load(path)`` reads a
    checkpoint that holds NumPy numbers, which ``load`` alone refuses (as PyTorch does).

    >>> import io, numpy as np
    >>> from diffcompare import autograd as ag
    >>> buffer = io.BytesIO()
    >>> ag.save({"accuracy": np.float64(0.5)}, buffer)
    >>> _ = buffer.seek(0)
    >>> ag.load(buffer)
    Traceback (most recent call last):
    _pickle.UnpicklingError: Weights only load failed. ...
    """
    before = dict(_ADDED)
    add_safe_globals(safe_globals)
    try:
        yield
    finally:
        _ADDED.clear()
        _ADDED.update(before)


def _refusal(dotted):
    return pickle.UnpicklingError(
        f"Weights only load failed. This file can still be loaded, to do so you have two options, do those "
        f"steps only if you trust the source of the checkpoint. \n\t(1) In PyTorch 2.6, we changed the default "
        f"value of the `weights_only` argument in `torch.load` from `False` to `True`. Re-running `torch.load` "
        f"with `weights_only` set to `False` will likely succeed, but it can result in arbitrary code "
        f"execution. Do it only if you got the file from a trusted source.\n\t(2) Alternatively, to load with "
        f"`weights_only=True` please check the recommended steps in the following error message.\n\t"
        f"WeightsUnpickler error: Unsupported global: GLOBAL {dotted} was not an allowed global by default. "
        f"Please use `torch.serialization.add_safe_globals([{dotted}])` or the "
        f"`torch.serialization.safe_globals([{dotted}])` context manager to allowlist this global if you trust "
        f"this class/function.\n\nCheck the documentation of torch.load to learn more about types accepted by "
        f"default with weights_only https://pytorch.org/docs/stable/generated/torch.load.html.")


class _WeightsOnly(pickle.Unpickler):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.loose = {}         # id -> (the global that made it, a NumPy value no tensor has taken yet)

    def find_class(self, module, name):
        if (module, name) in _ADDED:
            return _ADDED[(module, name)]
        if module.startswith("numpy.dtypes") or (module, name) in _SAFE:
            return super().find_class(module, name)
        if (module, name) in _NUMPY_VALUES:
            make = super().find_class(module, name)

            def made(*args, make=make, dotted=f"{module}.{name}"):
                value = make(*args)
                self.loose[id(value)] = (dotted, value)
                return value
            return made
        if (module, name) == _TENSOR:
            rebuild = super().find_class(module, name)

            def tensor(data, *args):
                self.loose.pop(id(data), None)
                return rebuild(data, *args)
            return tensor
        raise _refusal(f"{module}.{name}")

    def load(self):
        value = super().load()
        if self.loose:
            raise _refusal(next(iter(self.loose.values()))[0])
        return value


def save(obj, f, pickle_module=pickle, pickle_protocol=DEFAULT_PROTOCOL, _use_new_zipfile_serialization=True):
    """Write ``obj`` to ``f`` (a path, or a file object open for writing in binary)."""
    if isinstance(f, (str, os.PathLike)):
        with open(f, "wb") as file:
            pickle_module.dump(obj, file, protocol=pickle_protocol)
    elif hasattr(f, "write"):
        pickle_module.dump(obj, f, protocol=pickle_protocol)
    else:
        raise AttributeError(f"expected 'f' to be string, path, or a file-like object with a 'write' attribute, "
                             f"not {type(f).__name__}")


def _check_location(map_location):
    if map_location is None or callable(map_location) or isinstance(map_location, dict):
        return
    where = map_location if isinstance(map_location, _device) else _device(map_location)
    if where.type not in ("cpu", "meta"):
        raise RuntimeError(f"Attempting to deserialize object on a {where.type.upper()} device but "
                           f"torch.{where.type}.is_available() is False. If you are running on a CPU-only machine, "
                           f"please use torch.load with map_location=torch.device('cpu') to map your storages to "
                           f"the CPU.")


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None, **pickle_load_args):
    """Read what :func:`save` wrote to ``f`` (a path, or a file object open for reading in binary).
    ``map_location``: everything is on the CPU (a CUDA location is refused, as PyTorch does
    on a machine without CUDA). ``weights_only`` unset: True, unless a ``pickle_module`` is
    given (as PyTorch 2.13 decides it; ``torch.load(f, None, pickle)`` loads whole objects)."""
    if weights_only is None:
        weights_only = pickle_module is None
    _check_location(map_location)
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as file:
            data = file.read()
    elif hasattr(f, "read"):
        data = f.read()
    else:
        raise AttributeError(f"expected 'f' to be string, path, or a file-like object with a 'read' attribute, "
                             f"not {type(f).__name__}")
    if data[:4] == _ZIP_MAGIC:
        raise RuntimeError("this file was written by PyTorch's torch.save (a zip archive of its storages); the "
                           "engine reads the files the engine's save wrote: load it with PyTorch and save its "
                           "tensors as NumPy arrays (t.numpy()) to bring them over")
    if not data:
        raise EOFError("Ran out of input")
    stream = io.BytesIO(data)
    if weights_only:
        if pickle_module is not None:
            raise RuntimeError("Can not safely load weights when explicit pickle_module is specified")
        if pickle_load_args:
            warnings.warn("pickle_load_args only works if `weights_only=False`.", stacklevel=2)
        return _WeightsOnly(stream, **pickle_load_args).load()
    return (pickle_module or pickle).Unpickler(stream, **pickle_load_args).load()


__all__ = ["add_safe_globals", "clear_safe_globals", "get_safe_globals", "load", "safe_globals", "save"]
