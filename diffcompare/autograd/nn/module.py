"""``torch.nn.Module`` and ``torch.nn.Parameter``: the base class every layer derives from
(parameters, buffers and submodules registered by assignment, hooks, ``state_dict``, ``to``),
and the initialisation helpers the layers share.

>>> from diffcompare import autograd as ag
>>> class Scale(ag.nn.Module):
...     def __init__(self):
...         super().__init__()
...         self.w = ag.nn.Parameter(ag.ones(2))
...     def forward(self, x):
...         return self.w * x
>>> [name for name, _ in Scale().named_parameters()]
['w']
"""

from __future__ import annotations

import math
import warnings
from collections import OrderedDict, namedtuple

import numpy as np

from ..dtypes import bfloat16, default_dtype
from .. import ops
from ..device import META, as_meta, is_meta, refuse_meta, resolve as resolve_device
from ..function import Function
from ..generators import uniform_draws
from ..grad_mode import is_grad_enabled, no_grad
from ..tensor import HookHandle, Tensor, generator


class Parameter(Tensor):
    """A tensor that a Module registers as a learnable parameter (requires grad by default)."""

    __slots__ = ()

    def __init__(self, data=None, requires_grad=True):
        if data is None:
            data = np.empty(0, default_dtype())
        shared = isinstance(data, Tensor) and data._data.dtype.kind in "fc"
        array = data._data if shared else np.array(data._data if isinstance(data, Tensor) else data, dtype=None)
        if array.dtype.kind not in "fc":
            array = array.astype(default_dtype())
        super().__init__(np.empty(0, array.dtype), dtype=array.dtype)    # the data's dtype, as PyTorch keeps it
        self._data = array
        if shared:
            # as PyTorch's (a detached alias): a new leaf on the same storage and version
            # counter, so an optimizer's step on it changes the tensor it was made from
            # (``nn.Parameter(layer.weight)`` handed to a sampler, blitz's), while the
            # gradient goes to the new leaf
            self._vc = data._counter()
        self.requires_grad = requires_grad

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__      # print(p) as PyTorch's: "Parameter containing:" first

    def __deepcopy__(self, memo):
        """A new Parameter with a copy of the values (on the same device), without ``.grad``, as PyTorch's."""
        if id(self) not in memo:
            new = Tensor.__deepcopy__(self, memo)
            new._grad = None
        return memo[id(self)]


class Buffer(Tensor):
    """``nn.Buffer``: a tensor that, assigned to a module's attribute, registers itself as a
    buffer (``persistent``: in ``state_dict``), as ``register_buffer`` does.

    >>> from diffcompare import autograd as ag
    >>> m = ag.nn.Module()
    >>> m.running = ag.nn.Buffer(ag.zeros(2)); m.scratch = ag.nn.Buffer(ag.ones(1), persistent=False)
    >>> list(m.state_dict()), [name for name, _ in m.named_buffers()]
    (['running'], ['running', 'scratch'])
    """

    __slots__ = ("persistent",)

    def __init__(self, data=None, *, persistent=True):
        array = np.zeros(0, default_dtype()) if data is None else data._data if isinstance(data, Tensor) else data
        super().__init__(array, dtype=getattr(array, "dtype", None))     # a tensor's dtype kept
        if isinstance(data, Tensor) and data.requires_grad:
            self.requires_grad = True
        self.persistent = persistent


