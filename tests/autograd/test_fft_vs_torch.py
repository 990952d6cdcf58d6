"""``torch.fft`` on the engine: values worked out by hand, gradients against central differences
of NumPy's transforms (a second implementation sharing no code with the engine's backward), and
values, gradients, node chains and error messages against PyTorch where it is installed."""

from __future__ import annotations

import numpy as np
import pytest

from diffcompare import autograd as ag

RNG = np.random.default_rng(7)
REAL = RNG.standard_normal((3, 4, 5))
COMPLEX = REAL + 1j * RNG.standard_normal((3, 4, 5))


def test_transform_of_an_impulse_by_hand():
    """The DFT of e_1 over 4 points is exp(-2 pi i k / 4) = 1, -i, -1, i."""
    y = ag.fft.fft(ag.tensor([0.0, 1.0, 0.0, 0.0]))
    assert np.allclose(y.numpy(), [1, -1j, -1, 1j], atol=1e-15)
    assert np.allclose(ag.fft.ifft(y).numpy(), [0, 1, 0, 0], atol=1e-15)


def test_frequencies_and_shift_by_hand():
    assert np.allclose(ag.fft.fftfreq(5, d=0.5).numpy(), [0, 0.4, 0.8, -0.8, -0.4])
    assert np.allclose(ag.fft.rfftfreq(6).numpy(), [0, 1 / 6, 2 / 6, 3 / 6])
    assert ag.fft.fftshift(ag.arange(5.0)).tolist() == [3.0, 4.0, 0.0, 1.0, 2.0]
    assert ag.fft.ifftshift(ag.fft.fftshift(ag.arange(6.0).reshape(2, 3))).tolist() == [[0, 1, 2], [3, 4, 5]]


def test_round_trip_gradient_is_the_weights():
    """irfft(rfft(x)) is x, so the gradient of sum(w * irfft(rfft(x))) is w (odd length: n given)."""
    x = ag.tensor(REAL[0, 0], requires_grad=True)
    w = RNG.standard_normal(5)
    (ag.fft.irfft(ag.fft.rfft(x), n=5) * ag.tensor(w)).sum().backward()
    assert np.allclose(x.grad.numpy(), w, atol=1e-14)


def test_parseval_gradient_by_hand():
    """sum |fft(x)|^2 = n sum x^2 (norm="backward"), so its gradient is 2 n x."""
    x = ag.tensor(REAL[1, 2], requires_grad=True)
    ag.fft.fft(x).abs().pow(2).sum().backward()
    assert np.allclose(x.grad.numpy(), 2 * 5 * REAL[1, 2], rtol=1e-13)


def _numpy_loss(name, kwargs):
    """The same real loss through NumPy's transform (the reference the differences are taken of)."""
    numpy_name = {"fft2": "fft2", "ifft2": "ifft2", "rfft2": "rfft2", "irfft2": "irfft2"}.get(name, name)
    func = getattr(np.fft, numpy_name)
    translated = dict(kwargs)
    if "dim" in translated:
        translated["axes" if name.endswith(("n", "2")) else "axis"] = translated.pop("dim")
    elif "s" in translated and name.endswith("n"):     # PyTorch's default: the last len(s) dimensions
        translated["axes"] = tuple(range(-len(translated["s"]), 0))

    def loss(x):
        y = func(x, **translated)
        w = np.cos(np.arange(y.size)).reshape(y.shape)
        return float(np.sum(np.real(y) * w + np.imag(y) * 0.5 * w))
    return loss


@pytest.mark.parametrize("name, kwargs", [
    ("fft", {}), ("fft", {"n": 7, "norm": "ortho"}), ("ifft", {"dim": 0}), ("rfft", {"n": 4}), ("irfft", {"n": 6}),
    ("hfft", {}), ("ihfft", {"norm": "forward"}), ("fftn", {"s": (3, 6)}), ("rfftn", {"dim": (0, 2)}),
    ("irfftn", {}), ("fft2", {}), ("rfft2", {"norm": "ortho"}), ("irfft2", {"s": (4, 6)}),
])
def test_gradient_of_a_real_loss_against_central_differences(name, kwargs):
    x0 = REAL[:, :, :4] if name.startswith(("irfft", "hfft")) else REAL
    loss = _numpy_loss(name, kwargs)
    x = ag.tensor(x0, requires_grad=True)
    y = getattr(ag.fft, name)(x, **kwargs)
    w = np.cos(np.arange(y.numel())).reshape(tuple(y.shape))
    if y.is_complex():
        out = (y.real * ag.tensor(w)).sum() + (y.imag * ag.tensor(0.5 * w)).sum()
    else:
        out = (y * ag.tensor(w)).sum()
    assert out.item() == pytest.approx(loss(x0), rel=1e-12, abs=1e-12)
    out.backward()
    h, expected = 1e-6, np.zeros_like(x0)
    for i in np.ndindex(x0.shape):
        e = np.zeros_like(x0)
        e[i] = h
        expected[i] = (loss(x0 + e) - loss(x0 - e)) / (2 * h)
    assert np.allclose(x.grad.numpy(), expected, atol=1e-7)


def test_double_backward_of_a_transform():
    """The gradient of a transform is a transform, itself differentiable: gradgradcheck."""
    x = ag.tensor(REAL[0], requires_grad=True)
    assert ag.autograd.gradgradcheck(lambda t: ag.fft.irfft(ag.fft.rfft(t, dim=0) * ag.fft.rfft(t, dim=0), n=3, dim=0),
                                     (x,))
    assert ag.autograd.gradcheck(lambda t: ag.fft.hfft(t, n=6).sin(), (x,))


