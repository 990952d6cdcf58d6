"""Behaviours that PyTorch issue threads and course notebooks lean on: a fill value that is a
tensor gets a gradient (MaskedFillBackward1, IndexFillBackward1), complex acosh's branch, a
node's ``metadata`` kept, a hook that removes itself, forward hooks ``with_kwargs``,
``torch.norm_except_dim``, and vector @ matrix recorded as unsqueeze, mm, squeeze. Values by
hand (or by central differences), then beside PyTorch where it is installed."""

from __future__ import annotations

import cmath

import numpy as np
import pytest

from diffcompare import autograd as ag


def _torch():
    return pytest.importorskip("torch")


# -- by hand ----------------------------------------------------------------------------------

def test_a_tensor_fill_value_gets_the_gradient_of_the_places_it_fills():
    x = ag.ones(2, 3, requires_grad=True)
    value = ag.tensor(2.0, requires_grad=True)
    weights = ag.arange(6.0).reshape(2, 3)
    y = x.masked_fill(ag.tensor([True, False, True]), value)
    assert y.grad_fn.name() == "MaskedFillBackward1" and y.tolist() == [[2.0, 1.0, 2.0]] * 2
    (y * weights).sum().backward()
    assert value.grad.item() == 0 + 2 + 3 + 5 and x.grad.tolist() == [[0.0, 1.0, 0.0], [0.0, 4.0, 0.0]]
    value.grad = None
    z = x.index_fill(1, ag.tensor([0, 0, 2]), value)          # column 0 named twice: filled, and counted, once
    assert z.grad_fn.name() == "IndexFillBackward1"
    (z * weights).sum().backward()
    assert value.grad.item() == 0 + 2 + 3 + 5
    with pytest.raises(RuntimeError, match="masked_fill_ only supports a 0-dimensional value tensor"):
        x.masked_fill(ag.tensor([True, False, True]), ag.ones(1))


def test_complex_acosh_gradient_is_the_derivative_on_its_branch():
    """At Re z < 0, 1/sqrt(z^2 - 1) is the negative of acosh'(z); the gradient (PyTorch's
    convention: conj of the derivative, for a real loss's Re part) agrees with central
    differences of cmath.acosh."""
    points = [0.3 + 0.4j, -1.2 + 0.1j, -3.0 - 2.0j]
    z = ag.tensor(points, requires_grad=True)
    ag.acosh(z).real.sum().backward()
    h = 1e-6
    for got, p in zip(z.grad.tolist(), points):
        derivative = (cmath.acosh(p + h) - cmath.acosh(p - h)) / (2 * h)
        assert abs(got - derivative.conjugate()) < 1e-8


def test_node_metadata_is_kept_and_a_hook_may_remove_itself():
    out = ag.nn.Linear(2, 2)(ag.ones(1, 2))
    out.grad_fn.metadata["module"] = "kept"
    assert out.grad_fn.metadata == {"module": "kept"}
    w = ag.ones(2, requires_grad=True)
    handle = []

    def once(grad):
        handle[0].remove()
        return grad * 2
    handle.append(w.register_hook(once))
    (w * 3).sum().backward()
    (w * 3).sum().backward()                                   # the hook is gone: 6 + 3
    assert w.grad.tolist() == [9.0, 9.0]


def test_forward_hooks_with_kwargs_and_prepend():
    calls = []

    class Scale(ag.nn.Module):
        def forward(self, x, factor=1.0):
            return x * factor

    m = Scale()
    m.register_forward_pre_hook(lambda mod, args, kwargs: (args, {**kwargs, "factor": 3.0}), with_kwargs=True)
    m.register_forward_hook(lambda mod, args, kwargs, out: calls.append(("kw", kwargs["factor"])) or out + 1,
                            with_kwargs=True)
    m.register_forward_hook(lambda mod, args, out: calls.append("first"), prepend=True)
    assert m(ag.tensor([2.0]), factor=5.0).tolist() == [7.0]
    assert calls == ["first", ("kw", 3.0)]
    m2 = Scale()
    m2.register_forward_pre_hook(lambda mod, args, kwargs: args, with_kwargs=True)
    with pytest.raises(RuntimeError, match=r"forward pre-hook must return None or a tuple of \(new_args, new_kwargs\)"):
        m2(ag.tensor([1.0]))


