"""More of nn's layers and functions against PyTorch 2.13 in float64: pooling of every rank
(max, average, adaptive, LP, fractional, unpooling), group/instance/RMS/local response
normalisation, interpolation, non-constant padding, channel shuffle, fold/unfold, bilinear,
alpha dropout, embedding bags, Gumbel softmax, RReLU and the CTC loss: values, gradients (and
second derivatives where linear), grad_fn names and errors; each family also against a value
derived by hand or by finite differences."""

from __future__ import annotations

import math

import numpy as np
import pytest

from diffcompare import autograd as ag
import diffcompare.autograd.nn.functional as F

torch = pytest.importorskip("torch")
TF = torch.nn.functional
RNG = np.random.default_rng(31)


def _pair(*shapes, grad=True):
    arrays = [RNG.standard_normal(s) for s in shapes]
    return ([ag.tensor(a, requires_grad=grad) for a in arrays], [torch.tensor(a, requires_grad=grad) for a in arrays])


def _same(mine, theirs, tol=1e-10):
    mine = mine.detach().numpy() if hasattr(mine, "detach") else np.asarray(mine)
    np.testing.assert_allclose(np.asarray(mine), theirs.detach().numpy(), rtol=tol, atol=tol)


def _compare(f_mine, f_torch, mine, theirs):
    """Forward values, grad_fn name and every input's gradient for a random cotangent."""
    out, tout = f_mine(*mine), f_torch(*theirs)
    if isinstance(out, tuple):
        _same(out[1], tout[1])
        out, tout = out[0], tout[0]
    _same(out, tout)
    assert out.grad_fn.name() == tout.grad_fn.name()
    seed = RNG.standard_normal(tuple(tout.shape))
    out.backward(ag.tensor(seed))
    tout.backward(torch.tensor(seed))
    for a, b in zip(mine, theirs):
        if b.grad is not None:
            _same(a.grad, b.grad)
    return out


def _lib_call(name, *args, **kw):
    return (lambda *x: getattr(F, name)(*x, *args, **kw)), (lambda *x: getattr(TF, name)(*x, *args, **kw))


# -- pooling ------------------------------------------------------------------------------------

POOLS = [
    ("max_pool1d", (2, 3, 9), dict(kernel_size=3)),
    ("max_pool1d", (3, 10), dict(kernel_size=3, stride=2, padding=1, dilation=2, ceil_mode=True,
                                 return_indices=True)),
    ("max_pool2d", (2, 2, 7, 6), dict(kernel_size=(3, 2), stride=(2, 1), padding=1, return_indices=True)),
    ("max_pool3d", (2, 2, 5, 6, 7), dict(kernel_size=(3, 2, 2), stride=(2, 1, 2))),
    ("max_pool3d", (2, 5, 6, 7), dict(kernel_size=2, padding=1, dilation=2, ceil_mode=True, return_indices=True)),
    ("avg_pool1d", (2, 3, 9), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True)),
    ("avg_pool1d", (3, 9), dict(kernel_size=4, stride=3, padding=2, count_include_pad=False)),
    ("avg_pool2d", (2, 2, 7, 6), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False)),
    ("avg_pool3d", (2, 2, 5, 6, 7), dict(kernel_size=(3, 2, 2), stride=(2, 1, 2), padding=1)),
    ("avg_pool3d", (2, 5, 6, 7), dict(kernel_size=3, stride=2, ceil_mode=True, divisor_override=5)),
    ("adaptive_avg_pool1d", (2, 3, 9), dict(output_size=4)),
    ("adaptive_avg_pool1d", (3, 9), dict(output_size=1)),
    ("adaptive_avg_pool3d", (2, 2, 5, 6, 7), dict(output_size=(3, None, 4))),
    ("adaptive_avg_pool3d", (2, 5, 6, 7), dict(output_size=1)),
    ("adaptive_max_pool1d", (2, 3, 9), dict(output_size=4, return_indices=True)),
    ("adaptive_max_pool2d", (2, 3, 7, 9), dict(output_size=(5, None))),
    ("adaptive_max_pool2d", (3, 7, 9), dict(output_size=4, return_indices=True)),
    ("adaptive_max_pool3d", (1, 2, 5, 6, 7), dict(output_size=(3, 4, 5), return_indices=True)),
    ("lp_pool1d", (2, 3, 9), dict(norm_type=2, kernel_size=3, stride=2)),
    ("lp_pool2d", (2, 3, 7, 6), dict(norm_type=1.5, kernel_size=(3, 2), stride=(2, 1))),
    ("lp_pool3d", (2, 2, 5, 6, 7), dict(norm_type=2, kernel_size=2)),
]


