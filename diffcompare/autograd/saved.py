"""What a node keeps for backward (``SavedTensor``), hooks for saved tensors, and a node's
saved values by PyTorch's names.

``saved_tensors_hooks(pack_hook, unpack_hook)``: while it is active, every tensor an op
saves for backward goes through ``pack_hook`` when it is saved, and what that returned
through ``unpack_hook`` when backward (or ``grad_fn._saved_self``) reads it, as
``torch.autograd.graph.saved_tensors_hooks`` does. Without hooks the node keeps the array
(``graph.SavedTensor``); with them it keeps only what ``pack_hook`` returned
(:class:`HookedSavedTensor`), and, as in PyTorch, no version check is made on it.

``grad_fn._saved_self``, ``_saved_other``, ``_saved_result``, ``_saved_exponent``, ... are a
node's saved values under PyTorch's names; ``_raw_saved_<name>`` is the saved tensor itself,
whose ``register_hooks(pack, unpack)`` hooks that one value.

>>> from diffcompare import autograd as ag
>>> x = ag.tensor([1.0, 2.0], requires_grad=True)
>>> with ag.autograd.graph.saved_tensors_hooks(lambda t: t * 4, lambda t: t / 4):
...     y = x.pow(2)
>>> y.grad_fn._saved_self, y.grad_fn._saved_exponent
(tensor([1., 2.], requires_grad=True), 2)
>>> y.sum().backward(); x.grad
tensor([2., 4.])
"""

from __future__ import annotations

import contextlib
import re
import weakref

import numpy as np

from .dtypes import legacy_type_name
from .grad_mode import STATE, no_grad
from .tensor import Tensor

FREED_ERROR = (
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed). Saved intermediate values of the graph are freed when you call "
    ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
    "graph a second time or if you need to access saved tensors after calling backward."
)


class SavedTensor:
    """A tensor kept for backward, with the version it had when it was saved.

    Like PyTorch's SavedVariable it keeps the array and where its gradient goes; an op's
    output saved by its own node keeps no tensor object (no reference cycle), and a tensor is
    rebuilt only when a differentiable backward (create_graph) asks for it. An input (a leaf
    or not) is also kept as itself (``source``), as PyTorch keeps the variable: when its data
    is replaced afterwards (``u.data = ...``, which changes no version), backward reads the
    new data, as PyTorch's does (spectral normalisation's ``u.data = ...`` between forwards).
    """

    __slots__ = ("array", "counter", "version", "grad_fn", "output_nr", "leaf", "tangent", "source")

    def __init__(self, tensor, is_output):
        counter = tensor._vc
        if counter is None:
            counter = tensor._vc = [0]      # Tensor._counter, inline
        self.counter = counter
        self.version = counter[0]
        self.array = tensor._data
        self.tangent = tensor._tangent      # forward mode: kept so a backward through the graph carries it
        self.output_nr = tensor._output_nr
        if is_output:
            self.grad_fn = self.leaf = self.source = None        # the saving node is the producer
        else:
            self.source = tensor
            # (the grad_fn property only differs from _grad_fn for a view, which it brings up to date)
            fn = tensor._grad_fn if tensor._base is None else tensor.grad_fn
            if fn is not None:
                self.grad_fn, self.leaf = fn, None
            else:
                self.grad_fn, self.leaf = None, tensor

    @property
    def is_output(self):
        return self.grad_fn is None and self.leaf is None

    def unpack(self, node, as_tensor):
        if self.counter[0] != self.version:
            raise RuntimeError(_modified_message(self, node))
        source = self.source
        if source is not None and source._data is not self.array and self.array is not None:
            self.array = source._data       # its data was replaced since (``.data = ...``)
        if not as_tensor:
            return self.array
        if self.leaf is not None:
            return self.leaf

        t = Tensor._make(self.array, True, self.grad_fn or node, self.counter)
        t._output_nr = self.output_nr
        if self.tangent is not None and STATE.forward_level:
            t._tangent = self.tangent        # forward over reverse: the backward's ops see the tangent
            STATE.dual_tensors.append(weakref.ref(t))
        return t


def refresh(saved):
    """Point the saved inputs among ``saved`` whose tensors' data was replaced since they were
    saved (``u.data = ...``) at the new data, as PyTorch's saved variables see it. Called by
    backward only once some tensor's data has been replaced (``tensor.DATA_REPLACED``)."""
    for s in saved:
        if isinstance(s, SavedTensor):
            source = s.source
            if source is not None and s.array is not None and source._data is not s.array:
                s.array = source._data


_BACKWARD_SUFFIX = re.compile(r"Backward\d*$")


