"""What real PyTorch code passes and writes that is not the engine's own spelling: PyTorch's
keyword names for inputs (``input=``, ``other=``, ``A=``, ``shape=``, ``dims=``, ``split_size=``,
``sections=``, ``axis0=``), ``out=`` on elementwise ops and as a tuple for several results,
``z.real = ...``/``z.imag *= -1`` on complex tensors, a list of slices as an index,
``nn.DataParallel`` with no accelerator, and ``torch.multiprocessing`` with tensors in shared
memory (Hogwild) — by hand, and beside PyTorch where it is installed."""

from __future__ import annotations

import importlib
import multiprocessing
import sys
import time
import warnings

import pytest

from engines import each

A = [[1.0, -2.0, 3.0], [0.5, 4.0, -1.0]]

CALLS = {   # name -> (call of T and a tensor x of A, the value by hand)
    "exp(input=)": (lambda T, x: T.exp(input=x[0, :1] * 0), [1.0]),
    "mean(input=)": (lambda T, x: T.mean(input=x), 5.5 / 6),
    "triu(input=)": (lambda T, x: T.triu(input=x, diagonal=1), [[0.0, -2.0, 3.0], [0.0, 0.0, -1.0]]),
    "diag(input=)": (lambda T, x: T.diag(input=x), [1.0, 4.0]),
    "abs(input=)": (lambda T, x: T.abs(input=x[0]), [1.0, 2.0, 3.0]),
    "eq(other=)": (lambda T, x: T.eq(x[0], other=x[0] * 0 + 3.0), [False, False, True]),
    "gt(input=, other=)": (lambda T, x: T.gt(input=x[1], other=x[0]), [False, True, False]),
    "atan2(input=, other=)": (lambda T, x: T.atan2(input=x[0, :1], other=x[0, :1]), [0.7853981633974483]),
    "max(other=)": (lambda T, x: T.max(x[0], other=x[1]), [1.0, 4.0, 3.0]),
    "x.min(other=)": (lambda T, x: x[0].min(other=x[1]), [0.5, -2.0, -1.0]),
    "equal(input=, other=)": (lambda T, x: T.equal(input=x, other=x.clone()), True),
    "allclose(other=)": (lambda T, x: T.allclose(x, other=x + 1e-12), True),
    "reshape(shape=)": (lambda T, x: T.reshape(x, shape=(3, 2)), [[1.0, -2.0], [3.0, 0.5], [4.0, -1.0]]),
    "x.reshape(shape=)": (lambda T, x: x.reshape(shape=(3, 2))[2], [4.0, -1.0]),
    "permute(dims=)": (lambda T, x: T.permute(x, dims=(1, 0))[0], [1.0, 0.5]),
    "x.permute(dims=)": (lambda T, x: x.permute(dims=(1, 0))[2], [3.0, -1.0]),
    "x.repeat(repeats=)": (lambda T, x: x[0, :2].repeat(repeats=(2,)), [1.0, -2.0, 1.0, -2.0]),
    "x.split(split_size=)": (lambda T, x: x.split(split_size=1)[1], [[0.5, 4.0, -1.0]]),
    "tensor_split(sections=)": (lambda T, x: T.tensor_split(x[0], sections=3)[2], [3.0]),
    "swapaxes(axis0=, axis1=)": (lambda T, x: T.swapaxes(x, axis0=0, axis1=1)[1], [-2.0, 4.0]),
    "x.view(dtype=)": (lambda T, x: x.view(dtype=T.int64).shape[1], 3),
    "linalg.det(A=)": (lambda T, x: T.linalg.det(A=x[:, :2]), 4.0 + 1.0),
    "linalg.pinv(rcond=)": (lambda T, x: T.linalg.pinv(T.diag(T.tensor([4.0, 0.01], dtype=x.dtype)), rcond=0.1),
                            [[0.25, 0.0], [0.0, 0.0]]),
    "linalg.pinv(x, rcond)": (lambda T, x: T.linalg.pinv(T.diag(T.tensor([4.0, 0.01], dtype=x.dtype)), 0.001),
                              [[0.25, 0.0], [0.0, 100.0]]),
    "cholesky_solve(input=, input2=)": (lambda T, x: T.cholesky_solve(input=x[:, :1] * 0 + 1, input2=_two(T, x)),
                                        [[0.25], [0.25]]),
    "cholesky_inverse(input=)": (lambda T, x: T.cholesky_inverse(input=_two(T, x)), [[0.25, 0.0], [0.0, 0.25]]),
    "polygamma(n, input=)": (lambda T, x: T.polygamma(2, input=x[0, :1]), [-2.4041138063191885]),   # -2 zeta(3)
    "searchsorted(input=)": (lambda T, x: T.searchsorted(T.tensor([1.0, 2.0, 3.0]), input=T.tensor([2.5])), [2]),
    "F.softplus(input=)": (lambda T, x: T.nn.functional.softplus(input=x[0, :1] - 1), [0.6931471805599453]),
    "F.logsigmoid(input=)": (lambda T, x: T.nn.functional.logsigmoid(input=x[0, :1] - 1), [-0.6931471805599453]),
    "F.glu(input=)": (lambda T, x: T.nn.functional.glu(input=x[1, 1:]), [4.0 / (1 + 2.718281828459045)]),
    "F.prelu(input=)": (lambda T, x: T.nn.functional.prelu(input=x[0], weight=x[1, :1]), [1.0, -1.0, 3.0]),
}