@pytest.mark.parametrize("name, shape, kw", POOLS, ids=[f"{n}-{i}" for i, (n, _, _) in enumerate(POOLS)])
def test_pooling_as_pytorch(name, shape, kw):
    mine, theirs = _pair(shape)
    if name.startswith("lp_pool"):        # positive inputs: a fractional power of a negative mean is NaN
        mine, theirs = [ag.tensor(np.abs(m._data) + 0.1, requires_grad=True) for m in mine], \
            [torch.tensor(np.abs(m.detach().numpy()) + 0.1, requires_grad=True) for m in theirs]
    _compare(*_lib_call(name, **kw), mine, theirs)


def test_max_pool_ties_nan_and_infinite_windows_as_pytorch():
    nan, inf = float("nan"), float("inf")
    data = np.array([[[nan, nan, 1.0, nan, 2.0, 2.0, -inf, -inf]]])
    for kw in (dict(kernel_size=3), dict(kernel_size=2, padding=1)):
        y, i = F.max_pool1d(ag.tensor(data), return_indices=True, **kw)
        ty, ti = TF.max_pool1d(torch.tensor(data), return_indices=True, **kw)
        np.testing.assert_array_equal(i.numpy(), ti.numpy())
        np.testing.assert_array_equal(y.numpy(), ty.numpy())


def test_max_pool_windows_inside_the_padding_as_pytorch():
    """With dilation a window can lie wholly in the padding: PyTorch gives -inf and the index of its
    first place at or past 0 (and sends the gradient there when that is inside the plane)."""
    (x,), (tx,) = _pair((2, 3, 4, 1))
    kw = dict(kernel_size=(3, 2), stride=(3, 3), padding=(1, 1), dilation=(2, 2), return_indices=True)
    out = _compare(lambda a: F.max_pool2d(a, **kw), lambda a: TF.max_pool2d(a, **kw), [x], [tx])
    assert np.isinf(out.detach().numpy()).any()


def test_max_pool3d_by_hand_and_errors():
    x = ag.arange(8.0).reshape(1, 1, 2, 2, 2).requires_grad_()
    y = F.max_pool3d(x, 2)
    y.backward()
    assert y.item() == 7.0 and x.grad.numpy().ravel().tolist() == [0] * 7 + [1]
    for lib, fn in ((F, "max_pool3d"), (TF, "max_pool3d")):
        with pytest.raises(RuntimeError, match="Output size is too small"):
            getattr(lib, fn)(ag.zeros(1, 1, 4, 4, 4) if lib is F else torch.zeros(1, 1, 4, 4, 4), 5)
        with pytest.raises(RuntimeError, match="non-empty 4D or 5D"):
            getattr(lib, fn)(ag.zeros(4, 4) if lib is F else torch.zeros(4, 4), 2)
    with pytest.raises(RuntimeError, match="pad should be at most half"):
        F.avg_pool1d(ag.zeros(1, 1, 5), 2, padding=2)
    for lib, mod in ((F, ag), (TF, torch)):
        with pytest.raises(RuntimeError, match=r"input image \(T: 3 H: 1 W: 8\) smaller than kernel size"):
            lib.avg_pool3d(mod.zeros(1, 1, 3, 1, 8), (1, 2, 2), padding=(0, 1, 1))


def test_avg_pool3d_double_backward_as_pytorch():
    (x, w), (tx, tw) = _pair((1, 2, 4, 5, 3), (1, 2, 3, 3, 2))
    (g,) = ag.autograd.grad((F.avg_pool3d(x, 2, 2, 1) * w).sum(), x, create_graph=True)
    (tg,) = torch.autograd.grad((TF.avg_pool3d(tx, 2, 2, 1) * tw).sum(), tx, create_graph=True)
    assert g.grad_fn.name() == tg.grad_fn.name() == "AvgPool3DBackwardBackward0"
    _same(g, tg)
    (g * g).sum().backward()
    (tg * tg).sum().backward()
    _same(w.grad, tw.grad)


def test_avg_pool1d_by_hand():
    y = F.avg_pool1d(ag.tensor([[[1.0, 2, 3, 4, 5, 6, 7]]]), 3, stride=2)
    np.testing.assert_allclose(y.numpy().ravel(), [2.0, 4.0, 6.0], rtol=1e-15)
    y = F.avg_pool1d(ag.tensor([[[1.0, 2, 3]]]), 2, padding=1, count_include_pad=False)
    np.testing.assert_allclose(y.numpy().ravel(), [1.0, 2.5], rtol=1e-15)


