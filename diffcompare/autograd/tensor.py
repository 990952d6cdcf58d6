"""``Tensor``: a NumPy array plus what reverse mode needs (``requires_grad``, ``grad``,
``grad_fn``), and the factories that make tensors.

>>> from diffcompare import autograd as ag
>>> x = ag.tensor([1.0, 2.0], requires_grad=True)
>>> x
tensor([1., 2.], requires_grad=True)
>>> y = (x * x).sum()
>>> y
tensor(5., grad_fn=<SumBackward0>)
>>> y.backward()
>>> x.grad
tensor([2., 4.])
"""

from __future__ import annotations

import functools
import json
import numbers
import warnings
import weakref
from typing import Any

import numpy as np

from .device import META, MetaArray as _MetaArray, as_meta as _as_meta, check as _check_device, is_meta as _is_meta
from .device import meta_array as _meta_array, refuse_meta
from .dtypes import default_complex, default_dtype, int64, promote_types
from .fused import fused_multiply_add
from .grad_mode import STATE
from .generators import DEFAULT_SEED, check_vmap_randomness, rng_of, standard_normal, standard_uniform
from .printing import tensor_repr
from .size import Size, as_size as _as_size
from .storage import TypedStorage, UntypedStorage, elements_of, storage_root as _storage_root

NON_LEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad field "
    "to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you "
    "access the non-leaf Tensor by mistake, make sure you access the leaf Tensor instead. See "
    "github.com/pytorch/pytorch/pull/30531 for more information."
)
SCALAR_CONVERSION_WARNING = (
    "Converting a tensor with requires_grad=True to a scalar may lead to unexpected behavior.\n"
    "Consider using tensor.detach() first."
)


# the leaves whose grad_dtype was set to something else than their dtype: id -> (weak reference, dtype or None)
GRAD_DTYPES = {}

_SCALAR_NAMES = {"float64": "double", "float32": "float", "float16": "half", "int64": "long", "int32": "int",
                 "int16": "short", "int8": "char", "uint8": "unsigned char", "bool": "bool",
                 "complex128": "c10::complex<double>", "complex64": "c10::complex<float>"}


def scalar_name(dtype, title=False):
    """PyTorch's C++ name of a dtype in its messages ('double'; with ``title`` 'Double')."""
    name = _SCALAR_NAMES.get(np.dtype(dtype).name, np.dtype(dtype).name)
    return name.title() if title else name


def _dtype(dtype):
    return None if dtype is None else np.dtype(dtype)


def _is_float(dtype) -> bool:
    return dtype.kind in "fc"


class GraphBreakWarning(UserWarning):
    """A tensor that requires grad was turned into a plain number (``float(x)``, ``math.sin(x)``):
    what follows is outside the graph. PyTorch warns with a UserWarning; this is one."""


# Whether a tensor's data has ever been replaced (``t.data = other``): only then does backward
# look for saved inputs whose data was replaced after they were saved (``saved.refresh``)
DATA_REPLACED = [False]

# the legacy constructor's alias of a tensor (``torch.Tensor(t)``): ``ops.alias``, put here
# when the ops are imported (they are built on Tensor)
LEGACY_ALIAS = []

NUMPY_OF_GRAPH = "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."


class Operators:
    """Tensor's base, where its operators and methods (``+``, ``sin``, ``sum``) come from.

    They are the functions of :mod:`.ops`, and the ops build on ``Tensor``; so they are the
    attributes of :class:`.operators.TensorOperators`, a subclass of this empty class defined
    after the ops, which takes its place among Tensor's bases when the package is imported.
    """

    __slots__ = ()


