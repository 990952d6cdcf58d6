"""Module and tensor APIs that training scripts reach for, against PyTorch: full backward
pre-hooks, ``get_parameter``/``get_buffer``, ``half``, ``in``/``reversed``/``complex`` on tensors,
thread counts, and the old import paths (``nn.utils.stateless``, ``autograd.anomaly_mode``,
``utils.hooks``)."""

import importlib
import warnings

import numpy as np
import pytest

from diffcompare import autograd as ag

torch = pytest.importorskip("torch")


def _model(lib):
    m = lib.nn.Sequential(lib.nn.Linear(3, 2), lib.nn.BatchNorm1d(2))
    with lib.no_grad():
        for p in m.parameters():
            p.copy_(lib.arange(p.numel(), dtype=p.dtype).reshape(p.shape) / 7)
    return m


def test_full_backward_pre_hooks_see_and_replace_grad_output(torch_float64):
    def run(lib):
        m, seen = _model(lib), []
        m[0].register_full_backward_pre_hook(lambda mod, go: seen.append(go[0].clone()) or (go[0] * 2,))
        m[0].register_full_backward_hook(lambda mod, gi, go: seen.append(go[0].clone()))
        x = lib.tensor([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]], requires_grad=True)
        m(x).pow(2).sum().backward()
        return [s.numpy() for s in seen], x.grad.numpy(), m[0].weight.grad.numpy()
    (seen, xg, wg), (want_seen, want_xg, want_wg) = run(ag), run(torch)
    for a, t in zip([*seen, xg, wg], [*want_seen, want_xg, want_wg]):
        np.testing.assert_allclose(a, t, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(seen[1], 2 * seen[0])      # the full hook sees the replaced grad_output


def test_get_parameter_and_get_buffer_and_their_errors():
    messages = []
    for lib in (ag, torch):
        m = _model(lib)
        assert m.get_parameter("0.weight") is m[0].weight
        assert m.get_buffer("1.running_mean") is m[1].running_mean
        found = []
        for call in (lambda: m.get_parameter("0.nope"), lambda: m.get_parameter("1.running_mean"),
                     lambda: m.get_buffer("0.weight")):
            with pytest.raises(AttributeError) as error:
                call()
            found.append(str(error.value))
        messages.append(found)
    assert messages[0] == messages[1]


def test_half_casts_parameters_and_buffers():
    for lib in (ag, torch):
        m = _model(lib).half()
        assert [str(p.dtype).replace("torch.", "") for p in m.parameters()] == ["float16"] * 4
        assert str(m[1].running_var.dtype).replace("torch.", "") == "float16"


def test_membership_reversal_and_complex_of_tensors():
    def run(lib):
        x = lib.tensor([[1.0, 2.0], [3.0, 4.0]])
        return (2 in x, 5.0 in x, lib.tensor(3.0) in x, lib.tensor([1.0, 2.0]) in x, complex(lib.tensor(2.5)),
                [r.tolist() for r in reversed(x)], reversed(lib.tensor(1.0)).item())
    assert run(ag) == run(torch)
    for lib in (ag, torch):
        with pytest.raises(RuntimeError, match="Tensor.__contains__ only supports Tensor or scalar"):
            "a" in lib.ones(2)      # noqa: B015


def test_thread_counts_are_kept_and_read_back():
    before = ag.get_num_threads()
    assert before >= 1 and ag.get_num_interop_threads() >= 1
    try:
        ag.set_num_threads(1)
        assert ag.get_num_threads() == 1
    finally:
        ag.set_num_threads(before)
    with pytest.raises(RuntimeError):
        ag.set_num_threads(0)


def test_old_import_paths_still_work():
    stateless = importlib.import_module("diffcompare.autograd.nn.utils.stateless")
    with pytest.warns(FutureWarning, match="use `torch.func.functional_call` instead"):
        out = stateless.functional_call(ag.nn.Linear(1, 1), {"weight": ag.ones(1, 1) * 3, "bias": ag.zeros(1)},
                                        (ag.ones(1),))
    assert out.tolist() == [3.0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        want = torch.nn.utils.stateless.functional_call(torch.nn.Linear(1, 1), {
            "weight": torch.ones(1, 1) * 3, "bias": torch.zeros(1)}, (torch.ones(1),))
    assert want.tolist() == out.tolist()
    anomaly = importlib.import_module("diffcompare.autograd.autograd.anomaly_mode")
    assert anomaly.detect_anomaly is ag.autograd.detect_anomaly
    hooks = importlib.import_module("diffcompare.autograd.utils.hooks")
    assert isinstance(ag.ones(1, requires_grad=True).register_hook(lambda g: g), hooks.RemovableHandle)


def test_optimizer_step_hooks_run_as_pytorchs_do(torch_float64):
    def run(lib):
        # PyTorch's torch.optim does not keep its `optimizer` submodule as an attribute
        registry = importlib.import_module(lib.optim.__name__ + ".optimizer")
        log = []
        w = lib.tensor([1.0, -2.0], requires_grad=True)

        class Stepping(lib.optim.SGD):
            def step(self, closure=None):
                log.append("own step")
                return super().step(closure)

        opt = lib.optim.SGD([w], lr=0.1)
        pre = opt.register_step_pre_hook(lambda o, a, k: log.append(("pre", type(o).__name__, len(a), a[0] is o, dict(k))))
        opt.register_step_post_hook(lambda o, a, k: log.append("post"))
        every = registry.register_optimizer_step_pre_hook(lambda o, a, k: log.append("global pre"))
        sub = Stepping([w], lr=0.1)
        sub.register_step_post_hook(lambda o, a, k: log.append("sub post"))
        (w * w).sum().backward()
        opt.step()
        sub.step()
        pre.remove()
        every.remove()
        opt.step()
        return log, w.tolist()
    assert run(ag) == run(torch)


def test_a_pre_hook_can_replace_the_step_arguments():
    w = ag.tensor([1.0], requires_grad=True)
    opt = ag.optim.SGD([w], lr=0.5)
    calls = []
    opt.register_step_pre_hook(lambda o, a, k: (a, {"closure": lambda: calls.append(1) or ag.tensor(0.0)}))
    (w * 2).sum().backward()
    opt.step()
    assert calls == [1] and w.tolist() == [0.0]       # by hand: 1 - 0.5 * 2
    opt.register_step_pre_hook(lambda o, a, k: "nonsense")
    with pytest.raises(RuntimeError, match="must return None or a tuple of \\(new_args, new_kwargs\\)"):
        opt.step()


@pytest.mark.parametrize("p", [2.0, 1.0, 3.0, 0.5, float("inf")])
def test_pdist_values_gradients_and_node_as_pytorchs(torch_float64, p):
    data = np.random.default_rng(5).standard_normal((5, 3))
    data[3] = data[1]        # a zero distance: PyTorch's gradient there is 0

    def run(lib):
        x = lib.tensor(data, requires_grad=True)
        y = lib.nn.functional.pdist(x, p)
        (y * lib.arange(1.0, 11.0)).sum().backward()
        return y.detach().numpy(), x.grad.numpy(), y.grad_fn.name()
    (y, g, name), (ty, tg, tname) = run(ag), run(torch)
    assert name == tname == "PdistBackward0"
    np.testing.assert_allclose(y, ty, rtol=1e-12)
    np.testing.assert_allclose(g, tg, rtol=1e-10, atol=1e-12)
    if p == 2.0:     # by hand: the upper triangle of the full distance matrix, row by row
        full = np.sqrt(((data[:, None] - data[None]) ** 2).sum(-1))
        np.testing.assert_allclose(y, full[np.triu_indices(5, 1)], rtol=1e-12)


def test_a_function_may_define_vjp_instead_of_backward_but_not_both(torch_float64):
    def run(lib):
        class Triple(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def vjp(ctx, g):
                return g * 3

        class Both(Triple):
            @staticmethod
            def backward(ctx, g):
                return g

            @staticmethod
            def vjp(ctx, g):
                return g

        x = lib.ones(2, requires_grad=True)
        Triple.apply(x).sum().backward()
        y = Both.apply(x)
        with pytest.raises(RuntimeError) as error:
            y.sum().backward()
        return x.grad.tolist(), str(error.value)
    assert run(ag) == run(torch)


def test_apply_and_map_change_entries_in_place_as_pytorchs_do():
    def run(lib):
        t = lib.tensor([1.0, 2.0])
        t.apply_(lambda v: v * 10)
        t.map_(lib.tensor([1.0, 3.0]), lambda a, b: a + b)
        u = lib.tensor([1, 2]).apply_(lambda v: v * 2.7)
        with pytest.raises(RuntimeError) as error:
            lib.ones(1, requires_grad=True).apply_(abs)
        return t.tolist(), u.tolist(), str(error.value)
    assert run(ag) == run(torch)


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam",
                                  "RAdam", "ASGD", "Rprop", "LBFGS"])
def test_an_optimizer_prints_as_pytorchs(name):
    def text(lib):
        w, v = lib.zeros(2, requires_grad=True), lib.zeros(1, requires_grad=True)
        groups = [{"params": [w]}, {"params": [v], "lr": 0.5}] if name != "LBFGS" else [w, v]   # LBFGS: one group
        return str(getattr(lib.optim, name)(groups, lr=0.1))
    assert text(ag) == text(torch)


def test_tensors_inside_a_list_are_entries_as_in_pytorch():
    def run(lib):
        shapes = [tuple(lib.tensor([lib.tensor([1.0]), lib.tensor([2.0])]).shape),
                  tuple(lib.tensor([[lib.tensor([1.0])], [lib.tensor([2.0])]]).shape),
                  tuple(lib.tensor([lib.tensor(1.0), lib.tensor(2.0), 3.0]).shape)]
        dtypes = [str(lib.tensor([lib.tensor(1, dtype=lib.int32), lib.tensor(2, dtype=lib.int32)]).dtype),
                  str(lib.tensor([lib.tensor([1.0], dtype=lib.float32)]).dtype)]
        with pytest.raises(ValueError) as error:
            lib.tensor([lib.tensor([1.0, 2.0]), lib.tensor([2.0, 3.0])])
        return shapes, [d.replace("torch.", "") for d in dtypes], str(error.value)
    assert run(ag) == run(torch)