def test_max_unpool_as_pytorch():
    (x,), (tx,) = _pair((2, 3, 6, 8))
    out, idx = F.max_pool2d(x, 2, return_indices=True)
    tout, tidx = TF.max_pool2d(tx, 2, return_indices=True)
    _compare(lambda o: F.max_unpool2d(o, idx, 2), lambda o: TF.max_unpool2d(o, tidx, 2), [out], [tout])
    _same(x.grad, tx.grad)
    (x,), (tx,) = _pair((1, 2, 9))
    out, idx = F.max_pool1d(x, 2, return_indices=True)
    tout, tidx = TF.max_pool1d(tx, 2, return_indices=True)
    _compare(lambda o: F.max_unpool1d(o, idx, 2, output_size=[9]),
             lambda o: TF.max_unpool1d(o, tidx, 2, output_size=[9]), [out], [tout])
    (x,), (tx,) = _pair((1, 2, 5, 7, 5))
    out, idx = F.max_pool3d(x, 3, stride=2, return_indices=True)
    tout, tidx = TF.max_pool3d(tx, 3, stride=2, return_indices=True)
    _compare(lambda o: F.max_unpool3d(o, idx, 3, 2), lambda o: TF.max_unpool3d(o, tidx, 3, 2), [out], [tout])


@pytest.mark.parametrize("d", [2, 3])
def test_fractional_max_pool_with_pytorchs_samples(d):
    shape = (2, 3, 11, 9) if d == 2 else (2, 2, 9, 8, 7)
    (x,), (tx,) = _pair(shape)
    samples = RNG.random((2, shape[1], d))
    kw = dict(kernel_size=2, output_size=(5, 4) if d == 2 else (4, 3, 3), return_indices=True)
    name = f"fractional_max_pool{d}d"
    _compare(lambda a: getattr(F, name)(a, _random_samples=ag.tensor(samples), **kw),
             lambda a: getattr(TF, name)(a, _random_samples=torch.tensor(samples), **kw), [x], [tx])


# -- normalisation ------------------------------------------------------------------------------

def test_group_norm_as_pytorch_and_by_hand():
    (x, w, b), (tx, tw, tb) = _pair((3, 6, 4, 5), (6,), (6,))
    _compare(lambda *a: F.group_norm(a[0], 3, a[1], a[2]), lambda *a: TF.group_norm(a[0], 3, a[1], a[2]),
             [x, w, b], [tx, tw, tb])
    (x,), (tx,) = _pair((2, 4, 3))
    _compare(lambda a: F.group_norm(a, 2, eps=1e-3), lambda a: TF.group_norm(a, 2, eps=1e-3), [x], [tx])
    y = F.group_norm(ag.tensor([[1.0, 3.0, 0.0, 4.0]]), 2, eps=0.0)
    assert y.numpy().tolist() == [[-1.0, 1.0, -1.0, 1.0]]
    for lib, mod in ((F, ag), (TF, torch)):
        with pytest.raises(RuntimeError, match="divisible by num_groups"):
            lib.group_norm(mod.zeros(2, 6, 3), 4)


def test_group_norm_double_backward_as_pytorch():
    (x, w), (tx, tw) = _pair((2, 4, 3), (4,))
    (g,) = ag.autograd.grad((F.group_norm(x, 2, w) ** 3).sum(), x, create_graph=True)
    (tg,) = torch.autograd.grad((TF.group_norm(tx, 2, tw) ** 3).sum(), tx, create_graph=True)
    _same(g, tg)
    g.sum().backward()
    tg.sum().backward()
    _same(x.grad, tx.grad)
    _same(w.grad, tw.grad)


def test_instance_norm_as_pytorch_with_running_stats():
    (x, w, b), (tx, tw, tb) = _pair((3, 4, 5, 2), (4,), (4,))
    rm, rv = ag.zeros(4), ag.ones(4)
    trm, trv = torch.zeros(4, dtype=torch.float64), torch.ones(4, dtype=torch.float64)
    _compare(lambda *a: F.instance_norm(a[0], rm, rv, a[1], a[2], momentum=0.3),
             lambda *a: TF.instance_norm(a[0], trm, trv, a[1], a[2], momentum=0.3), [x, w, b], [tx, tw, tb])
    _same(rm, trm)
    _same(rv, trv)
    m, tm = ag.nn.InstanceNorm1d(4, affine=True, track_running_stats=True), \
        torch.nn.InstanceNorm1d(4, affine=True, track_running_stats=True, dtype=torch.float64)
    (x,), (tx,) = _pair((4, 6))
    _compare(m, tm, [x], [tx])
    m.eval(), tm.eval()
    _same(m(x), tm(tx))
    _same(m.running_var, tm.running_var)