def _two(T, x):
    """2 I, the Cholesky factor of 4 I, in x's dtype."""
    return T.eye(2, dtype=x.dtype) * 2


def _plain(value):
    return value.tolist() if hasattr(value, "tolist") else value


@each
@pytest.mark.parametrize("name", list(CALLS))
def test_pytorchs_keyword_names(T, name):
    call, expected = CALLS[name]
    x = T.tensor(A, dtype=T.float64)
    got = _plain(call(T, x))
    if isinstance(expected, float) or (isinstance(expected, list) and expected and isinstance(expected[0], float)):
        assert got == pytest.approx(expected, rel=1e-12, abs=1e-12)
    else:
        assert got == expected


@each
def test_out_on_elementwise_ops_and_comparisons(T):
    x = T.tensor([0.0, 1.0])
    out = T.zeros(2)
    assert T.exp(x, out=out) is out and out.tolist() == pytest.approx([1.0, 2.718281828459045])
    assert T.rsqrt(x + 3.0, out=out) is out and out.tolist() == pytest.approx([3 ** -0.5, 0.5])
    flags = T.zeros(2, dtype=T.bool)
    assert T.lt(x, 0.5, out=flags) is flags and flags.tolist() == [True, False]
    with pytest.raises(RuntimeError, match=r"functions with out=\.\.\. arguments don't support automatic "
                                           r"differentiation, but one of the arguments requires grad"):
        T.exp(x.clone().requires_grad_(), out=out)


@each
def test_out_as_a_tuple_for_several_results(T):
    x = T.tensor([[1.0, 3.0], [4.0, 2.0]])
    values, indices = T.zeros(2), T.zeros(2, dtype=T.int64)
    result = T.max(x, 1, out=(values, indices))
    assert result.values is values and result.indices is indices
    assert values.tolist() == [3.0, 4.0] and indices.tolist() == [1, 0]
    s, i = T.zeros(2, 2), T.zeros(2, 2, dtype=T.int64)
    T.sort(x, 1, descending=True, out=(s, i))
    assert s.tolist() == [[3.0, 1.0], [4.0, 2.0]] and i.tolist() == [[1, 0], [0, 1]]
    with pytest.raises(TypeError, match="out"):
        T.max(x, 1, out=values)


