"""Cases from PyTorch's issue tracker and forum, run on the engine and on PyTorch: a retained
gradient after an in-place change, division's second derivative at a zero divisor, the nodes of
prod's double backward, the in-place error's words."""

import math

import numpy as np
import pytest

from diffcompare import autograd as ag

torch = pytest.importorskip("torch")


def _both(fn):
    return fn(ag), fn(torch)


def test_retain_grad_follows_the_tensor_to_its_new_node_after_an_in_place_change(torch_float64):
    # pytorch/pytorch PR 79767: after a.mul_(2), a.grad is the gradient of the new a only
    def run(lib):
        seen = []
        x = lib.tensor(2.0, requires_grad=True)
        a = x * 1
        a.register_hook(lambda g: seen.append(float(g)))
        a.retain_grad()
        a.mul_(2)
        b = a.clone()
        (a + 3 * b).sum().backward()
        return float(a.grad), seen, float(x.grad)
    ours, theirs = _both(run)
    assert ours == theirs
    assert ours[0] == 4.0 and ours[2] == 8.0     # d/da (a + 3a) = 4; d/dx = 4 * 2 by hand


def test_division_second_derivative_at_a_zero_divisor_is_infinite_not_nan(torch_float64):
    # pytorch/pytorch issue 43405: under detect_anomaly the engine used to raise on a nan
    def run(lib):
        x, y = lib.tensor(0.4, requires_grad=True), lib.tensor(0.0, requires_grad=True)
        gx, gy = lib.autograd.grad(x / y, (x, y), create_graph=True)
        with pytest.warns(UserWarning, match="Anomaly Detection has been enabled"), lib.autograd.detect_anomaly():
            gyx, gyy = lib.autograd.grad(gy, (x, y), create_graph=True)
        return [t.item() for t in (gx, gy, gyx, gyy)], [t.grad_fn.name() for t in (gx, gy, gyx, gyy)]
    (values, names), (want_values, want_names) = _both(run)
    assert names == want_names
    assert values == want_values
    assert values[3] == math.inf       # d2/dy2 x / y = 2 x / y^3 -> +inf at y = 0+, x > 0


def test_division_gradient_rounds_as_pytorchs_formula(torch_float64):
    a, b = np.random.default_rng(3).uniform(0.1, 10, (2, 200))

    def run(lib):
        x, y = lib.tensor(a, requires_grad=True), lib.tensor(b, requires_grad=True)
        (x / y).backward(lib.ones(200) * 0.7)
        return y.grad.detach().numpy()
    ours, theirs = _both(run)
    np.testing.assert_array_equal(ours, theirs)


@pytest.mark.parametrize("values", [[2.0, 3.0, 0.0, 0.0], [2.0, 3.0, 0.0, 4.0], [2.0, 3.0, 5.0, 4.0]])
def test_prod_double_backward_records_pytorchs_nodes(torch_float64, values):
    # pytorch/pytorch issue 106789: prod's gradient with zeros, taken with create_graph
    def run(lib):
        x = lib.tensor(values, requires_grad=True)
        gx, = lib.autograd.grad(lib.prod(x), x, create_graph=True)
        return gx.detach().numpy(), gx.grad_fn.name()
    (ours, name), (theirs, want_name) = _both(run)
    assert name == want_name
    np.testing.assert_array_equal(ours, theirs)


def test_the_in_place_error_names_the_tensor_type_and_producer_as_pytorch_does(torch_float64):
    # discuss.pytorch.org 169583: overwrite an exp's output, then backward
    def run(lib):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        u = x.exp()
        loss = (u * 2).sum()
        u[0] = 666
        with pytest.raises(RuntimeError) as error:
            loss.backward()
        return str(error.value).split(" Hint:")[0]
    ours, theirs = _both(run)
    assert ours == theirs
    assert "[torch.DoubleTensor [3]], which is output 0 of Exp," in ours


def _jacobian_case(lib):
    f = lambda a, b: (a * b.sum(), (a.sin() ** 2).sum() * b)    # noqa: E731
    return f, (lib.tensor([0.3, -1.2]), lib.tensor([0.5, 2.0, -0.25]))