def test_rms_norm_and_local_response_norm_as_pytorch():
    (x, w), (tx, tw) = _pair((2, 3, 4), (3, 4))
    _compare(lambda a, b: F.rms_norm(a, (3, 4), b), lambda a, b: TF.rms_norm(a, (3, 4), b), [x, w], [tx, tw])
    (x,), (tx,) = _pair((2, 3, 4))
    _compare(lambda a: F.rms_norm(a, [4], eps=1e-3), lambda a: TF.rms_norm(a, [4], eps=1e-3), [x], [tx])
    assert np.allclose(F.rms_norm(ag.tensor([3.0, 4.0]), [2], eps=0.0).numpy(), [3 / math.sqrt(12.5),
                                                                                 4 / math.sqrt(12.5)])
    for shape in ((2, 5, 7), (2, 5, 3, 4), (2, 5, 2, 3, 2)):
        (x,), (tx,) = _pair(shape)
        _compare(lambda a: F.local_response_norm(a, 3), lambda a: TF.local_response_norm(a, 3), [x], [tx])


def test_normalisation_modules_as_pytorch():
    for make in (lambda nn, **kw: nn.GroupNorm(2, 4, **kw), lambda nn, **kw: nn.RMSNorm([3], **kw),
                 lambda nn, **kw: nn.LocalResponseNorm(2), lambda nn, **kw: nn.InstanceNorm2d(4, **kw),
                 lambda nn, **kw: nn.BatchNorm3d(4, **kw)):
        m, tm = make(ag.nn), make(torch.nn, dtype=torch.float64)
        shape = (2, 4, 3, 3, 3) if isinstance(m, ag.nn.BatchNorm3d) else (2, 4, 3, 3)
        (x,), (tx,) = _pair(shape)
        _compare(m, tm, [x], [tx])
        assert repr(m) == repr(tm)


# -- resampling ---------------------------------------------------------------------------------

INTERPOLATIONS = [
    ((2, 3, 5), dict(scale_factor=2, mode="nearest")),
    ((2, 3, 5), dict(size=7, mode="nearest")),
    ((2, 3, 7), dict(scale_factor=0.6, mode="nearest")),
    ((2, 3, 5), dict(size=8, mode="nearest-exact")),
    ((1, 2, 4, 5), dict(scale_factor=(1.7, 2.3), mode="nearest")),
    ((1, 2, 4, 5), dict(size=(3, 7), mode="nearest-exact")),
    ((1, 2, 3, 4, 5), dict(scale_factor=1.5, mode="nearest")),
    ((1, 2, 3, 4, 5), dict(scale_factor=1.5, mode="nearest-exact")),
    ((2, 3, 5), dict(scale_factor=2.5, mode="linear")),
    ((2, 3, 5), dict(size=9, mode="linear", align_corners=True)),
    ((1, 2, 4, 5), dict(scale_factor=2, mode="bilinear")),
    ((1, 2, 4, 5), dict(size=(7, 3), mode="bilinear", align_corners=True)),
    ((1, 2, 4, 5), dict(scale_factor=1.3, mode="bilinear", recompute_scale_factor=True)),
    ((1, 2, 4, 5), dict(scale_factor=2, mode="bicubic")),
    ((1, 2, 4, 5), dict(size=(9, 3), mode="bicubic", align_corners=True)),
    ((1, 2, 3, 4, 5), dict(scale_factor=(2, 1.5, 0.7), mode="trilinear")),
    ((1, 2, 3, 4, 5), dict(size=(4, 4, 4), mode="trilinear", align_corners=True)),
    ((1, 2, 6, 8), dict(scale_factor=0.5, mode="area")),
    ((1, 2, 6, 8), dict(size=(4, 3), mode="area")),
    # PyTorch's forward and backward kernels read different places here (a same-size axis, a scale
    # whose single-precision index rounds the other way): values from one, gradients from the other
    ((2, 3, 4), dict(scale_factor=1.06, mode="nearest")),
    ((1, 2, 3, 4), dict(scale_factor=(1.07, 2.14), mode="nearest")),
    ((1, 2, 2, 3, 4), dict(scale_factor=(1.48, 2.14, 1.06), mode="nearest")),
    ((1, 2, 7, 2), dict(scale_factor=(1.1, 1.35), mode="bicubic")),
    ((1, 2, 2, 3), dict(scale_factor=(1.14, 1.66), mode="bilinear")),
]


@pytest.mark.parametrize("shape, kw", INTERPOLATIONS, ids=[str(kw) for _, kw in INTERPOLATIONS])
def test_interpolate_as_pytorch(shape, kw):
    (x,), (tx,) = _pair(shape)
    _compare(*_lib_call("interpolate", **kw), [x], [tx])


