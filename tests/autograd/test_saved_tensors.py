"""Saved tensors, as PyTorch's "Hooks for saved tensors" tutorial and the autograd mechanics
note ("Saved tensors") show them: ``grad_fn._saved_*`` and ``_raw_saved_*``,
``torch.autograd.graph.saved_tensors_hooks`` and ``save_on_cpu``, and the error of a saved
tensor read after the graph was freed. Each example runs on the engine and on PyTorch with
the library passed in, and the results are compared."""

from __future__ import annotations

import numpy as np
import pytest

from diffcompare import autograd as ag
import diffcompare.autograd.autograd as ag_autograd

torch = pytest.importorskip("torch")
from differential import assert_same, leaf, on_both, tensor_array  # noqa: E402,F401

FREED = "Trying to backward through the graph a second time"


def _both(program):
    """Run ``program(lib)`` on the engine and on PyTorch; compare every result it returns."""
    on_both(program, ag, torch)


_leaf = leaf
_array = tensor_array


def test_saved_self_is_the_input_and_saved_result_equals_the_output():
    def program(lib):
        x = _leaf(lib, [0.5, 1.5, -2.0])
        y = x.pow(2)
        saved_self = y.grad_fn._saved_self
        z = x.exp()
        result = z.grad_fn._saved_result
        return [saved_self is x, bool(np.array_equal(_array(result), _array(z))), result is z, y.grad_fn._saved_exponent, saved_self, result]
    _both(program)


NODES = {
    "mul": lambda lib, x, y: x * y,
    "mul_scalar": lambda lib, x, y: x * 2.0,
    "div": lambda lib, x, y: x / y,
    "pow": lambda lib, x, y: x ** 3,
    "pow_tensor": lambda lib, x, y: x ** y,
    "exp": lambda lib, x, y: x.exp(),
    "log": lambda lib, x, y: x.log(),
    "sin": lambda lib, x, y: x.sin(),
    "cos": lambda lib, x, y: x.cos(),
    "tanh": lambda lib, x, y: x.tanh(),
    "sigmoid": lambda lib, x, y: x.sigmoid(),
    "relu": lambda lib, x, y: x.relu(),
    "sqrt": lambda lib, x, y: x.sqrt(),
    "abs": lambda lib, x, y: x.abs(),
    "max": lambda lib, x, y: x.max(),
    "maximum": lambda lib, x, y: lib.maximum(x, y),
    "clamp": lambda lib, x, y: x.clamp(0.6, 1.2),
    "softmax": lambda lib, x, y: lib.softmax(x, 0),
    "prod": lambda lib, x, y: x.prod(),
    "dot": lambda lib, x, y: x.dot(y),
    "mm": lambda lib, x, y: x.reshape(2, 2).mm(y.reshape(2, 2)),
    "mv": lambda lib, x, y: x.reshape(2, 2).mv(y[:2]),
    "atan2": lambda lib, x, y: lib.atan2(x, y),
    "where": lambda lib, x, y: lib.where(x > 1, x, y),
}


@pytest.mark.parametrize("name", sorted(NODES))
def test_saved_values_have_pytorchs_names_and_values(name):
    def program(lib):
        x, y = _leaf(lib, [0.5, 1.5, 0.7, 1.1]), _leaf(lib, [2.0, 3.0, 0.5, 4.0])
        fn = NODES[name](lib, x, y).grad_fn
        names = sorted(a for a in dir(fn) if a.startswith("_saved_") and a[7:] in ("self", "other", "result", "exponent",
                                                                                   "mat2", "vec", "tensor", "condition",
                                                                                   "min", "max", "dim"))
        record = [type(fn).__name__, names]
        for a in names:
            value = getattr(fn, a)
            record += [a, value if not isinstance(value, (ag.Tensor, torch.Tensor)) else value.detach().double()]
        return record
    _both(program)


def test_saved_values_after_the_graph_is_freed():
    for lib in (ag, torch):
        x = _leaf(lib, [1.0, 2.0])
        y = x.pow(2)
        y.sum().backward()
        with pytest.raises(RuntimeError, match=FREED):
            y.grad_fn._saved_self
        assert y.grad_fn._saved_exponent == 2     # what is not a tensor is kept
        z = x.exp()
        z.sum().backward(retain_graph=True)
        assert np.array_equal(_array(z.grad_fn._saved_result), _array(z))


def _graph(lib):
    return ag_autograd.graph if lib is ag else torch.autograd.graph


def test_tutorial_pack_and_unpack_order():
    """The tutorial's first example: both inputs of a * b are packed, then unpacked in backward."""
    def program(lib):
        log = []

        def pack_hook(x):
            log.append(("pack", x.tolist()))
            return x

        def unpack_hook(x):
            log.append(("unpack", x.tolist()))
            return x

        a = lib.ones(5, dtype=lib.float64, requires_grad=True)
        b = lib.ones(5, dtype=lib.float64, requires_grad=True) * 2
        with _graph(lib).saved_tensors_hooks(pack_hook, unpack_hook):
            y = a * b
        y.sum().backward()
        return [sorted(log[:2]), sorted(log[2:]), len(log), a.grad]
    _both(program)


