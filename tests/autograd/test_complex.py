"""Complex tensors follow PyTorch's convention: for a real loss L of z = a + ib the gradient is
dL/da + i dL/db (the conjugate Wirtinger derivative, times 2), so a holomorphic op's VJP is
g * conj(f'(z)). Checked against central differences in a and b (no engine rule involved),
against the issue's example by hand, and against PyTorch when it is installed."""

from __future__ import annotations

import numpy as np
import pytest

from diffcompare import autograd as ag

Z = np.array([1.0 + 1.0j, 0.5 - 2.0j, -0.3 + 0.4j])
W = np.array([0.3 + 0.2j, 1.0 - 1.0j, 2.0 + 0.5j])
A = np.array([[1.0 + 0.5j, -0.2j, 0.3], [0.1, 2.0 - 1.0j, 0.5 + 0.5j]])

# real losses of complex inputs; each is written once and run on the engine and on torch
LOSSES = {
    "abs of a square": lambda T, z, w: (z * z).abs().sum(),
    "squared modulus of exp, sin, division": lambda T, z, w: (z.exp() * w + z.sin() / w).abs().pow(2).sum(),
    "real part of a product with a conjugate": lambda T, z, w: (z * w.conj()).real.sum() + (z * z).imag.sum(),
    "norm of a matrix product": lambda T, z, w: (T.tensor(A) @ (z * w)).abs().sum(),
    "log, sqrt, tanh, powers": lambda T, z, w: ((z.log() + w.sqrt()).tanh() * z ** 3 - 1 / w).abs().sum(),
    "norm and var": lambda T, z, w: z.norm() + (z * w).var(),
    "sum, mean, reshape, index": lambda T, z, w: (z.reshape(3, 1) * w).mean(0)[1:].abs().sum(),
}


def _by_differences(loss, z, w, h=1e-6):
    """dL/da + i dL/db for each entry of z and w, by central differences."""
    def value(zz, ww):
        return float(loss(ag, ag.tensor(zz), ag.tensor(ww)).numpy())
    grads = []
    for which in (0, 1):
        base = [z, w]
        out = np.zeros(base[which].shape, dtype=complex)
        for k in range(base[which].size):
            parts = []
            for step in (h, 1j * h):
                plus, minus = [b.copy() for b in base], [b.copy() for b in base]
                plus[which].flat[k] += step
                minus[which].flat[k] -= step
                parts.append((value(*plus) - value(*minus)) / (2 * h))
            out.flat[k] = parts[0] + 1j * parts[1]
        grads.append(out)
    return grads


def test_the_issue_example_by_hand():
    """|z²| = |z|² = a² + b²: the gradient is 2a + 2ib = 2 + 2i at 1 + i."""
    x = ag.tensor([1 + 1j], requires_grad=True)
    (x * x).abs().sum().backward()
    assert x.grad.numpy().tolist() == [2 + 2j]


def test_holomorphic_seed_gives_the_conjugate_derivative():
    """grad of sum(z²) with seed 1 is conj(2z), as PyTorch gives."""
    x = ag.tensor(Z, requires_grad=True)
    (g,) = ag.grad((x * x).sum(), x, ag.tensor(1 + 0j))
    np.testing.assert_allclose(g.numpy(), np.conj(2 * Z), rtol=1e-15)