def test_interpolate_by_hand_double_backward_and_errors():
    y = F.interpolate(ag.tensor([[[1.0, 2.0]]]), scale_factor=2, mode="linear")
    assert y.numpy().ravel().tolist() == [1.0, 1.25, 1.75, 2.0]
    y = F.interpolate(ag.tensor([[[1.0, 2.0]]]), size=3, mode="linear", align_corners=True)
    assert y.numpy().ravel().tolist() == [1.0, 1.5, 2.0]
    (x, w), (tx, tw) = _pair((1, 1, 3, 4), (1, 1, 6, 8))
    (g,) = ag.autograd.grad((F.interpolate(x, scale_factor=2, mode="bicubic") * w).sum(), x, create_graph=True)
    (tg,) = torch.autograd.grad((TF.interpolate(tx, scale_factor=2, mode="bicubic") * tw).sum(), tx,
                                create_graph=True)
    assert g.grad_fn.name() == tg.grad_fn.name()
    (g * g).sum().backward()
    (tg * tg).sum().backward()
    _same(w.grad, tw.grad)
    for lib, mod in ((F, ag), (TF, torch)):
        with pytest.raises(NotImplementedError, match="bilinear mode needs 4D input"):
            lib.interpolate(mod.zeros(1, 2, 3), scale_factor=2, mode="bilinear")
        with pytest.raises(ValueError, match="align_corners option can only be set"):
            lib.interpolate(mod.zeros(1, 2, 3), scale_factor=2, align_corners=True)
        with pytest.raises(RuntimeError, match=r"output sizes should be greater than 0, but got input \(H: 4, W: 2\)"):
            lib.interpolate(mod.zeros(1, 2, 4, 2), scale_factor=(2, 0.4), mode="bilinear")
    m, tm = ag.nn.Upsample(scale_factor=2, mode="bilinear"), torch.nn.Upsample(scale_factor=2, mode="bilinear")
    assert repr(m) == repr(tm)


PADS = [((2, 3, 5), (2, 1), "reflect"), ((3, 5), (1, 3), "replicate"), ((1, 2, 4, 5), (1, 2, 3, 0), "reflect"),
        ((2, 4, 5), (2, 2, 1, 1), "replicate"), ((1, 2, 3, 4, 5), (1, 1, 2, 0, 0, 2), "reflect"),
        ((2, 3, 4, 5), (1, 0, 2, 1, 1, 1), "replicate"), ((2, 3, 5), (2, 1), "circular"),
        ((1, 2, 4, 5), (1, 2, 3, 0), "circular"), ((1, 2, 3, 4, 5), (1, 1, 2, 0, 0, 2), "circular"),
        ((2, 3, 5), (-1, 2), "replicate")]


@pytest.mark.parametrize("shape, pad, mode", PADS, ids=[f"{m}-{len(s)}-{p}" for s, p, m in PADS])
def test_pad_modes_as_pytorch(shape, pad, mode):
    (x,), (tx,) = _pair(shape)
    out = _compare(lambda a: F.pad(a, pad, mode), lambda a: TF.pad(a, pad, mode), [x], [tx])
    if mode != "circular":
        assert out.grad_fn.name().endswith(f"Pad{len(pad) // 2}DBackward0")


def test_pad_by_hand_modules_and_errors():
    x = ag.tensor([[[1.0, 2.0, 3.0]]])
    assert F.pad(x, (2, 1), mode="reflect").numpy().ravel().tolist() == [3, 2, 1, 2, 3, 2]
    assert F.pad(x, (2, 1), mode="replicate").numpy().ravel().tolist() == [1, 1, 1, 2, 3, 3]
    assert F.pad(x, (2, 1), mode="circular").numpy().ravel().tolist() == [2, 3, 1, 2, 3, 1]
    for name, arg in (("ZeroPad2d", 1), ("ConstantPad1d", (1, 2)), ("ReflectionPad2d", (1, 0, 2, 1)),
                      ("ReplicationPad3d", 1), ("CircularPad2d", 1)):
        args = (arg, 3.5) if name.startswith("Constant") else (arg,)
        m, tm = getattr(ag.nn, name)(*args), getattr(torch.nn, name)(*args)
        assert repr(m) == repr(tm)
        shape = (1, 2, 3, 4, 5) if name.endswith("3d") else (1, 2, 3, 4)
        (x,), (tx,) = _pair(shape)
        _same(m(x), tm(tx))
    for lib, mod in ((F, ag), (TF, torch)):
        with pytest.raises(RuntimeError, match="Padding size should be less than"):
            lib.pad(mod.zeros(1, 4, 2), (3, 3), "reflect")
        with pytest.raises(NotImplementedError, match="Padding size 2 is not supported for 4D"):
            lib.pad(mod.zeros(1, 1, 4, 4), (1, 1), "reflect")


