"""Order statistics and counts: ``quantile``, ``nanquantile`` (as PyTorch composes them: a sort,
two gathers at the ranks below and above ``q (n - 1)``, a ``lerp`` between them), ``mode`` (the
most frequent value, ModeBackward0), ``bincount`` and ``histogram``.

>>> from diffcompare import autograd as ag
>>> x = ag.tensor([[1.0, 4.0, 2.0, 8.0]], requires_grad=True)
>>> ag.quantile(x, 0.5, dim=1)
tensor([3.], grad_fn=<SqueezeBackward4>)
>>> ag.quantile(x, 0.5, dim=1).sum().backward()
>>> x.grad
tensor([[0.0000, 0.5000, 0.5000, 0.0000]])
"""

from __future__ import annotations

import builtins
import numbers

import numpy as np

from ..return_types import return_type
from ..tensor import Tensor, linspace_array
from .recording import check_dim
from .reductions import MaxBackward0, reduction
from .scattering import not_differentiable

INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _checked_q(input, q):
    """``q`` as a 1-d array and whether it was a scalar, with PyTorch's checks."""
    if isinstance(q, Tensor):
        if q.ndim > 1:
            raise RuntimeError("quantile() q must be a scalar or 1D tensor")
        if q.dtype != input.dtype:
            raise RuntimeError("quantile() q tensor must be same dtype as the input tensor")
        values, scalar = q._data.reshape(-1), q.ndim == 0
    elif isinstance(q, numbers.Real):
        values, scalar = np.array([q], dtype=input.dtype), True
    else:
        raise TypeError(f"quantile(): argument 'q' must be float or Tensor, not {type(q).__name__}")
    if values.size and not ((values >= 0) & (values <= 1)).all():
        if scalar:
            raise RuntimeError(f"quantile() q must be in the range [0, 1] but got {float(values[0])}")
        raise RuntimeError("quantile() q values must be in the range [0, 1]")
    return values, scalar


def _quantile(input, q, dim, keepdim, interpolation, ignore_nan):
    name = "nanquantile" if ignore_nan else "quantile"
    if input.dtype.kind != "f":
        raise RuntimeError(f"{name}() input tensor must be either float or double dtype")
    if interpolation not in INTERPOLATIONS:
        raise RuntimeError(f"{name}() interpolation must be one of linear, lower, higher, midpoint or nearest, "
                           f"but got {interpolation}")
    if input.numel() == 0:
        raise RuntimeError(f"{name}() input tensor must be non-empty")
    qs, scalar = _checked_q(input, q)
    shape = tuple(input.shape)
    if dim is None:
        ordered = input.flatten().sort()[0]
        kept = (1,) * len(shape) if keepdim else ()
    else:
        d = check_dim(dim, input.ndim)
        ordered = (input if d == input.ndim - 1 else input.unsqueeze(-1).transpose(d, -1)).sort()[0]
        kept = shape[:d] + ((1,) if keepdim else ()) + shape[d + 1:]
    n = ordered.shape[-1]
    ordered = ordered.view(*kept, n)
    data = ordered._data
    nan = np.isnan(data)
    if ignore_nan:      # ranks among the values that are not NaN; a row of NaN gets rank 0 (a NaN)
        ranks = qs * (np.count_nonzero(~nan, axis=-1)[..., None] - 1).astype(data.dtype)
        ranks = np.where(ranks < 0, 0, ranks)
    else:               # a row with a NaN gets the last rank (a NaN, sorted last)
        ranks = np.where(nan.any(axis=-1, keepdims=True), n - 1, qs * (n - 1)).astype(data.dtype)
    if interpolation == "lower":
        ranks = np.floor(ranks)
    elif interpolation == "higher":
        ranks = np.ceil(ranks)
    elif interpolation == "nearest":
        ranks = np.round(ranks)             # half to even, as torch.round
    below = ranks.astype(np.int64)
    values = ordered.gather(-1, Tensor._make(below))
    if interpolation in ("linear", "midpoint"):
        weights = np.full_like(ranks, 0.5) if interpolation == "midpoint" else ranks - below
        above = ordered.gather(-1, Tensor._make(np.ceil(ranks).astype(np.int64)))
        values = values.lerp(above, Tensor._make(weights))
    if scalar:
        return values.squeeze_(-1)
    return values.unsqueeze_(0).transpose_(0, -1).squeeze_(-1)


def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """The ``q``-quantiles of ``input`` (all of it, or along ``dim``), as ``torch.quantile``:
    ``q`` a number or a 1-d tensor (its quantiles first in the result); a row with a NaN gives
    NaN; ``interpolation`` between the two nearest ranks: linear, lower, higher, midpoint or
    nearest.

    >>> from diffcompare import autograd as ag
    >>> ag.quantile(ag.tensor([0.0, 1.0, 2.0, 3.0]), ag.tensor([0.25, 0.5]))
    tensor([0.7500, 1.5000])
    """
    return _quantile(input, q, dim, keepdim, interpolation, False)


def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """``quantile`` ignoring NaN: the ranks count the values that are not NaN (a row of NaN alone
    gives NaN)."""
    return _quantile(input, q, dim, keepdim, interpolation, True)


class ModeBackward0(MaxBackward0):
    """The most frequent value along a dim: the gradient goes to the index returned."""


ModeResult = return_type("mode", ["values", "indices"])


