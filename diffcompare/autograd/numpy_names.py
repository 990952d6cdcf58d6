"""PyTorch's keyword names on the engine's functions. Every native torch function and Tensor
method takes its inputs by PyTorch's names (``torch.mean(input=x)``, ``torch.eq(x, other=y)``,
``torch.linalg.det(A=a)``) whatever the engine calls them, and PyTorch's NumPy-style names as
well: ``axis=`` for ``dim=``, ``keepdims=`` for ``keepdim=``, ``x=``, ``a=`` or ``x1=`` for
``input=`` and ``x2=`` for ``other=`` (PyTorch's argument parser maps them); a factory with
sizes takes them as ``size=`` too (``torch.zeros(size=(2, 3))``), and a torch function takes
``out=``. NumPy habits bring them into real code: ``torch.cumprod(alphas, axis=0)``,
``x.sum(axis=1)``.

``accepting_numpy_names`` wraps a function of the engine so that it takes them; one whose
signature has none of those parameters is returned as it is, and so is one marked
``own_names`` (a hot op whose own signature is PyTorch's: ``exp(input, *, out=None)``). A
call without keywords pays one extra call and one test.

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
# the names an engine function may give its first input, and what PyTorch calls it: ``input``
# (``A`` in ``torch.linalg``), with the NumPy names its parser maps to it
INPUT_LIKE = ("input", "x", "a", "t", "A", "x1", "tensor")
INPUT_NAMES = ("input", "x", "a", "x1", "A")
# the names of a second input, which PyTorch calls ``other`` (``torch.eq(x, other=y)``)
OTHER_LIKE = ("other", "y", "b", "x2")
OTHER_NAMES = ("other", "x2")
# other names PyTorch gives a parameter that the engine names otherwise (``x.split(split_size=2)``)
TORCH_NAMES = {"split_size_or_sections": ("split_size",),
               "indices_or_sections": ("sections", "indices", "tensor_indices_or_sections"),
               "dim0": ("axis0",), "dim1": ("axis1",)}
# a factory's sizes or a view's shape (``*size``), also passed as one sequence by keyword
# (``torch.zeros(size=(2, 3))``, ``x.permute(dims=(1, 0))``, ``x.repeat(repeats=(2, 1))``)
SIZES = ("size", "sizes", "shape", "dims", "repeats")
# what a factory or conversion (a function with dtype= or device=) also takes in PyTorch, and
# what it means on a CPU-only engine of dense tensors: nothing, or an error PyTorch gives too
PLACEMENT = ("layout", "memory_format", "pin_memory", "non_blocking")


def _positional(params):
    return [p for p in params if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD]


def _plan(func, inputs=True):
    """(alias -> parameter pairs, the keywords that stand for ``*size`` and how many arguments
    come before it (or ``()``), the placement keywords to take, whether to take ``out=``) for
    ``func``, or None when it needs none of them."""
    try:
        params = list(inspect.signature(func).parameters.values())
    except (TypeError, ValueError):
        return None
    names = {p.name for p in params}
    pairs = [(alias, name) for name, aliases in NUMPY_NAMES.items() if name in names and (inputs or name != "input")
             for alias in aliases if alias not in names]
    pairs += [(alias, name) for name, aliases in TORCH_NAMES.items() if name in names
              for alias in aliases if alias not in names]
    positional = _positional(params)[0 if inputs else 1:]     # (a method's self is not named by callers)
    first = positional[0] if positional else None
    if inputs and first is not None and first.name in INPUT_LIKE:
        # the engine may call its input ``x`` or ``a``: PyTorch's ``input=`` and its aliases name it too
        pairs += [(alias, first.name) for alias in INPUT_NAMES if alias not in names]
        second = positional[1] if len(positional) > 1 else None
        if second is not None and second.name in OTHER_LIKE:
            pairs += [(alias, second.name) for alias in OTHER_NAMES if alias not in names]
    elif not inputs and first is not None and first.name in OTHER_LIKE:
        pairs += [(alias, first.name) for alias in OTHER_NAMES if alias not in names]
    named = {p.name for p in params if p.kind is not inspect.Parameter.VAR_POSITIONAL}
    varying = [i for i, p in enumerate(params) if p.kind is inspect.Parameter.VAR_POSITIONAL and p.name in SIZES]
    # (the sizes' keywords, and how many arguments come before the sizes: ``reshape(x, *shape)`` one)
    sizes = (tuple(name for name in SIZES if name not in named), varying[0]) if varying else ()
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
    pairs, sizes, placement, takes_out = plan
    keywords, lead = sizes or ((), 0)

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
            for keyword in keywords:
                if keyword in kwargs:
                    if len(args) > lead:
                        raise TypeError(f"{func.__name__}() got multiple values for argument '{keyword}'")
                    size = kwargs.pop(keyword)
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
        if name.startswith("_") or not inspect.isfunction(value) or getattr(value, "numpy_names", False) or \
                getattr(value, "own_names", False):
            continue
        wrapped = _WRAPPED.get((value, method))
        if wrapped is None:
            wrapped = _WRAPPED[value, method] = accepting_numpy_names(value, inputs=not method)
        if wrapped is not value:
            if isinstance(namespace, type):
                setattr(namespace, name, wrapped)
            else:
                namespace[name] = wrapped
