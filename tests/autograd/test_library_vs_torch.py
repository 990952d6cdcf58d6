"""``torch.library.custom_op`` and its registrations, run on the engine and on PyTorch: the
Python custom operators tutorial's NumPy sine, an operator with a keyword and two outputs, an
in-place one, the errors of a missing or wrong backward, ``torch.ops`` access and ``opcheck``."""

import itertools

import numpy as np
import pytest

from diffcompare import autograd as ag

torch = pytest.importorskip("torch")

_names = (f"n{i}" for i in itertools.count())


def _define(lib, with_autograd=True):
    """The tutorial's operator (sin through NumPy) in library ``lib``, under a fresh name (an
    operator name can be defined once per process)."""
    name = f"dctest::sin_{next(_names)}"

    @lib.library.custom_op(name, mutates_args=())
    def numpy_sin(x: lib.Tensor) -> lib.Tensor:
        return lib.from_numpy(np.sin(x.numpy(force=True)))

    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0])

    def backward(ctx, grad):
        x, = ctx.saved_tensors
        return grad * x.cos()

    if with_autograd:
        numpy_sin.register_autograd(backward, setup_context=setup_context)

    @numpy_sin.register_fake
    def _(x):
        return lib.empty_like(x)
    return numpy_sin, name


def test_a_custom_op_with_a_registered_backward_differentiates_as_pytorchs(torch_float64):
    data = np.array([0.3, -1.2, 2.5])

    def run(lib):
        op, name = _define(lib)
        x = lib.tensor(data, requires_grad=True)
        y = op(x)
        namespace, short = name.split("::")
        z = getattr(getattr(lib.ops, namespace), short)(x)
        (y * y + z).sum().backward()
        return y.detach().numpy(), x.grad.numpy(), y.grad_fn.name().split("_sin_")[0], y.requires_grad
    ours, theirs = run(ag), run(torch)
    for a, t in zip(ours[:2], theirs[:2]):
        np.testing.assert_allclose(a, t, rtol=1e-14)
    assert ours[2:] == theirs[2:] == ("GeneratedBackwardFor_dctest", True)
    np.testing.assert_allclose(ours[1], 2 * np.sin(data) * np.cos(data) + np.cos(data), rtol=1e-14)   # by hand


def test_backward_through_a_custom_op_without_autograd_is_pytorchs_error():
    messages = []
    for lib in (ag, torch):
        op, name = _define(lib, with_autograd=False)
        y = op(lib.ones(2, requires_grad=True))
        assert y.requires_grad
        with pytest.raises(RuntimeError) as error:
            y.sum().backward()
        messages.append(str(error.value).replace(name.replace("::", "."), "OP"))
    assert messages[0] == messages[1]
    assert "no autograd formula was registered" in messages[0]


def test_a_backward_giving_too_few_gradients_is_pytorchs_error():
    # pytorch/pytorch issue 137219: a two-input operator whose backward returns one gradient
    messages = []
    for lib in (ag, torch):
        name = f"dctest::foo_{next(_names)}"

        @lib.library.custom_op(name, mutates_args=())
        def foo(x: lib.Tensor, y: lib.Tensor) -> lib.Tensor:
            return x.clone() * y

        foo.register_autograd(lambda ctx, grad: grad)
        out = foo(lib.ones(2, requires_grad=True), lib.ones(2))
        with pytest.raises(RuntimeError) as error:
            out.sum().backward()
        messages.append(str(error.value).replace(name.split("::")[1], "OP"))
    assert messages[0] == messages[1]
    # PyTorch counts one input more than the operator has (its generated Function's own)
    assert "returned an incorrect number of gradients (expected 3, got 2)" in messages[0]


def test_keywords_several_outputs_and_in_place_operators(torch_float64):
    def run(lib):
        name = f"dctest::scale_{next(_names)}"

        @lib.library.custom_op(name, mutates_args=(), device_types="cpu")
        def scale(x: lib.Tensor, k: float = 2.0, *, shift: float = 0.0) -> tuple[lib.Tensor, lib.Tensor]:
            return x * k + shift, x.clone()

        def setup_context(ctx, inputs, keyword_only_inputs, output):
            ctx.k = inputs[1]
            assert set(keyword_only_inputs) == {"shift"}

        # one gradient per positional input; keyword-only ones get none
        scale.register_autograd(lambda ctx, ga, gb: (ga * ctx.k + gb, None), setup_context=setup_context)
        add_name = f"dctest::add_into_{next(_names)}"

        @lib.library.custom_op(add_name, mutates_args={"out"})
        def add_into(x: lib.Tensor, out: lib.Tensor) -> None:
            out.add_(x)

        x = lib.tensor([1.0, -2.0], requires_grad=True)
        a, b = scale(x, 3.0, shift=0.5)
        (a.sum() + (b * b).sum()).backward()
        buffer = lib.zeros(2)
        returned = add_into(x.detach(), buffer)
        return a.detach().numpy(), b.detach().numpy(), x.grad.numpy(), buffer.numpy(), returned
    ours, theirs = run(ag), run(torch)
    for a, t in zip(ours[:4], theirs[:4]):
        np.testing.assert_allclose(a, t, rtol=1e-14)
    assert ours[4] is None and theirs[4] is None
    np.testing.assert_allclose(ours[2], [3 + 2 * 1.0, 3 + 2 * -2.0])     # by hand: 3 + 2x


def test_opcheck_passes_a_correct_operator_and_names_a_wrong_fake():
    ours, _ = _define(ag)
    theirs, _ = _define(torch)
    for lib, op in ((ag, ours), (torch, theirs)):
        report = lib.library.opcheck(op, (lib.randn(3, requires_grad=True),))
        assert report == {name: "SUCCESS" for name in ("test_schema", "test_autograd_registration",
                                                       "test_faketensor", "test_aot_dispatch_dynamic")}
    name = f"dctest::bad_{next(_names)}"

    @ag.library.custom_op(name, mutates_args=())
    def bad(x: ag.Tensor) -> ag.Tensor:
        return x * 2

    bad.register_fake(lambda x: ag.empty(5))
    with pytest.raises(Exception, match="test_faketensor"):
        ag.library.opcheck(bad, (ag.ones(3),))
    report = ag.library.opcheck(bad, (ag.ones(3),), raise_exception=False)
    assert report["test_schema"] == "SUCCESS" and isinstance(report["test_faketensor"], Exception)


def test_opcheck_catches_an_undeclared_mutation():
    name = f"dctest::sneaky_{next(_names)}"

    @ag.library.custom_op(name, mutates_args=())
    def sneaky(x: ag.Tensor) -> ag.Tensor:
        x.add_(1)
        return x.clone()

    sneaky.register_fake(lambda x: ag.empty_like(x))
    report = ag.library.opcheck(sneaky, (ag.ones(3),), raise_exception=False)
    assert "changed argument 'x' in place" in str(report["test_schema"])


@pytest.mark.parametrize("bad", ["noname", "a::b::c", "::x", "ns::x.overload"])
def test_a_malformed_operator_name_is_refused_as_pytorch_refuses_it(bad):
    for lib in (ag, torch):
        with pytest.raises(ValueError):
            lib.library.custom_op(bad, lambda x: x, mutates_args=())
