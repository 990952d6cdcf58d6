"""How an op is recorded: the ``Op`` base class (a node whose ``backward`` is the op's VJP),
``apply`` (run the forward on arrays, record a node when a tensor input requires grad), the
broadcasting undone in backward (``sum_to``), and the checks of dimensions shared by the ops."""

from __future__ import annotations

import builtins
import functools
import traceback

import numpy as np

from ..dtypes import CATEGORY as _CATEGORY, DEFAULT_DTYPE, default_dtype, float64 as FLOAT64, promote_types
from ..device import META_SEEN, MetaArray, any_meta, as_meta, meta_array
from ..collector import MASK as COLLECTOR_MASK, checkpoint
from ..grad_mode import STATE
from ..gradients import ScaledGrad
from ..graph import FREED_ERROR, Node, SavedTensor, call_node, edge_of, sequence
from ..saved import HookedSavedTensor, refresh, save
from ..quiet import IGNORE as QUIET, reset_quiet, set_quiet
from ..tensor import DATA_REPLACED, Tensor
from .dual import D
from .forward import RESULT, with_tangent
from .short_axis import MIN_SIZE, summed, total

_max = builtins.max  # the names max, min, sum, abs, pow below are ops
_new_node = _new_saved = _new_tensor = object.__new__
_make = Tensor._make
_add_reduce = np.add.reduce     # what ndarray.sum calls


class Op(Node):
    """A differentiable operation: ``forward`` on arrays, ``backward`` for its VJP."""

    saves = ()          # what backward needs: input positions, RESULT, or parameter names
    broadcasts = False  # elementwise op with NumPy broadcasting: gradients summed back to shape
    fresh_results = True
    # backward for a batch of gradients g[b] stacked along a new leading axis, or None (row
    # by row). An elementwise op's own rule serves (``batched_backward = backward``): NumPy
    # broadcasting lines g's trailing axes up with the saved values.
    batched_backward = None
    # PyTorch's convention for complex tensors: the gradient is the conjugate Wirtinger one, so
    # a holomorphic op's VJP is g * conj(f'(z)). Its rule, written as g * f'(z), gets the
    # conjugates of its saved values (f' has real coefficients: f'(conj z) = conj f'(z)).
    # An op that is not holomorphic (abs, norm, var) has a rule written for complex inputs.
    holomorphic = True
    conjugate = False   # set when recorded on complex values
    # forward mode: how the result's tangent follows from the inputs' (see ops/forward.py):
    # "linear", "affine", "elementwise", "reduction", a function, or None (not supported)
    tangent = None
    # on meta inputs: a function of the forward's arguments giving the result's (shape, dtype)
    # without computing it (for ops whose inputs may be too large to compute on); None: the
    # forward runs on the zeros behind the meta arrays and its result becomes a meta array
    infer = None

    def __call__(self, *grad_outputs):
        """The backward called directly, as PyTorch's nodes are (``graph.call_node``).

        >>> from diffcompare import autograd as ag
        >>> w = ag.tensor([1.0, 2.0], requires_grad=True)
        >>> (w * 3).grad_fn(ag.ones(2))
        (tensor([3., 3.]), None)
        """
        return call_node(self, grad_outputs)

    def _apply(self, g, create_graph):
        saved = self._saved
        if DATA_REPLACED[0] and saved:
            refresh(saved)
        if saved is None:
            if self._freed:
                raise RuntimeError(FREED_ERROR)
            grads = self.backward(g)
        elif create_graph:
            values = self._unpack(True)
            if self.conjugate:
                values = [D.conj(v) if isinstance(v, Tensor) and v.dtype.kind == "c" else _conj(v) for v in values]
            grads = self.backward(g, *values)
        elif len(saved) == 1 and type(saved[0]) is SavedTensor and not self.conjugate:   # the common case
            s = saved[0]
            if s.counter[0] != s.version:
                s.unpack(self, False)   # raises the "modified by an inplace operation" error
            grads = self.backward(g, s.array)
        elif len(saved) == 2 and not self.conjugate and type(saved[0]) is SavedTensor \
                and type(saved[1]) is SavedTensor and saved[0].counter[0] == saved[0].version \
                and saved[1].counter[0] == saved[1].version:
            # two tensors saved without hooks (a product's, a quotient's), both unchanged since:
            # _unpacked_arrays without its loop
            grads = self.backward(g, saved[0].array, saved[1].array)
        else:
            grads = self.backward(g, *self._unpacked_arrays(saved))
        meta = self.meta
        if meta is not None:
            grads = tuple([_fit(gi, m) for gi, m in zip(grads, meta)])
        return grads

    def _unpacked_arrays(self, saved):
        order = self._unpack_order
        if order is None:
            values = []
            for s in saved:             # (inline: the common path of every backward step)
                if type(s) is SavedTensor:
                    if s.counter[0] != s.version:
                        s.unpack(self, False)   # raises the "modified by an inplace operation" error
                    values.append(np.conj(s.array) if self.conjugate else s.array)
                else:
                    values.append(self._saved_array(s))
            return values
        values = [None] * len(saved)        # packed through saved-tensor hooks: unpacked in that order
        for k in order:
            values[k] = self._saved_array(saved[k])
        return values

    def _saved_array(self, s):
        if type(s) is SavedTensor:
            if s.counter[0] != s.version:
                s.unpack(self, False)   # raises the "modified by an inplace operation" error
            return np.conj(s.array) if self.conjugate else s.array
        if type(s) is HookedSavedTensor:
            array = s.unpack(self, False)
            return np.conj(array) if self.conjugate else array
        return _conj(s) if self.conjugate else s

    def _apply_batched(self, g, size):
        """The backward for ``size`` gradients stacked along a leading axis: one call of
        ``batched_backward`` when the op has one, else row by row (``Node._apply_batched``)."""
        if type(self).batched_backward is None:
            return Node._apply_batched(self, g, size)
        saved = self._saved
        if saved is None and self._freed:
            raise RuntimeError(FREED_ERROR)
        grads = self.batched_backward(g, *self._unpacked_arrays(saved or ()))
        meta = self.meta
        if meta is not None:
            grads = tuple([_fit(gi, m, 1) for gi, m in zip(grads, meta)])
        return grads

    def _rows(self, g):
        """Row by row: for a batched rule that cannot take this batch at once."""
        return Node._apply_batched(self, g, len(g))

    def needs(self, i):
        """Whether input ``i`` wants a gradient (PyTorch's ``needs_input_grad``)."""
        return self._next[i] is not None