class Tensor(Operators):
    """A multi-dimensional array that can record the operations applied to it.

    Build one with :func:`tensor` or a factory; ``Tensor(data)`` works too.

    >>> from diffcompare import autograd as ag
    >>> w = ag.tensor(2.0, requires_grad=True)
    >>> b = w * 4
    >>> b.backward()
    >>> w.grad
    tensor(4.)
    """

    # ``_grad_fn`` is the node behind the ``grad_fn`` property (``TensorOperators``), which first
    # brings a view up to date when its base was written in place; ``_view_meta`` is a view's
    # (version of its history, how it was made: None, or what PyTorch refuses to rebase)
    # (``__dict__``: user code may keep its own attributes on a tensor, ``inp.g = ...``, as on PyTorch's)
    __slots__ = ("_data", "requires_grad_flag", "_grad_fn", "_grad", "_vc", "_base", "_output_nr",
                 "_retains_grad", "_hooks", "_post_hooks", "_accum", "_view_fn", "_view_meta", "_tangent",
                 "__weakref__", "__dict__")
    # (NumPy's ufuncs on tensors, `array * tensor` among them: TensorOperators.__array_ufunc__)

    def __new__(cls, *args, **kwargs):
        self = object.__new__(cls)
        if args and cls.__init__ is not Tensor.__init__:
            # a subclass with an __init__ of its own, which may call super().__init__() without
            # the data: PyTorch builds the tensor in __new__, from the constructor's arguments
            self.__dict__["_constructed_from"] = (args, kwargs)
        return self

    def __init__(self, *args, requires_grad=False, dtype=None, device=None):
        if not args:
            given = self.__dict__.pop("_constructed_from", None)
            if given is not None:
                args = given[0]
                requires_grad = given[1].get("requires_grad", requires_grad)
                dtype, device = given[1].get("dtype", dtype), given[1].get("device", device)
        else:
            self.__dict__.pop("_constructed_from", None)
        # torch.Tensor(data), torch.Tensor(*sizes) or torch.Tensor(torch.Size): sizes give a tensor
        # of that shape (zeros; PyTorch's are uninitialised), data a floating tensor of it
        if args and all(type(a) is int or isinstance(a, numbers.Integral) and not isinstance(a, bool) for a in args) \
                or len(args) == 1 and isinstance(args[0], Size):
            data = np.zeros(tuple(args[0]) if isinstance(args[0], Size) else args, dtype=_dtype(dtype) or default_dtype())
        elif len(args) > 1:
            raise TypeError("new() received an invalid combination of arguments: expected sizes (ints) or one "
                            "sequence of data, got " + ", ".join(type(a).__name__ for a in args))
        else:
            data = args[0] if args else None
            if isinstance(data, (float, complex, bool)):
                raise TypeError(f"new(): data must be a sequence (got {type(data).__name__})")
        if device is not None:
            _check_device(device)
        if isinstance(data, Tensor) and dtype is None and LEGACY_ALIAS:
            # PyTorch's alias of a tensor: a view of all of it (AliasBackward0), its history kept
            alias = LEGACY_ALIAS[0](data)
            for name in _SLOTS:
                try:
                    setattr(self, name, getattr(alias, name))
                except AttributeError:      # (a slot the alias never set)
                    pass
            if requires_grad:
                self.requires_grad = True
            return
        if isinstance(data, Tensor) and dtype is None:
            array = data._data          # (before the ops are imported: its storage, its dtype)
        elif isinstance(data, UntypedStorage):
            array = elements_of(data, _dtype(dtype) or default_dtype())     # sharing its memory
        else:
            if isinstance(data, Tensor):
                data = data._data
            array = np.array([] if data is None else data, dtype=_dtype(dtype))
            if array.dtype.kind not in "fciub":
                raise TypeError(f"can't build a tensor from data of dtype {array.dtype}")
            if dtype is None and array.dtype != default_dtype():
                # data (a list, an array of any dtype) in the default dtype, as torch.Tensor is
                # the default type's constructor: torch.Tensor(np.zeros(2)) is float32 by default
                if array.dtype.kind == "c":
                    if not isinstance(data, np.ndarray):
                        raise TypeError("must be real number, not complex")
                    warnings.warn("Casting complex values to real discards the imaginary part", UserWarning,
                                  stacklevel=2)
                    array = array.real
                array = array.astype(default_dtype())
        _init(self, array, False, None, None)
        if requires_grad:
            self.requires_grad = True

    @classmethod
    def _make(cls, data, requires_grad=False, grad_fn=None, counter=None):
        """Wrap an array without copying or checking: the engine's fast constructor."""
        t = object.__new__(cls)
        t._data = data if type(data) is np.ndarray or type(data) is _MetaArray else np.asarray(data)
        t.requires_grad_flag = requires_grad
        t._grad_fn = grad_fn
        t._grad = t._base = t._hooks = t._post_hooks = t._accum = t._view_fn = t._tangent = None
        t._vc = counter
        t._output_nr = 0
        t._retains_grad = False
        return t

    # -- basic attributes -------------------------------------------------------------------
    @property
    def requires_grad(self) -> bool:
        """Whether gradients are recorded for this tensor; a view's also when its base's are,
        as in PyTorch (a view taken in no_grad mode of a tensor that requires grad says True)."""
        return self.requires_grad_flag or self._base is not None and self._base.requires_grad_flag

    @requires_grad.setter
    def requires_grad(self, value):
        self._set_requires_grad(value)

    def requires_grad_(self, requires_grad=True):
        """Set ``requires_grad`` on a leaf; returns the tensor. Refused, as in PyTorch, inside a
        function that ``torch.func`` transforms (``vmap``, ``grad``, ``vjp``, ``jvp``,
        ``jacrev``, ``jacfwd``): there the transform says what to differentiate.

        >>> from diffcompare import autograd as ag
        >>> ag.tensor([1.0]).requires_grad_()
        tensor([1.], requires_grad=True)
        """
        if STATE.mapping or STATE.transforms:
            raise RuntimeError(TRANSFORMED_REQUIRES_GRAD_ERROR)
        return self._set_requires_grad(requires_grad)

    def _set_requires_grad(self, requires_grad):
        """``requires_grad_`` without the transforms' refusal: the attribute's setter (which
        PyTorch allows inside them) and the factories' ``requires_grad=True``."""
        if self.grad_fn is not None:
            if not requires_grad:
                raise RuntimeError(
                    "you can only change requires_grad flags of leaf variables. If you want to use a "
                    "computed variable in a subgraph that doesn't require differentiation use "
                    "var_no_grad = var.detach()."
                )
            return self
        if requires_grad and not _is_float(self._data.dtype):
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        self.requires_grad_flag = bool(requires_grad)
        return self

    @property
    def is_leaf(self) -> bool:
        return self.grad_fn is None

    @property
    def data(self) -> "Tensor":
        """The same storage as a tensor outside the graph (and outside version tracking)."""
        return Tensor._make(self._data)

    @data.setter
    def data(self, value):
        new = np.asarray(value._data if isinstance(value, Tensor) else value)
        if new is not self._data:
            DATA_REPLACED[0] = True     # backward then reads saved inputs from their tensors (saved.refresh)
        self._data = new

    @property
    def grad(self):
        if self.grad_fn is not None and not self._retains_grad and self._grad is None:
            warnings.warn(NON_LEAF_GRAD_WARNING, UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value):
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type {type(value).__name__}")
            if value.shape != self.shape:
                raise RuntimeError(
                    f"attempting to assign a gradient of size '{list(value.shape)}' to a tensor of "
                    f"size '{list(self.shape)}'. Please ensure that the gradient and the tensor are the same size"
                )
            wanted = GRAD_DTYPES[id(self)][1] if GRAD_DTYPES and id(self) in GRAD_DTYPES else self.dtype
            if wanted is not None and value.dtype != wanted:
                raise RuntimeError(
                    f"attempting to assign a gradient with dtype '{scalar_name(value.dtype)}' to a tensor with "
                    f"grad_dtype '{scalar_name(wanted, True)}'. The gradient must match the tensor's grad_dtype "
                    "(defaults to the tensor's dtype). You can set the tensor's grad_dtype attribute with a specific "
                    "dtype, or None to allow any dtype. Set grad_dtype with caution. Diverging the dtypes of a tensor "
                    "and its gradient may break downstream systems that assume they match."
                )
        self._grad = value

    @grad.deleter
    def grad(self):
        """``del x.grad``: the gradient is dropped (``x.grad`` is None), as in PyTorch."""
        self._grad = None

    @property
    def grad_dtype(self):
        """The dtype ``.grad`` must have (the tensor's own unless set; None: any), as in PyTorch
        2.13; only leaves have one. Gradients accumulated by backward are cast to it.

        >>> from diffcompare import autograd as ag
        >>> x = ag.tensor([1.0, 2.0], requires_grad=True)
        >>> x.grad_dtype = ag.float32
        >>> (x * 2).sum().backward()
        >>> x.grad.dtype, x.grad_dtype
        (dtype('float32'), dtype('float32'))
        """
        if self.grad_fn is not None:
            raise RuntimeError("grad_dtype can only be accessed on leaf tensors.")
        entry = GRAD_DTYPES.get(id(self)) if GRAD_DTYPES else None
        return self._data.dtype if entry is None else entry[1]

    @grad_dtype.setter
    def grad_dtype(self, dtype):
        if self.grad_fn is not None:
            raise RuntimeError("grad_dtype can only be set on leaf tensors.")
        key = id(self)
        if dtype is not None and np.dtype(dtype) == self._data.dtype:
            GRAD_DTYPES.pop(key, None)
            return
        if key not in GRAD_DTYPES:
            weakref.finalize(self, GRAD_DTYPES.pop, key, None)
        GRAD_DTYPES[key] = (weakref.ref(self), None if dtype is None else np.dtype(dtype))

    def stride(self, dim=None):
        """The step in elements between neighbours along each dimension (along ``dim`` alone
        when given), as PyTorch reports it.

        >>> from diffcompare import autograd as ag
        >>> x = ag.zeros(2, 5)
        >>> x.stride(), x.t().stride(), x.stride(-1)
        ((5, 1), (1, 5), 1)
        """
        size = self._data.itemsize
        strides = tuple(s // size for s in self._data.strides)
        if dim is None:
            return strides
        if not -max(self._data.ndim, 1) <= dim < max(self._data.ndim, 1):
            raise IndexError(f"Dimension out of range (expected to be in range of [{-max(self._data.ndim, 1)}, "
                             f"{max(self._data.ndim, 1) - 1}], but got {dim})")
        return strides[dim] if strides else 1

    def storage_offset(self):
        """Where the tensor's first element lies in the storage it shares with its base, in elements.

        >>> from diffcompare import autograd as ag
        >>> x = ag.tensor([1, 2, 3, 4, 5])
        >>> x.storage_offset(), x[3:].storage_offset()
        (0, 3)
        """
        root = _storage_root(self._data)
        if type(self._data) is _MetaArray or root is self._data:
            return 0
        start = self._data.__array_interface__["data"][0] - root.__array_interface__["data"][0]
        return start // self._data.itemsize

    def data_ptr(self):
        """The address of the first element."""
        return self._data.__array_interface__["data"][0]

    def untyped_storage(self):
        """The memory this tensor and its views share, as bytes (``data_ptr()``, ``nbytes()``)."""
        refuse_meta(self._data, "untyped_storage")
        return UntypedStorage(self._data)

    def storage(self):
        """The memory this tensor and its views share, as elements (deprecated, as in PyTorch)."""
        refuse_meta(self._data, "storage")
        return TypedStorage(self._data)

    @property
    def retains_grad(self) -> bool:
        return self._retains_grad

    @property
    def _version(self) -> int:
        return self._counter()[0]

    def _counter(self):
        """The version counter, shared by views and detached handles; made on first need so
        that tensors nobody saves or modifies never carry one."""
        vc = self._vc
        if vc is None:
            vc = self._vc = [0]     # a one-item list: the cheapest mutable cell
        return vc

    def _bump(self):
        self._counter()[0] += 1

    @property
    def shape(self):
        return _as_size(self._data.shape)

    @property
    def ndim(self) -> int:
        return self._data.ndim

    @property
    def dtype(self):
        return self._data.dtype

    @property
    def T(self):
        return self.permute(*reversed(range(self.ndim)))

    @property
    def mT(self):
        return self.transpose(-2, -1)

    def size(self, dim=None):
        return _as_size(self._data.shape) if dim is None else self._data.shape[dim]

    def dim(self) -> int:
        return self._data.ndim

    def numel(self) -> int:
        return self._data.size

    def __len__(self):
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self):
        """The tensor's rows, as PyTorch gives them: ``unbind(0)`` (UnbindBackward0 views)."""
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    # -- conversions ------------------------------------------------------------------------
    def item(self):
        """The value of a one-element tensor as a Python number."""
        refuse_meta(self._data, "item")
        if self._data.size != 1:
            raise RuntimeError(
                f"a Tensor with {self._data.size} elements cannot be converted to Scalar"
            )
        return self._data.reshape(()).item()

    def __float__(self):
        if self.requires_grad:
            warnings.warn(SCALAR_CONVERSION_WARNING, GraphBreakWarning, stacklevel=2)
        return float(self.item())

    def __int__(self):
        return int(self.item())

    def __complex__(self):
        return complex(self.item())

    def apply_(self, callable):  # noqa: A002  (PyTorch's name)
        """Replace every entry by ``callable(entry)`` in place (slow: one Python call each)."""
        return self._elementwise_in_place("apply_", lambda: np.vectorize(callable, otypes=[self._data.dtype])(
            self._data))

    def map_(self, tensor, callable):  # noqa: A002
        """Replace every entry by ``callable(entry, other)``, ``other`` the entry of ``tensor``
        (broadcast) at the same place, in place."""
        other = np.broadcast_to(tensor._data if isinstance(tensor, Tensor) else np.asarray(tensor),
                                self._data.shape)
        return self._elementwise_in_place("map_", lambda: np.vectorize(callable, otypes=[self._data.dtype])(
            self._data, other))

    def _elementwise_in_place(self, name, compute):
        if self.requires_grad:
            raise RuntimeError(f"Can't call {name}() on Variable that requires grad. Use var.detach().{name}() "
                               "instead.")
        self._data[...] = compute()
        self._bump()
        return self

    def __contains__(self, element):
        """``element in t``: whether any entry equals ``element`` (a number or a tensor)."""
        if isinstance(element, (Tensor, numbers.Number)) or type(element) is bool:
            return bool((self == element).any().item())
        raise RuntimeError(f"Tensor.__contains__ only supports Tensor or scalar, but you passed in a "
                           f"{type(element)}.")

    def __reversed__(self):
        """The tensor with its first dimension reversed (itself when it is 0-d), as PyTorch's."""
        return self if self._data.ndim == 0 else self.flip(0)

    def __bool__(self):
        if self._data.size != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self._data.reshape(()))

    def __index__(self):
        if self._data.dtype.kind not in "iub" or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self._data.reshape(()))

    def numpy(self, *, force=False) -> np.ndarray:
        """The underlying array (shared, not copied); refused for a tensor that requires grad
        unless ``force=True`` (PyTorch's ``t.detach().cpu().numpy()`` in one call).

        >>> from diffcompare import autograd as ag
        >>> ag.tensor([1.0, 2.0], requires_grad=True).numpy(force=True)
        array([1., 2.])
        """
        if self.requires_grad and not force and STATE.grad_enabled:     # (allowed under no_grad, as in PyTorch)
            raise RuntimeError(NUMPY_OF_GRAPH)
        refuse_meta(self._data, "numpy")
        return self._data

    def __array__(self, dtype=None, copy=None):
        """NumPy's view of the tensor; refused, as in PyTorch, for one that requires grad:
        ``np.dot(x, x)`` would otherwise drop the graph without a word (allowed under no_grad,
        where nothing is recorded, as in PyTorch)."""
        if self.requires_grad_flag and STATE.grad_enabled:
            raise RuntimeError(NUMPY_OF_GRAPH)
        return self._data if dtype is None else self._data.astype(dtype)

    def tolist(self):
        refuse_meta(self._data, "tolist")
        return self._data.tolist()

    def detach(self) -> "Tensor":
        """A new leaf sharing storage and version counter, outside the graph."""
        return Tensor._make(self._data, False, None, self._counter())

    def detach_(self) -> "Tensor":
        self._grad_fn = None
        self.requires_grad_flag = False
        return self

    def retain_grad(self) -> None:
        """Keep ``.grad`` for this non-leaf tensor during backward (no-op on a leaf).

        >>> from diffcompare import autograd as ag
        >>> x = ag.tensor([1.0, 2.0], requires_grad=True)
        >>> y = x * 2
        >>> y.retain_grad()
        >>> (y * y).sum().backward()
        >>> y.grad
        tensor([4., 8.])
        """
        if not self.requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self.grad_fn is None or self._retains_grad:
            return

        fn = self.grad_fn
        if fn._retained is None:
            fn._retained = {}
            fn._special = True
        fn._retained[self._output_nr] = weakref.ref(self)
        self._retains_grad = True

    def _forget_retained(self) -> bool:
        """Stop keeping ``.grad`` from this tensor's current node (it is about to get a new one,
        an in-place change; the caller retains it there). Returns whether it was kept."""
        if not self._retains_grad:
            return False
        retained = self._grad_fn._retained if self._grad_fn is not None else None
        ref = retained.get(self._output_nr) if retained else None
        if ref is not None and ref() is self:
            del retained[self._output_nr]
        self._retains_grad = False
        return True

    def register_hook(self, hook):
        """Call ``hook(grad)`` when this tensor's gradient is computed; a returned tensor
        replaces the gradient. Returns a handle with ``remove()``.

        >>> from diffcompare import autograd as ag
        >>> x = ag.tensor([1.0, 2.0], requires_grad=True)
        >>> h = x.register_hook(lambda g: g * 10)
        >>> x.sum().backward()
        >>> x.grad
        tensor([10., 10.])
        """
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is None:
            if self._hooks is None:
                self._hooks = {}
            return HookHandle(self._hooks, hook)
        fn = self.grad_fn
        if fn._pre_hooks is None:
            fn._pre_hooks = {}
            fn._special = True
        return HookHandle(fn._pre_hooks.setdefault(self._output_nr, {}), hook)

    def register_post_accumulate_grad_hook(self, hook):
        """Call ``hook(tensor)`` after a leaf's ``.grad`` has been written."""
        if self.grad_fn is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self._post_hooks is None:
            self._post_hooks = {}
        return HookHandle(self._post_hooks, hook)


    # -- display ----------------------------------------------------------------------------
    def __repr__(self):
        return tensor_repr(self)

    __str__ = __repr__

    def _repr_html_(self):
        """Jupyter's view: the repr in a monospaced block (a notebook would otherwise wrap it)."""
        text = tensor_repr(self).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        return f"<pre>{text}</pre>"

    def __hash__(self):   # __eq__ is elementwise (TensorOperators): hash by identity
        return id(self)

    def __reduce__(self):
        # (a tensor with history comes back a leaf that requires grad, as PyTorch's does)
        return (_rebuild, (self._data, self.requires_grad))

    def __deepcopy__(self, memo):
        """A copy of a leaf with its class (a Parameter stays one), device and ``.grad``, as
        PyTorch's; a tensor with history refuses, as there."""
        if self.grad_fn is not None:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) support the deepcopy "
                               "protocol at the moment.")
        if id(self) in memo:
            return memo[id(self)]
        new = type(self)._make(np.array(self._data), self.requires_grad_flag)
        if _is_meta(self._data):
            new._data = _as_meta(self._data)
        memo[id(self)] = new
        if self._grad is not None:
            new._grad = self._grad.__deepcopy__(memo)
        return new


