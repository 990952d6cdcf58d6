"""Reductions: sum, mean, prod, max/min, var/std, norm, logsumexp, softmax and log_softmax,
nll_loss, cumsum."""

from __future__ import annotations

import builtins
import math
import warnings

import numpy as np

from ..broadcast import broadcast_view
from ..gradients import IndexedGrad
from ..return_types import return_type
from ..tensor import Tensor
from .dual import D, register
from .forward import log_softmax_tangent, softmax_tangent
from .elementwise import maximum, minimum
from .indexing import index_add_zeros
from .recording import RESULT, Op, apply, array_of, check_dim
from .short_axis import total

_max = builtins.max  # max and min below are ops
# what ndarray.sum, .max and .min call (NumPy's _methods)
_add_reduce, _maximum_reduce, _minimum_reduce = np.add.reduce, np.maximum.reduce, np.minimum.reduce

def _dims(dim, ndim):
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, (list, tuple)):
        return tuple(sorted(check_dim(d, ndim) for d in dim))
    return (check_dim(dim, ndim),)


def _keep_shape(shape, dims):
    return tuple(1 if i in dims else n for i, n in enumerate(shape))



def _lead(g, node):
    """The leading axes of a gradient beyond the reduction's output (a batch of gradients)."""
    out_ndim = len(node.keep_shape) if node.keepdims else \
        len(node.keep_shape) - (len(node.in_shape) if node.axis is None else len(node.axis))
    return tuple(g.shape[:len(g.shape) - out_ndim])


def _expand_back(g, node):
    """Bring a reduced gradient back to the input's shape: re-insert reduced dims, broadcast.
    Leading axes beyond the output's (a batch of gradients) are kept in front."""
    lead = _lead(g, node)
    if g.shape != lead + node.keep_shape:
        if isinstance(g, Tensor) and not node.keepdims and (node.axis is None or not lead):
            # a gradient with history: the ops PyTorch's sum_backward records (expand, after
            # an unsqueeze per reduced dim), so a double backward names the same nodes
            if node.axis is not None:
                for d in sorted(node.axis):
                    g = D.unsqueeze(g, d)
            return D.expand(g, lead + node.in_shape)
        g = g.reshape(lead + node.keep_shape)
    return D.expand(g, lead + node.in_shape)


def reduction(cls, x, dim, keepdim, **extra):
    """``cls`` (a reduction's node) applied to ``x`` over ``dim`` (None: all), its parameters set."""
    return _reduction(cls, x, dim, keepdim, **extra)


def _reduction(cls, x, dim, keepdim, **extra):
    shape = x._data.shape
    if dim is None:     # over everything (the common case)
        params = {"axis": None, "keepdims": keepdim, "in_shape": shape, "keep_shape": (1,) * len(shape)}
    elif dim.__class__ is int and shape and -len(shape) <= dim < len(shape):    # one dim (the next commonest)
        d = dim % len(shape)
        params = {"axis": (d,), "keepdims": keepdim, "in_shape": shape, "keep_shape": shape[:d] + (1,) + shape[d + 1:]}
    else:
        dims = _dims(dim, len(shape))
        params = {"axis": dims, "keepdims": keepdim, "in_shape": shape, "keep_shape": _keep_shape(shape, dims)}
    if extra:
        params.update(extra)
    return apply(cls, (x,), params)


class SumBackward0(Op):
    @staticmethod
    def forward(x, axis, keepdims, in_shape, keep_shape):
        if axis is None and x.__class__ is np.ndarray:      # ndarray.sum's own call, without its frame
            return _add_reduce(x, None, None, None, keepdims)
        # the method, not np.sum: a third of the overhead
        return total(x if x.__class__ is np.ndarray else np.asarray(x), axis, keepdims)

    def backward(self, g):
        if self.axis is None and not self.keepdims and (g.__class__ is np.ndarray or isinstance(g, np.generic)) \
                and not g.ndim:     # a whole sum's gradient: the 0-d g broadcast to the input's shape
            return (broadcast_view(np.asarray(g), self.in_shape),)
        return (_expand_back(g, self),)


