"""PyTorch's NumPy-style keyword names on torch functions and Tensor methods (``axis=``,
``keepdims=``, ``x=``/``input=``, ``x2=``, factories' ``size=``), and F's activations with
``inplace=True``: values by hand, and against PyTorch where it is installed."""

from __future__ import annotations

import numpy as np
import pytest

from diffcompare import autograd as ag

X = np.array([[1.0, -2.0, 3.0], [0.5, 4.0, -1.0]])


@pytest.mark.parametrize("call, expected", [
    (lambda L, x: L.sum(x, axis=1), [2.0, 3.5]),
    (lambda L, x: x.sum(axis=0, keepdims=True), [[1.5, 2.0, 2.0]]),
    (lambda L, x: L.cumprod(x, axis=1), [[1.0, -2.0, -6.0], [0.5, 2.0, -2.0]]),
    (lambda L, x: L.amax(x, axis=0), [1.0, 4.0, 3.0]),
    (lambda L, x: x.softmax(axis=0)[0, 0], 1 / (1 + np.exp(-0.5))),
    (lambda L, x: L.add(x=x, other=x)[0], [2.0, -4.0, 6.0]),
    (lambda L, x: L.mul(x, x2=x)[1], [0.25, 16.0, 1.0]),
    (lambda L, x: L.cumsum(input=x, axis=1)[0, 2], 2.0),
    (lambda L, x: L.logsumexp(input=x, axis=0)[0], np.log(np.e + np.exp(0.5))),
    (lambda L, x: L.zeros(size=(2, 3)).shape, (2, 3)),
    (lambda L, x: L.ones(size=[4]), [1.0] * 4),
    (lambda L, x: L.empty(size=(1, 2)).shape, (1, 2)),
])
def test_numpy_keywords_by_hand(call, expected):
    value = call(ag, ag.tensor(X))
    got = tuple(value) if isinstance(value, tuple) or type(value).__name__ == "Size" else np.asarray(value.tolist())
    assert np.allclose(got, expected)


def test_a_name_given_twice_is_refused():
    with pytest.raises(TypeError, match="multiple values for argument 'dim'"):
        ag.cumprod(ag.tensor(X), dim=0, axis=1)
    with pytest.raises(TypeError, match="multiple values for argument 'size'"):
        ag.zeros(2, size=(3,))


def test_two_names_of_one_function_stay_one():
    assert ag.clip is ag.clamp


ACTIVATIONS = {"relu": (), "leaky_relu": (0.1,), "elu": (), "selu": (), "celu": (), "silu": (), "mish": (),
               "hardtanh": (), "relu6": (), "hardsigmoid": (), "hardswish": (), "threshold": (0.1, 2.0)}
IN_PLACE_NAMES = {"leaky_relu": "LeakyReluBackward1", "elu": "EluBackward1", "selu": "EluBackward1",
                  "celu": "CeluBackward1", "threshold": "ThresholdBackward1"}


@pytest.mark.parametrize("name", ACTIVATIONS)
def test_inplace_activations_write_into_their_input(name):
    F = ag.nn.functional
    x = ag.tensor(X, requires_grad=True)
    y = x * 1
    out = getattr(F, name)(y, *ACTIVATIONS[name], inplace=True)
    assert out is y and y._version == 1
    expected = getattr(F, name)(x * 1, *ACTIVATIONS[name])
    assert np.allclose(y.detach().numpy(), expected.detach().numpy())
    out.sum().backward()
    out_of_place = ag.tensor(X, requires_grad=True)
    getattr(F, name)(out_of_place * 1, *ACTIVATIONS[name]).sum().backward()
    assert np.allclose(x.grad.numpy(), out_of_place.grad.numpy())
    if name in IN_PLACE_NAMES:
        assert out.grad_fn.name() == IN_PLACE_NAMES[name]


def test_leaky_relu_in_place_by_hand():
    y = ag.tensor([-2.0, 3.0], requires_grad=True) * 1
    ag.nn.functional.leaky_relu_(y, 0.5)
    assert y.tolist() == [-1.0, 3.0] and y.grad_fn.name() == "LeakyReluBackward1"


@pytest.mark.parametrize("name", ACTIVATIONS)
def test_inplace_activations_match_pytorch(name):
    torch = pytest.importorskip("torch")
    xt = torch.tensor(X, requires_grad=True)
    yt = xt * 1
    zt = getattr(torch.nn.functional, name)(yt, *ACTIVATIONS[name], inplace=True)
    zt.sum().backward()
    xa = ag.tensor(X, requires_grad=True)
    ya = xa * 1
    za = getattr(ag.nn.functional, name)(ya, *ACTIVATIONS[name], inplace=True)
    za.sum().backward()
    assert za.grad_fn.name() == zt.grad_fn.name()
    assert np.allclose(ya.detach().numpy(), yt.detach().numpy(), rtol=1e-12, atol=0)
    assert np.allclose(xa.grad.numpy(), xt.grad.numpy(), rtol=1e-12, atol=0)


@pytest.mark.parametrize("expression", ["L.sum(X, axis=1)", "X.sum(axis=1, keepdims=True)", "L.cumprod(X, axis=0)",
                                        "L.max(X, axis=1)[0]", "L.sort(X, axis=0)[0]", "L.topk(X, 2, axis=1)[0]",
                                        "L.any(X > 0, axis=1)", "X.amax(axis=0)", "L.logsumexp(X, axis=1)",
                                        "L.index_select(X, axis=0, index=L.tensor([1]))", "L.unsqueeze(X, axis=0)",
                                        "L.add(x=X, other=X)", "L.mul(X, x2=X)", "L.zeros(size=(2, 3))",
                                        "L.cumsum(input=X, axis=1)"])
def test_numpy_keywords_match_pytorch(expression):
    torch = pytest.importorskip("torch")
    values = [eval(expression, {"L": L, "X": L.tensor(X)}) for L in (torch, ag)]    # noqa: S307 (fixed test text)
    assert np.array_equal(values[0].numpy(), values[1].numpy())