class _Table(OrderedDict):
    """A module's table of parameters, buffers or submodules. The module keeps each entry as
    an attribute too (read without a lookup); what code writes to the table itself
    (``module._parameters["weight"] = w``, as meta-learning code does, or ``del``) is what
    the attribute reads, as in PyTorch, whose attributes are looked up in the tables.

    An entry named as an attribute of the module's class (``self.parameters =
    nn.ParameterList(...)``, N-BEATS's) is not kept as an attribute: PyTorch looks in the
    tables only after the class, so the class's method or value is what the name reads."""

    def __init__(self, owner=None, hidden=frozenset()):
        super().__init__()
        self.owner = owner          # the module's ``__dict__`` (None until linked: unpickling, copying)
        self.hidden = hidden        # the names of the module's class attributes

    def __setitem__(self, key, value):
        OrderedDict.__setitem__(self, key, value)
        if self.owner is not None:
            if key in self.hidden:
                self.owner.pop(key, None)
            else:
                self.owner[key] = value

    def __delitem__(self, key):
        value = self[key]
        OrderedDict.__delitem__(self, key)
        self._drop(key, value)

    def pop(self, key, *default):
        if key not in self:
            return OrderedDict.pop(self, key, *default)
        value = OrderedDict.pop(self, key)
        self._drop(key, value)
        return value

    def popitem(self, last=True):
        key, value = OrderedDict.popitem(self, last)
        self._drop(key, value)
        return key, value

    def clear(self):
        for key in list(self):
            del self[key]

    def setdefault(self, key, default=None):
        if key not in self:
            self[key] = default
        return self[key]

    def update(self, *args, **kwargs):
        for key, value in dict(*args, **kwargs).items():
            self[key] = value

    def _drop(self, key, value):
        if self.owner is not None and key in self.owner and self.owner[key] is value:
            del self.owner[key]

    def __reduce__(self):           # (the link is the module's to make again: ``Module.__setstate__``)
        return type(self), (), None, None, iter(self.items())


TABLES = ("_parameters", "_buffers", "_modules")
_CLASS_NAMES: dict = {}     # a Module class -> the names its instances' table entries do not shadow


def _class_names(cls):
    names = _CLASS_NAMES.get(cls)
    if names is None:
        names = _CLASS_NAMES[cls] = frozenset(dir(cls))
    return names


