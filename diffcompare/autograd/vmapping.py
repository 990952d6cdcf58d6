"""``vmap``: a function of one example mapped over a batch, as ``torch.vmap`` does.

The function runs once per example, on the slices of the mapped arguments, and the results
are stacked: PyTorch's fallback for an op without a batching rule, here used for all (the
values are the same; a batched rule is only faster). A ``vjp_fn`` from :func:`.func.vjp`
mapped over a batch of cotangents is the exception: the engine's batched backward takes all
of them in one walk, which is how a Jacobian is assembled from ``vmap(vjp_fn)``. ``vmap``
of a transform (``vmap(grad(f))``: per-sample gradients) and ``vmap`` of ``vmap`` compose.

>>> from diffcompare import autograd as ag
>>> x = ag.tensor([[1.0, 2.0], [3.0, 4.0]])
>>> vmap(ag.dot)(x, x)
tensor([ 5., 25.])
>>> vmap(lambda a, b: a * b, in_dims=(0, None))(x, ag.tensor([10.0, 100.0]))
tensor([[ 10., 200.],
        [ 30., 400.]])
"""

from __future__ import annotations

import functools

from . import random
from .grad_mode import STATE
from .ops import stack
from .pytree import broadcast_prefix, spec_str, tree_flatten, tree_unflatten
from .tensor import Tensor


def _name(func):
    return getattr(func, "__name__", repr(func))


def _check_dim(dim, ndim, who):
    if dim is None:
        return None
    if not isinstance(dim, int):
        raise ValueError(f"{who}: in_dims must be int or None for every input, got {type(dim)}")
    if not -ndim <= dim < ndim:
        raise ValueError(f"{who}: Got in_dim={dim} for some input, but that input is a Tensor of dimensionality "
                         f"{ndim} so expected in_dim to satisfy -{ndim} <= in_dim < {ndim}.")
    return dim % ndim


def _mapped(func, in_dims, args):
    """The leaves of ``args``, their spec, each leaf's mapped dimension (None: not mapped),
    and the batch size."""
    who = f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>)"
    if not isinstance(in_dims, (int, tuple)):
        raise ValueError(f"{who}: expected `in_dims` to be int or a (potentially nested) tuple matching the "
                         f"structure of inputs, got: {type(in_dims)}.")
    leaves, spec = tree_flatten(args)
    if isinstance(in_dims, int):
        dims = [in_dims] * len(leaves)
    else:
        def mismatch():
            return ValueError(f"{who}: in_dims is not compatible with the structure of `inputs`. in_dims has "
                              f"structure {spec_str(tree_flatten(in_dims)[1])} but inputs has structure "
                              f"{spec_str(spec)}.")
        dims = broadcast_prefix(in_dims, args, mismatch)
    sizes, checked = [], []
    for leaf, dim in zip(leaves, dims):
        if dim is not None and not isinstance(leaf, Tensor):
            raise ValueError(f"{who}: Got in_dim={dim} for an input but the input is of type {type(leaf)}. We "
                             "cannot vmap over non-Tensor arguments, please use None as the respective in_dim")
        dim = _check_dim(dim, leaf.ndim, who) if dim is not None else None
        if dim is not None:
            sizes.append(leaf.shape[dim])
        checked.append(dim)
    if not sizes:
        raise ValueError(f"{who}: at least one input must be a Tensor to vmap over; got in_dims that are all "
                         "None or no Tensor inputs.")
    if len(set(sizes)) != 1:
        raise ValueError("vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
                         f"{sizes} for the mapped dimension")
    return leaves, spec, checked, sizes[0]


def _slice(leaf, dim, b):
    if dim is None:
        return leaf
    return leaf[(slice(None),) * dim + (b,)]


