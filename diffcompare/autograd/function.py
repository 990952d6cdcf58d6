"""Custom operations: subclass ``Function`` with ``forward(ctx, ...)`` and ``backward(ctx, ...)``.

>>> from diffcompare import autograd as ag
>>> class Cube(ag.Function):
...     @staticmethod
...     def forward(ctx, x):
...         ctx.save_for_backward(x)
...         return x ** 3
...     @staticmethod
...     def backward(ctx, grad):
...         (x,) = ctx.saved_tensors
...         return grad * 3 * x ** 2
>>> x = ag.tensor(2.0, requires_grad=True)
>>> y = Cube.apply(x)
>>> y
tensor(8., grad_fn=<CubeBackward>)
>>> y.backward(); x.grad
tensor(12.)
"""

from __future__ import annotations

import functools
import inspect
import warnings

import numpy as np

from .grad_mode import STATE, no_grad
from .graph import Node, edge_of, init_node
from .saved import save
from .ops import sum_to
from .ops.forward import set_tangent
from .tensor import Tensor


class FunctionCtx(Node):
    """The ``ctx`` of a custom Function, which is also its node in the graph."""

    _function = None

    def save_for_backward(self, *tensors):
        self._to_save = tensors

    def save_for_forward(self, *tensors):
        """Keep tensors for ``jvp`` (forward mode), read back as ``ctx.saved_tensors`` there."""
        self._for_forward = tensors

    def mark_non_differentiable(self, *tensors):
        """Outputs that get no gradient: they do not require grad, and backward receives
        zeros for them (None without materialized gradients)."""
        self._non_differentiable = {id(t) for t in tensors}

    def set_materialize_grads(self, value: bool):
        """With False, backward receives None (not zeros) for outputs that got no gradient."""
        self._materialize = bool(value)

    def mark_dirty(self, *tensors):
        """Inputs that ``forward`` modified in place (and returns): their history becomes this
        node, as in PyTorch; their version goes up, so saved copies of the old value are stale.

        >>> from diffcompare import autograd as ag
        >>> class AddOne(ag.Function):
        ...     @staticmethod
        ...     def forward(ctx, x):
        ...         x.add_(1)
        ...         ctx.mark_dirty(x)
        ...         return x
        ...     @staticmethod
        ...     def backward(ctx, g):
        ...         return g
        >>> h = ag.tensor([1.0], requires_grad=True) * 1
        >>> AddOne.apply(h) is h, h.grad_fn
        (True, <AddOneBackward object at ...>)
        """
        self._dirty = tensors
        for t in tensors:
            t._bump()

    _for_forward = ()
    _reading_forward = False
    _dirty = ()

    @property
    def saved_tensors(self):
        if self._reading_forward:          # in jvp: what save_for_forward kept
            return tuple(self._for_forward)
        return tuple(self._unpack(True))   # user backward code works on tensors

    @property
    def saved_variables(self):
        """The deprecated name of ``saved_tensors`` (pre-0.4 code), with PyTorch's warning."""
        warnings.warn("'saved_variables' is deprecated; use 'saved_tensors'", DeprecationWarning, stacklevel=2)
        return self.saved_tensors

    def apply(self, *grad_outputs):
        """The Function's ``backward`` called on this node directly, as PyTorch's custom nodes
        allow (``z.grad_fn.apply(grad)``): its result as it returns it, outside a backward
        walk (grad mode as it is, so its ops record where their inputs require grad):
        ``MultiplyAdd.apply(w, x, b).grad_fn.apply(ag.ones(1))`` is ``backward(ctx, ones)``.
        """
        return self._function.backward(self, *grad_outputs)

    def _apply(self, grads, create_graph):
        grads = list(grads) if self.n_outputs != 1 else [grads]
        wrapped = []
        for g, meta in zip(grads, self._output_meta):
            if g is None:
                wrapped.append(Tensor._make(np.zeros(*meta)) if self._materialize else None)
            else:
                wrapped.append(g if isinstance(g, Tensor) else Tensor._make(g))
        result = self._function.backward(self, *wrapped)
        if not isinstance(result, tuple):
            result = (result,)
        name = type(self).__name__
        expected = len(self._next)
        if len(result) > expected and all(g is None for g in result[expected:]):
            result = result[:expected]      # extra Nones at the end are dropped, as PyTorch drops them
        if len(result) != expected:         # (one per input, non-tensor inputs too: PyTorch leaves out none)
            raise RuntimeError(f"function {name} returned an incorrect number of gradients "
                               f"(expected {expected}, got {len(result)})")
        out = []
        for i, (g, (node, _), shape) in enumerate(zip(result, self.next_functions, self._input_shapes)):
            if g is None or node is None:
                out.append(None)
                continue
            if not isinstance(g, Tensor):
                g = Tensor._make(np.asarray(g))
            if g.shape != shape:
                g = _fit_custom_grad(g, shape, name, i)
            out.append(g if create_graph else g._data)
        return tuple(out)


