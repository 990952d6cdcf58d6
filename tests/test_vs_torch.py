"""Differential tests against PyTorch itself (skipped cleanly when torch is not installed).

Random programs over the op set run on both engines from the same inputs: values must agree
to 1e-12 and gradients (first and second order) to 1e-10, relative. The spec's error cases
must raise the same exception class with the same message."""

import numpy as np
import pytest

from diffcompare import autograd as ag

from op_catalogue import CASES

torch = pytest.importorskip("torch")

RTOL_VALUE, RTOL_GRAD, ATOL = 1e-12, 1e-10, 1e-12


def to_torch(t):
    return torch.tensor(t.detach().numpy(), dtype=torch.float64, requires_grad=True)


class TorchAsAg:
    """The catalogue's spelling of each op, in torch."""

    def __getattr__(self, name):
        return {"softplus": torch.nn.functional.softplus}.get(name) or getattr(torch, name)


TORCH = TorchAsAg()


def assert_close(a, b, rtol):
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape
    np.testing.assert_allclose(a, b, rtol=rtol, atol=ATOL, equal_nan=True)
    assert np.array_equal(np.isinf(a) & (a > 0), np.isinf(b) & (b > 0))


TORCH_INCOMPATIBLE = {"index_bool_mask"}   # a bool tensor index is spelled alike but means something else in torch


@pytest.mark.filterwarnings("ignore:The use of `x.T`:UserWarning")
@pytest.mark.parametrize("case", [c for c in CASES if c.name not in TORCH_INCOMPATIBLE], ids=str)
def test_catalogue_values_and_gradients(case):
    inputs = case.inputs(7)
    t_inputs = [to_torch(t) for t in inputs]
    out = case.fn(ag, *inputs)
    t_out = case.fn(TORCH, *t_inputs)
    assert_close(out.detach().numpy(), t_out.detach().numpy(), RTOL_VALUE)
    seed = np.random.default_rng(1).uniform(-1, 1, out.shape)
    grads = ag.grad(out, inputs, ag.tensor(seed), create_graph=case.twice, allow_unused=True)
    t_grads = torch.autograd.grad(t_out, t_inputs, torch.tensor(seed), create_graph=case.twice, allow_unused=True)
    for g, tg in zip(grads, t_grads):
        assert (g is None) == (tg is None)
        if g is not None:
            assert_close(g.detach().numpy(), tg.detach().numpy(), RTOL_GRAD)
    if case.twice:   # second order: differentiate the VJP once more
        total = sum((g * g).sum() for g in grads if g is not None and g.requires_grad)
        t_total = sum((g * g).sum() for g in t_grads if g is not None and g.requires_grad)
        if isinstance(total, ag.Tensor):
            second = ag.grad(total, inputs, allow_unused=True)
            t_second = torch.autograd.grad(t_total, t_inputs, allow_unused=True)
            for g, tg in zip(second, t_second):
                if g is not None and tg is not None:
                    assert_close(g.numpy(), tg.numpy(), 1e-9)


UNARY = ["exp", "sin", "cos", "tanh", "sigmoid", "atan", "sinh", "softplus_", "square", "neg", "abs"]
BINARY = ["add", "sub", "mul", "div", "maximum"]
REDUCE = ["sum", "mean", "amax", "logsumexp", "norm"]


def _apply(lib, name, *args):
    if name == "softplus_":
        return (torch.nn.functional.softplus if lib is torch else ag.softplus)(args[0])
    if name == "neg":
        return -args[0]
    if name == "div":
        return args[0] / (args[1].abs() + 0.5)
    if name in ("add", "sub", "mul"):
        return {"add": args[0] + args[1], "sub": args[0] - args[1], "mul": args[0] * args[1]}[name]
    if name == "logsumexp":
        return args[0].logsumexp(0)
    if name == "amax":
        return args[0].amax(0)
    if name == "norm":
        return args[0].norm(dim=0)
    return getattr(lib, name)(*args)


def random_program(rng, depth):
    """A random expression tree over two inputs x (3, 4) and y (4,), as nested tuples."""
    if depth == 0:
        return ("x",) if rng.random() < 0.6 else ("y",)
    kind = rng.random()
    if kind < 0.45:
        return ("unary", str(rng.choice(UNARY)), random_program(rng, depth - 1))
    if kind < 0.9:
        return ("binary", str(rng.choice(BINARY)), random_program(rng, depth - 1), random_program(rng, depth - 1))
    return ("reduce", str(rng.choice(REDUCE)), random_program(rng, depth - 1))


def evaluate(lib, program, env):
    head = program[0]
    if head in env:
        return env[head]
    if head == "unary":
        return _apply(lib, program[1], evaluate(lib, program[2], env))
    if head == "reduce":
        value = evaluate(lib, program[2], env)
        return _apply(lib, program[1], value) if value.ndim else value
    return _apply(lib, program[1], evaluate(lib, program[2], env), evaluate(lib, program[3], env))