def _conj(value):
    """A saved constant's conjugate: complex numbers and arrays; anything else as it is."""
    if isinstance(value, complex) or (isinstance(value, np.ndarray) and value.dtype.kind == "c"):
        return np.conj(value)
    return value


def _fit(g, meta, batch=0):
    """Sum a broadcast gradient back to the input's shape and dtype (after ``batch`` leading axes)."""
    if g is None or meta is None:
        return g
    if type(g) is ScaledGrad:
        return ScaledGrad(_fit(g.values, meta, batch), g.factor)
    shape, dtype = meta
    if g.shape[batch:] != shape:
        g = sum_to(g, shape, batch)
    if g.dtype != dtype:
        g = D.cast(g, dtype)
    return g


def sum_to(g, shape, batch=0):
    """Sum ``g`` over the axes along which an array of ``shape`` was broadcast; the first
    ``batch`` axes of ``g`` (a batch of gradients) are kept as they are.

    >>> sum_to(np.ones((2, 3)), (3,)), sum_to(np.ones((4, 2, 3)), (1, 3), batch=1).shape
    (array([2., 2., 2.]), (4, 1, 3))
    """
    shape = tuple(g.shape[:batch]) + tuple(shape)
    if g.shape == shape:
        return g
    axes = sum_axes(g.shape, shape, batch)
    if axes:
        if type(g) is np.ndarray and g.size < MIN_SIZE:     # summed's and total's small case: g.sum
            g = _add_reduce(g, axes, None, None, True)
        else:
            g = summed((g,), axes) if type(g) is np.ndarray else total(g, axes, True)
        if isinstance(g, np.generic):       # a sum over every axis: kept an array, as others are
            g = np.asarray(g)
    return g.reshape(shape) if g.shape != shape else g


