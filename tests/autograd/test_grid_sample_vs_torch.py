"""``F.affine_grid`` and ``F.grid_sample`` (2-d and 3-d; bilinear, nearest, bicubic; zeros,
border, reflection padding), differentially against PyTorch: values, gradients to the input,
the grid and theta, second-order gradients, node names, warnings and errors. Independently:
the identity grid gives the image back, sampling between pixels gives the hand-computed
mixture, and the gradients agree with central differences of the engine's own forward."""

import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
TF = torch.nn.functional

from diffcompare import autograd as ag  # noqa: E402
import diffcompare.autograd.nn.functional as AF  # noqa: E402

RNG = np.random.default_rng(5)


pytestmark = pytest.mark.usefixtures("torch_float64")     # PyTorch in float64, as the engine


def _run(lib, F, x, grid, theta, size, mode, padding, align):
    X = lib.tensor(x, requires_grad=True)
    G0 = lib.tensor(grid, requires_grad=True)
    TH = lib.tensor(theta, requires_grad=True)
    affine = F.affine_grid(TH, size, align_corners=align)
    y = F.grid_sample(X, affine * 1.3 + G0, mode=mode, padding_mode=padding, align_corners=align)
    w = lib.tensor(np.cos(np.arange(y.numel())).reshape(tuple(y.shape)))
    gx, gg, gt = lib.autograd.grad((y * y * w).sum(), (X, G0, TH), create_graph=True)
    ggx, ggg = lib.autograd.grad((gx * gx).sum() + (gg ** 3).sum() + (gt * gt).sum(), (X, G0))
    return [y, gx, gg, gt, ggx, ggg], (affine.grad_fn.name(), y.grad_fn.name())


CASES = [(d, mode, padding, align) for d in (2, 3) for mode in ("bilinear", "nearest", "bicubic")
         for padding in ("zeros", "border", "reflection") for align in (False, True)
         if not (d == 3 and mode == "bicubic")]


@pytest.mark.parametrize("d, mode, padding, align", CASES)
def test_values_gradients_and_second_order_match_pytorch(d, mode, padding, align):
    size_in = (2, 3, 4, 5) if d == 2 else (2, 2, 3, 4, 5)
    size_out = (2, 3, 3, 4) if d == 2 else (2, 2, 2, 3, 4)
    x = RNG.standard_normal(size_in)
    grid = RNG.uniform(-1.4, 1.4, size_out[:1] + size_out[2:] + (d,))
    theta = RNG.standard_normal((2, d, d + 1)) * 0.5
    mine, names = _run(ag, AF, x, grid, theta, size_out, mode, padding, align)
    theirs, torch_names = _run(torch, TF, x, grid, theta, size_out, mode, padding, align)
    assert names == torch_names == ("AffineGridGeneratorBackward0", f"GridSampler{d}DBackward0")
    for m, t in zip(mine, theirs):
        t = t.detach().numpy()
        np.testing.assert_allclose(m.detach().numpy(), t, rtol=1e-9, atol=1e-9 * max(1.0, np.abs(t).max()))


@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align", [False, True])
def test_places_on_pixel_borders_and_edges_match_pytorch(mode, padding, align):
    # exact pixel centres, exact edges (-1, 1), halfway points and places outside
    values = np.array([-1.25, -1.0, -0.75, -0.5, 0.0, 1 / 3, 0.5, 1.0, 1.2])
    gx, gy = np.meshgrid(values, values[::-1])
    grid = np.stack([gx, gy], -1)[None]
    x = RNG.standard_normal((1, 2, 4, 3))
    results = []
    for lib, F in ((ag, AF), (torch, TF)):
        X, G = lib.tensor(x, requires_grad=True), lib.tensor(grid, requires_grad=True)
        y = F.grid_sample(X, G, mode=mode, padding_mode=padding, align_corners=align)
        y.backward(lib.tensor(np.sin(np.arange(y.numel())).reshape(tuple(y.shape))))
        results.append((y.detach().numpy(), X.grad.numpy(), G.grad.numpy()))
    for m, t in zip(*results):
        np.testing.assert_allclose(m, t, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("size", [(1, 2, 12, 28), (1, 1, 100, 33), (1, 1, 6, 12, 10)], ids=str)
@pytest.mark.parametrize("align", [False, True])
@pytest.mark.parametrize("mode", ["bilinear", "bicubic", "nearest"])
@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
def test_identity_grid_lands_where_pytorchs_does(size, align, mode, padding):
    """The identity map (a spatial transformer's start) puts every place on a pixel, where the
    grid's gradient takes one side's slope: the places must be rounded as PyTorch rounds them
    (ATen's linspace, the 2-d kernel's fused unnormalisation), or that side differs."""
    d = len(size) - 2
    if d == 3 and mode == "bicubic":
        return
    theta = np.eye(d, d + 1)[None]
    x = RNG.standard_normal(size)
    results = []
    for lib, F in ((ag, AF), (torch, TF)):
        grid = F.affine_grid(lib.tensor(theta), size, align_corners=align)
        G = grid.detach().clone().requires_grad_()
        F.grid_sample(lib.tensor(x), G, mode=mode, padding_mode=padding, align_corners=align).sum().backward()
        results.append((grid.detach().numpy(), G.grad.numpy()))
    np.testing.assert_array_equal(results[0][0], results[1][0])
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-12, atol=1e-12)