class SumBackward1(SumBackward0):
    pass


class MeanBackward0(Op):
    @staticmethod
    def forward(x, axis, keepdims, in_shape, keep_shape):
        return np.asarray(x).mean(axis=axis, keepdims=keepdims)

    def backward(self, g):
        count = math.prod(self.in_shape) // _max(1, math.prod(self.keep_shape))
        if isinstance(g, Tensor):          # with history: expanded, then divided, as PyTorch's mean_backward
            return (_expand_back(g, self) / count,)
        return (_expand_back(g / count, self),)


class MeanBackward1(MeanBackward0):
    pass


class ProdBackward0(Op):
    """Product; zero-safe: with one zero only that element gets a gradient, with two none do."""
    saves = (0, RESULT)

    @staticmethod
    def forward(x, axis, keepdims, in_shape, keep_shape):
        return np.prod(x, axis=axis, keepdims=keepdims)

    def backward(self, g, x, r):
        g = _expand_back(g, self)
        xa = array_of(x)
        if not (xa == 0).any():     # PyTorch's grad * (result / input): its roundings
            return (g * (_expand_back(r, self) / x),)
        if self.axis is None and xa.ndim and g.ndim == xa.ndim:     # flattened, then viewed back, as in PyTorch
            return ((g.reshape(-1) * _prod_of_others(x.reshape(-1), (0,))).reshape(xa.shape),)
        return (g * _prod_of_others(x, self.axis),)


class ProdBackward1(ProdBackward0):
    pass


def _prod_of_others(x, axis):
    """For each element, the product of the other elements along ``axis`` (None: all)."""
    if axis is None:
        flat = x.reshape(-1)
        n = flat.shape[0]
        return _prod_of_others(flat, (0,)).reshape(x.shape) if n else x
    (ax,) = axis
    n = x.shape[ax]
    moved = D.moveaxis(x, ax, -1)
    eye = np.eye(n, dtype=bool)
    # row i of the stack holds x with element i replaced by 1
    stacked = D.where(eye, 1.0, D.unsqueeze(moved, -2))
    others = D.prod(stacked, -1)
    return D.moveaxis(others, -1, ax)


class MaxBackward1(Op):
    """max over all elements (or amax over dims): ties share the gradient evenly."""
    saves = (0, RESULT)

    @staticmethod
    def forward(x, axis, keepdims, in_shape, keep_shape):
        if type(x) is np.ndarray:      # ndarray.max's own call, without its frame: a third of np.max's time
            return _maximum_reduce(x, axis, None, None, keepdims)
        return np.max(x, axis=axis, keepdims=keepdims)

    nan_ties = True     # a NaN result is shared among the NaN elements (PyTorch's evenly_distribute_backward)

    def backward(self, g, x, r):
        x = array_of(x)
        if isinstance(g, np.generic):     # a NumPy scalar, as a 0-d reduction's gradient often is
            g = np.asarray(g)
        if self.axis is None and type(g) is np.ndarray and g.ndim == (x.ndim if self.keepdims else 0) and x.ndim:
            return (self._whole(g.reshape(()), x, array_of(r).reshape(())),)
        r = _expand_back(array_of(r), self)
        mask = x == r
        if self.nan_ties and x.dtype.kind in "fc":
            nan = np.isnan(r)
            if nan.any():
                mask |= nan & np.isnan(x)
        count = np.count_nonzero(mask, axis=self.axis, keepdims=True).astype(x.dtype)
        if type(g) is np.ndarray and self.axis is None and g.size == 1 and count.flat[0] == 1 and x.ndim:
            # one maximum of the whole tensor: the gradient is g there and zero elsewhere,
            # kept lazy so that it is added into the input's other gradient where it meets it
            where = np.unravel_index(int(np.argmax(mask)), x.shape)
            return (IndexedGrad(g.reshape(()).astype(x.dtype, copy=False), where + (Ellipsis,), x.shape),)
        if type(g) is np.ndarray:
            # one pass over the input: mask * (g / count), with g / count on the reduced shape
            return (np.multiply(mask, g.reshape(_lead(g, self) + self.keep_shape) / count, dtype=x.dtype),)
        return (_expand_back(g, self) * (mask / count),)

    def _whole(self, g, x, r):
        """The gradient of the maximum of the whole of ``x`` (``g`` and ``r`` 0-d): g at the
        maximum, lazily (IndexedGrad), when it is unique; else shared evenly by the ties."""
        mask = np.isnan(x) if self.nan_ties and r != r else x == r
        count = np.count_nonzero(mask)
        g = g.astype(x.dtype, copy=False)
        if count == 1:
            i = int(mask.argmax())
            where = np.unravel_index(i, x.shape) if x.ndim > 1 else (i,)
            return IndexedGrad(g, where + (Ellipsis,), x.shape)
        return np.multiply(mask, g / count, dtype=x.dtype)


