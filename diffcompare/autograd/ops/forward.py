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
RESULT = -1     # in an op's ``saves``: its result (beside input positions and parameter names)
NOT_IMPLEMENTED = "Trying to use forward AD with {name} that does not support it because it has not been implemented yet."


def with_tangent(result, cls, args, arrays, params):
    """Give ``result`` (the op ``cls`` on ``args``) its tangent when an input has one."""
    tangents = [a._tangent if isinstance(a, Tensor) else None for a in args]
    if all(t is None for t in tangents):
        return
    rule = cls.tangent
    if rule is None:
        raise NotImplementedError(NOT_IMPLEMENTED.format(name=cls.__name__))
    out = result._data
    node = object.__new__(cls)       # a node of its own: the rule's needs(i) must mean "has a tangent"
    if params:
        node.__dict__.update(params)
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


def set_tangent(tensor, tangent):
    """Attach ``tangent`` (cast to the tensor's dtype and shape, writeable) at the open level."""
    out = tensor._data
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


def _dense(g):
    while type(g) in LAZY:
        g = g.dense()
    return np.asarray(g)


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
        g = t if t.shape == out.shape else np.broadcast_to(t, out.shape)
        if t.dtype.kind == "c" and not node.holomorphic:
            part = np.conj(_dense(node.backward(np.conj(g), *saved)[i]))
        else:
            part = _dense(node.backward(g, *saved)[i])
        total = part if total is None else total + part
    return total


def _reduction(node, tangents, args, arrays, params, out):
    (t,) = tangents
    node._next = (True,)
    local = _dense(node.backward(np.ones(out.shape, dtype=out.dtype), *_saved(node, arrays, params, out))[0])
    if local.dtype.kind == "c" and not node.holomorphic:
        local = np.conj(local)          # a real result of complex values: Re(conj(w) t), as for abs
    return np.sum(local * t, axis=params["axis"], keepdims=params["keepdims"])


KINDS = {"linear": _linear, "affine": _affine, "elementwise": _elementwise, "reduction": _reduction}


def matmul_tangent(node, tangents, arrays, out):
    """(a + ta)(b + tb) to first order: ta b + a tb."""
    (ta, tb), (a, b) = tangents, arrays
    total = None
    if ta is not None:
        total = np.matmul(ta, b)
    if tb is not None:
        part = np.matmul(a, tb)
        total = part if total is None else total + part
    return total


def softmax_tangent(node, tangents, arrays, out):
    (t,) = tangents
    return out * (t - (out * t).sum(axis=node.dim, keepdims=True))


def log_softmax_tangent(node, tangents, arrays, out):
    (t,) = tangents
    return t - (np.exp(out) * t).sum(axis=node.dim, keepdims=True)