def test_identity_grid_gives_the_image_back():
    x = RNG.standard_normal((2, 3, 4, 5))
    theta = ag.tensor(np.tile(np.eye(2, 3), (2, 1, 1)))
    for align in (False, True):
        grid = AF.affine_grid(theta, (2, 3, 4, 5), align_corners=align)
        for mode in ("bilinear", "nearest", "bicubic"):
            y = AF.grid_sample(ag.tensor(x), grid, mode=mode, align_corners=align)
            np.testing.assert_allclose(y.numpy(), x, atol=1e-12)


def test_hand_values():
    image = ag.tensor([[[[0.0, 1.0], [2.0, 3.0]]]])
    # align_corners=True: (x, y) = (0, 0) is the middle of the four pixels; (1, -1) the top right one
    grid = ag.tensor([[[[0.0, 0.0], [1.0, -1.0], [0.5, 0.0]]]])
    y = AF.grid_sample(image, grid, align_corners=True)
    # (0.5, 0): x = 0.75, y = 0.5 in pixels: the columns' means 1 and 2, mixed 1/4 : 3/4
    np.testing.assert_allclose(y.numpy().ravel(), [1.5, 1.0, 0.25 * 1.0 + 0.75 * 2.0])
    # align_corners=False, zeros padding: x = 1 is the right edge of the image, half outside
    y = AF.grid_sample(image, ag.tensor([[[[1.0, -0.5]]]]), align_corners=False)
    assert y.item() == pytest.approx(0.5 * 1.0)
    # reflection: a place beyond the left edge reads its mirror image
    left = AF.grid_sample(image, ag.tensor([[[[-1.5, -1.0]]]]), padding_mode="reflection", align_corners=True)
    right = AF.grid_sample(image, ag.tensor([[[[-0.5, -1.0]]]]), padding_mode="reflection", align_corners=True)
    assert left.item() == pytest.approx(right.item())
    # affine_grid by hand: 2 x 2 output, align_corners=False, a shift by 0.1 in x
    g = AF.affine_grid(ag.tensor([[[1.0, 0.0, 0.1], [0.0, 1.0, 0.0]]]), (1, 1, 2, 2), align_corners=False)
    np.testing.assert_allclose(g.numpy()[0], [[[-0.4, -0.5], [0.6, -0.5]], [[-0.4, 0.5], [0.6, 0.5]]])


@pytest.mark.parametrize("mode, padding, align", [("bilinear", "zeros", False), ("bicubic", "reflection", False),
                                                  ("bilinear", "reflection", True), ("bicubic", "border", True)])
def test_grid_gradient_matches_finite_differences(mode, padding, align):
    x = RNG.standard_normal((1, 2, 4, 5))
    grid = RNG.uniform(-1.3, 1.3, (1, 3, 2, 2))
    w = RNG.standard_normal((1, 2, 3, 2))

    def f(g):
        return (AF.grid_sample(ag.tensor(x), ag.tensor(g), mode=mode, padding_mode=padding,
                               align_corners=align) * ag.tensor(w)).sum().item()

    G = ag.tensor(grid, requires_grad=True)
    X = ag.tensor(x, requires_grad=True)
    (AF.grid_sample(X, G, mode=mode, padding_mode=padding, align_corners=align) * ag.tensor(w)).sum().backward()
    h, numeric = 1e-6, np.zeros(grid.shape)
    for idx in np.ndindex(*grid.shape):
        step = np.zeros(grid.shape)
        step[idx] = h
        numeric[idx] = (f(grid + step) - f(grid - step)) / (2 * h)
    np.testing.assert_allclose(G.grad.numpy(), numeric, rtol=1e-5, atol=1e-7)
    # the output is linear in the input: its gradient is the output of a unit change
    k = (0, 1, 2, 3)
    unit = np.zeros(x.shape)
    unit[k] = 1.0
    by_unit = (AF.grid_sample(ag.tensor(unit), ag.tensor(grid), mode=mode, padding_mode=padding,
                              align_corners=align) * ag.tensor(w)).sum().item()
    assert X.grad.numpy()[k] == pytest.approx(by_unit, abs=1e-12)