def test_channel_shuffle_pixel_unshuffle_and_fold_unfold_as_pytorch():
    (x,), (tx,) = _pair((2, 6, 2, 3))
    _compare(lambda a: F.channel_shuffle(a, 3), lambda a: TF.channel_shuffle(a, 3), [x], [tx])
    assert F.channel_shuffle(ag.arange(4.0).reshape(1, 4, 1), 2).numpy().ravel().tolist() == [0, 2, 1, 3]
    m, tm = ag.nn.ChannelShuffle(2), torch.nn.ChannelShuffle(2)
    assert repr(m) == repr(tm)
    m, tm = ag.nn.PixelUnshuffle(2), torch.nn.PixelUnshuffle(2)
    (x,), (tx,) = _pair((1, 2, 4, 6))
    _compare(m, tm, [x], [tx])
    (x,), (tx,) = _pair((2, 3, 6, 7))
    kw = dict(kernel_size=(2, 3), dilation=(1, 2), padding=1, stride=(2, 1))
    _compare(lambda a: F.unfold(a, **kw), lambda a: TF.unfold(a, **kw), [x], [tx])
    (c,), (tc,) = _pair((2, 3 * 6, 4 * 5))
    _compare(lambda a: F.fold(a, (6, 7), **kw), lambda a: TF.fold(a, (6, 7), **kw), [c], [tc])
    y = F.fold(F.unfold(ag.ones(1, 1, 3, 3), 2), (3, 3), 2)        # each place counted once per block over it
    assert y.numpy().ravel().tolist() == [1, 2, 1, 2, 4, 2, 1, 2, 1]


# -- other layers -------------------------------------------------------------------------------

def test_bilinear_as_pytorch_and_by_hand():
    (a, b, w, bias), (ta, tb, tw, tbias) = _pair((3, 2, 4), (3, 2, 5), (6, 4, 5), (6,))
    _compare(F.bilinear, TF.bilinear, [a, b, w, bias], [ta, tb, tw, tbias])
    y = F.bilinear(ag.tensor([[1.0, 2.0]]), ag.tensor([[3.0]]), ag.tensor([[[1.0], [1.0]]]))
    assert y.item() == 9.0
    ag.manual_seed(0)
    m = ag.nn.Bilinear(4, 5, 6)
    assert m.weight.shape == (6, 4, 5) and m.bias.shape == (6,) and abs(m.weight.detach().numpy()).max() <= 0.5


def test_unflatten_module():
    x = ag.randn(2, 50, requires_grad=True)
    y = ag.nn.Unflatten(1, (2, 5, 5))(x)
    assert y.shape == (2, 2, 5, 5) and y.grad_fn.name() == torch.randn(2, 50, requires_grad=True).unflatten(
        1, (2, 5, 5)).grad_fn.name()


def test_alpha_dropout_takes_pytorchs_formula():
    x = ag.tensor(RNG.standard_normal((50, 40)), requires_grad=True)
    y = F.alpha_dropout(x, 0.2, training=True)
    alpha = 1.7580993408473766
    a = 1 / math.sqrt((alpha ** 2 * 0.2 + 1) * 0.8)
    kept = np.isclose(y.detach().numpy(), x.detach().numpy() * a + alpha * a * 0.2)
    dropped = np.isclose(y.detach().numpy(), -alpha * a + alpha * a * 0.2)
    assert (kept | dropped).all() and 0.1 < dropped.mean() < 0.3
    assert y.grad_fn.name() == "AddBackward0"
    assert F.alpha_dropout(x, 0.2, training=False) is x
    y = F.feature_alpha_dropout(ag.ones(30, 20, 3), 0.5, training=True)
    assert (np.ptp(y.numpy(), axis=2) == 0).all()


EMBEDDING_BAGS = [dict(mode="sum"), dict(mode="mean"), dict(mode="max"), dict(mode="mean", padding_idx=2),
                  dict(mode="max", padding_idx=4), dict(mode="sum", include_last_offset=True),
                  dict(mode="mean", include_last_offset=True), dict(mode="max", include_last_offset=True),
                  dict(mode="sum", per_sample_weights=True)]


@pytest.mark.parametrize("kw", EMBEDDING_BAGS, ids=str)
def test_embedding_bag_as_pytorch(kw):
    kw = dict(kw)
    idx = np.array([1, 2, 4, 5, 4, 3, 2, 9, 2, 2])
    offsets = np.array([0, 4, 4, 8])           # an empty bag
    args = [(10, 3)]
    if kw.pop("per_sample_weights", False):
        args.append((10,))
    mine, theirs = _pair(*args)
    f = lambda w, *p: F.embedding_bag(ag.tensor(idx), w, ag.tensor(offsets), per_sample_weights=p[0] if p else None,
                                      **kw)
    tf = lambda w, *p: TF.embedding_bag(torch.tensor(idx), w, torch.tensor(offsets),
                                        per_sample_weights=p[0] if p else None, **kw)
    _compare(f, tf, mine, theirs)