@pytest.mark.parametrize("name", LOSSES)
def test_gradient_of_a_real_loss_is_da_plus_i_db(name):
    loss = LOSSES[name]
    z, w = ag.tensor(Z, requires_grad=True), ag.tensor(W, requires_grad=True)
    gz, gw = ag.grad(loss(ag, z, w), (z, w), materialize_grads=True)
    want_z, want_w = _by_differences(loss, Z, W)
    np.testing.assert_allclose(gz.numpy(), want_z, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(gw.numpy(), want_w, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("name", ["abs of a square", "squared modulus of exp, sin, division",
                                  "log, sqrt, tanh, powers", "norm and var"])
def test_second_derivatives_through_create_graph(name):
    """The gradient's own gradient (create_graph): differentiate Re(sum of the gradient)."""
    loss = LOSSES[name]

    def first(zz):
        z = ag.tensor(zz, requires_grad=True)
        (g,) = ag.grad(loss(ag, z, ag.tensor(W)), z, create_graph=True)
        return z, g

    z, g = first(Z)
    (second,) = ag.grad(g.real.sum(), z)
    h, want = 1e-6, np.zeros(Z.shape, dtype=complex)
    for k in range(Z.size):
        parts = []
        for step in (h, 1j * h):
            plus, minus = Z.copy(), Z.copy()
            plus[k] += step
            minus[k] -= step
            parts.append((first(plus)[1].real.sum().item() - first(minus)[1].real.sum().item()) / (2 * h))
        want[k] = parts[0] + 1j * parts[1]
    np.testing.assert_allclose(second.numpy(), want, rtol=1e-5, atol=1e-6)


def test_batched_vjp_with_complex_values():
    z = ag.tensor(Z, requires_grad=True)
    out = z.exp() * z.sin()
    seeds = np.array([[1, 0, 0], [0, 1j, 0], [0.5, 0, 2 - 1j]])
    (batch,) = ag.grad(out, z, ag.tensor(seeds), is_grads_batched=True, retain_graph=True)
    rows = [ag.grad(out, z, ag.tensor(s), retain_graph=True)[0].numpy() for s in seeds]
    np.testing.assert_allclose(batch.numpy(), np.stack(rows), rtol=1e-14)
    # row by row, each is conj(f'(z)) times the seed: f' = exp(z)(sin z + cos z)
    np.testing.assert_allclose(rows[0], np.conj(np.exp(Z) * (np.sin(Z) + np.cos(Z))) * seeds[0], rtol=1e-14)


@pytest.mark.parametrize("name", LOSSES)
def test_matches_pytorch(name):
    torch = pytest.importorskip("torch")
    loss = LOSSES[name]
    results = []
    for lib in (ag, torch):
        z = lib.tensor(Z, requires_grad=True, dtype=lib.complex128)
        w = lib.tensor(W, requires_grad=True, dtype=lib.complex128)
        grads = lib.autograd.grad(loss(lib, z, w), (z, w), materialize_grads=True)
        results.append([g.detach().resolve_conj().numpy() if lib is torch else g.numpy() for g in grads])
    for mine, theirs in zip(*results):
        np.testing.assert_allclose(mine, theirs, rtol=1e-12, atol=1e-14)


FORWARD = {
    "holomorphic: exp, sin, division": lambda z: z.exp() * z.sin() + 1 / (z * z + 1),
    "not holomorphic: abs, real, imag": lambda z: (z * z).abs() + (z.exp()).imag * (z * z).real,
    "reductions of complex values": lambda z: (z * z).norm() + (z * 2).var() + z.std() + z.prod().real,
}


@pytest.mark.parametrize("name", FORWARD)
def test_forward_mode_tangent_is_the_derivative_along_t(name):
    """d/dh f(z + h t) at h = 0 (h real), by central differences, and PyTorch's forward_ad."""
    import diffcompare.autograd.forward_ad as fwAD
    f = FORWARD[name]
    t = np.array([0.3 - 1j, 1 + 0.5j, 2 - 1j])
    with fwAD.dual_level():
        tangent = fwAD.unpack_dual(f(fwAD.make_dual(ag.tensor(Z), ag.tensor(t)))).tangent.numpy()
    h = 1e-6
    want = (f(ag.tensor(Z + h * t)).numpy() - f(ag.tensor(Z - h * t)).numpy()) / (2 * h)
    np.testing.assert_allclose(tangent, want, rtol=1e-6, atol=1e-7)
    torch = pytest.importorskip("torch")
    import torch.autograd.forward_ad as tfw
    with tfw.dual_level():
        theirs = tfw.unpack_dual(f(tfw.make_dual(torch.tensor(Z), torch.tensor(t)))).tangent
    np.testing.assert_allclose(tangent, theirs.resolve_conj().numpy(), rtol=1e-12, atol=1e-14)
