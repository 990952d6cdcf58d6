"""``diffcompare.autograd.func`` against PyTorch 2.13's ``torch.func``: small versions of the
cells of PyTorch's tutorials "Per-sample gradients", "Jacobians, Hessians, hvp, vhp, and
more" and "Neural Tangent Kernels", written once and run with each library (the import
renamed), compared to 1e-10 in float64; and the transforms' errors."""

from __future__ import annotations

import functools

import numpy as np
import pytest

from diffcompare import autograd as ag

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(29)
SHAPES = {"0.weight": (5, 3), "0.bias": (5,), "2.weight": (2, 5), "2.bias": (2,)}
PARAMS = {k: RNG.standard_normal(s) for k, s in SHAPES.items()}
X, Y = RNG.standard_normal((4, 3)), np.array([0, 1, 1, 0])
W, B, XV = RNG.standard_normal((3, 3)), RNG.standard_normal(3), RNG.standard_normal(3)


def both(cell):
    """Run ``cell(lib)`` with the engine and with torch; compare every tensor leaf."""
    mine, theirs = cell(ag), cell(torch)
    mine_leaves, mine_spec = _flatten(mine)
    theirs_leaves, theirs_spec = _flatten(theirs)
    assert mine_spec == theirs_spec
    for m, t in zip(mine_leaves, theirs_leaves):
        if isinstance(t, torch.Tensor):
            assert tuple(m.shape) == tuple(t.shape)
            assert m.requires_grad == t.requires_grad
            np.testing.assert_allclose(m.detach().numpy(), t.detach().numpy(), rtol=1e-10, atol=1e-12)
        else:
            assert m == t


def _flatten(tree):
    if isinstance(tree, dict):
        parts = [_flatten(v) for v in tree.values()]
        return [leaf for p in parts for leaf in p[0]], ("dict", list(tree), [p[1] for p in parts])
    if isinstance(tree, (tuple, list)):
        parts = [_flatten(v) for v in tree]
        return [leaf for p in parts for leaf in p[0]], (type(tree).__name__, [p[1] for p in parts])
    return [tree], "*"


def t(lib, array, **kw):
    return lib.tensor(array, dtype=lib.float64, **kw)


def net(lib):
    return lib.nn.Sequential(lib.nn.Linear(3, 5), lib.nn.Tanh(), lib.nn.Linear(5, 2))


def params(lib):
    return {k: t(lib, v) for k, v in PARAMS.items()}


# --- Per-sample gradients ------------------------------------------------------------------

def per_sample_grads(lib):
    from_func = lib.func
    model = net(lib)

    def compute_loss(params, sample, target):
        batch = sample.unsqueeze(0)
        targets = target.unsqueeze(0)
        predictions = from_func.functional_call(model, params, (batch,))
        return lib.nn.functional.cross_entropy(predictions, targets)

    ft_compute_grad = from_func.grad(compute_loss)
    ft_compute_sample_grad = from_func.vmap(ft_compute_grad, in_dims=(None, 0, 0))
    return ft_compute_sample_grad(params(lib), t(lib, X), lib.tensor(Y))


def test_per_sample_gradients():
    both(per_sample_grads)


def test_per_sample_gradients_equal_the_loop_of_backward_calls():
    grads = per_sample_grads(ag)
    model = net(ag)
    for i in range(len(X)):
        ps = params(ag)
        for p in ps.values():
            p.requires_grad_()
        out = ag.func.functional_call(model, ps, (t(ag, X[i:i + 1]),))
        ag.nn.functional.cross_entropy(out, ag.tensor(Y[i:i + 1])).backward()
        for k, p in ps.items():
            np.testing.assert_allclose(grads[k][i].numpy(), p.grad.numpy(), rtol=1e-12)


# --- Jacobians, Hessians, hvp, vhp ---------------------------------------------------------

def predict(weight, bias, x):
    return (x @ weight.T + bias).tanh()


def jacobians(lib):
    f = lib.func
    weight, bias, x = t(lib, W), t(lib, B), t(lib, XV)
    _, vjp_fn = f.vjp(functools.partial(predict, weight, bias), x)
    unit_vectors = lib.eye(3, dtype=lib.float64)
    (ft_jacobian,) = f.vmap(vjp_fn)(unit_vectors)
    return {
        "vmap_vjp": ft_jacobian,
        "jacrev": f.jacrev(predict, argnums=2)(weight, bias, x),
        "jacfwd": f.jacfwd(predict, argnums=2)(weight, bias, x),
        "jacrev_01": f.jacrev(predict, argnums=(0, 1))(weight, bias, x),
        "jacfwd_01": f.jacfwd(predict, argnums=(0, 1))(weight, bias, x),
    }


