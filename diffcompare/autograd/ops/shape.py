"""Shapes and views: reshape, flatten, transpose, permute, squeeze/unsqueeze, expand, clone,
``to``; and joining tensors: ``cat`` and ``stack``. Views share storage and version counter
with their base."""

from __future__ import annotations

import builtins

import numpy as np

from ..broadcast import broadcast_view
from ..device import META_SEEN, as_meta, device as Device, is_meta, refuse_meta, resolve as resolve_device
from ..grad_mode import STATE
from ..tensor import LEGACY_ALIAS, Tensor
from .dual import D, register
from .outputs import write_out
from .recording import Op, apply, check_dim, record, sum_to, view_requires_grad

_max = builtins.max

def record_view(cls, x, params, view_fn, output=None):
    """Record a view op: the result shares storage and version counter with ``x``.
    ``output``: (PyTorch's name of the op, index) for one of the views an op returns several of.
    The common case (``plain_views()``) goes without ``apply``'s generality (``view_of``)."""
    if output is None and plain_views():
        try:
            out = cls.forward(x._data, **params)
        except ValueError:
            out = None          # apply raises it in PyTorch's words
        if out is not None:
            return view_of(cls, x, params, out, view_fn)
    return as_view(apply(cls, (x,), params), x, view_fn, output)


def plain_views():
    """Whether a view may take the short path (``view_of``): recording with nothing extra, or
    not recording at all, and no tensor on the meta device; a view computes no value that
    could warn or need another dtype."""
    state = STATE
    return not META_SEEN[0] and (state.plain or not (state.grad_enabled or state.forward_level))


def view_of(cls, x, params, out, view_fn, state=None):
    """``out``, just computed from ``x`` by the view op ``cls``, as ``x``'s view, recorded when
    ``x`` requires grad: the short path of ``record_view`` and of indexing (``plain_views()``).
    ``state``: ``grad_mode.STATE`` to record whenever grad mode is on, with what recording sees
    to (hooks, anomaly mode), and without a tangent (``fw_primal``); None: only when recording
    is plain."""
    if (STATE.plain if state is None else state.grad_enabled) and \
            (x.requires_grad_flag or x._base is not None and view_requires_grad(x)):
        result = record(cls, (x,), params, out, state)
    else:
        result = Tensor._make(out)
    return as_view(result, x, view_fn)


NO_GRAD_VIEW = "no_grad"    # how a view made with grad mode off was made (its _view_meta)


def as_view(out, x, view_fn, output=None):
    """``out``, just computed from ``x`` by ``view_fn``, made its view where NumPy made it one:
    sharing ``x``'s version counter, with ``x``'s base as its base. Its ``_view_meta`` notes the
    version its history is of, and how it was made where PyTorch refuses to give it a new
    history after an in-place write (in no_grad mode; one of several views an op returned),
    passed on to views of it."""
    if out._data.base is not None:
        counter = out._vc = x._counter()
        if x._base is None:
            out._base = x
            out._view_fn = view_fn
            made = None
        else:
            out._base = x._base
            out._view_fn = _compose(x._view_fn, view_fn)
            made = x._view_meta[1]
        if made is None:
            made = output if STATE.grad_enabled else NO_GRAD_VIEW
        out._view_meta = (counter[0], made)
    return out


def rebase_error(view, direct):
    """PyTorch's refusal to give ``view`` a new history: written in place itself (``direct``)
    or through its base or another view of it."""
    what = "is being" if direct else "its base or another view of its base has been"
    made = view._view_meta[1]
    if made == NO_GRAD_VIEW:
        return (f"A view was created in no_grad mode and {what} modified inplace with grad mode enabled. Given "
                "that this use case is ambiguous and error-prone, it is forbidden. You can clarify your code by "
                "moving both the view and the inplace either both inside the no_grad block (if you don't want "
                "the inplace to be tracked) or both outside (if you want the inplace to be tracked).")
    name, index = made
    several = ("This view is the output of a function that returns multiple views. Such functions do not allow "
               "the output views to be modified inplace. You should replace the inplace operation by an "
               "out-of-place one.")
    if view._grad_fn is None:   # made from a tensor that did not require grad
        return f"A view was created in no_grad mode and {what} modified inplace with grad mode enabled. {several}"
    return f"Output {index} of {name} is a view and {what} modified inplace. {several}"


def _compose(first, second):
    return lambda a: second(first(a))


