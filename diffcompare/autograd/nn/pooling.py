"""``torch.nn``'s pooling modules beyond MaxPool2d, AvgPool2d and AdaptiveAvgPool2d: max, average,
adaptive, power-average and fractional pooling of every rank, and max unpooling; each calls its
``nn.functional`` function with its arguments.

>>> from diffcompare import autograd as ag
>>> m = ag.nn.MaxPool1d(2)
>>> m, m(ag.tensor([[[1.0, 3.0, 2.0, 0.0]]]))
(MaxPool1d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False), tensor([[[3., 2.]]]))
"""

from __future__ import annotations

from . import functional as F
from .module import Module


def _expand(value, d):
    """An int or a sequence as a tuple of ``d`` ints, as the modules that store tuples keep it."""
    return tuple(value) if isinstance(value, (tuple, list)) else (value,) * d


class _MaxPoolNd(Module):
    function = None

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False):
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride if stride is not None else kernel_size, padding
        self.dilation, self.return_indices, self.ceil_mode = dilation, return_indices, ceil_mode

    def forward(self, input):
        return type(self).function(input, self.kernel_size, self.stride, self.padding, self.dilation,
                                   ceil_mode=self.ceil_mode, return_indices=self.return_indices)

    def extra_repr(self):
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class MaxPool1d(_MaxPoolNd):
    """1-d max pooling (``F.max_pool1d``)."""
    function = staticmethod(F.max_pool1d)


class MaxPool3d(_MaxPoolNd):
    """3-d max pooling (``F.max_pool3d``, MaxPool3DWithIndicesBackward0)."""
    function = staticmethod(F.max_pool3d)


class AvgPool1d(Module):
    """1-d average pooling (``F.avg_pool1d``)."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
        super().__init__()
        self.kernel_size, self.padding = _expand(kernel_size, 1), _expand(padding, 1)
        self.stride = _expand(stride if stride is not None else kernel_size, 1)
        self.ceil_mode, self.count_include_pad = ceil_mode, count_include_pad

    def forward(self, input):
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode, self.count_include_pad)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool3d(Module):
    """3-d average pooling (``F.avg_pool3d``, AvgPool3DBackward0)."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
                 divisor_override=None):
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride if stride is not None else kernel_size, padding
        self.ceil_mode, self.count_include_pad, self.divisor_override = ceil_mode, count_include_pad, divisor_override

    def forward(self, input):
        return F.avg_pool3d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode, self.count_include_pad,
                            self.divisor_override)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class _AdaptivePool(Module):
    function = None

    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size, self.return_indices = output_size, return_indices

    def forward(self, input):
        if self.return_indices:
            return type(self).function(input, self.output_size, self.return_indices)
        return type(self).function(input, self.output_size)

    def extra_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_AdaptivePool):
    function = staticmethod(F.adaptive_avg_pool1d)

    def __init__(self, output_size):
        super().__init__(output_size)


class AdaptiveAvgPool3d(AdaptiveAvgPool1d):
    function = staticmethod(F.adaptive_avg_pool3d)


class AdaptiveMaxPool1d(_AdaptivePool):
    function = staticmethod(F.adaptive_max_pool1d)


class AdaptiveMaxPool2d(_AdaptivePool):
    function = staticmethod(F.adaptive_max_pool2d)


class AdaptiveMaxPool3d(_AdaptivePool):
    function = staticmethod(F.adaptive_max_pool3d)


class _LPPool(Module):
    function = None

    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type, self.kernel_size, self.stride, self.ceil_mode = norm_type, kernel_size, stride, ceil_mode

    def forward(self, input):
        return type(self).function(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)

    def extra_repr(self):
        return (f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, stride={self.stride}, "
                f"ceil_mode={self.ceil_mode}")


class LPPool1d(_LPPool):
    """The p-norm of each window (``F.lp_pool1d``)."""
    function = staticmethod(F.lp_pool1d)


class LPPool2d(_LPPool):
    function = staticmethod(F.lp_pool2d)


class LPPool3d(_LPPool):
    function = staticmethod(F.lp_pool3d)


class _FractionalMaxPool(Module):
    function, dims = None, 2

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices=False, _random_samples=None):
        super().__init__()
        self.kernel_size, self.output_size, self.output_ratio = kernel_size, output_size, output_ratio
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        if output_size is None and output_ratio is None:
            raise ValueError(f"FractionalMaxPool{self.dims}d requires specifying either an output size, or a pooling "
                             f"ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if output_ratio is not None:
            ratios = output_ratio if isinstance(output_ratio, (tuple, list)) else (output_ratio,) * self.dims
            if not all(0 < r < 1 for r in ratios):
                raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input):
        return type(self).function(input, self.kernel_size, self.output_size, self.output_ratio, self.return_indices,
                                   _random_samples=self._random_samples)


class FractionalMaxPool2d(_FractionalMaxPool):
    """Fractional max pooling (``F.fractional_max_pool2d``)."""
    function, dims = staticmethod(F.fractional_max_pool2d), 2


class FractionalMaxPool3d(_FractionalMaxPool):
    function, dims = staticmethod(F.fractional_max_pool3d), 3


class _MaxUnpool(Module):
    function, dims = None, 1

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        d = self.dims
        self.kernel_size, self.padding = _expand(kernel_size, d), _expand(padding, d)
        self.stride = _expand(stride if stride is not None else kernel_size, d)

    def forward(self, input, indices, output_size=None):
        return type(self).function(input, indices, self.kernel_size, self.stride, self.padding, output_size)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpool):
    """The inverse of MaxPool1d given its indices (``F.max_unpool1d``)."""
    function = staticmethod(F.max_unpool1d)


class MaxUnpool2d(_MaxUnpool):
    function, dims = staticmethod(F.max_unpool2d), 2


class MaxUnpool3d(_MaxUnpool):
    function, dims = staticmethod(F.max_unpool3d), 3


__all__ = ["AdaptiveAvgPool1d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AdaptiveMaxPool3d",
           "AvgPool1d", "AvgPool3d", "FractionalMaxPool2d", "FractionalMaxPool3d", "LPPool1d", "LPPool2d", "LPPool3d",
           "MaxPool1d", "MaxPool3d", "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d"]