def _modified_message(saved, node):
    array = saved.array
    shape = ", ".join(str(n) for n in array.shape)
    who = f"[{legacy_type_name(array.dtype)} [{shape}]]"
    producer = node if saved.is_output else saved.grad_fn
    if producer is not None:    # named as PyTorch 2.13 names it: ExpBackward0 is "Exp"
        who += f", which is output {saved.output_nr} of {_BACKWARD_SUFFIX.sub('', type(producer).__name__)}"
    hint = (
        "Hint: the backtrace further above shows the operation that failed to compute its gradient. "
        "The variable in question was changed in there or anywhere later. Good luck!"
        if STATE.anomaly_enabled
        else "Hint: enable anomaly detection to find the operation that failed to compute its gradient, "
        "with diffcompare.autograd.set_detect_anomaly(True, check_nan=False)."
    )
    return (
        "one of the variables needed for gradient computation has been modified by an inplace "
        f"operation: {who}, is at version {saved.counter[0]}; expected version {saved.version} "
        f"instead. {hint}"
    )


RESULT = -1      # an op's result in its ``saves`` (as ops.forward.RESULT)
POSITION_NAMES = ("self", "other")   # PyTorch's names of an op's first two inputs
# an op's parameters that PyTorch's nodes keep under the same name (``_saved_exponent``)
PARAMETER_NAMES = frozenset({"exponent", "min", "max", "dim", "beta", "threshold"})


class HookedSavedTensor(SavedTensor):
    """A saved tensor kept as what ``pack_hook`` made of it; ``unpack_hook`` gives it back."""

    __slots__ = ("packed", "unpack_hook")
    hooked = True

    def __init__(self, tensor, is_output, hooks):
        SavedTensor.__init__(self, tensor, is_output)
        self._pack(tensor, hooks)

    def _pack(self, tensor, hooks):
        pack_hook, self.unpack_hook = hooks
        with no_grad():
            self.packed = pack_hook(tensor)
        self.array = None       # only the packed value is kept

    @classmethod
    def rehook(cls, saved, node, hooks):
        """``saved`` (a plain SavedTensor of ``node``) hooked from now on."""
        tensor = saved.unpack(node, True)
        hooked = object.__new__(cls)
        for name in SavedTensor.__slots__:
            setattr(hooked, name, getattr(saved, name))
        hooked._pack(tensor, hooks)
        return hooked

    def unpack(self, node, as_tensor):
        t = self.unpack_hook(self.packed)
        if not isinstance(t, Tensor):
            raise TypeError("Output of saved tensor unpack_hook expected to be a Tensor but got result of type "
                            f"{type(t).__name__}")
        if not as_tensor:
            return t._data
        leaf = self.leaf
        if leaf is not None:
            if not leaf.requires_grad_flag:
                return Tensor._make(t._data)
            out = Tensor._make(t._data, True)      # a new tensor whose gradient goes to the leaf:
            out._accum = leaf._accum               # its accumulator, made when the node was recorded
            return out
        out = Tensor._make(t._data, True, self.grad_fn or node)
        out._output_nr = self.output_nr
        return out


def save(tensor, is_output):
    """What a node keeps of ``tensor``: hooked when saved_tensors_hooks are active."""
    hooks = STATE.saved_hooks
    if hooks:
        return HookedSavedTensor(tensor, is_output, hooks[-1])
    return SavedTensor(tensor, is_output)


class saved_tensors_hooks:  # noqa: N801  (PyTorch's name)
    """Context manager: the tensors saved for backward inside it go through ``pack_hook``
    (at save time) and ``unpack_hook`` (when read). The innermost active pair applies.

    >>> from diffcompare import autograd as ag
    >>> seen = []
    >>> x = ag.tensor([1.0, 2.0], requires_grad=True)
    >>> with saved_tensors_hooks(lambda t: seen.append("pack") or t, lambda t: seen.append("unpack") or t):
    ...     y = x.sin()
    >>> y.sum().backward(); seen
    ['pack', 'unpack']
    """

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        disabled = STATE.saved_hooks_disabled
        if disabled is not None:
            raise RuntimeError(disabled)
        STATE.saved_hooks = STATE.saved_hooks + ((self.pack_hook, self.unpack_hook),)
        return self

    def __exit__(self, *exc):
        STATE.saved_hooks = STATE.saved_hooks[:-1]
        return False


class save_on_cpu(saved_tensors_hooks):  # noqa: N801
    """PyTorch's hooks that keep saved tensors in CPU memory. Every tensor of this engine is
    on the CPU, so they pack and unpack a tensor as it is; ``pin_memory`` is accepted.

    >>> from diffcompare import autograd as ag
    >>> x = ag.tensor([0.0, 1.0], requires_grad=True)
    >>> with save_on_cpu(pin_memory=True):
    ...     y = x.exp()
    >>> y.sum().backward(); x.grad
    tensor([1.0000, 2.7183])
    """

    def __init__(self, pin_memory=False, device_type="cuda"):
        super().__init__(_identity, _identity)


def _identity(tensor):
    return tensor