@each
def test_complex_parts_are_settable(T):
    x = T.tensor([1.0, 2.0], dtype=T.float64, requires_grad=True)
    z = x * (1 + 1j)
    z.imag *= -1                                 # (PyTorch's kernel flip in FFT convolution)
    assert z.detach().tolist() == [1 - 1j, 2 - 2j]
    z.imag = x * x
    assert z.grad_fn.name() == "torch::autograd::CopySlices"
    (z.real + z.imag).sum().backward()
    assert x.grad.tolist() == [3.0, 5.0]         # d/dx (x + x^2) = 1 + 2x
    c = T.zeros(2, dtype=T.complex64)
    c.real, c.imag = T.ones(2, dtype=T.float32), T.tensor([2.0, -3.0], dtype=T.float32)
    assert c.dtype == T.complex64 and c.tolist() == [1 + 2j, 1 - 3j]
    assert z.real.grad_fn.name() == "SelectBackward0" and z.real._base is z       # a view, as PyTorch's
    r = T.ones(2)
    assert r.real is r
    r.real = T.tensor([3.0, 4.0])
    assert r.tolist() == [3.0, 4.0]
    with pytest.raises(RuntimeError, match="imag is not implemented for tensors with non-complex dtypes"):
        r.imag = 1.0
    with pytest.raises(RuntimeError, match="imag is not implemented for tensors with non-complex dtypes"):
        r.imag


@each
def test_gradients_through_writes_into_a_real_view_of_a_complex_tensor(T):
    weights = T.tensor([1.0, 10.0])
    cases = {   # what is written, what is read: each a function of w, its gradient by hand
        "z.imag.mul_(-1), read imag": (lambda z: z.imag.mul_(-1),          # (z.imag is a view: z changes)
                                       lambda z: T.view_as_real(z)[..., 1], [-2.0, -20.0]),     # imag = -2w
        "z.imag = 3 z.imag, read imag": (lambda z: _set(z, "imag", z.imag * 3),
                                         lambda z: z.imag, [6.0, 60.0]),                       # imag = 6w
        "view[..., 1] = -imag, read view": (lambda z: T.view_as_real(z).__setitem__((Ellipsis, 1), -z.imag),
                                            lambda z: T.view_as_real(z)[..., 1], [-2.0, -20.0]),
        "view[..., 1] = 7, read real": (lambda z: T.view_as_real(z).__setitem__((Ellipsis, 1), 7.0),
                                        lambda z: z.real, [1.0, 10.0]),                     # real = w
        "view[..., 0] = w^2, read both": (lambda z: T.view_as_real(z).__setitem__((Ellipsis, 0), (z.real * 1) ** 2),
                                          lambda z: T.view_as_real(z).sum(-1), [2.0 + 2.0, 20.0 * 2.0 + 20.0]),
    }
    for name, (write, read, expected) in cases.items():
        w = T.tensor([1.0, 2.0], requires_grad=True)
        z = w * (1 + 2j)
        write(z)
        (read(z) * weights).sum().backward()
        assert w.grad.tolist() == expected, name


def _set(z, part, value):
    setattr(z, part, value)


@each
def test_second_derivatives_through_writes_into_a_real_view_of_a_complex_tensor(T):
    """Under create_graph the write's backward is recorded too: the overwritten part of the
    complex base gets no gradient, in the first derivative and in the second."""
    cases = {   # the write, the read: first and second derivatives by hand at x = 1, 2
        "z.imag = x^3; re + im": (lambda z, x: _set(z, "imag", x ** 3),                   # x^2 + x^3
                                  lambda z: z.real + z.imag, [5.0, 16.0], [8.0, 14.0]),
        "view[..., 0] = x^3; re + 2 im": (lambda z, x: T.view_as_real(z).__setitem__((Ellipsis, 0), x ** 3),
                                          lambda z: z.real + 2 * z.imag, [7.0, 20.0], [10.0, 16.0]),
        "z.imag *= -x; re * im": (lambda z, x: z.imag.mul_(-x),                            # x^2 * (-x^3)
                                  lambda z: z.real * z.imag, [-5.0, -80.0], [-20.0, -160.0]),
    }
    for name, (write, read, first, second) in cases.items():
        x = T.tensor([1.0, 2.0], dtype=T.float64, requires_grad=True)
        z = (x * x) * (1 + 1j)                   # real and imaginary parts both x^2
        write(z, x)
        g, = T.autograd.grad(read(z).sum(), x, create_graph=True)
        gg, = T.autograd.grad(g.sum(), x)
        assert g.tolist() == first and gg.tolist() == second, name


