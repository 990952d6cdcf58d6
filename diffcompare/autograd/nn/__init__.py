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
from collections import OrderedDict

import numpy as np

from ..dtypes import default_dtype
from .. import ops
from ..device import META, resolve as resolve_device
from ..grad_mode import no_grad
from ..ops.convolution import expand_param
from ..tensor import Tensor
from . import functional  # noqa: F401  (ag.nn.functional, as torch.nn.functional)
from . import functional as F

from .module import (Buffer, Module, Parameter, fan_in_bound, overrides_reset, redraw_uniform, reset_affine,  # noqa: F401
                     reset_running_stats, to_meta, uniform_parameter, zero_grad_of)
from .activation import *  # noqa: F401,F403  (LeakyReLU, GELU, ...)
from . import init  # noqa: F401  (torch.nn.init)
from .normalization import *  # noqa: F401,F403  (LayerNorm, GroupNorm, InstanceNorm1d, RMSNorm, ...)
from .pooling import *  # noqa: F401,F403  (MaxPool1d, AvgPool3d, AdaptiveMaxPool2d, LPPool2d, ...)
from .resampling import *  # noqa: F401,F403  (Upsample, PixelShuffle, ReflectionPad2d, ...)
from .rnn import *  # noqa: F401,F403  (RNN, LSTM, GRU and their cells)
from .sparse import Embedding, EmbeddingBag  # noqa: F401
from . import utils  # noqa: F401  (torch.nn.utils)
from .container import ModuleDict, ModuleList, ParameterDict, ParameterList  # noqa: F401
from . import grad  # noqa: E402  (torch.nn.grad, also reached as torch.nn.functional.grad)
from . import parallel  # noqa: E402,F401  (torch.nn.parallel)
from .parallel import DataParallel  # noqa: E402,F401
functional.grad = grad


class Linear(Module):
    """y = x Wᵀ + b, with W and b drawn from U(-1/√in, 1/√in) as in PyTorch; recorded as
    AddmmBackward0 (with views around it for an input that is not a matrix)."""

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.out_features = out_features
        self._draw(in_features, bias, device, dtype)

    def _draw(self, in_features, bias, device, dtype):
        """The weight (then the bias) drawn from U(-1/√in_features, 1/√in_features); or, for a
        subclass with its own ``reset_parameters``, that (as PyTorch's constructor calls it)."""
        where = resolve_device(device, meta=True)
        self.in_features = in_features
        bound = 1.0 / math.sqrt(in_features) if in_features else 0.0
        own = overrides_reset(self, Linear) and where is not META
        self.weight = uniform_parameter(bound, (self.out_features, in_features), dtype, where, draw=not own)
        self.register_parameter("bias", uniform_parameter(bound, (self.out_features,), dtype, where, draw=not own)
                                if bias else None)
        if own:
            self.reset_parameters()

    def reset_parameters(self):
        """The weight and bias drawn again from U(-1/√in_features, 1/√in_features), in place."""
        redraw_uniform(self, fan_in_bound(self.weight))

    def forward(self, x):
        return F.linear(x, self.weight, self.bias)

    def extra_repr(self):
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class LazyLinear(Linear):
    """A ``Linear`` whose ``in_features`` is the last dimension of its first input: its weight
    and bias are drawn then (as ``Linear`` draws them) and it becomes a ``Linear``, as PyTorch's.

    >>> from diffcompare import autograd as ag
    >>> m = ag.nn.LazyLinear(2)
    >>> m(ag.ones(4, 3)).shape, m
    (torch.Size([4, 2]), Linear(in_features=3, out_features=2, bias=True))
    """

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        Module.__init__(self)
        self.in_features, self.out_features = 0, out_features
        self._factory = (bias, device, dtype)
        self.weight = Parameter(np.zeros(0, np.dtype(dtype) if dtype is not None else default_dtype()))
        self.register_parameter("bias", Parameter(np.zeros(0, self.weight.dtype)) if bias else None)

    def forward(self, x):
        if self.weight.numel() == 0:            # not loaded from a state dict: drawn now
            self._draw(x.shape[-1], *self._factory)
        else:
            self.in_features = self.weight.shape[1]
        del self._factory
        self.__class__ = Linear
        return Linear.forward(self, x)

    def _materialize(self, name, shape):
        """The parameter ``name`` given ``shape`` (before a state dict is copied into it)."""
        getattr(self, name)._data = np.zeros(shape, self.weight.dtype)

    def extra_repr(self):
        return f"in_features=0, out_features={self.out_features}, bias={self.bias is not None}"


