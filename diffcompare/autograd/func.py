"""Function transforms with ``torch.func``'s API: ``grad``, ``grad_and_value``, ``vjp``,
``jvp``, ``jacrev``, ``jacfwd``, ``hessian``, ``vmap``, ``functional_call``, ``linearize`` and
``stack_module_state``.

Each transform takes a function and gives a function. Arguments and results may be pytrees
(tuples, lists, dicts) of tensors, as in ``grad(loss)(params_dict, x)``. The transforms
compose: ``grad(grad(f))``, ``jacfwd(jacrev(f))`` (that is ``hessian``),
``vmap(grad(f))`` (per-sample gradients). Reverse mode differentiates fresh leaves that
are views of the arguments, so that an outer transform (or the caller's own graph)
differentiates through the inner one; forward mode (``jvp``, ``jacfwd``) runs the
engine's dual numbers (``forward_ad``), and inside an open dual level falls back to
reverse mode, whose backward then carries the outer level's tangents.

>>> from diffcompare import autograd as ag
>>> from diffcompare.autograd.func import grad, jacfwd, vmap
>>> x = ag.tensor([1.0, 2.0, 3.0])
>>> grad(lambda x: (x ** 3).sum())(x)
tensor([ 3., 12., 27.])
>>> grad(grad(lambda x: x.sin()))(ag.tensor(0.5)) == -ag.tensor(0.5).sin()
tensor(True)
>>> jacfwd(lambda x: x ** 2)(ag.tensor([1.0, 2.0]))
tensor([[2., 0.],
        [0., 4.]])
>>> vmap(lambda row: row.sum())(ag.tensor([[1.0, 2.0], [3.0, 4.0]]))
tensor([3., 7.])
"""

from __future__ import annotations

import functools
import weakref

import numpy as np

from . import forward_ad as fwAD
from .backward import grad as autograd_grad
from .graph import AccumulateGrad, collect
from .grad_mode import STATE, enable_grad
from .make_functional import make_functional, make_functional_with_buffers  # noqa: F401  (functorch's names)
from .ops import alias, stack
from .ops.forward import set_tangent
from .pytree import tree_flatten, tree_map, tree_unflatten
from .stateless import functional_call
from .tensor import Tensor
from .vmapping import vmap

__all__ = ["functional_call", "functionalize", "grad", "grad_and_value", "hessian", "jacfwd", "jacrev", "jvp",
           "linearize", "replace_all_batch_norm_modules_", "stack_module_state", "vjp", "vmap"]


# --- the pieces the transforms share -------------------------------------------------------

def _argnums(argnums, args):
    """The positions as a tuple, checked against the positional arguments given."""
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    if not isinstance(argnums, int) and not nums:
        raise RuntimeError("argnums must be non-empty")
    for n in nums:
        if not isinstance(n, int):
            raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
        if not -len(args) <= n < len(args):
            raise RuntimeError(f"Got argnum={n}, but only {len(args)} positional inputs")
    return tuple(n % len(args) for n in nums)


def lift(x):
    """A fresh tensor to differentiate with respect to: a view of ``x`` when ``x`` requires
    grad (so the caller's graph goes through it), else a new leaf; a tangent of ``x`` at the
    open dual level goes with it."""
    if not isinstance(x, Tensor):
        return x
    if x.requires_grad:
        return x.view_as(x)
    leaf = Tensor._make(x._data, x.dtype.kind in "fc")
    if STATE.forward_level and x._tangent is not None:
        set_tangent(leaf, x._tangent)
    return leaf


def _lift_args(args, nums):
    args = list(args)
    for n in nums:
        args[n] = tree_map(lift, args[n])
    return args


def _inputs(args, nums):
    """The tensor leaves to differentiate with respect to, and a function that puts results
    for them (one per leaf) back in the shape of ``argnums``: a tree for an int, a tuple of
    trees for a tuple."""
    specs, leaves = [], []
    for n in nums:
        ls, spec = tree_flatten(args[n])
        specs.append((spec, len(ls)))
        leaves.extend(ls)

    def shape(results, single):
        trees, start = [], 0
        for spec, count in specs:
            trees.append(tree_unflatten(results[start:start + count], spec))
            start += count
        return trees[0] if single else tuple(trees)
    return leaves, shape


