"""Devices as PyTorch names them, on an engine that computes on the CPU only: ``device``,
the ``device=`` keyword of the factories, ``cuda``, ``backends.mps`` and ``accelerator``
saying that no accelerator is there, and the default device.

The lines every tutorial starts with run and choose the CPU:

>>> from diffcompare import autograd as ag
>>> device = "cuda" if ag.cuda.is_available() else "cpu"
>>> ag.zeros(2, device=device).device
device(type='cpu')
>>> ag.accelerator.current_accelerator().type if ag.accelerator.is_available() else "cpu"
'cpu'

Asking for CUDA memory fails as it does in a CPU-only PyTorch build:

>>> ag.zeros(2, device="cuda")
Traceback (most recent call last):
...
AssertionError: Torch not compiled with CUDA enabled
"""

from __future__ import annotations

import contextlib
import re
import sys
import types

import numpy as np

# the device types PyTorch parses (its error message lists them in this order)
DEVICE_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve", "fpga", "maia",
                "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone")
_DEVICE_STRING = re.compile(r"^([a-z]+)(?::(\d+))?$")
NO_ACCELERATOR = "Cannot access accelerator device when none is available."


class device:  # noqa: N801 - PyTorch's name
    """A device: a type (``"cpu"``, ``"cuda"``, ...) and an optional index.

    >>> device("cuda:1")
    device(type='cuda', index=1)
    >>> str(device("cpu")), device("cpu") == device("cpu"), device("cpu") == "cpu"
    ('cpu', True, False)
    """

    __slots__ = ("type", "index")

    def __init__(self, type, index=None):   # noqa: A002 - PyTorch's argument name
        if isinstance(type, device):
            type, index = type.type, type.index
        elif isinstance(type, int) and not isinstance(type, bool):
            raise RuntimeError(NO_ACCELERATOR)     # a bare index means the current accelerator
        elif isinstance(type, str):
            match = _DEVICE_STRING.match(type)
            if match is None or match.group(1) not in DEVICE_TYPES:
                if match is None and ":" in type:
                    raise RuntimeError(f"Invalid device string: '{type}'")
                names = ", ".join(DEVICE_TYPES)
                raise RuntimeError(f"Expected one of {names} device type at start of device string: {type}")
            if match.group(2) is not None:
                if index is not None:
                    raise RuntimeError(f"type (string) must not include an index because index was passed "
                                       f"explicitly: {type}")
                index = int(match.group(2))
            type = match.group(1)
        else:
            raise TypeError(f"device() received an invalid combination of arguments - got ({_typename(type)})")
        if index is not None and index < 0:
            raise RuntimeError("Device index must not be negative")
        object.__setattr__(self, "type", type)
        object.__setattr__(self, "index", index)

    def __setattr__(self, name, value):
        raise AttributeError(f"attribute '{name}' of 'torch.device' objects is not writable")

    def __eq__(self, other):
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self):
        return hash((self.type, self.index))

    def __repr__(self):
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __reduce__(self):
        return (device, (self.type, self.index))

    def __enter__(self):
        """``with device("meta"):`` (or ``"cpu"``): the factories called inside without
        ``device=`` make tensors there, as PyTorch 2's device context; the previous default
        comes back on leaving.

        >>> from diffcompare import autograd as ag
        >>> with ag.device("meta"):
        ...     ag.zeros(2).device, ag.nn.Linear(3, 2).weight.is_meta
        (device(type='meta'), True)
        >>> ag.zeros(2).device
        device(type='cpu')
        """
        _entered.append(_default[0])
        _default[0] = self
        return self

    def __exit__(self, *exc_info):
        _default[0] = _entered.pop()
        return False


def _typename(value):
    return type(value).__name__


CPU = device("cpu")
META = device("meta")
_default = [None]      # the device set by set_default_device (None: the CPU)
_entered = []          # the defaults before each `with device(...)` still open
NO_DATA = "Cannot copy out of meta tensor; no data!"


# META_SEEN[0] turns True once a meta array exists: until then the engine's ops skip every
# look for meta inputs (one list read per op).
META_SEEN = [False]