def _evenly_read_tangent(node, t, x, out):
    """Forward mode of max/amax: the mean of the tangents at the elements equal to the
    result (PyTorch's evenly_read_jvp and amaxamin_jvp; a NaN result equals none: NaN)."""
    x, out = (v._data if isinstance(v, Tensor) else v for v in (x, out))    # the mask is not differentiable
    mask = x == _expand_back(out, node)
    with np.errstate(invalid="ignore", divide="ignore"):
        picked = t * mask.astype(x.dtype) if isinstance(t, Tensor) else np.where(mask, t, 0)
        return picked.sum(axis=node.axis, keepdims=node.keepdims) / \
            np.sum(mask, axis=node.axis, keepdims=node.keepdims)


class MinBackward1(MaxBackward1):
    forward = staticmethod(lambda x, axis, keepdims, in_shape, keep_shape: _minimum_reduce(x, axis, None, None, keepdims)
                           if type(x) is np.ndarray else np.min(x, axis=axis, keepdims=keepdims))


class AmaxBackward0(MaxBackward1):
    nan_ties = False    # PyTorch's amax compares with ==: a NaN result gives NaN gradients


class AminBackward0(MinBackward1):
    nan_ties = False


class MaxBackward0(Op):
    """max/min along a dim: the gradient goes to the one index returned."""
    saves = ("index",)

    @staticmethod
    def forward(x, axis, keepdims, in_shape, keep_shape, index):
        values = np.take_along_axis(x, index, axis=axis[0])
        return values if keepdims else values.squeeze(axis[0])

    def backward(self, g, index):
        ax = self.axis[0]
        positions = np.arange(self.in_shape[ax]).reshape([-1 if i == ax else 1 for i in range(len(self.in_shape))])
        mask = positions == index
        return (_expand_back(g, self) * mask.astype(g.dtype),)


class MinBackward0(MaxBackward0):
    pass


MaxResult = return_type("max", ["values", "indices"])


def _max_min(x, dim, keepdim, largest):
    if isinstance(dim, Tensor):           # max(a, b): elementwise
        return maximum(x, dim) if largest else minimum(x, dim)
    if dim is None:
        if x._data.size == 0:
            raise RuntimeError("max(): Expected reduction dim to be specified for input.numel() == 0.")
        return _reduction(MaxBackward1 if largest else MinBackward1, x, None, False)
    ax = _dims(dim, x.ndim)[0]
    index = (np.argmax if largest else np.argmin)(x._data, axis=ax)
    index = np.expand_dims(index, ax)
    values = _reduction(MaxBackward0 if largest else MinBackward0, x, ax, keepdim, index=index)
    return MaxResult(values, Tensor._make(index if keepdim else index.squeeze(ax)))


def max(x, dim=None, keepdim=False, *, other=None):
    """Largest value; with ``dim`` a (values, indices) pair; with a tensor (or ``other=``),
    elementwise maximum.

    >>> from diffcompare import autograd as ag
    >>> x = ag.tensor([1.0, 3.0, 3.0, 2.0], requires_grad=True)
    >>> x.max().backward()
    >>> x.grad
    tensor([0.0000, 0.5000, 0.5000, 0.0000])
    """
    return _max_min(x, dim if other is None else _other(dim, other, "max"), keepdim, True)