@each
def test_a_list_of_slices_indexes_as_a_tuple(T):
    x = T.arange(6.0, dtype=T.float64).reshape(2, 3).requires_grad_()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        column = x[[slice(None), 1]]
        pairs = x[[[0, 1], [1, 0]]]
        rows = x[[0, 1]]                         # integers only: one index, the rows
        y = x.detach().clone()
        y[[slice(None), 0]] = 7.0
    assert column.tolist() == [1.0, 4.0] and column.grad_fn.name() == "SelectBackward0"
    assert pairs.tolist() == [1.0, 3.0] and tuple(rows.shape) == (2, 3)
    assert y.tolist() == [[7.0, 1.0, 2.0], [7.0, 4.0, 5.0]]
    assert sum("non-tuple sequence for multidimensional indexing" in str(w.message) for w in caught) == 3
    (column.sum() + pairs.sum()).backward()
    assert x.grad.tolist() == [[0.0, 2.0, 0.0], [1.0, 1.0, 0.0]]


@each
def test_data_parallel_without_an_accelerator_is_the_module(T):
    T.manual_seed(0)
    inner = T.nn.Linear(3, 2)
    net = T.nn.DataParallel(inner)
    assert net.module is inner and net.device_ids == []
    assert list(net.state_dict()) == ["module.weight", "module.bias"]
    x = T.tensor([[1.0, 2.0, 3.0]])
    y = net(x)
    assert y.tolist() == inner(x).tolist()
    y.sum().backward()
    assert inner.weight.grad.tolist() == [[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]]
    with pytest.raises(ValueError, match="Default process group has not been initialized"):
        T.nn.parallel.DistributedDataParallel(inner)


def _hogwild_step(rank, model, T):
    optimizer = T.optim.SGD(model.parameters(), lr=0.5)
    optimizer.zero_grad()
    (model(T.ones(1, 2)) - 0.0).sum().backward()        # d/dw = 1 for each weight, d/db = 1
    optimizer.step()


def _fails(rank):
    raise ValueError(f"worker {rank} failed")


_SLEEPER = 90      # seconds: far longer than the failing worker needs, even on a loaded machine


def _fails_or_sleeps(rank):
    if rank == 0:
        raise ValueError("worker 0 failed")
    time.sleep(_SLEEPER)


@pytest.mark.skipif(sys.platform != "linux", reason="the fork start method")
@each
def test_shared_tensors_are_updated_by_forked_workers(T):
    mp = importlib.import_module(T.__name__ + ".multiprocessing")
    model = T.nn.Linear(2, 1)
    with T.no_grad():
        model.weight.fill_(1.0)
        model.bias.fill_(0.0)
    assert not model.weight.is_shared()
    model.share_memory()
    assert model.weight.is_shared() and model.bias.is_shared()
    context = multiprocessing.get_context("fork")
    workers = [context.Process(target=_hogwild_step, args=(rank, model, T)) for rank in range(2)]
    for p in workers:
        p.start()
    for p in workers:
        p.join()
    assert all(p.exitcode == 0 for p in workers)
    assert model.weight.detach().tolist() == [[0.0, 0.0]] and model.bias.detach().tolist() == [-1.0]   # two steps of 0.5
    with pytest.raises(mp.ProcessRaisedException, match="worker 0 failed"):
        mp.start_processes(_fails, nprocs=1, start_method="fork")
    assert mp.get_sharing_strategy() in mp.get_all_sharing_strategies()