def hessians(lib):
    f = lib.func
    weight, bias, x = t(lib, W), t(lib, B), t(lib, XV)
    return {
        "hessian": f.hessian(predict, argnums=2)(weight, bias, x),
        "fwdfwd": f.jacfwd(f.jacfwd(predict, argnums=2), argnums=2)(weight, bias, x),
        "revrev": f.jacrev(f.jacrev(predict, argnums=2), argnums=2)(weight, bias, x),
        "revfwd": f.jacrev(f.jacfwd(predict, argnums=2), argnums=2)(weight, bias, x),
    }


def batch_jacobians(lib):
    f = lib.func
    weight, bias, xs = t(lib, W), t(lib, B), t(lib, X)
    compute_batch_jacobian = f.vmap(f.jacrev(predict, argnums=2), in_dims=(None, None, 0))
    compute_batch_hessian = f.vmap(f.hessian(predict, argnums=2), in_dims=(None, None, 0))

    def predict_with_output_summed(weight, bias, x):
        return predict(weight, bias, x).sum(0)
    return (compute_batch_jacobian(weight, bias, xs), compute_batch_hessian(weight, bias, xs),
            f.jacrev(predict_with_output_summed, argnums=2)(weight, bias, xs).permute(1, 0, 2))


def hvp_vhp(lib):
    f = lib.func

    def fn(x):
        return x.sin().sum()

    def hvp(fn, primals, tangents):
        return f.jvp(f.grad(fn), primals, tangents)[1]

    def vhp(fn, x, v):
        return f.vjp(f.grad(fn), x)[1](v)

    def hvp_revrev(fn, primals, tangents):
        _, vjp_fn = f.vjp(f.grad(fn), *primals)
        return vjp_fn(*tangents)

    x, tangent = t(lib, XV), t(lib, [1.0, -2.0, 0.5])
    return hvp(fn, (x,), (tangent,)), vhp(fn, x, tangent), hvp_revrev(fn, (x,), (tangent,))


@pytest.mark.parametrize("cell", [jacobians, hessians, batch_jacobians, hvp_vhp])
def test_jacobians_hessians_hvp_vhp(cell):
    both(cell)


def test_hessian_by_hand():
    h = ag.func.hessian(lambda x: (x[0] ** 2 * x[1]).exp())(ag.tensor([0.5, -1.0]))
    a, b = 0.5, -1.0
    e = np.exp(a * a * b)
    want = np.array([[e * (2 * b + (2 * a * b) ** 2), e * (2 * a + 2 * a * b * a * a)],
                     [e * (2 * a + 2 * a * b * a * a), e * a ** 4]])
    np.testing.assert_allclose(h.numpy(), want, rtol=1e-14)


# --- Neural tangent kernels ----------------------------------------------------------------

def ntk(lib):
    f = lib.func
    model = net(lib)
    ps = params(lib)
    x1, x2 = t(lib, X[:3]), t(lib, X[1:])

    def fnet_single(params, x):
        return f.functional_call(model, params, (x.unsqueeze(0),)).squeeze(0)

    def empirical_ntk_jacobian_contraction(fnet_single, params, x1, x2):
        jac1 = f.vmap(f.jacrev(fnet_single), (None, 0))(params, x1)
        jac1 = [j.flatten(2) for j in jac1.values()]
        jac2 = f.vmap(f.jacrev(fnet_single), (None, 0))(params, x2)
        jac2 = [j.flatten(2) for j in jac2.values()]
        total = 0
        for j1, j2 in zip(jac1, jac2):      # einsum('Naf,Mbf->NMab')
            n, a, k = j1.shape
            m, b, _ = j2.shape
            total = total + (j1.reshape(n * a, k) @ j2.reshape(m * b, k).T).reshape(n, a, m, b).permute(0, 2, 1, 3)
        return total

    def empirical_ntk_ntk_vps(func, params, x1, x2):
        def get_ntk(x1, x2):
            def func_x1(params):
                return func(params, x1)

            def func_x2(params):
                return func(params, x2)

            output, vjp_fn = f.vjp(func_x1, params)

            def get_ntk_slice(vec):
                vjps = vjp_fn(vec)
                _, jvps = f.jvp(func_x2, (params,), vjps)
                return jvps
            basis = lib.eye(output.numel(), dtype=output.dtype).view(output.numel(), -1)
            return f.vmap(get_ntk_slice)(basis)
        return f.vmap(f.vmap(get_ntk, (None, 0)), (0, None))(x1, x2)

    return (empirical_ntk_jacobian_contraction(fnet_single, ps, x1, x2),
            empirical_ntk_ntk_vps(fnet_single, ps, x1, x2))


def test_neural_tangent_kernels():
    both(ntk)


# --- the transforms' other behaviour ---------------------------------------------------------