class MetaArray(np.ndarray):
    """The array behind a tensor on the ``meta`` device: a shape and a dtype, no data (one
    zero seen through zero strides), as PyTorch's shape-only placeholders
    (``model.to("meta")`` before ``functional_call``, ``empty_like(p, device="meta")``).
    An op with a meta input gives a meta result of PyTorch's shape and dtype: the engine
    computes it on zeros (or, for an op with a shape rule, ``Op.infer``, without computing)
    and keeps the shape and dtype only.

    >>> from diffcompare import autograd as ag
    >>> x = ag.rand(2, 3, device="meta")
    >>> (x @ ag.ones(3, 4, device="meta")).relu()
    tensor(..., device='meta', size=(2, 4))
    """


def meta_array(shape, dtype) -> MetaArray:
    """A meta array of ``shape`` and ``dtype`` (nothing allocated however large the shape)."""
    META_SEEN[0] = True
    return np.broadcast_to(np.zeros((), dtype=dtype), tuple(shape)).view(MetaArray)


def as_meta(array) -> MetaArray:
    """A meta array of ``array``'s shape and dtype."""
    array = np.asarray(array)
    return meta_array(array.shape, array.dtype)


def any_meta(arrays) -> bool:
    """Whether one of ``arrays`` (an op's inputs, any objects) is a meta array."""
    for a in arrays:
        if type(a) is MetaArray:
            return True
    return False


def is_meta(array) -> bool:
    return isinstance(array, MetaArray)


def refuse_meta(array, what):
    """PyTorch's error for reading the values of a meta tensor (``item``, ``tolist``,
    ``numpy``, ``cpu``)."""
    if not isinstance(array, MetaArray):
        return
    if what == "item" and array.size == 1:
        raise RuntimeError("Tensor.item() cannot be called on meta tensors")
    if what == "numpy":
        raise TypeError("can't convert meta device type tensor to numpy. Use Tensor.cpu() to copy the tensor to "
                        "host memory first.")
    if what != "item":
        raise NotImplementedError(NO_DATA)


def resolve(where, meta=False) -> device:
    """The device a tensor asked for with ``device=where`` lives on: the CPU (or, where the
    caller can make shape-only tensors and says ``meta=True``, the meta device), or PyTorch's
    error of a CPU-only build for a device this engine has not got.

    >>> resolve(None), resolve("cpu:0")
    (device(type='cpu'), device(type='cpu'))
    """
    if where is None:
        where = _default[0]
        if where is None:
            return CPU
    if type(where) is not device:
        where = device(where)
    kind = where.type
    if kind == "cpu":
        return CPU
    if kind == "meta" and meta:
        return META
    if kind in ("cuda", "hip"):
        raise AssertionError("Torch not compiled with CUDA enabled")
    if kind == "xpu":
        raise AssertionError("Torch not compiled with XPU enabled")
    if kind == "mps":
        raise RuntimeError("PyTorch is not linked with support for mps devices")
    raise RuntimeError(f"Could not run on device '{where}': this engine computes on the CPU only")


def check(where, meta=False):
    """Refuse, as :func:`resolve` does, a factory's ``device=`` that is not the CPU (nor, with
    ``meta=True``, the meta device); quick for the common call without one. Returns the
    device when it is not the CPU."""
    if where is not None or _default[0] is not None:
        found = resolve(where, meta)
        return None if found is CPU else found
    return None


def set_default_device(where) -> None:
    """Make ``where`` the device of the factories called without ``device=`` (None: the CPU).
    As in PyTorch, an unavailable device is accepted here and refused where a tensor is made.

    >>> set_default_device("cpu"); get_default_device()
    device(type='cpu')
    >>> set_default_device(None)
    """
    _default[0] = None if where is None else device(where)


def get_default_device() -> device:
    """The device the factories use when called without ``device=``."""
    return resolve(None, meta=True)


def _false():
    return False


def _true():
    return True


def _zero():
    return 0


def _none(*args, **kwargs):
    return None