def min(x, dim=None, keepdim=False, *, other=None):
    return _max_min(x, dim if other is None else _other(dim, other, "min"), keepdim, False)


def _other(dim, other, name):
    """``max(x, other=y)``: ``other`` is what the comparison runs against, in ``dim``'s place."""
    if dim is not None:
        raise TypeError(f"{name}() received an invalid combination of arguments: both dim and other")
    return other


def amax(x, dim=None, keepdim=False):
    return _reduction(AmaxBackward0, x, dim, keepdim)


def amin(x, dim=None, keepdim=False):
    return _reduction(AminBackward0, x, dim, keepdim)


class VarBackward0(Op):
    saves = (0,)
    holomorphic = False     # a real result of complex values: the rule is PyTorch's as written

    @staticmethod
    def forward(x, axis, keepdims, in_shape, keep_shape, correction):
        return _spread(np.var, x, axis, keepdims, correction)

    def backward(self, g, x):
        n = math.prod(self.in_shape) // _max(1, math.prod(self.keep_shape))
        centred = x - D.mean(x, self.axis, True)
        # (no degrees of freedom left: 2/0 is inf and the gradient NaN, as in PyTorch)
        return (_expand_back(g, self) * centred * (np.float64(2.0) / (n - self.correction)),)


class StdBackward0(Op):
    """d std = (x - mean) / ((N - correction) std); 0 where std is 0 (a constant input)."""
    saves = (0, RESULT)
    holomorphic = False

    @staticmethod
    def forward(x, axis, keepdims, in_shape, keep_shape, correction):
        return _spread(np.std, x, axis, keepdims, correction)

    def backward(self, g, x, r):
        n = math.prod(self.in_shape) // _max(1, math.prod(self.keep_shape))
        r = _expand_back(r, self)
        centred = x - D.mean(x, self.axis, True)
        return (D.where(array_of(r) == 0, 0.0, _expand_back(g, self) * centred / ((n - self.correction) * r)),)


def _spread(numpy_function, x, axis, keepdims, correction):
    """``np.var`` or ``np.std`` with ``correction``; with no degrees of freedom left NaN, without
    NumPy's warning (``var`` and ``std`` gave PyTorch's)."""
    if _per_result(x.shape, axis) - correction > 0:
        return numpy_function(x, axis=axis, keepdims=keepdims, ddof=correction)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return numpy_function(x, axis=axis, keepdims=keepdims, ddof=correction)


def _per_result(shape, axes):
    """How many elements of ``shape`` each result of a reduction over ``axes`` (None: all) reads."""
    return math.prod(shape) if axes is None else math.prod(shape[a] for a in axes)


def _warn_without_freedom(name, x, dim, correction):
    """PyTorch's warning when ``correction`` is at least the number of elements per result."""
    if _per_result(x.shape, None if dim is None else _dims(dim, x.ndim)) - correction <= 0:
        warnings.warn(f"{name}(): degrees of freedom is <= 0. Correction should be strictly less than the reduction "
                      "factor (input numel divided by output numel).", UserWarning, stacklevel=4)   # (through the NumPy-names wrapper)


def _correction(unbiased, correction):
    if correction is not None:
        return correction
    return 1 if unbiased in (None, True) else 0


def var(x, dim=None, unbiased=None, keepdim=False, *, correction=None):
    correction = _correction(unbiased, correction)
    _warn_without_freedom("var", x, dim, correction)
    return _reduction(VarBackward0, x, dim, keepdim, correction=correction)


def std(x, dim=None, unbiased=None, keepdim=False, *, correction=None):
    correction = _correction(unbiased, correction)
    _warn_without_freedom("std", x, dim, correction)
    return _reduction(StdBackward0, x, dim, keepdim, correction=correction)