class _ConvNd(Module):
    """A convolution over (N, C, *spatial) inputs; weight (out, in/groups, *kernel) — transposed:
    (in, out/groups, *kernel) — and bias drawn from U(-1/√fan_in, 1/√fan_in) as in PyTorch
    (fan_in from the weight's second dimension). Recorded as ConvolutionBackward0."""

    dims, transposed, function = 2, False, None

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", device=None, dtype=None, output_padding=0):
        super().__init__()
        where = resolve_device(device, meta=True)
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups:
            raise ValueError("out_channels must be divisible by groups")
        if padding_mode not in ("zeros", "reflect", "replicate", "circular"):
            raise ValueError(f"padding_mode must be one of {{'zeros', 'reflect', 'replicate', 'circular'}}, but got "
                             f"padding_mode='{padding_mode}'")
        if self.transposed and padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        d = self.dims
        kernel = expand_param(kernel_size, d, "kernel_size")
        self.in_channels, self.out_channels, self.kernel_size = in_channels, out_channels, kernel
        self.stride = expand_param(stride, d, "stride")
        self.padding = padding if isinstance(padding, str) else expand_param(padding, d, "padding")
        self.dilation, self.groups = expand_param(dilation, d, "dilation"), groups
        self.output_padding = expand_param(output_padding, d, "output_padding")
        self.padding_mode = padding_mode
        # the padding F.pad takes (last dimension first) for the other padding modes, as PyTorch's
        if padding == "same":
            pads = [(dl * (k - 1) // 2, dl * (k - 1) - dl * (k - 1) // 2) for dl, k in zip(self.dilation, kernel)]
        elif isinstance(padding, str):
            pads = [(0, 0)] * d
        else:
            pads = [(p, p) for p in self.padding]
        self._reversed_padding_repeated_twice = [p for pair in reversed(pads) for p in pair]
        shape = ((in_channels, out_channels // groups) if self.transposed else (out_channels, in_channels // groups))
        fan_in = shape[1] * math.prod(kernel)
        bound = 1.0 / math.sqrt(fan_in) if fan_in else 0.0
        own = overrides_reset(self, _ConvNd) and where is not META      # a subclass's own draws, as PyTorch's
        self.weight = uniform_parameter(bound, shape + kernel, dtype, where, draw=not own)
        self.register_parameter("bias", uniform_parameter(bound, (out_channels,), dtype, where, draw=not own)
                                if bias else None)
        if own:
            self.reset_parameters()

    def reset_parameters(self):
        """The weight and bias drawn again from U(-1/√fan_in, 1/√fan_in), in place."""
        redraw_uniform(self, fan_in_bound(self.weight))

    def forward(self, x):
        if self.padding_mode != "zeros":
            return type(self).function(F.pad(x, self._reversed_padding_repeated_twice, mode=self.padding_mode),
                                       self.weight, self.bias, self.stride, 0, self.dilation, self.groups)
        if self.transposed:
            return type(self).function(x, self.weight, self.bias, self.stride, self.padding, self.output_padding,
                                       self.groups, self.dilation)
        return type(self).function(x, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)

    def extra_repr(self):
        zeros = (0,) * self.dims
        return (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
                + (f", padding={self.padding}" if self.padding != zeros else "")
                + (f", dilation={self.dilation}" if self.dilation != (1,) * self.dims else "")
                + (f", output_padding={self.output_padding}" if self.output_padding != zeros else "")
                + (f", groups={self.groups}" if self.groups != 1 else "")
                + (", bias=False" if self.bias is None else "")
                + (f", padding_mode={self.padding_mode}" if self.padding_mode != "zeros" else ""))


class Conv1d(_ConvNd):
    """1-d convolution over (N, C, L) inputs (F.conv1d)."""
    dims, function = 1, staticmethod(F.conv1d)


class Conv2d(_ConvNd):
    """2-d convolution over (N, C, H, W) inputs (F.conv2d).

    >>> from diffcompare import autograd as ag
    >>> conv = ag.nn.Conv2d(3, 8, 3, padding=1)
    >>> conv(ag.randn(2, 3, 5, 5)).shape
    torch.Size([2, 8, 5, 5])
    """
    dims, function = 2, staticmethod(F.conv2d)


class Conv3d(_ConvNd):
    """3-d convolution over (N, C, D, H, W) inputs (F.conv3d)."""
    dims, function = 3, staticmethod(F.conv3d)


class _ConvTransposeNd(_ConvNd):
    transposed = True

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
                         padding_mode, device, dtype, output_padding)

    def forward(self, x, output_size=None):
        if output_size is not None:
            raise NotImplementedError("ConvTranspose's output_size argument is not implemented")
        return super().forward(x)


class ConvTranspose1d(_ConvTransposeNd):
    """1-d transposed convolution (F.conv_transpose1d)."""
    dims, function = 1, staticmethod(F.conv_transpose1d)


class ConvTranspose2d(_ConvTransposeNd):
    """2-d transposed convolution (F.conv_transpose2d)."""
    dims, function = 2, staticmethod(F.conv_transpose2d)


class ConvTranspose3d(_ConvTransposeNd):
    """3-d transposed convolution (F.conv_transpose3d)."""
    dims, function = 3, staticmethod(F.conv_transpose3d)


class _LazyConv:
    """A convolution whose ``in_channels`` is the channel count of its first input: nothing is
    drawn until then; then its weight and bias are drawn as the eager layer's constructor draws
    them, into the same Parameter objects, and it becomes that layer, as PyTorch's lazy
    modules do.

    >>> from diffcompare import autograd as ag
    >>> m = ag.nn.LazyConv2d(4, 3, padding=1)
    >>> m(ag.ones(2, 3, 5, 5)).shape, m
    (torch.Size([2, 4, 5, 5]), Conv2d(3, 4, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1)))
    """

    eager = None        # the layer it becomes

    def __init__(self, out_channels, kernel_size, *args, bias=True, device=None, dtype=None, **kwargs):
        Module.__init__(self)
        self.in_channels, self.out_channels = 0, out_channels
        self._factory = (kernel_size, args, dict(kwargs, bias=bias, device=device, dtype=dtype))
        dtype = np.dtype(dtype) if dtype is not None else default_dtype()
        self.weight = Parameter(np.zeros(0, dtype))
        self.register_parameter("bias", Parameter(np.zeros(0, dtype)) if bias else None)

    def forward(self, x):
        kernel_size, args, kwargs = self._factory
        cls = self.eager
        eager = cls.__new__(cls)
        cls.__init__(eager, x.shape[1] if x.ndim > cls.dims + 1 else x.shape[0], self.out_channels, kernel_size,
                     *args, **kwargs)
        for name in ("weight", "bias"):
            if getattr(self, name) is not None:
                getattr(self, name)._data = getattr(eager, name)._data
        for name, value in vars(eager).items():
            if name not in self._parameters and (name[0] != "_" or name == "_reversed_padding_repeated_twice"):
                self.__dict__[name] = value
        del self._factory
        self.__class__ = cls
        return cls.forward(self, x)


def _lazy(eager):
    return type(f"Lazy{eager.__name__}", (_LazyConv, eager), {"eager": eager, "__doc__": _LazyConv.__doc__})


LazyConv1d, LazyConv2d, LazyConv3d = _lazy(Conv1d), _lazy(Conv2d), _lazy(Conv3d)
LazyConvTranspose1d, LazyConvTranspose2d, LazyConvTranspose3d = (_lazy(ConvTranspose1d), _lazy(ConvTranspose2d),
                                                                 _lazy(ConvTranspose3d))


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
                 device=None, dtype=None, *, bias=True):
        super().__init__()
        where = resolve_device(device, meta=True)
        dtype = np.dtype(dtype) if dtype is not None else default_dtype()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        if affine:
            self.weight = Parameter(np.ones(num_features, dtype=dtype))
            self.register_parameter("bias", Parameter(np.zeros(num_features, dtype=dtype)) if bias else None)
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
                    to_meta(t)

    def reset_running_stats(self):
        reset_running_stats(self)

    def reset_parameters(self):
        """The running statistics reset, the weight ones and the bias zeros, as PyTorch's."""
        reset_running_stats(self)
        reset_affine(self)

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
                f"bias={self.bias is not None}, track_running_stats={self.track_running_stats}")


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


class BatchNorm3d(_BatchNorm):
    """Batch normalisation of (N, C, D, H, W) inputs."""

    def _check_input_dim(self, x):
        if x.ndim != 5:
            raise ValueError(f"expected 5D input (got {x.ndim}D input)")


class SyncBatchNorm(_BatchNorm):
    """Batch normalisation synchronised across the processes of a distributed job. Without
    one (the engine runs in one process: distributed training is out of scope) it is the
    batch normalisation of the inputs it is given, as PyTorch's is when no process group is
    initialised.

    >>> from diffcompare import autograd as ag
    >>> net = ag.nn.SyncBatchNorm.convert_sync_batchnorm(ag.nn.Sequential(ag.nn.Linear(2, 3), ag.nn.BatchNorm1d(3)))
    >>> type(net[1]).__name__, net[1].num_features
    ('SyncBatchNorm', 3)
    """

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 process_group=None, device=None, dtype=None, *, bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias)
        self.process_group = process_group

    def _check_input_dim(self, x):
        if x.ndim < 2:
            raise ValueError(f"expected at least 2D input (got {x.ndim}D input)")

    def forward(self, x):
        self._check_input_dim(x)
        if x.shape[1] == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")
        return _BatchNorm.forward(self, x)

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        """``module`` with every batch normalisation layer in it replaced by a SyncBatchNorm
        sharing its parameters and running statistics (a new layer when ``module`` is one)."""
        output = module
        if isinstance(module, _BatchNorm):
            output = cls(module.num_features, module.eps, module.momentum, module.affine,
                         module.track_running_stats, process_group, bias=module.bias is not None)
            if module.affine:
                with no_grad():
                    output.weight = module.weight
                    output.bias = module.bias
            output.running_mean = module.running_mean
            output.running_var = module.running_var
            output.num_batches_tracked = module.num_batches_tracked
            output.training = module.training
            if hasattr(module, "qconfig"):
                output.qconfig = module.qconfig
        for name, child in module.named_children():
            output.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return output


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
    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, x):
        return x.relu_() if self.inplace else ops.relu(x)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


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

    def insert(self, index, module):
        """``module`` put at position ``index`` (the ones after it move up one)."""
        if not isinstance(module, Module):
            raise AssertionError(f"module should be of type: {Module}")
        n = len(self._modules)
        if not -n <= index <= n:
            raise IndexError(f"Index out of range: {index}")
        index = index + n if index < 0 else index
        modules = list(self._modules.values())
        modules.insert(index, module)
        self._modules.clear()
        for i, m in enumerate(modules):
            self.add_module(str(i), m)
        return self

    def extend(self, sequential):
        """Every module of ``sequential`` appended, in order."""
        for module in sequential:
            self.append(module)
        return self


