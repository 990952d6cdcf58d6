"""backward() and grad(): the spec's sections 1 and 2, with values worked out by hand."""

import numpy as np
import pytest

from diffcompare import autograd as ag

FREED = "Trying to backward through the graph a second time"


def vec(*values, grad=True):
    return ag.tensor(list(values), requires_grad=grad)


def test_implicit_gradient_only_for_one_element_outputs():
    x = vec(1.0, 2.0, 3.0)
    with pytest.raises(RuntimeError, match="^grad can be implicitly created only for scalar outputs$"):
        (x * 2).backward()
    (x * 2)[0:1].backward()          # one element, not 0-d: allowed
    assert x.grad.tolist() == [2.0, 0.0, 0.0]


@pytest.mark.parametrize("seed_shape", [(4,), (1, 3)])
def test_seed_shape_must_match_exactly(seed_shape):
    x = vec(1.0, 2.0, 3.0)
    with pytest.raises(RuntimeError, match=r"Mismatch in shape: grad_output\[0\] has a shape of"):
        (x * 2).backward(ag.ones(*seed_shape))


def test_seed_is_cast_to_output_dtype_and_python_float_rejected():
    x = ag.tensor([1.0, 2.0], dtype=ag.float32, requires_grad=True)
    (x * 3).backward(ag.tensor([1.0, 1.0], dtype=ag.float64))
    assert x.grad.dtype == np.float32 and x.grad.tolist() == [3.0, 3.0]
    with pytest.raises(TypeError, match="'float' object is not iterable"):
        (x * 3).backward(2.0)


def test_vector_jacobian_product_of_square():
    # d/dx of x**2 is diag(2x); v^T J = 2 x v
    x = vec(2.0, 3.0, 4.0)
    (x ** 2).backward(ag.tensor([1.0, 0.1, 0.01]))
    np.testing.assert_allclose(x.grad.numpy(), [4.0, 0.6, 0.08])


def test_second_backward_raises_only_for_nodes_with_saved_tensors():
    x = vec(1.0, 2.0)
    y = (x * 2).sum()
    y.backward()
    with pytest.raises(RuntimeError, match=FREED):
        y.backward()
    for make in (lambda t: (t + 1).sum(), lambda t: (t - 1).sum(), lambda t: (-t).mean(), lambda t: t.reshape(2, 1).sum(),
                 lambda t: ag.cat([t, t]).sum(), lambda t: t[0], lambda t: t.clone().sum()):
        x = vec(1.0, 2.0)
        y = make(x)
        y.backward()
        y.backward()   # nothing was saved: allowed


def test_retain_graph_and_accumulation():
    x = vec(1.0, 2.0, 3.0)
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    assert x.grad.tolist() == [4.0, 8.0, 12.0]     # 2x twice
    x = vec(1.0, 2.0)
    for _ in range(3):
        (x * x).sum().backward()
    assert x.grad.tolist() == [6.0, 12.0]


def test_grad_identity_first_new_then_in_place():
    x = vec(1.0, 2.0)
    g = ag.tensor([1.0, 1.0])
    x.backward(g)
    assert x.grad is not g
    g.add_(1)
    assert x.grad.tolist() == [1.0, 1.0]           # not aliased
    first = x.grad
    x.backward(ag.tensor([1.0, 1.0]))
    assert x.grad is first and first.tolist() == [2.0, 2.0]
    x.grad = ag.tensor([5.0, 5.0])
    (x * 1).sum().backward()
    assert x.grad.tolist() == [6.0, 6.0]


def test_create_graph_keeps_graph_and_warns():
    x = vec(1.0, 2.0)
    y = (x ** 3).sum()
    with pytest.warns(UserWarning, match="reference cycle"):
        y.backward(create_graph=True)
    g = x.grad
    assert g.grad_fn is not None and g.tolist() == [3.0, 12.0]   # 3x^2
    x.grad = None
    g.sum().backward()
    assert x.grad.tolist() == [6.0, 12.0]                        # 6x
    x = vec(1.0, 2.0)
    y = (x * x).sum()
    with pytest.warns(UserWarning):
        y.backward(retain_graph=False, create_graph=True)
    with pytest.raises(RuntimeError, match=FREED):
        y.backward()


def test_inputs_argument():
    x, w = ag.tensor(1.0, requires_grad=True), ag.tensor(3.0, requires_grad=True)
    (x * w).backward(inputs=[x])
    assert x.grad.item() == 3.0 and w.grad is None
    x = ag.tensor(1.0, requires_grad=True)
    h = x * 3
    (h * h).backward(inputs=[h], retain_graph=True)
    assert h.grad.item() == 6.0 and x.grad is None and h.retains_grad   # d(h^2)/dh = 2h = 6
    x = ag.tensor(1.0, requires_grad=True)
    h = x * 3
    (h * h).backward(inputs=[h, x])
    assert (h.grad.item(), x.grad.item()) == (6.0, 18.0)                 # 2h*3
    with pytest.raises(RuntimeError, match="cannot be empty"):
        (x * 2).backward(inputs=[])
    with pytest.raises(RuntimeError, match="can't retain_grad on Tensor that has requires_grad=False"):
        (x * 2).backward(inputs=[ag.tensor(1.0)])
    w = ag.tensor(1.0, requires_grad=True)
    (x * 2).backward(inputs=w)       # not in the graph: no error, no grad
    assert w.grad is None