@pytest.mark.skipif(sys.platform != "linux", reason="the fork start method")
def test_a_failing_spawned_worker_ends_the_others():
    """As PyTorch's ProcessContext.join: the first failure ends the wait and the other workers
    (a worker that sleeps on is ended, not waited for: the failure is raised long before its
    sleep is over, and it is no longer running then)."""
    from engines import ag
    mp = importlib.import_module(ag.__name__ + ".multiprocessing")
    started = time.monotonic()
    context = mp.start_processes(_fails_or_sleeps, nprocs=2, join=False, start_method="fork")
    with pytest.raises(mp.ProcessRaisedException, match="worker 0 failed"):
        while not context.join():
            pass
    assert time.monotonic() - started < _SLEEPER * 2 / 3
    assert not context.processes[1].is_alive()


@pytest.mark.skipif(sys.platform != "linux", reason="the fork start method")
def test_a_worker_that_failed_before_the_first_join_is_raised_at_once():
    """The failure is raised even when the worker ended before ``join`` was first called: the
    wait is on the others only while none has failed, never on a sleeper once one has."""
    from engines import ag
    mp = importlib.import_module(ag.__name__ + ".multiprocessing")
    started = time.monotonic()
    context = mp.start_processes(_fails_or_sleeps, nprocs=2, join=False, start_method="fork")
    while context.processes[0].exitcode is None and time.monotonic() - started < _SLEEPER / 3:
        time.sleep(0.01)
    with pytest.raises(mp.ProcessRaisedException, match="worker 0 failed"):
        while not context.join():
            pass
    assert time.monotonic() - started < _SLEEPER * 2 / 3
    assert not context.processes[1].is_alive()


@each
def test_deprecated_names_real_code_still_calls(T):
    """``nn.utils.clip_grad_norm``, ``testing.assert_allclose``, ``is_autocast_cpu_enabled`` and
    ``torch.functional``'s tensor functions: the same results as their current names, with
    PyTorch's warnings."""
    w = T.nn.Parameter(T.ones(2, dtype=T.float64))
    w.grad = T.tensor([3.0, 4.0], dtype=T.float64)
    with pytest.warns(FutureWarning, match="clip_grad_norm_"):
        total = T.nn.utils.clip_grad_norm(w, 1.0)
    assert float(total) == 5.0 and w.grad.tolist() == pytest.approx([0.6, 0.8], rel=1e-5)   # (by max_norm / (5 + 1e-6))
    with pytest.warns(FutureWarning, match="assert_allclose"):
        T.testing.assert_allclose(T.ones(2, dtype=T.float32), [1.0, 1.0 + 5e-5])     # rtol 1e-4 in float32
    with pytest.warns(FutureWarning):
        T.testing.assert_allclose(T.ones(2, dtype=T.float64), [1.0, 1.0 + 5e-6])     # rtol 1e-5 in float64
    with pytest.warns(FutureWarning), pytest.raises(AssertionError, match="not close"):
        T.testing.assert_allclose(T.ones(2, dtype=T.float64), [1.0, 1.0 + 5e-5])
    with pytest.warns(DeprecationWarning, match="is_autocast_cpu_enabled"):
        assert T.is_autocast_cpu_enabled() is False
    functional = importlib.import_module(T.__name__ + ".functional")
    assert [p.tolist() for p in functional.split(T.arange(4.0), 2)] == [[0.0, 1.0], [2.0, 3.0]]
    assert float(functional.einsum("i,i->", T.ones(3), T.ones(3))) == 3.0