class _Loss(Module):
    """A loss module: ``reduction`` ('none', 'mean' or 'sum'), or PyTorch's legacy
    ``size_average``/``reduce`` turned into one (with PyTorch's warning)."""

    def __init__(self, size_average=None, reduce=None, reduction="mean"):
        super().__init__()
        # kept as given ('elementwise_mean' too, as PyTorch keeps it): the loss reads it when called
        self.reduction = F._legacy_reduction(size_average, reduce, reduction, named=False)


class _WeightedLoss(_Loss):
    """A loss with per-class ``weight``, a buffer (in ``state_dict`` when given), as PyTorch's."""

    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)


class MSELoss(_Loss):
    def forward(self, input, target):
        return F.mse_loss(input, target, reduction=self.reduction)


class CrossEntropyLoss(_WeightedLoss):
    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
                 label_smoothing=0.0):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index, self.label_smoothing = ignore_index, label_smoothing

    def forward(self, input, target):
        return F.cross_entropy(input, target, self.weight, ignore_index=self.ignore_index, reduction=self.reduction,
                               label_smoothing=self.label_smoothing)


class NLLLoss(_WeightedLoss):
    """Negative log-likelihood of log-probabilities (``F.nll_loss``)."""

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input, target):
        return F.nll_loss(input, target, self.weight, ignore_index=self.ignore_index, reduction=self.reduction)