@pytest.mark.parametrize("call, message", [
    (lambda: ag.fft.fft(ag.ones(4), norm="half"), 'Invalid normalization mode: "half"'),
    (lambda: ag.fft.rfft(ag.ones(4, dtype=ag.complex128)), "rfft expects a real input tensor, but got ComplexDouble"),
    (lambda: ag.fft.fft(ag.ones(4), n=0), "Invalid number of data points (0) specified"),
    (lambda: ag.fft.fftn(ag.ones(2, 2), dim=(0, 0)), "FFT dims must be unique"),
    (lambda: ag.fft.fftn(ag.ones(2, 2), s=(2, 2, 2)), "Got shape with 3 values but input tensor only has 2 dimensions."),
])
def test_errors_in_pytorchs_words(call, message):
    with pytest.raises(RuntimeError) as error:
        call()
    assert str(error.value) == message


def test_dtypes_follow_pytorch():
    assert ag.fft.fft(ag.ones(4, dtype=ag.float32)).dtype == np.complex64
    assert ag.fft.irfft(ag.ones(3, dtype=ag.complex64)).dtype == np.float32
    assert ag.fft.fft(ag.arange(4)).dtype == np.complex128      # an integer input in the default dtype


# -- against PyTorch ---------------------------------------------------------------------------

CASES = [(name, kw) for name in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft")
         for kw in ({}, {"n": 7}, {"n": 3}, {"dim": 1}, {"norm": "ortho"}, {"norm": "forward", "n": 6, "dim": 0})] + \
        [(name, kw) for name in ("fft2", "ifft2", "fftn", "ifftn", "rfft2", "rfftn", "irfft2", "irfftn", "hfft2", "hfftn",
                                 "ihfft2", "ihfftn")
         for kw in ({}, {"s": (3, 6)}, {"dim": (0, 2)}, {"s": (2, -1), "dim": (2, 0)}, {"norm": "ortho"},
                    {"norm": "forward"})]


def _chain(t):
    names, fn = [], t.grad_fn
    while fn is not None and "AccumulateGrad" not in fn.name():
        names.append(fn.name())
        fn = fn.next_functions[0][0]
    return names


@pytest.mark.parametrize("name, kwargs", CASES)
@pytest.mark.parametrize("kind", ["real", "complex"])
def test_values_gradients_and_nodes_as_pytorch(name, kwargs, kind):
    torch = pytest.importorskip("torch")
    if kind == "complex" and name.startswith(("rfft", "ihfft")):
        pytest.skip("a real transform of complex values is an error (tested above)")
    data = REAL if kind == "real" else COMPLEX
    seen = {}
    for lib in (torch, ag):
        x = lib.tensor(data, requires_grad=True, dtype=lib.complex128 if kind == "complex" else lib.float64)
        y = getattr(lib.fft, name)(x, **kwargs)
        w = np.cos(np.arange(y.numel())).reshape(tuple(y.shape))
        weights = lib.tensor(w + 0.5j * w if y.is_complex() else w)
        (y * weights).abs().sum().backward()
        seen[lib] = (y.detach().resolve_conj().numpy(), x.grad.resolve_conj().numpy(), _chain(y), str(y.dtype))
    theirs, mine = seen[torch], seen[ag]
    assert mine[0].shape == theirs[0].shape
    assert np.allclose(mine[0], theirs[0], rtol=1e-12, atol=1e-12)
    assert np.allclose(mine[1], theirs[1], rtol=1e-10, atol=1e-12)
    assert mine[2] == theirs[2]
    assert mine[3].replace("torch.", "") == theirs[3].replace("torch.", "")


def test_frequencies_and_shifts_as_pytorch():
    torch = pytest.importorskip("torch")
    for n, d in ((1, 1.0), (5, 0.1), (8, 2.0)):
        assert np.array_equal(ag.fft.fftfreq(n, d).numpy(), torch.fft.fftfreq(n, d, dtype=torch.float64).numpy())
        assert np.array_equal(ag.fft.rfftfreq(n, d).numpy(), torch.fft.rfftfreq(n, d, dtype=torch.float64).numpy())
    x = np.arange(30.0).reshape(5, 6)
    for dim in (None, 0, (1,), (-1, 0)):
        assert np.array_equal(ag.fft.fftshift(ag.tensor(x), dim).numpy(), torch.fft.fftshift(torch.tensor(x), dim).numpy())
        assert np.array_equal(ag.fft.ifftshift(ag.tensor(x), dim).numpy(),
                              torch.fft.ifftshift(torch.tensor(x), dim).numpy())


def test_complex_values_print_as_pytorch_prints_them():
    """Real and imaginary parts are formatted each as real values of their own."""
    assert repr(ag.fft.fft(ag.tensor([1.0, 2.0, 3.0, 4.0]))) == "tensor([10.+0.j, -2.+2.j, -2.+0.j, -2.-2.j])"
    assert repr(ag.tensor([100 + 2j, 3.5 - 1j])) == "tensor([100.0000+2.j,   3.5000-1.j])"
    torch = pytest.importorskip("torch")
    for values in ([1e-5 + 2j, 3.5 - 1j], [[np.nan + 1j, 2 - 0j], [0.25 - 1e6j, -3 + 0.5j]], 1 + 1j):
        theirs = repr(torch.tensor(values, dtype=torch.complex128)).replace(", dtype=torch.complex128)", ")")
        assert repr(ag.tensor(values)) == theirs