def _rebuild(data, requires_grad):
    return Tensor._make(data, requires_grad)


_SLOTS = [name for name in Tensor.__slots__ if name not in ("__weakref__", "__dict__")]


def _init(t, data, requires_grad, grad_fn, counter):
    t._data = data
    t.requires_grad_flag = requires_grad
    t._grad_fn = grad_fn
    t._grad = None
    t._vc = counter
    t._base = None
    t._output_nr = 0
    t._retains_grad = False
    t._hooks = None
    t._post_hooks = None
    t._accum = None
    t._view_fn = None
    t._tangent = None       # forward-mode AD: the tangent array at the open dual level


class HookHandle:
    """What ``register_hook`` returns: ``remove()`` takes the hook out again."""

    _next_id = 0

    def __init__(self, table, hook):
        self.id = HookHandle._next_id     # PyTorch's RemovableHandle ids: 0, 1, 2, ... over all hooks
        HookHandle._next_id += 1
        self._table = table
        table[self.id] = hook

    def remove(self):
        self._table.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


TRANSFORMED_REQUIRES_GRAD_ERROR = (
    "You are attempting to call Tensor.requires_grad_() (or perhaps using torch.autograd.functional.* APIs) "
    "inside of a function being transformed by a functorch transform. This is unsupported, please attempt to "
    "use the functorch transforms (e.g. grad, vjp, jacrev, jacfwd, hessian) or call requires_grad_() outside "
    "of a function being transformed instead.")