def test_tutorial_scaling_hooks_and_grad():
    """pack multiplies by 4 and unpack divides: the gradient is unchanged."""
    def program(lib):
        x = _leaf(lib, [0.3, -1.2, 2.5])
        with _graph(lib).saved_tensors_hooks(lambda t: t * 4, lambda t: t / 4):
            y = lib.pow(x, 2)
        unpacked_self = y.grad_fn._saved_self      # read through unpack_hook: x again
        y.sum().backward()
        return [x.grad, 2 * x, unpacked_self]
    _both(program)


def test_hooks_see_the_result_and_create_graph_works_through_them():
    def program(lib):
        x = _leaf(lib, [0.3, 1.2])
        packed = []
        with _graph(lib).saved_tensors_hooks(lambda t: packed.append(t.detach().clone()) or t.detach().clone(),
                                             lambda t: t):
            y = x.exp() * x.sin()
        g, = lib.autograd.grad(y.sum(), x, create_graph=True)
        gg, = lib.autograd.grad(g.sum(), x)
        return [g, gg, len(packed)]
    _both(program)


def test_save_on_cpu_is_the_identity():
    def program(lib):
        x = _leaf(lib, [0.3, 1.2])
        with _graph(lib).save_on_cpu(pin_memory=False):
            y = (x.exp() * x).sum()
        y.backward()
        return [x.grad]
    _both(program)


def test_no_version_check_through_hooks():
    """With hooks, PyTorch keeps no version: what pack made is what backward gets."""
    def program(lib):
        x = _leaf(lib, [1.0, 2.0])
        with _graph(lib).saved_tensors_hooks(lambda t: t.clone(), lambda t: t):
            h = x * 1
            z = h.sin()
        with lib.no_grad():
            h.add_(1)
        z.sum().backward()
        return [x.grad]
    _both(program)


def test_innermost_hooks_apply_and_custom_functions_are_hooked():
    def program(lib):
        log = []
        x = _leaf(lib, [1.0, 2.0])
        graph = _graph(lib)
        with graph.saved_tensors_hooks(lambda t: log.append("outer") or t, lambda t: t):
            with graph.saved_tensors_hooks(lambda t: log.append("inner") or t, lambda t: t):
                x.sin()

        class Twice(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                ctx.save_for_backward(a)
                return a * 2

            @staticmethod
            def backward(ctx, g):
                a, = ctx.saved_tensors
                return g * a

        with graph.saved_tensors_hooks(lambda t: log.append("p") or t, lambda t: log.append("u") or t):
            y = Twice.apply(x)
        y.sum().backward()
        return [log, x.grad]
    _both(program)


def test_unpack_hook_must_return_a_tensor():
    for lib in (ag, torch):
        x = _leaf(lib, [1.0])
        with _graph(lib).saved_tensors_hooks(lambda t: 1, lambda o: o):
            y = x.pow(2)
        with pytest.raises(TypeError, match="Output of saved tensor unpack_hook expected to be a Tensor but got "
                                            "result of type int"):
            y.sum().backward()


def test_disable_saved_tensors_hooks():
    for lib in (ag, torch):
        graph = _graph(lib)
        with graph.disable_saved_tensors_hooks("no hooks here"):
            with pytest.raises(RuntimeError, match="no hooks here"):
                with graph.saved_tensors_hooks(lambda t: t, lambda t: t):
                    pass


def test_raw_saved_tensor_register_hooks():
    def program(lib):
        calls = []
        x = _leaf(lib, [1.0, 2.0])
        y = x.pow(2)
        raw = y.grad_fn._raw_saved_self
        raw.register_hooks(lambda t: calls.append("pack") or t * 4, lambda t: calls.append("unpack") or t / 4)
        first = list(calls)
        with pytest.raises(RuntimeError, match="Calling register_hooks on a saved tensor whose hooks have already "
                                               "been set"):
            raw.register_hooks(lambda t: t, lambda t: t)
        y.sum().backward()
        return [first, calls, x.grad]
    _both(program)


def test_raw_saved_tensor_of_a_node_recorded_under_hooks_is_already_hooked():
    for lib in (ag, torch):
        x = _leaf(lib, [1.0])
        with _graph(lib).saved_tensors_hooks(lambda t: t, lambda t: t):
            y = x.pow(2)
        with pytest.raises(RuntimeError, match="hooks have already been set"):
            y.grad_fn._raw_saved_self.register_hooks(lambda t: t, lambda t: t)


def test_hooks_pack_and_unpack_in_pytorchs_order():
    torch = pytest.importorskip("torch")

    def order_of(lib, make):
        packed, unpacked = [], []
        a = lib.ones(2, dtype=lib.float64, requires_grad=True)
        b = lib.ones(2, dtype=lib.float64, requires_grad=True) * 2
        with lib.autograd.graph.saved_tensors_hooks(lambda x: packed.append(float(x.reshape(-1)[0])) or x,
                                                    lambda x: unpacked.append(float(x.reshape(-1)[0])) or x):
            y = make(lib, a, b)
        y.sum().backward()
        return packed, unpacked

    for make in (lambda T, a, b: a * b, lambda T, a, b: a / b, lambda T, a, b: a @ b,
                 lambda T, a, b: T.hypot(a, b), lambda T, a, b: a ** b):
        assert order_of(ag, make) == order_of(torch, make)