@contextlib.contextmanager
def disable_saved_tensors_hooks(error_message):
    """Inside it, entering ``saved_tensors_hooks`` raises RuntimeError(``error_message``)."""
    previous = STATE.saved_hooks_disabled
    STATE.saved_hooks_disabled = error_message
    try:
        yield
    finally:
        STATE.saved_hooks_disabled = previous


class RawSavedTensor:
    """``grad_fn._raw_saved_<name>``: one saved tensor of a node, to hook on its own."""

    def __init__(self, node, index):
        self._node, self._index = node, index

    def register_hooks(self, pack_hook, unpack_hook):
        """From now on keep this saved tensor as ``pack_hook(tensor)`` (called now) and read it
        through ``unpack_hook``."""
        node = self._node
        saved = node._saved
        if saved is None:
            raise RuntimeError(FREED_ERROR)
        current = saved[self._index]
        if type(current) is HookedSavedTensor:
            raise RuntimeError("Calling register_hooks on a saved tensor whose hooks have already been set. "
                               "Hint: only one pair of hooks is allowed at a time.")
        saved[self._index] = HookedSavedTensor.rehook(current, node, (pack_hook, unpack_hook))

    def unpack(self):
        return self._node._unpack(True)[self._index]


def saved_names(cls):
    """PyTorch's names of the values an op class saves, in the order of its ``saves``: its
    ``saved_names`` if it says them, else self/other for the first inputs, result, and the
    parameter's own name."""
    names = getattr(cls, "saved_names", None)
    if names is not None:
        return names
    return tuple("result" if i == RESULT else i if type(i) is str else
                 POSITION_NAMES[i] if i < len(POSITION_NAMES) else f"input{i}" for i in getattr(cls, "saves", ()))


def saved_attribute(node, name):
    """``node._saved_<name>`` and ``node._raw_saved_<name>``, or AttributeError."""
    raw = name.startswith("_raw_saved_")
    key = name[len("_raw_saved_"):] if raw else name[len("_saved_"):]
    cls = type(node)
    if key in getattr(cls, "saved_absent", ()):
        return None
    names = saved_names(cls)
    if key in names:
        index = names.index(key)
        entry = cls.saves[index] if index < len(getattr(cls, "saves", ())) else None
        if type(entry) is str:                 # a parameter: kept on the node, never freed
            return node.__dict__.get(entry)
        if node._saved is None:
            if node._freed:
                raise RuntimeError(FREED_ERROR)
            raise AttributeError(name)
        if raw:
            return RawSavedTensor(node, index)
        value = node._saved[index]
        if isinstance(value, SavedTensor):
            return value.unpack(node, True)
        return Tensor._make(value) if isinstance(value, (int, float, complex, np.ndarray)) else value
    if not raw:
        attribute = getattr(cls, "saved_params", {}).get(key, key if key in PARAMETER_NAMES else None)
        if attribute in node.__dict__:
            return node.__dict__[attribute]
    if node._freed:
        raise RuntimeError(FREED_ERROR)
    raise AttributeError(f"'{cls.__name__}' object has no attribute '{name}'")


class SavedAttribute:
    """``grad_fn._saved_<name>`` or ``grad_fn._raw_saved_<name>``, read through
    :func:`saved_attribute`: one of these descriptors sits on ``Node`` for every name an op
    class uses (see :func:`expose_saved_attributes`). A ``__getattr__`` on Node would do the
    same, but its mere presence slows every attribute read of every node where the
    node's type varies (the backward walk's), by half."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __get__(self, node, owner=None):
        return self if node is None else saved_attribute(node, self.name)


def expose_saved_attributes(root, cls):
    """Put on ``root`` (Node) a :class:`SavedAttribute` for each ``_saved_*`` and ``_raw_saved_*``
    name that nodes of ``cls`` may have and ``root`` does not have yet."""
    keys = (*saved_names(cls), *getattr(cls, "saved_absent", ()), *getattr(cls, "saved_params", {}),
            *POSITION_NAMES, "result", *PARAMETER_NAMES)
    for key in keys:
        for name in (f"_saved_{key}", f"_raw_saved_{key}"):
            if name not in root.__dict__:
                setattr(root, name, SavedAttribute(name))


def saved_attribute_names(node):
    """The ``_saved_<name>`` and ``_raw_saved_<name>`` attributes ``node`` has (for ``dir``)."""
    cls = type(node)
    saves = getattr(cls, "saves", ())
    names = [f"_saved_{n}" for n in (*saved_names(cls), *getattr(cls, "saved_absent", ()))]
    names += [f"_raw_saved_{n}" for n, i in zip(saved_names(cls), saves) if type(i) is not str]
    names += [f"_saved_{n}" for n, attribute in getattr(cls, "saved_params", {}).items() if attribute in node.__dict__]
    names += [f"_saved_{n}" for n in PARAMETER_NAMES if n in node.__dict__]
    return names