class ViewBackward0(Op):
    forward = staticmethod(lambda x, shape, in_shape: x.reshape(shape))

    def backward(self, g):
        return (g.reshape(self.in_shape),)

    def batched_backward(self, g):
        return (g.reshape(g.shape[:1] + tuple(self.in_shape)),)


class UnsafeViewBackward0(ViewBackward0):
    """A reshape of a fresh result (PyTorch's name for the last step of kron, einsum, and of a
    reshape that has to copy)."""


def _viewable(a, shape):
    """Whether ``a`` can take ``shape`` without a copy (NumPy refuses to set such a shape)."""
    if a.flags.c_contiguous:
        return True
    try:
        a.view().shape = shape
    except AttributeError:
        return False
    return True


def _target(x, shape):
    shape = shape[0] if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape
    size, known, free = x._data.size, 1, -1      # sizes that are Python ints, at most one -1: at once
    for i, n in enumerate(shape):
        if n.__class__ is not int or n < -1 or n == -1 and free >= 0:
            break
        if n == -1:
            free = i
        else:
            known *= n
    else:
        if free < 0:
            if known == size:
                return tuple(shape)
        elif known and size % known == 0:
            return tuple(shape[:free]) + (size // known,) + tuple(shape[free + 1:])
    try:
        return np.empty(x.shape, dtype=bool).reshape(shape).shape
    except ValueError:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {x.numel()}") from None


def reshape(x, *shape):
    """``x`` with another shape: a view (ViewBackward0) where the strides allow one, else, as
    PyTorch, a contiguous copy reshaped (CloneBackward0, then UnsafeViewBackward0). Only a view
    the engine made (``x._base``: a transpose, a slice, ...) has PyTorch's strides; an op's
    result counts as contiguous, as PyTorch's is, whatever NumPy's layout of it
    (``_unviewed``)."""
    target = _target(x, shape)
    if not _viewable(x._data, target):
        if x._base is None:
            return _unviewed(x, target)
        copy = apply(CloneBackward0, (x,), {"order": "C"})
        return apply(UnsafeViewBackward0, (copy,), {"shape": target, "in_shape": x.shape})
    return record_view(ViewBackward0, x, {"shape": target, "in_shape": x.shape}, lambda a: a.reshape(target))


def _unviewed(x, target):
    """``x`` (an op's result, contiguous in PyTorch, not in NumPy's layout) in shape ``target``:
    the view PyTorch records (ViewBackward0), here a reshaped copy."""
    return apply(ViewBackward0, (x,), {"shape": target, "in_shape": x.shape})


def view(x, *shape, dtype=None):
    """``x`` with another shape (ViewBackward0), or with ``view(dtype)`` its bytes read as
    another dtype (the last dimension rescaled; shares storage, records nothing).

    >>> from diffcompare import autograd as ag
    >>> ag.zeros(2, 2).view(ag.int32).shape, ag.zeros(4).view(2, 2).shape
    (torch.Size([2, 4]), torch.Size([2, 2]))
    """
    if dtype is not None:
        if shape:
            raise TypeError("view() received an invalid combination of arguments: a shape and dtype=")
        shape = (dtype,)
    if len(shape) == 1 and (isinstance(shape[0], np.dtype) or
                            isinstance(shape[0], type) and issubclass(shape[0], np.generic)):
        dtype = np.dtype(shape[0])
        a = x._data
        if dtype.itemsize != a.itemsize:
            if a.ndim == 0:
                raise RuntimeError("self.dim() cannot be 0 to view " + str(a.dtype) + " as " + str(dtype) +
                                   " (different element sizes)")
            if a.ndim and a.strides[-1] != a.itemsize and a.shape[-1] != 1:
                raise RuntimeError("self.stride(-1) must be 1 to view " + str(a.dtype) + " as " + str(dtype) +
                                   " (different element sizes)")
        out = Tensor._make(a.view(dtype), False, None, x._counter())
        return out
    target = _target(x, shape)
    if not _viewable(x._data, target):
        if x._base is None:
            return _unviewed(x, target)
        raise RuntimeError("view size is not compatible with input tensor's size and stride (at least one dimension "
                           "spans across two contiguous subspaces). Use .reshape(...) instead.")
    return record_view(ViewBackward0, x, {"shape": target, "in_shape": x.shape}, lambda a: a.reshape(target))


class AliasBackward0(ViewBackward0):
    """The same values under another tensor (a view of all of it): the gradient passes."""


def alias(x):
    """A view of all of ``x`` (AliasBackward0), as PyTorch's ``alias``: what ``torch.func.jvp``
    returns for an output that requires grad."""
    shape = x.shape
    return record_view(AliasBackward0, x, {"shape": shape, "in_shape": shape}, lambda a: a.view())


LEGACY_ALIAS.append(alias)


class Identity(ViewBackward0):
    """The node of ``unpack_dual``'s primal (PyTorch's ``_fw_primal``, a node of its engine's
    own: ``torch::autograd::Identity``): the gradient passes."""


def fw_primal(x):
    """A view of ``x`` that carries no tangent, recorded by an ``Identity`` node when ``x``
    requires grad and grad mode is on (``forward_ad.unpack_dual``'s primal)."""
    shape = x._data.shape
    return view_of(Identity, x, {"shape": shape, "in_shape": shape}, x._data.view(), lambda a: a.view(), STATE)


def flatten(x, start_dim=0, end_dim=-1):
    if x.ndim == 0:
        return reshape(x, 1)
    if x.ndim == 1:
        return x  # as in PyTorch: nothing to flatten, the same tensor
    s, e = check_dim(start_dim, x.ndim), check_dim(end_dim, x.ndim)
    shape = x.shape[:s] + (-1,) + x.shape[e + 1:]
    return reshape(x, shape)


class TransposeBackward0(Op):
    forward = staticmethod(lambda x, dim0, dim1: x.swapaxes(dim0, dim1))

    def backward(self, g):
        return (g.swapaxes(self.dim0, self.dim1),)

    def batched_backward(self, g):
        return (g.swapaxes(self.dim0 + 1, self.dim1 + 1),)


class TBackward0(TransposeBackward0):
    """``t()``: a matrix's transpose; a vector or a 0-d tensor as it is (a view)."""
    forward = staticmethod(lambda x, dim0, dim1: np.swapaxes(x, dim0, dim1) if x.ndim == 2 else x.view())

    def backward(self, g):
        if self.dim0 == self.dim1:
            return (g,)
        # a recorded gradient (create_graph) is transposed by t() too: TBackward0, as PyTorch records it
        return (g.t() if isinstance(g, Tensor) else g.swapaxes(self.dim0, self.dim1),)

    def batched_backward(self, g):
        return (g.swapaxes(self.dim0 + 1, self.dim1 + 1) if self.dim0 != self.dim1 else g,)


def transpose(x, dim0, dim1):
    dim0, dim1 = check_dim(dim0, x.ndim), check_dim(dim1, x.ndim)
    return record_view(TransposeBackward0, x, {"dim0": dim0, "dim1": dim1}, lambda a: a.swapaxes(dim0, dim1))


swapaxes = transpose


def t(x):
    if x.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {x.ndim}D")
    if x.ndim < 2:
        return record_view(TBackward0, x, {"dim0": 0, "dim1": 0}, lambda a: a)
    return record_view(TBackward0, x, {"dim0": 0, "dim1": 1}, lambda a: a.swapaxes(0, 1))


class PermuteBackward0(Op):
    forward = staticmethod(lambda x, dims, inverse: x.transpose(dims))

    def backward(self, g):
        return (permute(g, self.inverse) if isinstance(g, Tensor) else g.transpose(self.inverse),)

    def batched_backward(self, g):
        return (g.transpose((0,) + tuple(d + 1 for d in self.inverse)),)


def permute(x, *dims):
    dims = tuple(dims[0]) if len(dims) == 1 and isinstance(dims[0], (tuple, list)) else dims
    if sorted(d % _max(1, x.ndim) for d in dims) != list(range(x.ndim)):
        raise RuntimeError(f"permute: dims {list(dims)} must be an ordering of the tensor's {x.ndim} "
                           f"dimensions (input.dim() = {x.ndim}, len(dims) = {len(dims)})")
    dims = tuple(d % _max(1, x.ndim) for d in dims)
    inverse = tuple(sorted(range(len(dims)), key=dims.__getitem__))
    return record_view(PermuteBackward0, x, {"dims": dims, "inverse": inverse}, lambda a: D.permute(a, dims))


def moveaxis(x, source, destination):
    """The dimensions ``source`` moved to positions ``destination`` (ints or sequences), the
    others kept in order (PermuteBackward0, as ``torch.movedim``).

    >>> from diffcompare import autograd as ag
    >>> ag.moveaxis(ag.zeros(2, 3, 4), 0, -1).shape
    torch.Size([3, 4, 2])
    """
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({src} dims) should contain the "
                           f"same number of dims as destination ({dst} dims)")
    src = [check_dim(d, x.ndim) for d in src]
    dst = [check_dim(d, x.ndim) for d in dst]
    order = [n for n in range(x.ndim) if n not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return permute(x, order)


movedim = moveaxis


def _inserted_ones(short, long):
    """The positions of ``long`` (a shape) holding the 1s that ``short`` lacks."""
    found, i = [], 0
    for k, n in enumerate(long):
        if i < len(short) and short[i] == n:
            i += 1
        else:
            found.append(k)
    return found


class SqueezeBackward0(Op):
    """``squeeze()``: a gradient with history goes back through an ``unsqueeze`` per dropped
    dim, as PyTorch's (so a double backward names the same nodes); an array is reshaped."""
    forward = staticmethod(lambda x, shape, in_shape: x.reshape(shape))
    batched_backward = ViewBackward0.batched_backward

    def backward(self, g):
        if not isinstance(g, Tensor):
            return (g.reshape(self.in_shape),)
        for d in _inserted_ones(self.shape, self.in_shape):
            g = unsqueeze(g, d)
        return (g,)


class SqueezeBackward1(SqueezeBackward0):
    pass


class UnsqueezeBackward0(SqueezeBackward0):
    """``unsqueeze(d)``: a gradient with history goes back through ``squeeze(d)``."""

    def backward(self, g):
        if not isinstance(g, Tensor):
            return (g.reshape(self.in_shape),)
        for d in reversed(_inserted_ones(self.in_shape, self.shape)):
            g = squeeze(g, d)
        return (g,)


class SqueezeBackward2(SqueezeBackward0):
    """``squeeze(dims)`` with a tuple or list of dims."""


def squeeze(x, dim=None):
    """``x`` without its size-1 dimensions (all, the one ``dim``, or those of a tuple of dims):
    SqueezeBackward0, 1 or 2 as in PyTorch.

    >>> from diffcompare import autograd as ag
    >>> ag.zeros(1, 3, 1, 2).squeeze((0, 2)).shape
    torch.Size([3, 2])
    """
    if dim is None:
        shape = tuple(n for n in x.shape if n != 1)
        cls = SqueezeBackward0
    elif isinstance(dim, (tuple, list)):
        dims = [check_dim(d, x.ndim) for d in dim]
        for d in dims:
            if dims.count(d) > 1:
                raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        shape = tuple(n for i, n in enumerate(x.shape) if not (i in dims and n == 1))
        cls = SqueezeBackward2
    else:
        d = check_dim(dim, x.ndim)
        shape = tuple(n for i, n in enumerate(x.shape) if not (i == d and n == 1))
        cls = SqueezeBackward1
    return record_view(cls, x, {"shape": shape, "in_shape": x.shape}, lambda a: a.reshape(shape))


def unsqueeze(x, dim):
    if not isinstance(dim, (int, np.integer)):
        raise TypeError(f"unsqueeze(): argument 'dim' (position 1) must be int, not {type(dim).__name__}")
    d = check_dim(dim, x.ndim + 1)
    in_shape = x._data.shape
    shape = in_shape[:d] + (1,) + in_shape[d:]
    return record_view(UnsqueezeBackward0, x, {"shape": shape, "in_shape": in_shape}, lambda a: a.reshape(shape))


class ExpandBackward0(Op):
    forward = staticmethod(lambda x, shape, in_shape: broadcast_view(x, shape))

    def backward(self, g):
        if self.in_shape == () and isinstance(g, Tensor):
            return (g.sum(),)         # a gradient with history: SumBackward0, as PyTorch's sum_to
        return (sum_to(g, self.in_shape),)

    def batched_backward(self, g):
        return (sum_to(g, self.in_shape, batch=1),)


def expand(x, *sizes):
    sizes = tuple(sizes[0]) if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)) else sizes
    lead = len(sizes) - x.ndim
    if lead < 0:
        raise RuntimeError(f"expand({x.type()}{{{list(x.shape)}}}, size={list(sizes)}): the number of sizes "
                           f"provided ({len(sizes)}) must be greater or equal to the number of dimensions in "
                           f"the tensor ({x.ndim})")
    shape = tuple(x.shape[i - lead] if (n == -1 and i >= lead) else n for i, n in enumerate(sizes))
    for i in reversed(range(len(sizes))):
        n = sizes[i]
        if i < lead:
            if n < 0:
                raise RuntimeError(f"The expanded size of the tensor ({n}) isn't allowed in a leading, "
                                   f"non-existing dimension {i}")
        elif n != -1 and x.shape[i - lead] not in (1, n):
            raise RuntimeError(f"The expanded size of the tensor ({n}) must match the existing size "
                               f"({x.shape[i - lead]}) at non-singleton dimension {i}.  Target sizes: "
                               f"{list(sizes)}.  Tensor sizes: {list(x.shape)}")
    return record_view(ExpandBackward0, x, {"shape": shape, "in_shape": x.shape}, lambda a: D.expand(a, shape))


