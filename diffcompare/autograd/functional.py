"""Higher-level derivatives of a function: ``vjp``, ``jvp``, ``jacobian``, ``hessian``, ``hvp``, ``vhp``.

Same signatures and results as ``torch.autograd.functional``. Under PyTorch's import names this
module is ``torch.functional`` too, PyTorch's module of tensor functions written in Python: it
holds those as well (``torch.functional.split``, ``einsum``, ``meshgrid``, ...: the engine's
torch-level functions).

>>> from diffcompare import autograd as ag
>>> ag.functional.jacobian(lambda x: x ** 2, ag.tensor([1.0, 2.0]))
tensor([[2., 0.],
        [0., 4.]])
>>> ag.functional.hessian(lambda x: (x ** 3).sum(), ag.tensor([1.0, 2.0]))
tensor([[ 6.,  0.],
        [ 0., 12.]])
"""

from __future__ import annotations

import numpy as np

from . import forward_ad
from .backward import grad
from .func import lift
from .grad_mode import enable_grad
from .ops import stack
from .ops.inplace import rename_node_of
from .tensor import Tensor
from .torch_functions import (atleast_1d, atleast_2d, atleast_3d, block_diag, broadcast_shapes,  # noqa: F401
                              broadcast_tensors, cartesian_prod, cdist, chain_matmul, einsum, istft, lu, meshgrid,
                              norm, split, stft, tensordot, unique, unique_consecutive, unravel_index)


def _as_tuple(x):
    return ((x,), False) if isinstance(x, Tensor) else (tuple(x), True)


def _prepare(inputs, create_graph):
    """Fresh leaves (or graph-connected views with create_graph) so that the user's tensors
    and their ``.grad`` are not touched."""
    out = []
    for t in inputs:
        if not isinstance(t, Tensor):
            raise TypeError(f"inputs must be tensors, got {type(t).__name__}")
        if create_graph:    # a view of t when it requires grad, else a new leaf (with t's tangent, if any)
            out.append(lift(t))
        else:
            out.append(t.detach().requires_grad_(t.dtype.kind in "fc"))
    return tuple(out)


def _outputs(func, inputs):
    with enable_grad():
        result = func(*inputs)
    single = isinstance(result, Tensor)
    outs = (result,) if single else tuple(result)
    for i, o in enumerate(outs):
        if not isinstance(o, Tensor):
            raise TypeError(f"The function given to a functional derivative must return tensors; output {i} "
                            f"is a {type(o).__name__}")
    return outs, single


def _grads(outputs, inputs, grad_outputs, create_graph, strict, what, batched=False):
    differentiable = [(o, g) for o, g in zip(outputs, grad_outputs) if o.requires_grad]
    if strict:
        for i, o in enumerate(outputs):
            if not o.requires_grad:
                raise RuntimeError(
                    f"Output {i} of the user-provided function does not require gradients. The outputs must be "
                    "computed in a differentiable manner from the input when running in strict mode.")
    if not differentiable:
        return tuple(None for _ in inputs)
    outs, gs = zip(*differentiable)
    result = grad(outs, inputs, gs, retain_graph=True, create_graph=create_graph, allow_unused=True,
                  is_grads_batched=batched)
    if strict and any(r is None for r in result):
        i = next(k for k, r in enumerate(result) if r is None)
        raise RuntimeError(f"The {what} of the user-provided function is independent of input {i}. This is not "
                           "allowed in strict mode.")
    return result


def _zeros_for(grads, inputs):
    return tuple(g if g is not None else Tensor._make(np.zeros(t.shape, dtype=t.dtype)) for g, t in zip(grads, inputs))


def _detach(values, create_graph):
    return tuple(v if create_graph else v.detach() for v in values)