def _differentiable(outputs, leaves):
    """Whether the results must be differentiable: grad mode is on and the outputs' graph
    reaches tensors other than the transform's own leaves (an argument that requires grad,
    a captured tensor that does, an outer transform's leaf), or tangents are being carried."""
    if not STATE.grad_enabled:
        return False
    if STATE.forward_level:
        return True
    own = {id(x) for x in leaves if isinstance(x, Tensor)}
    own.update(_FINISHED.keys())
    roots = [o.grad_fn for o in outputs if isinstance(o, Tensor) and o.grad_fn is not None]
    for node in collect(roots):
        if type(node) is AccumulateGrad and id(node.variable) not in own:
            return True
    return False


# the leaves of transforms that have returned: what reaches them is no caller's graph
_FINISHED = weakref.WeakValueDictionary()


def _finish(leaves):
    for x in leaves:
        if isinstance(x, Tensor) and x.grad_fn is None and x.requires_grad:
            _FINISHED[id(x)] = x


def _zeros_like(x):
    return Tensor._make(np.zeros(x.shape, dtype=x.dtype))


def _detach_tree(tree, keep):
    return tree if keep else tree_map(lambda v: v.detach() if isinstance(v, Tensor) else v, tree)


def _aux(tree, keep, originals=None):
    """The auxiliary outputs (tensors only, as in PyTorch), detached unless ``keep``; an
    argument returned as it is (``originals``: lifted leaf's id -> argument) comes back as
    the caller's own tensor, as in PyTorch."""
    for v in tree_flatten(tree)[0]:
        if not isinstance(v, Tensor):
            raise RuntimeError(f"Expected tensors, got unsupported type {type(v)}")
    tree = _detach_tree(tree, keep)
    if keep and originals:
        tree = tree_map(lambda v: originals.get(id(v), v) if isinstance(v, Tensor) else v, tree)
    return tree


def _originals(args, argnums, leaves):
    """Lifted leaf's id -> the argument it stands for (detached when it did not require grad)."""
    found, _ = _inputs(list(args), _argnums(argnums, args))
    return {id(leaf): arg if arg.requires_grad else arg.detach() for leaf, arg in zip(leaves, found)
            if isinstance(arg, Tensor)}


def _transformed(func):
    """``func`` called as a transform calls the user's function: inside it, as in PyTorch,
    ``Tensor.requires_grad_()`` is refused (``STATE.transforms``)."""
    @functools.wraps(func)
    def call(*args, **kwargs):
        STATE.transforms += 1
        try:
            return func(*args, **kwargs)
        finally:
            STATE.transforms -= 1
    return call


def _traced(func, argnums, args, kwargs, has_aux, who):
    """``func`` run on ``args`` with the arguments ``argnums`` names lifted to leaves that
    record: (the leaves, the function giving results their shape, the output, the aux)."""
    nums = _argnums(argnums, args)
    args = _lift_args(args, nums)
    leaves, shape = _inputs(args, nums)
    with enable_grad():
        result = _transformed(func)(*args, **kwargs)
    out, aux = _split_aux(result, has_aux, who)
    return leaves, shape, out, aux


def _split_aux(result, has_aux, who):
    if not has_aux:
        return result, None
    if not (isinstance(result, tuple) and len(result) == 2):
        raise RuntimeError(f"{who}: output of function f should be a tuple: (output, aux) if has_aux is True")
    return result


def _vjp_of(outputs, leaves, seeds, create, batched=False):
    """``seedsᵀ J`` for every leaf; zeros where an output does not depend on one."""
    pairs = [(o, s) for o, s in zip(outputs, seeds) if o.requires_grad]
    if pairs and any(x.requires_grad for x in leaves if isinstance(x, Tensor)):
        outs, ss = zip(*pairs)
        found = autograd_grad(outs, leaves, ss, retain_graph=True, create_graph=create, allow_unused=True,
                              is_grads_batched=batched)
    else:
        found = (None,) * len(leaves)
    batch = (len(seeds[0]),) if batched and seeds else ()
    return [g if g is not None else Tensor._make(np.zeros(batch + tuple(x.shape), dtype=x.dtype))
            for g, x in zip(found, leaves)]


# --- reverse mode -------------------------------------------------------------------------

