"""Sampling an image at arbitrary places: ``affine_grid_generator`` (the grid of an affine
map, ``AffineGridGeneratorBackward0``) and ``grid_sampler`` (``GridSampler2DBackward0``,
``GridSampler3DBackward0``) with bilinear (trilinear), nearest and bicubic interpolation and
zeros, border and reflection padding, as PyTorch's ``grid_sampler_2d``/``3d`` compute them.

Each output place reads a few input places (taps) with weights that are products of one
factor per axis; the factor depends on the place's fractional position ``t`` along that axis.
The backward scatters the gradient to the input through those taps and sends the grid the
derivative of the weights; it is written with operations that serve arrays and tensors alike,
so ``create_graph=True`` differentiates it again.

>>> from diffcompare import autograd as ag
>>> image = ag.tensor([[[[0.0, 1.0], [2.0, 3.0]]]], requires_grad=True)
>>> grid = ag.tensor([[[[0.0, 0.0], [1.0, -1.0]]]], requires_grad=True)   # x, y in [-1, 1]
>>> y = ag.grid_sampler(image, grid, 0, 1, True)     # bilinear, border, align_corners
>>> y, y.grad_fn.name()
(tensor([[[[1.5000, 1.0000]]]], grad_fn=<GridSampler2DBackward0>), 'GridSampler2DBackward0')
"""

from __future__ import annotations

import numpy as np

from ..fused import fused_multiply_add
from ..tensor import Tensor, linspace_array, scalar_name
from .dual import D
from .indexing import add_at, index_add_zeros
from .recording import Op, apply, array_of
from .resampling import CUBIC_A, cubic_coefficients

MODES = ("bilinear", "nearest", "bicubic")
PADDINGS = ("zeros", "border", "reflection")


# -- affine grids -------------------------------------------------------------------------------

def _base_axis(steps, align_corners, dtype):
    """PyTorch's ``linspace_from_neg_one``: the normalised centres of ``steps`` places."""
    if steps <= 1:
        return np.zeros(1, dtype=dtype)
    line = linspace_array(-1.0, 1.0, steps, dtype)
    return line if align_corners else line * dtype.type(steps - 1) / dtype.type(steps)


def _base_grid(spatial, align_corners, dtype):
    """The (prod(spatial), d + 1) rows ``(x, y[, z], 1)`` of every output place, x fastest."""
    axes = [_base_axis(n, align_corners, dtype) for n in spatial]
    mesh = np.meshgrid(*axes, indexing="ij")             # (D,) H, W
    columns = [m.reshape(-1) for m in reversed(mesh)]     # x, y[, z]
    return np.stack(columns + [np.ones(columns[0].shape, dtype=dtype)], 1)


class AffineGridGeneratorBackward0(Op):
    """``grid = base @ theta^T`` for every batch element: the VJP is ``(base^T g)^T``."""

    @staticmethod
    def forward(theta, base, out_shape):
        return (base @ np.swapaxes(theta, -1, -2)).reshape(out_shape)

    def backward(self, g):
        n, d = self.out_shape[0], self.out_shape[-1]
        return ((self.base.T @ g.reshape((n, -1, d))).swapaxes(-1, -2),)

    tangent = "linear"


def affine_grid_generator(theta, size, align_corners):
    """The sampling grid (N, H, W, 2) or (N, D, H, W, 3) of the affine maps ``theta`` (N, 2, 3)
    or (N, 3, 4), as ``torch.affine_grid_generator`` (what ``F.affine_grid`` calls)."""
    size = [int(s) for s in size]
    spatial = size[2:]
    d = len(spatial)
    if theta.shape[0] != size[0]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{size[0]}, {d + 1}] "
                           f"but got: [{theta.shape[0]}, {theta.shape[-1]}].")
    base = _base_grid(spatial, align_corners, np.dtype(array_of(theta).dtype))
    return apply(AffineGridGeneratorBackward0, (theta,), {"base": base, "out_shape": (size[0], *spatial, d)})


