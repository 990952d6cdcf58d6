"""In-place operations (``x.add_(y)``, ``zero_``, ``fill_``, ``copy_``): the write, the version
counter that makes saved copies of the old value stale, PyTorch's errors for leaves, and the
history of a base written through a view."""

from __future__ import annotations

import numpy as np

from ..graph import SavedTensor, edge_of, init_node
from ..generators import normal_draws, rng_of, uniform_draws
from ..grad_mode import STATE
from ..storage import TypedStorage, UntypedStorage, elements_of
from ..tensor import Tensor, generator as global_generator, scalar_name
from .dual import D
from .forward import set_tangent, tangent_array
from .recording import Op, apply, array_of, sum_to
from .shape import rebase_error

LEAF_INPLACE_ERROR = "a leaf Variable that requires grad is being used in an in-place operation."
VIEW_OF_LEAF_INPLACE_ERROR = "a view of a leaf Variable that requires grad is being used in an in-place operation."


def write_in_place(t, compute, leaf_message=LEAF_INPLACE_ERROR):
    """Overwrite ``t`` with ``compute(t)`` and, when recording, make ``t`` the output of the
    new node. ``compute`` runs on a snapshot of ``t`` so what the new node saves is the
    value before the write; ``t``'s version counter goes up, which is how saved copies of
    the old value notice they are stale."""
    recording = STATE.grad_enabled
    base = t._base
    if recording:
        if base is not None and t._view_meta[1] is not None and t.requires_grad:
            raise RuntimeError(rebase_error(t, direct=True))
        if t.requires_grad_flag and t.grad_fn is None:
            raise RuntimeError(VIEW_OF_LEAF_INPLACE_ERROR if base is not None else leaf_message)
        if base is not None and base.requires_grad_flag and base.grad_fn is None:
            raise RuntimeError(VIEW_OF_LEAF_INPLACE_ERROR)
    if recording or (STATE.forward_level and t._tangent is not None):
        source = Tensor._make(np.array(t._data), t.requires_grad_flag, t.grad_fn)
        source._output_nr = t._output_nr
        source._accum = t._accum
        if t._tangent is not None:
            source._tangent = t._tangent.clone() if isinstance(t._tangent, Tensor) else np.array(t._tangent)
    else:
        source = t
    new = compute(source)
    if recording and base is not None and t._view_meta[1] is not None and new.requires_grad_flag:
        raise RuntimeError(rebase_error(t, direct=True))     # what it is written with requires grad
    if new.shape != t.shape:
        raise RuntimeError(f"output with shape {list(t.shape)} doesn't match the broadcast shape {list(new.shape)}")
    if not t._data.flags.writeable:
        raise RuntimeError("unsupported operation: more than one element of the written-to tensor refers to a "
                           "single memory location. Please clone() the tensor before performing the operation.")
    np.copyto(t._data, new._data, casting="unsafe")
    t._bump()
    if STATE.forward_level and (new._tangent is not None or t._tangent is not None):
        _write_tangent(t, new._tangent)
    if recording and new.grad_fn is not None:
        node = new.grad_fn
        for s in node._saved or ():
            if type(s) is SavedTensor and s.is_output:   # the output now lives in t
                s.array, s.counter, s.version = t._data, t._counter(), t._version
        if base is not None:
            _rebase_view(t, base, new)
        else:
            adopt(t, node, new._output_nr)
    return t


def adopt(t, node, output_nr=0):
    """Make ``t``, just overwritten in place, the output ``output_nr`` of ``node``; a retained
    gradient follows it there (the old node no longer fills ``t.grad``, as in PyTorch)."""
    retained = t._forget_retained()
    t.grad_fn = node
    t.requires_grad_flag = True
    t._output_nr = output_nr
    if retained:
        t.retain_grad()


class CopySlicesView(Op):
    """An in-place change through a view: the base's gradient loses the view's part, which
    goes to the new value instead."""

    def backward(self, g):
        if self.needs(0) and isinstance(g, np.ndarray):
            kept = np.array(g)
            self.view_fn(kept)[...] = 0     # (a real view of a complex base zeroes one part of each value)
        elif self.needs(0):             # a recorded gradient (create_graph): zeroed by a product
            mask = np.ones(self.in_shape, dtype=g.dtype)
            self.view_fn(mask)[...] = 0
            if mask.dtype.kind == "c":  # each part kept or zeroed alone: p re(g) + i q im(g)
                p, q = mask.real, mask.imag
                kept = g * ((p + q) / 2) + D.conj(g) * ((p - q) / 2)
            else:
                kept = g * mask
        return (kept if self.needs(0) else None), (self.view_fn(g) if self.needs(1) else None)


CopySlicesView.__name__ = "CopySlices"