def _fit_custom_grad(g, shape, name, index):
    """A larger gradient that broadcasts to the input's shape is summed back; anything else is an error."""

    try:
        ok = np.broadcast_shapes(shape, g.shape) == tuple(g.shape)
    except ValueError:
        ok = False
    if not ok:
        raise RuntimeError(f"Function {name} returned an invalid gradient at index {index} - got "
                           f"{list(g.shape)} but expected shape compatible with {list(shape)}")
    return sum_to(g, shape)


def _both_backward_and_vjp(ctx, *grads):
    raise RuntimeError("Implementing both 'backward' and 'vjp' for a custom Function is not allowed. You should only "
                       "implement one of them.")


class Function:
    """Base class of custom differentiable operations (see the module docstring).

    ``forward`` runs without recording; ``backward`` receives one gradient per output and
    returns one per ``forward`` argument (``None`` for arguments that need none).
    """

    _node_class = None

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("a Function subclass must define forward(ctx, ...)")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("a Function subclass must define backward(ctx, *grad_outputs) to be differentiated")

    vjp = backward      # PyTorch's other name for it: a subclass may define either one

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        own = cls.__dict__
        if "vjp" in own and "backward" not in own:
            cls.backward = own["vjp"]
        elif "vjp" in own:      # both: refused when backward runs, as PyTorch refuses it
            cls.backward = staticmethod(_both_backward_and_vjp)

    @classmethod
    def _node_type(cls):
        if cls.__dict__.get("_node_class") is None:
            cls._node_class = type(cls.__name__ + "Backward", (FunctionCtx,), {"_function": cls})
        return cls._node_class

    @staticmethod
    def jvp(ctx, *grad_inputs):
        """Forward mode: the outputs' tangents from the inputs' (one per forward argument,
        None where it has none); subclasses define it to be used under ``forward_ad``."""
        raise NotImplementedError("You must implement the jvp function for custom autograd.Function to use it "
                                  "with forward mode AD.")

    @classmethod
    def _tangents(cls, ctx, args, outs):
        """Forward mode: give the outputs the tangents ``jvp`` computes from the inputs'."""
        tangents = [None if not isinstance(a, Tensor) or a._tangent is None else
                    a._tangent if isinstance(a._tangent, Tensor) else Tensor._make(a._tangent) for a in args]
        if all(t is None for t in tangents):
            return
        ctx._reading_forward = True
        try:
            result = cls.jvp(ctx, *tangents)
        finally:
            ctx._reading_forward = False
        result = result if isinstance(result, tuple) else (result,)
        for o, t in zip(outs, result):
            if isinstance(o, Tensor) and t is not None:
                # a tangent with history keeps it (jvp read a tensor that requires grad, e.g. an
                # output kept on ctx, which is the output itself: it has the node by now)
                differentiable = isinstance(t, Tensor) and t.requires_grad_flag
                set_tangent(o, t if differentiable else t._data if isinstance(t, Tensor) else np.asarray(t))

    @staticmethod
    def setup_context(ctx, inputs, output):
        """The modern style: ``forward(*args)`` without ``ctx``, then ``setup_context(ctx,
        inputs, output)`` saves what backward needs (``inputs``: forward's arguments, defaults
        filled in; ``output``: what it returned). A subclass that defines it is called so.

        >>> from diffcompare import autograd as ag
        >>> class Cube(ag.Function):
        ...     @staticmethod
        ...     def forward(x):
        ...         return x ** 3
        ...     @staticmethod
        ...     def setup_context(ctx, inputs, output):
        ...         (x,) = inputs
        ...         ctx.save_for_backward(x)
        ...     @staticmethod
        ...     def backward(ctx, grad):
        ...         (x,) = ctx.saved_tensors
        ...         return grad * 3 * x ** 2
        >>> x = ag.tensor(2.0, requires_grad=True)
        >>> Cube.apply(x).backward(); x.grad
        tensor(12.)
        """
        raise NotImplementedError("setup_context is not implemented.")

    generate_vmap_rule = False

    @staticmethod
    def vmap(info, in_dims, *args):
        """The batching rule PyTorch's vmap calls. The engine's vmap runs the Function once per
        example instead, so a rule (or ``generate_vmap_rule=True``) only has to exist; it is
        never called."""
        raise NotImplementedError(
            "To use autograd.Function with vmap, you must either override the vmap staticmethod or set "
            "generate_vmap_rule=True.")

    @classmethod
    def _check_transformable(cls):
        """PyTorch's refusals inside a ``torch.func`` transform: a Function in the old style
        (``forward(ctx, ...)``), and under vmap one with neither a vmap rule nor
        ``generate_vmap_rule`` (the engine maps example by example, so either is enough)."""
        if cls.setup_context is Function.setup_context:
            raise RuntimeError("In order to use an autograd.Function with functorch transforms (vmap, grad, jvp, "
                               "jacrev, ...), it must override the setup_context staticmethod. For more details, "
                               "please see https://pytorch.org/docs/main/notes/extending.func.html")
        if STATE.mapping and not cls.generate_vmap_rule and cls.vmap is Function.vmap:
            raise RuntimeError(f"You tried to vmap over {cls.__name__}, but it does not have vmap support. Please "
                               "override and implement the vmap staticmethod or set generate_vmap_rule=True. For "
                               "more details, please see https://pytorch.org/docs/main/notes/extending.func.html")

    @classmethod
    def _run_forward(cls, ctx, args, kwargs):
        """Run ``forward`` (and ``setup_context`` in the modern style) without recording;
        returns its outputs and the arguments they were called with."""
        with no_grad():
            if cls.setup_context is Function.setup_context:
                return cls.forward(ctx, *args, **kwargs), args
            if kwargs or len(args) < _positional_count(cls.forward):
                args = _bind_default_args(cls.forward, args, kwargs)
            outputs = cls.forward(*args)
            cls.setup_context(ctx, args, outputs)
        return outputs, args

    @classmethod
    def apply(cls, *args, **kwargs):
        if (STATE.transforms or STATE.mapping) and not cls.__module__.startswith(_ENGINE):
            cls._check_transformable()
        ctx = object.__new__(cls._node_type())
        ctx._to_save = ()
        ctx._non_differentiable = set()
        ctx._materialize = True
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        outputs, args = cls._run_forward(ctx, args, kwargs)
        if len(ctx.needs_input_grad) != len(args):       # defaults bound in: they need no grad
            ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        record = STATE.grad_enabled and any(ctx.needs_input_grad)
        if not record:
            if STATE.forward_level:
                cls._tangents(ctx, args, outs)
            return outputs

        inputs = [a for a in args if isinstance(a, Tensor)]
        dirty = ctx._dirty
        for t in dirty:
            if t.requires_grad_flag and t.grad_fn is None:
                raise RuntimeError("a leaf Variable that requires grad has been used in an in-place operation.")
        fresh = []
        for o in outs:
            if isinstance(o, Tensor) and any(o is a for a in inputs) and not any(o is d for d in dirty):
                o = Tensor._make(o._data, False, None, o._counter())   # an input returned as is: a new handle
            fresh.append(o)
        edges = tuple(edge_of(a) if isinstance(a, Tensor) else (None, 0) for a in args)
        init_node(ctx, edges)
        ctx.n_outputs = len(fresh)
        ctx._special = ctx.n_outputs != 1
        ctx._input_shapes = [a.shape if isinstance(a, Tensor) else () for a in args]
        ctx._output_meta = [(o.shape, o.dtype) if isinstance(o, Tensor) else ((), np.float64) for o in fresh]
        for i, o in enumerate(fresh):
            if isinstance(o, Tensor) and o.dtype.kind in "fc" and id(o) not in ctx._non_differentiable:
                o.grad_fn, o.requires_grad_flag, o._output_nr = ctx, True, i
        saved = []
        for t in ctx._to_save:
            if t is None or not isinstance(t, Tensor):
                saved.append(t)
            else:
                saved.append(save(t, is_output=t.grad_fn is ctx))
        ctx._saved = saved
        ctx._to_save = ()
        if STATE.forward_level:
            cls._tangents(ctx, args, fresh)
        if STATE.recorder is not None:
            STATE.recorder(ctx, args, kwargs, tuple(fresh))
        return fresh[0] if single else tuple(fresh)


