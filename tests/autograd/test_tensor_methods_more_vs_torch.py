"""Tensor methods, torch functions and autograd APIs that ported code uses, differentially
against PyTorch: values, float64 gradients to 1e-10, grad_fn names and error texts; plus a
check per feature whose expected value is worked out by hand or by finite differences."""

import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from diffcompare import autograd as ag  # noqa: E402

RNG = np.random.default_rng(7)


pytestmark = pytest.mark.usefixtures("torch_float64")     # PyTorch in float64, as the engine


def _pair(array, requires_grad=True):
    array = np.array(array, dtype=np.float64)
    return ag.tensor(array, requires_grad=requires_grad), torch.tensor(array, requires_grad=requires_grad)


def _same(mine, theirs, tol=1e-10):
    assert mine.shape == tuple(theirs.shape)
    theirs = theirs.detach()
    expected = np.zeros(tuple(theirs.shape)) if theirs._is_zerotensor() else theirs.numpy().astype(np.float64)
    np.testing.assert_allclose(np.asarray(mine.detach()._data, dtype=np.float64), expected, rtol=tol, atol=tol)


def _grads(f_mine, f_theirs, *arrays):
    """The values, grad_fn names and gradients (with a random seed) of f on both engines."""
    mine = [ag.tensor(np.array(a), requires_grad=True) for a in arrays]
    theirs = [torch.tensor(np.array(a), requires_grad=True) for a in arrays]
    out_m, out_t = f_mine(*mine), f_theirs(*theirs)
    _same(out_m, out_t)
    assert out_m.grad_fn.name() == out_t.grad_fn.name()
    seed = RNG.standard_normal(tuple(out_t.shape))
    out_m.backward(ag.tensor(seed))
    out_t.backward(torch.tensor(seed))
    for m, t in zip(mine, theirs):
        if t.grad is None:
            assert m.grad is None or not np.any(m.grad._data)
        else:
            _same(m.grad, t.grad)
    return out_m


def _error(f_mine, f_theirs, kind=RuntimeError):
    with pytest.raises(kind) as theirs:
        f_theirs()
    with pytest.raises(kind) as mine:
        f_mine()
    assert str(mine.value) == str(theirs.value)


# -- scatter_reduce, scatter(reduce=), masked_scatter, put, index_put, index_copy -------------

INDEX = [[0, 1, 0], [2, 1, 1]]


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce(reduce, include_self):
    x = RNG.standard_normal((3, 3))
    src = RNG.standard_normal((2, 3))
    src[0, 0] = x[0, 0] if reduce in ("amax", "amin") else 0.0      # a tie, a zero
    _grads(lambda a, s: a.scatter_reduce(0, ag.tensor(INDEX), s, reduce, include_self=include_self),
           lambda a, s: a.scatter_reduce(0, torch.tensor(INDEX), s, reduce, include_self=include_self), x, src)
    y = ag.tensor(x).clone()
    y.scatter_reduce_(1, ag.tensor(INDEX), ag.tensor(src), reduce, include_self=include_self)
    _same(y, torch.tensor(x).scatter_reduce_(1, torch.tensor(INDEX), torch.tensor(src), reduce,
                                             include_self=include_self))


def test_scatter_reduce_by_hand():
    out = ag.tensor([1.0, 2.0]).scatter_reduce(0, ag.tensor([0, 0]), ag.tensor([3.0, 4.0]), "prod")
    assert out.tolist() == [12.0, 2.0]


