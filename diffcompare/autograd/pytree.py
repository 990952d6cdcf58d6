"""Pytrees: nested tuples, lists, named tuples and dicts, whose leaves are everything else
(tensors, numbers, None), as ``torch.utils._pytree`` reads the arguments and results of the
``torch.func`` transforms.

>>> leaves, spec = tree_flatten({"w": 1, "b": (2, [3])})
>>> leaves
[1, 2, 3]
>>> tree_unflatten([10, 20, 30], spec)
{'w': 10, 'b': (20, [30])}
>>> tree_map(lambda v: v * 2, (1, {"a": 2}))
(2, {'a': 4})
"""

from __future__ import annotations

LEAF = None     # the spec of a leaf


def _is_namedtuple(tree):
    return isinstance(tree, tuple) and hasattr(type(tree), "_fields")


def tree_flatten(tree):
    """``(leaves, spec)``: the leaves left to right, and what ``tree_unflatten`` needs to rebuild it."""
    leaves = []
    return leaves, _flatten(tree, leaves)


def _flatten(tree, leaves):
    if isinstance(tree, dict):
        keys = list(tree)
        return (type(tree), keys, [_flatten(tree[k], leaves) for k in keys])
    if isinstance(tree, (tuple, list)):
        return (type(tree), None, [_flatten(v, leaves) for v in tree])
    leaves.append(tree)
    return LEAF


def tree_unflatten(leaves, spec):
    """The tree of ``spec`` with ``leaves`` in its places."""
    it = iter(leaves)
    return _build(spec, it)


def _build(spec, it):
    if spec is LEAF:
        return next(it)
    kind, keys, children = spec
    values = [_build(c, it) for c in children]
    if keys is not None:
        return kind(zip(keys, values)) if kind is not dict else dict(zip(keys, values))
    if kind is tuple or kind is list:
        return kind(values)
    if issubclass(kind, tuple) and hasattr(kind, "_fields"):
        return kind(*values)
    return kind(values)


def tree_map(func, tree):
    """The same tree with ``func`` applied to every leaf."""
    leaves, spec = tree_flatten(tree)
    return tree_unflatten([func(v) for v in leaves], spec)


def spec_str(spec):
    """PyTorch's spelling of a spec, for error messages: ``TreeSpec(tuple, None, [*, *])``."""
    if spec is LEAF:
        return "*"
    kind, keys, children = spec
    inner = ",\n  ".join(spec_str(c) for c in children)
    return f"TreeSpec({kind.__name__}, {keys}, [{inner}])"


def broadcast_prefix(prefix, tree, prefix_spec_error):
    """One value of ``prefix`` per leaf of ``tree``: ``prefix`` is a tree whose structure is
    a prefix of ``tree``'s, each of its leaves standing for all the leaves below it (as
    ``in_dims`` of vmap). ``prefix_spec_error()`` is raised where the structures differ."""
    out = []
    _broadcast(prefix, tree, out, prefix_spec_error)
    return out


def _broadcast(prefix, tree, out, error):
    if not isinstance(prefix, (tuple, list, dict)):
        out.extend([prefix] * len(tree_flatten(tree)[0]))
        return
    if isinstance(prefix, dict):
        if not isinstance(tree, dict) or set(prefix) != set(tree):
            raise error()
        for k in tree:
            _broadcast(prefix[k], tree[k], out, error)
        return
    if not isinstance(tree, (tuple, list)) or len(prefix) != len(tree):
        raise error()
    for p, t in zip(prefix, tree):
        _broadcast(p, t, out, error)
