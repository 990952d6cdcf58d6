"""PyTorch's NumPy-style keyword names: every native torch function and Tensor method takes
``axis=`` for ``dim=``, ``keepdims=`` for ``keepdim=``, ``x=``, ``a=`` or ``x1=`` for
``input=`` and ``x2=`` for ``other=`` (PyTorch's argument parser maps them), and a factory
with sizes takes them as ``size=`` too (``torch.zeros(size=(2, 3))``). NumPy habits bring
them into real code: ``torch.cumprod(alphas, axis=0)``, ``x.sum(axis=1)``.

``accepting_numpy_names`` wraps a function of the engine so that it takes them; one whose
signature has none of those parameters is returned as it is. A call without keywords pays
one extra call and one test.

>>> import numpy as np
>>> def total(input, dim=None, keepdim=False):
...     return np.sum(input, axis=dim, keepdims=keepdim)
>>> accepting_numpy_names(total)(x=np.ones((2, 3)), axis=1, keepdims=True).shape
(2, 1)
>>> def zeros(*size):
...     return np.zeros(size)
>>> accepting_numpy_names(zeros)(size=(2, 3)).shape
(2, 3)
"""

from __future__ import annotations

import functools
import inspect

from .dtypes import layout, memory_format, strided
from .ops.outputs import write_out

# PyTorch's python_arg_parser: a parameter's name -> the NumPy names it also answers to
NUMPY_NAMES = {"dim": ("axis",), "keepdim": ("keepdims",), "input": ("x", "a", "x1"), "other": ("x2",)}
INPUT_NAMES = ("input", "x", "a", "x1")
SIZES = ("size", "sizes", "shape")       # a factory's sizes (``*size``)
# what a factory or conversion (a function with dtype= or device=) also takes in PyTorch, and
# what it means on a CPU-only engine of dense tensors: nothing, or an error PyTorch gives too
PLACEMENT = ("layout", "memory_format", "pin_memory", "non_blocking")


def _plan(func, inputs=True):
    """(alias -> parameter pairs, whether ``size=`` stands for ``*size``) for ``func``, or None
    when it needs neither."""
    try:
        params = list(inspect.signature(func).parameters.values())
    except (TypeError, ValueError):
        return None
    names = {p.name for p in params}
    pairs = [(alias, name) for name, aliases in NUMPY_NAMES.items() if name in names and (inputs or name != "input")
             for alias in aliases if alias not in names]
    first = params[0] if params else None
    if pairs and inputs and "input" not in names and first is not None and first.name in INPUT_NAMES and \
            first.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD:
        # (only for a function wrapped anyway: an elementwise op keeps its call without a wrapper)
        # the engine calls its input ``x``: PyTorch's ``input=`` and the other aliases name it too
        pairs += [(alias, first.name) for alias in INPUT_NAMES if alias not in names]
    sizes = any(p.kind is inspect.Parameter.VAR_POSITIONAL and p.name in SIZES for p in params) and \
        not any(p.name == "size" and p.kind is not inspect.Parameter.VAR_POSITIONAL for p in params)
    var_keyword = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params)
    placement = tuple(name for name in PLACEMENT if name not in names) if names & {"dtype", "device"} and \
        not var_keyword else ()
    if not (pairs or sizes or placement):
        return None
    # a torch function wrapped anyway takes PyTorch's out= where it has none of its own
    out = inputs and "out" not in names and not var_keyword and not getattr(func, "takes_out", False)
    return tuple(pairs), sizes, placement, out


def check_placement(name, value):
    """PyTorch's answer to a placement keyword (``PLACEMENT``) on this engine: nothing for
    what describes its tensors (``layout=strided``, any ``memory_format``, ``pin_memory=False``,
    ``non_blocking``), PyTorch's error for pinned memory, a clear refusal of sparse layouts."""
    if name == "layout" and value is not None and value is not strided:
        if not isinstance(value, layout):
            raise TypeError(f"layout must be torch.layout, not {type(value).__name__}")
        raise NotImplementedError(f"layout={value!r}: this engine has dense (torch.strided) tensors only")
    if name == "memory_format" and value is not None and not isinstance(value, memory_format):
        raise TypeError(f"memory_format must be torch.memory_format, not {type(value).__name__}")
    if name == "pin_memory" and value:
        raise RuntimeError("pin_memory=True requires a CUDA or other accelerator backend; no pinned memory "
                           "allocator is available on this system.")


def accepting_numpy_names(func, inputs=True):
    """``func``, taking PyTorch's NumPy-style keyword names as well as its own (the names of
    its input too unless ``inputs`` is False: a method's input is ``self``)."""
    plan = _plan(func, inputs)
    if plan is None:
        return func
    lead = 0 if inputs else 1       # a method's self comes before its sizes
    pairs, sizes, placement, takes_out = plan

    @functools.wraps(func)
    def call(*args, **kwargs):
        if kwargs:
            if takes_out and "out" in kwargs:
                out = kwargs.pop("out")
                return write_out(call(*args, **kwargs), out, func.__name__)
            for name in placement:
                if name in kwargs:
                    check_placement(name, kwargs.pop(name))
            for alias, name in pairs:
                if alias in kwargs:
                    if name in kwargs:
                        raise TypeError(f"{func.__name__}() got multiple values for argument '{name}'")
                    kwargs[name] = kwargs.pop(alias)
            if sizes and "size" in kwargs:
                if len(args) > lead:
                    raise TypeError(f"{func.__name__}() got multiple values for argument 'size'")
                size = kwargs.pop("size")
                args += tuple(size) if isinstance(size, (tuple, list)) or hasattr(size, "__len__") else (size,)
        return func(*args, **kwargs)
    call.numpy_names = True
    return call


_WRAPPED: dict = {}     # (function, as a method) -> its wrapper: two names of one function stay one (ag.clip is ag.clamp)


def accept_numpy_names(namespace):
    """Wrap (``accepting_numpy_names``) in place the public functions of ``namespace``: a
    module's dict (its functions) or a class (its methods)."""
    method = isinstance(namespace, type)
    items = vars(namespace) if method else namespace
    for name, value in list(items.items()):
        if name.startswith("_") or not inspect.isfunction(value) or getattr(value, "numpy_names", False):
            continue
        wrapped = _WRAPPED.get((value, method))
        if wrapped is None:
            wrapped = _WRAPPED[value, method] = accepting_numpy_names(value, inputs=not method)
        if wrapped is not value:
            if isinstance(namespace, type):
                setattr(namespace, name, wrapped)
            else:
                namespace[name] = wrapped