def test_embedding_bag_2d_by_hand_and_module():
    w = ag.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 0.0]])
    assert F.embedding_bag(ag.tensor([[0, 1], [2, 2]]), w).numpy().tolist() == [[2.0, 3.0], [5.0, 0.0]]
    assert F.embedding_bag(ag.tensor([[0, 2]]), w, mode="max").numpy().tolist() == [[5.0, 2.0]]
    bag, tbag = (ag.nn.EmbeddingBag.from_pretrained(w, mode="sum"),
                 torch.nn.EmbeddingBag.from_pretrained(torch.tensor(w.numpy()), mode="sum"))
    assert repr(bag) == repr(tbag) and not bag.weight.requires_grad
    with pytest.raises(ValueError, match="offsets has to be None"):
        F.embedding_bag(ag.tensor([[0, 1]]), w, ag.tensor([0]))


def test_gumbel_softmax_from_given_draws():
    x = ag.tensor(RNG.standard_normal((4, 6)), requires_grad=True)
    y = F.gumbel_softmax(x, tau=0.5)
    assert np.allclose(y.detach().numpy().sum(1), 1) and y.grad_fn.name() == "SoftmaxBackward0"
    h = F.gumbel_softmax(x, hard=True)
    assert set(np.unique(h.detach().numpy())) <= {0.0, 1.0} and h.grad_fn.name() == "AddBackward0"
    h.sum().backward()                    # straight through: the soft sample's gradient, zero sums per row
    assert np.allclose(x.grad.numpy().sum(1), 0)


def test_rrelu_as_pytorch():
    (x,), (tx,) = _pair((4, 5))
    out = _compare(F.rrelu, TF.rrelu, [x], [tx])
    assert out.grad_fn.name() == "RreluWithNoiseBackward0"
    x = ag.tensor([-2.0, 3.0, -1.0], requires_grad=True)
    y = F.rrelu(x, 0.1, 0.3, training=True)
    slopes = y.detach().numpy()[[0, 2]] / x.detach().numpy()[[0, 2]]
    assert ((slopes >= 0.1) & (slopes < 0.3)).all() and y.detach().numpy()[1] == 3.0
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [slopes[0], 1.0, slopes[1]])
    assert repr(ag.nn.RReLU(0.1, 0.3)) == repr(torch.nn.RReLU(0.1, 0.3))


# -- CTC ----------------------------------------------------------------------------------------

def _ctc_case(seed, t=12, n=3, c=5, s=4):
    rng = np.random.default_rng(seed)
    lp = rng.standard_normal((t, n, c))
    lp = lp - np.log(np.exp(lp).sum(-1, keepdims=True))
    targets = rng.integers(1, c, (n, s))
    targets[0, 1] = targets[0, 0]                 # a repeated label
    return lp, targets, np.array([t, t - 2, t - 5]), np.array([s, s - 1, 0])


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_ctc_loss_as_pytorch(reduction):
    lp, targets, in_lens, tgt_lens = _ctc_case(1)
    mine, theirs = [ag.tensor(lp, requires_grad=True)], [torch.tensor(lp, requires_grad=True)]
    _compare(lambda a: F.ctc_loss(a, ag.tensor(targets), ag.tensor(in_lens), ag.tensor(tgt_lens),
                                  reduction=reduction),
             lambda a: TF.ctc_loss(a, torch.tensor(targets), torch.tensor(in_lens), torch.tensor(tgt_lens),
                                   reduction=reduction), mine, theirs)


def test_ctc_loss_concatenated_targets_unbatched_and_zero_infinity_as_pytorch():
    lp, targets, in_lens, tgt_lens = _ctc_case(2)
    flat = np.concatenate([targets[i, :k] for i, k in enumerate(tgt_lens)])
    _compare(lambda a: F.ctc_loss(a, ag.tensor(flat), tuple(in_lens), tuple(tgt_lens)),
             lambda a: TF.ctc_loss(a, torch.tensor(flat), tuple(in_lens), tuple(tgt_lens)),
             [ag.tensor(lp, requires_grad=True)], [torch.tensor(lp, requires_grad=True)])
    _compare(lambda a: F.ctc_loss(a, ag.tensor(targets[0]), (12,), (4,)),
             lambda a: TF.ctc_loss(a, torch.tensor(targets[0]), (12,), (4,)),
             [ag.tensor(lp[:, 0], requires_grad=True)], [torch.tensor(lp[:, 0], requires_grad=True)])
    impossible = (ag.tensor([1, 2, 3]), (2,), (3,))       # three labels in two frames
    m = ag.nn.CTCLoss(zero_infinity=True, reduction="none")
    tm = torch.nn.CTCLoss(zero_infinity=True, reduction="none")
    _compare(lambda a: m(a, *impossible), lambda a: tm(a, torch.tensor([1, 2, 3]), (2,), (3,)),
             [ag.tensor(lp[:2, :1], requires_grad=True)], [torch.tensor(lp[:2, :1], requires_grad=True)])