def sum_axes(g_shape, shape, batch=0):
    """The axes of a gradient of ``g_shape`` to sum for an input of ``shape`` broadcast to it
    (after ``batch`` leading axes kept as they are), in increasing order.

    >>> sum_axes((4, 2, 3), (2, 1)), sum_axes((5, 4, 3), (5, 1, 3), batch=1)
    ((0, 2), (1,))
    """
    lead = len(g_shape) - len(shape)
    return tuple(range(batch, batch + lead)) + tuple(
        lead + i for i, n in enumerate(shape) if i >= batch and n == 1 and g_shape[lead + i] != 1)


def apply(cls, args, params=None):
    """Run ``cls.forward`` on the arrays behind ``args`` and record a node if any tensor
    argument requires grad. Non-tensor arguments are constants."""
    needs_grad = False
    n = len(args)
    if n == 1:                   # the common one- and two-input ops, without the loop
        a = args[0]
        if isinstance(a, Tensor):
            arrays = (a._data,)
            needs_grad = a.requires_grad_flag or a._base is not None and view_requires_grad(a)
        else:
            arrays = args
    elif n == 2:
        a, b = args
        if isinstance(a, Tensor):
            needs_grad = a.requires_grad_flag or a._base is not None and view_requires_grad(a)
            a = a._data
        if isinstance(b, Tensor):
            needs_grad = needs_grad or b.requires_grad_flag or b._base is not None and view_requires_grad(b)
            b = b._data
        arrays = (a, b)
        if cls.broadcasts and type(a) is np.ndarray and type(b) is np.ndarray and a.dtype is not b.dtype:
            arrays = promoted(arrays)
    else:
        arrays = []
        for a in args:
            if isinstance(a, Tensor):
                arrays.append(a._data)
                if a.requires_grad_flag or a._base is not None and view_requires_grad(a):
                    needs_grad = True
            else:
                arrays.append(a)
        if cls.broadcasts:
            arrays = promoted(arrays)
    if META_SEEN[0] and any_meta(arrays):
        out = _meta_forward(cls, arrays, params)
    else:
        token = set_quiet(QUIET)
        try:
            out = cls.forward(*arrays, **params) if params else cls.forward(*arrays)
        except ValueError as error:
            raise _shape_error(arrays) or error
        finally:
            reset_quiet(token)
    if DEFAULT_DTYPE[0] is not FLOAT64 and type(out) is np.ndarray and out.dtype is FLOAT64:
        out = _in_default_dtype(out, arrays)
    state = STATE
    if needs_grad:
        if state.plain:         # recording with nothing extra (grad_mode.STATE.plain): the short path
            return record(cls, args, params, out, None)
        result = record(cls, args, params, out, state) if state.grad_enabled else _make(out)
    else:
        result = _make(out)
    if state.forward_level:
        with_tangent(result, cls, args, arrays, params, apply)
    return result