# --- factories -------------------------------------------------------------------------------

def _finish_meta(shape, dtype, requires_grad):
    """A factory's tensor on the meta device: ``shape`` and ``dtype``, nothing allocated."""
    t = Tensor._make(_meta_array(shape, dtype))
    if requires_grad:
        t.requires_grad = True
    return t


def _finish(array, requires_grad, where=None):
    t = Tensor._make(array)
    if where is not None:               # the meta device: the shape and dtype only
        t._data = _as_meta(array)
    if requires_grad:
        t.requires_grad = True
    return t


def tensor(data: Any, requires_grad: bool = False, dtype=None, device=None) -> Tensor:
    """A new leaf tensor holding a copy of ``data`` (Python floats take the default dtype, float64).

    >>> from diffcompare import autograd as ag
    >>> ag.tensor([[1, 2], [3, 4]], dtype=ag.float32)
    tensor([[1., 2.],
            [3., 4.]], dtype=float32)
    >>> ag.tensor([1, 2], requires_grad=True)
    Traceback (most recent call last):
    ...
    RuntimeError: Only Tensors of floating point and complex dtype can require gradients
    """
    where = _check_device(device, meta=True)
    if isinstance(data, Tensor):
        warnings.warn(
            "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() "
            "or sourceTensor.detach().clone().requires_grad_(True), rather than tensor(sourceTensor).",
            UserWarning,
            stacklevel=2,
        )
        data = data._data
    elif isinstance(data, (list, tuple)) and any(isinstance(d, Tensor) for d in _flatten(data)):
        if dtype is None:
            dtype = _inferred_dtype(data)
        data = _nested_to_array(data)
    try:
        array = np.array(data, dtype=_dtype(dtype), copy=True)
    except ValueError as error:
        raise ValueError(f"can't build a tensor: nested lists must be rectangular, with equal lengths at each "
                         f"depth ({error})") from None
    if array.dtype.kind not in "fciub":
        raise TypeError(f"can't build a tensor from {type(data).__name__} data of dtype {array.dtype}")
    if dtype is None and array.dtype.kind in "fc" and default_dtype() != np.float64 and _from_python(data):
        array = array.astype(default_dtype() if array.dtype.kind == "f" else default_complex())
    if requires_grad and not _is_float(array.dtype):
        raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
    return _finish(array, requires_grad, where)