def test_norm_except_dim_by_hand():
    v = ag.arange(6.0).reshape(2, 3)                           # rows (0, 1, 2), (3, 4, 5)
    np.testing.assert_allclose(ag.norm_except_dim(v, 2, 0).numpy(), [[5 ** 0.5], [50 ** 0.5]], rtol=1e-15)
    np.testing.assert_allclose(ag.norm_except_dim(v, 2, 1).numpy(), [[3.0, 17 ** 0.5, 29 ** 0.5]], rtol=1e-15)
    np.testing.assert_allclose(float(ag.norm_except_dim(v, 2, -1)), 55 ** 0.5, rtol=1e-15)


def test_vector_times_matrix_records_unsqueeze_mm_squeeze():
    v, A = ag.ones(3, requires_grad=True), ag.ones(3, 4, requires_grad=True)
    y = v @ A
    chain, fn = [], y.grad_fn
    while fn is not None:
        chain.append(fn.name())
        fn = fn.next_functions[0][0] if fn.next_functions else None
    assert chain == ["SqueezeBackward4", "MmBackward0", "UnsqueezeBackward0", "torch::autograd::AccumulateGrad"]
    (y * ag.arange(4.0)).sum().backward()
    assert v.grad.tolist() == [6.0, 6.0, 6.0] and A.grad.tolist() == [[0.0, 1.0, 2.0, 3.0]] * 3


# -- beside PyTorch ----------------------------------------------------------------------------

def _walk(L):
    L.manual_seed(0)
    v = L.ones(3, requires_grad=True)
    A, B = L.ones(3, 4, requires_grad=True), L.ones(4, 2, requires_grad=True)
    loss = L.nn.functional.mse_loss(v @ A @ B, L.zeros(2))
    names, fn = [], loss.grad_fn
    while fn is not None:
        names.append(fn.name())
        fn = fn.next_functions[0][0] if fn.next_functions else None
    loss.backward()
    return names, v.grad.tolist(), A.grad.tolist(), B.grad.tolist()


def test_grad_fn_walks_and_fill_values_as_pytorch():
    torch = _torch()
    assert _walk(ag) == _walk(torch)

    def fills(L):
        x = L.ones(2, 3, dtype=L.float64, requires_grad=True)
        value = L.tensor(2.0, dtype=L.float64, requires_grad=True)
        plain = L.tensor(5.0, dtype=L.float64)
        out = [x.masked_fill(L.tensor([True, False, True]), plain).grad_fn.name(),
               x.index_fill(0, L.tensor([1]), plain).grad_fn.name()]
        y = x.masked_fill(L.tensor([[True, False, False]]), value) + x.index_fill(1, L.tensor([2, 2]), value)
        (y * L.arange(6.0, dtype=L.float64).reshape(2, 3)).sum().backward()
        return out, value.grad.item(), x.grad.tolist()
    assert fills(ag) == fills(torch)


def test_acosh_and_norm_except_dim_as_pytorch():
    torch = _torch()
    points = np.array([0.3 + 0.4j, -1.2 + 0.1j, -3.0 - 2.0j, 2.5 + 0.0j])
    grads = {}
    for L in (ag, torch):
        z = L.tensor(points, dtype=L.complex128, requires_grad=True)
        (L.acosh(z) * L.tensor(np.array([1 + 2j, -0.5j, 3, 1]))).real.sum().backward()
        grads[L] = np.array(z.grad.tolist())
    np.testing.assert_allclose(grads[ag], grads[torch], rtol=1e-14)
    v = np.arange(24.0).reshape(2, 3, 4) - 7
    for dim in (0, 1, 2, -1):
        np.testing.assert_allclose(ag.norm_except_dim(ag.tensor(v), 2, dim).numpy(),
                                   torch.norm_except_dim(torch.tensor(v), 2, dim).numpy(), rtol=1e-14)