def _rebase_view(view, base, new):
    """After ``view`` was overwritten by ``new``, make ``base``'s history include the change.
    The view's own history follows when it is next read (``refresh_view``), as every other
    view of the base's does: ``AsStridedBackward0`` from the base's ``CopySlices``."""
    node = object.__new__(CopySlicesView)
    init_node(node, (edge_of(base), edge_of(new)))
    node.in_shape, node.view_fn = base.shape, view._view_fn
    base._grad_fn, base.requires_grad_flag, base._output_nr = node, True, 0


def _write_tangent(t, tangent):
    """The written tensor's tangent becomes the new value's, in place where it is a view of
    its base's tangent (so the base's tangent changes with it)."""
    if tangent is None:
        tangent = np.zeros(t.shape, dtype=t.dtype)
    current = t._tangent
    if isinstance(current, Tensor) and not current.requires_grad_flag:
        current = current._data          # the tangent given to make_dual: written in place, as in PyTorch
    differentiable = isinstance(tangent, Tensor) and tangent.requires_grad_flag
    if type(current) is np.ndarray and current.flags.writeable and not differentiable:
        np.copyto(current, tangent_array(tangent), casting="unsafe")
    else:
        set_tangent(t, tangent)


def inplace_binary(op):
    def method(self, other):
        return write_in_place(self, lambda src: op(src, other))
    return method


def inplace_unary(op):
    def method(self, *args, **kwargs):
        return write_in_place(self, lambda src: op(src, *args, **kwargs))
    return method


_RENAMED: dict = {}     # (node class, name) -> the class under that name


def rename_node(node, name):
    """Put ``node`` under ``name``, PyTorch's name for the in-place form of its op (the same
    rule: ``LeakyReluBackward1`` for ``leaky_relu_``)."""
    kind = type(node)
    cls = _RENAMED.get((kind, name))
    if cls is None:
        cls = _RENAMED[kind, name] = type(name, (kind,), {"__doc__": kind.__doc__})
    node.__class__ = cls


def rename_node_of(t, name):
    """``t``, its node (if it has one) under PyTorch's ``name`` for the op that made it."""
    if t._grad_fn is not None:
        rename_node(t._grad_fn, name)
    return t


def in_place(t, op, *args, node_name=None):
    """``op(t, *args)`` written into ``t`` (``write_in_place``), recorded under ``node_name``
    when PyTorch names the in-place form differently. A view written in place takes its
    base's history instead, under PyTorch's names for that.

    >>> from diffcompare import autograd as ag
    >>> y = ag.tensor([-1.0, 2.0], requires_grad=True) * 1
    >>> in_place(y, ag.nn.functional.leaky_relu, 0.5, node_name="LeakyReluBackward1")
    tensor([-0.5000,  2.0000], grad_fn=<LeakyReluBackward1>)
    """
    write_in_place(t, lambda src: op(src, *args))
    node = t.grad_fn
    if node_name is not None and node is not None and t._base is None and type(node).__name__ != node_name:
        rename_node(node, node_name)
    return t


def inplace_view(view, node_name):
    """A method that changes a tensor's shape in place (``x.transpose_(0, 1)``, ``x.squeeze_()``):
    the tensor becomes the view ``view`` gives, recorded under PyTorch's name for the in-place
    form (``TransposeBackward1``), its version counter bumped."""

    def method(self, *args, **kwargs):
        if STATE.grad_enabled and self.requires_grad_flag and self.grad_fn is None:
            raise RuntimeError(LEAF_INPLACE_ERROR)
        result = view(self, *args, **kwargs)
        self._data = result._data
        self._bump()
        node = result._grad_fn      # (the view's own node: its base, self, is what was changed)
        if node is not None and result.requires_grad_flag:
            rename_node(node, node_name)     # the same node under the in-place form's name
            adopt(self, node)
        if self._base is not None and result._base is self._base:
            # a view stays one, now by the changed view; its history is of the version now
            self._view_fn, self._view_meta = result._view_fn, (self._vc[0], self._view_meta[1])
        return self
    method.__name__ = node_name
    return method


def zero_(t):
    """``t.zero_()``: on a tensor with history, that history is cut (``ZeroBackward0``
    sends a zero gradient to the old value), as in PyTorch.

    >>> from diffcompare import autograd as ag
    >>> x = ag.tensor([1.0, 2.0], requires_grad=True)
    >>> y = x * 2
    >>> y.zero_().grad_fn
    <ZeroBackward0 ...>
    """
    return write_in_place(t, lambda old: apply(ZeroBackward0, (old,)))