def pytrees_and_aux(lib):
    f = lib.func
    x, y = t(lib, XV), t(lib, W)

    def loss(p, scale):
        out = (p["w"] @ p["b"][0]).sin().sum() * scale
        return out, {"out": out, "n": [scale * p["b"][0]]}
    p = {"w": y, "b": [x]}
    return (f.grad(loss, has_aux=True)(p, 2.0),
            f.grad_and_value(loss, has_aux=True)(p, 2.0),
            f.grad(lambda a, b: (a * b).sum(), argnums=(1, 0))(x, x.exp()),
            f.jacrev(lambda a: {"s": a.sin(), "q": (a ** 2).sum()})(x),
            f.jacfwd(lambda a: {"s": a.sin(), "q": (a ** 2).sum()})(x),
            f.jvp(lambda a, b: (a * b, a.sum()), (x, x.cos()), (x.sin(), x), has_aux=False),
            f.jvp(lambda a: (a.exp(), a.sum()), (x,), (x.sin(),), has_aux=True),
            f.vjp(lambda a: (a.exp(), a.sum()), x, has_aux=True)[2],
            f.vmap(lambda a, b: {"p": a * b, "s": a.sum()}, in_dims=(1, None), out_dims={"p": 1, "s": 0})(y, x),
            f.vmap(f.vmap(lambda a, b: a * b), in_dims=(0, None))(y, y),
            f.grad(f.grad(lambda a: a.sin() * a))(t(lib, 0.7)))


def differentiable_results(lib):
    """Where the inputs or a captured tensor require grad, the results are differentiable
    (and not otherwise), as in PyTorch."""
    f = lib.func
    w = t(lib, XV, requires_grad=True)
    x = t(lib, [0.3, -0.2, 0.9], requires_grad=True)
    g_closure = f.grad(lambda a: (a * w).sin().sum())(t(lib, XV))
    g_input = f.grad(lambda a: (a ** 3).sum())(x)
    plain = f.grad(lambda a: (a ** 3).sum())(x.detach())
    out, tangent = f.jvp(lambda a: a.exp() * w, (x,), (t(lib, [1.0, 0.0, 2.0]),))
    grads = lib.autograd.grad((g_closure * g_input).sum() + tangent.sum(), (w, x))
    return g_closure, g_input, plain, out, tangent, grads


@pytest.mark.parametrize("cell", [pytrees_and_aux, differentiable_results])
def test_pytrees_aux_and_differentiable_results(cell):
    both(cell)


def test_functional_call_restores_the_module():
    model = net(ag)
    before = {k: v.detach().numpy().copy() for k, v in model.named_parameters()}
    out = ag.func.functional_call(model, (dict(list(params(ag).items())[:2]), dict(list(params(ag).items())[2:])),
                                  t(ag, X))
    theirs = torch.func.functional_call(net(torch), params(torch), t(torch, X))
    np.testing.assert_allclose(out.numpy(), theirs.detach().numpy(), rtol=1e-12)
    after = dict(model.named_parameters())
    assert all(isinstance(p, ag.nn.Parameter) for p in after.values())
    for k, v in before.items():
        np.testing.assert_array_equal(after[k].detach().numpy(), v)
    with pytest.raises(RuntimeError, match="Missing key\\(s\\): '2.bias'"):
        ag.func.functional_call(model, {k: v for k, v in params(ag).items() if k != "2.bias"}, t(ag, X),
                                strict=True)


def errors(lib):
    f = lib.func
    cases = [lambda: f.grad(lambda x: x * 2)(t(lib, XV)),
             lambda: f.grad(lambda x: (x.sum(), 1))(t(lib, XV)),
             lambda: f.grad(lambda x: x.sum(), has_aux=True)(t(lib, XV)),
             lambda: f.grad(lambda x: x.sum(), argnums=1)(t(lib, XV)),
             lambda: f.grad(lambda x: (x.sum(), 3), has_aux=True)(t(lib, XV)),
             lambda: f.vmap(lambda x, y: x + y)(t(lib, X), t(lib, XV)),
             lambda: f.vmap(lambda x: 1.0)(t(lib, X)),
             lambda: f.vmap(lambda x: x, in_dims=None)(t(lib, X)),
             lambda: f.vmap(lambda x: x, in_dims=(0, 0))(t(lib, X)),
             lambda: f.jvp(lambda x: x, t(lib, XV), (t(lib, XV),)),
             lambda: f.vjp(lambda x: x.sin(), t(lib, XV))[1](t(lib, X))]
    seen = []
    for case in cases:
        with pytest.raises(Exception) as info:
            case()
        seen.append((type(info.value).__name__, str(info.value).split("\n")[0].replace("torch.Size", "Size")))
    return seen


def test_errors_are_pytorchs():
    assert errors(ag) == errors(torch)


def test_import_renaming():
    import diffcompare.autograd as renamed
    from diffcompare.autograd.func import grad
    from diffcompare.autograd.functorch import vmap
    assert renamed.func.grad is grad and renamed.vmap is vmap is renamed.func.vmap
    assert float(renamed.func.grad(lambda x: x ** 3)(renamed.tensor(2.0))) == 12.0