class LinalgVectorNormBackward0(Op):
    """p-norm; the gradient at the zero vector is 0 (a sub-gradient), not nan."""
    saves = (0, RESULT)
    holomorphic = False

    @staticmethod
    def forward(x, axis, keepdims, in_shape, keep_shape, p):
        ax = np.abs(x)
        if p == math.inf:
            return np.max(ax, axis=axis, keepdims=keepdims)
        if p == -math.inf:
            return np.min(ax, axis=axis, keepdims=keepdims)
        if p == 2:
            return np.sqrt(np.sum(ax * ax, axis=axis, keepdims=keepdims))
        if p == 1:
            return np.sum(ax, axis=axis, keepdims=keepdims)
        return np.sum(ax ** p, axis=axis, keepdims=keepdims) ** (1.0 / p)

    def backward(self, g, x, r):
        g = _expand_back(g, self)
        r = _expand_back(r, self)
        p, zero = self.p, array_of(r) == 0
        if p == 2:
            local = x / r
        elif p == 1:
            local = np.sign(array_of(x))
        elif p == math.inf or p == -math.inf:
            mask = np.abs(array_of(x)) == array_of(r)
            local = np.sign(array_of(x)) * mask / mask.sum(axis=self.axis, keepdims=True)
        elif p < 2:
            # PyTorch's norm_backward: sgn(x) |x|^(p-1), 0 where x is 0 (below p = 2 |x|^(p-2) is infinite there)
            xa = array_of(x)
            sgn = np.sign(xa) if xa.dtype.kind != "c" else D.where(xa == 0, 0.0, x / D.abs(x))
            scaled = D.where(xa == 0, 0.0, sgn * D.pow(D.abs(x), p - 1))
            local = scaled * D.pow(r, 1 - p) if p < 1 else scaled / D.pow(r, p - 1)
        else:
            local = x * D.pow(D.abs(x), p - 2) / D.pow(r, p - 1)
        return (D.where(zero, 0.0, g * local),)


# ``linalg.matrix_norm``, put here when ``linalg`` is imported (it is built on these ops)
MATRIX_NORMS = []


def norm(x, p=2, dim=None, keepdim=False, *, dtype=None):
    """Vector p-norm over all elements or along ``dim`` (p = 'fro' means 2); p = 'nuc' is the
    nuclear norm of the matrices over ``dim`` (the last two), as ``torch.norm``'s."""
    x = as_dtype(x, dtype)
    if p == "nuc":
        if dim is None and x.ndim != 2:
            raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(map(str, range(x.ndim)))}")
        return MATRIX_NORMS[0](x, "nuc", (-2, -1) if dim is None else dim, keepdim)
    p = 2 if p in ("fro", None) else (math.inf if p in ("inf",) else p)
    return _reduction(LinalgVectorNormBackward0, x, dim, keepdim, p=float(p))


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):
    """The ``ord``-norm of the elements (all, or along ``dim``): sum(|x|^ord)^(1/ord),
    max |x| for inf, min |x| for -inf (``torch.linalg.vector_norm``).

    >>> from diffcompare import autograd as ag
    >>> ag.linalg.vector_norm(ag.tensor([3.0, -4.0]), 1)
    tensor(7.)
    """
    if isinstance(ord, str) or not isinstance(ord, (int, float)):
        raise TypeError(f"linalg_vector_norm(): argument 'ord' (position 2) must be Number, not "
                        f"{type(ord).__name__}")
    if dtype is not None:
        x = x.to(dtype)
    return _reduction(LinalgVectorNormBackward0, x, dim, keepdim, p=float(ord))


_max_reduce, _all_reduce, _add_reduce = np.maximum.reduce, np.logical_and.reduce, np.add.reduce


def _shifted(x, axis):
    """(m, exp(x - m), their sum over ``axis``) with m the maximum (0 where it is infinite: an
    all -inf slice stays -inf, not nan), all with ``axis`` kept."""
    m = _max_reduce(x, axis=axis, keepdims=True)     # the ufuncs' reduce: the methods' wrappers cost more
    finite = np.isfinite(m)
    if not _all_reduce(finite, axis=None):
        m = np.where(finite, m, 0)
    e = np.exp(x - m)
    return m, e, _add_reduce(e, axis=axis, keepdims=True)