@pytest.mark.parametrize("reduce", ["add", "multiply"])
def test_scatter_with_reduce(reduce):
    x = np.full((2, 4), 2.0)
    index = [[2], [3]]
    mine = ag.tensor(x).scatter_(1, ag.tensor(index), 1.25, reduce=reduce)
    _same(mine, torch.tensor(x).scatter_(1, torch.tensor(index), 1.25, reduce=reduce))
    assert mine[0, 2].item() == (3.25 if reduce == "add" else 2.5)
    a, t = _pair(x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ym, yt = a.scatter(1, ag.tensor(index), ag.ones(2, 1), reduce=reduce), \
            t.scatter(1, torch.tensor(index), torch.ones(2, 1), reduce=reduce)
    assert ym.grad_fn.name() == yt.grad_fn.name()
    _error(lambda: ym.sum().backward(), lambda: yt.sum().backward())


def test_masked_scatter_and_put():
    mask = np.array([[0, 1, 1], [1, 0, 1]], dtype=bool)
    _grads(lambda a, s: a.masked_scatter(ag.tensor(mask), s), lambda a, s: a.masked_scatter(torch.tensor(mask), s),
           RNG.standard_normal((2, 3)), RNG.standard_normal(5))
    _grads(lambda a, s: a.masked_scatter(ag.tensor(mask[0]), s), lambda a, s: a.masked_scatter(torch.tensor(mask[0]), s),
           RNG.standard_normal((2, 3)), RNG.standard_normal((2, 3)))
    _error(lambda: ag.zeros(3).masked_scatter(ag.tensor([True] * 3), ag.ones(2)),
           lambda: torch.zeros(3).masked_scatter(torch.tensor([True] * 3), torch.ones(2)))
    for accumulate in (False, True):
        _grads(lambda a, s: a.put(ag.tensor([1, 4, -1]), s, accumulate),
               lambda a, s: a.put(torch.tensor([1, 4, -1]), s, accumulate), RNG.standard_normal((2, 3)),
               RNG.standard_normal(3))
        _grads(lambda a, s: a.index_put((ag.tensor([0, 1, 0]), ag.tensor([2, 2, 2])), s, accumulate),
               lambda a, s: a.index_put((torch.tensor([0, 1, 0]), torch.tensor([2, 2, 2])), s, accumulate),
               RNG.standard_normal((2, 3)), RNG.standard_normal(3))
    _error(lambda: ag.zeros(5).put_(ag.tensor([7]), ag.ones(1)), lambda: torch.zeros(5).put_(torch.tensor([7]),
                                                                                          torch.ones(1)), IndexError)
    x = ag.zeros(2, 2)
    assert x.put_(ag.tensor([3, 3]), ag.tensor([1.0, 2.0]), accumulate=True).tolist() == [[0, 0], [0, 3]]


def test_index_copy_and_put_in_place():
    _grads(lambda a, s: a.index_copy(1, ag.tensor([2, 0]), s), lambda a, s: a.index_copy(1, torch.tensor([2, 0]), s),
           RNG.standard_normal((2, 3)), RNG.standard_normal((2, 2)))
    a, t = _pair(RNG.standard_normal((2, 3)))
    ym, yt = a * 1, t * 1
    ym.index_put_((ag.tensor([1]),), ag.tensor(5.0))
    yt.index_put_((torch.tensor([1]),), torch.tensor(5.0))
    _same(ym, yt)
    assert ym.grad_fn.name() == yt.grad_fn.name()


def test_fill_diagonal_():
    for shape, wrap in [((3, 3), False), ((7, 3), False), ((7, 3), True), ((2, 4), False), ((3, 3, 3), False)]:
        _same(ag.zeros(*shape).fill_diagonal_(5, wrap=wrap), torch.zeros(*shape).fill_diagonal_(5, wrap=wrap))
    a, t = _pair(RNG.standard_normal((3, 3)))
    ym, yt = (a * 2).fill_diagonal_(1.0), (t * 2).fill_diagonal_(1.0)
    assert type(ym.grad_fn).__name__ == type(yt.grad_fn).__name__ == "CopySlices"
    ym.sum().backward()
    assert a.grad.tolist() == [[0, 2, 2], [2, 0, 2], [2, 2, 0]]     # by hand
    _error(lambda: ag.zeros(3).fill_diagonal_(1), lambda: torch.zeros(3).fill_diagonal_(1))
    _error(lambda: ag.zeros(3, 3, 4).fill_diagonal_(1), lambda: torch.zeros(3, 3, 4).fill_diagonal_(1))


def test_unfold():
    for dim, size, step in [(0, 2, 1), (1, 3, 2), (-1, 1, 1), (0, 4, 3)]:
        out = _grads(lambda a: a.unfold(dim, size, step) * 1.5, lambda a: a.unfold(dim, size, step) * 1.5,
                     RNG.standard_normal((4, 5)))
    x = ag.tensor(np.arange(7.0), requires_grad=True)
    u = x.unfold(0, 3, 2)
    assert u.grad_fn.name() == "UnfoldBackward0" and u.stride() == (2, 1)
    u.sum().backward()
    assert x.grad.tolist() == [1, 1, 2, 1, 2, 1, 1]        # overlapping windows count twice
    _error(lambda: ag.zeros(3).unfold(0, 4, 1), lambda: torch.zeros(3).unfold(0, 4, 1))
    a = ag.tensor(np.arange(5.0), requires_grad=True)
    g, = ag.autograd.grad(a.unfold(0, 2, 1).pow(2).sum(), a, create_graph=True)
    t = torch.tensor(np.arange(5.0), requires_grad=True)
    h, = torch.autograd.grad(t.unfold(0, 2, 1).pow(2).sum(), t, create_graph=True)
    _same(g, h)
    _same(ag.autograd.grad(g.sum(), a)[0], torch.autograd.grad(h.sum(), t)[0])


# -- layout: stride, storage_offset, contiguity, views of other dtypes, resize ------------------

def test_stride_storage_offset_contiguous():
    data = np.arange(24.0).reshape(2, 3, 4)
    a, t = ag.tensor(data), torch.tensor(data)
    for f in (lambda x: x, lambda x: x.transpose(0, 2), lambda x: x[:, 1:, ::2], lambda x: x[1], lambda x: x.t()
              if x.ndim == 2 else x.permute(2, 0, 1), lambda x: x.expand(2, 2, 3, 4), lambda x: x.unfold(2, 2, 1)):
        ym, yt = f(a), f(t)
        assert ym.stride() == yt.stride() and ym.storage_offset() == yt.storage_offset()
        assert ym.is_contiguous() == yt.is_contiguous()
        assert ym.contiguous().is_contiguous() and ym.contiguous().stride() == yt.contiguous().stride()
    assert a.stride(-1) == 1 and a[:, 2].storage_offset() == 8        # by hand: row 2 of a 3x4 block
    x, xt = _pair(RNG.standard_normal((2, 3)))
    assert x.t().contiguous().grad_fn.name() == xt.t().contiguous().grad_fn.name() == "CloneBackward0"
    assert x.contiguous() is x


def test_view_dtype_and_small_integers():
    data = RNG.standard_normal((4, 4))
    a, t = ag.tensor(data), torch.tensor(data)
    ym, yt = a.view(ag.int32), t.view(torch.int32)
    assert ym.shape == tuple(yt.shape) and ym.tolist() == yt.tolist()
    ym[0, 0] = 1000000000
    yt[0, 0] = 1000000000
    assert a.tolist() == t.tolist()
    assert a.view(ag.uint8).tolist() == t.view(torch.uint8).tolist()
    values = [1.7, -2.3, 300.0, -129.0]
    for name in ("byte", "char", "short"):
        assert getattr(ag.tensor(values), name)().tolist() == getattr(torch.tensor(values), name)().tolist()
    assert ag.tensor([300.0]).byte().tolist() == [44]           # 300 mod 256
    assert ag.tensor([], dtype=ag.uint8).element_size() == 1
    assert str(ag.int16) == "int16" and ag.short is ag.int16


def test_resize():
    a, t = ag.tensor([[1, 2], [3, 4], [5, 6]]), torch.tensor([[1, 2], [3, 4], [5, 6]])
    assert a.resize_(2, 2).tolist() == t.resize_(2, 2).tolist()
    b = ag.zeros(3)
    assert b.resize_as_(ag.zeros(2, 2)).shape == (2, 2)
    _error(lambda: ag.ones(2, requires_grad=True).resize_(3), lambda: torch.ones(2, requires_grad=True).resize_(3))


def test_grad_dtype():
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    xt = torch.tensor([1.0, 2.0], requires_grad=True)
    assert str(x.grad_dtype) == "float64"
    x.grad_dtype, xt.grad_dtype = ag.float32, torch.float32
    (x * 2).sum().backward()
    (xt * 2).sum().backward()
    assert x.grad.dtype == np.float32 and x.grad.tolist() == xt.grad.tolist() == [2.0, 2.0]
    _error(lambda: setattr(x, "grad", ag.ones(2)), lambda: setattr(xt, "grad", torch.ones(2)))
    x.grad_dtype, xt.grad_dtype = None, None
    x.grad, xt.grad = ag.ones(2, dtype=ag.float16), torch.ones(2, dtype=torch.float16)
    assert x.grad_dtype is None
    _error(lambda: (x * 2).grad_dtype, lambda: (xt * 2).grad_dtype)


def test_squeeze_tuple():
    _grads(lambda a: a.squeeze((0, 2)), lambda a: a.squeeze((0, 2)), RNG.standard_normal((1, 3, 1, 2)))
    _grads(lambda a: ag.squeeze(a, [0, 1]), lambda a: torch.squeeze(a, [0, 1]), RNG.standard_normal((1, 3, 1, 2)))
    _error(lambda: ag.zeros(1, 2).squeeze((0, 0)), lambda: torch.zeros(1, 2).squeeze((0, 0)))
    assert ag.zeros(1, 3, 1, 2).squeeze((0, 1, 2)).shape == (3, 2)


def test_setitem_shape_error():
    for shape, value, index in [(3, 2, slice(None)), ((2, 3), (2, 2), slice(None)), ((2, 3), (4,), 0),
                                ((2, 3), (2,), [0, 1])]:
        def mine():
            ag.zeros(shape)[index] = ag.ones(value)

        def theirs():
            torch.zeros(shape)[index] = torch.ones(value)
        _error(mine, theirs)


# -- out= --------------------------------------------------------------------------------------

@pytest.mark.parametrize("name, args", [
    ("mul", ([[1.0, 2.0]], [[3.0, 4.0]])),
    ("div", ([[1.0, 2.0]], [[3.0, 4.0]])), ("matmul", ([[1.0, 2.0]], [[3.0], [4.0]])),
    ("mm", ([[1.0, 2.0]], [[3.0], [4.0]])), ("cat", None), ("stack", None)])
def test_out(name, args):
    if args is None:
        parts = [[1.0, 2.0], [3.0, 4.0]]
        call_m = lambda out: getattr(ag, name)([ag.tensor(p) for p in parts], out=out)    # noqa: E731
        call_t = lambda out: getattr(torch, name)([torch.tensor(p) for p in parts], out=out)    # noqa: E731
    else:
        call_m = lambda out: getattr(ag, name)(*[ag.tensor(a) for a in args], out=out)    # noqa: E731
        call_t = lambda out: getattr(torch, name)(*[torch.tensor(a) for a in args], out=out)    # noqa: E731
    expected = call_t(None)
    out_m, out_t = ag.zeros(tuple(expected.shape)), torch.zeros(tuple(expected.shape))
    assert call_m(out_m) is out_m and call_t(out_t) is out_t
    _same(out_m, out_t)
    assert out_m._version == out_t._version
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _same(call_m(ag.zeros(7)), call_t(torch.zeros(7)))          # resized
    x = ag.ones(tuple(expected.shape), requires_grad=True)
    with pytest.raises(RuntimeError, match="don't support automatic differentiation"):
        ag.mul(x, 1, out=ag.zeros(tuple(expected.shape)))


def test_out_by_hand():
    out = ag.zeros(2, 2)
    ag.matmul(ag.tensor([[1.0, 2.0], [3.0, 4.0]]), ag.eye(2), out=out)
    assert out.tolist() == [[1.0, 2.0], [3.0, 4.0]]


# -- convolution: forward mode and double backward ----------------------------------------------

@pytest.mark.parametrize("kw, transposed", [(dict(stride=2, padding=1, groups=2), False),
                                            (dict(padding=2, dilation=2), False), (dict(stride=2, padding=1), True)])
def test_convolution_double_backward_and_forward_mode(kw, transposed):
    x, b = RNG.standard_normal((2, 4, 6)), RNG.standard_normal(4)
    w = RNG.standard_normal((4, 4 // kw.get("groups", 1), 3))
    fm = ag.nn.functional.conv_transpose1d if transposed else ag.nn.functional.conv1d
    ft = torch.nn.functional.conv_transpose1d if transposed else torch.nn.functional.conv1d
    (xm, xt), (wm, wt), (bm, bt) = _pair(x), _pair(w), _pair(b)
    gm = ag.autograd.grad(fm(xm, wm, bm, **kw).pow(3).sum(), (xm, wm, bm), create_graph=True)
    gt = torch.autograd.grad(ft(xt, wt, bt, **kw).pow(3).sum(), (xt, wt, bt), create_graph=True)
    for m, t in zip(gm, gt):
        _same(m, t, 1e-9)
        assert m.grad_fn.name() == t.grad_fn.name() == "ConvolutionBackwardBackward0"
    sm = ag.autograd.grad(sum((g ** 2).sum() for g in gm), (xm, wm, bm))
    st = torch.autograd.grad(sum((g ** 2).sum() for g in gt), (xt, wt, bt))
    for m, t in zip(sm, st):
        np.testing.assert_allclose(m.numpy(), t.numpy(), rtol=1e-10)
    tangents = [RNG.standard_normal(a.shape) for a in (x, w, b)]
    with ag.forward_ad.dual_level():
        out = fm(*[ag.forward_ad.make_dual(ag.tensor(a), ag.tensor(t)) for a, t in zip((x, w, b), tangents)], **kw)
        tm = ag.forward_ad.unpack_dual(out).tangent
    with torch.autograd.forward_ad.dual_level():
        out = ft(*[torch.autograd.forward_ad.make_dual(torch.tensor(a), torch.tensor(t))
                   for a, t in zip((x, w, b), tangents)], **kw)
        tt = torch.autograd.forward_ad.unpack_dual(out).tangent
    _same(tm, tt)
    eps = 1e-6         # the tangent as a central difference
    plus = fm(*[ag.tensor(a + eps * t) for a, t in zip((x, w, b), tangents)], **kw)
    minus = fm(*[ag.tensor(a - eps * t) for a, t in zip((x, w, b), tangents)], **kw)
    np.testing.assert_allclose(tm.numpy(), (plus - minus).numpy() / (2 * eps), rtol=1e-6, atol=1e-7)


# -- factorisations: values, gradients, second derivatives, node names ---------------------------

def _twice(f_mine, f_theirs, *arrays, tol=1e-9):
    """Values, node names, gradients of a random projection and the gradient of the squared
    gradient norm (create_graph) on both engines."""
    xm = [ag.tensor(a, requires_grad=True) for a in arrays]
    xt = [torch.tensor(a, requires_grad=True) for a in arrays]
    outs_m, outs_t = f_mine(*xm), f_theirs(*xt)
    outs_m = outs_m if isinstance(outs_m, tuple) else (outs_m,)
    outs_t = outs_t if isinstance(outs_t, tuple) else (outs_t,)
    loss_m = loss_t = 0
    for m, t in zip(outs_m, outs_t):
        _same(m, t, tol)
        if t.requires_grad:
            assert m.grad_fn.name() == t.grad_fn.name()
            w = RNG.standard_normal(tuple(t.shape))
            loss_m, loss_t = loss_m + (m * ag.tensor(w)).sum(), loss_t + (t * torch.tensor(w)).sum()
    gm = ag.autograd.grad(loss_m, xm, create_graph=True)
    gt = torch.autograd.grad(loss_t, xt, create_graph=True)
    for m, t in zip(gm, gt):
        _same(m, t, tol)
    hm = ag.autograd.grad(sum((g ** 2).sum() for g in gm), xm)
    ht = torch.autograd.grad(sum((g ** 2).sum() for g in gt), xt)
    for m, t in zip(hm, ht):
        np.testing.assert_allclose(m.numpy(), t.numpy(), rtol=tol, atol=tol)


SQUARE = RNG.standard_normal((3, 3))
TALL = RNG.standard_normal((4, 3))
WIDE = RNG.standard_normal((3, 5))
SPD = SQUARE @ SQUARE.T + 3 * np.eye(3)


def _reconstructed(u, s, vh):
    return (u * s.unsqueeze(-2)) @ vh


@pytest.mark.parametrize("name", ["eigh", "eigvalsh", "svd", "svd_wide", "svdvals", "torch_svd", "qr", "qr_wide",
                                  "lu_factor", "lu", "torch_lu", "lu_solve", "pinv", "pinv_wide", "lstsq",
                                  "matrix_exp", "matrix_power", "matrix_power_neg", "multi_dot", "multi_dot_vectors",
                                  "solve_triangular", "solve_triangular_right", "triangular_solve", "cholesky_solve",
                                  "cholesky_inverse"])
def test_factorisations(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        case = {
            "eigh": (lambda T, a: T.linalg.eigh(a + a.mT), [SQUARE]),
            "eigvalsh": (lambda T, a: T.linalg.eigvalsh(a + a.mT), [SQUARE]),
            # singular vectors have a sign each engine's LAPACK path picks: a product that does not see it
            "svd": (lambda T, a: _reconstructed(*T.linalg.svd(a, full_matrices=False)), [TALL]),
            "svd_wide": (lambda T, a: _reconstructed(*T.linalg.svd(a, full_matrices=False)) * 2, [WIDE]),
            "svdvals": (lambda T, a: T.linalg.svd(a).S, [TALL]),
            "torch_svd": (lambda T, a: T.svd(a)[1], [WIDE]),
            "qr": (lambda T, a: T.linalg.qr(a), [TALL]),
            "qr_wide": (lambda T, a: T.linalg.qr(a), [WIDE]),
            "lu_factor": (lambda T, a: T.linalg.lu_factor(a).LU, [SQUARE]),
            "lu": (lambda T, a: T.linalg.lu(a)[1:], [SQUARE]),
            "torch_lu": (lambda T, a: T.lu(a)[0], [SQUARE]),
            "lu_solve": (lambda T, a, b: T.linalg.lu_solve(*T.linalg.lu_factor(a), b), [SQUARE, TALL.T[:, :2]]),
            "pinv": (lambda T, a: T.linalg.pinv(a), [TALL]),
            "pinv_wide": (lambda T, a: T.linalg.pinv(a), [WIDE]),
            "lstsq": (lambda T, a, b: T.linalg.lstsq(a, b).solution, [TALL, RNG.standard_normal((4, 2))]),
            "matrix_exp": (lambda T, a: T.linalg.matrix_exp(a), [SQUARE]),
            "matrix_power": (lambda T, a: T.linalg.matrix_power(a, 3), [SQUARE]),
            "matrix_power_neg": (lambda T, a: T.linalg.matrix_power(a, -2), [SQUARE]),
            "multi_dot": (lambda T, a, b, c: T.linalg.multi_dot([a, b, c]), [SQUARE, TALL.T, WIDE.T[:4]]),
            "multi_dot_vectors": (lambda T, a, b: T.linalg.multi_dot([a[0], b, a[1]]), [SQUARE, SQUARE]),
            "solve_triangular": (lambda T, a, b: T.linalg.solve_triangular(a, b, upper=True), [SPD, TALL.T]),
            "solve_triangular_right": (lambda T, a, b: T.linalg.solve_triangular(a, b, upper=False, left=False,
                                                                                 unitriangular=True), [SPD, TALL]),
            "triangular_solve": (lambda T, a, b: T.triangular_solve(b, a, transpose=True)[0], [SPD, TALL.T]),
            "cholesky_solve": (lambda T, b, c: T.cholesky_solve(b, c), [TALL.T, np.tril(SPD)]),
            "cholesky_inverse": (lambda T, c: T.cholesky_inverse(c, upper=True), [np.triu(SPD)]),
        }[name]
        f, arrays = case
        _twice(lambda *xs: f(ag, *xs), lambda *xs: f(torch, *xs), *arrays)


def test_factorisations_by_hand():
    lu, pivots = ag.linalg.lu_factor(ag.tensor([[1.0, 2.0], [3.0, 4.0]]))
    np.testing.assert_allclose(lu.numpy(), [[3.0, 4.0], [1 / 3, 2 / 3]], rtol=1e-15)   # 2 - 4/3
    assert pivots.tolist() == [2, 2]
    # exp of a nilpotent matrix: I + N
    assert ag.linalg.matrix_exp(ag.tensor([[0.0, 1.0], [0.0, 0.0]])).tolist() == [[1.0, 1.0], [0.0, 1.0]]
    # d/dA trace(exp(A)) = exp(A)^T, checked by central differences
    a = RNG.standard_normal((2, 2))
    x = ag.tensor(a, requires_grad=True)
    ag.linalg.matrix_exp(x).diagonal().sum().backward()
    eps, fd = 1e-6, np.zeros((2, 2))
    for i in range(2):
        for j in range(2):
            d = np.zeros((2, 2))
            d[i, j] = eps
            fd[i, j] = (np.trace(ag.linalg.matrix_exp(ag.tensor(a + d)).numpy())
                        - np.trace(ag.linalg.matrix_exp(ag.tensor(a - d)).numpy())) / (2 * eps)
    np.testing.assert_allclose(x.grad.numpy(), fd, rtol=1e-7, atol=1e-8)
    s = ag.tensor([[2.0, 0.0], [0.0, 5.0]])
    assert ag.linalg.eigvalsh(s).tolist() == [2.0, 5.0] and int(ag.linalg.matrix_rank(ag.ones(3, 3))) == 1


def test_einsum_sublist():
    a, b = RNG.standard_normal((3, 2, 5)), RNG.standard_normal((3, 5, 4))
    _grads(lambda x, y: ag.einsum(x, [..., 0, 1], y, [..., 1, 2], [..., 0, 2]),
           lambda x, y: torch.einsum(x, [..., 0, 1], y, [..., 1, 2], [..., 0, 2]), a, b)
    out = ag.einsum(ag.tensor([[1.0, 2.0], [3.0, 4.0]]), [0, 0])          # the trace
    assert out.item() == 5.0


# -- more elementwise functions, reductions and rearrangements as methods -----------------------

X = RNG.standard_normal((3, 4)) * 3
X[0, 0] = 0.0


@pytest.mark.parametrize("expr", [
    "x.trunc()", "x.fix()", "x.frac()", "x.exp2()", "x.sgn()", "x.deg2rad()", "x.rad2deg()", "x.erfc()", "x.sinc()",
    "x.logaddexp2(x.flip(0))", "x.fmax(x.t().reshape(3, 4))", "x.fmin(x.t().reshape(3, 4))", "x.copysign(x.flip(1))",
    "x.copysign(-1.0)", "x.float_power(2)", "x.nansum(1)", "x.nansum()", "x.nanmean(0)", "x.kthvalue(2, 1)[0]",
    "x[0].vdot(x[1])", "x.logcumsumexp(1)", "T.logcumsumexp(x, 0)", "x.rot90(1, (0, 1))", "x.rot90(3, (1, 0))", "x.take_along_dim(T.tensor([[0], [2], [1]]), 1)",
    "x.fliplr()", "x.flipud()", "x.hsplit(2)[1]", "x.vsplit([1])[1]", "x.split_with_sizes([1, 3], 1)[1]",
    "x.msort()", "x.select(1, 2)", "x.swapdims(0, 1)", "x.ravel()", "x.diagflat()", "x[0].diagflat(1)",
    "(x / 10).arcsin()", "(x / 10).arctanh()", "T.arccos(x / 10)"])
def test_methods_vs_torch(expr):
    f = eval(f"lambda T, x: {expr}")         # noqa: S307  (a fixed list of expressions)
    _grads(lambda a: f(ag, a), lambda a: f(torch, a), X)


def test_methods_without_graph():
    a, t = ag.tensor(X), torch.tensor(X)
    assert a.count_nonzero().item() == t.count_nonzero().item() == 11
    assert a.count_nonzero(0).tolist() == t.count_nonzero(0).tolist()
    assert a.signbit().tolist() == t.signbit().tolist()
    assert a.allclose(a + 1e-9) and a.where(a > 0, 0.0).tolist() == t.where(t > 0, 0.0).tolist()
    assert (a.is_floating_point(), a.is_complex(), a.is_signed(), a.nelement(), a.ndimension()) == \
        (t.is_floating_point(), t.is_complex(), t.is_signed(), t.nelement(), t.ndimension())
    assert ag.tensor([-1.5, 2.7]).trunc().tolist() == [-1.0, 2.0] and ag.tensor([-1.5]).frac().tolist() == [-0.5]
    assert ag.tensor([0.0, 0.5]).sinc().tolist() == [1.0, pytest.approx(2 / np.pi)]     # by hand
    y = ag.tensor(X, requires_grad=True) * 1
    yt = torch.tensor(X, requires_grad=True) * 1
    for name in ("exp2_", "trunc_", "clamp_min_", "tril_"):
        args = (0.5,) if name == "clamp_min_" else ()
        getattr(y, name)(*args)
        getattr(yt, name)(*args)
        _same(y, yt)
        assert y.grad_fn.name() == yt.grad_fn.name()


@pytest.mark.parametrize("name, args", [("transpose_", (0, 1)), ("t_", ()), ("swapdims_", (1, 0)),
                                        ("unsqueeze_", (1,)), ("squeeze_", ()), ("squeeze_", (0,))])
def test_in_place_views(name, args):
    data = RNG.standard_normal((1, 3)) if name == "squeeze_" else RNG.standard_normal((2, 3))
    a, t = _pair(data)
    ym, yt = a * 2, t * 2
    assert getattr(ym, name)(*args) is ym and getattr(yt, name)(*args) is yt
    _same(ym, yt)
    assert ym.grad_fn.name() == yt.grad_fn.name() and ym._version == yt._version
    seed = RNG.standard_normal(tuple(yt.shape))
    ym.backward(ag.tensor(seed))
    yt.backward(torch.tensor(seed))
    _same(a.grad, t.grad)
    _error(lambda: getattr(a, name)(*args), lambda: getattr(t, name)(*args))
    assert ag.ones(2, 3).t_().shape == (3, 2)       # by hand


# -- autograd APIs ---------------------------------------------------------------------------------

def _multi_hook_run(T):
    seen = []
    a, b = T.ones(2, 3, requires_grad=True), T.ones(2, 3, requires_grad=True)
    c, d = a * b, a * b
    handle = T.autograd.graph.register_multi_grad_hook((a, b, c, d), lambda gs: seen.append([g is not None
                                                                                           for g in gs]))
    c.sum().backward(retain_graph=True)
    c.sum().backward(inputs=(a,), retain_graph=True)
    (c + d).sum().backward(retain_graph=True)
    handle.remove()
    c.sum().backward(retain_graph=True)
    firsts = []
    T.autograd.graph.register_multi_grad_hook((a, c), lambda g: firsts.append(tuple(g.shape)), mode="any")
    (c * 2).sum().backward()
    return seen, firsts


def test_register_multi_grad_hook():
    assert _multi_hook_run(ag) == _multi_hook_run(torch)
    assert _multi_hook_run(ag)[0][0] == [True, True, True, False]          # d is not reached: by hand
    _error(lambda: ag.autograd.graph.register_multi_grad_hook((ag.ones(1, requires_grad=True),), print, mode="x"),
           lambda: torch.autograd.graph.register_multi_grad_hook((torch.ones(1, requires_grad=True),), print,
                                                                 mode="x"), ValueError)


def test_allow_mutation_on_saved_tensors():
    grads = []
    for T in (ag, torch):
        a = T.ones(2, 3, requires_grad=True)
        with T.autograd.graph.allow_mutation_on_saved_tensors():
            b = a.clone()
            out = (b ** 2).sum()
            b.sin_()
            out.backward()
        grads.append(a.grad.tolist())
    assert grads[0] == grads[1] == [[2.0] * 3] * 2          # 2b at the value b had when saved


def test_make_functional_with_buffers_and_aux():
    from diffcompare.autograd import functorch as ft
    model = ag.nn.Linear(3, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fmodel, params, buffers = ft.make_functional_with_buffers(model)
        fplain, params2 = ft.make_functional(model)
    x = ag.tensor(RNG.standard_normal((4, 3)))
    expected = x @ model.weight.detach().t() + model.bias.detach()
    _same(fmodel(params, buffers, x).detach(), torch.tensor(expected.numpy()))
    _same(fplain(params2, x).detach(), torch.tensor(expected.numpy()))
    assert [n for n, _ in fmodel.named_parameters()] == ["stateless_model.weight", "stateless_model.bias"]
    assert fmodel.stateless_model.weight.is_meta and not model.weight.is_meta
    tangents = tuple(ag.ones_like(p) for p in params)
    _, jvp_out = ag.func.jvp(lambda ps: fmodel(ps, buffers, x), (params,), (tangents,))
    np.testing.assert_allclose(jvp_out.detach().numpy(), np.repeat(x.numpy().sum(1, keepdims=True) + 1, 2, 1))

    def loss(y, y_pred):
        per_sample = (0.5 * y_pred - y) ** 2
        return per_sample.mean(), (y_pred, per_sample, y)
    outs = []
    for T in (ag, torch):
        y, y_pred = T.tensor([0.1, 0.2]), T.tensor([0.3, 0.4], requires_grad=True)
        out = T.func.grad(loss, argnums=(0, 1), has_aux=True)(y, y_pred)
        outs.append([(t is y_pred, t.requires_grad, t.grad_fn is None) for t in out[1]])
    assert outs[0] == outs[1]


def test_torch_level_queries():
    assert ag.Size([2, 3]) == ag.zeros(2, 3).shape == tuple(torch.Size([2, 3]))
    assert ag.finfo(ag.float32).eps == torch.finfo(torch.float32).eps and ag.iinfo(ag.int8).max == 127
    for a, b in [(ag.int32, ag.float32), (ag.int64, ag.int32), (ag.bool, ag.uint8), (ag.float32, ag.complex64)]:
        expected = torch.promote_types(getattr(torch, str(a)), getattr(torch, str(b)))
        assert str(ag.promote_types(a, b)) == str(expected).replace("torch.", "")
    assert ag.can_cast(ag.float64, ag.int32) is torch.can_cast(torch.float64, torch.int32) is False
    assert ag.tril_indices(3, 4, 1).tolist() == torch.tril_indices(3, 4, 1).tolist()
    assert ag.triu_indices(3, 3).tolist() == torch.triu_indices(3, 3).tolist()
    assert ag.bincount(ag.tensor([0, 1, 1, 3]), minlength=5).tolist() == [1, 2, 0, 1, 0]
    hist = ag.histogram(ag.tensor([1.0, 2.0, 1.0]), bins=4, range=(0.0, 3.0))
    assert hist.hist.tolist() == [0.0, 2.0, 1.0, 0.0]
    assert ag.isin(ag.tensor([1, 2, 3]), ag.tensor([2, 3])).tolist() == [False, True, True]
    _same(ag.logspace(-1, 1, 3), torch.logspace(-1, 1, 3))
    assert ag.get_default_dtype() == np.float64


@pytest.mark.parametrize("expr", ["T.cov(x)", "T.cov(x[0])", "T.corrcoef(x)", "x.aminmax(dim=1)[1]",
                                  "sum(v.sum() * (k + 1) for k, v in enumerate(T.var_mean(x, 1)))",
                                  "sum(v.sum() * (k + 1) for k, v in enumerate(T.std_mean(x, 0, keepdim=True)))",
                                  "x.aminmax()[0] + x.aminmax()[1]", "x.aminmax(dim=0, keepdim=True)[0]"])
def test_statistics(expr):
    data = RNG.standard_normal((3, 5))
    data[0, 1] = data[0, 3] = data[0].max()           # a tie for the largest of row 0
    f = eval(f"lambda T, x: {expr}")         # noqa: S307  (a fixed list of expressions)
    _grads(lambda a: f(ag, a), lambda a: f(torch, a), data)


def test_statistics_by_hand():
    x = ag.tensor([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0]])
    assert ag.cov(x).tolist() == [[1.0, 2.0], [2.0, 4.0]]          # var 1 and 4, perfectly correlated
    np.testing.assert_allclose(ag.corrcoef(x).numpy(), np.ones((2, 2)))
    y = ag.tensor([3.0, 1.0, 3.0], requires_grad=True)
    low, high = ag.aminmax(y)
    high.backward()
    assert (low.item(), high.item(), y.grad.tolist()) == (1.0, 3.0, [0.5, 0.0, 0.5])    # the tie shares
    var, mean = ag.var_mean(ag.tensor([1.0, 2.0, 3.0, 6.0]))
    assert (var.item(), mean.item()) == (14 / 3, 3.0) and var.grad_fn is None


@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_index_reduce(reduce, include_self):
    x, source = RNG.standard_normal((3, 5)), RNG.standard_normal((3, 4))
    source[0, 0] = x[0, 0]                               # a tie for amax/amin
    index = [0, 4, 2, 0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _grads(lambda a, s: a.index_reduce(1, ag.tensor(index), s, reduce, include_self=include_self),
               lambda a, s: a.index_reduce(1, torch.tensor(index), s, reduce, include_self=include_self), x, source)
        if reduce == "prod" and include_self:           # by hand: 2 * 1 * 4 at row 0
            out = ag.full((3,), 2.0).index_reduce_(0, ag.tensor([0, 0]), ag.tensor([1.0, 4.0]), "prod")
            assert out.tolist() == [8.0, 2.0, 2.0]
