"""Just enough of ``torch.nn`` for a PyTorch training loop to run by changing the import.

>>> from diffcompare import autograd as ag
>>> _ = ag.manual_seed(0)
>>> net = ag.nn.Sequential(ag.nn.Linear(3, 4), ag.nn.ReLU(), ag.nn.Linear(4, 1))
>>> loss = ag.nn.MSELoss()(net(ag.randn(5, 3)), ag.zeros(5, 1))
>>> loss.backward()
>>> [tuple(p.grad.shape) for p in net.parameters()]
[(4, 3), (4,), (1, 4), (1,)]
"""

from __future__ import annotations

import math
import warnings
from collections import OrderedDict, namedtuple

import numpy as np

from .. import ops
from ..device import META, as_meta, refuse_meta, resolve as resolve_device
from ..function import Function
from ..grad_mode import no_grad
from ..tensor import HookHandle, Tensor, generator
from . import functional  # noqa: F401  (ag.nn.functional, as torch.nn.functional)
from . import functional as F


class Parameter(Tensor):
    """A tensor that a Module registers as a learnable parameter (requires grad by default)."""

    __slots__ = ()

    def __init__(self, data=None, requires_grad=True):
        array = np.array(data._data if isinstance(data, Tensor) else data, dtype=None)
        if array.dtype.kind not in "fc":
            array = array.astype(np.float64)
        super().__init__(array)
        self.requires_grad_(requires_grad)

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    def __deepcopy__(self, memo):
        """A new Parameter with a copy of the values (on the same device), without ``.grad``, as PyTorch's."""
        if id(self) not in memo:
            new = Tensor.__deepcopy__(self, memo)
            new._grad = None
        return memo[id(self)]


class Module:
    """Base class: assign Parameters and Modules as attributes; define ``forward``.

    >>> from diffcompare import autograd as ag
    >>> net = ag.nn.Sequential(ag.nn.Linear(2, 2), ag.nn.ReLU())
    >>> [name for name, _ in net.named_modules()]
    ['', '0', '1']
    """

    def __init__(self):
        for table in ("_parameters", "_buffers", "_modules", "_forward_hooks", "_forward_pre_hooks",
                      "_backward_hooks"):
            object.__setattr__(self, table, OrderedDict())
        object.__setattr__(self, "_non_persistent", set())
        object.__setattr__(self, "training", True)

    def __setattr__(self, name, value):
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign module attributes before Module.__init__() call "
                                 "(call super().__init__() first in your __init__)")
        if isinstance(value, Parameter):
            self._forget(name)
            self._parameters[name] = value
        elif name in self._parameters:
            if value is not None:
                raise TypeError(f"cannot assign '{_tensor_type(value)}' as parameter '{name}' "
                                "(torch.nn.Parameter or None expected)")
            self._parameters[name] = None
        elif isinstance(value, Module):
            self._forget(name)
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
        object.__setattr__(self, name, value)

    def _forget(self, name):
        for table in (self._parameters, self._buffers, self._modules):
            table.pop(name, None)
        self._non_persistent.discard(name)

    def __delattr__(self, name):
        """``del module.weight`` unregisters the parameter (or buffer, or submodule) too."""
        self._forget(name)
        object.__delattr__(self, name)

    def register_parameter(self, name, param):
        """Register ``param`` (a Parameter, or None) under ``name``."""
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{_tensor_type(param)}' object to parameter '{name}' "
                            "(torch.nn.Parameter or None required)")
        self._forget(name)
        self._parameters[name] = param
        object.__setattr__(self, name, param)

    def register_buffer(self, name, tensor, persistent=True):
        """Register a tensor that is state but not a parameter (BatchNorm's running statistics)."""
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{_tensor_type(tensor)}' object to buffer '{name}' "
                            "(torch Tensor or None required)")
        self._forget(name)
        self._buffers[name] = tensor
        if not persistent:
            self._non_persistent.add(name)
        object.__setattr__(self, name, tensor)

    def add_module(self, name, module):
        self._forget(name)
        self._modules[name] = module
        object.__setattr__(self, name, module)

    register_module = add_module

    def forward(self, *args, **kwargs):
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')

    def __call__(self, *args, **kwargs):
        if not (self._forward_hooks or self._forward_pre_hooks or self._backward_hooks):
            return self.forward(*args, **kwargs)
        for hook in list(self._forward_pre_hooks.values()):
            changed = hook(self, args)
            if changed is not None:
                args = changed if isinstance(changed, tuple) else (changed,)
        state = None
        if self._backward_hooks:
            state = _BackwardHookState(self)
            args = state.wrap_inputs(args)
        result = self.forward(*args, **kwargs)
        for hook in list(self._forward_hooks.values()):
            changed = hook(self, args, result)
            if changed is not None:
                result = changed
        if state is not None:
            result = state.wrap_outputs(result)
        return result

    def register_forward_hook(self, hook):
        """Call ``hook(module, args, output)`` after every forward; a returned value replaces the output."""
        return HookHandle(self._forward_hooks, hook)

    def register_forward_pre_hook(self, hook):
        """Call ``hook(module, args)`` before every forward; a returned value replaces the arguments."""
        return HookHandle(self._forward_pre_hooks, hook)

    def register_full_backward_hook(self, hook):
        """Call ``hook(module, grad_input, grad_output)`` when the gradients of the module's
        inputs are computed; a returned tuple replaces ``grad_input``."""
        return HookHandle(self._backward_hooks, hook)

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

    def cuda(self, device=None):
        resolve_device("cuda")

    def double(self):
        return self._cast(np.dtype(np.float64))

    def float(self):
        return self._cast(np.dtype(np.float32))

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

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """Copy the values of ``state_dict`` into the parameters and buffers; with ``strict``,
        missing and unexpected keys are PyTorch's error."""
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
            target._data[...] = data
            target._bump()
        if errors:
            raise RuntimeError(f"Error(s) in loading state_dict for {type(self).__name__}:\n\t"
                               + "\n\t".join(errors))
        return _IncompatibleKeys(missing, unexpected)

    def __repr__(self):
        lines = [f"  ({name}): " + repr(m).replace("\n", "\n  ") for name, m in self._modules.items()]
        extra = self.extra_repr()
        if not lines:
            return f"{type(self).__name__}({extra})"
        return f"{type(self).__name__}(\n" + "\n".join(lines) + "\n)"

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
        single = isinstance(result, Tensor)
        outputs = (result,) if single else tuple(result)
        wrapped = _as_tuple(BackwardHookFunction.apply(self._on_output_grads, *outputs))
        return wrapped[0] if single else type(result)(wrapped) if isinstance(result, tuple) else list(wrapped)

    def _on_output_grads(self, grads):
        self.grad_output = grads
        if not self.inputs_wrapped:
            warnings.warn(NO_INPUT_GRADIENTS, UserWarning, stacklevel=2)
            self._call_hooks((None,) * self.n_inputs)
        return grads

    def _on_input_grads(self, grads):
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