class LogsumexpBackward0(Op):
    """log(sum(exp(x))) over dims; its backward is ``g * exp(x - result)``, PyTorch's formula.
    Those are the forward's shifted exponentials over their sum, so the forward leaves both
    in ``weights`` (a dict of the node's) and the first plain backward takes them from there:
    one product where the formula costs an exp (several times a product). A later backward
    computes them again as the forward did, bit for bit the same gradient (gradcheck asks a
    backward to be reentrant); one with ``create_graph``, or with an infinite result, uses the
    formula."""
    saves = (0, RESULT)

    @staticmethod
    def forward(x, axis, keepdims, in_shape, keep_shape, weights=None):
        m, e, s = _shifted(x, axis)
        out = np.log(s) + m
        if weights is not None and x.dtype.kind == "f" and np.isfinite(out).all():
            weights["shifted"] = e, s
        return out if keepdims else np.squeeze(out, axis=axis)

    def backward(self, g, x, r):
        if not isinstance(g, Tensor) and x.dtype.kind == "f" and np.isfinite(r).all():
            weights = getattr(self, "weights", None)
            shifted = weights.pop("shifted", None) if weights else None
            e, s = shifted if shifted is not None else _shifted(x, self.axis)[1:]
            return ((g.reshape(_lead(g, self) + self.keep_shape) / s) * e,)   # broadcast to the input's shape
        return (_expand_back(g, self) * D.exp(x - _expand_back(r, self)),)


def logsumexp(x, dim, keepdim=False):
    return _reduction(LogsumexpBackward0, x, dim, keepdim, weights={})


class SoftmaxBackward0(Op):
    saves = (RESULT,)

    @staticmethod
    def forward(x, dim):
        e = np.exp(x - np.max(x, axis=dim, keepdims=True))
        return e / np.sum(e, axis=dim, keepdims=True)

    def backward(self, g, y):
        return (y * (g - (g * y).sum(axis=self.dim - y.ndim, keepdims=True)),)


class LogSoftmaxBackward0(Op):
    saves = (RESULT,)

    @staticmethod
    def forward(x, dim):
        shifted = x - np.max(x, axis=dim, keepdims=True)
        return shifted - np.log(np.sum(np.exp(shifted), axis=dim, keepdims=True))

    def backward(self, g, y):
        return (g - D.exp(y) * g.sum(axis=self.dim - y.ndim, keepdims=True),)


class NllLossBackward0(Op):
    """Negative log-likelihood of class indices: -logp[i, target[i]], reduced.
    The gradient is -grad (scaled by 1/N for the mean) at the targets, 0 elsewhere; with
    per-sample ``weights`` (class weights, 0 at ignored targets) each term is weighted and the
    mean divides by their sum, as in PyTorch."""

    @staticmethod
    def forward(logp, index, scale, reduction, in_shape, weights=None):
        picked = -logp[index]
        if weights is not None:
            picked = picked * weights
        if reduction == "none":
            return picked
        return np.asarray(picked.sum() * scale)

    def backward(self, g):
        g = -g * self.scale
        if self.weights is not None:
            # every target ignored (or weighted 0) under the mean: the scale 1/0 is infinite and
            # the gradient is 0, as PyTorch's (it writes nothing for an ignored target)
            g = g * self.weights if np.isfinite(self.scale) else D.where(self.weights == 0, 0.0, g * self.weights)
        return (index_add_zeros(g, self.index, self.in_shape),)


NllLossBackward0.weights = None


def reduction_name(reduction, stacklevel=3):
    """A loss's ``reduction`` as PyTorch reads it: "mean", "sum" or "none"; the deprecated
    "elementwise_mean" is "mean", with PyTorch's warning (old course code passes it); anything
    else is PyTorch's ValueError.

    >>> reduction_name("sum")
    'sum'
    >>> reduction_name("average")
    Traceback (most recent call last):
    ...
    ValueError: average is not a valid value for reduction
    """
    if reduction == "mean" or reduction == "sum" or reduction == "none":
        return reduction
    if reduction == "elementwise_mean":
        warnings.warn("reduction='elementwise_mean' is deprecated. Please use reduction='mean' instead.", UserWarning,
                      stacklevel=stacklevel)
        return "mean"
    raise ValueError(f"{reduction} is not a valid value for reduction")