def _positional_count(func):
    code = getattr(func, "__code__", None)
    return code.co_argcount if code is not None else 0


def _bind_default_args(func, args, kwargs):
    """``args`` and ``kwargs`` as one tuple of positional arguments, defaults filled in (as
    PyTorch passes them to ``forward`` and ``setup_context``)."""
    bound = inspect.signature(func).bind(*args, **kwargs)
    bound.apply_defaults()
    return bound.args


_ENGINE = __name__.rsplit(".", 1)[0]      # the engine's own Functions (checkpoint, hooks, custom ops) are exempt


def _requiring_grad(t):
    """``t`` (a fresh tensor) set to require grad, as the attribute is set: allowed inside a
    ``torch.func`` transform, where ``requires_grad_()`` is refused."""
    t.requires_grad = True
    return t


def once_differentiable(fn):
    """Mark a ``backward`` as not differentiable itself, as PyTorch's decorator does: it runs
    with grad recording off. Under ``create_graph=True`` with incoming gradients that require
    grad, its results are attached to an ``Error`` node, so that differentiating them again
    raises PyTorch's error instead of giving a silently wrong value.

    >>> from diffcompare import autograd as ag
    >>> class Square(ag.Function):
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         ctx.save_for_backward(x)
    ...         return x * x
    ...     @staticmethod
    ...     @once_differentiable
    ...     def backward(ctx, g):
    ...         (x,) = ctx.saved_tensors
    ...         return 2 * x * g
    >>> x = ag.tensor([3.0], requires_grad=True)
    >>> g, = ag.grad(Square.apply(x).sum(), x, create_graph=True)
    >>> g, g.requires_grad
    (tensor([6.]), False)
    """
    @functools.wraps(fn)
    def backward(ctx, *grad_outputs):
        with no_grad():
            outputs = fn(ctx, *grad_outputs)
        if not (STATE.grad_enabled and any(isinstance(g, Tensor) and g.requires_grad for g in grad_outputs)):
            return outputs
        single = not isinstance(outputs, tuple)
        # detached copies that require grad, so that the Error node is recorded (as PyTorch does)
        wrapped = DelayedError.apply(*(_requiring_grad(o.detach()) if isinstance(o, Tensor) and o.dtype.kind in "fc"
                                       else o for o in ((outputs,) if single else outputs)))
        return wrapped[0] if single and isinstance(wrapped, tuple) else wrapped
    return backward


class DelayedError(Function):
    """Passes its inputs through; differentiating its outputs raises the error of
    ``once_differentiable`` (PyTorch's ``Error`` node)."""

    message = "trying to differentiate twice a function that was marked with @once_differentiable"

    @staticmethod
    def forward(ctx, *inputs):
        outputs = tuple(i.clone() if isinstance(i, Tensor) else i for i in inputs)
        return outputs[0] if len(outputs) == 1 else outputs

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise RuntimeError(DelayedError.message)


DelayedError._node_class = type("Error", (FunctionCtx,), {"_function": DelayedError})