def promoted(arrays):
    """The operands of an elementwise op as PyTorch promotes tensors: a 0-d tensor does not
    raise the dtype of dimensioned ones of its category or a higher one (a float32 tensor times
    a float64 scalar tensor is float32); where its category is higher, the result takes its
    dtype (an int64 tensor plus a float32 scalar tensor is float32). NumPy would give float64
    for both; the 0-d operands are cast accordingly. Among dimensioned tensors (or among 0-d
    ones alone) a dtype of a higher category wins as it is: a float32 tensor times an int64
    one is float32 (``promote_types``), where NumPy gives float64.

    >>> [a.dtype.name for a in promoted((np.ones(2, np.float32), np.array(2.0)))]
    ['float32', 'float32']
    >>> [a.dtype.name for a in promoted((np.ones(2, np.int64), np.array(2.0, np.float32)))]
    ['float32', 'float32']
    >>> [a.dtype.name for a in promoted((np.ones(2, np.float32), np.ones(2, np.int64)))]
    ['float32', 'float32']
    """
    dims = [a for a in arrays if type(a) is np.ndarray and a.ndim]
    zeros = [a for a in arrays if type(a) is np.ndarray and not a.ndim]
    if not dims:
        dims, zeros = zeros, []
    if len(dims) > 1:
        arrays = _across_categories(arrays, dims)
        dims = [a for a in arrays if type(a) is np.ndarray and a.ndim] or [a for a in arrays if type(a) is np.ndarray]
    if not dims or not zeros:
        return arrays
    top = _max(_CATEGORY[a.dtype.kind] for a in dims)
    zero_top = _max(_CATEGORY[a.dtype.kind] for a in zeros)
    if zero_top <= top:
        target = np.result_type(*dims)
        cast = [a for a in zeros if a.dtype != target]
    else:
        target = np.result_type(*[a for a in zeros if _CATEGORY[a.dtype.kind] == zero_top])
        cast = [a for a in arrays if type(a) is np.ndarray and a.dtype != target and _CATEGORY[a.dtype.kind] < zero_top]
    if not cast:
        return arrays
    ids = {id(a) for a in cast}
    return tuple(a.astype(target) if id(a) in ids else a for a in arrays)


def _across_categories(arrays, dims):
    """``arrays`` with those of ``dims`` of a lower category than the others' cast to PyTorch's
    promoted dtype (NumPy widens float32 with int64 to float64)."""
    first = dims[0].dtype
    if all(a.dtype == first or _CATEGORY[a.dtype.kind] == _CATEGORY[first.kind] for a in dims):
        return arrays
    target = functools.reduce(promote_types, (a.dtype for a in dims))
    ids = {id(a) for a in dims if _CATEGORY[a.dtype.kind] < _CATEGORY[target.kind]}
    return tuple(a.astype(target) if id(a) in ids else a for a in arrays)


def _in_default_dtype(out, arrays):
    """A float64 result NumPy made of integer (or bool) tensors in the default dtype, as
    PyTorch makes it (``int_tensor / 2`` is float32 under a float32 default); a result of a
    float64 tensor stays float64."""
    for a in arrays:
        if isinstance(a, np.ndarray) and a.dtype.kind in "fc":
            return out
    return out.astype(DEFAULT_DTYPE[0])


def view_requires_grad(a):
    """Whether a view that does not require grad itself is recorded all the same: when its
    base requires grad, as PyTorch's views say (one taken in no_grad mode, one whose base took
    a history since by an in-place write). Recording, its history is brought up to date first
    (``grad_fn``), which may give it one."""
    if not a._base.requires_grad_flag:
        return False
    if STATE.grad_enabled and a._vc[0] != a._view_meta[0]:
        a.grad_fn           # noqa: B018 (the property makes the view's new history)
    return True


def _meta_forward(cls, arrays, params):
    """The result of ``cls`` on inputs of which one is on the meta device: a meta array of the
    result's shape and dtype, as PyTorch's meta kernels give (from ``cls.infer`` when the op
    has it, else from the forward run on the zeros behind the meta arrays)."""
    if cls.infer is not None:
        shape, dtype = cls.infer(*arrays, **params) if params else cls.infer(*arrays)
        return meta_array(shape, dtype)
    token = set_quiet(QUIET)
    try:
        out = cls.forward(*arrays, **params) if params else cls.forward(*arrays)
    except ValueError as error:
        raise _shape_error(arrays) or error
    finally:
        reset_quiet(token)
    return as_meta(out)


