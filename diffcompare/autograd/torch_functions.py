"""The torch-level functions of ``diffcompare.autograd`` (``ag.sin``, ``ag.cat``, ``ag.sum``):
the ops that every family of :mod:`.ops` lists in its ``PUBLIC``, exported under the
names PyTorch gives them at ``torch.<name>``.

>>> from diffcompare import autograd as ag
>>> from diffcompare.autograd import torch_functions
>>> torch_functions.sin is ag.sin
True
>>> ag.cat([ag.tensor([1.0]), ag.tensor([2.0])])
tensor([1., 2.])
"""


import os as _os
import warnings as _warnings

import numpy as _np

from . import ops
from .dtypes import CATEGORY as _CATEGORY, default_dtype as _default_dtype, promote_types
from .ops import *  # noqa: F401,F403  (the package's names; `__all__` below keeps the torch-level ones)
from .tensor import Tensor as _Tensor, as_tensor as _as_tensor

__all__ = list(ops.PUBLIC)


# -- torch-level names that are not ops: sizes, dtype queries, index helpers ----------------------

def finfo(type=None):  # noqa: A002  (PyTorch's name)
    """The limits of a floating dtype (``eps``, ``max``, ``min``, ``tiny``, ``bits``, ``resolution``)."""
    return _np.finfo(_default_dtype() if type is None else type)


def iinfo(type):  # noqa: A002
    """The limits of an integer dtype (``max``, ``min``, ``bits``)."""
    return _np.iinfo(type)


def is_floating_point(input):
    return input.is_floating_point()


def is_complex(input):
    return input.is_complex()


def is_signed(input):
    return input.is_signed()


def is_inference(input):
    return input.is_inference()


def is_conj(input):
    return input.is_conj()


def resolve_conj(input):
    return input.resolve_conj()


def resolve_neg(input):
    return input.resolve_neg()


def conj_physical(input):
    return input.conj_physical()


def is_same_size(input, other):
    """Whether two tensors have the same shape."""
    return tuple(input.shape) == tuple(other.shape)


def scalar_tensor(s, *, dtype=None, device=None, requires_grad=False):
    """A 0-d tensor holding the number ``s``, of the default dtype unless ``dtype`` (an int
    too: PyTorch's scalar_tensor is floating by default).

    >>> from diffcompare import autograd as ag
    >>> ag.scalar_tensor(3), ag.scalar_tensor(3, dtype=ag.int64)
    (tensor(3.), tensor(3))
    """
    out = _Tensor._make(_np.asarray(s, dtype=_np.dtype(dtype) if dtype is not None else _default_dtype()))
    out.requires_grad = requires_grad
    return out


def is_nonzero(input):
    return input.is_nonzero()


def can_cast(from_, to):
    """PyTorch's casting rule: no floating to integral, complex to real, or other to bool."""
    return _CATEGORY[_np.dtype(from_).kind] <= _CATEGORY[_np.dtype(to).kind]


def result_type(tensor1, tensor2):
    """The dtype of an arithmetic result (Python numbers do not widen a tensor's dtype)."""
    def operand(v):
        return v._data if isinstance(v, _Tensor) else v
    return _np.result_type(operand(tensor1), operand(tensor2))


def _indices(which, row, col, offset, dtype):
    rows, cols = which(row, offset, col)
    return _Tensor._make(_np.stack([rows, cols]).astype(dtype or _np.int64))


def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """The (row, column) indices of the lower triangle, as a 2 x N tensor."""
    return _indices(_np.tril_indices, row, col, offset, dtype)


def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """The (row, column) indices of the upper triangle, as a 2 x N tensor."""
    return _indices(_np.triu_indices, row, col, offset, dtype)