class Module:
    """Base class: assign Parameters and Modules as attributes; define ``forward``.

    >>> from diffcompare import autograd as ag
    >>> net = ag.nn.Sequential(ag.nn.Linear(2, 2), ag.nn.ReLU())
    >>> [name for name, _ in net.named_modules()]
    ['', '0', '1']
    """

    def __init__(self):
        hidden = _class_names(type(self))
        for table in TABLES:
            object.__setattr__(self, table, _Table(self.__dict__, hidden))
        for table in ("_forward_hooks", "_forward_pre_hooks", "_backward_hooks", "_backward_pre_hooks",
                      "_non_full_backward_hooks"):
            object.__setattr__(self, table, OrderedDict())
        object.__setattr__(self, "_non_persistent", set())
        object.__setattr__(self, "training", True)

    def __setattr__(self, name, value):
        if "_parameters" not in self.__dict__:
            # before Module.__init__: plain attributes are set (``self.n = n`` first is common);
            # what a module registers needs its tables, and PyTorch refuses it in these words
            for kind, what in ((Parameter, "parameters"), (Buffer, "buffer"), (Module, "module")):
                if isinstance(value, kind):
                    raise AttributeError(f"cannot assign {what} before Module.__init__() call")
            object.__setattr__(self, name, value)
            return
        # a table entry is kept as an attribute by its table (``_Table``), not here
        if isinstance(value, Parameter):
            self._forget(name, keep=self._parameters)     # a reassigned parameter keeps its place
            self._parameters[name] = value
        elif name in self._parameters:
            if value is not None:
                raise TypeError(f"cannot assign '{_tensor_type(value)}' as parameter '{name}' "
                                "(torch.nn.Parameter or None expected)")
            self._parameters[name] = None
        elif isinstance(value, Buffer):
            self.register_buffer(name, value, value.persistent)
        elif isinstance(value, Module):
            self._forget(name, keep=self._modules)        # a replaced child keeps its place (model.fc = ...)
            self._modules[name] = value
        elif name in self._modules:
            if value is not None:
                raise TypeError(f"cannot assign '{_tensor_type(value)}' as child module '{name}' "
                                "(torch.nn.Module or None expected)")
            self._modules[name] = None
        elif name in self._buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{_tensor_type(value)}' as buffer '{name}' "
                                "(torch.Tensor or None expected)")
            self._buffers[name] = value
        else:
            object.__setattr__(self, name, value)

    def _forget(self, name, keep=None):
        for table in (self._parameters, self._buffers, self._modules):
            if table is not keep:
                table.pop(name, None)
        self._non_persistent.discard(name)

    def __delattr__(self, name):
        """``del module.weight`` unregisters the parameter (or buffer, or submodule) too."""
        if any(name in self.__dict__.get(table, ()) for table in TABLES):
            self._forget(name)
            self.__dict__.pop(name, None)
        else:
            object.__delattr__(self, name)

    def __setstate__(self, state):
        """A module unpickled or copied: its tables are linked to its attributes again."""
        self.__dict__.update(state)
        for name in TABLES:
            table = self.__dict__.get(name)
            if type(table) is not _Table:
                table = _Table()
                table.update(self.__dict__.get(name) or {})
                object.__setattr__(self, name, table)
            if table.owner is None:
                table.owner, table.hidden = self.__dict__, _class_names(type(self))

    def register_parameter(self, name, param):
        """Register ``param`` (a Parameter, or None) under ``name``."""
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{_tensor_type(param)}' object to parameter '{name}' "
                            "(torch.nn.Parameter or None required)")
        self._forget(name, keep=self._parameters)     # a re-registered parameter keeps its place
        self._parameters[name] = param

    def register_buffer(self, name, tensor, persistent=True):
        """Register a tensor that is state but not a parameter (BatchNorm's running statistics)."""
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{_tensor_type(tensor)}' object to buffer '{name}' "
                            "(torch Tensor or None required)")
        self._forget(name, keep=self._buffers)        # a re-registered buffer keeps its place
        self._buffers[name] = tensor
        if not persistent:
            self._non_persistent.add(name)

    def add_module(self, name, module):
        """Register ``module`` (or None) as the child ``name``, refused as PyTorch refuses it."""
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{_tensor_type(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {type(name).__name__}")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        self._forget(name, keep=self._modules)        # a replaced child keeps its place
        self._modules[name] = module

    register_module = add_module

    def forward(self, *args, **kwargs):
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')

    def __call__(self, *args, **kwargs):
        if not (self._forward_hooks or self._forward_pre_hooks or self._backward_hooks or
                self._non_full_backward_hooks or self._backward_pre_hooks):
            return self.forward(*args, **kwargs)
        for hook in list(self._forward_pre_hooks.values()):
            if type(hook) is _WithKwargs:
                changed = hook.function(self, args, kwargs)
                if changed is not None:
                    if not (isinstance(changed, tuple) and len(changed) == 2):
                        raise RuntimeError(f"forward pre-hook must return None or a tuple of (new_args, new_kwargs), "
                                           f"but got {changed}.")
                    args, kwargs = changed
                continue
            changed = hook(self, args)
            if changed is not None:
                args = changed if isinstance(changed, tuple) else (changed,)
        state = None
        if self._backward_hooks or self._backward_pre_hooks:
            state = _BackwardHookState(self)
            args = state.wrap_inputs(args)
        result = self.forward(*args, **kwargs)
        for hook in list(self._forward_hooks.values()):
            if type(hook) is _WithKwargs:
                changed = hook.function(self, args, kwargs, result)
            else:
                changed = hook(self, args, result)
            if changed is not None:
                result = changed
        if state is not None:
            result = state.wrap_outputs(result)
        if self._non_full_backward_hooks:
            self._hook_output_node(result, self._non_full_backward_hooks)
        return result

    def _hook_output_node(self, result, hooks):
        """The deprecated backward hooks: on the node that made the first tensor of ``result``,
        called with that node's input and output gradients (PyTorch's non-full hook)."""
        first = result
        while isinstance(first, (tuple, list)) and first:
            first = first[0]
        node = first.grad_fn if isinstance(first, Tensor) else None
        if node is None:
            return
        for hook in list(hooks.values()):
            node.register_hook(lambda grad_input, grad_output, hook=hook: hook(self, grad_input, grad_output))

    def register_backward_hook(self, hook):
        """The deprecated form of :meth:`register_full_backward_hook`: ``hook(module, grad_input,
        grad_output)`` on the node that made the module's output, whose inputs may be other
        than the module's (PyTorch's warning says so), a returned tuple replacing ``grad_input``."""
        if self._backward_hooks:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks on a single Module. "
                               "Please use only one of them.")
        return HookHandle(self._non_full_backward_hooks, hook)

    def to_empty(self, *, device=None, recurse=True):
        """Parameters and buffers replaced by new ones of the same shapes and dtypes, with unset
        values (zeros here), on ``device`` (the CPU), as PyTorch's: the way out of the meta device.

        >>> from diffcompare import autograd as ag
        >>> ag.nn.Linear(2, 1, device="meta").to_empty(device="cpu").weight
        Parameter containing:
        tensor([[0., 0.]], requires_grad=True)
        """
        if device is not None:
            resolve_device(device)
        modules = self.modules() if recurse else [self]
        for module in modules:
            for table in (module._parameters, module._buffers):
                for name, t in table.items():
                    if t is not None:
                        t._data, t._grad = np.zeros(t._data.shape, t._data.dtype), None
        return self

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False):
        """Call ``hook(module, args, output)`` after every forward (``with_kwargs``: ``hook(module,
        args, kwargs, output)``); a returned value replaces the output. ``prepend``: before the
        hooks registered so far."""
        return _add_hook(self._forward_hooks, _WithKwargs(hook) if with_kwargs else hook, prepend)

    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        """Call ``hook(module, args)`` before every forward; a returned value replaces the
        arguments. ``with_kwargs``: ``hook(module, args, kwargs)``, returning None or the pair
        (args, kwargs) to call forward with. ``prepend``: before the hooks registered so far."""
        return _add_hook(self._forward_pre_hooks, _WithKwargs(hook) if with_kwargs else hook, prepend)

    def register_full_backward_hook(self, hook):
        """Call ``hook(module, grad_input, grad_output)`` when the gradients of the module's
        inputs are computed; a returned tuple replaces ``grad_input``."""
        return HookHandle(self._backward_hooks, hook)

    def register_full_backward_pre_hook(self, hook):
        """Call ``hook(module, grad_output)`` when the gradients of the module's outputs are
        computed, before they go on into the module; a returned tuple replaces ``grad_output``."""
        return HookHandle(self._backward_pre_hooks, hook)

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        seen = set()
        modules = self.named_modules(prefix=prefix) if recurse else [(prefix, self)]
        for mname, module in modules:
            for name, p in module._parameters.items():
                if p is None or (remove_duplicate and id(p) in seen):
                    continue
                seen.add(id(p))
                yield (f"{mname}.{name}" if mname else name), p

    def parameters(self, recurse=True):
        return (p for _, p in self.named_parameters(recurse=recurse))

    def named_buffers(self, prefix="", recurse=True):
        modules = self.named_modules(prefix=prefix) if recurse else [(prefix, self)]
        for mname, module in modules:
            for name, b in module._buffers.items():
                if b is not None:
                    yield (f"{mname}.{name}" if mname else name), b

    def buffers(self, recurse=True):
        return (b for _, b in self.named_buffers(recurse=recurse))

    def named_children(self):
        return ((name, m) for name, m in self._modules.items() if m is not None)

    def children(self):
        return (m for _, m in self.named_children())

    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        """(name, module) for this module and every submodule, depth first ('' for itself)."""
        memo = set() if memo is None else memo
        if remove_duplicate:
            if id(self) in memo:
                return
            memo.add(id(self))
        yield prefix, self
        for name, m in self.named_children():
            yield from m.named_modules(memo, f"{prefix}.{name}" if prefix else name, remove_duplicate)

    def modules(self):
        return (m for _, m in self.named_modules())

    def apply(self, fn):
        """Call ``fn`` on every submodule and then on this module (weight initialisation)."""
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    def zero_grad(self, set_to_none=True):
        for p in self.parameters():
            zero_grad_of(p, set_to_none)

    def requires_grad_(self, requires_grad=True):
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def train(self, mode=True):
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        for m in self.modules():
            object.__setattr__(m, "training", mode)
        return self

    def eval(self):
        return self.train(False)

    # -- devices and dtypes: the CPU only; a floating dtype converts parameters and buffers in place
    def to(self, *args, **kwargs):
        """The module itself, its floating parameters and buffers converted to a dtype if one is
        given; a device other than the CPU raises as in a CPU-only PyTorch."""
        dtype, _ = ops.to_arguments(args, kwargs.get("device"), kwargs.get("dtype"))
        self._cast(dtype)
        where = ops.shape.device_in(args, kwargs.get("device"))
        if where is not None and where.type == "meta":   # shape-only placeholders, as PyTorch's
            for t in (*self.parameters(), *self.buffers()):
                t._data, t._grad = as_meta(t._data), None
        elif where is not None:
            for t in (*self.parameters(), *self.buffers()):
                refuse_meta(t._data, "cpu")
        return self

    def cpu(self):
        return self

    def share_memory(self):
        """Parameters and buffers (and their gradients) moved to shared memory, for processes
        forked afterwards to update in place (``Tensor.share_memory_``; Hogwild training)."""
        for t in (*self.parameters(), *self.buffers()):
            t.share_memory_()
            if t._grad is not None:
                t._grad.share_memory_()
        return self

    def cuda(self, device=None):
        resolve_device("cuda")

    def double(self):
        return self._cast(np.dtype(np.float64))

    def float(self):
        return self._cast(np.dtype(np.float32))

    def half(self):
        return self._cast(np.dtype(np.float16))

    def bfloat16(self):
        """Refused: NumPy has no bfloat16 (``Tensor.to``'s error)."""
        for t in self.parameters():
            t.to(bfloat16)
        return self

    def _cast(self, dtype):
        if dtype is None or dtype.kind not in "fc":
            return self
        for t in (*self.parameters(), *self.buffers()):
            if t.dtype.kind in "fc" and t.dtype != dtype:
                t._data = t._data.astype(dtype)
                if t._grad is not None:
                    t._grad = Tensor._make(t._grad._data.astype(dtype))
        return self

    # -- state --------------------------------------------------------------------------------
    def state_dict(self, destination=None, prefix="", keep_vars=False):
        """Parameters and persistent buffers by name, detached (sharing memory), as PyTorch's."""
        state = OrderedDict() if destination is None else destination
        for mname, module in self.named_modules(prefix=prefix.rstrip(".")):
            lead = f"{mname}." if mname else ""
            for name, p in module._parameters.items():
                if p is not None:
                    state[lead + name] = p if keep_vars else p.detach()
            for name, b in module._buffers.items():
                if b is not None and name not in module._non_persistent:
                    state[lead + name] = b if keep_vars else b.detach()
        return state

    def get_submodule(self, target):
        """The submodule at the dotted path ``target`` ("" is the module itself), as PyTorch's."""
        module = self
        for item in target.split(".") if target else ():
            if not hasattr(module, item):
                raise AttributeError(f"{type(module).__name__} has no attribute `{item}`")
            module = getattr(module, item)
            if not isinstance(module, Module):
                raise AttributeError(f"`{item}` is not an nn.Module")
        return module

    def get_parameter(self, target):
        """The parameter at the dotted path ``target`` ("layer.weight"), as PyTorch's."""
        module, name = self._owner_of(target)
        value = getattr(module, name)
        if not isinstance(value, Parameter):
            raise AttributeError(f"`{name}` is not an nn.Parameter")
        return value

    def get_buffer(self, target):
        """The buffer at the dotted path ``target`` ("bn.running_mean"), as PyTorch's."""
        module, name = self._owner_of(target)
        if name not in module._buffers:
            raise AttributeError(f"`{name}` is not a buffer")
        return getattr(module, name)

    def _owner_of(self, target):
        """The submodule holding the attribute at the dotted path ``target``, and its name."""
        path, _, name = target.rpartition(".")
        module = self.get_submodule(path)
        if not hasattr(module, name):
            raise AttributeError(f"{type(module).__name__} has no attribute `{name}`")
        return module, name

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """Copy the values of ``state_dict`` into the parameters and buffers; with ``strict``,
        missing and unexpected keys are PyTorch's error. With ``assign``, the state dict's
        tensors become the parameters (wrapped as ``Parameter`` with the old one's
        ``requires_grad``) and buffers themselves, as a module made on the meta device needs."""
        for prefix, module in self.named_modules():
            if hasattr(module, "_materialize") and hasattr(module, "_factory"):     # a lazy module not yet run
                for name, p in module._parameters.items():
                    key = f"{prefix}.{name}" if prefix else name
                    if p is not None and p.numel() == 0 and key in state_dict:
                        module._materialize(name, tuple(np.shape(state_dict[key])))
        own = self.state_dict(keep_vars=True)
        missing = [k for k in own if k not in state_dict]
        unexpected = [k for k in state_dict if k not in own]
        errors = []
        if strict and unexpected:
            errors.append("Unexpected key(s) in state_dict: " + ", ".join(f'"{k}"' for k in unexpected) + ". ")
        if strict and missing:
            errors.insert(0, "Missing key(s) in state_dict: " + ", ".join(f'"{k}"' for k in missing) + ". ")
        for key, target in own.items():
            if key not in state_dict:
                continue
            value = state_dict[key]
            data = value._data if isinstance(value, Tensor) else np.asarray(value)
            if data.shape != target.shape:
                errors.append(f"size mismatch for {key}: copying a param with shape torch.Size({list(data.shape)}) "
                              f"from checkpoint, the shape in current model is torch.Size({list(target.shape)}).")
                continue
            if assign:
                owner, _, name = key.rpartition(".")
                module = self.get_submodule(owner) if owner else self
                if name in module._parameters:
                    tensor = value if isinstance(value, Tensor) else Tensor._make(np.array(data))
                    setattr(module, name, Parameter(tensor.detach() if tensor.requires_grad else tensor,
                                                    requires_grad=target.requires_grad))
                else:
                    module._buffers[name] = value if isinstance(value, Tensor) else Tensor._make(np.array(data))
                    object.__setattr__(module, name, module._buffers[name])
                continue
            if is_meta(target._data):       # PyTorch: copying into a meta tensor does nothing (it warns)
                continue
            target._data[...] = data
            target._bump()
        if errors:
            raise RuntimeError(f"Error(s) in loading state_dict for {type(self).__name__}:\n\t"
                               + "\n\t".join(errors))
        return _IncompatibleKeys(missing, unexpected)

    def __repr__(self):
        """PyTorch's layout: the ``extra_repr`` lines, then one line per child, indented."""
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({name}): " + repr(m).replace("\n", "\n  ") for name, m in self._modules.items()]
        lines = extra_lines + child_lines
        if not lines:
            return f"{type(self).__name__}()"
        if len(extra_lines) == 1 and not child_lines:
            return f"{type(self).__name__}({extra_lines[0]})"
        return f"{type(self).__name__}(\n  " + "\n  ".join(lines) + "\n)"

    def extra_repr(self):
        return ""


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()