def nll_loss(logp, target, reduction="mean", weight=None, ignore_index=-100):
    """Mean (or sum, or none) of -logp[i, target[i]] for log-probabilities (N, C) or (C,),
    optionally weighted per class, targets equal to ``ignore_index`` left out."""
    target = np.asarray(target._data if isinstance(target, Tensor) else target)
    if target.dtype.kind not in "iu":
        raise TypeError(f"nll_loss expects integer class indices as target, got dtype {target.dtype}")
    reduction = reduction_name(reduction)
    n_classes = logp.shape[-1]
    kept = target != ignore_index
    checked = target[kept]
    if checked.size and (checked.min() < 0 or checked.max() >= n_classes):
        bad = int(checked.max() if checked.max() >= n_classes else checked.min())
        raise IndexError(f"Target {bad} is out of bounds: classes are 0..{n_classes - 1}")
    if weight is not None or not kept.all():
        target = np.where(kept, target, 0)
        class_weight = np.ones(logp.shape[-1], logp.dtype) if weight is None else np.asarray(
            weight._data if isinstance(weight, Tensor) else weight, dtype=logp.dtype)
        weights = class_weight[target] * kept
        params = {"weights": weights}
        with np.errstate(divide="ignore", invalid="ignore"):
            total = weights.sum()
            scale = np.float64(1.0) / total if reduction == "mean" else 1.0
    else:
        params, scale = {}, None
    if logp.ndim == 1:
        index, count = (int(target),), 1
    else:
        if target.shape != (logp.shape[0],):
            raise ValueError(f"Expected target of shape ({logp.shape[0]},) for input of shape {tuple(logp.shape)}, "
                             f"got {tuple(target.shape)}")
        index, count = (np.arange(logp.shape[0]), target), logp.shape[0]
    if scale is None:
        scale = 1.0 / count if reduction == "mean" else 1.0
    return apply(NllLossBackward0, (logp,), {"index": index, "scale": scale, "reduction": reduction,
                                             "in_shape": logp.shape, **params})


def as_dtype(x, dtype):
    """``x`` cast to ``dtype`` first (a reduction's ``dtype=``, as PyTorch: ToCopyBackward0),
    or as it is when None."""
    return x if dtype is None else x.to(dtype)


def softmax(x, dim, *, dtype=None):
    x = as_dtype(x, dtype)
    return apply(SoftmaxBackward0, (x,), {"dim": check_dim(dim, x.ndim)})


def log_softmax(x, dim, *, dtype=None):
    x = as_dtype(x, dtype)
    return apply(LogSoftmaxBackward0, (x,), {"dim": check_dim(dim, x.ndim)})


class CumsumBackward0(Op):
    forward = staticmethod(lambda x, dim: np.cumsum(x, axis=dim))

    def backward(self, g):
        # reversed cumulative sum: total - running sum + own term
        return (g.sum(axis=self.dim, keepdims=True) - D.cumsum(g, self.dim) + g,)

    def batched_backward(self, g):
        d = self.dim + 1
        return (g.sum(axis=d, keepdims=True) - np.cumsum(g, axis=d) + g,)


def sum_to_size(x, *size):
    """``x`` summed down to ``size``, which ``x``'s shape must broadcast from (the leading dims
    summed away, a size-1 dim summed with keepdim), as ``Tensor.sum_to_size``; ``x`` itself
    when it has that size already.

    >>> from diffcompare import autograd as ag
    >>> ag.ones(2, 3).sum_to_size(1, 3)
    tensor([[2., 2., 2.]])
    """
    size = tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else tuple(size)
    shape = tuple(x.shape)
    lead = len(shape) - len(size)
    if lead < 0 or any(n != 1 and n != m for n, m in zip(size, shape[lead:])):
        raise RuntimeError(f"size {{{list(size)}}} is not expandable to size {{{list(shape)}}}.")
    if shape == size:
        return x
    dims = tuple(range(lead)) + tuple(lead + i for i, n in enumerate(size) if n == 1 and shape[lead + i] != 1)
    out = _reduction(SumBackward1, x, dims, True)      # as PyTorch's sum_to: summed with keepdim, then viewed
    return out.view(size) if lead else out