def _shape_error(arrays):
    """PyTorch's words for operands whose shapes do not broadcast (None if they do)."""
    shapes = [np.shape(a) for a in arrays if isinstance(a, np.ndarray)]
    if not shapes:
        return None
    running = shapes[0]   # broadcast one operand at a time: "tensor a" is the shape so far
    for shape in shapes[1:]:
        ndim = _max(len(running), len(shape))
        for k in range(1, ndim + 1):
            a = running[-k] if k <= len(running) else 1
            b = shape[-k] if k <= len(shape) else 1
            if a != b and a != 1 and b != 1:
                return RuntimeError(f"The size of tensor a ({a}) must match the size of tensor b ({b}) at "
                                    f"non-singleton dimension {ndim - k}")
        running = np.broadcast_shapes(running, shape)
    return None


def _hooked(cls, args, params, result) -> tuple:
    """(the saved values through the active saved-tensor hooks, the order they were packed in):
    PyTorch's order — the inputs from the last to the first (``other`` before ``self``; an op
    with ``packs_in_order`` from the first), then the result; backward unpacks them in it too."""
    saves = cls.saves
    saved = [None] * len(saves)
    sign = 1 if getattr(cls, "packs_in_order", False) else -1
    order = sorted(range(len(saves)), key=lambda k: (type(saves[k]) is not int, saves[k] == RESULT,
                                                      sign * saves[k] if type(saves[k]) is int else 0))
    for k in order:
        i = saves[k]
        if type(i) is not int:
            saved[k] = params[i]
        elif i == RESULT:
            saved[k] = save(result, True)
        else:
            a = args[i]
            saved[k] = save(a, False) if isinstance(a, Tensor) else a
    return saved, order


def record(cls, args, params, out, state=STATE):
    """The node of ``cls`` applied to ``args`` (``out``: its forward's result) and the result
    tensor. ``state``: ``grad_mode.STATE``, or None when it is ``plain`` (no anomaly mode,
    saved-tensor hooks or recorder to see to)."""
    if type(out) is not np.ndarray and type(out) is not MetaArray:
        out = np.asarray(out)
    node = _new_node(cls)
    several = False
    n = len(args)
    if n == 1:              # the common one- and two-input ops, without building a list
        a = args[0]
        # an input made by an op, not a view: its grad_fn is the edge (_edge_node's first case)
        fn = a._grad_fn if type(a) is Tensor and a._base is None and a.requires_grad_flag else None
        if fn is None:
            fn = _edge_node(a)
        if fn is not None and fn._special and (a._output_nr or fn.n_outputs != 1):
            several = True
        node._next = (fn,)
    elif n == 2:
        a, b = args
        # _edge_node, inline for the two inputs of the most common ops
        if isinstance(a, Tensor) and a.requires_grad_flag:
            fn = a._grad_fn if a._base is None or a._vc[0] == a._view_meta[0] else a.grad_fn     # (a view's brought up to date)
            if fn is None:
                fn = _edge_node(a)
            elif fn._special and (a._output_nr or fn.n_outputs != 1):
                several = True
        else:
            fn = None
        if isinstance(b, Tensor) and b.requires_grad_flag:
            fn2 = b._grad_fn if b._base is None or b._vc[0] == b._view_meta[0] else b.grad_fn
            if fn2 is None:
                fn2 = _edge_node(b)
            elif fn2._special and (b._output_nr or fn2.n_outputs != 1):
                several = True
        else:
            fn2 = None
        node._next = (fn, fn2)
    else:
        nexts = []
        for a in args:
            fn = _edge_node(a)
            if fn is not None and fn._special and (a._output_nr or fn.n_outputs != 1):
                several = True          # an input is one of several outputs: the walk fills slots
            nexts.append(fn)
        node._next = tuple(nexts)
    if several:
        node._nrs = tuple([a._output_nr if isinstance(a, Tensor) and a.requires_grad_flag else 0 for a in args])
    seq = node.seq = next(sequence)
    if not seq & COLLECTOR_MASK:
        checkpoint(node)
    if state is not None and state.anomaly_enabled:
        node._trace = traceback.format_stack()[:-3]
    if params:
        node.__dict__.update(params)
    # Tensor._make(out, True, node), inline (out is an array: checked above)
    result = _new_tensor(Tensor)
    result._data = out
    result.requires_grad_flag = True
    result._grad_fn = node
    result._grad = result._base = result._hooks = result._post_hooks = result._accum = result._view_fn = \
        result._tangent = result._vc = None
    result._output_nr = 0
    result._retains_grad = False
    saves = cls.saves
    if saves:
        if cls.holomorphic and out.dtype.kind == "c":
            node.conjugate = True
        if state is not None and state.saved_hooks:
            node._saved, node._unpack_order = _hooked(cls, args, params, result)
        else:
            saved = []
            for i in saves:
                if type(i) is int:
                    if i == RESULT:
                        # SavedTensor(result, True) without the call: a new tensor, at version 0
                        # of a new counter, output 0, with no tangent yet (forward mode adds it later)
                        s = _new_saved(SavedTensor)
                        s.counter = result._vc = [0]
                        s.version = s.output_nr = 0
                        s.array = result._data
                        s.tangent = s.grad_fn = s.leaf = s.source = None
                        saved.append(s)
                    else:
                        a = args[i]
                        saved.append(SavedTensor(a, False) if isinstance(a, Tensor) else a)
                else:
                    saved.append(params[i])
            node._saved = saved
    if cls.broadcasts:
        # Gradients need fitting back only where an input that wants one has a shape or dtype
        # other than the output's (an input that wants none gets None: its gradient is dropped)
        shape, dtype = out.shape, out.dtype
        nexts = node._next
        for a, fn in zip(args, nexts):
            if fn is not None:
                data = a._data
                if data.dtype is not dtype or data.shape != shape:
                    node.meta = tuple([(t._data.shape, t._data.dtype) if fn is not None else None
                                       for t, fn in zip(args, nexts)])
                    break
    if state is not None and state.recorder is not None:
        state.recorder(node, args, params, (result,))
    return result


