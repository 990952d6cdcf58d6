"""PyTorch's ``out=`` argument: a function's result written into a given tensor, which is
returned. It sits below the op families, so each of them (``cat``, ``matmul``, ``mul``) can
take ``out=`` without importing another family.

>>> from diffcompare import autograd as ag
>>> out = ag.zeros(2)
>>> ag.mul(ag.tensor([1.0, 2.0]), 2.0, out=out) is out, out
(True, tensor([2., 4.]))
>>> values, indices = ag.zeros(2), ag.zeros(2, dtype=ag.int64)
>>> ag.max(ag.tensor([[1.0, 3.0], [4.0, 2.0]]), 1, out=(values, indices)).values is values, indices
(True, tensor([1, 0]))
"""

from __future__ import annotations

import warnings

import numpy as np

from ..grad_mode import STATE
from ..tensor import Tensor


def write_out(result, out, name, copied=False):
    """``result`` written into ``out`` (PyTorch's ``out=``): out's values (resized when its
    shape differs) in out's dtype, refused when a differentiable input would need a graph.
    Without ``out``, ``result`` itself. ``copied``: an op whose ``out=`` PyTorch writes with
    ``out.copy_(result)`` (``tensordot``), so a result that requires grad is copied into
    ``out`` with its history (CopyBackwards), not refused."""
    if out is None:
        return result
    if isinstance(result, tuple):
        # several results (``torch.max(x, 1, out=(values, indices))``): one tensor of ``out`` each
        if not isinstance(out, (tuple, list)) or len(out) != len(result):
            raise TypeError(f"{name}(): argument 'out' must be tuple of {len(result)} Tensors, not "
                            f"{type(out).__name__}")
        written = [write_out(r, o, name, copied) for r, o in zip(result, out)]
        return type(result)(*written) if hasattr(result, "_fields") else type(result)(written)
    if not isinstance(out, Tensor):
        raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
    if STATE.grad_enabled and (result.requires_grad or out.requires_grad):
        if copied and tuple(out.shape) == tuple(result.shape) and not out.requires_grad:
            return out.copy_(result)
        raise RuntimeError(f"{name}(): functions with out=... arguments don't support automatic differentiation, "
                           "but one of the arguments requires grad.")
    values = result._data
    if out.dtype != values.dtype and not np.can_cast(values.dtype, out.dtype, "same_kind"):
        raise RuntimeError(f"result type {_type_name(values.dtype)} can't be cast to the desired output type "
                           f"{_type_name(out.dtype)}")
    if tuple(out.shape) == tuple(values.shape):
        np.copyto(out._data, values, casting="unsafe")
    else:
        if out._data.size:
            warnings.warn(f"An output with one or more elements was resized since it had shape {list(out.shape)}, "
                          f"which does not match the required output shape {list(values.shape)}. This behavior is "
                          "deprecated, and in a future PyTorch release outputs will not be resized unless they have "
                          "zero elements. You can explicitly reuse an out tensor t by resizing it, inplace, to zero "
                          "elements with t.resize_(0).", UserWarning, stacklevel=3)
        out._data = np.array(values, dtype=out.dtype)
    out._bump()
    return out


def _type_name(dtype):
    names = {"f": "Float", "c": "ComplexFloat", "i": "Long", "u": "Byte", "b": "Bool"}
    return {np.dtype(np.float64): "Double", np.dtype(np.float32): "Float", np.dtype(np.int32): "Int",
            np.dtype(np.complex128): "ComplexDouble"}.get(np.dtype(dtype), names.get(np.dtype(dtype).kind, str(dtype)))


# what the module exports to `ops`
__all__ = ["write_out"]