def expand_as(x, other):
    return expand(x, other.shape)


class CloneBackward0(Op):
    forward = staticmethod(lambda x, order="K": np.array(x, order=order))

    def backward(self, g):
        return (g,)

    batched_backward = backward


def clone(x, *, memory_format=None):
    return apply(CloneBackward0, (x,))


def is_contiguous(x, memory_format=None):
    """Whether ``x``'s elements lie in row-major order without gaps (PyTorch's default layout)."""
    return bool(x._data.flags.c_contiguous)


def contiguous(x, memory_format=None):
    """``x`` itself when it is contiguous, else a row-major copy (CloneBackward0), as in PyTorch.

    >>> from diffcompare import autograd as ag
    >>> x = ag.ones(2, 3, requires_grad=True)
    >>> x.contiguous() is x, x.t().contiguous().grad_fn.name(), x.t().contiguous().is_contiguous()
    (True, 'CloneBackward0', True)
    """
    if x._data.flags.c_contiguous:
        return x
    return apply(CloneBackward0, (x,), {"order": "C"})


class ToCopyBackward0(Op):
    forward = staticmethod(lambda x, dtype, in_dtype: x.astype(dtype))

    def backward(self, g):
        return (D.cast(g, self.in_dtype),)

    batched_backward = backward


def to_arguments(args, device=None, dtype=None, copy=False):
    """The (dtype or None, copy) that ``to``'s arguments ask for, after checking that their
    device is the CPU: ``(dtype)``, ``(device, dtype)``, ``(other)``, each followed by
    ``non_blocking`` and ``copy``."""
    rest = list(args)
    if rest and isinstance(rest[0], Tensor):          # to(other, non_blocking, copy)
        dtype = rest.pop(0).dtype
    else:
        if rest and (isinstance(rest[0], (str, Device)) or type(rest[0]) is int):
            device = rest.pop(0)
        if rest and not isinstance(rest[0], bool):
            dtype = rest.pop(0)
    if len(rest) > 1:
        copy = rest[1]
    if device is not None:
        resolve_device(device, meta=True)
    return (None if dtype is None else np.dtype(dtype)), copy