# -- sampling -----------------------------------------------------------------------------------

def _reflect(x, low2, high2):
    """PyTorch's ``reflect_coordinates`` of the array ``x`` between ``low2 / 2`` and ``high2 / 2``,
    and the slope (+1 or -1) of the reflection at each place."""
    if low2 == high2:
        return np.zeros_like(x), np.zeros_like(x)
    low, span = low2 / 2, (high2 - low2) / 2
    inside = x - low
    sign = np.where(inside < 0, -1.0, 1.0)
    inside = np.abs(inside)
    extra = np.fmod(inside, span)
    even = np.floor(inside / span) % 2 == 0
    return np.where(even, extra + low, span - extra + low), np.where(even, sign, -sign)


def _reflect_2d(x, size, align_corners):
    """The 2-d CPU kernel's reflection (``ComputeLocationBase::reflect_coordinates_get_grad``):
    the same places as ``_reflect``, rounded as that kernel rounds them."""
    low, twice_span = (0.0, 2.0 * (size - 1)) if align_corners else (-0.5, 2.0 * size)
    if align_corners and size <= 1:
        return np.zeros_like(x), np.zeros_like(x)
    shifted = x - x.dtype.type(low)
    negative = shifted < 0
    magnitude = np.abs(shifted)
    span = x.dtype.type(twice_span)
    extra = magnitude - np.trunc(magnitude / span) * span
    reflected = span - extra
    flip = extra > reflected
    return np.where(flip, reflected, extra) + x.dtype.type(low), np.where(flip ^ negative, -1.0, 1.0)


def _source(coord, size, padding, align_corners, pad, kernel_2d):
    """The source place of normalised ``coord`` (an array) on an axis of ``size`` places, and
    its slope in ``coord``: PyTorch's ``grid_sampler_compute_source_index`` (padding applied
    when ``pad``; bicubic pads its taps instead), rounded as the 2-d CPU kernel
    (``(c + 1) * (size / 2) - 0.5``, fused) or the 3-d one (``((c + 1) * size - 1) / 2``) rounds:
    where the place lands on a pixel decides which side's slope the grid gets."""
    t = coord.dtype.type
    scale = t((size - 1) / 2) if align_corners else t(size / 2)
    if align_corners:
        x = (coord + 1) * scale if kernel_2d else (coord + 1) / 2 * t(size - 1)
    else:
        x = fused_multiply_add(coord + 1, scale, np.full(coord.shape, -0.5, coord.dtype)) if kernel_2d \
            else ((coord + 1) * t(size) - 1) / 2
    slope = np.full(x.shape, scale, dtype=x.dtype)
    if not pad or padding == "zeros":
        return x, slope
    if padding == "reflection":
        if kernel_2d:
            x, sign = _reflect_2d(x, size, align_corners)
        else:
            x, sign = _reflect(x, 0, 2 * (size - 1)) if align_corners else _reflect(x, -1, 2 * size - 1)
        slope = slope * sign
    inside = (x > 0) & (x < size - 1)          # clip_coordinates: no slope outside, nor on the borders
    return np.clip(x, 0, size - 1), np.where(inside, slope, 0.0).astype(x.dtype)


def _pad_taps(c, size, padding, align_corners):
    """Bicubic's tap places after padding (PyTorch's ``compute_coordinates`` on each tap)."""
    c = c.astype(np.float64)
    if padding == "border":
        c = np.clip(c, 0, size - 1)
    elif padding == "reflection":
        c = (_reflect(c, 0, 2 * (size - 1)) if align_corners else _reflect(c, -1, 2 * size - 1))[0]
        c = np.clip(c, 0, size - 1)
    return c.astype(np.int64)


def _linear_factors(t):
    return [(0, 1 - t, -1.0), (1, t, 1.0)]


def _cubic_factors(t):
    weights, slopes = cubic_coefficients(t), _cubic_slopes(t)
    return [(k - 1, w, s) for k, (w, s) in enumerate(zip(weights, slopes))]