def _vectors(v, like, what):
    """The vectors v as a tuple; None stands for 1 only when ``like`` is one one-element tensor."""
    if v is not None:
        return _as_tuple(v)[0]
    if len(like) != 1 or like[0].numel() != 1:
        raise RuntimeError(f"The vector v can only be None if {what} a single Tensor with a single element.")
    return (Tensor._make(np.ones(like[0].shape, dtype=like[0].dtype)),)


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), vᵀ J)``; v may be omitted only for a one-element output.

    >>> from diffcompare import autograd as ag
    >>> ag.functional.vjp(lambda x: x ** 2, ag.tensor([1.0, 2.0]), ag.tensor([1.0, 10.0]))
    (tensor([1., 4.]), tensor([ 2., 40.]))
    """
    inputs, tuple_in = _as_tuple(inputs)
    inputs = _prepare(inputs, create_graph)
    outputs, single_out = _outputs(func, inputs)
    vs = _vectors(v, outputs, "the user-provided function returns")
    result = _zeros_for(_grads(outputs, inputs, vs, create_graph, strict, "vjp"), inputs)
    outs = _detach(outputs, create_graph)
    result = _detach(result, create_graph)
    return (outs[0] if single_out else outs), (result if tuple_in else result[0])


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), J v)`` by forward mode: one pass of f with the tangent v
    (``forward_ad``). With ``create_graph`` (a J v that is itself differentiable) or
    ``strict``, by the double-vjp trick instead: differentiate u ↦ uᵀJ with respect to u.

    >>> from diffcompare import autograd as ag
    >>> ag.functional.jvp(lambda x: x ** 2, ag.tensor([1.0, 2.0]), ag.tensor([1.0, 1.0]))
    (tensor([1., 4.]), tensor([2., 4.]))
    """
    if not create_graph and not strict:
        return _forward_jvp(func, inputs, v)
    inputs, tuple_in = _as_tuple(inputs)
    inputs = _prepare(inputs, create_graph)
    vs = _vectors(v, inputs, "the input to the user-provided function is")
    outputs, single_out = _outputs(func, inputs)
    dummies = tuple(Tensor._make(np.zeros(o.shape, dtype=o.dtype), True) for o in outputs)
    with enable_grad():
        g = _grads(outputs, inputs, dummies, True, strict, "jvp")
        pairs = [(gi, vi) for gi, vi in zip(g, vs) if gi is not None and gi.requires_grad]
        if pairs:
            gs, vv = zip(*pairs)
            result = grad(gs, dummies, vv, create_graph=create_graph, allow_unused=True)
        else:
            result = (None,) * len(dummies)
    result = _detach(_zeros_for(result, outputs), create_graph)
    outs = _detach(outputs, create_graph)
    return (outs[0] if single_out else outs), (result[0] if single_out else result)


def _forward_jvp(func, inputs, v):
    inputs, tuple_in = _as_tuple(inputs)
    for t in inputs:
        if not isinstance(t, Tensor):
            raise TypeError(f"inputs must be tensors, got {type(t).__name__}")
    vs = _vectors(v, inputs, "the input to the user-provided function is")
    if len(vs) != len(inputs):
        raise RuntimeError(f"v has {len(vs)} tensors but the function takes {len(inputs)} inputs")
    with forward_ad.dual_level():
        duals = []
        for t, vi in zip(inputs, vs):
            if tuple(vi.shape) != tuple(t.shape):
                raise RuntimeError(f"v has invalid size: should be {_size(t.shape)} but got {_size(vi.shape)}.")
            duals.append(forward_ad.make_dual(t.detach(), vi.detach()))
        outputs, single_out = _outputs(func, tuple(duals))
        pairs = [forward_ad.split_dual(o) for o in outputs]
    outs = tuple(p.primal.detach() for p in pairs)
    result = tuple(p.tangent if p.tangent is not None else Tensor._make(np.zeros(o.shape, dtype=o.dtype))
                   for p, o in zip(pairs, outs))
    return (outs[0] if single_out else outs), (result[0] if single_out else result)