NLLLoss2d = NLLLoss     # PyTorch's older name, kept as a subclass there; the same loss


class BCEWithLogitsLoss(_Loss):
    """Binary cross-entropy of logits; ``weight`` and ``pos_weight`` are buffers, as PyTorch's."""

    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean", pos_weight=None):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input, target):
        return F.binary_cross_entropy_with_logits(input, target, self.weight, pos_weight=self.pos_weight,
                                                  reduction=self.reduction)


class LinearCrossEntropyLoss(_WeightedLoss):
    """Cross-entropy of the logits of an inner ``Linear`` (``self.linear``, its weight kept flat as
    (C * prod(out_features), in_features)) against ``target`` (``F.linear_cross_entropy``).

    >>> from diffcompare import autograd as ag
    >>> loss = ag.nn.LinearCrossEntropyLoss(5, 10, out_features=(4,), bias=True)
    >>> loss.linear.weight.shape, loss(ag.randn(2, 5), ag.zeros(2, 4, dtype=ag.int64)).grad_fn.name()
    (torch.Size([40, 5]), 'NllLoss2DBackward0')
    """

    def __init__(self, in_features, num_classes, *, out_features=(), bias=False, device=None, dtype=None,
                 reduction="mean", weight=None, ignore_index=None, label_smoothing=0.0, options=None):
        if weight is not None and tuple(weight.shape) != (num_classes,):
            raise RuntimeError(f"expected weight shape to be {(num_classes,)}, got {tuple(weight.shape)}")
        if label_smoothing < 0 or label_smoothing > 1.0:
            raise RuntimeError(f"expected label_smoothing to be in range [0, 1], got {label_smoothing}")
        super().__init__(weight=weight, reduction=reduction)
        self.num_classes, self.out_features = num_classes, tuple(out_features)
        self.ignore_index, self.label_smoothing, self.options = ignore_index, label_smoothing, options
        self.linear = Linear(in_features, math.prod(out_features, start=num_classes), bias=bias, device=device,
                             dtype=dtype)

    def forward(self, input, target):
        linear_weight = self.linear.weight.reshape((self.num_classes, *self.out_features, self.linear.in_features))
        bias = self.linear.bias
        linear_bias = bias.reshape((self.num_classes, *self.out_features)) if bias is not None else None
        return F.linear_cross_entropy(input, linear_weight, target, linear_bias=linear_bias, weight=self.weight,
                                      reduction=self.reduction, ignore_index=self.ignore_index,
                                      label_smoothing=self.label_smoothing, options=self.options)

    def extra_repr(self):
        return (f"in_features={self.linear.in_features}, num_classes={self.num_classes}, "
                f"out_features={self.out_features}, bias={self.linear.bias is not None}, "
                f"reduction={self.reduction}, ignore_index={self.ignore_index}, "
                f"label_smoothing={self.label_smoothing}, options={self.options}")


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