def grad_and_value(func, argnums=0, has_aux=False):
    """Like :func:`grad`, returning ``(gradient, value)`` (``(gradient, (value, aux))`` with
    ``has_aux``).

    >>> from diffcompare import autograd as ag
    >>> grad_and_value(lambda x: (x ** 2).sum())(ag.tensor([1.0, 2.0]))
    (tensor([2., 4.]), tensor(5.))
    """
    who = "grad_and_value(f)(*args)"

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        leaves, shape, out, aux = _traced(func, argnums, args, kwargs, has_aux, who)
        if not isinstance(out, Tensor):
            raise RuntimeError(f"{who}: Expected f(*args) to return a Tensor, got {type(out)}")
        if out.ndim != 0:
            raise RuntimeError(f"{who}: Expected f(*args) to return a scalar Tensor, got tensor with {out.ndim} "
                               "dims. Maybe you wanted to use the vjp or jacrev APIs instead?")
        create = _differentiable((out,), leaves)
        tensors = [x for x in leaves if isinstance(x, Tensor)]
        found = iter(_vjp_of((out,), tensors, (Tensor._make(np.ones((), dtype=out.dtype)),), create))
        grads = shape([next(found) if isinstance(x, Tensor) else x for x in leaves], isinstance(argnums, int))
        value = out if create else out.detach()
        _finish(leaves)
        if has_aux:
            return grads, (value, _aux(aux, create, _originals(args, argnums, leaves)))
        return grads, value
    return wrapper


def grad(func, argnums=0, has_aux=False):
    """The gradient of a function with a scalar output with respect to argument ``argnums``
    (an int: a gradient shaped like that argument, a pytree for a pytree; a tuple: a tuple
    of them). With ``has_aux`` the function returns ``(output, aux)`` and the transform
    ``(gradient, aux)``.

    >>> from diffcompare import autograd as ag
    >>> grad(lambda x, y: (x * y).sum(), argnums=(0, 1))(ag.tensor([1.0, 2.0]), ag.tensor([3.0, 4.0]))
    (tensor([3., 4.]), tensor([1., 2.]))
    >>> grad(lambda p: (p["w"] * 2).sum())({"w": ag.tensor([1.0])})
    {'w': tensor([2.])}
    """
    inner = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        grads, value = inner(*args, **kwargs)
        return (grads, value[1]) if has_aux else grads
    return wrapper


def vjp(func, *primals, has_aux=False):
    """``(func(*primals), vjp_fn)``; ``vjp_fn(cotangents)`` gives ``cotangentsᵀ J``, one
    per primal (a tuple), and may be called again. With ``has_aux``: ``(output, vjp_fn, aux)``.

    >>> from diffcompare import autograd as ag
    >>> out, vjp_fn = vjp(lambda x: x.sin(), ag.tensor([0.0, 1.0]))
    >>> vjp_fn(ag.tensor([1.0, 1.0]))
    (tensor([1.0000, 0.5403]),)
    """
    nums = tuple(range(len(primals)))
    args = _lift_args(primals, nums)
    leaves, shape = _inputs(args, nums)
    with enable_grad():
        result = _transformed(func)(*args)
    out, aux = _split_aux(result, has_aux, "vjp(f, *primals)")
    outs, out_spec = tree_flatten(out)
    for o in outs:
        if not isinstance(o, Tensor):
            raise RuntimeError(f"vjp(f, *primals): Expected f to be a function that has non-empty output, with "
                               f"only Tensors as outputs, got {type(o)}")
    create = _differentiable(outs, leaves)
    tensors = [x for x in leaves if isinstance(x, Tensor)]

    def vjp_fn(cotangents, *, _batched=False):
        seeds, spec = tree_flatten(cotangents)
        if spec != out_spec:
            raise RuntimeError("Expected pytree structure of cotangents to be the same as pytree structure of "
                               "outputs to the function.")
        keep = create or (STATE.grad_enabled and any(s.requires_grad for s in seeds))
        found = iter(_vjp_of(outs, tensors, seeds, keep, batched=_batched))
        return shape([next(found) if isinstance(x, Tensor) else x for x in leaves], False)

    _finish(leaves)
    vjp_fn._vjp_of = True      # vmap(vjp_fn) takes the whole batch in one walk (is_grads_batched)
    value = _detach_tree(out, create)
    return (value, vjp_fn, _aux(aux, create)) if has_aux else (value, vjp_fn)