def _cubic_slopes(t, a=CUBIC_A):
    """The derivatives in ``t`` of the four cubic convolution weights."""
    def near(x):
        return (3 * (a + 2) * x - 2 * (a + 3)) * x

    def far(x):
        return (3 * a * x - 10 * a) * x + 8 * a
    return [far(t + 1), near(t), -near(1 - t), -far(2 - t)]


class _Plan:
    """Where each output place of ``grid`` reads: per axis (x, y[, z]) the floor of the source
    place, the slope of the source in the grid coordinate, and the taps."""

    def __init__(self, grid, spatial, mode, padding, align_corners):
        self.axes = []
        for a, size in enumerate(reversed(spatial)):          # grid's last axis: x, y[, z]
            x, slope = _source(grid[..., a], size, padding, align_corners, mode != "bicubic", len(spatial) == 2)
            base = np.rint(x) if mode == "nearest" else np.floor(x)
            self.axes.append((size, base, x - base, x - slope * grid[..., a] - base, slope))
        self.mode, self.padding, self.align_corners = mode, padding, align_corners

    def taps(self, grid):
        """Per tap: (per-axis indices (x, y[, z]), validity, weight, [per-axis weight slopes]);
        the weights are written in ``grid`` (an array or a tensor)."""
        per_axis = []
        for a, (size, base, fraction, offset, slope) in enumerate(self.axes):
            # the fractional place: as computed, or (a tensor grid) in grid's terms, to differentiate
            t = grid[..., a] * slope + offset if isinstance(grid, Tensor) else fraction
            if self.mode == "nearest":
                factors = [(0, None, 0.0)]
            elif self.mode == "bilinear":
                factors = _linear_factors(t)
            else:
                factors = _cubic_factors(t)
            entries = []
            for k, w, s in factors:
                c = (base + k).astype(np.int64)
                if self.mode == "bicubic":
                    c = _pad_taps(c, size, self.padding, self.align_corners)
                valid = (c >= 0) & (c < size)
                entries.append((np.clip(c, 0, size - 1), valid, w, s * slope if w is not None else None))
            per_axis.append(entries)
        result = []
        for combo in np.ndindex(*[len(e) for e in per_axis]):
            chosen = [per_axis[a][k] for a, k in enumerate(combo)]
            valid = np.logical_and.reduce([c[1] for c in chosen])
            weights = [c[2] for c in chosen]
            weight = _product(weights)
            slopes = []
            for a, c in enumerate(chosen):
                if c[3] is None:
                    slopes.append(None)
                else:
                    others = _product([w for b, w in enumerate(weights) if b != a])
                    slopes.append(c[3] if others is None else others * c[3])
            result.append(([c[0] for c in chosen], valid, weight, slopes))
        return result


def _product(factors):
    out = None
    for f in factors:
        if f is not None:
            out = f if out is None else out * f
    return out


def _gather(input, indices):
    """input[n, :, (z,) y, x] for every output place: (N, *out, C)."""
    n = np.arange(input.shape[0]).reshape((-1,) + (1,) * (indices[0].ndim - 1))
    return input[(n, slice(None)) + tuple(reversed(indices))]


def _channels_last(g):
    return D.moveaxis(g, 1, -1)


