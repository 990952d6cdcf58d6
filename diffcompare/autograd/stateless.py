"""``functional_call``: run a module with other tensors in place of its parameters and
buffers, as ``torch.func.functional_call`` does; the module is left as it was.

>>> from diffcompare import autograd as ag
>>> net = ag.nn.Linear(2, 1)
>>> functional_call(net, {"weight": ag.tensor([[1.0, 2.0]]), "bias": ag.tensor([0.5])}, (ag.tensor([1.0, 1.0]),))
tensor([3.5000])
"""

from __future__ import annotations

import contextlib

from .tensor import Tensor


def _owner(module, name):
    """The submodule that holds ``name`` (a dotted path) and the attribute's own name."""
    *path, attr = name.split(".")
    owner = module
    for part in path:
        owner = getattr(owner, part)
    return owner, attr


def _tied_names(module):
    """Dotted name -> every dotted name of the same tensor (parameters and buffers that a
    module shares between several places)."""
    by_id = {}
    seen = set()

    def visit(m, prefix):
        if id(m) in seen:
            return
        seen.add(id(m))
        for store in ("_parameters", "_buffers"):
            for name, value in getattr(m, store, {}).items():
                if value is not None:
                    by_id.setdefault(id(value), []).append(prefix + name)
        for mname, child in getattr(m, "_modules", {}).items():
            if child is not None:
                visit(child, prefix + mname + ".")
    visit(module, "")
    return {name: names for names in by_id.values() for name in names}


@contextlib.contextmanager
def _substituted(module, values):
    saved = []
    try:
        for name, value in values.items():
            owner, attr = _owner(module, name)
            saved.append((owner, attr, owner.__dict__.get(attr, _MISSING),
                          {store: getattr(owner, store)[attr] for store in ("_parameters", "_buffers")
                           if attr in getattr(owner, store, {})}))
            object.__setattr__(owner, attr, value)
            for store in saved[-1][3]:
                getattr(owner, store)[attr] = value
        yield
    finally:
        for owner, attr, old, stores in reversed(saved):
            if old is _MISSING:
                owner.__dict__.pop(attr, None)
            else:
                object.__setattr__(owner, attr, old)
            for store, value in stores.items():
                getattr(owner, store)[attr] = value


_MISSING = object()


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *, tie_weights=True, strict=False):
    """``module(*args, **kwargs)`` with the tensors of ``parameter_and_buffer_dicts`` (a dict
    of dotted names, or a tuple of dicts) in place of the module's own. With ``tie_weights``
    a tensor given for one of several names of a shared parameter is used for all of them;
    ``strict`` requires a value for every parameter and buffer.
    """
    dicts = parameter_and_buffer_dicts
    if isinstance(dicts, dict):
        values = dict(dicts)
    else:
        values = {}
        for d in dicts:
            repeated = set(values) & set(d)
            if repeated:
                raise ValueError(f"{sorted(repeated)!r} appeared in multiple dictionaries; behavior of "
                                 "functional call is ambiguous")
            values.update(d)
    tied = _tied_names(module)
    if tie_weights:
        for name, value in list(values.items()):
            for other in tied.get(name, ()):
                values.setdefault(other, value)
    if strict:
        missing = sorted(set(tied) - set(values))
        unexpected = sorted(set(values) - set(tied))
        if missing or unexpected:
            lines = []
            if unexpected:
                lines.append("Unexpected key(s): " + ", ".join(repr(k) for k in unexpected) + ".")
            if missing:
                lines.append("Missing key(s): " + ", ".join(repr(k) for k in missing) + ".")
            raise RuntimeError(f"Error(s) in reparametrizing for {type(module).__name__}:\n\t" + "\n\t".join(lines))
    if args is None:
        args = ()
    elif isinstance(args, Tensor) or not isinstance(args, tuple):
        args = (args,)
    with _substituted(module, values):
        return module(*args, **(kwargs or {}))
