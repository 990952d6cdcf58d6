"""``torch.library``: custom operators written in Python, as PyTorch's "Python custom operators"
tutorial writes them.

``@custom_op("mylib::name", mutates_args=())`` turns a function (often one that calls NumPy or
another library the engine cannot see through) into an operator: called, it runs the function
without recording and returns fresh tensors; ``torch.ops.mylib.name`` is the same operator.
Its derivative is what ``register_autograd(backward, setup_context=...)`` says, in the style of
``Function.setup_context``: ``setup_context(ctx, inputs, output)`` saves what ``backward(ctx,
*grads)`` needs, and ``backward`` returns one gradient per input (None for a non-tensor).
Without one, the output still records a node, named as PyTorch names it
(``GeneratedBackwardFor_mylib_name_defaultBackward``), and backward through it is PyTorch's
error. ``register_fake`` (the shapes an operator gives, for tracing and compilation) and
``register_kernel`` are accepted; the engine runs on the CPU, so a CPU kernel replaces the
function. ``opcheck`` runs the checks PyTorch's runs that mean something without a compiler.

>>> from diffcompare import autograd as ag
>>> import numpy as np
>>> @custom_op("doc::numpy_sin", mutates_args=())
... def numpy_sin(x: ag.Tensor) -> ag.Tensor:
...     return ag.from_numpy(np.sin(x.detach().numpy()))
>>> def setup_context(ctx, inputs, output):
...     ctx.save_for_backward(inputs[0])
>>> def backward(ctx, grad):
...     x, = ctx.saved_tensors
...     return grad * x.cos()
>>> numpy_sin.register_autograd(backward, setup_context=setup_context)
>>> x = ag.tensor([0.0, 1.0], requires_grad=True)
>>> y = ag.ops.doc.numpy_sin(x)
>>> y.grad_fn.name()
'GeneratedBackwardFor_doc_numpy_sin_defaultBackward'
>>> y.sum().backward()
>>> x.grad
tensor([1.0000, 0.5403])
"""

from __future__ import annotations

import inspect

import numpy as np

from .backward import grad
from .function import Function
from .grad_mode import STATE, no_grad
from .pytree import tree_map
from .ops.operator_names import custom_namespace
from .tensor import Tensor

__all__ = ["CustomOpDef", "custom_op", "impl_abstract", "opcheck", "register_autograd", "register_fake",
           "register_kernel"]


def _split_name(qualname):
    if not isinstance(qualname, str) or qualname.count("::") != 1 or not all(qualname.split("::")):
        raise ValueError(f"Expected there to be a namespace in {qualname!r}, i.e. The operator name should look "
                         "something like ns::foo")
    namespace, name = qualname.split("::")
    if "." in name:
        raise ValueError(f"The torch.custom_ops APIs do not handle overloads, i.e. operator names with '.' in "
                         f"them. Please name your operator something like {namespace}::{name.split('.')[0]}. "
                         f"Got: {qualname}")
    return namespace, name


def _tensors_in(values):
    for v in values:
        if isinstance(v, Tensor):
            yield v
        elif isinstance(v, (list, tuple)):
            yield from (t for t in v if isinstance(t, Tensor))


class _Keywords:
    """An operator's keyword-only arguments, passed to its Function as one (non-tensor) input."""

    __slots__ = ("keywords",)

    def __init__(self, keywords):
        self.keywords = keywords


class OpOverload:
    """``torch.ops.<namespace>.<name>.default``: the operator's one overload."""

    def __init__(self, op):
        self._op = op

    def __call__(self, *args, **kwargs):
        return self._op(*args, **kwargs)

    def name(self):
        return f"{self._op._namespace}::{self._op._name}"

    def __repr__(self):
        return f"{self._op._namespace}.{self._op._name}.default"