def test_ctc_loss_by_hand():
    """T = 2 frames of p = 1/2 each, target [1]: the paths 11, 01, 10 give probability 3/4; the
    gradient by central differences in the log-probabilities, plus PyTorch's exp(lp) term."""
    base = np.log(np.full((2, 1, 2), 0.5))
    loss = F.ctc_loss(ag.tensor(base, requires_grad=True), ag.tensor([[1]]), [2], [1], reduction="sum")
    assert abs(loss.item() + math.log(0.75)) < 1e-14

    def nll(a):
        p = np.exp(a[:, 0])
        return -math.log(p[0, 1] * p[1, 1] + p[0, 0] * p[1, 1] + p[0, 1] * p[1, 0])

    x = ag.tensor(base, requires_grad=True)
    F.ctc_loss(x, ag.tensor([[1]]), [2], [1], reduction="sum").backward()
    h = 1e-6
    for idx in np.ndindex(base.shape):
        up, down = base.copy(), base.copy()
        up[idx] += h
        down[idx] -= h
        fd = (nll(up) - nll(down)) / (2 * h)
        assert abs(x.grad.numpy()[idx] - (fd + math.exp(base[idx]))) < 1e-8


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
def test_convolution_padding_modes_as_pytorch(mode):
    torch.manual_seed(0)
    tm = torch.nn.Conv2d(2, 3, (3, 2), padding=(1, 2), padding_mode=mode, dtype=torch.float64)
    m = ag.nn.Conv2d(2, 3, (3, 2), padding=(1, 2), padding_mode=mode)
    m.weight.data = ag.tensor(tm.weight.detach().numpy())
    m.bias.data = ag.tensor(tm.bias.detach().numpy())
    assert repr(m) == repr(tm)
    (x,), (tx,) = _pair((2, 2, 5, 4))
    _compare(m, tm, [x], [tx])
    _same(m.weight.grad, tm.weight.grad)
    with pytest.raises(ValueError, match="padding_mode must be one of"):
        ag.nn.Conv1d(1, 1, 2, padding_mode="mirror")


MODULES = ["MaxPool1d(3, stride=2)", "MaxPool3d((3, 2, 2), stride=(2, 1, 2))", "AvgPool1d(3, stride=2)",
           "AvgPool3d(3, stride=2)", "AdaptiveAvgPool1d(5)", "AdaptiveAvgPool3d((7, None, None))",
           "AdaptiveMaxPool1d(5)", "AdaptiveMaxPool2d((5, 7))", "AdaptiveMaxPool3d(7)", "LPPool1d(2, 3, stride=2)",
           "LPPool2d(1.2, (3, 2), stride=(2, 1))", "MaxUnpool1d(2, stride=2)", "MaxUnpool2d((2, 1), (1, 2), 1)",
           "MaxUnpool3d(3, stride=2)", "GroupNorm(3, 6, affine=False)", "InstanceNorm1d(4)",
           "InstanceNorm3d(4, affine=True, bias=False)", "RMSNorm([2, 3])", "LocalResponseNorm(2)", "BatchNorm3d(4)",
           "Unflatten(1, (2, 5, 5))", "Bilinear(2, 3, 4, bias=False)", "AlphaDropout(0.2)",
           "EmbeddingBag(10, 3, mode='max', padding_idx=2)", "Upsample(size=(3, 4), mode='bilinear')",
           "UpsamplingNearest2d(scale_factor=2)", "PixelShuffle(3)", "Fold((4, 5), 2)", "Unfold(2, padding=1)",
           "ZeroPad3d((1, 2, 3, 4, 5, 6))", "ConstantPad2d(1, 3.5)", "ReflectionPad1d((1, 2))",
           "ReplicationPad2d(1)", "CircularPad3d(1)", "CTCLoss()", "RReLU()"]


@pytest.mark.parametrize("text", MODULES)
def test_module_printed_as_pytorch(text):
    assert repr(eval("ag.nn." + text)) == repr(eval("torch.nn." + text))