def _derivatives_of_a_square(L):
    x = L.tensor([1.0, 2.0], dtype=L.float64, requires_grad=True)
    d1 = L.autograd.grad((x ** 2).sum(), x, create_graph=True)[0]
    d2 = L.autograd.grad(d1.sum(), x, create_graph=True)[0]
    d3 = L.autograd.grad(d2.sum(), x, create_graph=True)[0]
    zero = L.autograd.grad((x ** 0).sum(), x, create_graph=True)[0]
    return [(d.tolist(), d.requires_grad) for d in (d1, d2, d3, zero)]


def test_a_constant_derivative_has_no_history():
    """x**2: 2x, then 2 (through pow's formula, still connected to x), then zeros that do not
    require grad (pow_backward's zeros for exponent 0, as in PyTorch): a fourth derivative
    asked for is PyTorch's error, not a silent zero."""
    assert _derivatives_of_a_square(ag) == [([2.0, 4.0], True), ([2.0, 2.0], True), ([0.0, 0.0], False),
                                            ([0.0, 0.0], False)]
    try:
        import torch
    except ImportError:
        return
    assert _derivatives_of_a_square(torch) == _derivatives_of_a_square(ag)


# -- set_, singular triangular systems, pow on log's branch cut, hooks on other results ------

def test_set_makes_a_tensor_another_handle_on_a_tensor_or_a_storage():
    w = ag.zeros(2, requires_grad=True)
    accumulator = w.expand_as(w).grad_fn.next_functions[0][0]
    source = ag.ones(3)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place"):
        w.set_(source)
    with ag.no_grad():
        assert w.set_(source) is w
    assert w._version == 1 and w.shape == (3,)
    source[0] = 5.0                                   # the memory is shared
    assert w.tolist() == [5.0, 1.0, 1.0]
    assert w.expand_as(w).grad_fn.next_functions[0][0] is not accumulator    # a new accumulator
    (w * 2).sum().backward()
    assert w.grad.tolist() == [2.0, 2.0, 2.0]
    flat = ag.arange(6.0)
    view = ag.empty(0).set_(flat.untyped_storage(), 2, (2, 2), (1, 2))
    assert view.tolist() == [[2.0, 4.0], [3.0, 5.0]]
    assert ag.ones(2).set_().shape == (0,)
    with pytest.raises(RuntimeError, match="Could not set tensor of type float to a tensor of type double"):
        ag.zeros(2).set_(ag.zeros(2, dtype=ag.float32))
    with pytest.raises(RuntimeError, match="out of bounds for storage"):
        ag.empty(0).set_(flat.untyped_storage(), 4, (2, 2))


def test_a_zero_on_a_triangular_diagonal_gives_infinities_not_an_error():
    """Back substitution by hand: x3 = 1/4, x2 = (1 - 1/4)/0 = inf, x1 = (1 - inf - 3/4)/2 = -inf;
    QR of a rank-deficient matrix: its backward divides by R's zero diagonal (no error)."""
    M = ag.tensor([[2.0, 1.0, 3.0], [0.0, 0.0, 1.0], [0.0, 0.0, 4.0]])
    assert ag.linalg.solve_triangular(M, ag.ones(3, 1), upper=True).tolist() == [[-np.inf], [np.inf], [0.25]]
    assert ag.linalg.solve_triangular(M.mT, ag.ones(1, 3), upper=False, left=False).tolist() == \
        [[-np.inf, np.inf, 0.25]]
    A = ag.cat([ag.tensor(np.random.default_rng(0).random((5, 2))), ag.zeros(5, 3)], 1).requires_grad_()
    Q, R = ag.linalg.qr(A)
    (g,) = ag.autograd.grad(Q, A, ag.ones(5, 5))
    assert not np.isfinite(g.numpy()).all()