def _stack(func, results, out_dims):
    """The examples' results stacked along ``out_dims`` (an int, or one per output leaf)."""
    flats = [tree_flatten(r) for r in results]
    spec = flats[0][1]
    for leaves, _ in flats:
        for leaf in leaves:
            if not isinstance(leaf, Tensor):
                raise ValueError(f"vmap({_name(func)}, ...): `{_name(func)}` must only return Tensors, got type "
                                 f"{type(leaf)}. Did you mean to set out_dims= to None for output?")
    count = len(flats[0][0])
    dims = [out_dims] * count if isinstance(out_dims, int) or out_dims is None else \
        broadcast_prefix(out_dims, results[0], lambda: ValueError(
            f"vmap({_name(func)}, ..., out_dims={out_dims})(<inputs>): out_dims is not compatible with the "
            "structure of `outputs`."))
    stacked = []
    for k, dim in enumerate(dims):
        column = [leaves[k] for leaves, _ in flats]
        if dim is None:
            stacked.append(column[0])
            continue
        ndim = column[0].ndim + 1
        stacked.append(_named_after_examples(stack(column, dim=dim % ndim), column))
    return tree_unflatten(stacked, spec)


_RENAMED: dict = {}
# what PyTorch's batched call records where the examples' op is decomposed under vmap:
# linear (addmm on one example) becomes matmul + add, a matrix product a folded matmul, a
# vector times a matrix a squeeze of the batched product, a matrix times a vector a permute
_BATCHED_NAMES = {"AddmmBackward0": "AddBackward0", "MmBackward0": "UnsafeViewBackward0",
                  "SqueezeBackward4": "SqueezeBackward5", "MvBackward0": "PermuteBackward0"}


def _batched_name(node):
    """PyTorch's name for the node of the batched call of the op that made ``node`` on one example."""
    name = type(node).__name__
    if name == "ViewBackward0" and node.next_functions and \
            type(node.next_functions[0][0]).__name__ == "AddmmBackward0":
        return "AddBackward0"           # linear of a vector: addmm, then a view to one dimension
    return _BATCHED_NAMES.get(name, name)


def _named_after_examples(result, column):
    """``result`` (the examples' results stacked) with its node named as the examples' last
    operation when they share one: PyTorch runs that operation once on the batch, so its
    result's ``grad_fn`` is, say, ``ReluBackward0``; here the node still stacks the examples'
    gradients (its class derives from the stacking node's), under that name."""
    node = result.grad_fn
    if node is None:
        return result
    names = {_batched_name(t.grad_fn) if t.grad_fn is not None else None for t in column}
    if len(names) != 1 or None in names:
        return result
    (name,) = names
    key = (type(node), name)
    if key not in _RENAMED:
        _RENAMED[key] = type(name, (type(node),), {"__slots__": (), "__module__": type(node).__module__,
                                                   "__doc__": _named_after_examples.__doc__})
    node.__class__ = _RENAMED[key]
    return result


RANDOMNESS = ("error", "different", "same")


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """``func`` mapped over dimension ``in_dims`` of its arguments (an int for all, or a
    tuple with one entry per argument: an int, None for an argument passed whole, or a
    pytree like the argument's); the results are stacked along ``out_dims``. A random draw
    inside is refused with ``randomness="error"`` (the default, as in PyTorch); with
    ``"different"`` each example draws its own, with ``"same"`` every example the same ones."""
    if randomness not in RANDOMNESS:
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. Got {randomness}")

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        if getattr(func, "_vjp_of", False) and in_dims == 0 and out_dims == 0 and not kwargs and len(args) == 1:
            return func(args[0], _batched=True)
        leaves, spec, dims, size = _mapped(func, in_dims, args)
        results = []
        outer = STATE.vmap_randomness
        STATE.vmap_randomness = outer + (randomness,)
        start = random.get_rng_state() if randomness == "same" else None
        STATE.mapping += 1
        try:
            for b in range(size):
                if start is not None and b:
                    random.set_rng_state(start)     # every example draws what the first drew
                example = tree_unflatten([_slice(leaf, dim, b) for leaf, dim in zip(leaves, dims)], spec)
                results.append(func(*example, **kwargs))
        finally:
            STATE.mapping -= 1
            STATE.vmap_randomness = outer
        if not results:
            raise ValueError(f"vmap({_name(func)}, ...): the mapped dimension has size 0")
        return _stack(func, results, out_dims)
    return wrapper