def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """``torch.embedding``, ATen's order: the rows of ``weight`` at ``indices`` (``padding_idx``
    -1 for none); ``nn.functional.embedding`` takes the indices first."""
    return ops.embedding(indices, weight, None if padding_idx is None or padding_idx < 0 else padding_idx,
                         scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


# (this module's `range` is torch.range from here on: no code below uses Python's)
def range(start=0, end=None, step=1, *, dtype=None, device=None, requires_grad=False):  # noqa: A001
    """The deprecated ``torch.range``: from ``start`` to ``end`` inclusive by ``step``, in the
    default floating dtype, with PyTorch's warning.

    >>> from diffcompare import autograd as ag
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     ag.range(1, 4)
    tensor([1., 2., 3., 4.])
    """
    _warnings.warn("torch.range is deprecated and will be removed in a future release because its behavior is "
                   "inconsistent with Python's range builtin. Instead, use torch.arange, which produces values in "
                   "[start, end).", UserWarning, stacklevel=3)
    if end is None:
        start, end = 0, start
    count = int(_np.floor((end - start) / step)) + 1
    values = start + step * _np.arange(count if count > 0 else 0, dtype=_np.float64)
    out = _Tensor._make(values.astype(dtype or _default_dtype()))
    out.requires_grad = requires_grad
    return out


def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """Whether each element is among ``test_elements``."""
    def values(v):
        return v._data if isinstance(v, _Tensor) else _np.asarray(v)
    return _Tensor._make(_np.isin(values(elements), values(test_elements), invert=invert))


def logspace(start, end, steps, base=10.0, *, dtype=None, device=None, requires_grad=False):
    """``steps`` values from ``base ** start`` to ``base ** end``, evenly spaced in the exponent."""
    out = _Tensor._make(_np.logspace(start, end, steps, base=base).astype(dtype or _default_dtype()))
    out.requires_grad = requires_grad
    return out


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=None):
    """``obj`` as a tensor, sharing memory with a tensor or array of the right dtype unless
    ``copy``. ``requires_grad=False`` gives a tensor outside the graph (``obj`` detached);
    unspecified, a tensor keeps its history (PyTorch 2.13 warns that this default changed)."""
    out = _as_tensor(obj, dtype=dtype)
    if copy:
        out = _Tensor._make(_np.array(out._data))
    if requires_grad is None:
        if isinstance(obj, _Tensor) and obj.requires_grad:
            _warnings.warn("torch.asarray: unspecified requires_grad now defaults to obj.requires_grad instead of "
                           "False. Pass requires_grad=False explicitly to get the old behavior and silence this "
                           "warning.", UserWarning, stacklevel=3)
        return out
    if not requires_grad:
        return out.detach() if out.requires_grad else out
    if out.grad_fn is None:
        out.requires_grad = True
    return out


def _in_place_function(name):
    def function(input, *args, **kwargs):
        return getattr(input, name)(*args, **kwargs)
    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"``torch.{name}(input, ...)``: ``input.{name}(...)``, written into ``input``."
    return function


# the in-place functions PyTorch has at the top level: each is the Tensor method of its name
IN_PLACE_FUNCTIONS = (
    "abs_", "acos_", "acosh_", "addmv_", "arccos_", "arccosh_", "arcsin_", "arcsinh_", "arctan_", "arctanh_",
    "as_strided_", "asin_", "asinh_", "atan_", "atanh_", "ceil_", "clamp_", "clamp_max_", "clamp_min_", "clip_",
    "conj_physical_", "cos_", "cosh_", "deg2rad_", "detach_", "erf_", "erfc_", "exp2_", "exp_", "expm1_", "fill_",
    "fix_", "floor_", "frac_", "gcd_", "i0_", "index_put_", "lcm_", "ldexp_", "log10_", "log1p_", "log2_", "log_",
    "logit_", "nan_to_num_", "neg_", "negative_", "rad2deg_", "reciprocal_", "relu_", "resize_as_", "round_",
    "rsqrt_", "sigmoid_", "sin_", "sinc_", "sinh_", "sqrt_", "square_", "tan_", "tanh_", "trunc_", "xlogy_", "zero_")
globals().update({_name: _in_place_function(_name) for _name in IN_PLACE_FUNCTIONS})