@pytest.mark.parametrize("seed", range(40))
def test_random_programs(seed):
    rng = np.random.default_rng(seed)
    program = random_program(rng, int(rng.integers(1, 5)))
    xv, yv = rng.uniform(-1.5, 1.5, (3, 4)), rng.uniform(-1.5, 1.5, 4)
    x, y = ag.tensor(xv, requires_grad=True), ag.tensor(yv, requires_grad=True)
    tx, ty = (torch.tensor(v, requires_grad=True) for v in (xv, yv))
    out = evaluate(ag, program, {"x": x, "y": y})
    t_out = evaluate(torch, program, {"x": tx, "y": ty})
    assert_close(out.detach().numpy(), t_out.detach().numpy(), RTOL_VALUE)
    if not out.requires_grad:
        return
    loss, t_loss = (out * out).sum(), (t_out * t_out).sum()
    grads = ag.grad(loss, [x, y], create_graph=True, allow_unused=True)
    t_grads = torch.autograd.grad(t_loss, [tx, ty], create_graph=True, allow_unused=True)
    for g, tg in zip(grads, t_grads):
        assert (g is None) == (tg is None)
        if g is not None:
            assert_close(g.detach().numpy(), tg.detach().numpy(), RTOL_GRAD)
    used = [(g, tg, v, tv) for g, tg, v, tv in zip(grads, t_grads, (x, y), (tx, ty)) if g is not None]
    if used and all(g.requires_grad for g, *_ in used):
        h = ag.grad(sum(g.sum() for g, *_ in used), [v for *_, v, _ in used], allow_unused=True)
        th = torch.autograd.grad(sum(g.sum() for _, g, *_ in used), [tv for *_, tv in used], allow_unused=True)
        for a, b in zip(h, th):
            if a is not None and b is not None:
                assert_close(a.numpy(), b.numpy(), 1e-9)


ERROR_CASES = [
    "y = T.tensor([1., 2., 3.], requires_grad=True) * 2; y.backward()",
    "x = T.tensor([1., 2., 3.], requires_grad=True); (x * 2).backward(T.ones(4))",
    "x = T.tensor([1., 2.], requires_grad=True); y = (x * 2).sum(); y.backward(); y.backward()",
    "x = T.tensor([1., 2.], requires_grad=True); (x * 2).sum().backward(inputs=[])",
    "(T.tensor([1., 2.]) * 2).sum().backward()",
    "x = T.tensor([1.], requires_grad=True); w = T.tensor([1.], requires_grad=True); T.autograd.grad((x * 2).sum(), [x, w])",
    "x = T.tensor([1.], requires_grad=True); T.autograd.grad((x * 2).sum(), [x], materialize_grads=True, allow_unused=False)",
    "x = T.tensor([1.], requires_grad=True); T.autograd.grad((x * 2).sum(), [])",
    "x = T.tensor([1.], requires_grad=True); T.autograd.grad((x * 2).sum(), [T.tensor([1.])])",
    "y = T.tensor([1., 2.], requires_grad=True) * 2; y.requires_grad_(False)",
    "T.tensor([1., 2.]).retain_grad()",
    "T.tensor([1., 2.]).register_hook(lambda g: g)",
    "w = T.tensor([1., 2.], requires_grad=True); w.add_(1)",
    "w = T.tensor([1., 2.], requires_grad=True); w[0] = 5.",
    "x = T.tensor([1., 2.], requires_grad=True); T.autograd.backward([(x * 2).sum(), x.sum()], grad_tensors=[T.tensor(1.)])",
    "x = T.tensor([1., 2.], requires_grad=True); x.numpy()",
    "x = T.tensor([1., 2.], requires_grad=True); y = x * 1; y += T.ones(3, 2)",
]


def _outcome(lib, code):
    try:
        exec(code, {"T": lib})
    except Exception as error:  # noqa: BLE001 - the class is what is compared
        return type(error).__name__, str(error).split(" (Triggered internally")[0]
    return None


@pytest.mark.parametrize("code", ERROR_CASES)
def test_errors_match_pytorch(code):
    torch_outcome, ours = _outcome(torch, code), _outcome(ag, code)
    assert torch_outcome is not None and ours is not None
    assert ours[0] == torch_outcome[0]
    assert ours[1] == torch_outcome[1].replace("torch.Size", "Size")


def test_inplace_error_names_the_same_producer():
    code = "x = T.tensor([1., 2.], requires_grad=True); y = x.exp(); y.add_(1); y.sum().backward()"
    torch_outcome, ours = _outcome(torch, code), _outcome(ag, code)
    prefix = "one of the variables needed for gradient computation has been modified by an inplace operation"
    assert torch_outcome[1].startswith(prefix) and ours[1].startswith(prefix)
    assert "is at version 1; expected version 0 instead" in ours[1]


@pytest.mark.filterwarnings("ignore::FutureWarning")
def test_gradcheck_numerical_jacobian_matches_torch():
    from torch.autograd.gradcheck import get_numerical_jacobian
    from diffcompare.autograd.gradcheck import numerical_jacobian

    xv = np.array([[0.3, -1.2], [0.7, 2.0], [1.1, -0.4]])
    x, tx = ag.tensor(xv, requires_grad=True), torch.tensor(xv, requires_grad=True)
    ours = numerical_jacobian(lambda t: (t.sin() * t.sum()).reshape(3, 2) ** 2, (x,))[0][0]
    theirs = get_numerical_jacobian(lambda inp: (inp[0].sin() * inp[0].sum()).reshape(3, 2) ** 2, (tx,),
                                    eps=1e-6)[0].numpy()
    np.testing.assert_allclose(ours, theirs, atol=1e-8)