def fill_(t, value):
    """``t.fill_(value)``: the old history is cut (``FillBackward2``); a ``value`` tensor that
    requires grad gets the sum of the gradient (``FillBackward3``), as in PyTorch.

    >>> from diffcompare import autograd as ag
    >>> x = ag.tensor([1.0, 2.0], requires_grad=True)
    >>> y = x * 2
    >>> _ = y.fill_(3.0)
    >>> (y * x).sum().backward()
    >>> x.grad
    tensor([3., 3.])
    """
    if isinstance(value, Tensor):
        if value.dim() != 0:
            raise RuntimeError("fill_ only supports 0-dimension value tensor but got tensor with "
                               f"{value.dim()} dimensions.")
        return write_in_place(t, lambda old: apply(FillBackward3, (old, value)))
    return write_in_place(t, lambda old: apply(FillBackward2, (old, value)))


def copy_(t, src, non_blocking=False):
    """``t.copy_(src)``: ``t`` takes ``src``'s values and history (``CopyBackwards``);
    ``non_blocking`` means nothing on the CPU."""
    params = {"shape": t.shape, "src_shape": np.shape(array_of(src)), "src_dtype": np.result_type(array_of(src))}
    return write_in_place(t, lambda old: apply(CopyBackwards, (old, src), params))


class FillBackward2(Op):
    """``t.fill_(number)``: the old value's gradient is zero."""

    @staticmethod
    def forward(old, value):
        return np.full(old.shape, value, dtype=old.dtype)

    def backward(self, g):
        return (D.zeros_like(g) if self.needs(0) else None), None

    tangent = "affine"


class FillBackward3(FillBackward2):
    """``t.fill_(tensor)``: the old value's gradient is zero, the 0-d value gets the sum."""

    def backward(self, g):
        return (D.zeros_like(g) if self.needs(0) else None), (g.sum() if self.needs(1) else None)

    tangent = "linear"


class ZeroBackward0(Op):
    """``t.zero_()``: the old value's gradient is zero."""

    @staticmethod
    def forward(old):
        return np.zeros_like(old)

    def backward(self, g):
        return (D.zeros_like(g) if self.needs(0) else None),

    tangent = "linear"


class CopyBackwards(Op):
    """``t.copy_(src)``: all of the gradient goes to ``src`` (summed back to its shape), the
    old value's is zero."""

    @staticmethod
    def forward(old, src, shape, src_shape, src_dtype):
        return np.array(np.broadcast_to(src, shape), dtype=old.dtype)

    def backward(self, g):
        return (D.zeros_like(g) if self.needs(0) else None), \
            (D.cast(sum_to(g, self.src_shape), self.src_dtype) if self.needs(1) else None)

    tangent = "linear"


def set_(t, source=None, storage_offset=0, size=None, stride=None):
    """``t.set_(source)``: ``t`` becomes another handle on ``source``'s memory (a tensor's, or a
    storage's from ``storage_offset`` with ``size`` and ``stride``, in elements; nothing: empty),
    as PyTorch's ``set_``. Writes through either are seen by both. It is an in-place change:
    refused on a leaf that requires grad unless grad mode is off, and ``t``'s version goes up.
    A leaf gets a new gradient accumulator, as in PyTorch: a hook on the old one no longer runs.

    >>> from diffcompare import autograd as ag
    >>> w = ag.zeros(2, requires_grad=True)
    >>> with ag.no_grad():
    ...     _ = w.set_(ag.ones(3))
    >>> (w * 2).sum().backward()
    >>> w.grad
    tensor([2., 2., 2.])
    """
    if STATE.grad_enabled and t.requires_grad:
        if t.grad_fn is None:
            raise RuntimeError(LEAF_INPLACE_ERROR)
        raise RuntimeError("set_() on a tensor with a history (the result of an op that requires grad) is not "
                           "supported by this engine: detach() it first, or call set_ under no_grad()")
    if source is None:
        array = np.empty((0,), t.dtype)
    elif isinstance(source, Tensor):
        if source.dtype != t.dtype:
            raise RuntimeError(f"Could not set tensor of type {scalar_name(source.dtype)} to a tensor of type "
                               f"{scalar_name(t.dtype)}")
        array = source._data
    elif isinstance(source, (UntypedStorage, TypedStorage)):
        elements = elements_of(source, t.dtype)
        size = tuple(elements.shape) if size is None else tuple(int(n) for n in size)
        if stride is None:
            stride = tuple(int(np.prod(size[k + 1:])) for k in range(len(size)))
        reach = storage_offset + sum((n - 1) * s for n, s in zip(size, stride)) + 1 if all(size) else storage_offset
        if storage_offset < 0 or reach > elements.size:
            raise RuntimeError(f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset "
                               f"{storage_offset}, and itemsize {elements.itemsize} requiring a storage size of "
                               f"{reach * elements.itemsize} are out of bounds for storage of size "
                               f"{elements.size * elements.itemsize}")
        array = np.lib.stride_tricks.as_strided(elements[storage_offset:], size,
                                                tuple(s * elements.itemsize for s in stride))
    else:
        raise TypeError(f"set_() expects a Tensor or a storage as its source, not {type(source).__name__}")
    t._data = array
    t._bump()
    t._accum = None
    return t