def test_pow_of_a_negative_real_base_to_complex_exponents_as_pytorchs_formula():
    """(-1)**y = exp(i pi y): d/dy = i pi (-1)**y, d/dx = y (-1)**(y-1); the gradients are the
    conjugates times the incoming gradient, real parts for the real base (PyTorch's
    pow_backward_self and pow_backward_exponent, log(-1) = i pi)."""
    y0 = np.array([0.3 + 0.7j, -1.2 + 0.4j])
    g0 = np.array([1.0 - 0.5j, 0.25 + 2.0j])
    x = ag.tensor([-1.0, -1.0], requires_grad=True)
    y = ag.tensor(y0, requires_grad=True)
    ag.pow(x, y).backward(ag.tensor(g0))
    r = np.exp(1j * np.pi * y0)
    np.testing.assert_allclose(y.grad.numpy(), g0 * np.conj(1j * np.pi * r), rtol=1e-14)
    np.testing.assert_allclose(x.grad.numpy(), (g0 * np.conj(y0 * r / -1.0)).real, rtol=1e-14)


class _Returns(ag.nn.Module):
    def __init__(self, kind):
        super().__init__()
        self.kind = kind

    def forward(self, x):
        return {"dict": lambda: {"x": x * 2}, "list": lambda: [x * 2, x * 3],
                "tuple": lambda: (x * 2, "label", x * 3)}[self.kind]()


def test_full_backward_hooks_see_tensors_and_tuples_only():
    x = ag.ones(3, requires_grad=True)
    seen = []
    for kind in ("dict", "list"):
        module = _Returns(kind)
        module.register_full_backward_hook(lambda m, gi, go: seen.append(kind))
        with pytest.warns(UserWarning, match="module output should be a Tensor or a tuple of Tensors"):
            out = module(x)
        (out["x"] if kind == "dict" else out[0] + out[1]).sum().backward()
    assert seen == [] and x.grad.tolist() == [7.0, 7.0, 7.0]
    module = _Returns("tuple")
    module.register_full_backward_hook(lambda m, gi, go: seen.append(([g.tolist() for g in gi],
                                                                      [g if g is None else g.tolist() for g in go])))
    a, label, b = module(x)
    (a + b).sum().backward()
    assert label == "label" and seen == [([[5.0, 5.0, 5.0]], [[1.0, 1.0, 1.0], None, [1.0, 1.0, 1.0]])]


def _behaviours(L):
    np_rng = np.random.default_rng(3)
    out = {}
    y = L.tensor(np_rng.standard_normal(3) + 1j * np_rng.standard_normal(3), requires_grad=True)
    x = L.tensor(-np.abs(np_rng.standard_normal(3)), requires_grad=True)
    L.pow(x, y).backward(L.tensor(np_rng.standard_normal(3) + 1j * np_rng.standard_normal(3)))
    out["pow"] = (x.grad.tolist(), y.grad.tolist())
    M = L.tensor([[2.0, 1.0, 3.0], [0.0, 0.0, 1.0], [0.0, 0.0, 4.0]], dtype=L.float64)
    out["solve_triangular"] = L.linalg.solve_triangular(M, L.ones(3, 2, dtype=L.float64), upper=True).tolist()
    w = L.zeros(2, dtype=L.float64, requires_grad=True)
    with L.no_grad():
        w.set_(L.ones(3, dtype=L.float64))
    (w * 3).sum().backward()
    out["set_"] = (w.grad.tolist(), w._version)
    calls = []
    module = _Returns("tuple") if L is ag else _torch_returns(L)("tuple")
    module.register_full_backward_hook(lambda m, gi, go: calls.append([g is None for g in go]))
    a, _, b = module(L.ones(2, dtype=L.float64, requires_grad=True))
    (a * b).sum().backward()
    out["hook"] = calls
    return out


def _torch_returns(torch):
    class Returns(torch.nn.Module):
        def __init__(self, kind):
            super().__init__()
            self.kind = kind

        def forward(self, x):
            return (x * 2, "label", x * 3)
    return Returns