def cumsum(x, dim, *, dtype=None):
    x = as_dtype(x, dtype)
    return apply(CumsumBackward0, (x,), {"dim": check_dim(dim, x.ndim)})


def sum(x, dim=None, keepdim=False, dtype=None, *, axis=None, keepdims=None):
    """Sum of all elements, or along ``dim`` (an int or a tuple).

    >>> from diffcompare import autograd as ag
    >>> ag.tensor([[1.0, 2.0], [3.0, 4.0]]).sum(1)
    tensor([3., 7.])
    """
    dim, keepdim = (axis if dim is None else dim), (keepdims if keepdims is not None else keepdim)
    x = as_dtype(x, dtype)
    return _reduction(SumBackward1 if dim is not None else SumBackward0, x, dim, keepdim)


def mean(x, dim=None, keepdim=False, *, dtype=None, axis=None, keepdims=None):
    dim, keepdim = (axis if dim is None else dim), (keepdims if keepdims is not None else keepdim)
    x = as_dtype(x, dtype)
    return _reduction(MeanBackward1 if dim is not None else MeanBackward0, x, dim, keepdim)


def prod(x, dim=None, keepdim=False, *, dtype=None):
    x = as_dtype(x, dtype)
    return _reduction(ProdBackward1 if dim is not None else ProdBackward0, x, dim, keepdim)


# the rules that take a batch of gradients as they are (the reductions' through _expand_back)
for _cls in (SumBackward0, MeanBackward0, ProdBackward0, MaxBackward1, MaxBackward0, VarBackward0, StdBackward0,
             LinalgVectorNormBackward0, LogsumexpBackward0, SoftmaxBackward0, LogSoftmaxBackward0):
    _cls.batched_backward = _cls.backward
for _cls in (SumBackward0, MeanBackward0, CumsumBackward0, NllLossBackward0):
    _cls.tangent = "linear"
for _cls in (ProdBackward0, MaxBackward1, MaxBackward0, VarBackward0, StdBackward0, LinalgVectorNormBackward0,
             LogsumexpBackward0):
    _cls.tangent = "reduction"
MaxBackward1.tangent = staticmethod(lambda node, tangents, arrays, out: _evenly_read_tangent(node, tangents[0], arrays[0], out))
SoftmaxBackward0.tangent = staticmethod(softmax_tangent)
LogSoftmaxBackward0.tangent = staticmethod(log_softmax_tangent)

register(cumsum=cumsum, prod=lambda a, dim: prod(a, dim), mean=lambda a, axis, keep: mean(a, axis, keep))


# the torch-level functions of this family (`ag.<name>`, as `torch.<name>`)
PUBLIC = ('amax', 'amin', 'cumsum', 'log_softmax', 'logsumexp', 'max', 'mean', 'min', 'norm', 'prod',
          'softmax', 'std', 'sum', 'var')
# what the family exports to `ops`
__all__ = ['reduction', 'reduction_name', 'sum_to_size', 'AmaxBackward0', 'AminBackward0', 'CumsumBackward0', 'LinalgVectorNormBackward0',
           'LogSoftmaxBackward0', 'LogsumexpBackward0', 'MaxBackward0', 'MaxBackward1', 'MaxResult',
           'MeanBackward0', 'MeanBackward1', 'MinBackward0', 'MinBackward1', 'NllLossBackward0',
           'ProdBackward0', 'ProdBackward1', 'SoftmaxBackward0', 'StdBackward0', 'SumBackward0',
           'SumBackward1', 'VarBackward0', 'amax', 'amin', 'cumsum', 'log_softmax', 'logsumexp', 'max',
           'mean', 'min', 'nll_loss', 'norm', 'prod', 'softmax', 'std', 'sum', 'var', 'vector_norm']
