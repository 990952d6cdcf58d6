"""``torch.nn``'s resampling and rearranging modules: ``Upsample`` (and the deprecated
``UpsamplingNearest2d``/``UpsamplingBilinear2d``), ``PixelShuffle``/``PixelUnshuffle``,
``ChannelShuffle``, ``Fold``/``Unfold`` and the padding modules (zero, constant, reflection,
replication and circular, 1-d to 3-d), each calling its ``nn.functional`` function.

>>> from diffcompare import autograd as ag
>>> m = ag.nn.ReflectionPad1d(2)
>>> m, m(ag.tensor([[[1.0, 2.0, 3.0]]]))
(ReflectionPad1d((2, 2)), tensor([[[3., 2., 1., 2., 3., 2., 1.]]]))
"""

from __future__ import annotations

from . import functional as F
from .module import Module


class Upsample(Module):
    """``F.interpolate`` with the module's size or scale factor, mode and corner alignment."""

    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=None, recompute_scale_factor=None):
        super().__init__()
        self.size, self.mode, self.align_corners = size, mode, align_corners
        self.scale_factor = (tuple(float(f) for f in scale_factor) if isinstance(scale_factor, (tuple, list))
                             else float(scale_factor) if scale_factor is not None else None)
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input):
        return F.interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners,
                             recompute_scale_factor=self.recompute_scale_factor)

    def extra_repr(self):
        info = f"scale_factor={self.scale_factor!r}" if self.scale_factor is not None else f"size={self.size!r}"
        return info + f", mode={self.mode!r}"


class UpsamplingNearest2d(Upsample):
    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)


class PixelShuffle(Module):
    """Channels into an ``upscale_factor`` times larger image (``F.pixel_shuffle``)."""

    def __init__(self, upscale_factor):
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input):
        return F.pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self):
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    """An image folded into more channels (``F.pixel_unshuffle``)."""

    def __init__(self, downscale_factor):
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input):
        return F.pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self):
        return f"downscale_factor={self.downscale_factor}"


class ChannelShuffle(Module):
    """The channels split into ``groups`` groups and interleaved (``F.channel_shuffle``)."""

    def __init__(self, groups):
        super().__init__()
        self.groups = groups

    def forward(self, input):
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self):
        return f"groups={self.groups}"


class Fold(Module):
    """Columns of blocks summed into an image (``F.fold``)."""

    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.output_size, self.kernel_size = output_size, kernel_size
        self.dilation, self.padding, self.stride = dilation, padding, stride

    def forward(self, input):
        return F.fold(input, self.output_size, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self):
        return (f"output_size={self.output_size}, kernel_size={self.kernel_size}, dilation={self.dilation}, "
                f"padding={self.padding}, stride={self.stride}")


class Unfold(Module):
    """An image's sliding blocks as columns (``F.unfold``)."""

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.kernel_size, self.dilation, self.padding, self.stride = kernel_size, dilation, padding, stride

    def forward(self, input):
        return F.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self):
        return (f"kernel_size={self.kernel_size}, dilation={self.dilation}, padding={self.padding}, "
                f"stride={self.stride}")


class _PadNd(Module):
    """``F.pad`` with the module's padding (an int: the same on every side of the last ``dims``
    dimensions) and mode."""
    mode, dims = "constant", 1

    def __init__(self, padding, value=None):
        super().__init__()
        self.padding = tuple(padding) if isinstance(padding, (tuple, list)) else (int(padding),) * (2 * self.dims)
        if len(self.padding) != 2 * self.dims:
            raise ValueError(f"{type(self).__name__}: padding must be an int or a {2 * self.dims}-tuple, got "
                             f"{padding}")
        self.value = value

    def forward(self, input):
        if self.mode == "constant":
            return F.pad(input, self.padding, "constant", self.value)
        return F.pad(input, self.padding, self.mode)

    def extra_repr(self):
        if self.mode == "constant" and type(self).__name__.startswith("Constant"):
            return f"padding={self.padding}, value={self.value}"
        return f"{self.padding}"


def _pad_class(name, mode, dims, constant=False):
    def __init__(self, padding, value=0.0):
        _PadNd.__init__(self, padding, value if constant else 0.0)
    if constant:
        return type(name, (_PadNd,), {"mode": mode, "dims": dims, "__init__": __init__,
                                      "__doc__": f"``F.pad`` of the last {dims} dimension(s) with ``value``."})
    return type(name, (_PadNd,), {"mode": mode, "dims": dims,
                                  "__init__": lambda self, padding: _PadNd.__init__(self, padding, 0.0),
                                  "__doc__": f"``F.pad`` of the last {dims} dimension(s), mode {mode!r}."})


_MODES = {"Zero": "constant", "Reflection": "reflect", "Replication": "replicate", "Circular": "circular"}
__all__ = ["ChannelShuffle", "Fold", "PixelShuffle", "PixelUnshuffle", "Unfold", "Upsample", "UpsamplingBilinear2d",
           "UpsamplingNearest2d"]
for _kind, _mode in _MODES.items():
    for _d in (1, 2, 3):
        globals()[f"{_kind}Pad{_d}d"] = _pad_class(f"{_kind}Pad{_d}d", _mode, _d)
        __all__.append(f"{_kind}Pad{_d}d")
for _d in (1, 2, 3):
    globals()[f"ConstantPad{_d}d"] = _pad_class(f"ConstantPad{_d}d", "constant", _d, constant=True)
    __all__.append(f"ConstantPad{_d}d")
for _cls in [globals()[n] for n in __all__ if "Pad" in n]:
    _cls.__module__ = __name__
