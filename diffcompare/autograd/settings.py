"""Process-wide switches PyTorch scripts set at the top that change nothing a CPU float64 engine
computes: ``torch.set_float32_matmul_precision`` (TF32 on GPUs), ``torch.set_warn_always``, and
``torch.compile``, which here runs the model or function as it is (eagerly: the same values
PyTorch's compiled code promises, without the compilation).

>>> from diffcompare import autograd as ag
>>> ag.set_float32_matmul_precision("high"); ag.get_float32_matmul_precision()
'high'
>>> ag.compile(lambda t: t * 2)(ag.ones(2))
tensor([2., 2.])
"""

from __future__ import annotations

import warnings

_STATE = {"matmul_precision": "highest", "warn_always": False}
_PRECISIONS = ("highest", "high", "medium")


def set_float32_matmul_precision(precision) -> None:
    """Record the float32 matmul precision asked for (``"highest"``, ``"high"``, ``"medium"``):
    it selects TF32 or bfloat16 kernels on GPUs, and nothing on this engine. Another value
    warns and changes nothing, as in PyTorch."""
    if precision not in _PRECISIONS:
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
                      "setFloat32MatmulPrecision call has no effect.", UserWarning, stacklevel=2)
        return
    _STATE["matmul_precision"] = precision


def get_float32_matmul_precision() -> str:
    return _STATE["matmul_precision"]


def set_warn_always(b) -> None:
    """PyTorch's switch for warnings it otherwise gives once; kept and reported."""
    _STATE["warn_always"] = bool(b)


def is_warn_always_enabled() -> bool:
    return _STATE["warn_always"]


def compile(model=None, *, fullgraph=False, dynamic=None, backend="inductor", mode=None,  # noqa: A001
            options=None, disable=False):
    """``torch.compile``: ``model`` (a module or a function) itself, run eagerly; without a
    model, a decorator. The engine has no compiler: the values and gradients are the eager
    ones, which compiled code promises to reproduce. (PyTorch wraps a module in an
    ``OptimizedModule`` whose state_dict keys start with ``_orig_mod.``; here the module is
    returned unwrapped.)"""
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be specified at the same time.")
    if model is None:
        return lambda m: compile(m, fullgraph=fullgraph, dynamic=dynamic, backend=backend, mode=mode,
                                 options=options, disable=disable)
    if not callable(model):
        raise RuntimeError("torch.compile: the model must be callable (a module or a function)")
    return model


__all__ = ["compile", "get_float32_matmul_precision", "is_warn_always_enabled", "set_float32_matmul_precision",
           "set_warn_always"]