def _no_cuda(*args, **kwargs):
    raise AssertionError("Torch not compiled with CUDA enabled")


def _no_accelerator(*args, **kwargs):
    raise RuntimeError(NO_ACCELERATOR)


def namespace(name, doc, **attributes):
    """A module object standing for ``torch.<name>``, importable under its name as PyTorch's
    is (``import torch.backends.cudnn as cudnn``, ``from torch.cuda.amp import GradScaler``).

    >>> import importlib
    >>> importlib.import_module(f"{__package__}.backends.cudnn").is_available()
    False
    """
    module = types.ModuleType(f"{__package__}.{name}", doc)
    module.__dict__.update(attributes)
    sys.modules.setdefault(module.__name__, module)
    return module


def _flags(name, **defaults):
    """A backend's ``flags(...)``: a context manager that sets its flags (each one not given to
    its default, as PyTorch's does) and puts the old values back after."""
    @contextlib.contextmanager
    def flags(**given):
        unknown = set(given) - set(defaults)
        if unknown:
            raise TypeError(f"flags() got an unexpected keyword argument '{sorted(unknown)[0]}'")
        module = sys.modules[f"{__package__}.{name}"]
        old = {key: getattr(module, key, None) for key in defaults}
        module.__dict__.update({**defaults, **given})
        try:
            yield
        finally:
            module.__dict__.update(old)
    return flags


cuda = namespace(
    "cuda", "``torch.cuda`` on a CPU-only engine: no CUDA device (``is_available()`` is False).",
    is_available=_false, device_count=_zero, is_initialized=_false,
    manual_seed=_none, manual_seed_all=_none, empty_cache=_none, is_bf16_supported=_false,
    current_device=_no_cuda, synchronize=_no_cuda, get_device_name=_no_cuda, set_device=_no_cuda)
accelerator = namespace(
    "accelerator", "``torch.accelerator`` on a CPU-only engine: ``is_available()`` is False and "
    "``current_accelerator()`` None.",
    is_available=_false, current_accelerator=_none, device_count=_zero,
    current_device_index=_no_accelerator, synchronize=_no_accelerator, set_device_index=_no_accelerator)
backends = namespace(
    "backends", "``torch.backends`` on a CPU-only engine: MPS and cuDNN are not there.",
    mps=namespace("backends.mps", "No MPS device.", is_available=_false, is_built=_false),
    cuda=namespace("backends.cuda", "No CUDA (its matmul flags may be set, as training scripts do).",
                   is_built=_false,
                   matmul=namespace("backends.cuda.matmul", "Flags of CUDA matrix products (no effect on a CPU).",
                                    allow_tf32=False, allow_fp16_reduced_precision_reduction=True,
                                    allow_bf16_reduced_precision_reduction=True)),
    cudnn=namespace("backends.cudnn", "No cuDNN (its flags may be set, as tutorials do).",
                    is_available=_false, version=_none, enabled=True, deterministic=False, benchmark=False,
                    allow_tf32=True, benchmark_limit=10, fp32_precision="none",
                    flags=_flags("backends.cudnn", enabled=False, benchmark=False, benchmark_limit=10,
                                 deterministic=False, allow_tf32=True, fp32_precision="none")),
    # what a CPU build of PyTorch says of its CPU libraries (training scripts ask before choosing)
    mkldnn=namespace("backends.mkldnn", "oneDNN's flags (no effect here).", is_available=_true, enabled=True,
                     deterministic=False, allow_tf32=True, fp32_precision="none",
                     flags=_flags("backends.mkldnn", enabled=False, deterministic=False, allow_tf32=True,
                                  fp32_precision="none")),
    mkl=namespace("backends.mkl", "MKL (no effect here).", is_available=_true),
    openmp=namespace("backends.openmp", "OpenMP (no effect here).", is_available=_true))

__all__ = ["META", "META_SEEN", "MetaArray", "accelerator", "any_meta", "as_meta", "backends", "cuda", "device",
           "namespace",
           "get_default_device", "is_meta", "meta_array", "refuse_meta", "resolve", "set_default_device"]