def test_forward_mode_jacobian_matches_pytorchs(torch_float64):
    # pytorch/pytorch issue 184842: jacobian(..., strategy="forward-mode", vectorize=True)
    def run(lib):
        f, inputs = _jacobian_case(lib)
        forward = lib.autograd.functional.jacobian(f, inputs, strategy="forward-mode", vectorize=True)
        reverse = lib.autograd.functional.jacobian(f, inputs)
        x = lib.tensor([[0.1, 0.2, 0.3], [0.5, -1.0, 2.0]])
        tanh = lib.autograd.functional.jacobian(lib.tanh, x, strategy="forward-mode", vectorize=True)
        y = lib.tensor([[0.1, -0.4]], requires_grad=True)
        attached = lib.autograd.functional.jacobian(lib.tanh, y, strategy="forward-mode", vectorize=True)
        attached.sum().backward()       # the Jacobian of an input that requires grad is differentiable
        blocks = [block for row in forward for block in row] + [tanh, attached.detach(), y.grad]
        return ([b.numpy() for b in blocks], [b.requires_grad for b in blocks] + [attached.grad_fn.name()],
                [block.numpy() for row in reverse for block in row])
    (ours, ours_rg, ours_reverse), (theirs, theirs_rg, _) = _both(run)
    assert ours_rg == theirs_rg
    for a, t in zip(ours, theirs):
        assert a.shape == t.shape
        np.testing.assert_allclose(a, t, rtol=1e-12, atol=1e-15)
    assert ours_rg[-1] == "ReshapeAliasBackward0"
    # by hand: d/dy sum of tanh'(y) = -2 tanh(y) (1 - tanh(y)^2)
    t = np.tanh([[0.1, -0.4]])
    np.testing.assert_allclose(ours[-1], -2 * t * (1 - t ** 2), rtol=1e-12)
    for a, r in zip(ours, ours_reverse):       # forward and reverse mode agree (no shared code)
        np.testing.assert_allclose(a, r, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("kwargs, error", [
    (dict(vectorize=False), NotImplementedError), (dict(vectorize=True, create_graph=True), NotImplementedError),
    (dict(vectorize=True, strict=True), RuntimeError), (dict(vectorize=True, strategy="sideways"), AssertionError)])
def test_forward_mode_jacobian_refuses_what_pytorch_refuses(kwargs, error):
    kwargs = {"strategy": "forward-mode", **kwargs}
    messages = []
    for lib in (ag, torch):
        with pytest.raises(error) as caught:
            lib.autograd.functional.jacobian(lib.tanh, lib.ones(2), **kwargs)
        messages.append(str(caught.value))
    assert messages[0] == messages[1]


def test_forward_over_reverse_hessian_matches_pytorchs(torch_float64):
    a, b = np.array([0.3, -0.7, 1.1]), np.array([0.2, 0.5])

    def run(lib):
        f = lambda x, y: (x.sin() * y.exp().sum()).sum() * x[0]     # noqa: E731
        H = lib.autograd.functional.hessian(f, (lib.tensor(a), lib.tensor(b)), vectorize=True,
                                            outer_jacobian_strategy="forward-mode")
        return [[block.detach().numpy() for block in row] for row in H]
    ours, theirs = _both(run)
    for i in range(2):
        for j in range(2):
            np.testing.assert_allclose(ours[i][j], theirs[i][j], rtol=1e-12, atol=1e-15)
    # by hand: d2/dx0^2 of x0 sin(x0) S + x0 (sin x1 + sin x2) S, S = sum(exp(y))
    s = np.exp(b).sum()
    assert ours[0][0][0, 0] == pytest.approx((2 * np.cos(a[0]) - a[0] * np.sin(a[0])) * s, rel=1e-12)


def test_second_order_gradients_of_linear_weights_record_pytorchs_nodes(torch_float64):
    # functorch's MAML example: grads of F.linear's weight with create_graph=True
    def run(lib):
        F = lib.nn.functional
        W, b = lib.ones(4, 2, requires_grad=True), lib.zeros(4, requires_grad=True)
        names = []
        for x in (lib.ones(3, 2), lib.ones(5, 3, 2), lib.ones(2)):
            gW, gb = lib.autograd.grad(F.linear(x, W, b).pow(2).sum(), (W, b), create_graph=True)
            names += [gW.grad_fn.name(), gb.grad_fn.name()]
            (gW.sum() + gb.sum()).backward()       # and the second derivative runs
        return names, W.grad.numpy().copy()
    (names, grad), (want_names, want_grad) = run(ag), run(torch)
    assert names == want_names and names[0] == "TBackward0"
    np.testing.assert_allclose(grad, want_grad, rtol=1e-12)


def test_abs_gradient_under_create_graph_stays_in_the_graph_as_pytorchs(torch_float64):
    # functorch's MAML example with an L1 loss: the bias gradient has PyTorch's node
    data = [1.0, -2.0, float("nan"), 0.0, float("inf")]

    def run(lib):
        x = lib.tensor(data, requires_grad=True)
        g, = lib.autograd.grad(lib.nn.functional.l1_loss(x, lib.zeros(5)), x, create_graph=True)
        names = [g.grad_fn.name(), type(g.grad_fn.next_functions[1][0]).__name__]
        g.sum().backward()
        # (PyTorch's x.grad here is a zero tensor without storage: read it through an addition)
        return names, g.detach().tolist(), (x.grad + 0).tolist(), lib.sgn(lib.tensor(data)).tolist()
    ours, theirs = run(ag), run(torch)
    assert ours == theirs
    assert ours[0] == ["MulBackward0", "SgnBackward0"] and ours[3] == [1.0, -1.0, 0.0, 0.0, 1.0]
