"""``backward`` and ``grad``: check the arguments as PyTorch does, then run the walk.

The seed gradient ``v`` of ``y.backward(v)`` is the vector of a vector-Jacobian product: the
walk computes vᵀJ one node at a time and never forms J. Without ``v`` the output must
have exactly one element (v = 1).

>>> from diffcompare import autograd as ag
>>> x = ag.tensor([1.0, 2.0], requires_grad=True)
>>> ag.grad((x ** 3).sum(), x)
(tensor([ 3., 12.]),)
>>> y = x * 2
>>> y.backward()
Traceback (most recent call last):
...
RuntimeError: grad can be implicitly created only for scalar outputs
"""

from __future__ import annotations

import warnings

import numpy as np

from .batched import BATCH_SHAPE_ERROR, run_batched_backward
from .grad_mode import STATE
from .graph import edge_of, run_backward
from .ops import D, stack
from .tensor import Tensor

CREATE_GRAPH_WARNING = (
    "Using backward() with create_graph=True will create a reference cycle between the parameter "
    "and its gradient which can cause a memory leak. We recommend using autograd.grad when creating "
    "the graph to avoid this. If you have to use this function, make sure to reset the .grad fields "
    "of your parameters to None after use to break the cycle and avoid the leak."
)


def _as_tuple(value):
    if value is None:
        return None
    if isinstance(value, Tensor):
        return (value,)
    return tuple(value)


def _make_grads(outputs, grads, create_graph):
    """One seed per output: given ones must match the output's shape exactly (no
    broadcasting) and are cast to its dtype; a missing one is 1 for a one-element output."""
    seeds = []
    for i, (out, g) in enumerate(zip(outputs, grads)):
        if g is None:
            if out.requires_grad and out.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if out._data.dtype.kind == "c":
                raise RuntimeError("grad can be implicitly created only for real scalar outputs but got "
                                   f"{out.dtype}")
            seed = np.empty(out._data.shape, out._data.dtype)
            seed.fill(1)
            seeds.append(Tensor._make(seed) if create_graph else seed)
            continue
        if not isinstance(g, Tensor):
            raise TypeError(f"gradients must be tensors: got {type(g).__name__} for output {i} "
                            f"(wrap it: ag.tensor(...) with shape {list(out.shape)})")
        if g.shape != out.shape:
            raise RuntimeError(
                f"Mismatch in shape: grad_output[{i}] has a shape of {_size(g.shape)} and output[{i}] "
                f"has a shape of {_size(out.shape)}."
            )
        if create_graph:
            seeds.append(g if g.dtype == out.dtype else g.to(out.dtype))
        else:
            seeds.append(g._data if g.dtype == out.dtype else g._data.astype(out.dtype))
    return seeds


def _size(shape):
    return f"Size({list(shape)})"


def _roots(outputs):
    roots = []
    for i, out in enumerate(outputs):
        if not out.requires_grad:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")
        roots.append(edge_of(out))
    return roots


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, grad_variables=None,
             inputs=None):
    """Accumulate into the leaves' ``.grad`` the gradient of ``tensors`` (summed), each seeded
    with its entry of ``grad_tensors``.

    ``retain_graph`` (default: ``create_graph``) keeps saved tensors for another backward;
    ``create_graph`` records the backward itself so the gradients can be differentiated;
    ``inputs`` restricts accumulation to these tensors (a non-leaf one retains its grad).

    >>> from diffcompare import autograd as ag
    >>> x = ag.tensor([1.0, 2.0], requires_grad=True)
    >>> ag.backward([(2 * x).sum(), (x * x).sum()])
    >>> x.grad
    tensor([4., 6.])
    """
    outputs = _as_tuple(tensors)
    if grad_tensors is None and grad_variables is not None:
        grad_tensors = grad_variables
    grads = _as_tuple(grad_tensors) if grad_tensors is not None else (None,) * len(outputs)
    if isinstance(grad_tensors, (int, float)):
        raise TypeError(f"'{type(grad_tensors).__name__}' object is not iterable")
    if len(grads) != len(outputs):
        raise RuntimeError(f"got {len(outputs)} tensors and {len(grads)} gradients")
    if retain_graph is None:
        retain_graph = create_graph
    if create_graph:
        warnings.warn(CREATE_GRAPH_WARNING, UserWarning, stacklevel=3)

    targets = None
    if inputs is not None:
        inputs = _as_tuple(inputs)
        if len(inputs) == 0:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
        targets = []
        for t in inputs:
            if t.grad_fn is not None:
                t.retain_grad()
            elif not t.requires_grad:
                raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
            targets.append(edge_of(t))

    roots = _roots(outputs)
    seeds = _make_grads(outputs, grads, create_graph or bool(STATE.forward_level))
    run_backward(roots, seeds, retain_graph, create_graph, targets=targets, accumulate=True)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True,
         allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """Return the gradients of ``outputs`` w.r.t. ``inputs`` (a tuple), touching no ``.grad``.

    With ``grad_outputs`` = v this is the vector-Jacobian product vᵀJ. An input that the
    outputs do not depend on is an error unless ``allow_unused`` (then ``None``) or
    ``materialize_grads`` (then zeros).

    ``is_grads_batched=True`` reads the first dimension of every grad_output as a batch of
    vectors and returns every vᵀJ at once, stacked the same way: one backward walk for all
    of them (see ``diffcompare.autograd.batched``), so the identity as grad_outputs gives
    the whole Jacobian.

    >>> from diffcompare import autograd as ag
    >>> x = ag.tensor([2.0, 1.0], requires_grad=True)
    >>> ag.grad(x * x, x, grad_outputs=ag.tensor([1.0, 10.0]))
    (tensor([ 4., 20.]),)
    >>> ag.grad(x * x, x, grad_outputs=ag.tensor([[1.0, 0.0], [0.0, 1.0]]), is_grads_batched=True)
    (tensor([[4., 0.],
            [0., 2.]]),)
    """
    if not only_inputs:
        warnings.warn("only_inputs argument is deprecated and is ignored now (defaults to True). To accumulate "
                      "gradient for other parts of the graph, please use torch.autograd.backward.", UserWarning,
                      stacklevel=2)
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads=True, "
                         "but got: allow_unused=False.")
    if allow_unused is None:
        allow_unused = materialize_grads
    as_dict = isinstance(inputs, dict)
    keys = list(inputs.keys()) if as_dict else None
    input_list = tuple(inputs.values()) if as_dict else _as_tuple(inputs)
    outputs = _as_tuple(outputs)
    if len(input_list) == 0:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    for t in input_list:
        if not t.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    grads = _as_tuple(grad_outputs) if grad_outputs is not None else (None,) * len(outputs)
    if len(grads) != len(outputs):
        raise RuntimeError(f"grad requires one grad_output per output: got {len(outputs)} outputs and "
                           f"{len(grads)} grad_outputs")
    if retain_graph is None:
        # under vmap, which calls its function once per example where PyTorch calls it once
        # on the batch, a later example backpropagates through the same graph: it is kept
        retain_graph = create_graph or STATE.mapping > 0

    if is_grads_batched:
        result = _batched_grad(outputs, input_list, grads, retain_graph, create_graph, allow_unused,
                               materialize_grads)
        return dict(zip(keys, result)) if as_dict else result
    targets = [edge_of(t) for t in input_list]
    if outputs:
        roots = _roots(outputs)
        seeds = _make_grads(outputs, grads, create_graph or bool(STATE.forward_level))
        captured = run_backward(roots, seeds, retain_graph, create_graph, targets=targets, accumulate=False)
    else:
        captured = {}
    result = _results(input_list, [captured.get(edge) for edge in targets], create_graph, allow_unused,
                      materialize_grads)
    return dict(zip(keys, result)) if as_dict else result


