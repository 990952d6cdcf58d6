"""A graph's nodes called directly, as PyTorch's tutorials and course notebooks call them:
``y.grad_fn(grad)`` (a built-in node: the gradients for its inputs), ``leaf_node(grad)``
(AccumulateGrad: into ``.grad``), and ``z.grad_fn.apply(grad)`` (a custom Function's node: its
``backward`` as written). Values by hand, then beside PyTorch where it is installed."""

from __future__ import annotations

import numpy as np
import pytest

from diffcompare import autograd as ag


class MultiplyAdd(ag.Function):
    @staticmethod
    def forward(ctx, w, x, b):
        ctx.save_for_backward(w, x)
        return w * x + b

    @staticmethod
    def backward(ctx, grad_output):
        w, x = ctx.saved_tensors
        return grad_output * x, grad_output * w, grad_output


# -- by hand (no PyTorch needed) ----------------------------------------------------------------

def test_a_built_in_node_gives_its_inputs_gradients_and_keeps_the_graph():
    w = ag.tensor([0.3, 0.7], requires_grad=True)
    x = ag.tensor([1.5, -2.0], requires_grad=True)
    y = w * x
    gw, gx = y.grad_fn(ag.tensor([1.0, 10.0]))             # d(w*x)/dw = x, d/dx = w, times the gradient
    assert gw.tolist() == [1.5, -20.0] and gx.tolist() == [0.3, 7.0]
    assert gw.grad_fn.name() == "MulBackward0"               # grad mode: the gradients have a history
    with ag.no_grad():
        assert y.grad_fn(ag.ones(2))[0].grad_fn is None
    assert w.grad is None                                    # nothing accumulated, nothing released
    y.sum().backward()
    assert w.grad.tolist() == [1.5, -2.0]
    with pytest.raises(TypeError, match="expected 1 arguments, got 2 instead"):
        y.grad_fn(ag.ones(2), ag.ones(2))
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.grad_fn(ag.ones(2))                                # released by that backward


def test_one_input_gives_the_gradient_alone_and_a_constant_none():
    w = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
    assert (w * w).sum().grad_fn(ag.tensor(2.0)).tolist() == [2.0, 2.0, 2.0]
    grads = (w * 3).grad_fn(ag.ones(3))
    assert grads[0].tolist() == [3.0, 3.0, 3.0] and grads[1] is None
    e = w.exp()
    assert np.allclose(e.grad_fn(ag.ones(3)).tolist(), np.exp([1.0, 2.0, 3.0]), rtol=1e-15)


def test_accumulate_grad_node_accumulates_into_grad():
    v = ag.tensor([1.0, 2.0], requires_grad=True)
    node = v.sum().grad_fn.next_functions[0][0]
    assert node(ag.ones(2)) == () and v.grad.tolist() == [1.0, 1.0]
    assert node(ag.tensor([0.5, 2.0])) == () and v.grad.tolist() == [1.5, 3.0]
    with pytest.raises(TypeError, match="expected 1 arguments, got 0 instead"):
        node()


def test_custom_function_node_apply_runs_its_backward():
    w, x, b = ag.tensor([2.0], requires_grad=True), ag.tensor([5.0]), ag.tensor([1.0], requires_grad=True)
    z = MultiplyAdd.apply(w, x, b)
    gw, gx, gb = z.grad_fn.apply(ag.tensor([3.0]))
    assert (gw.tolist(), gx.tolist(), gb.tolist()) == ([15.0], [6.0], [3.0])
    assert gx.grad_fn is not None and gw.grad_fn is None     # 3 * w records (w requires grad), 3 * x does not
    with pytest.raises(TypeError, match="object is not callable"):
        z.grad_fn(ag.ones(1))                                # a custom node is applied, not called, as in PyTorch


# -- beside PyTorch ------------------------------------------------------------------------------

def _session(T, function_class):
    """What a notebook does with its nodes; every value it shows, as lists (or error texts)."""
    T.manual_seed(0)
    shown = []

    def show(value):
        if isinstance(value, tuple):
            shown.append(tuple(show_one(v) for v in value))
        else:
            shown.append(show_one(value))

    def show_one(v):
        return None if v is None else (v.tolist(), v.grad_fn.name() if v.grad_fn is not None else None)

    def error(f):
        try:
            f()
        except Exception as e:  # noqa: BLE001 - the type and text are what is compared
            return type(e).__name__, str(e)
        return None

    w = T.tensor([0.3, 0.7], requires_grad=True)
    x = T.tensor([1.5, -2.0], requires_grad=True)
    y = w * x
    show(y.grad_fn(T.ones(2)))
    show((w * x).sum().grad_fn(T.tensor(1.0)))
    show((w * x).exp().grad_fn(T.ones(2)))
    show(T.stack([w, x]).grad_fn(T.ones(2, 2)))
    show((w[1:] * 2).grad_fn(T.ones(1)))
    show((w - 1).grad_fn(T.ones(2)))
    # (values only: PyTorch records a fused loss's backward as one node, MseLossBackwardBackward0)
    shown.append([g.tolist() for g in T.nn.functional.mse_loss(w, x).grad_fn(T.tensor(1.0))])
    with T.no_grad():
        show(y.grad_fn(T.tensor([2.0, 3.0])))
    shown.append(error(lambda: y.grad_fn(T.ones(2), T.ones(2))))
    y.sum().backward()
    shown.append(error(lambda: y.grad_fn(T.ones(2))))
    v = T.tensor([1.0, 2.0], requires_grad=True)
    node = v.sum().grad_fn.next_functions[0][0]
    show(node(T.ones(2)))
    show(v.grad)
    shown.append(error(lambda: node()))
    z = function_class.apply(w, T.tensor([5.0, 6.0]), T.ones(2, requires_grad=True))
    show(z.grad_fn.apply(T.tensor([3.0, 4.0])))
    shown.append(error(lambda: z.grad_fn(T.ones(2)))[0])
    return shown


def test_calling_nodes_as_pytorch():
    torch = pytest.importorskip("torch")
    torch.set_default_dtype(torch.float64)
    try:
        class TorchMultiplyAdd(torch.autograd.Function):
            forward = MultiplyAdd.forward
            backward = MultiplyAdd.backward

        theirs = _session(torch, TorchMultiplyAdd)
    finally:
        torch.set_default_dtype(torch.float32)
    assert _session(ag, MultiplyAdd) == theirs