def jacrev(func, argnums=0, has_aux=False, chunk_size=None):
    """The Jacobian by reverse mode: one backward walk per output, seeded with the identity
    (all rows at once, ``is_grads_batched``); each block is shaped
    ``output.shape + input.shape``, in the pytree of the outputs, of the arguments within.

    >>> from diffcompare import autograd as ag
    >>> jacrev(lambda x: x.exp().cumsum(0))(ag.tensor([0.0, 0.0]))
    tensor([[1., 0.],
            [1., 1.]])
    """
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        leaves, shape, out, aux = _traced(func, argnums, args, kwargs, has_aux, "jacrev(f, ...)(*args)")
        outs, out_spec = tree_flatten(out)
        create = _differentiable(outs, leaves)
        tensors = [x for x in leaves if isinstance(x, Tensor)]
        blocks = []
        for o in outs:
            n = o.numel()
            if n:
                eye = Tensor._make(np.eye(n, dtype=o.dtype).reshape((n,) + tuple(o.shape)))
                rows = iter(_vjp_of((o,), tensors, (eye,), create, batched=True))
            found = []
            for x in leaves:
                if not isinstance(x, Tensor):
                    found.append(x)
                    continue
                full = tuple(o.shape) + tuple(x.shape)
                found.append(next(rows).reshape(full) if n else Tensor._make(np.zeros(full, dtype=x.dtype)))
            blocks.append(shape(found, isinstance(argnums, int)))
        jac = tree_unflatten(blocks, out_spec)
        _finish(leaves)
        return (jac, _aux(aux, create)) if has_aux else jac
    return wrapper


# --- forward mode -------------------------------------------------------------------------

def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """``(func(*primals), J tangents)`` by forward mode (one pass of ``func`` on dual
    tensors); with ``has_aux``: ``(output, jvp_out, aux)``.

    >>> from diffcompare import autograd as ag
    >>> jvp(lambda x: x ** 2, (ag.tensor([1.0, 2.0]),), (ag.tensor([1.0, 1.0]),))
    (tensor([1., 4.]), tensor([2., 4.]))
    """
    for name, value in (("primals", primals), ("tangents", tangents)):
        if not isinstance(value, tuple):
            raise RuntimeError(f"jvp(f, primals, tangents): Expected {name} to be a tuple. E.g. it should be "
                               "valid to call f(*primals).")
    p_leaves, p_spec = tree_flatten(primals)
    t_leaves, t_spec = tree_flatten(tangents)
    if p_spec != t_spec:
        raise RuntimeError("jvp(f, primals, tangents): Expected primals and tangents to have the same python "
                           "structure. For example, if primals is a tuple of 3 tensors, tangents also must be. "
                           f"Got primals with structure {p_spec} and tangents with structure {t_spec}")
    for p, t in zip(p_leaves, t_leaves):
        if tuple(p.shape) != tuple(t.shape):
            raise RuntimeError(f"jvp(f, primals, tangents): Expected primals and tangents to have the same shape "
                               f"for every pair, got {tuple(p.shape)} and {tuple(t.shape)}")
    func = _transformed(func)
    if STATE.forward_level:
        return _jvp_by_reverse(func, primals, p_leaves, t_leaves, has_aux)
    with fwAD.dual_level():
        duals = [fwAD.make_dual(p, t) for p, t in zip(p_leaves, t_leaves)]
        result = func(*tree_unflatten(duals, p_spec))
        out, aux = _split_aux(result, has_aux, "jvp(f, primals, tangents)")
        outs, spec = tree_flatten(out)
        unpacked = [fwAD.split_dual(o) for o in outs]
        aux = tree_map(lambda v: fwAD.split_dual(v).primal if isinstance(v, Tensor) else v, aux)
    primals = [u.primal for u in unpacked]
    tangents = [u.tangent if u.tangent is not None else _zeros_like(u.primal) for u in unpacked]
    keep = _differentiable(primals + tangents, ())
    if keep:        # an output with history comes back as an alias of it, as PyTorch's
        primals = [alias(p) if p.requires_grad and p.grad_fn is not None else p for p in primals]
    primal = _detach_tree(tree_unflatten(primals, spec), keep)
    tangent = _detach_tree(tree_unflatten(tangents, spec), keep)
    return (primal, tangent, aux) if has_aux else (primal, tangent)