def rsub(input, other, *, alpha=1):
    """``other - alpha * input`` (RsubBackward0), as ``torch.rsub``."""
    if not isinstance(other, _Tensor):
        other = _as_tensor(other, dtype=input.dtype)
    return ops.rename_node_of(ops.sub(other, input, alpha=alpha), "RsubBackward0")


def fill(input, value):
    """A new tensor of ``input``'s shape and dtype filled with ``value`` (FillBackward0: the
    input gets a zero gradient), as the out-of-place ``torch.fill``."""
    return ops.rename_node_of(ops.fill_(input.clone(), value), "FillBackward0")


def typename(obj):
    """PyTorch's name of ``obj``'s type: "torch.DoubleTensor" for a tensor, else module.class."""
    if isinstance(obj, _Tensor):
        return obj.type()
    kind = obj if isinstance(obj, type) else type(obj)
    module = "" if kind.__module__ in ("builtins", "__builtin__", None) else kind.__module__ + "."
    return module + kind.__qualname__


def detach(input):
    """``input.detach()``, as ``torch.detach``."""
    return input.detach()


def adjoint(input):
    """The conjugate transpose of the last two dimensions (a view), as ``torch.adjoint``."""
    return input.adjoint()


_DETERMINISTIC = {"mode": False, "warn_only": False}


def use_deterministic_algorithms(mode, *, warn_only=False):
    """PyTorch's switch to deterministic kernels: the engine's are deterministic already (one
    thread, NumPy), so the setting is kept and read back, and changes nothing."""
    _DETERMINISTIC.update(mode=bool(mode), warn_only=bool(warn_only))


def are_deterministic_algorithms_enabled():
    return _DETERMINISTIC["mode"]


def is_deterministic_algorithms_warn_only_enabled():
    return _DETERMINISTIC["mode"] and _DETERMINISTIC["warn_only"]


def _default_threads():
    return len(_os.sched_getaffinity(0)) if hasattr(_os, "sched_getaffinity") else (_os.cpu_count() or 1)


_THREADS = {"intra": None, "inter": None}


def set_num_threads(n):
    """PyTorch's intra-op thread count: kept and read back; the engine's work runs in NumPy
    (its BLAS threads are set by the environment, OPENBLAS_NUM_THREADS and kin)."""
    if not isinstance(n, int) or n <= 0:
        raise RuntimeError("set_num_threads expects a positive integer")
    _THREADS["intra"] = n


def get_num_threads():
    return _THREADS["intra"] or _default_threads()


def set_num_interop_threads(n):
    if not isinstance(n, int) or n <= 0:
        raise RuntimeError("set_num_interop_threads expects a positive integer")
    _THREADS["inter"] = n


def get_num_interop_threads():
    return _THREADS["inter"] or _default_threads()


absolute = ops.abs
subtract = ops.sub
dtype = _np.dtype       # torch.dtype: the engine's dtypes are NumPy's (isinstance(x.dtype, torch.dtype))
concat = ops.cat
cholesky = ops.torch_cholesky
arctan2 = ops.atan2
__all__ += ["get_num_interop_threads", "get_num_threads", "set_num_interop_threads", "set_num_threads"]
__all__ += ["absolute", "adjoint", "are_deterministic_algorithms_enabled", "is_deterministic_algorithms_warn_only_enabled",
            "use_deterministic_algorithms", "arctan2", "asarray", "detach", "dtype", "fill", "rsub", "subtract", "typename", "can_cast", "cholesky", "concat", "embedding", "finfo", "range",
            "iinfo", "is_complex", "is_floating_point", "is_nonzero", "isin", "logspace", "promote_types",
            "conj_physical", "is_conj", "is_inference", "is_same_size", "is_signed", "resolve_conj", "resolve_neg",
            "scalar_tensor",
            "result_type", "tril_indices", "triu_indices", *IN_PLACE_FUNCTIONS]

# PyTorch's NumPy-style keywords (axis=, keepdims=, x=, size=) on every torch-level function
from .numpy_names import accept_numpy_names as _accept_numpy_names  # noqa: E402
_accept_numpy_names(globals())