def _uniform(bound, shape, dtype, where=None):
    """A Parameter drawn from U(-bound, bound); on the meta device (``device="meta"`` or inside
    ``with device("meta")``) a shape-only one, nothing drawn, as in PyTorch."""
    dtype = np.dtype(dtype) if dtype is not None else np.float64
    if where is META:
        return _to_meta(Parameter(np.zeros(shape, dtype)))
    return Parameter(generator().uniform(-bound, bound, shape).astype(dtype))


def _to_meta(t):
    t._data = as_meta(t._data)
    return t


class Linear(Module):
    """y = x Wᵀ + b, with W and b drawn from U(-1/√in, 1/√in) as in PyTorch; recorded as
    AddmmBackward0 (with views around it for an input that is not a matrix)."""

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        where = resolve_device(device, meta=True)
        self.in_features, self.out_features = in_features, out_features
        bound = 1.0 / math.sqrt(in_features) if in_features else 0.0
        self.weight = _uniform(bound, (out_features, in_features), dtype, where)
        self.register_parameter("bias", _uniform(bound, (out_features,), dtype, where) if bias else None)

    def forward(self, x):
        return F.linear(x, self.weight, self.bias)

    def extra_repr(self):
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class Conv2d(Module):
    """2-d convolution over (N, C, H, W) inputs; weight (out, in/groups, kh, kw) and bias drawn
    from U(-1/√fan_in, 1/√fan_in) as in PyTorch. Recorded as ConvolutionBackward0.

    >>> from diffcompare import autograd as ag
    >>> conv = ag.nn.Conv2d(3, 8, 3, padding=1)
    >>> conv(ag.randn(2, 3, 5, 5)).shape
    (2, 8, 5, 5)
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", device=None, dtype=None):
        super().__init__()
        where = resolve_device(device, meta=True)
        if in_channels % groups:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups:
            raise ValueError("out_channels must be divisible by groups")
        if padding_mode != "zeros":
            raise NotImplementedError(f"padding_mode={padding_mode!r}: only 'zeros' is implemented")
        kernel = kernel_size if isinstance(kernel_size, tuple) else (kernel_size, kernel_size)
        self.in_channels, self.out_channels, self.kernel_size = in_channels, out_channels, tuple(kernel)
        self.stride, self.padding, self.dilation, self.groups = stride, padding, dilation, groups
        fan_in = in_channels // groups * kernel[0] * kernel[1]
        bound = 1.0 / math.sqrt(fan_in) if fan_in else 0.0
        self.weight = _uniform(bound, (out_channels, in_channels // groups) + tuple(kernel), dtype, where)
        self.register_parameter("bias", _uniform(bound, (out_channels,), dtype, where) if bias else None)

    def forward(self, x):
        return F.conv2d(x, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)

    def extra_repr(self):
        return (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
                + (f", padding={self.padding}" if self.padding else "")
                + (f", groups={self.groups}" if self.groups != 1 else "")
                + (", bias=False" if self.bias is None else ""))


class MaxPool2d(Module):
    """2-d max pooling, recorded as MaxPool2DWithIndicesBackward0."""

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False):
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride or kernel_size, padding
        self.dilation, self.return_indices, self.ceil_mode = dilation, return_indices, ceil_mode

    def forward(self, x):
        return F.max_pool2d(x, self.kernel_size, self.stride, self.padding, self.dilation, self.ceil_mode,
                            self.return_indices)

    def extra_repr(self):
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class _BatchNorm(Module):
    """Batch normalisation over the channel axis (1): learnable ``weight``/``bias`` (affine) and
    the buffers ``running_mean``, ``running_var`` and ``num_batches_tracked``."""

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 device=None, dtype=None):
        super().__init__()
        where = resolve_device(device, meta=True)
        dtype = np.dtype(dtype) if dtype is not None else np.float64
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        if affine:
            self.weight = Parameter(np.ones(num_features, dtype=dtype))
            self.bias = Parameter(np.zeros(num_features, dtype=dtype))
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", Tensor._make(np.zeros(num_features, dtype=dtype)))
            self.register_buffer("running_var", Tensor._make(np.ones(num_features, dtype=dtype)))
            self.register_buffer("num_batches_tracked", Tensor._make(np.array(0, dtype=np.int64)))
        else:
            for name in ("running_mean", "running_var", "num_batches_tracked"):
                self.register_buffer(name, None)
        if where is META:
            for t in list(self._parameters.values()) + list(self._buffers.values()):
                if t is not None:
                    _to_meta(t)

    def _check_input_dim(self, x):
        pass

    def forward(self, x):
        self._check_input_dim(x)
        momentum = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats:
            self.num_batches_tracked._data += 1
            if self.momentum is None:            # a cumulative moving average
                momentum = 1.0 / int(self.num_batches_tracked._data)
        batch_stats = self.training or self.running_mean is None
        track = not self.training or self.track_running_stats
        return F.batch_norm(x, self.running_mean if track else None, self.running_var if track else None,
                            self.weight, self.bias, batch_stats, momentum, self.eps)

    def extra_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
                f"track_running_stats={self.track_running_stats}")


class BatchNorm1d(_BatchNorm):
    """Batch normalisation of (N, C) or (N, C, L) inputs, recorded as NativeBatchNormBackward0.

    >>> from diffcompare import autograd as ag
    >>> bn = ag.nn.BatchNorm1d(1)
    >>> bn(ag.tensor([[1.0], [3.0]])).detach(), bn.running_mean, bn.running_var
    (tensor([[-1.0000],
            [ 1.0000]]), tensor([0.2000]), tensor([1.1000]))
    """

    def _check_input_dim(self, x):
        if x.ndim not in (2, 3):
            raise ValueError(f"expected 2D or 3D input (got {x.ndim}D input)")


class BatchNorm2d(_BatchNorm):
    """Batch normalisation of (N, C, H, W) inputs."""

    def _check_input_dim(self, x):
        if x.ndim != 4:
            raise ValueError(f"expected 4D input (got {x.ndim}D input)")


class Flatten(Module):
    """Flatten dimensions ``start_dim`` to ``end_dim`` (by default all but the batch one)."""

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, x):
        return ops.flatten(x, self.start_dim, self.end_dim)

    def extra_repr(self):
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Identity(Module):
    """The input itself (arguments accepted and ignored, as in PyTorch)."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, x):
        return x