def test_set_triangular_pow_and_hooks_as_pytorch():
    torch = _torch()
    mine, theirs = _behaviours(ag), _behaviours(torch)
    assert mine.keys() == theirs.keys()
    np.testing.assert_allclose(np.array(mine["pow"][0]), np.array(theirs["pow"][0]), rtol=1e-13)
    np.testing.assert_allclose(np.array(mine["pow"][1]), np.array(theirs["pow"][1]), rtol=1e-13)
    for key in ("solve_triangular", "set_", "hook"):
        assert mine[key] == theirs[key], key


def _legacy_alias(L):
    x = L.ones(2, dtype=L.float64, requires_grad=True)
    y = x * 2
    a = L.Tensor(y)                  # a view of all of y, its history kept
    (a * a).sum().backward()
    t = L.zeros(2, dtype=L.float64)
    b = L.Tensor(t)
    b[0] = 5.0
    with L.no_grad():
        c = L.Tensor(y)
    return (a.grad_fn.name(), a._base is y, a.is_leaf, x.grad.tolist(), t.tolist(), t._version, b._base is t,
            c.requires_grad, c.grad_fn is None)


def test_the_legacy_constructor_of_a_tensor_is_an_alias_with_its_history():
    """torch.Tensor(y) of y = 2x: d/dx sum(y*y) = 4y = 8 (the graph goes through the alias)."""
    assert _legacy_alias(ag) == ("AliasBackward0", True, False, [8.0, 8.0], [5.0, 0.0], 1, True, True, True)
    try:
        import torch
    except ImportError:
        return
    assert _legacy_alias(torch) == _legacy_alias(ag)


def _subclass_with_its_own_init(L):
    class Scaled(L.Tensor):
        def __init__(self, data):
            super().__init__()                   # no data: the tensor was built from the call's arguments
            self.scale = 2.0

    s = Scaled([1.0, 3.0])
    x = L.ones(3, 2, dtype=L.float64, requires_grad=True)
    t = Scaled(x * 2)
    return type(s).__name__, s.tolist(), s.scale, list(t.shape), t.requires_grad, t.grad_fn.name()


def test_a_subclass_whose_init_takes_no_data_gets_it_from_the_call():
    assert _subclass_with_its_own_init(ag) == ("Scaled", [1.0, 3.0], 2.0, [3, 2], True, "AliasBackward0")
    try:
        import torch
    except ImportError:
        return
    assert _subclass_with_its_own_init(torch) == _subclass_with_its_own_init(ag)


def _forward_over_reverse(L):
    """grad of y = 3 sin(x) with a dual grad_output v + t eps: the VJP is 3 cos(x) v, its tangent
    3 cos(x) t (the VJP is linear in v); with x dual (tangent e1), d/dx sum(x^3) = 3 x^2 has the
    tangent 6 x e1."""
    fw = L.autograd.forward_ad
    x = L.tensor([1.0, 2.0], dtype=L.float64, requires_grad=True)
    out = []
    with fw.dual_level():
        v = fw.make_dual(L.tensor([1.0, 1.0], dtype=L.float64), L.tensor([0.5, 2.0], dtype=L.float64))
        (r,) = L.autograd.grad(x.sin() * 3, x, v)
        out.append((r.tolist(), fw.unpack_dual(r).tangent.tolist(), r.requires_grad))
        xd = fw.make_dual(x, L.tensor([1.0, 0.0], dtype=L.float64))
        (r,) = L.autograd.grad((xd ** 3).sum(), x)
        out.append((r.tolist(), fw.unpack_dual(r).tangent.tolist(), r.requires_grad))
    return out


def test_forward_over_reverse_without_create_graph():
    (r, t, graph), (r3, t3, graph3) = _forward_over_reverse(ag)
    c = np.cos([1.0, 2.0])
    np.testing.assert_allclose(r, 3 * c, rtol=1e-15)
    np.testing.assert_allclose(t, 3 * c * [0.5, 2.0], rtol=1e-15)
    assert (r3, t3, graph, graph3) == ([3.0, 12.0], [6.0, 0.0], False, False)
    try:
        import torch
    except ImportError:
        return
    ours, theirs = _forward_over_reverse(ag), _forward_over_reverse(torch)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a[0], b[0], rtol=1e-14)
        np.testing.assert_allclose(a[1], b[1], rtol=1e-14)
        assert a[2] == b[2]