def to(x, *args, device=None, dtype=None, non_blocking=False, copy=False, memory_format=None):
    """This tensor with another dtype, as PyTorch's ``to(dtype)``, ``to(device, dtype)`` and
    ``to(other)``: itself when nothing changes (unless ``copy=True``), else a copy recorded as
    ToCopyBackward0. The device must be the CPU (the engine has no other).

    >>> from diffcompare import autograd as ag
    >>> x = ag.tensor([1.0, 2.0])
    >>> x.to("cpu") is x, x.to("cpu", ag.float32).dtype, x.to(ag.zeros(1, dtype=ag.float16)).dtype
    (True, dtype('float32'), dtype('float16'))
    """
    dtype, copy = to_arguments(args, device, dtype, copy)
    where = device_in(args, device)
    dtype = x.dtype if dtype is None else np.dtype(dtype)
    if where is not None and (where.type == "meta") != is_meta(x._data):
        if not is_meta(x._data):       # to the meta device: a copy that keeps the shape only
            out = apply(ToCopyBackward0, (x,), {"dtype": dtype, "in_dtype": x.dtype})
            out._data = as_meta(out._data)
            return out
        refuse_meta(x._data, "cpu")
    if dtype == x.dtype and not copy:
        return x
    return apply(ToCopyBackward0, (x,), {"dtype": dtype, "in_dtype": x.dtype})