class Dropout(Module):
    """Zero elements with probability ``p`` in training (the rest scaled by 1/(1 - p)); the
    identity in evaluation."""

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if not 0 <= p <= 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = p, inplace

    def forward(self, x):
        return F.dropout(x, self.p, self.training, self.inplace)

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class AvgPool2d(Module):
    """2-d average pooling, recorded as AvgPool2DBackward0."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
                 divisor_override=None):
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride or kernel_size, padding
        self.ceil_mode, self.count_include_pad, self.divisor_override = ceil_mode, count_include_pad, divisor_override

    def forward(self, x):
        return F.avg_pool2d(x, self.kernel_size, self.stride, self.padding, self.ceil_mode, self.count_include_pad,
                            self.divisor_override)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AdaptiveAvgPool2d(Module):
    """Average pooling to a fixed output size, recorded as AdaptiveAvgPool2DBackward0."""

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def forward(self, x):
        return F.adaptive_avg_pool2d(x, self.output_size)

    def extra_repr(self):
        return f"output_size={self.output_size}"


class Softmax(Module):
    """``F.softmax`` along ``dim``."""

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        return F.softmax(x, self.dim, _stacklevel=5)

    def extra_repr(self):
        return f"dim={self.dim}"


class LogSoftmax(Softmax):
    """``F.log_softmax`` along ``dim``."""

    def forward(self, x):
        return F.log_softmax(x, self.dim, _stacklevel=5)


class ReLU(Module):
    def forward(self, x):
        return ops.relu(x)


class Tanh(Module):
    def forward(self, x):
        return ops.tanh(x)


class Sigmoid(Module):
    def forward(self, x):
        return ops.sigmoid(x)


class Softplus(Module):
    def __init__(self, beta=1.0, threshold=20.0):
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def forward(self, x):
        return ops.softplus(x, self.beta, self.threshold)


class Sequential(Module):
    """Modules applied in order."""

    def __init__(self, *modules):
        super().__init__()
        if len(modules) == 1 and isinstance(modules[0], OrderedDict):
            for name, m in modules[0].items():
                self.add_module(name, m)
        else:
            for i, m in enumerate(modules):
                self.add_module(str(i), m)

    def forward(self, x):
        for m in self._modules.values():
            x = m(x)
        return x

    def __getitem__(self, i):
        if isinstance(i, slice):
            return Sequential(*list(self._modules.values())[i])
        return list(self._modules.values())[i]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self


class MSELoss(Module):
    def __init__(self, reduction="mean"):
        super().__init__()
        self.reduction = reduction

    def forward(self, input, target):
        return F.mse_loss(input, target, self.reduction)


class CrossEntropyLoss(Module):
    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
                 label_smoothing=0.0):
        super().__init__()
        self.weight, self.ignore_index, self.label_smoothing = weight, ignore_index, label_smoothing
        self.reduction = F._legacy_reduction(size_average, reduce, reduction)

    def forward(self, input, target):
        return F.cross_entropy(input, target, self.weight, ignore_index=self.ignore_index, reduction=self.reduction,
                               label_smoothing=self.label_smoothing)


class NLLLoss(Module):
    """Negative log-likelihood of log-probabilities (``F.nll_loss``)."""

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
        super().__init__()
        self.weight, self.ignore_index = weight, ignore_index
        self.reduction = F._legacy_reduction(size_average, reduce, reduction)

    def forward(self, input, target):
        return F.nll_loss(input, target, self.weight, ignore_index=self.ignore_index, reduction=self.reduction)


class BCEWithLogitsLoss(Module):
    def __init__(self, weight=None, reduction="mean", pos_weight=None):
        super().__init__()
        self.weight, self.reduction, self.pos_weight = weight, reduction, pos_weight

    def forward(self, input, target):
        return F.binary_cross_entropy_with_logits(input, target, self.weight, self.reduction, self.pos_weight)


class _Loss(Module):
    """A loss module: ``reduction`` ('none', 'mean' or 'sum'), or PyTorch's legacy
    ``size_average``/``reduce`` turned into one."""

    def __init__(self, size_average=None, reduce=None, reduction="mean"):
        super().__init__()
        self.reduction = F._legacy_reduction(size_average, reduce, reduction)


class _WeightedLoss(_Loss):
    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)


class L1Loss(_Loss):
    def forward(self, input, target):
        return F.l1_loss(input, target, reduction=self.reduction)


class SmoothL1Loss(_Loss):
    def __init__(self, size_average=None, reduce=None, reduction="mean", beta=1.0):
        super().__init__(size_average, reduce, reduction)
        self.beta = beta

    def forward(self, input, target):
        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(_Loss):
    def __init__(self, reduction="mean", delta=1.0):
        super().__init__(reduction=reduction)
        self.delta = delta

    def forward(self, input, target):
        return F.huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class BCELoss(_WeightedLoss):
    def forward(self, input, target):
        return F.binary_cross_entropy(input, target, weight=self.weight, reduction=self.reduction)


class KLDivLoss(_Loss):
    def __init__(self, size_average=None, reduce=None, reduction="mean", log_target=False):
        super().__init__(size_average, reduce, reduction)
        self.log_target = log_target

    def forward(self, input, target):
        return F.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)


class SoftMarginLoss(_Loss):
    def forward(self, input, target):
        return F.soft_margin_loss(input, target, reduction=self.reduction)


class MarginRankingLoss(_Loss):
    def __init__(self, margin=0.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1, input2, target):
        return F.margin_ranking_loss(input1, input2, target, margin=self.margin, reduction=self.reduction)


class HingeEmbeddingLoss(_Loss):
    def __init__(self, margin=1.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input, target):
        return F.hinge_embedding_loss(input, target, margin=self.margin, reduction=self.reduction)


class CosineEmbeddingLoss(_Loss):
    def __init__(self, margin=0.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1, input2, target):
        return F.cosine_embedding_loss(input1, input2, target, margin=self.margin, reduction=self.reduction)


class PoissonNLLLoss(_Loss):
    def __init__(self, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.log_input, self.full, self.eps = log_input, full, eps

    def forward(self, log_input, target):
        return F.poisson_nll_loss(log_input, target, log_input=self.log_input, full=self.full, eps=self.eps,
                                  reduction=self.reduction)


class GaussianNLLLoss(_Loss):
    def __init__(self, *, full=False, eps=1e-6, reduction="mean"):
        super().__init__(reduction=reduction)
        self.full, self.eps = full, eps

    def forward(self, input, target, var):
        return F.gaussian_nll_loss(input, target, var, full=self.full, eps=self.eps, reduction=self.reduction)


class MultiLabelSoftMarginLoss(_WeightedLoss):
    def forward(self, input, target):
        return F.multilabel_soft_margin_loss(input, target, weight=self.weight, reduction=self.reduction)


class TripletMarginLoss(_Loss):
    def __init__(self, margin=1.0, p=2.0, eps=1e-6, swap=False, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        if margin <= 0:
            raise ValueError(f"TripletMarginLoss: expected margin to be greater than 0, got {margin} instead")
        self.margin, self.p, self.eps, self.swap = margin, p, eps, swap

    def forward(self, anchor, positive, negative):
        return F.triplet_margin_loss(anchor, positive, negative, margin=self.margin, p=self.p, eps=self.eps,
                                     swap=self.swap, reduction=self.reduction)


class MultiLabelMarginLoss(_Loss):
    def forward(self, input, target):
        return F.multilabel_margin_loss(input, target, reduction=self.reduction)


class MultiMarginLoss(_WeightedLoss):
    def __init__(self, p=1, margin=1.0, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__(weight, size_average, reduce, reduction)
        if p not in (1, 2):
            raise ValueError("only p == 1 and p == 2 supported")
        if weight is not None and weight.dim() != 1:
            raise ValueError(f"MultiMarginLoss: expected weight to be None or 1D tensor, got {weight.dim()}D "
                             "instead")
        self.p, self.margin = p, margin

    def forward(self, input, target):
        return F.multi_margin_loss(input, target, p=self.p, margin=self.margin, weight=self.weight,
                                   reduction=self.reduction)


class CosineSimilarity(Module):
    def __init__(self, dim=1, eps=1e-8):
        super().__init__()
        self.dim, self.eps = dim, eps

    def forward(self, x1, x2):
        return F.cosine_similarity(x1, x2, self.dim, self.eps)


class PairwiseDistance(Module):
    def __init__(self, p=2.0, eps=1e-6, keepdim=False):
        super().__init__()
        self.norm, self.eps, self.keepdim = p, eps, keepdim

    def forward(self, x1, x2):
        return F.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


class _DropoutNd(Dropout):
    _function = None

    def forward(self, x):
        return type(self)._function(x, self.p, self.training, self.inplace)


class Dropout1d(_DropoutNd):
    _function = staticmethod(F.dropout1d)


class Dropout2d(_DropoutNd):
    _function = staticmethod(F.dropout2d)


class Dropout3d(_DropoutNd):
    _function = staticmethod(F.dropout3d)