@each
def test_triplet_margin_with_distance_loss_by_hand(T):
    a, p = T.zeros(1, 2, dtype=T.float64), T.tensor([[3.0, 4.0]], dtype=T.float64)
    n = T.tensor([[3.0, 3.0]], dtype=T.float64, requires_grad=True)
    euclid = lambda x, y: ((x - y) ** 2).sum(1).sqrt()          # noqa: E731
    loss = T.nn.TripletMarginWithDistanceLoss(distance_function=euclid)(a, p, n)
    assert float(loss) == pytest.approx(1 + 5 - 18 ** 0.5, rel=1e-14)      # margin + d(a, p) - d(a, n)
    (g,) = T.autograd.grad(loss, n)
    assert g[0].tolist() == pytest.approx([-3 / 18 ** 0.5] * 2, rel=1e-14)     # -(n - a) / |n - a|
    swapped = T.nn.functional.triplet_margin_with_distance_loss(a, p, n, distance_function=euclid, swap=True)
    assert float(swapped) == pytest.approx(1 + 5 - 1, rel=1e-14)             # d(p, n) = 1 < d(a, n)
    with pytest.raises(ValueError, match="margin must be greater than 0"):
        T.nn.functional.triplet_margin_with_distance_loss(a, p, n, margin=0.0)


@each
def test_foreach_functions_of_optimizers(T):
    """``torch._foreach_*`` as "foreach" optimizers call them (Lion's step): lists with lists,
    numbers, a list of numbers; in place or not; ``alpha=``; norms."""
    params = [T.tensor([1.0, -2.0], dtype=T.float64), T.tensor([4.0], dtype=T.float64)]
    grads = [T.tensor([0.5, 0.5], dtype=T.float64), T.tensor([-1.0], dtype=T.float64)]
    assert T._foreach_mul_(params, 0.5) is not None
    assert [p.tolist() for p in params] == [[0.5, -1.0], [2.0]]
    T._foreach_add_(params, grads, alpha=-2)
    assert [p.tolist() for p in params] == [[-0.5, -2.0], [4.0]]
    T._foreach_lerp_(grads, params, 0.5)                         # g + 0.5 (p - g)
    assert [g.tolist() for g in grads] == [[0.0, -0.75], [1.5]]
    signs = T._foreach_sign(grads)
    assert [s.tolist() for s in signs] == [[0.0, -1.0], [1.0]] and grads[1].tolist() == [1.5]
    assert [t.tolist() for t in T._foreach_mul(params, [2.0, 3.0])] == [[-1.0, -4.0], [12.0]]
    assert [float(n) for n in T._foreach_norm(params)] == pytest.approx([4.25 ** 0.5, 4.0], rel=1e-15)
    w = T.ones(2, dtype=T.float64, requires_grad=True)
    (doubled,) = T._foreach_mul([w], 2.0)                         # recorded like the op itself
    doubled.sum().backward()
    assert w.grad.tolist() == [2.0, 2.0]


@each
def test_nn_modules_is_an_attribute_path(T):
    bn = T.nn.BatchNorm1d(2)
    assert isinstance(bn, T.nn.modules.batchnorm._BatchNorm)
    assert issubclass(T.nn.modules.loss.MSELoss, T.nn.modules.module.Module)


@each
def test_a_floating_tensor_times_an_integer_tensor_keeps_its_dtype(T):
    """PyTorch's promotion by category: float32 with int64 is float32 (NumPy gives float64),
    among dimensioned tensors and among 0-d ones alone."""
    f, i = T.ones(3, dtype=T.float32), T.tensor([1, 2, 3])
    assert (f * i).dtype == T.float32 and (i - f).dtype == T.float32 and (f + i).tolist() == [2.0, 3.0, 4.0]
    assert (T.tensor(2) * T.tensor(1.5, dtype=T.float32)).dtype == T.float32
    assert (T.ones(2, dtype=T.int32) + T.ones(2, dtype=T.uint8)).dtype == T.int32
    assert (T.ones(2, dtype=T.complex64) * T.ones(2, dtype=T.float64)).dtype == T.complex128
    mask = -1 * (1 - T.zeros(4, dtype=T.int64)[:, None].repeat(1, 3))
    assert (T.nn.functional.one_hot(T.tensor([0, 1, 2, 0]), 3).type(T.float32) * mask).dtype == T.float32


