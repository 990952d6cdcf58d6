"""``gradcheck`` with complex inputs or outputs, as PyTorch checks them (the real and imaginary
parts: backward mode one part of complex outputs at a time, forward mode one part of complex
inputs at a time), and the forward-mode rules of angle, polar and view_as_real/complex it
exercises: verdicts and the first line of the message, compared with PyTorch."""

import numpy as np
import pytest

from diffcompare import autograd as ag

torch = pytest.importorskip("torch")

Z = [0.5 + 0.3j, -1.0 + 2j, 0.2 - 0.7j]
X = [0.5, -1.0, 2.0]


def _square_with_wrong_backward(lib):
    class Square(lib.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            ctx.save_for_backward(t)
            return t * t

        @staticmethod
        def backward(ctx, g):
            (t,) = ctx.saved_tensors
            return g * 2 * t            # PyTorch's convention needs conj(2 t)
    return Square.apply


CASES = {
    "angle": (lambda lib: lib.angle, "z"),
    "abs": (lambda lib: lib.abs, "z"),
    "exp": (lambda lib: lib.exp, "z"),
    "conj(z) z": (lambda lib: (lambda t: t.conj() * t), "z"),
    "real": (lambda lib: lib.real, "z"),
    "x times i": (lambda lib: (lambda t: t * 1j), "x"),
    "polar(x, 2x)": (lambda lib: (lambda t: lib.polar(t, t * 2)), "x"),
    "polar(|x|, x)": (lambda lib: (lambda t: lib.polar(t.abs() + 1, t)), "x"),
    "view_as_real": (lambda lib: lib.view_as_real, "z"),
    "view_as_complex": (lambda lib: (lambda t: lib.view_as_complex(t.reshape(-1, 2)[:1].contiguous())), "x4"),
    "sum |z|^2": (lambda lib: (lambda t: (t.abs() ** 2).sum()), "z"),
    "outer product": (lambda lib: (lambda t: t.reshape(3, 1) @ t.reshape(1, 3)), "z"),
    "wrong backward": (_square_with_wrong_backward, "z"),
}


def _input(lib, kind):
    values = {"z": Z, "x": X, "x4": X + [0.25]}[kind]
    return lib.tensor(values, requires_grad=True)


def _verdict(lib, case, forward):
    make, kind = CASES[case]
    try:
        return lib.autograd.gradcheck(make(lib), (_input(lib, kind),), check_forward_ad=forward,
                                      check_backward_ad=not forward)
    except RuntimeError as error:           # GradcheckError is a RuntimeError on both sides
        return str(error).split("\n")[0]


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("forward", [False, True], ids=["backward mode", "forward mode"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_complex_gradcheck_verdicts_and_messages_are_pytorchs(torch_float64, case, forward):
    if case == "wrong backward" and forward:
        pytest.skip("a custom Function without jvp: both refuse forward mode, in their own words")
    assert _verdict(ag, case, forward) == _verdict(torch, case, forward)


@pytest.mark.parametrize("case", ["angle", "polar(x, 2x)", "view_as_real", "view_as_complex"])
def test_the_forward_mode_tangents_are_pytorchs(torch_float64, case):
    make, kind = CASES[case]

    def tangent(lib):
        x = _input(lib, kind).detach()
        direction = lib.ones_like(x) * (0.5 - 0.25j if lib.is_complex(x) else 0.5)
        return lib.func.jvp(make(lib), (x,), (direction,))[1].numpy()
    np.testing.assert_allclose(tangent(ag), tangent(torch), rtol=1e-12, atol=1e-14)


def test_a_complex_numerical_jacobian_matches_the_hand_derivation():
    # z^2 = (x^2 - y^2) + 2ixy: d/dx = (2x, 2y), d/dy = (-2y, 2x) for (Re, Im) at z = 1 + 2i
    from diffcompare.autograd.gradcheck import complex_numerical_jacobian
    J = complex_numerical_jacobian(lambda t: t * t, (ag.tensor([1 + 2j], requires_grad=True),))[0][0]
    assert np.allclose([J["real", "real"][0, 0], J["real", "imag"][0, 0]], [2.0, 4.0])
    assert np.allclose([J["imag", "real"][0, 0], J["imag", "imag"][0, 0]], [-4.0, 2.0])