def _size(shape):
    return f"torch.Size({list(shape)})"


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"):
    """The Jacobian, shaped ``output.shape + input.shape``: one backward per output element,
    or with ``vectorize=True`` one batched backward per output seeded with the identity
    (``grad(..., is_grads_batched=True)``), as PyTorch's vmap does.

    Tuple inputs (or outputs) give a tuple of Jacobians (of tuples for both).

    >>> from diffcompare import autograd as ag
    >>> ag.functional.jacobian(lambda x: x.exp().cumsum(0), ag.tensor([0.0, 0.0]), vectorize=True)
    tensor([[1., 0.],
            [1., 1.]])
    """
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
                             'function has more outputs than inputs, "forward-mode" tends to be more performant. '
                             'Otherwise, prefer to use "reverse-mode".')
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError('torch.autograd.functional.jacobian: `create_graph=True` and '
                                      '`strategy="forward-mode"` are not supported together (yet). Please either set '
                                      '`create_graph=False` or `strategy="reverse-mode"`.')
        return _forward_jacobian(func, inputs, strict, vectorize)
    inputs, tuple_in = _as_tuple(inputs)
    inputs = _prepare(inputs, create_graph)
    outputs, single_out = _outputs(func, inputs)
    if vectorize:
        if strict:
            raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are not "
                               "supported together. Please either set `strict=False` or `vectorize=False`.")
        per_output = [_vectorized_jacobian(out, inputs, create_graph, strict, tuple_in) for out in outputs]
        return per_output[0] if single_out else tuple(per_output)
    per_output = []
    for i, out in enumerate(outputs):
        rows = [[] for _ in inputs]
        for j in range(out.numel()):
            if out.requires_grad:
                # row j is e_jᵀJ: seeding the same output each time lets the walk reuse its plan
                seed = np.zeros(out.numel(), dtype=out.dtype)
                seed[j] = 1
                g = _grads((out,), inputs, (Tensor._make(seed.reshape(out.shape)),), create_graph, strict, "output")
            else:
                if strict:
                    _grads((out,), inputs, (None,), create_graph, strict, "output")
                g = (None,) * len(inputs)
            for k, (gk, t) in enumerate(zip(g, inputs)):
                rows[k].append(gk if gk is not None else Tensor._make(np.zeros(t.shape, dtype=t.dtype)))
        blocks = []
        for k, t in enumerate(inputs):
            if rows[k]:

                block = stack(rows[k]).reshape(out.shape + t.shape)
            else:
                block = Tensor._make(np.zeros(out.shape + t.shape, dtype=t.dtype))
            blocks.append(block if create_graph else block.detach())
        per_output.append(tuple(blocks) if tuple_in else blocks[0])
    return per_output[0] if single_out else tuple(per_output)


def _forward_jacobian(func, inputs, strict, vectorize):
    """The Jacobian by forward mode (``strategy="forward-mode"``): ``func`` run on dual tensors
    once per input element, that element's tangent 1 and every other 0; the outputs' tangents
    are the Jacobian's columns. PyTorch batches these passes with vmap and so asks for
    ``vectorize=True``; so does this (the values are the same either way)."""
    if strict:
        raise RuntimeError('torch.autograd.functional.jacobian: `strict=True` and `strategy="forward-mode"` are '
                           'not supported together (yet). Please either set `strict=False` or '
                           '`strategy="reverse-mode"`.')
    if not vectorize:
        raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse Hessian is"
                                  "only implemented for `vectorize=True`.")
    inputs, tuple_in = _as_tuple(inputs)
    for t in inputs:
        if not isinstance(t, Tensor):
            raise TypeError(f"inputs must be tensors, got {type(t).__name__}")
    columns, outputs, single_out = [], None, True     # columns[k][e]: the outputs' tangents
    for k, x in enumerate(inputs):
        columns.append([])
        for e in range(x.numel()):
            with forward_ad.dual_level():
                duals = []
                for m, t in enumerate(inputs):
                    tangent = np.zeros(t.numel(), dtype=t.dtype)
                    if m == k:
                        tangent[e] = 1
                    duals.append(forward_ad.make_dual(t, Tensor._make(tangent.reshape(t.shape))))
                outs, single_out = _outputs(func, tuple(duals))
                unpacked = [forward_ad.split_dual(o) for o in outs]
            outputs = [u.primal for u in unpacked]
            columns[k].append([u.tangent if u.tangent is not None else Tensor._make(np.zeros(u.primal.shape,
                               dtype=u.primal.dtype)) for u in unpacked])
    if outputs is None:         # no input elements: the function still runs once, for its outputs
        outs, single_out = _outputs(func, inputs)
        outputs = [o.detach() for o in outs]
    per_output = []
    for i, out in enumerate(outputs):
        blocks = []
        for k, x in enumerate(inputs):
            shape = tuple(out.shape) + tuple(x.shape)
            if columns[k]:     # attached to the inputs' graph where they require grad, as PyTorch's
                tangents = stack([column[i] for column in columns[k]], -1)
                blocks.append(rename_node_of(tangents.reshape(shape), "ReshapeAliasBackward0"))
            else:
                blocks.append(Tensor._make(np.zeros(shape, dtype=x.dtype)))
        per_output.append(tuple(blocks) if tuple_in else blocks[0])
    return per_output[0] if single_out else tuple(per_output)