def test_align_corners_none_warns_and_means_false():
    theta = ag.tensor(RNG.standard_normal((1, 2, 3)))
    x = ag.tensor(RNG.standard_normal((1, 1, 3, 3)))
    for f, args in ((AF.affine_grid, (theta, (1, 1, 3, 3))), (AF.grid_sample, (x, AF.affine_grid(
            theta, (1, 1, 3, 3), align_corners=False)))):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            default = f(*args)
        assert [str(c.message) for c in caught] == [
            "Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. Please "
            "specify align_corners=True if the old behavior is desired. See the documentation of grid_sample for "
            "details."]
        assert caught[0].filename == __file__
        np.testing.assert_array_equal(default.numpy(), f(*args, align_corners=False).numpy())


def test_float32_stays_float32():
    x = ag.tensor(RNG.standard_normal((1, 2, 3, 3)), dtype=ag.float32, requires_grad=True)
    theta = ag.tensor(RNG.standard_normal((1, 2, 3)), dtype=ag.float32, requires_grad=True)
    y = AF.grid_sample(x, AF.affine_grid(theta, (1, 2, 4, 4), align_corners=False), align_corners=False)
    y.sum().backward()
    assert y.dtype == x.grad.dtype == theta.grad.dtype == ag.float32


ERRORS = [
    ("grid_sample", ((2, 3, 4, 5), "float64"), ((2, 4, 5, 2), "float32"), {}),
    ("grid_sample", ((2, 3, 4, 5),), ((3, 4, 5, 2),), {}),
    ("grid_sample", ((2, 3, 4, 5),), ((2, 4, 5, 3),), {}),
    ("grid_sample", ((2, 3, 4),), ((2, 4, 1),), {}),
    ("grid_sample", ((2, 3, 4, 5),), ((2, 4, 5, 6, 2),), {}),
    ("grid_sample", ((2, 3, 0, 5),), ((2, 4, 5, 2),), {}),
    ("grid_sample", ((2, 3, 4, 5),), ((2, 4, 5, 2),), {"mode": "area"}),
    ("grid_sample", ((2, 3, 4, 5),), ((2, 4, 5, 2),), {"padding_mode": "circular"}),
    ("grid_sample", ((2, 3, 3, 4, 5),), ((2, 4, 5, 6, 3),), {"mode": "bicubic"}),
    ("affine_grid", ((2, 2, 3),), (2, 3, 4), {}),
    ("affine_grid", ((2, 3, 3),), (2, 3, 4, 5), {}),
    ("affine_grid", ((2, 2, 3), "int64"), (2, 3, 4, 5), {}),
    ("affine_grid", ((2, 2, 3),), (2, 3, 0, 5), {}),
    ("affine_grid", ((2, 2, 3),), (3, 3, 4, 5), {}),
]


@pytest.mark.parametrize("name, first, second, kwargs", ERRORS)
def test_errors_match(name, first, second, kwargs):
    messages = []
    for lib, F in ((ag, AF), (torch, TF)):
        def make(spec):
            dtype = getattr(lib, spec[1]) if len(spec) > 1 else lib.float64
            return lib.tensor(RNG.standard_normal(spec[0])).to(dtype)
        a = make(first)
        b = make(second) if name == "grid_sample" else second
        with pytest.raises((RuntimeError, ValueError, NotImplementedError)) as error:
            getattr(F, name)(a, b, align_corners=False, **kwargs)
        messages.append((type(error.value), str(error.value)))
    assert messages[0] == messages[1]


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64"])
def test_linspace_is_pytorchs_to_the_last_bit(dtype):
    """affine_grid's base grid is ATen's linspace; the engine's linspace is the same one."""
    rng = np.random.default_rng(2)
    for _ in range(50):
        a, b = rng.uniform(-10, 10, 2)
        n = int(rng.integers(1, 400))
        mine = ag.linspace(a, b, n, dtype=getattr(ag, dtype)).numpy()
        theirs = torch.linspace(a, b, n, dtype=getattr(torch, dtype)).numpy()
        np.testing.assert_array_equal(mine, theirs)
        if dtype != "int64" and n > 1:        # independently: the ends exact, evenly spaced
            assert mine[0] == np.array(a, dtype) and mine[-1] == np.array(b, dtype)
            np.testing.assert_allclose(np.diff(mine.astype(np.float64)), (b - a) / (n - 1), rtol=1e-4, atol=1e-5)
