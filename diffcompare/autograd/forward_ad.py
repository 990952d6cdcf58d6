"""Forward-mode automatic differentiation, with PyTorch's ``torch.autograd.forward_ad`` API.

Inside a ``dual_level()``, ``make_dual(primal, tangent)`` gives a tensor that carries a
tangent t; every operation on it computes its result's tangent beside its value (the
Jacobian-vector product J t, by the tangent rule each op declares beside its VJP, see
``ops/forward.py``), and ``unpack_dual`` reads it back. One forward pass gives J t for one
direction t: n passes give a Jacobian with n columns, where reverse mode needs m passes for
its m rows.

>>> from diffcompare import autograd as ag
>>> import diffcompare.autograd.forward_ad as fwAD
>>> x = ag.tensor([1.0, 2.0])
>>> with fwAD.dual_level():
...     dual = fwAD.make_dual(x, ag.tensor([1.0, 0.0]))
...     y = dual ** 2 * dual[1]
...     fwAD.unpack_dual(y).tangent                    # the first column of J
tensor([4., 0.])
>>> fwAD.make_dual(x, x)
Traceback (most recent call last):
...
RuntimeError: Trying to create a dual Tensor for forward AD but no level exists, make sure to enter_dual_level() first.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from .grad_mode import STATE
from .ops.forward import set_tangent
from .ops.shape import fw_primal
from .tensor import Tensor

UnpackedDualTensor = namedtuple("UnpackedDualTensor", ["primal", "tangent"])

NO_LEVEL = "Trying to create a dual Tensor for forward AD but no level exists, make sure to enter_dual_level() first."


def enter_dual_level():
    """Open a dual level (one at a time, as in PyTorch) and return its number."""
    if STATE.forward_level:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    STATE.forward_level = 1
    STATE.dual_tensors = []     # weak references (tensors compare elementwise: no set of them)
    return 0


def exit_dual_level(*, level=None):
    """Close the dual level: every tangent made in it is dropped."""
    if not STATE.forward_level:
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that was created. This is "
                           "not supported.")
    for ref in STATE.dual_tensors:
        tensor = ref()
        if tensor is not None:
            tensor._tangent = None
    STATE.forward_level = 0
    STATE.dual_tensors = None


class dual_level:  # noqa: N801 - PyTorch's name
    """Context manager of a dual level: ``with dual_level(): ...``."""

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, *exc):
        exit_dual_level()


def make_dual(tensor, tangent, *, level=None):
    """A view of ``tensor`` whose tangent is ``tangent`` (same shape; cast to its dtype)."""
    if not STATE.forward_level:
        raise RuntimeError(NO_LEVEL)
    if not isinstance(tensor, Tensor) or not isinstance(tangent, Tensor):
        raise TypeError("make_dual expects tensors for the primal and the tangent")
    if tensor.dtype.kind not in "fc":
        raise ValueError(f"Expected primal to be floating point or complex, but got: {tensor.dtype}")
    if tangent.shape != tensor.shape:
        raise RuntimeError(
            "Trying to set a forward gradient that has a different size than that of the original Tensor, this is "
            f"not supported. Tensor is of size {list(tensor.shape)} while the given forward gradient is of size "
            f"{list(tangent.shape)}.")
    dual = tensor.view_as(tensor)
    set_tangent(dual, tangent)     # the tangent itself, as in PyTorch: unpack_dual gives it back
    return dual


def unpack_dual(tensor, *, level=None):
    """``(primal, tangent)`` inside a dual level: the primal is a view of the tensor without its
    tangent (a node ``torch::autograd::Identity`` in its history when the tensor requires grad,
    as PyTorch's ``_fw_primal`` makes it), the tangent the tensor given to ``make_dual`` or one
    computed by the ops (None if it has none), differentiable when the tangents or primals it
    came from require grad. Outside a dual level: the tensor itself, and None.

    >>> from diffcompare import autograd as ag
    >>> x = ag.tensor([1.0, 2.0], requires_grad=True)
    >>> with dual_level():
    ...     primal, tangent = unpack_dual(make_dual(x, ag.ones(2)) * 3)
    >>> primal.grad_fn.name(), primal.grad_fn.next_functions[0][0].name(), tangent
    ('torch::autograd::Identity', 'MulBackward0', tensor([3., 3.]))
    """
    if not STATE.forward_level:
        return UnpackedDualTensor(tensor, None)
    return UnpackedDualTensor(fw_primal(tensor), _tangent_of(tensor))


def split_dual(tensor):
    """``(primal, tangent)`` for the engine's own transforms: the primal a tensor of the same
    data and history, without a node of its own (what ``torch.func.jvp`` returns is built from it)."""
    primal = Tensor._make(tensor._data, tensor.requires_grad_flag, tensor.grad_fn, tensor._counter())
    primal._output_nr = tensor._output_nr
    return UnpackedDualTensor(primal, _tangent_of(tensor))


def _tangent_of(tensor):
    """The tensor's tangent at the dual level in force, as a tensor (None: none, or no level)."""
    tangent = tensor._tangent if STATE.forward_level else None
    return Tensor._make(tangent) if tangent is not None and not isinstance(tangent, Tensor) else tangent