def test_graph_without_grad_and_multiple_outputs():
    with pytest.raises(RuntimeError, match="element 0 of tensors does not require grad and does not have a grad_fn"):
        (ag.tensor([1.0, 2.0]) * 2).sum().backward()
    x = vec(1.0, 2.0)
    assert ag.backward([(2 * x).sum(), (x * x).sum()]) is None
    assert x.grad.tolist() == [4.0, 6.0]     # 2 + 2x
    with pytest.raises(RuntimeError, match="got 2 tensors and 1 gradients"):
        ag.backward([(2 * x).sum(), (x * x).sum()], grad_tensors=[ag.tensor(1.0)])
    x = vec(1.0, 2.0)
    ag.backward([(x * x).sum(), x * 3], grad_tensors=[None, ag.tensor([1.0, 10.0])])
    assert x.grad.tolist() == [5.0, 34.0]    # 2x + [3, 30]


def test_grad_assignment_checks():
    x = vec(1.0, 2.0)
    with pytest.raises(RuntimeError, match="attempting to assign a gradient of size '\\[3\\]'"):
        x.grad = ag.zeros(3)
    x32 = ag.tensor([1.0, 2.0], dtype=ag.float32, requires_grad=True)
    with pytest.raises(RuntimeError, match="attempting to assign a gradient with dtype"):
        x32.grad = ag.zeros(2)


def test_diamond_and_scalar_leaf():
    x = ag.tensor(3.0, requires_grad=True)
    y = x * x
    (y + y).backward()
    assert x.grad.item() == 12.0             # 4x
    x = ag.tensor(3.0, requires_grad=True)
    x.backward()
    assert x.grad.item() == 1.0


def test_autograd_grad():
    x, w = vec(1.0, 2.0), vec(1.0, 2.0, 3.0)
    y = (x * 2).sum()
    with pytest.raises(RuntimeError, match="index 1 appears to not have been used in the graph"):
        ag.grad(y, [x, w], retain_graph=True)
    gx, gw = ag.grad(y, [x, w], allow_unused=True, retain_graph=True)
    assert gx.tolist() == [2.0, 2.0] and gw is None
    gx, gw = ag.grad(y, [x, w], materialize_grads=True, retain_graph=True)
    assert gw.tolist() == [0.0, 0.0, 0.0] and not gw.requires_grad
    with pytest.raises(ValueError, match="allow_unused to be True or not passed"):
        ag.grad(y, [x], materialize_grads=True, allow_unused=False)
    assert x.grad is None and w.grad is None
    assert ag.grad((x * x).sum(), {"x": x})["x"].tolist() == [2.0, 4.0]


def test_grad_of_non_leaf_vjp_and_several_outputs():
    x = vec(2.0, 1.0)
    h = x * 3
    assert ag.grad((h * h).sum(), h)[0].tolist() == [12.0, 6.0]     # 2h
    x = vec(2.0, 1.0)
    assert ag.grad(x * x, x, grad_outputs=ag.tensor([1.0, 10.0]))[0].tolist() == [4.0, 20.0]
    x = vec(2.0, 1.0)
    g, = ag.grad([x * x, (3 * x).sum()], x, grad_outputs=[ag.ones(2), None])
    assert g.tolist() == [7.0, 5.0]          # 2x + 3
    x = vec(2.0, 1.0)
    a, b = ag.grad((x * x).sum(), [x, x])
    assert a.tolist() == b.tolist() == [4.0, 2.0]


def test_grad_argument_errors():
    x = vec(2.0, 1.0)
    with pytest.raises(RuntimeError, match="`inputs` argument to `grad\\(\\)` cannot be empty."):
        ag.grad((x * x).sum(), [])
    with pytest.raises(RuntimeError, match="index 0 appears to not have been used"):
        ag.grad([], [x])
    with pytest.raises(RuntimeError, match="One of the differentiated Tensors does not require grad"):
        ag.grad((x * x).sum(), [ag.tensor(1.0)])
    s = ag.tensor(2.0, requires_grad=True)
    assert ag.grad(s, s)[0].item() == 1.0
    with pytest.raises(RuntimeError, match="implicitly created only for scalar outputs"):
        ag.grad(x, x)
    y = (x * x).sum()
    ag.grad(y, x)
    with pytest.raises(RuntimeError, match=FREED):
        ag.grad(y, x)


def test_higher_derivatives():
    x = vec(1.0, 2.0)
    g, = ag.grad((x ** 3).sum(), x, create_graph=True)
    assert type(g.grad_fn).__name__ == "MulBackward0" and g.tolist() == [3.0, 12.0]
    rows = [ag.grad(g[i], x, retain_graph=True)[0].tolist() for i in (0, 1)]
    assert rows == [[6.0, 0.0], [0.0, 12.0]]
    x = ag.tensor(3.0, requires_grad=True)
    d = [x ** 4]
    for _ in range(4):
        d.append(ag.grad(d[-1], x, create_graph=True)[0])
    assert [t.item() for t in d[1:]] == [108.0, 108.0, 72.0, 24.0]      # 4x^3, 12x^2, 24x, 24
    assert ag.grad(d[4], x, allow_unused=True)[0].item() == 0.0
    x = vec(1.0, 2.0)
    g, = ag.grad((x ** 2).sum(), x)
    with pytest.raises(RuntimeError, match="does not require grad"):
        ag.grad(g.sum(), x)


def test_integer_powers_round_as_pytorchs_kernel_multiplies_them_out():
    # PyTorch's CPU pow computes x**3 as x*x*x and x**-2 as 1/(x*x): the same roundings here,
    # and the gradient 3x² from (x*x)*3
    x = np.array([1.1, -2.3, 0.7, 3.3e-5, 1e100])
    t = ag.tensor(x, requires_grad=True)
    y = t ** 3
    assert (y.detach().numpy() == x * x * x).all()
    y.sum().backward()
    assert (t.grad.numpy() == (x * x) * 3).all()
    assert ((ag.tensor(x) ** -2).numpy() == 1 / (x * x)).all()