def _tensor_type(value):
    if isinstance(value, Tensor):
        return {"float64": "torch.DoubleTensor", "float32": "torch.FloatTensor"}.get(str(value.dtype),
                                                                                  "torch.Tensor")
    return type(value).__name__


class BackwardHookFunction(Function):
    """The identity, whose backward hands the gradients passing through to a callback."""

    @staticmethod
    def forward(ctx, on_gradients, *tensors):
        ctx.on_gradients = on_gradients
        return tuple(t.detach() for t in tensors) if len(tensors) != 1 else tensors[0].detach()

    @staticmethod
    def backward(ctx, *grads):
        return (None, *ctx.on_gradients(grads))


NO_INPUT_GRADIENTS = (
    "Full backward hook is firing when gradients are computed with respect to module outputs since no inputs "
    "require gradients. See https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
    "#torch.nn.Module.register_full_backward_hook for more details.")


class _BackwardHookState:
    """One call of a module with full backward hooks: its inputs and outputs pass through
    BackwardHookFunction, which collects grad_output and then calls the hooks with grad_input."""

    def __init__(self, module):
        self.module = module
        self.n_inputs = 0
        self.inputs_wrapped = False
        self.grad_output = None

    def wrap_inputs(self, args):
        self.n_inputs = len(args)
        positions = [i for i, a in enumerate(args) if isinstance(a, Tensor) and a.requires_grad]
        if not positions:
            return args
        self.inputs_wrapped = True
        wrapped = _as_tuple(BackwardHookFunction.apply(self._on_input_grads, *[args[i] for i in positions]))
        self.positions = positions
        args = list(args)
        for i, t in zip(positions, wrapped):
            args[i] = t
        return tuple(args)

    def wrap_outputs(self, result):
        """The module's result with its tensors passed through BackwardHookFunction, as
        PyTorch's BackwardHook does: a Tensor, or the tensors of a tuple (its other entries
        get None for grad_output). Any other result (a dict, a list) is returned as it is,
        with PyTorch's warning: the hooks are then not called."""
        if not isinstance(result, (Tensor, tuple)):
            warnings.warn("For backward hooks to be called, module output should be a Tensor or a tuple of Tensors "
                          f"but received {type(result)}", UserWarning, stacklevel=3)
        single = not isinstance(result, tuple)
        outputs = (result,) if single else result
        self.n_outputs = len(outputs)
        self.output_positions = [i for i, t in enumerate(outputs) if isinstance(t, Tensor)]
        tensors = [outputs[i] for i in self.output_positions]
        if not (is_grad_enabled() and any(t.requires_grad for t in tensors)):
            return result
        wrapped = list(outputs)
        for i, t in zip(self.output_positions, _as_tuple(BackwardHookFunction.apply(self._on_output_grads, *tensors))):
            wrapped[i] = t
        return wrapped[0] if single else type(result)(wrapped)

    def _on_output_grads(self, grads):
        full = [None] * self.n_outputs           # grad_output: None where an output is not a tensor
        for i, g in zip(self.output_positions, grads):
            full[i] = g
        grads = tuple(full)
        for hook in list(self.module._backward_pre_hooks.values()):
            changed = hook(self.module, grads)
            if changed is not None:
                grads = tuple(changed) if isinstance(changed, (tuple, list)) else (changed,)
        self.grad_output = grads
        if not self.inputs_wrapped:
            warnings.warn(NO_INPUT_GRADIENTS, UserWarning, stacklevel=2)
            self._call_hooks((None,) * self.n_inputs)
        return tuple(grads[i] for i in self.output_positions)

    def _on_input_grads(self, grads):
        if self.grad_output is None:
            # the gradient reached the inputs without passing through the outputs (a result
            # that is not a tensor or a tuple, a double backward): no hook runs, as in PyTorch
            return grads
        full = [None] * self.n_inputs
        for i, g in zip(self.positions, grads):
            full[i] = g
        full = self._call_hooks(tuple(full))
        return tuple(full[i] for i in self.positions)

    def _call_hooks(self, grad_input):
        for hook in list(self.module._backward_hooks.values()):
            changed = hook(self.module, grad_input, self.grad_output)
            if changed is not None:
                grad_input = tuple(changed)
        return grad_input