def device_in(args, device):
    """The device ``to(...)``'s arguments name, or None."""
    for a in (device,) + tuple(args):
        if isinstance(a, (str, Device)):
            return resolve_device(a, meta=True)
    return None


class CatBackward0(Op):
    @staticmethod
    def forward(*arrays, dim, sizes):
        return np.concatenate(arrays, axis=dim)

    def backward(self, g, batch=0):
        out, start = [], 0
        lead = (slice(None),) * (self.dim + batch)
        for n in self.sizes:
            out.append(g[lead + (slice(start, start + n),)])
            start += n
        return tuple(out)

    def batched_backward(self, g):
        return self.backward(g, batch=1)


def cat(tensors, dim=0, *, out=None):
    """The tensors joined along ``dim`` (CatBackward0); ``out=``: written there."""
    if out is not None:
        return write_out(cat(tensors, dim), out, "cat")
    tensors = tuple(tensors)
    if not tensors:
        raise RuntimeError("torch.cat(): expected a non-empty list of Tensors")
    d = check_dim(dim, tensors[0].ndim)
    try:    # NumPy checks the shapes; PyTorch's words for a mismatch are found only then
        return apply(CatBackward0, tensors, {"dim": d, "sizes": [t.shape[d] for t in tensors]})
    except (ValueError, RuntimeError, IndexError):
        _check_cat(tensors, d)
        raise