def _results(input_list, found, create_graph, allow_unused, materialize_grads, batch=()):
    """grad()'s answer: one tensor per input with its shape and dtype (after the ``batch``
    dims), zeros or None for an unused input as asked."""
    result = []
    for i, (t, g) in enumerate(zip(input_list, found)):
        shape = tuple(batch) + tuple(t.shape)
        if g is None:
            if materialize_grads:
                result.append(Tensor._make(np.zeros(shape, dtype=t.dtype)))
                continue
            if not allow_unused:
                raise RuntimeError(
                    f"The differentiated Tensor at index {i} appears to not have been used in the graph. "
                    "Set allow_unused=True if this is the desired behavior."
                )
            result.append(None)
            continue
        if g.dtype != t.dtype:
            g = D.cast(g, t.dtype)
        if not isinstance(g, Tensor):
            g = Tensor._make(g)
        if g.shape != shape:
            g = g.expand(shape) if create_graph else Tensor._make(np.broadcast_to(g._data, shape).copy())
        result.append(g)
    return tuple(result)


def _batched_seeds(outputs, grads):
    """The batch size and, per output, its batch of seeds (``(size,) + output shape``)."""
    sizes = []
    for i, (out, g) in enumerate(zip(outputs, grads)):
        if g is None:
            raise ValueError(f"with is_grads_batched=True every grad_output must be given, with the batch as its "
                             f"first dimension: grad_output[{i}] is None (for a one-element output pass "
                             f"ones of shape (batch,) + {tuple(out.shape)})")
        if not isinstance(g, Tensor):
            raise TypeError(f"gradients must be tensors: got {type(g).__name__} for output {i}")
        if g.ndim == 0 or g.shape[1:] != out.shape:
            raise RuntimeError(BATCH_SHAPE_ERROR.format(i=i, got=_size(g.shape[1:]), want=_size(out.shape)))
        sizes.append(g.shape[0])
    if len(set(sizes)) > 1:
        raise ValueError(f"vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
                         f"{sizes} for the mapped dimension")
    return sizes[0]


def _batched_grad(outputs, input_list, grads, retain_graph, create_graph, allow_unused, materialize_grads):
    size = _batched_seeds(outputs, grads)
    targets = [edge_of(t) for t in input_list]
    captured = None
    if not create_graph and size > 0:
        seeds = [np.ascontiguousarray(g._data if g.dtype == out.dtype else g._data.astype(out.dtype))
                 for out, g in zip(outputs, grads)]
        captured = run_batched_backward(_roots(outputs), seeds, size, targets, retain_graph)
    if captured is not None:
        found = [captured.get(edge) for edge in targets]
        return _results(input_list, found, False, allow_unused, materialize_grads, batch=(size,))
    # row by row: a differentiable result (create_graph), hooks that see one gradient at a
    # time, or an empty batch
    rows = []
    for b in range(size):
        rows.append(grad(outputs, input_list, [g[b] for g in grads], retain_graph=True if b < size - 1 else
                         retain_graph, create_graph=create_graph, allow_unused=True))
    found = []
    for k, t in enumerate(input_list):
        column = [row[k] for row in rows]
        if all(c is None for c in column):
            found.append(None)
            continue
        column = [c if c is not None else Tensor._make(np.zeros(t.shape, dtype=t.dtype)) for c in column]
        found.append(stack(column) if create_graph else Tensor._make(np.stack([c._data for c in column])))
    if size == 0:
        found = [Tensor._make(np.zeros((0,) + tuple(t.shape), dtype=t.dtype)) for t in input_list]
    return _results(input_list, found, create_graph, allow_unused, materialize_grads, batch=(size,))