def test_convolution_results_are_contiguous_as_pytorchs():
    """PyTorch's convolutions give contiguous results: their strides, and the order in which
    a *_like draw fills them."""
    F = ag.nn.functional
    x = ag.ones(2, 4, 6, 6)
    assert F.conv2d(x, ag.ones(8, 1, 3, 3), ag.ones(8), groups=4).stride() == (128, 16, 4, 1)
    assert F.conv1d(ag.ones(2, 4, 6), ag.ones(8, 4, 3)).stride() == (32, 4, 1)
    assert F.conv_transpose2d(x, ag.ones(4, 2, 3, 3), groups=2).stride() == (256, 64, 8, 1)


# -- round 21's issue threads: degenerate reductions, losses, schedulers, saving, flags ---------

def _issue_thread_edges(L):
    import io
    import warnings
    out = {}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        x = L.ones(1, 1, dtype=L.float64, requires_grad=True)
        v = x.var()
        v.backward()
    out["var"] = (repr(v.item()), repr(x.grad.item()), [str(w.message)[:30] for w in caught])
    x = L.tensor([-0.5, 0.0, 0.5, 2.0], dtype=L.float64, requires_grad=True)
    x.norm(p=0.5).backward()
    out["norm p<1"] = [round(g, 12) for g in x.grad.tolist()]
    x = L.tensor([-0.5, 0.0, 0.5, 2.0], dtype=L.float64, requires_grad=True)
    x.norm(p=1.5).backward()
    out["norm 1<p<2"] = [round(g, 12) for g in x.grad.tolist()]
    w = L.tensor(np.arange(12.0).reshape(3, 4) / 7, dtype=L.float64, requires_grad=True)
    loss = L.nn.CrossEntropyLoss()(w, L.tensor([-100, -100, -100]))
    loss.backward()
    out["all ignored"] = (repr(loss.item()), w.grad.tolist())
    m = L.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=L.float64, requires_grad=True)
    n = L.norm(m, p="nuc")
    n.backward()
    out["nuc"] = (round(n.item(), 12), [[round(g, 12) for g in row] for row in m.grad.tolist()])
    buffer = io.BytesIO()
    L.save(L.ones(2, dtype=L.float64, requires_grad=True) * 2, buffer)
    buffer.seek(0)
    loaded = L.load(buffer)
    out["saved non-leaf"] = (loaded.requires_grad, loaded.is_leaf)
    opt = L.optim.SGD([L.ones(1, requires_grad=True)], lr=0.1)
    scheduler = L.optim.lr_scheduler.MultiStepLR(opt, [2, 4])
    buffer = io.BytesIO()
    L.save({"scheduler": scheduler.state_dict()}, buffer)
    buffer.seek(0)
    state = L.load(buffer, weights_only=True)["scheduler"]
    out["scheduler"] = (sorted(state), type(state["milestones"]).__name__)
    with L.backends.mkldnn.flags(enabled=False):
        inside = L.backends.mkldnn.enabled
    out["flags"] = (inside, L.backends.mkldnn.enabled)
    x = L.ones(2, requires_grad=True)
    x.sum().backward()
    del x.grad
    out["del grad"] = x.grad
    out["uninitialized"] = (isinstance(L.nn.Parameter(L.Tensor()), L.nn.parameter.UninitializedParameter),
                            L.nn.parameter.is_lazy(L.nn.parameter.UninitializedParameter()))
    return out