def _mode_rows(rows):
    """For each row: (the most frequent value, the smallest of them on a tie; the last index
    where it stands), as PyTorch's CPU kernel gives."""
    values = np.empty(rows.shape[0], rows.dtype)
    indices = np.empty(rows.shape[0], np.int64)
    for i, row in enumerate(rows):
        distinct, counts = np.unique(row, return_counts=True)
        if distinct.size == 0:
            raise IndexError("mode(): Expected reduction dim 0 to have non-zero size.")
        value = distinct[int(np.argmax(counts))]           # the first of the most frequent: the smallest
        values[i] = value
        where = np.flatnonzero(row == value) if value == value else np.flatnonzero(row != row)
        indices[i] = where[-1]
    return values, indices


def mode(input, dim=-1, keepdim=False):
    """``(values, indices)``: the most frequent value along ``dim`` (the smallest of several as
    frequent) and the last index where it stands, as ``torch.mode``; the gradient goes to that
    index (ModeBackward0).

    >>> from diffcompare import autograd as ag
    >>> ag.mode(ag.tensor([1.0, 2.0, 2.0, 3.0, 3.0, 1.0]))
    torch.return_types.mode(
    values=tensor(1.),
    indices=tensor(5))
    """
    data = input._data
    d = check_dim(dim, input.ndim)
    if data.ndim == 0:
        index = np.zeros((), np.int64)
        return ModeResult(reduction(ModeBackward0, input.unsqueeze(0), 0, False,
                                     index=index.reshape(1)), Tensor._make(index))
    moved = np.moveaxis(data, d, -1)
    values, indices = _mode_rows(moved.reshape(-1, moved.shape[-1]))
    index = np.expand_dims(indices.reshape(moved.shape[:-1]), d)
    result = reduction(ModeBackward0, input, d, keepdim, index=index)
    return ModeResult(result, Tensor._make(index if keepdim else index.squeeze(d)))


def bincount(input, weights=None, minlength=0):
    """How often each non-negative integer occurs (summing ``weights`` instead when given), as
    ``torch.bincount``."""
    w = None if weights is None else np.asarray(weights._data)
    counts = np.bincount(np.asarray(input._data), weights=w, minlength=minlength)
    return Tensor._make(counts if w is not None else counts.astype(np.int64))


HistogramResult = return_type("histogram", ["hist", "bin_edges"])


def histogram(input, bins=100, *, range=None, weight=None, density=False):  # noqa: A002
    """``(hist, bin_edges)`` of the values, as ``torch.histogram``; PyTorch records a node that
    cannot be differentiated where the input requires grad, and so does the engine."""
    edges = bins._data if isinstance(bins, Tensor) else bins
    w = None if weight is None else weight._data
    hist, found = np.histogram(input._data, edges, range=range, weights=w, density=density)
    sources = (input,) if weight is None else (input, weight)
    return HistogramResult(not_differentiable(sources, hist.astype(input.dtype), "histogram"),
                           not_differentiable(sources, found.astype(input.dtype), "histogram"))


HistogramddResult = return_type("histogramdd", ["hist", "bin_edges"])


def histogramdd(input, bins=10, *, range=None, weight=None, density=False):  # noqa: A002
    """The histogram of the points in ``input``'s rows (its last dimension the coordinates):
    ``(hist, bin_edges)``, one tuple of edges per coordinate, as ``torch.histogramdd``; ``range``
    a flat list of (low, high) pairs. Recorded without a derivative, as PyTorch records it.

    >>> from diffcompare import autograd as ag
    >>> ag.histogramdd(ag.tensor([[0.0, 1.0], [1.0, 0.0], [1.0, 1.0]]), bins=[2, 2]).hist
    tensor([[0., 1.],
            [1., 1.]])
    """
    points = np.asarray(input._data)
    points = points.reshape(-1, points.shape[-1])
    dims = points.shape[1]
    if isinstance(bins, (list, tuple)) and bins and isinstance(bins[0], Tensor):
        edges = [np.asarray(b._data) for b in bins]
    else:       # counts: evenly spaced edges, as PyTorch's linspace places them
        counts = list(bins) if isinstance(bins, (list, tuple)) else [int(bins)] * dims
        pairs = [tuple(range[i:i + 2]) for i in builtins.range(0, len(range), 2)] if range is not None else \
            [(points[:, k].min(), points[:, k].max()) if len(points) else (0.0, 1.0) for k in builtins.range(dims)]
        pairs = [(lo - 0.5, hi + 0.5) if lo == hi else (lo, hi) for lo, hi in pairs]   # one value: a unit-wide range
        edges = [linspace_array(lo, hi, n + 1, points.dtype) for (lo, hi), n in zip(pairs, counts)]
    w = None if weight is None else np.asarray(weight._data).reshape(-1)
    hist, found = np.histogramdd(points, edges, weights=w, density=density)
    sources = (input,) if weight is None else (input, weight)
    return HistogramddResult(not_differentiable(sources, hist.astype(input.dtype), "_histogramdd_from_bin_cts"),
                             tuple(not_differentiable(sources, e.astype(input.dtype), "_histogramdd_bin_edges")
                                   for e in found))


# the torch-level functions of this family (`ag.<name>`, as `torch.<name>`)
PUBLIC = ("bincount", "histogram", "histogramdd", "mode", "nanquantile", "quantile")
# what the family exports to `ops`
__all__ = ["ModeBackward0", *PUBLIC]