class CustomOpDef:
    """A custom operator (what ``@custom_op`` returns): call it as the function it wraps."""

    def __init__(self, namespace, name, fn, mutates_args, device_types):
        self._namespace, self._name, self._init_fn = namespace, name, fn
        self._mutates_args = mutates_args
        self._device_types = device_types
        self._signature = inspect.signature(fn)
        self._backward = self._setup_context = self._fake = None
        self._kernels = {}
        self.default = OpOverload(self)
        self._function = self._autograd_function()
        self.__name__ = name
        self.__doc__ = fn.__doc__
        self.__wrapped__ = fn
        custom_namespace(namespace)._ops[name] = self

    def __repr__(self):
        return f"<CustomOpDef({self._namespace}::{self._name})>"

    def _qualname(self):
        return f"{self._namespace}.{self._name}.default"

    def _autograd_function(self):
        """The Function that records the operator, as PyTorch generates it: its inputs are the
        positional arguments and, last, the keyword-only ones in one holder (so backward gives
        one gradient per positional argument, and PyTorch's count of them is one more)."""
        op = self

        class Generated(Function):
            @staticmethod
            def forward(*values):
                return op._run_kernel(values[:-1], values[-1].keywords)

            @staticmethod
            def setup_context(ctx, inputs, output):
                if op._setup_context is None:
                    return
                keywords = inputs[-1].keywords
                if any(p.kind is inspect.Parameter.KEYWORD_ONLY for p in op._signature.parameters.values()):
                    op._setup_context(ctx=ctx, inputs=inputs[:-1], keyword_only_inputs=keywords, output=output)
                else:
                    op._setup_context(ctx=ctx, inputs=inputs[:-1], output=output)

            @staticmethod
            def backward(ctx, *grads):
                if op._backward is None:
                    raise RuntimeError(f"Trying to backward through {op._qualname()} but no autograd formula was "
                                       "registered. Please use register_autograd to add one.")
                needs = ctx.needs_input_grad
                try:
                    ctx.needs_input_grad = needs[:-1]
                    result = op._backward(ctx, *grads)
                finally:
                    ctx.needs_input_grad = needs
                return (*result, None) if isinstance(result, tuple) else (result, None)

        Generated.__name__ = Generated.__qualname__ = f"GeneratedBackwardFor_{self._namespace}_{self._name}_default"
        return Generated

    def _bind(self, args, kwargs):
        """The positional arguments (defaults filled in) and the keyword-only ones."""
        bound = self._signature.bind(*args, **kwargs)
        bound.apply_defaults()
        positional, keywords = [], {}
        for name, value in bound.arguments.items():
            if self._signature.parameters[name].kind is inspect.Parameter.KEYWORD_ONLY:
                keywords[name] = value
            else:
                positional.append(value)
        return tuple(positional), keywords

    def _run_kernel(self, positional, keywords):
        """The kernel (a registered CPU kernel, else the function), unrecorded."""
        kernel = self._kernels.get("cpu", self._init_fn)
        with no_grad():
            return kernel(*positional, **keywords)

    def __call__(self, *args, **kwargs):
        positional, keywords = self._bind(args, kwargs)
        if STATE.grad_enabled and any(t.requires_grad for t in _tensors_in((*positional, *keywords.values()))):
            return self._function.apply(*positional, _Keywords(keywords))
        return self._run_kernel(positional, keywords)

    def register_autograd(self, backward, /, *, setup_context=None):
        """Give the operator a derivative: ``setup_context(ctx, inputs, output)`` (optional) saves
        what ``backward(ctx, *grads)`` needs; backward returns one gradient per input."""
        if not callable(backward):
            raise TypeError(f"register_autograd: expected backward to be a function, got {type(backward).__name__}")
        self._backward, self._setup_context = backward, setup_context

    def register_fake(self, fn, /):
        """Record the operator's fake implementation (its outputs' shapes and dtypes from its
        inputs'); ``opcheck`` compares it with the real outputs. Returns ``fn``."""
        self._fake = fn
        return fn

    def register_kernel(self, device_types, fn=None, /):
        """A kernel for ``device_types`` ("cpu", "cuda", a tuple of them); on this CPU engine a
        CPU kernel replaces the function, the others are kept and never run."""
        def register(kernel):
            for device in (device_types,) if isinstance(device_types, str) or device_types is None else device_types:
                self._kernels[str(device or "cpu")] = kernel
            return kernel
        return register if fn is None else register(fn)