# what the family exports to `ops`
__all__ = ['set_', 'inplace_view', 'in_place', 'rename_node', 'rename_node_of', 'CopyBackwards', 'CopySlicesView', 'FillBackward2', 'FillBackward3', 'ZeroBackward0', 'LEAF_INPLACE_ERROR', 'VIEW_OF_LEAF_INPLACE_ERROR', 'copy_',
           'fill_', 'inplace_binary', 'inplace_unary', 'write_in_place', 'zero_', 'uniform_', 'normal_', 'random_']


def _zero_tangent(node, tangents, arrays, out):
    return np.zeros(np.shape(out), dtype=np.result_type(out))


class _Drawn(Op):
    """An in-place random draw (``uniform_``, ``normal_``, ``random_``): the new value does not
    depend on the old one, whose gradient (and tangent) is zero."""

    @staticmethod
    def forward(old, values):
        return np.asarray(values).astype(old.dtype, copy=False).reshape(old.shape)

    def backward(self, g):
        return (D.zeros_like(g) if self.needs(0) else None),

    tangent = staticmethod(_zero_tangent)


def _drawn_op(name):
    return type(name, (_Drawn,), {"__doc__": _Drawn.__doc__})


UniformBackward0, NormalBackward0 = _drawn_op("UniformBackward0"), _drawn_op("NormalBackward0")
# random_(from, to), random_(to), random_(): PyTorch's three overloads, numbered as it does
RANDOM_OPS = (_drawn_op("RandomBackward0"), _drawn_op("RandomBackward1"), _drawn_op("RandomBackward2"))


def _rng(generator):
    return rng_of(generator, global_generator())


def _check_floating(t, kernel):
    if t.dtype.kind not in "fc":
        raise NotImplementedError(f'"{kernel}" not implemented for \'{_torch_dtype_name(t.dtype)}\'')


def _torch_dtype_name(dtype):
    return {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
            "bool": "Bool"}.get(np.dtype(dtype).name, np.dtype(dtype).name)


def uniform_(t, a=0.0, b=1.0, *, generator=None):
    """``t.uniform_(a, b)``: ``t`` filled with draws from U[a, b) (``UniformBackward0``)."""
    _check_floating(t, "check_uniform_bounds")
    if a > b:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={a} > to={b}")
    values = uniform_draws(_rng(generator), a, b, t.shape, t.dtype)
    return write_in_place(t, lambda old: apply(UniformBackward0, (old,), {"values": values}))


def normal_(t, mean=0.0, std=1.0, *, generator=None):
    """``t.normal_(mean, std)``: ``t`` filled with draws from N(mean, std^2) (``NormalBackward0``)."""
    _check_floating(t, "normal_kernel_cpu")
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    values = normal_draws(_rng(generator), mean, std, t.shape, t.dtype)
    return write_in_place(t, lambda old: apply(NormalBackward0, (old,), {"values": values}))


def random_(t, *bounds, generator=None, **named):
    """``t.random_()``, ``t.random_(to)``, ``t.random_(from, to)``: integers drawn uniformly from
    [from, to); with no bounds from [0, 2**mantissa] for floating types and [0, max] for
    integer types, as PyTorch (``RandomBackward2``, ``1``, ``0``)."""
    if named:
        bounds = (named.pop("from", 0), named.pop("to", None)) if "from" in named else bounds + (named.pop("to"),)
    if named:
        raise TypeError(f"random_() got an unexpected keyword argument '{next(iter(named))}'")
    dtype = t.dtype
    if len(bounds) == 2 and bounds[1] is None:
        bounds = bounds[:1] if bounds[0] else ()
    if not bounds:
        if dtype.kind == "f":
            high = 2 ** np.finfo(dtype).nmant + 1
        elif dtype.kind == "b":
            high = 2
        else:
            high = int(np.iinfo(dtype).max) + 1
        low, op = 0, RANDOM_OPS[2]
    elif len(bounds) == 1:
        low, high, op = 0, int(bounds[0]), RANDOM_OPS[1]
    else:
        low, high, op = int(bounds[0]), int(bounds[1]), RANDOM_OPS[0]
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    values = _rng(generator).integers(low, high, size=t.shape, dtype=np.int64 if high <= 2**63 else np.uint64)
    return write_in_place(t, lambda old: apply(op, (old,), {"values": values}))