def _check_cat(tensors, d):
    """PyTorch's error for tensors that ``cat`` cannot join along ``d``."""
    first = tensors[0].shape
    for number, t in enumerate(tensors[1:], 1):
        if t.ndim != len(first):
            raise RuntimeError(f"Tensors must have same number of dimensions: got {len(first)} and {t.ndim}") from None
        for axis, (a, b) in enumerate(zip(first, t.shape)):
            if axis != d and a != b:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. Expected size {a} but "
                                   f"got size {b} for tensor number {number} in the list.") from None


concatenate = cat


class StackBackward0(Op):
    @staticmethod
    def forward(*arrays, dim):
        return np.stack(arrays, axis=dim)

    def backward(self, g, batch=0):
        lead = (slice(None),) * (self.dim + batch)
        return tuple(g[lead + (i,)] for i in range(len(self._next)))

    def batched_backward(self, g):
        return self.backward(g, batch=1)


def stack(tensors, dim=0, *, out=None):
    """The tensors stacked along a new dimension ``dim`` (StackBackward0); ``out=``: written there."""
    if out is not None:
        return write_out(stack(tensors, dim), out, "stack")
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    shapes = {t._data.shape if isinstance(t, Tensor) else np.shape(t) for t in tensors}
    if len(shapes) > 1:
        raise RuntimeError(f"stack expects each tensor to be equal size, but got {[list(t.shape) for t in tensors]}")
    return apply(StackBackward0, tuple(tensors), {"dim": check_dim(dim, tensors[0].ndim + 1)})


for _cls in (ViewBackward0, AliasBackward0, TransposeBackward0, PermuteBackward0, SqueezeBackward0, ExpandBackward0, CloneBackward0,
             ToCopyBackward0, CatBackward0, StackBackward0):
    _cls.tangent = "linear"     # each is linear: its tangent is the op applied to the tangents

register(expand=expand, unsqueeze=unsqueeze, permute=permute, moveaxis=moveaxis, cast=to)


# the torch-level functions of this family (`ag.<name>`, as `torch.<name>`)
PUBLIC = ('cat', 'clone', 'concatenate', 'flatten', 'moveaxis', 'movedim', 'permute', 'reshape', 'squeeze', 'stack', 'swapaxes', 't',
          'transpose', 'unsqueeze')
# what the family exports to `ops`
__all__ = ['AliasBackward0', 'UnsafeViewBackward0', 'alias', 'CatBackward0', 'CloneBackward0', 'ExpandBackward0', 'PermuteBackward0', 'SqueezeBackward0',
           'SqueezeBackward1', 'SqueezeBackward2', 'StackBackward0', 'TBackward0', 'ToCopyBackward0', 'TransposeBackward0',
           'UnsqueezeBackward0', 'ViewBackward0', 'cat', 'clone', 'concatenate', 'contiguous', 'expand',
           'expand_as', 'flatten', 'is_contiguous', 'moveaxis', 'movedim', 'permute', 'record_view', 'reshape', 'squeeze', 'stack', 'swapaxes', 't', 'to', 'to_arguments', 'transpose', 'unsqueeze', 'view']