class TripletMarginWithDistanceLoss(_Loss):
    """``F.triplet_margin_with_distance_loss`` as a module (a distance of the caller's)."""

    def __init__(self, *, distance_function=None, margin=1.0, swap=False, reduction="mean"):
        super().__init__(size_average=None, reduce=None, reduction=reduction)
        if margin <= 0:
            raise ValueError(f"TripletMarginWithDistanceLoss: expected margin to be greater than 0, got {margin} "
                             "instead")
        self.distance_function = distance_function if distance_function is not None else F.pairwise_distance
        self.margin, self.swap = margin, swap

    def forward(self, anchor, positive, negative):
        return F.triplet_margin_with_distance_loss(anchor, positive, negative, distance_function=self.distance_function,
                                                   margin=self.margin, swap=self.swap, reduction=self.reduction)


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


class Unflatten(Module):
    """Dimension ``dim`` split into ``unflattened_size`` (``Tensor.unflatten``)."""

    def __init__(self, dim, unflattened_size):
        super().__init__()
        self.dim, self.unflattened_size = dim, unflattened_size

    def forward(self, input):
        return input.unflatten(self.dim, self.unflattened_size)

    def extra_repr(self):
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"


class Bilinear(Module):
    """y = x1ᵀ A x2 + b (``F.bilinear``), A (out, in1, in2) and b drawn from U(-1/√in1, 1/√in1)."""

    def __init__(self, in1_features, in2_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        where = resolve_device(device, meta=True)
        self.in1_features, self.in2_features, self.out_features = in1_features, in2_features, out_features
        bound = 1.0 / math.sqrt(in1_features) if in1_features else 0.0
        self.weight = uniform_parameter(bound, (out_features, in1_features, in2_features), dtype, where)
        self.register_parameter("bias", uniform_parameter(bound, (out_features,), dtype, where) if bias else None)

    def reset_parameters(self):
        """A and b drawn again from U(-1/√in1, 1/√in1), in place."""
        redraw_uniform(self, 1.0 / math.sqrt(self.weight.shape[1]) if self.weight.shape[1] else 0.0)

    def forward(self, input1, input2):
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self):
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")