def _as_tuple(value):
    return value if isinstance(value, tuple) else (value,)


def zero_grad_of(p, set_to_none):
    """Clear a parameter's gradient as ``zero_grad`` does: drop it, or zero it in place."""
    if p._grad is None:
        return
    if set_to_none:
        p._grad = None
    else:
        if p._grad.grad_fn is not None:
            p._grad = p._grad.detach()
        p._grad._data[...] = 0


class _WithKwargs:
    """A forward (pre-)hook registered ``with_kwargs=True``: called with the keyword arguments too."""
    __slots__ = ("function",)

    def __init__(self, function):
        self.function = function


def _add_hook(table, hook, prepend):
    """``hook`` put in ``table`` (last, or first with ``prepend``): its handle."""
    handle = HookHandle(table, hook)
    if prepend:
        rest = [(key, value) for key, value in table.items() if key != handle.id]
        table.clear()
        table[handle.id] = hook
        table.update(rest)
    return handle


def fan_in_bound(weight):
    """1/√fan_in of a layer's weight (its second dimension times the kernel's size), the bound
    of PyTorch's default draws for Linear and convolution layers (0 for an empty weight)."""
    shape = weight.shape
    fan_in = math.prod(shape[1:]) if len(shape) > 1 else 0
    return 1.0 / math.sqrt(fan_in) if fan_in else 0.0