def _jvp_by_reverse(func, primals, p_leaves, t_leaves, has_aux):
    """J t inside an open dual level (forward over forward): the double-VJP trick,
    differentiating u ↦ uᵀJ with respect to u along t."""
    spec = tree_flatten(primals)[1]
    leaves = [lift(p) for p in p_leaves]
    with enable_grad():
        result = func(*tree_unflatten(leaves, spec))
        out, aux = _split_aux(result, has_aux, "jvp(f, primals, tangents)")
        outs, out_spec = tree_flatten(out)
        dummies = [Tensor._make(np.zeros(o.shape, dtype=o.dtype), True) for o in outs]
        g = _vjp_of(outs, leaves, dummies, True)
        result = _vjp_of(g, dummies, t_leaves, True)
    _finish(leaves)
    return (tree_unflatten(outs, out_spec), tree_unflatten(result, out_spec)) + ((aux,) if has_aux else ())


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """The Jacobian by forward mode: one pass of ``func`` on dual tensors per input element
    (a column of the Jacobian each); shaped and nested as :func:`jacrev`'s. Inside an open
    dual level (``jacfwd(jacfwd(f))``) the inner Jacobian is taken by reverse mode.

    >>> from diffcompare import autograd as ag
    >>> jacfwd(lambda x, y: x * y, argnums=1)(ag.tensor([1.0, 2.0]), ag.tensor([3.0, 4.0]))
    tensor([[1., 0.],
            [0., 2.]])
    """
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        if STATE.forward_level:
            return jacrev(func, argnums, has_aux)(*args, **kwargs)
        inner = _transformed(func)
        nums = _argnums(argnums, args)
        leaves, shape = _inputs(args, nums)
        positions = [i for i, x in enumerate(leaves) if isinstance(x, Tensor)]
        columns = {i: [] for i in positions}       # per input leaf: per column, the outputs' tangents
        first = None
        for i in positions:
            x = leaves[i]
            for j in range(x.numel()):
                direction = np.zeros(x.numel(), dtype=x.dtype)
                direction[j] = 1
                with fwAD.dual_level():
                    dual = fwAD.make_dual(x, Tensor._make(direction.reshape(x.shape)))
                    call = list(leaves)
                    call[i] = dual
                    result = _call_on_leaves(inner, args, nums, call, kwargs)
                    out, aux = _split_aux(result, has_aux, "jacfwd(f, ...)(*args)")
                    outs, spec = tree_flatten(out)
                    pairs = [fwAD.split_dual(o) for o in outs]
                    if first is None:
                        first = (spec, [p.primal for p in pairs], aux)
                columns[i].append([p.tangent if p.tangent is not None else _zeros_like(p.primal) for p in pairs])
        if first is None:       # no input element: one plain call for the outputs' shapes
            result = inner(*args, **kwargs)
            out, aux = _split_aux(result, has_aux, "jacfwd(f, ...)(*args)")
            outs, spec = tree_flatten(out)
            first = (spec, outs, aux)
        spec, outs, aux = first
        blocks = []
        for k, o in enumerate(outs):
            found = []
            for i, x in enumerate(leaves):
                if not isinstance(x, Tensor):
                    found.append(x)
                    continue
                full = tuple(o.shape) + tuple(x.shape)
                if columns[i]:
                    block = stack([col[k] for col in columns[i]], dim=-1).reshape(full)
                else:
                    block = Tensor._make(np.zeros(full, dtype=o.dtype))
                found.append(block)
            blocks.append(shape(found, isinstance(argnums, int)))
        jac = tree_unflatten(blocks, spec)
        jac = _detach_tree(jac, _differentiable(tree_flatten(jac)[0], ()))
        return (jac, aux) if has_aux else jac
    return wrapper


def _call_on_leaves(func, args, nums, leaves, kwargs):
    """``func`` on ``args`` with the leaves of the arguments at ``nums`` replaced."""
    args = list(args)
    it = iter(leaves)
    for n in nums:
        count = len(tree_flatten(args[n])[0])
        args[n] = tree_unflatten([next(it) for _ in range(count)], tree_flatten(args[n])[1])
    return func(*args, **kwargs)


def hessian(func, argnums=0):
    """The Hessian: ``jacfwd(jacrev(func, argnums), argnums)`` (forward over reverse).

    >>> from diffcompare import autograd as ag
    >>> hessian(lambda x: (x ** 3).sum())(ag.tensor([1.0, 2.0]))
    tensor([[ 6.,  0.],
            [ 0., 12.]])
    """
    return jacfwd(jacrev(func, argnums), argnums)