def test_float32_transcendentals_round_as_pytorchs_kernels():
    """Float32 exp, log, tanh, sin, ...: the float64 value rounded to float32 (what PyTorch's
    kernels give for 95-100 % of inputs, where NumPy's float32 kernels give it for 61-93 %);
    tanh's derivative rounded once (PyTorch's fused multiply-add) and sigmoid's in PyTorch's
    order. By hand with NumPy, and bit for bit beside PyTorch where it is installed."""
    import numpy as np
    from engines import ag, torch
    x = np.random.default_rng(0).uniform(-4, 4, 4096).astype(np.float32)
    g = np.random.default_rng(1).uniform(-2, 2, 4096).astype(np.float32)
    for name, np_name in (("exp", "exp"), ("tanh", "tanh"), ("sin", "sin"), ("cosh", "cosh")):
        got = getattr(ag, name)(ag.tensor(x))
        assert got.dtype == ag.float32
        assert (got.numpy() == getattr(np, np_name)(x.astype(np.float64)).astype(np.float32)).all(), name
    t = ag.tensor(x, requires_grad=True)
    y = ag.tanh(t)
    y.backward(ag.tensor(g))
    r = y.detach().numpy().astype(np.float64)
    assert (t.grad.numpy() == g * (1 - r * r).astype(np.float32)).all()
    s = ag.tensor(x, requires_grad=True)
    z = ag.sigmoid(s)
    z.backward(ag.tensor(g))
    zn = z.detach().numpy()
    assert (s.grad.numpy() == (g * (np.float32(1) - zn)) * zn).all()
    if torch is not None:
        for name in ("exp", "tanh", "sigmoid", "cosh"):
            xt = torch.from_numpy(x).requires_grad_()
            getattr(torch, name)(xt).backward(torch.from_numpy(g))
            xe = ag.tensor(x, requires_grad=True)
            getattr(ag, name)(xe).backward(ag.tensor(g))
            assert np.mean(getattr(torch, name)(torch.from_numpy(x)).numpy() == getattr(ag, name)(ag.tensor(x)).numpy()) > 0.95
            assert np.mean(xt.grad.numpy() == xe.grad.numpy()) > 0.95, name


@each
def test_distributed_sampler_without_a_process_group(T):
    """Given num_replicas and rank, each rank reads every num_replicas-th index of one order,
    padded to a multiple of num_replicas; without them, PyTorch's error (no process group)."""
    distributed = importlib.import_module(T.__name__ + ".utils.data.distributed")
    data = list(range(10))
    plain = [list(distributed.DistributedSampler(data, num_replicas=3, rank=r, shuffle=False)) for r in range(3)]
    assert plain == [[0, 3, 6, 9], [1, 4, 7, 0], [2, 5, 8, 1]]             # 0..9 then 0, 1 as padding
    shuffled = [list(distributed.DistributedSampler(data, num_replicas=3, rank=r, seed=4)) for r in range(3)]
    order = [shuffled[i % 3][i // 3] for i in range(12)]                        # the one order they share
    assert sorted(order[:10]) == data and order[10:] == order[:2]
    trimmed = distributed.DistributedSampler(data, num_replicas=3, rank=2, shuffle=False, drop_last=True)
    assert list(trimmed) == [2, 5, 8] and len(trimmed) == 3
    with pytest.raises(ValueError, match="Default process group has not been initialized"):
        distributed.DistributedSampler(data)
    assert T.utils.data.DistributedSampler is distributed.DistributedSampler