def custom_op(name, fn=None, /, *, mutates_args, device_types=None, schema=None, tags=None):
    """Make ``fn`` the operator ``name`` ("namespace::name"); as a decorator when ``fn`` is None.
    ``mutates_args``: the names of the arguments the function writes in place ("unknown": any),
    as PyTorch asks for them."""
    namespace, op_name = _split_name(name)
    if mutates_args != "unknown" and (isinstance(mutates_args, str) or not hasattr(mutates_args, "__iter__")):
        raise ValueError(f"mutates_args must be 'unknown' or an iterable of argument names, got {mutates_args!r}")

    def make(function):
        return CustomOpDef(namespace, op_name, function, mutates_args, device_types)
    return make if fn is None else make(fn)


def _the_op(op):
    """The CustomOpDef named by ``op`` (a "ns::name" string, the op, or its overload)."""
    if isinstance(op, CustomOpDef):
        return op
    if isinstance(op, OpOverload):
        return op._op
    if isinstance(op, str):
        namespace, name = _split_name(op)
        found = custom_namespace(namespace)._ops.get(name)
        if found is not None:
            return found
        raise RuntimeError(f"Operator {op} does not exist: define it first with torch.library.custom_op "
                           "(this engine has no torch.library.define/Library schema registry).")
    raise TypeError(f"expected a custom operator or its 'namespace::name', got {type(op).__name__}")


def register_autograd(op, backward, /, *, setup_context=None, lib=None):
    """``op.register_autograd(backward, setup_context=...)`` for the operator named ``op``."""
    _the_op(op).register_autograd(backward, setup_context=setup_context)


def register_fake(op, fn=None, /, *, lib=None, _stacklevel=1):
    """``op.register_fake(fn)`` for the operator named ``op`` (a decorator when ``fn`` is None)."""
    target = _the_op(op)
    return target.register_fake if fn is None else target.register_fake(fn)


impl_abstract = register_fake       # the name before PyTorch 2.4


def register_kernel(op, device_types, fn=None, /, *, lib=None):
    """``op.register_kernel(device_types, fn)`` for the operator named ``op``."""
    return _the_op(op).register_kernel(device_types, fn)


class OpCheckError(Exception):
    """An operator failed one of ``opcheck``'s checks."""


DEFAULT_TEST_UTILS = ("test_schema", "test_autograd_registration", "test_faketensor", "test_aot_dispatch_dynamic")


def _copy(value):
    return value.detach().clone().requires_grad_(value.requires_grad) if isinstance(value, Tensor) else value


def _copied(values):
    """``values`` (a sequence or mapping of arguments, nested) with every tensor a fresh copy."""
    return tree_map(_copy, values)


def _flat_outputs(out):
    return [o for o in (out if isinstance(out, (tuple, list)) else (out,)) if isinstance(o, Tensor)]