class AlphaDropout(Dropout):
    """Alpha dropout in training (``F.alpha_dropout``), the identity in evaluation."""

    def forward(self, x):
        return F.alpha_dropout(x, self.p, self.training)


class FeatureAlphaDropout(Dropout):
    """Alpha dropout of whole channels in training (``F.feature_alpha_dropout``)."""

    def forward(self, x):
        return F.feature_alpha_dropout(x, self.p, self.training)


class CTCLoss(_Loss):
    """The connectionist temporal classification loss (``F.ctc_loss``)."""

    def __init__(self, blank=0, reduction="mean", zero_infinity=False):
        super().__init__(reduction=reduction)
        self.blank, self.zero_infinity = blank, zero_infinity

    def forward(self, log_probs, targets, input_lengths, target_lengths):
        return F.ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank, self.reduction,
                          self.zero_infinity)


# attention and the Transformer (built from Linear and Dropout above; their functions also in F)
from . import attention, transformer  # noqa: E402
from .attention import MultiheadAttention  # noqa: E402,F401
from .transformer import *  # noqa: E402,F401,F403  (Transformer, its encoder and decoder and their layers)
attention.use_layers(Linear=Linear, Dropout=Dropout)
functional.scaled_dot_product_attention = attention.scaled_dot_product_attention
functional.multi_head_attention_forward = attention.multi_head_attention_forward
functional._canonical_mask, functional._none_or_dtype = attention.canonical_mask, attention.none_or_dtype
from . import parameter  # noqa: E402,F401  (torch.nn.parameter.Buffer as an attribute path)
from . import modules  # noqa: E402  (torch.nn.modules and its submodules: nn's classes where PyTorch defines them)
modules.install(globals(), NonDynamicallyQuantizableLinear=attention.NonDynamicallyQuantizableLinear)