def _from_python(data) -> bool:
    """Whether ``data``'s floating values are Python numbers (they take the default dtype) rather
    than NumPy's (which keep theirs, as in PyTorch)."""
    if isinstance(data, (np.ndarray, np.generic)):
        return False
    if isinstance(data, (list, tuple)):
        return not any(isinstance(d, (np.ndarray, np.generic)) for d in _flatten(data))
    return True


def from_numpy(array: np.ndarray) -> Tensor:
    """A tensor sharing memory with ``array`` (no copy), as ``torch.from_numpy``.

    >>> import numpy as np
    >>> from diffcompare import autograd as ag
    >>> a = np.array([1.0, 2.0])
    >>> t = ag.from_numpy(a)
    >>> a[0] = 5.0
    >>> t
    tensor([5., 2.])
    """
    if not isinstance(array, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(array).__name__})")
    return Tensor._make(array)


def as_tensor(data, dtype=None, device=None) -> Tensor:
    """Share memory with a NumPy array of the right dtype, copy anything else."""
    _check_device(device)
    if isinstance(data, Tensor) and (dtype is None or data.dtype == np.dtype(dtype)):
        return data
    if isinstance(data, np.ndarray) and (dtype is None or data.dtype == np.dtype(dtype)):
        return from_numpy(data)
    return tensor(data, dtype=dtype)


def _flatten(data):
    for d in data:
        if isinstance(d, (list, tuple)):
            yield from _flatten(d)
        else:
            yield d


def _inferred_dtype(data):
    """The dtype PyTorch gives ``tensor(data)`` for nested lists holding tensors: the dtypes of
    the entries promoted as PyTorch promotes (``promote_types``), a tensor's own, a Python
    float's the default dtype, an int's int64 (a float32 tensor beside an int stays float32,
    where NumPy would widen it to float64).

    >>> from diffcompare import autograd as ag
    >>> _inferred_dtype([ag.tensor(1.5, dtype=ag.float32), 2]), _inferred_dtype([ag.tensor(1.5, dtype=ag.float32), 2.5])
    (dtype('float32'), dtype('float64'))
    """
    result = None
    for d in _flatten(data):
        if isinstance(d, Tensor):
            kind = d._data.dtype
        elif isinstance(d, (bool, np.bool_)):
            kind = np.dtype(bool)
        elif isinstance(d, (np.ndarray, np.generic)):
            kind = d.dtype
        elif isinstance(d, numbers.Integral):
            kind = np.dtype(int64)
        elif isinstance(d, numbers.Real):
            kind = default_dtype()
        elif isinstance(d, numbers.Complex):
            kind = default_complex()
        else:
            return None         # NumPy's error (or its reading) says what is wrong
        result = kind if result is None else promote_types(result, kind)
    return result