def test_issue_thread_edges_by_hand():
    """var of one element: 0/0 (NaN, warned), its gradient NaN; norm p < 2 at 0: 0, as
    PyTorch's sgn(x)|x|^(p-1); the mean over no target: NaN, its gradient 0; the nuclear norm
    of [[1, 2], [3, 4]]: sqrt(30 + 2*2) (the singular values' sum, sqrt(sum of squares + 2|det|))."""
    out = _issue_thread_edges(ag)
    assert out["var"][:2] == ("nan", "nan") and out["var"][2] == ["var(): degrees of freedom is <"]
    assert out["norm p<1"][1] == 0.0 and out["norm 1<p<2"][1] == 0.0
    assert out["all ignored"] == ("nan", [[0.0] * 4] * 3)
    assert abs(out["nuc"][0] - (30 + 2 * 2) ** 0.5) < 1e-12
    assert out["saved non-leaf"] == (True, True)
    assert "_get_lr_called_within_step" in out["scheduler"][0] and out["scheduler"][1] == "Counter"
    assert out["flags"] == (False, True) and out["del grad"] is None and out["uninitialized"] == (False, True)


def test_issue_thread_edges_as_pytorch():
    torch = _torch()
    assert _issue_thread_edges(ag) == _issue_thread_edges(torch)


# -- round 21's research code: a layer's own reset_parameters, old names, a set .grad ---------

def _research_code(L):
    import warnings
    nn = L.nn

    class Scaled(nn.Linear):
        def reset_parameters(self):               # the constructor calls it instead of the default draws
            nn.init.constant_(self.weight, 0.25)
            if self.bias is not None:
                nn.init.constant_(self.bias, -1.0)
            self.lr_scale = 2.0

    class Zeroed(nn.Conv2d):
        def reset_parameters(self):
            self.weight.data.zero_()
            self.bias.data.fill_(3.0)

    layer, conv = Scaled(3, 2), Zeroed(1, 2, 3)

    class Square(L.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_variables
            return 2 * x * g

    x = L.tensor([1.0, -2.0], dtype=L.float64, requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        Square.apply(x).sum().backward()
    (g,) = L.autograd.grad((x * 3).sum(), x)      # (an expanded gradient: read-only)
    x.grad = g
    (x * x).sum().backward()                      # added to it
    from importlib import import_module
    checkpoint = import_module(L.__name__ + ".utils.checkpoint")
    return (layer.weight.tolist(), layer.bias.tolist(), layer.lr_scale, conv.weight.abs().sum().item(),
            conv.bias.tolist(), [str(w.message) for w in caught if "saved_variables" in str(w.message)],
            x.grad.tolist(), checkpoint.get_device_states(x))


def test_research_code_as_pytorch():
    """Scaled: weight 1/4, bias -1, lr_scale set by its own reset; Zeroed: weight 0, bias 3;
    d/dx sum(x^2) = 2x = [2, -4] through saved_variables; a .grad of 3 plus 2x = [5, -1]."""
    mine = _research_code(ag)
    assert mine == ([[0.25] * 3] * 2, [-1.0, -1.0], 2.0, 0.0, [3.0, 3.0],
                    ["'saved_variables' is deprecated; use 'saved_tensors'"], [5.0, -1.0], ([], []))
    try:
        import torch
    except ImportError:
        return
    assert _research_code(torch) == mine


def _tensordot_out(L):
    a = L.ones(2, 3, dtype=L.float64, requires_grad=True)
    b = L.full((3, 4), 2.0, dtype=L.float64, requires_grad=True)
    c = L.zeros(2, 4, dtype=L.float64)
    returned = L.tensordot(a, b, dims=([1], [0]), out=c)
    c.sum().backward()
    with pytest.raises(RuntimeError, match="functions with out=... arguments don't support automatic"):
        L.mm(a, b, out=L.zeros(2, 4, dtype=L.float64))
    return returned is c, c.grad_fn.name(), c.tolist(), a.grad.tolist(), b.grad.tolist()


def test_tensordot_writes_out_with_a_copy_that_keeps_its_history():
    """PyTorch's tensordot_out is out.copy_(tensordot(a, b)): 6 in every entry, d/da = 4 * 2,
    d/db = 2 * 1 (mm, whose out= has no graph, refuses)."""
    assert _tensordot_out(ag) == (True, "torch::autograd::CopyBackwards", [[6.0] * 4] * 2, [[8.0] * 3] * 2, [[2.0] * 4] * 3)
    try:
        import torch
    except ImportError:
        return
    assert _tensordot_out(torch) == _tensordot_out(ag)