def _edge_node(a):
    """The node an input's gradient goes to: its grad_fn, a leaf's AccumulateGrad (made on first
    need), or None for a constant or a tensor that does not require grad."""
    if type(a) is not Tensor and not isinstance(a, Tensor) or not a.requires_grad_flag:
        return None
    fn = a._grad_fn if a._base is None or a._vc[0] == a._view_meta[0] else a.grad_fn     # (a view's brought up to date)
    if fn is None:
        ref = a._accum
        fn = ref() if ref is not None else None
        if fn is None:
            fn = edge_of(a)[0]
    return fn


def check_dim(dim, ndim):
    """``dim`` as a non-negative axis of an ``ndim``-dimensional tensor, or PyTorch's IndexError.
    A 0-d tensor accepts dims -1 and 0, as in PyTorch."""
    size = _max(ndim, 1)
    if not -size <= dim < size:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-size}, {size - 1}], but got {dim})")
    return dim % size if ndim else 0


def floating_dtype(*operands):
    """The dtype of a floating-point function of ``operands`` (tensors, arrays and numbers) as
    PyTorch promotes them: the floating dtypes of the operands with dimensions, else of the
    0-d ones, promoted together; the default dtype when neither has one (integer and bool
    tensors, Python numbers).

    >>> from diffcompare import autograd as ag
    >>> floating_dtype(ag.tensor([1.0], dtype=ag.float32), ag.tensor(2.0)), floating_dtype(ag.tensor([1, 2]), 0.5)
    (dtype('float32'), dtype('float64'))
    """
    shaped, scalars = [], []
    for v in operands:
        data = v._data if isinstance(v, Tensor) else v
        if isinstance(data, np.ndarray) and data.dtype.kind == "f":
            (shaped if data.ndim else scalars).append(data.dtype)
    for found in (shaped, scalars):
        if found:
            dtype = found[0]
            for other in found[1:]:
                dtype = np.promote_types(dtype, other)
            return dtype
    return np.dtype(default_dtype())


def array_of(v):
    """The array behind a tensor (anything else as it is)."""
    return v._data if isinstance(v, Tensor) else v


# what the family exports to `ops`
__all__ = ['Op', 'RESULT', 'apply', 'array_of', 'check_dim', 'floating_dtype', 'record', 'sum_to']