def linearize(func, *primals):
    """``(func(*primals), jvp_fn)``: ``jvp_fn(*tangents)`` is the Jacobian-vector product of
    ``func`` at ``primals`` (by forward mode, as ``jvp``), as ``torch.func.linearize``.

    >>> from diffcompare import autograd as ag
    >>> out, jvp_fn = linearize(lambda x: x ** 2, ag.tensor([1.0, 3.0]))
    >>> out, jvp_fn(ag.tensor([1.0, 1.0]))
    (tensor([1., 9.]), tensor([2., 6.]))
    """
    p_leaves, p_spec = tree_flatten(primals)
    output = jvp(func, primals, tuple(tree_map(_zeros_like, primals)))[0]

    def jvp_fn(*tangents):
        t_leaves, t_spec = tree_flatten(tangents)
        if t_spec != p_spec:
            raise RuntimeError(f"Expected the tangents {t_spec} to have the same argument structure as the "
                               f"primals {p_spec}")
        for i, (p, t) in enumerate(zip(p_leaves, t_leaves)):
            if tuple(t.shape) != tuple(p.shape):
                raise RuntimeError(f"tangent:{i} with shape torch.Size({list(t.shape)}) in flattened pytree "
                                   f"doesn't match the shape torch.Size({list(p.shape)}) of the corresponding "
                                   "primal.")
        return jvp(func, primals, tangents)[1]

    return output, jvp_fn


def stack_module_state(models):
    """The parameters and buffers of ``models`` (modules of one architecture) stacked along a
    new first axis, as dicts by name, for ``vmap`` over ``functional_call`` (model ensembling);
    the stacked parameters are new leaves that require grad, as in ``torch.func``.

    >>> from diffcompare import autograd as ag
    >>> params, buffers = stack_module_state([ag.nn.Linear(3, 2) for _ in range(4)])
    >>> params["weight"].shape, params["bias"].requires_grad, buffers
    (torch.Size([4, 2, 3]), True, {})
    """
    models = list(models)
    if not models:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or not any(m.training for m in models)):
        raise RuntimeError("stack_module_state: Expected all models to have the same training/eval mode.")

    def stacked(named, leaf):
        names = [name for name, _ in named(models[0])]
        result = {}
        for name in names:
            tensors = [dict(named(m))[name] for m in models]
            value = stack(tensors)
            if leaf and all(t.requires_grad for t in tensors):
                value = value.detach().requires_grad_()
            result[name] = value
        return result

    return stacked(lambda m: m.named_parameters(), True), stacked(lambda m: m.named_buffers(), False)


def functionalize(func, *, remove="mutations"):
    """``torch.func.functionalize``: ``func`` with its in-place operations (and, with
    ``remove="mutations_and_views"``, its views) replaced by out-of-place ones, for tracing and
    compilers; a mutated input is written back at the end, so calling it gives what ``func``
    gives. The engine runs eagerly and traces nothing, so it calls ``func`` itself.

    >>> from diffcompare import autograd as ag
    >>> def f(a):
    ...     b = a.clone(); b.add_(1); return b
    >>> functionalize(f)(ag.zeros(2))
    tensor([1., 1.])
    """
    if remove not in ("mutations", "mutations_and_views"):
        raise RuntimeError(f"functionalize(f, remove='mutations'): received invalid argument for remove={remove}. "
                           "Valid options are:\n     remove='mutations': all inplace and out= operators will be "
                           "removed from the program, and replaced with their out-of-place equivalents.\n     "
                           "remove='mutations_and_views': In addition to the above, all aliasing operators {view} "
                           "will be replaced with their non-aliasing counterparts, {view}_copy.\n")

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        return func(*args, **kwargs)
    return wrapper


def replace_all_batch_norm_modules_(root):
    """Make every batch norm in ``root`` (itself included) stop tracking running statistics, in
    place: ``running_mean``, ``running_var`` and ``num_batches_tracked`` become None, so it
    normalises with each batch's statistics in eval mode too (what vmap over a model with batch
    norm needs). Returns ``root``.

    >>> from diffcompare import autograd as ag
    >>> net = replace_all_batch_norm_modules_(ag.nn.Sequential(ag.nn.BatchNorm1d(3)))
    >>> net[0].running_mean is None, net[0].track_running_stats
    (True, False)
    """
    for module in root.modules():
        if getattr(module, "track_running_stats", False) and hasattr(module, "running_mean") and \
                hasattr(module, "num_batches_tracked"):
            module.running_mean = None
            module.running_var = None
            module.num_batches_tracked = None
            module.track_running_stats = False
    return root
