"""Custom Functions as PyTorch's "Extending PyTorch" note writes them today: a ``forward``
without ``ctx`` and ``setup_context(ctx, inputs, output)``; ``set_materialize_grads``,
``mark_non_differentiable`` and ``mark_dirty``. Each example runs on the engine and on
PyTorch (the same code, the library passed in) and the results are compared."""

from __future__ import annotations

import numpy as np
import pytest

from diffcompare import autograd as ag
from diffcompare.autograd.function import once_differentiable as ag_once_differentiable

torch = pytest.importorskip("torch")
from differential import assert_same, leaf, on_both, tensor_array  # noqa: E402,F401
from torch.autograd.function import once_differentiable as torch_once_differentiable  # noqa: E402


def _both(program):
    """Run ``program(lib)`` on the engine and on PyTorch; compare every result it returns."""
    on_both(program, ag, torch)


_leaf = leaf


def functions(lib, once_differentiable):
    """The note's examples, written once for either library."""

    class LinearFunction(lib.autograd.Function):
        @staticmethod
        def forward(input, weight, bias):
            output = input.mm(weight.t())
            if bias is not None:
                output += bias.unsqueeze(0).expand_as(output)
            return output

        @staticmethod
        def setup_context(ctx, inputs, output):
            input, weight, bias = inputs
            ctx.save_for_backward(input, weight, bias)

        @staticmethod
        def backward(ctx, grad_output):
            input, weight, bias = ctx.saved_tensors
            grad_input = grad_weight = grad_bias = None
            if ctx.needs_input_grad[0]:
                grad_input = grad_output.mm(weight)
            if ctx.needs_input_grad[1]:
                grad_weight = grad_output.t().mm(input)
            if bias is not None and ctx.needs_input_grad[2]:
                grad_bias = grad_output.sum(0)
            return grad_input, grad_weight, grad_bias

    class MulConstant(lib.autograd.Function):
        @staticmethod
        def forward(tensor, constant=2.0):
            return tensor * constant

        @staticmethod
        def setup_context(ctx, inputs, output):
            _, constant = inputs
            ctx.constant = constant

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output * ctx.constant, None

    class MyCube(lib.autograd.Function):
        @staticmethod
        def forward(x):
            dx = 3 * x ** 2
            result = x ** 3
            return result, dx

        @staticmethod
        def setup_context(ctx, inputs, output):
            x, = inputs
            result, dx = output
            ctx.save_for_backward(x, dx)

        @staticmethod
        def backward(ctx, grad_output, grad_dx):
            x, dx = ctx.saved_tensors
            return grad_output * dx + grad_dx * 6 * x

    class SimpleFunc(lib.autograd.Function):
        @staticmethod
        def forward(x):
            return x.clone(), x.clone()

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.set_materialize_grads(False)

        @staticmethod
        @once_differentiable
        def backward(ctx, g1, g2):
            ctx.seen = (g1 is None, g2 is None)
            x_grad = None
            if g1 is not None:
                x_grad = g1
            if g2 is not None:
                x_grad = g2 if x_grad is None else x_grad + g2
            return x_grad

    class Sort(lib.autograd.Function):
        @staticmethod
        def forward(x):
            idx = lib.tensor(np.argsort(x.detach().numpy()))
            return x[idx], idx

        @staticmethod
        def setup_context(ctx, inputs, output):
            _, idx = output
            ctx.mark_non_differentiable(idx)
            ctx.save_for_backward(idx)

        @staticmethod
        def backward(ctx, g, g_idx):
            idx, = ctx.saved_tensors
            ctx.g_idx = g_idx
            out = lib.zeros_like(g)
            out[idx] = g
            return out

    class AddOneInPlace(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.add_(1)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 5

    return {cls.__name__: cls for cls in (LinearFunction, MulConstant, MyCube, SimpleFunc, Sort, AddOneInPlace)}


def _functions(lib):
    return functions(lib, ag_once_differentiable if lib is ag else torch_once_differentiable)


def test_linear_function():
    def program(lib):
        f = _functions(lib)["LinearFunction"]
        rng = np.random.default_rng(0)
        x, w, b = (_leaf(lib, rng.standard_normal(s)) for s in ((4, 3), (2, 3), (2,)))
        y = f.apply(x, w, b)
        (y * y).sum().backward()
        name = type(y.grad_fn).__name__
        no_bias = f.apply(x, w, None)
        return [y, x.grad, w.grad, b.grad, name, no_bias]
    _both(program)
    f = _functions(ag)["LinearFunction"]
    inputs = tuple(_leaf(ag, np.random.default_rng(1).standard_normal(s)) for s in ((4, 3), (2, 3), (2,)))
    assert ag.gradcheck(f.apply, inputs)


def test_mul_constant_with_default_and_keyword_arguments():
    def program(lib):
        f = _functions(lib)["MulConstant"]
        x = _leaf(lib, [1.0, 2.0])
        f.apply(x).sum().backward()
        first = x.grad.clone()
        f.apply(x, 3.0).sum().backward()
        f.apply(x, constant=4.0).sum().backward()
        return [first, x.grad]
    _both(program)


def test_my_cube_double_backward():
    def program(lib):
        f = _functions(lib)["MyCube"]
        x = _leaf(lib, [0.5, -1.5, 2.0])
        result, _ = f.apply(x)
        g, = lib.autograd.grad(result.sum(), x, create_graph=True)
        gg, = lib.autograd.grad(g.sum(), x)
        return [result, g, gg]
    _both(program)
    f = _functions(ag)["MyCube"]
    x = _leaf(ag, [0.5, -1.5, 2.0])
    assert ag.gradcheck(lambda t: f.apply(t)[0], (x,)) and ag.gradgradcheck(lambda t: f.apply(t)[0], (x,))


def test_set_materialize_grads_false_passes_none():
    def program(lib):
        f = _functions(lib)["SimpleFunc"]
        x = _leaf(lib, [1.0, 2.0])
        a, b = f.apply(x)
        (a * 3).sum().backward()
        return [x.grad, a.grad_fn.seen[0], a.grad_fn.seen[1]]
    _both(program)


def test_mark_non_differentiable():
    def program(lib):
        f = _functions(lib)["Sort"]
        x = _leaf(lib, [3.0, 1.0, 2.0])
        v, i = f.apply(x)
        (v * lib.tensor([1.0, 10.0, 100.0], dtype=lib.float64)).sum().backward()
        return [v, x.grad, v.requires_grad, i.requires_grad, i.grad_fn is None, v.grad_fn.g_idx]
    _both(program)


def test_mark_dirty_rebases_the_input():
    def program(lib):
        f = _functions(lib)["AddOneInPlace"]
        x = _leaf(lib, [1.0, 2.0])
        h = x * 1
        version = h._version
        out = f.apply(h)
        (out * out).sum().backward()
        return [out, x.grad, out is h, type(h.grad_fn).__name__, str(h._version - version)]
    _both(program)


def test_mark_dirty_on_a_leaf_is_an_error():
    for lib in (ag, torch):
        f = _functions(lib)["AddOneInPlace"]
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad has been used in an in-place"):
            f.apply(_leaf(lib, [1.0]))


def test_mark_dirty_makes_saved_values_of_the_input_stale():
    for lib in (ag, torch):
        f = _functions(lib)["AddOneInPlace"]
        h = _leaf(lib, [1.0, 2.0]).exp()
        out = f.apply(h)
        assert [type(n).__name__ for n, _ in out.grad_fn.next_functions] == ["ExpBackward0"]
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            out.sum().backward()


def test_forward_with_ctx_without_setup_context_and_the_reverse():
    class NoSetup(ag.Function):
        @staticmethod
        def forward(x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g

    with pytest.raises(TypeError, match="positional argument"):
        NoSetup.apply(_leaf(ag, [1.0]))
    with pytest.raises(NotImplementedError, match="setup_context is not implemented"):
        ag.Function.setup_context(None, (), None)


def test_vmap_is_refused_with_pytorchs_message():
    f = _functions(ag)["MulConstant"]
    assert f.generate_vmap_rule is False and torch.autograd.Function.generate_vmap_rule is False
    with pytest.raises(NotImplementedError, match="To use autograd.Function with vmap"):
        f.vmap(None, (0,), ag.ones(2))