class GridSampler2DBackward0(Op):
    """``input`` read at the places ``grid`` gives; the VJPs: the gradient scattered back through
    the taps, and for the grid the channel sum of gradient times the weights' slopes."""
    saves = (0, 1)

    @staticmethod
    def forward(input, grid, mode, padding, align_corners):
        plan = _Plan(grid, input.shape[2:], mode, padding, align_corners)
        out = None
        for indices, valid, weight, _ in plan.taps(grid):
            w = valid if weight is None else np.where(valid, weight, 0.0)
            part = _gather(input, indices) * w[..., None]
            out = part if out is None else out + part
        return np.ascontiguousarray(np.moveaxis(out, -1, 1)).astype(input.dtype, copy=False)

    def backward(self, g, input, grid):
        plan = _Plan(array_of(grid), input.shape[2:], self.mode, self.padding, self.align_corners)
        g = _channels_last(g)
        g_input = g_grid = None
        n = np.arange(input.shape[0]).reshape((-1,) + (1,) * (g.ndim - 2))
        d = grid.shape[-1]
        units = np.eye(d, dtype=array_of(grid).dtype)
        tensors = isinstance(g, Tensor) or isinstance(input, Tensor) or isinstance(grid, Tensor)
        if self.needs(0) and not tensors:
            g_input = np.zeros(input.shape, dtype=g.dtype)
        for indices, valid, weight, slopes in plan.taps(grid):
            mask = valid.astype(array_of(g).dtype)
            w = mask if weight is None else weight * mask
            index = (n, slice(None)) + tuple(reversed(indices))
            if self.needs(0):
                part = g * w[..., None]
                if tensors:
                    scattered = index_add_zeros(part, index, input.shape)
                    g_input = scattered if g_input is None else g_input + scattered
                else:
                    add_at(g_input, index, part)
            if self.needs(1) and self.mode != "nearest":
                gv = (g * _gather(input, indices)).sum(-1) * mask
                for a, s in enumerate(slopes):
                    part = (gv * s)[..., None] * units[a]
                    g_grid = part if g_grid is None else g_grid + part
        if self.needs(1) and g_grid is None:
            g_grid = D.zeros_like(grid)
        return g_input, g_grid


class GridSampler3DBackward0(GridSampler2DBackward0):
    pass


def grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners):
    """``torch.grid_sampler``: ``input`` (N, C, H, W) or (N, C, D, H, W) read at ``grid``'s
    normalised places (N, H', W', 2) or (N, D', H', W', 3); the modes as integers
    (bilinear 0, nearest 1, bicubic 2; zeros 0, border 1, reflection 2)."""
    _check(input, grid, interpolation_mode)
    cls = GridSampler2DBackward0 if input.ndim == 4 else GridSampler3DBackward0
    return apply(cls, (input, grid), {"mode": MODES[interpolation_mode], "padding": PADDINGS[padding_mode],
                                      "align_corners": bool(align_corners)})


def _check(input, grid, mode):
    """PyTorch's ``check_grid_sampler_common``/``2d``/``3d``, in its order and words."""
    a, b = array_of(input), array_of(grid)
    if a.dtype != b.dtype:
        raise RuntimeError(f"expected scalar type {scalar_name(a.dtype, True)} but found {scalar_name(b.dtype, True)}")
    sizes = f"input with sizes {list(a.shape)} and grid with sizes {list(b.shape)}"
    if a.ndim and b.ndim and a.shape[0] != b.shape[0]:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, but got {sizes}")
    if b.shape[-1:] != (a.ndim - 2,):
        raise RuntimeError(f"grid_sampler(): expected grid to have size {a.ndim - 2} in last dimension, but got grid "
                           f"with sizes {list(b.shape)}")
    for i in range(2, a.ndim):
        if a.shape[i] == 0:
            raise RuntimeError(f"grid_sampler(): expected input to have non-empty spatial dimensions, but input has "
                               f"sizes {list(a.shape)} with dimension {i} being empty")
    if a.ndim not in (4, 5) or a.ndim != b.ndim:       # the 2-d check for a 4-d input, else the 3-d one
        raise RuntimeError(f"grid_sampler(): expected {4 if a.ndim == 4 else 5}D input and grid with same number "
                           f"of dimensions, but got {sizes}")
    if a.ndim == 5 and mode == 2:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")


PUBLIC = ("affine_grid_generator", "grid_sampler")
# what the family exports to `ops`
__all__ = ["AffineGridGeneratorBackward0", "GridSampler2DBackward0", "GridSampler3DBackward0",
           "affine_grid_generator", "grid_sampler"]