def _vectorized_jacobian(out, inputs, create_graph, strict, tuple_in):
    """One output's Jacobian blocks by one batched backward seeded with the identity."""
    n = out.numel()
    if out.requires_grad and n:
        eye = Tensor._make(np.eye(n, dtype=out.dtype).reshape((n,) + tuple(out.shape)))
        g = _grads((out,), inputs, (eye,), create_graph, strict, "output", batched=True)
    else:
        if strict:
            _grads((out,), inputs, (None,), create_graph, strict, "output")
        g = (None,) * len(inputs)
    blocks = []
    for gk, t in zip(g, inputs):
        shape = tuple(out.shape) + tuple(t.shape)
        block = gk.reshape(shape) if gk is not None else Tensor._make(np.zeros(shape, dtype=t.dtype))
        blocks.append(block if create_graph else block.detach())
    return tuple(blocks) if tuple_in else blocks[0]


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False, outer_jacobian_strategy="reverse-mode"):
    """The Hessian of a function with a one-element output (the Jacobian of its gradient);
    ``vectorize=True`` takes all its rows in one batched backward through the gradient's graph.
    ``outer_jacobian_strategy="forward-mode"`` (with ``vectorize=True``) takes that Jacobian by
    forward mode over the reverse-mode gradient instead.

    >>> from diffcompare import autograd as ag
    >>> ag.functional.hessian(lambda x: (x[0] * x[1]).exp(), ag.tensor([0.0, 0.0]), vectorize=True)
    tensor([[0., 1.],
            [1., 0.]])
    """
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')
    inputs_t, tuple_in = _as_tuple(inputs)
    forward = outer_jacobian_strategy == "forward-mode"

    def gradient(*xs):
        if forward:     # forward over reverse: the dual inputs are differentiated by reverse mode
            xs = _prepare(xs, True)
        outs, _ = _outputs(func, xs)
        if len(outs) != 1 or outs[0].numel() != 1:
            raise RuntimeError("The Tensor returned by the function given to hessian should contain a single element")
        out = outs[0].reshape(())
        grads = _zeros_for(_grads((out,), xs, (None,), True, strict, "output"), xs)
        return grads if tuple_in else grads[0]

    return jacobian(gradient, inputs_t if tuple_in else inputs_t[0], create_graph=create_graph, strict=strict,
                    vectorize=vectorize, strategy=outer_jacobian_strategy)


def _hessian_vector(func, inputs, v, create_graph, strict):
    inputs, tuple_in = _as_tuple(inputs)
    inputs = _prepare(inputs, create_graph)
    vs, _ = _as_tuple(v) if v is not None else ((None,), False)
    outputs, _ = _outputs(func, inputs)
    if len(outputs) != 1 or outputs[0].numel() != 1:
        raise RuntimeError("The function given to hvp should return a single Tensor with a single element")
    g = _grads(outputs, inputs, (None,), True, strict, "output")
    pairs = [(gi, vi) for gi, vi in zip(g, vs) if gi is not None and gi.requires_grad]
    if pairs:
        gs, vv = zip(*pairs)
        result = grad(gs, inputs, vv, create_graph=create_graph, allow_unused=True)
    else:
        result = (None,) * len(inputs)
    result = _detach(_zeros_for(result, inputs), create_graph)
    return outputs[0].detach() if not create_graph else outputs[0], (result if tuple_in else result[0])


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), H v)`` for a scalar function.

    >>> from diffcompare import autograd as ag
    >>> ag.functional.hvp(lambda x: (x ** 3).sum(), ag.tensor([1.0, 2.0]), ag.tensor([1.0, 0.0]))
    (tensor(9.), tensor([6., 0.]))
    """
    return _hessian_vector(func, inputs, v, create_graph, strict)


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), vᵀ H)``; equal to ``hvp`` since the Hessian is symmetric."""
    return _hessian_vector(func, inputs, v, create_graph, strict)