def opcheck(op, args, kwargs=None, *, test_utils=DEFAULT_TEST_UTILS, raise_exception=True, rtol=None, atol=None):
    """Check a custom operator on sample ``args`` as PyTorch's ``opcheck`` does, where that means
    something without a compiler: ``test_schema`` (it changes in place only the arguments its
    ``mutates_args`` names), ``test_autograd_registration`` (with inputs that require grad, its
    outputs record a node), ``test_faketensor`` (its fake implementation gives the real outputs'
    shapes and dtypes), ``test_aot_dispatch_dynamic`` (a second run, forward and backward, gives
    the same values). Returns {test: "SUCCESS"}; a failure raises ``OpCheckError`` (or, with
    ``raise_exception=False``, is the test's entry)."""
    target = _the_op(op)
    kwargs = kwargs or {}
    names = [test_utils] if isinstance(test_utils, str) else list(test_utils)
    results = {}
    for test in names:
        try:
            _CHECKS[test](target, args, kwargs)
            results[test] = "SUCCESS"
        except KeyError:
            raise ValueError(f"opcheck: unknown test {test!r}; expected some of {list(DEFAULT_TEST_UTILS)}") from None
        except Exception as error:          # noqa: BLE001  (every failure is reported as the test's)
            if raise_exception:
                raise OpCheckError(f"opcheck(op, ...): {test} failed with {error} (scroll up for stack trace)") \
                    from error
            results[test] = error
    return results


def _check_schema(op, args, kwargs):
    positional, keywords = op._bind(tuple(_copied(list(args))), _copied(dict(kwargs)))
    named = dict(zip(op._signature.parameters, positional)) | keywords
    before = {name: np.array(v._data, copy=True) for name, v in named.items() if isinstance(v, Tensor)}
    op._run_kernel(positional, keywords)
    mutable = set() if op._mutates_args == "unknown" else set(op._mutates_args)
    for name, old in before.items():
        if name not in mutable and op._mutates_args != "unknown" \
                and not np.array_equal(old, named[name]._data, equal_nan=True):
            raise RuntimeError(f"{op._namespace}::{op._name} changed argument {name!r} in place, which "
                               f"mutates_args does not name")


def _check_autograd_registration(op, args, kwargs):
    args = _copied(list(args))
    if any(t.requires_grad for t in _tensors_in((*args, *kwargs.values()))):
        outs = _flat_outputs(op(*args, **kwargs))
        if any(o.dtype.kind in "fc" and o.grad_fn is None for o in outs):
            raise RuntimeError("an output does not record the operator's autograd node although an input "
                               "requires grad")


def _check_faketensor(op, args, kwargs):
    if op._fake is None:
        raise RuntimeError(f"There was no fake impl registered for <CustomOpDef({op._namespace}::{op._name})>. "
                           "This is necessary for torch.compile/export/fx tracing to work. Please use "
                           "`register_fake` to add an fake impl.")
    with no_grad():
        real = _flat_outputs(op._run_kernel(*op._bind(tuple(_copied(list(args))), kwargs)))
        fake = _flat_outputs(op._fake(*_copied(list(args)), **kwargs))
    if [(tuple(o.shape), o.dtype) for o in real] != [(tuple(o.shape), o.dtype) for o in fake]:
        raise RuntimeError(f"the fake implementation gives {[(tuple(o.shape), str(o.dtype)) for o in fake]}, "
                           f"the operator {[(tuple(o.shape), str(o.dtype)) for o in real]}")


def _run_with_gradients(op, args, kwargs):
    args = _copied(list(args))
    outs = _flat_outputs(op(*args, **kwargs))
    grads = []
    differentiable = [o for o in outs if o.grad_fn is not None]
    if differentiable and op._backward is not None:
        inputs = [t for t in _tensors_in(args) if t.requires_grad]
        total = sum((o * 1.0).sum() for o in differentiable)
        grads = [g for g in grad(total, inputs, allow_unused=True) if g is not None]
    return [o.detach().numpy() for o in outs], [g.numpy() for g in grads]


def _check_repeatable(op, args, kwargs):
    first, second = _run_with_gradients(op, args, kwargs), _run_with_gradients(op, args, kwargs)
    for a, b in zip(first[0] + first[1], second[0] + second[1]):
        if a.shape != b.shape or not np.allclose(a, b, equal_nan=True):
            raise RuntimeError("two runs of the operator (forward and backward) gave different values")


_CHECKS = {"test_schema": _check_schema, "test_autograd_registration": _check_autograd_registration,
           "test_faketensor": _check_faketensor, "test_aot_dispatch_dynamic": _check_repeatable}