def _nested_to_array(data):
    """Nested lists holding tensors, as NumPy takes them: a tensor inside a list is one entry
    (a one-element tensor, of its dtype), as in PyTorch; a longer one is PyTorch's error."""
    if isinstance(data, Tensor):
        if data._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return data._data.reshape(())
    if isinstance(data, (list, tuple)):
        return [_nested_to_array(d) for d in data]
    return data


def _shape(size):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        return tuple(size[0])
    return tuple(size)


def _into_out(factory):
    """``factory`` taking PyTorch's ``out=``: the values made (in out's dtype unless ``dtype``
    is given) written into ``out``, resized to them, and ``out`` returned."""
    @functools.wraps(factory)
    def with_out(*args, out=None, **kwargs):
        if out is None:
            return factory(*args, **kwargs)
        if not isinstance(out, Tensor):
            raise TypeError(f"{factory.__name__}(): argument 'out' must be Tensor, not {type(out).__name__}")
        kwargs.setdefault("dtype", out.dtype)
        made = factory(*args, **kwargs)._data
        if factory.__name__ in ("arange", "linspace") and made.size == out._data.size:
            made = made.reshape(out._data.shape)      # PyTorch resizes a range's out only when its size differs
        if made.shape == out._data.shape and out._data.flags.writeable:
            out._data[...] = made
        else:
            out._data = made.astype(out.dtype, copy=False)
        out._bump()
        return out
    with_out.takes_out = True       # (its signature, read through functools.wraps, does not show it)
    return with_out


@_into_out
def zeros(*size, dtype=None, device=None, requires_grad=False) -> Tensor:
    """A tensor of zeros: ``zeros(2, 3)`` or ``zeros((2, 3))``."""
    if _check_device(device, meta=True) is not None:
        return _finish_meta(_shape(size), _dtype(dtype) or default_dtype(), requires_grad)
    return _finish(np.zeros(_shape(size), dtype=_dtype(dtype) or default_dtype()), requires_grad)


@_into_out
def ones(*size, dtype=None, device=None, requires_grad=False) -> Tensor:
    """A tensor of ones.

    >>> from diffcompare import autograd as ag
    >>> ag.ones(2, requires_grad=True)
    tensor([1., 1.], requires_grad=True)
    """
    if _check_device(device, meta=True) is not None:
        return _finish_meta(_shape(size), _dtype(dtype) or default_dtype(), requires_grad)
    return _finish(np.ones(_shape(size), dtype=_dtype(dtype) or default_dtype()), requires_grad)


@_into_out
def full(size, fill_value, dtype=None, device=None, requires_grad=False) -> Tensor:
    """A tensor of the given shape filled with ``fill_value``."""
    where = _check_device(device, meta=True)
    size = (size,) if np.isscalar(size) else tuple(size)
    if dtype is None:
        dtype = default_dtype() if isinstance(fill_value, float) else np.asarray(fill_value).dtype
    if where is not None:
        return _finish_meta(size, _dtype(dtype), requires_grad)
    return _finish(np.full(size, fill_value, dtype=_dtype(dtype)), requires_grad, where)


def zeros_like(t: Tensor, dtype=None, device=None, requires_grad=False) -> Tensor:
    where = _check_device(device, meta=True) if device is not None else META if _is_meta(t._data) else None
    if where is not None:
        return _finish_meta(t.shape, _dtype(dtype) or t.dtype, requires_grad)
    return _finish(np.zeros(t.shape, dtype=_dtype(dtype) or t.dtype), requires_grad)


def ones_like(t: Tensor, dtype=None, device=None, requires_grad=False) -> Tensor:
    where = _check_device(device, meta=True) if device is not None else META if _is_meta(t._data) else None
    if where is not None:
        return _finish_meta(t.shape, _dtype(dtype) or t.dtype, requires_grad)
    return _finish(np.ones(t.shape, dtype=_dtype(dtype) or t.dtype), requires_grad)


def full_like(t: Tensor, fill_value, dtype=None, device=None, requires_grad=False) -> Tensor:
    where = _check_device(device, meta=True) if device is not None else META if _is_meta(t._data) else None
    if where is not None:
        return _finish_meta(t.shape, _dtype(dtype) or t.dtype, requires_grad)
    return _finish(np.full(t.shape, fill_value, dtype=_dtype(dtype) or t.dtype), requires_grad)


@_into_out
def arange(start=None, end=None, step=1, dtype=None, device=None, requires_grad=False) -> Tensor:
    """Values from ``start`` (0 unless given) up to (not including) ``end``; integers stay
    int64. ``arange(4)`` and ``arange(end=4)`` are the same, as in PyTorch.

    >>> from diffcompare import autograd as ag
    >>> ag.arange(4), ag.arange(end=3)
    (tensor([0, 1, 2, 3]), tensor([0, 1, 2]))
    """
    _check_device(device)
    if start is None and end is None:
        raise TypeError("arange() received an invalid combination of arguments - got (), but expected one of: "
                        "(Number end, ...), (Number start, Number end, ...), (Number start, Number end, Number step, ...)")
    if start is None:
        start = 0
    elif end is None:
        start, end = 0, start
    array = np.arange(start, end, step)
    target = _dtype(dtype) if dtype is not None else default_dtype() if array.dtype.kind == "f" else array.dtype
    if target.kind == "f" and array.size and not all(float(v).is_integer() for v in (start, step)):
        array = arange_values(start, step, array.size, target)    # a fractional start or step: ATen's roundings
    return _finish(array.astype(target, copy=False), requires_grad)