def redraw_uniform(module, bound):
    """``reset_parameters`` of a layer whose weight and bias are drawn from U(-bound, bound)
    (Linear, convolutions, Bilinear): drawn again in place, the weight first as PyTorch draws
    them; the Parameters stay the same objects (an optimizer holds them).

    >>> from diffcompare import autograd as ag
    >>> layer = ag.nn.Linear(4, 2)
    >>> weight = layer.weight
    >>> _ = layer.weight.data.fill_(9.0)
    >>> layer.reset_parameters()
    >>> layer.weight is weight, float(layer.weight.abs().max()) <= 0.5
    (True, True)
    """
    with no_grad():
        for p in (module.weight, module.bias):
            if p is not None:
                p.uniform_(-bound, bound)


def reset_affine(module):
    """``reset_parameters`` of a normalisation layer's affine part: the weight ones, the bias
    zeros (those the layer has)."""
    with no_grad():
        if getattr(module, "weight", None) is not None:
            module.weight.fill_(1.0)
        if getattr(module, "bias", None) is not None:
            module.bias.zero_()


def reset_running_stats(module):
    """``reset_running_stats`` of a batch or instance norm layer that tracks them: mean 0,
    variance 1, no batch counted."""
    if getattr(module, "running_mean", None) is not None:
        module.running_mean.zero_()
        module.running_var.fill_(1.0)
        module.num_batches_tracked.zero_()


def uniform_parameter(bound, shape, dtype, where=None, draw=True):
    """A Parameter drawn from U(-bound, bound); on the meta device (``device="meta"`` or inside
    ``with device("meta")``) a shape-only one, nothing drawn, as in PyTorch. Without ``draw``
    zeros, for a layer whose subclass draws its own (``overrides_reset``)."""
    dtype = np.dtype(dtype) if dtype is not None else default_dtype()
    if where is META:
        return to_meta(Parameter(np.zeros(shape, dtype)))
    if not draw:
        return Parameter(np.zeros(shape, dtype))
    return Parameter(uniform_draws(generator(), -bound, bound, shape, dtype))


def overrides_reset(module, base) -> bool:
    """Whether ``module``'s class has its own ``reset_parameters`` in place of ``base``'s: PyTorch's
    constructor calls it instead of drawing the default values (a binarised or scaled Linear)."""
    return type(module).reset_parameters is not base.reset_parameters


def to_meta(t):
    t._data = as_meta(t._data)
    return t
