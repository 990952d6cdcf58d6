"""Forward-mode AD: an op's result gets a tangent (the Jacobian-vector product Jt) from its
inputs' tangents, by the tangent rule its class declares beside its VJP (``Op.tangent``):

- ``"linear"``: the op is linear in its tensor inputs, so the tangent is the op itself
  applied to the tangents (reshape, slicing, sum, cat, ``x * c``, ...); ``"affine"``: the
  same with the constant arguments taken as 0 (``x + c``, ``c - x``);
- ``"elementwise"``: the Jacobian is diagonal (element by broadcast element), so J t is the
  VJP rule applied to g = t, broadcast to the result and not summed back (exp, mul, where, ...);
  for an op that is not holomorphic (abs of a complex z), whose VJP gives the conjugate
  Wirtinger gradient w, the tangent is Re(conj(w) t): the rule applied to conj(t), conjugated;
- ``"reduction"``: each input element feeds one result element, so the tangent is the sum,
  over the reduced axes, of the VJP of ones times the tangent (prod, max, var, norm, ...);
- a function ``rule(node, tangents, arrays, out)`` for the rest (matmul, softmax, log_softmax).

PyTorch's derivatives.yaml derives most of its forward formulas the same two ways
(``auto_linear``, ``auto_element_wise``). Tangents are arrays; the tensors that carry one
are those of the open dual level (``diffcompare.autograd.forward_ad``).

>>> import numpy as np
>>> from diffcompare import autograd as ag
>>> from diffcompare.autograd import forward_ad as fwAD
>>> with fwAD.dual_level():
...     x = fwAD.make_dual(ag.tensor([0.0, 1.0]), ag.tensor([1.0, 1.0]))
...     fwAD.unpack_dual((x.exp() * x).sum()).tangent      # d/dt sum((x + t) e^(x + t))
tensor(6.4366)
"""

from __future__ import annotations

import weakref

import numpy as np

from ..gradients import LAZY
from ..graph import SavedTensor
from ..grad_mode import STATE
from ..tensor import Tensor
from .dual import D
RESULT = -1     # in an op's ``saves``: its result (beside input positions and parameter names)
NOT_IMPLEMENTED = "Trying to use forward AD with {name} that does not support it because it has not been implemented yet."


def with_tangent(result, cls, args, arrays, params, apply):
    """Give ``result`` (the op ``cls`` on ``args``) its tangent when an input has one;
    ``apply`` records an op (``recording.apply``), for a tangent that is itself differentiable."""
    tangents = [a._tangent if isinstance(a, Tensor) else None for a in args]
    if all(t is None for t in tangents):
        return
    rule = cls.tangent
    if rule is None:
        raise NotImplementedError(NOT_IMPLEMENTED.format(name=cls.__name__))
    node = object.__new__(cls)       # a node of its own: the rule's needs(i) must mean "has a tangent"
    if params:
        node.__dict__.update(params)
    if STATE.grad_enabled and _differentiable(args, tangents):
        tangent = _tangent_of_tensors(node, rule, result, args, tangents, params, apply)
    else:
        tangents = [t._data if type(t) is not np.ndarray and isinstance(t, Tensor) else t for t in tangents]
        out = result._data
        if isinstance(rule, str):
            tangent = KINDS[rule](node, tangents, args, arrays, params, out)
        else:
            tangent = rule(node, tangents, arrays, out)
    set_tangent(result, tangent)
    recorded = result.grad_fn
    if recorded is not None and recorded._saved:
        for saved in recorded._saved:      # the node saved its result before the tangent existed
            if type(saved) is SavedTensor and saved.is_output:
                saved.tangent = result._tangent


def _differentiable(args, tangents):
    """Whether the tangent may have to be recorded for backward: a tangent requires grad, or
    an input does (the tangent rule may read its primal). Whether it is then recorded is
    up to the rule's own operations, as in PyTorch, whose formulas are ordinary operations
    on the primals and tangents."""
    for a, t in zip(args, tangents):
        if isinstance(a, Tensor) and a.requires_grad_flag or isinstance(t, Tensor) and t.requires_grad_flag:
            return True
    return False


def _tangent_of_tensors(node, rule, result, args, tangents, params, apply):
    """The tangent as a tensor with a graph: the same rules run on tensors (the backward
    rules are written for arrays and tensors alike, ``ops/dual.py``), with the dual level
    closed meanwhile so that the rule's own ops carry no tangents."""
    tangents = [t if t is None or isinstance(t, Tensor) else Tensor._make(t) for t in tangents]
    if not (rule == "linear" or rule == "affine"):
        # PyTorch's formulas take a zero tangent for an input without one, and its terms still
        # read the other inputs' primals (x * c: 0 * x + t * c has x's history)
        tangents = [Tensor._make(_zeros(a._data)) if t is None and isinstance(a, Tensor) and a.dtype.kind in "fc"
                    else t for a, t in zip(args, tangents)]
    tensors = list(args)
    level, STATE.forward_level = STATE.forward_level, 0
    try:
        primal = _primal_view(result)
        if rule == "linear" or rule == "affine":
            operands = []
            for a, t in zip(args, tangents):
                if isinstance(a, Tensor):
                    operands.append(t if t is not None else Tensor._make(_zeros(a._data)))
                else:
                    operands.append(_zeros(a) if rule == "affine" else a)
            return apply(type(node), operands, params)
        if isinstance(rule, str):
            return KINDS[rule](node, tangents, tensors, tensors, params, primal)
        return rule(node, tangents, tensors, primal)
    finally:
        STATE.forward_level = level