VECTOR_BYTES = 32        # the width of ATen's CPU vectors (AVX2, and its default kernels; AVX-512 has 64)


def arange_values(start, step, n, dtype):
    """The ``n`` values of a floating :func:`arange` as ATen's CPU kernel computes them, to the
    last bit: in double, two vectors at a time, each vector ``base + k * step`` with ``base =
    start + step * i`` at its first index ``i`` (rounded to ``dtype`` first), the elements past
    the last pair of vectors ``start + step * i``; each product and sum fused, as the compiler
    fuses them. NumPy's arange, which adds a rounded difference of its first two values,
    differs in the last bits: ``arange(-8.0, 8.0, 0.1)[80]`` is 4.4e-16 in PyTorch, -2.8e-14
    in NumPy (a relu's gradient there is 1 in the one and 0 in the other).

    >>> float(arange_values(-8.0, 0.1, 160, np.dtype(np.float64))[80])
    4.440892098500626e-16
    """
    i = np.arange(n)
    width = max(1, VECTOR_BYTES // dtype.itemsize)
    starts = np.full(n, float(start))
    first = fused_multiply_add(float(step), (i - i % width).astype(np.float64), starts)
    if dtype.itemsize < 8:
        first = first.astype(dtype).astype(np.float64)
    vectors = fused_multiply_add((i % width).astype(np.float64), float(step), first)
    rest = fused_multiply_add(float(step), i.astype(np.float64), starts)
    return np.where(i < n - n % (2 * width), vectors, rest).astype(dtype)


@_into_out
def linspace(start, end, steps, dtype=None, device=None, requires_grad=False) -> Tensor:
    """``steps`` evenly spaced values from ``start`` to ``end`` inclusive; floating ones as ATen
    computes them (the first half ``start + step * i``, the rest ``end - step * (steps - 1 - i)``,
    each fused), so they are PyTorch's to the last bit.

    >>> linspace(-1.0, 1.0, 5)
    tensor([-1.0000, -0.5000,  0.0000,  0.5000,  1.0000])
    """
    _check_device(device)
    dtype = _dtype(dtype) or default_dtype()
    return _finish(linspace_array(start, end, steps, dtype), requires_grad)


def linspace_array(start, end, steps, dtype):
    """The values of :func:`linspace` as an array of ``dtype``."""
    if dtype.kind not in "fiu" or steps < 2:
        return np.linspace(start, end, steps, dtype=dtype)
    work = dtype if dtype.kind == "f" else np.dtype(np.float64)     # integers: ends truncated, a double step
    t = work.type
    if dtype.kind != "f":
        start, end = int(start), int(end)
    step = (t(end) - t(start)) / t(steps - 1)
    i = np.arange(steps)
    values = np.where(i < steps // 2, fused_multiply_add(step, i, np.full(steps, start, work)),
                      fused_multiply_add(-step, steps - 1 - i, np.full(steps, end, work)))
    return values.astype(dtype, copy=False)


@_into_out
def eye(n, m=None, dtype=None, device=None, requires_grad=False) -> Tensor:
    _check_device(device)
    return _finish(np.eye(n, m, dtype=_dtype(dtype) or default_dtype()), requires_grad)


_generator = np.random.default_rng()


def generator() -> np.random.Generator:
    """The generator behind ``rand``, ``randn`` and parameter initialisation."""
    if STATE.mapping:
        check_vmap_randomness()
    return _generator


_seed = [DEFAULT_SEED]     # what initial_seed() returns: the last seed given


def manual_seed(seed: int):
    """Seed the generator behind ``rand`` and ``randn`` (reproducible runs). As PyTorch's, a
    seed is an integer from -2**63 to 2**64 - 1, taken modulo 2**64 (a negative seed, such
    as ``random_state.randint(-10**8, 10**8)`` gives, is as good as any).

    >>> from diffcompare import autograd as ag
    >>> _ = ag.manual_seed(-1)
    >>> ag.initial_seed() == 2**64 - 1
    True
    """
    global _generator
    seed = int(seed)
    if not -2**63 <= seed < 2**64:
        raise ValueError("Overflow when unpacking long long")
    seed %= 2**64
    _generator = np.random.default_rng(seed)
    _seed[0] = seed
    return _generator


def initial_seed() -> int:
    """The seed last given to :func:`manual_seed` (or :func:`seed`)."""
    return _seed[0]


def seed() -> int:
    """Seed the generator from the operating system's entropy; returns that seed."""
    value = int(np.random.SeedSequence().entropy) % 2**63
    manual_seed(value)
    return value


def get_rng_state() -> Tensor:
    """The global generator's state as a uint8 tensor, for :func:`set_rng_state` (its bytes are
    the engine's, not PyTorch's: a state moves between engine runs, not to PyTorch). As
    PyTorch's, the state holds the seed too: ``initial_seed()`` is the state's again after
    ``set_rng_state``.

    >>> from diffcompare import autograd as ag
    >>> _ = ag.manual_seed(5)
    >>> state = ag.get_rng_state()
    >>> a = ag.rand(2)
    >>> _ = ag.manual_seed(7)
    >>> ag.set_rng_state(state)
    >>> bool((ag.rand(2) == a).all()), ag.initial_seed()
    (True, 5)
    """
    text = json.dumps({"generator": _generator.bit_generator.state, "seed": _seed[0]})
    return Tensor._make(np.frombuffer(text.encode(), dtype=np.uint8).copy())


def set_rng_state(new_state) -> None:
    """Put back a state :func:`get_rng_state` returned."""
    global _generator
    if not isinstance(new_state, Tensor) or new_state._data.dtype != np.uint8:
        raise TypeError(f"expected a torch.ByteTensor, but got {type(new_state).__name__}"
                        + (f" of dtype {new_state.dtype}" if isinstance(new_state, Tensor) else ""))
    try:
        state = json.loads(new_state._data.tobytes().decode())
        state, seed = (state["generator"], int(state["seed"])) if "generator" in state else (state, _seed[0])
        rng = np.random.Generator(getattr(np.random, state["bit_generator"])())
        rng.bit_generator.state = state
    except (ValueError, KeyError, TypeError, AttributeError):
        raise RuntimeError("Expected a random state the engine's get_rng_state returned (a PyTorch generator "
                           "state cannot be read by the engine)") from None
    _generator, _seed[0] = rng, seed


@_into_out
def rand(*size, generator=None, dtype=None, device=None, requires_grad=False) -> Tensor:
    """Uniform samples in [0, 1) (from ``generator`` when one is given); on the meta device a
    shape-only tensor, nothing drawn.

    >>> from diffcompare import autograd as ag
    >>> ag.rand(2**10, 3, 2**16, 2**16, device="meta")
    tensor(..., device='meta', size=(1024, 3, 65536, 65536))
    """
    if _check_device(device, meta=True) is not None:
        return _finish_meta(_shape(size), _dtype(dtype) or default_dtype(), requires_grad)
    array = standard_uniform(rng_of(generator, _generator), _shape(size), _dtype(dtype) or default_dtype())
    return _finish(array, requires_grad)


@_into_out
def randn(*size, generator=None, dtype=None, device=None, requires_grad=False) -> Tensor:
    """Standard normal samples (from ``generator`` when one is given); on the meta device a
    shape-only tensor, nothing drawn."""
    if _check_device(device, meta=True) is not None:
        return _finish_meta(_shape(size), _dtype(dtype) or default_dtype(), requires_grad)
    array = standard_normal(rng_of(generator, _generator), _shape(size), _dtype(dtype) or default_dtype())
    return _finish(array, requires_grad)


@_into_out
def randint(*args, size=None, generator=None, dtype=None, device=None, requires_grad=False, low=None,
            high=None) -> Tensor:
    """Integers drawn uniformly from [low, high): ``randint(high, size)`` or
    ``randint(low, high, size)``, as in PyTorch.

    >>> from diffcompare import autograd as ag
    >>> ag.randint(3, 5, (2,)).shape, ag.randint(10, (3,)).dtype
    (torch.Size([2]), dtype('int64'))
    """
    where = _check_device(device, meta=True)
    if high is not None:                      # randint(low=0, high=5, size=(3,)), by keyword
        args = ((0 if low is None else low),) + args + (high,) if not args else (args[0], high)
    if size is None:
        if not args or not isinstance(args[-1], (tuple, list)):
            raise TypeError("randint() missing 1 required positional argument: 'size'")
        *args, size = args
    if len(args) == 1:
        low, high = 0, args[0]
    elif len(args) == 2:
        low, high = args
    else:
        raise TypeError(f"randint() takes 1 or 2 bounds (high, or low and high), got {len(args)}")
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    if where is not None:
        return _finish_meta(tuple(size), _dtype(dtype) or int64, requires_grad)
    return _finish(rng_of(generator, _generator).integers(low, high, size=tuple(size)).astype(_dtype(dtype) or int64), requires_grad)


@_into_out
def randperm(n, *, generator=None, dtype=None, device=None, requires_grad=False) -> Tensor:
    """A random permutation of ``0 .. n-1`` (int64 unless ``dtype`` says otherwise), as
    ``torch.randperm``; ``DataLoader(shuffle=True)`` draws its order from it.

    >>> from diffcompare import autograd as ag
    >>> sorted(ag.randperm(4).tolist()), ag.randperm(3).dtype
    ([0, 1, 2, 3], dtype('int64'))
    """
    _check_device(device)
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    rng = rng_of(generator, _generator)
    return _finish(rng.permutation(int(n)).astype(_dtype(dtype) or int64), requires_grad)


@_into_out
def empty(*size, dtype=None, device=None, requires_grad=False) -> Tensor:
    """A tensor whose values are not to be read before they are written (here: zeros)."""
    return zeros(*size, dtype=dtype, device=device, requires_grad=requires_grad)


def empty_strided(size, stride, *, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    """A tensor of ``size`` whose values are unset (zeros here), as ``torch.empty_strided``;
    the engine's tensors are contiguous, so ``stride`` is taken and not kept."""
    return zeros(*size, dtype=dtype, device=device, requires_grad=requires_grad)


def empty_like(t: Tensor, dtype=None, device=None, requires_grad=False) -> Tensor:
    return zeros_like(t, dtype=dtype, device=device, requires_grad=requires_grad)


def rand_like(t: Tensor, dtype=None, device=None, requires_grad=False, *, generator=None) -> Tensor:
    """Uniform samples in [0, 1) with ``t``'s shape and dtype."""
    return rand(t.shape, generator=generator, dtype=dtype or t.dtype, device=device, requires_grad=requires_grad)


def randn_like(t: Tensor, dtype=None, device=None, requires_grad=False, *, generator=None) -> Tensor:
    """Standard normal samples with ``t``'s shape and dtype."""
    return randn(t.shape, generator=generator, dtype=dtype or t.dtype, device=device, requires_grad=requires_grad)


def randint_like(t: Tensor, low=None, high=None, dtype=None, device=None, requires_grad=False, *,
                 generator=None) -> Tensor:
    """Integers from [low, high) (or [0, low), or [0, high) given by keyword) with ``t``'s
    shape, in ``t``'s dtype."""
    if low is None and high is None:
        raise TypeError("randint_like() missing 1 required positional argument: 'high'")
    bounds = (low,) if high is None else (0 if low is None else low, high)
    return randint(*bounds, t.shape, generator=generator, dtype=dtype or t.dtype, device=device,
                   requires_grad=requires_grad)


def is_tensor(obj) -> bool:
    return isinstance(obj, Tensor)