def _primal_view(t):
    """``t`` without its tangent (same data, same place in the graph)."""
    primal = Tensor._make(t._data, t.requires_grad_flag, t.grad_fn, t._counter())
    primal._output_nr = t._output_nr
    primal._accum = t._accum
    return primal


def set_tangent(tensor, tangent):
    """Attach ``tangent`` at the open level: an array (cast to the tensor's dtype and shape,
    writeable), or a tensor of the same shape and dtype, kept as it is (a tangent that is
    itself differentiable, or the one given to ``make_dual``)."""
    out = tensor._data
    if isinstance(tangent, Tensor):
        if tangent.dtype != out.dtype:
            if tangent.dtype.kind == "c" and out.dtype.kind != "c":
                tangent = tangent.real          # a real result's tangent: the real part (Re(conj(w) t))
            tangent = tangent.to(out.dtype)
        if tuple(tangent.shape) != out.shape:
            tangent = tangent.expand(out.shape)
        tensor._tangent = tangent
        STATE.dual_tensors.append(weakref.ref(tensor))
        return
    tangent = _dense(tangent)
    if tangent.dtype != out.dtype:
        tangent = tangent.astype(out.dtype) if out.dtype.kind == "c" or tangent.dtype.kind != "c" else \
            np.real(tangent).astype(out.dtype)
    if tangent.shape != out.shape:
        tangent = np.broadcast_to(tangent, out.shape)
    if not tangent.flags.writeable:
        tangent = np.array(tangent)
    tensor._tangent = tangent
    STATE.dual_tensors.append(weakref.ref(tensor))


def tangent_array(tangent):
    """A tangent as an array (None stays None)."""
    return tangent._data if isinstance(tangent, Tensor) else tangent


def _dense(g):
    while type(g) in LAZY:
        g = g.dense()
    return g if isinstance(g, Tensor) else np.asarray(g)


def _saved(node, arrays, params, out):
    values = []
    for i in type(node).saves:
        if i == RESULT:
            values.append(out)
        elif type(i) is str:
            values.append(params[i])
        else:
            values.append(arrays[i])
    return values


def _zeros(a):
    return np.zeros(np.shape(a), dtype=np.result_type(a))


def _linear(node, tangents, args, arrays, params, out, affine=False):
    operands = []
    for a, t, array in zip(args, tangents, arrays):
        if isinstance(a, Tensor):
            operands.append(t if t is not None else _zeros(array))
        else:
            operands.append(_zeros(a) if affine else a)
    return type(node).forward(*operands, **params) if params else type(node).forward(*operands)


def _affine(node, tangents, args, arrays, params, out):
    return _linear(node, tangents, args, arrays, params, out, affine=True)


def _elementwise(node, tangents, args, arrays, params, out):
    saved = _saved(node, arrays, params, out)
    total = None
    for i, t in enumerate(tangents):
        if t is None:
            continue
        node._next = tuple(True if j == i else None for j in range(len(args)))    # needs(i) alone
        g = t if t.shape == out.shape else D.expand(t, out.shape)
        if t.dtype.kind == "c" and not node.holomorphic:
            part = D.conj(_dense(node.backward(D.conj(g), *saved)[i]))
        else:
            part = _dense(node.backward(g, *saved)[i])
        total = part if total is None else total + part
    return total


def _reduction(node, tangents, args, arrays, params, out):
    (t,) = tangents
    node._next = (True,)
    ones = np.ones(out.shape, dtype=out.dtype)
    if isinstance(out, Tensor):
        ones = Tensor._make(ones)
    local = _dense(node.backward(ones, *_saved(node, arrays, params, out))[0])
    if local.dtype.kind == "c" and not node.holomorphic:
        local = D.conj(local)          # a real result of complex values: Re(conj(w) t), as for abs
    return (local * t).sum(axis=params["axis"], keepdims=params["keepdims"])


KINDS = {"linear": _linear, "affine": _affine, "elementwise": _elementwise, "reduction": _reduction}


def matmul_tangent(node, tangents, arrays, out):
    """(a + ta)(b + tb) to first order: ta b + a tb."""
    (ta, tb), (a, b) = tangents, arrays
    total = None
    if ta is not None:
        total = ta @ b
    if tb is not None:
        part = a @ tb
        total = part if total is None else total + part
    return total


def softmax_tangent(node, tangents, arrays, out):
    (t,) = tangents
    return out * (t - (out * t).sum(axis=node.dim, keepdims=True))


def log_softmax_tangent(node, tangents, arrays, out):
    (t,) = tangents
    return t - (D.exp(out) * t).sum(axis=node.dim, keepdims=True)
