"""Scenarios run identically on the engine and on PyTorch; each returns a record (arrays,
None-ness, or an error's class and text) that is compared with the other library's, live
when PyTorch is installed (test_vs_torch.py) or with records PyTorch wrote earlier
(fixtures/torch_reference.json, test_vs_torch_fixtures.py).

Record the fixtures again with:  python tests/autograd/differential.py   (needs torch==2.13.0)
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import numpy as np

from op_catalogue import CASES

FIXTURES = Path(__file__).parent / "fixtures" / "torch_reference.json"
RTOL_VALUE, RTOL_GRAD, RTOL_SECOND, ATOL = 1e-12, 1e-10, 1e-9, 1e-12

# A bool tensor index is spelled alike in both libraries but means a mask only here; torch has no cbrt.
DIFFERENTIAL_CASES = [c for c in CASES if c.name not in ("index_bool_mask", "cbrt")]


def torch_namespace():
    import torch

    class TorchSpelling:
        """The catalogue's spelling of each op, in torch."""

        def __getattr__(self, name):
            return {"softplus": torch.nn.functional.softplus}.get(name) or getattr(torch, name)

    return torch, TorchSpelling()


def _leaf(lib, array):
    return lib.tensor(array, requires_grad=True, dtype=lib.float64)


def _numpy(t):
    if t is None:
        return None
    t = t.detach()
    if getattr(t, "_is_zerotensor", lambda: False)():   # torch's lazily-zero results
        return np.zeros(tuple(t.shape))
    return np.asarray(t.tolist(), dtype=np.float64).reshape(tuple(t.shape))


def catalogue_record(lib, namespace, case):
    """Value, VJP with a fixed seed, and (twice-differentiable ops) the gradient of the VJP's
    squared norm: first and second order in one record."""
    inputs = [_leaf(lib, t.detach().numpy()) for t in case.inputs(7)]
    out = case.fn(namespace, *inputs)
    seed = np.random.default_rng(1).uniform(-1, 1, tuple(out.shape))
    grads = lib.autograd.grad(out, inputs, lib.tensor(seed, dtype=lib.float64), create_graph=case.twice,
                              allow_unused=True)
    record = {"value": _numpy(out), "grads": [_numpy(g) for g in grads], "second": []}
    if case.twice:
        used = [g for g in grads if g is not None and g.requires_grad]
        if used:
            total = sum((g * g).sum() for g in used)
            record["second"] = [_numpy(g) for g in lib.autograd.grad(total, inputs, allow_unused=True)]
    return record


UNARY = ["exp", "sin", "cos", "tanh", "sigmoid", "atan", "sinh", "softplus", "square", "neg", "abs"]
BINARY = ["add", "sub", "mul", "div", "maximum"]
REDUCE = ["sum", "mean", "amax", "logsumexp", "norm"]


def random_program(rng, depth):
    """A random expression tree over x (3, 4) and y (4,), as nested tuples."""
    if depth == 0:
        return ("x",) if rng.random() < 0.6 else ("y",)
    kind = rng.random()
    if kind < 0.45:
        return ("unary", str(rng.choice(UNARY)), random_program(rng, depth - 1))
    if kind < 0.9:
        return ("binary", str(rng.choice(BINARY)), random_program(rng, depth - 1), random_program(rng, depth - 1))
    return ("reduce", str(rng.choice(REDUCE)), random_program(rng, depth - 1))


def _evaluate(namespace, program, env):
    head = program[0]
    if head in env:
        return env[head]
    if head == "unary":
        a = _evaluate(namespace, program[2], env)
        return {"neg": lambda: -a}.get(program[1], lambda: getattr(namespace, program[1])(a))()
    if head == "reduce":
        a = _evaluate(namespace, program[2], env)
        if not a.ndim:
            return a
        return {"logsumexp": lambda: a.logsumexp(0), "amax": lambda: a.amax(0), "norm": lambda: a.norm(dim=0),
                "sum": lambda: a.sum(), "mean": lambda: a.mean()}[program[1]]()
    a, b = _evaluate(namespace, program[2], env), _evaluate(namespace, program[3], env)
    return {"add": lambda: a + b, "sub": lambda: a - b, "mul": lambda: a * b, "div": lambda: a / (b.abs() + 0.5),
            "maximum": lambda: namespace.maximum(a, b)}[program[1]]()


LARGE_PROGRAMS = range(100, 106)   # these run on arrays big enough for the walk's memory-saving paths


def program_record(lib, namespace, seed):
    """A random program's value, the gradient of its squared norm, and of that gradient's sum."""
    rng = np.random.default_rng(seed)
    program = random_program(rng, int(rng.integers(1, 5)))
    rows, cols = (90, 60) if seed in LARGE_PROGRAMS else (3, 4)
    x, y = _leaf(lib, rng.uniform(-1.5, 1.5, (rows, cols))), _leaf(lib, rng.uniform(-1.5, 1.5, cols))
    out = _evaluate(namespace, program, {"x": x, "y": y})
    record = {"value": _numpy(out), "grads": [], "second": []}
    if out.requires_grad:
        grads = lib.autograd.grad((out * out).sum(), [x, y], create_graph=True, allow_unused=True)
        record["grads"] = [_numpy(g) for g in grads]
        used = [(g, v) for g, v in zip(grads, (x, y)) if g is not None]
        if used and all(g.requires_grad for g, _ in used):
            second = lib.autograd.grad(sum(g.sum() for g, _ in used), [v for _, v in used], allow_unused=True)
            record["second"] = [_numpy(g) for g in second]
    return record


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
    "T.tensor([1, 2], requires_grad=True)",
    "T.tensor([1, 2]).requires_grad_()",
    "x = T.tensor([1., 2.], requires_grad=True); x.grad = T.zeros(3)",
    "x = T.tensor([1., 2.], requires_grad=True); y = x * 2; y.register_post_accumulate_grad_hook(lambda t: None)",
    "T.ones(3) + T.ones(4)",
    "T.ones(3, requires_grad=True) * T.ones(2, 1, 4)",
    "T.where(T.ones(3) > 0, T.ones(3), T.ones(4))",
    "T.cat([T.ones(2, 3), T.ones(2, 4)])",
    "T.ones(2, 3).sum(4)",
    "T.ones(2, 3).transpose(0, 5)",
    "T.ones(2, 3).squeeze(7)",
    "T.ones(2, 3).unsqueeze(9)",
    "T.ones(2, 3).softmax(3)",
    "T.ones(3).max(2)",
    "T.ones(2, 3).cumsum(2)",
]


def error_record(lib, code):
    """The exception's class and message (PyTorch's build-location suffix removed)."""
    try:
        exec(code, {"T": lib})   # the scenarios above: fixed test text, never user input
    except Exception as error:  # noqa: BLE001 - the class is part of the record
        message = str(error).split(" (Triggered internally")[0].replace("torch.Size", "Size")
        return {"error": type(error).__name__, "message": message}
    return {"error": None, "message": ""}


def assert_records_match(ours, theirs):
    if "error" in theirs:
        assert ours == theirs
        return
    _close(ours["value"], theirs["value"], RTOL_VALUE)
    for key, rtol in (("grads", RTOL_GRAD), ("second", RTOL_SECOND)):
        assert len(ours[key]) == len(theirs[key]) or key == "second"
        for a, b in zip(ours[key], theirs[key]):
            assert (a is None) == (b is None), f"{key}: None in one library only"
            if a is not None:
                _close(a, b, rtol)


def _close(a, b, rtol):
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape, f"shape {a.shape} != {b.shape}"
    np.testing.assert_allclose(a, b, rtol=rtol, atol=ATOL, equal_nan=True)
    assert np.array_equal(np.isposinf(a), np.isposinf(b)) and np.array_equal(np.isneginf(a), np.isneginf(b))


# --- fixtures: records as JSON, arrays as their exact float64 bytes (base64) -------------------

def _encode(value):
    if value is None:
        return None
    if isinstance(value, np.ndarray):
        raw = np.ascontiguousarray(value, dtype="<f8").tobytes()
        return {"shape": list(value.shape), "f8": base64.b64encode(raw).decode("ascii")}
    if isinstance(value, list):
        return [_encode(v) for v in value]
    if isinstance(value, dict):
        return {k: _encode(v) for k, v in value.items()}
    return value


def _decode(value):
    if isinstance(value, dict) and "f8" in value:
        return np.frombuffer(base64.b64decode(value["f8"]), dtype="<f8").reshape(value["shape"])
    if isinstance(value, list):
        return [_decode(v) for v in value]
    if isinstance(value, dict):
        return {k: _decode(v) for k, v in value.items()}
    return value


def scenario_ids():
    return ([f"catalogue:{c}" for c in DIFFERENTIAL_CASES]
            + [f"program:{seed}" for seed in [*range(40), *LARGE_PROGRAMS]]
            + [f"error:{i}" for i in range(len(ERROR_CASES))])


def run_scenario(scenario, lib, namespace):
    kind, key = scenario.split(":", 1)
    if kind == "catalogue":
        case = next(c for c in DIFFERENTIAL_CASES if str(c) == key)
        return catalogue_record(lib, namespace, case)
    if kind == "program":
        return program_record(lib, namespace, int(key))
    return error_record(lib, ERROR_CASES[int(key)])


def load_fixtures():
    data = json.loads(FIXTURES.read_text())
    return data["torch_version"], {k: _decode(v) for k, v in data["records"].items()}


def record_fixtures():
    import warnings

    torch, namespace = torch_namespace()
    records = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for scenario in scenario_ids():
            records[scenario] = _encode(run_scenario(scenario, torch, namespace))
    FIXTURES.parent.mkdir(exist_ok=True)
    FIXTURES.write_text(json.dumps({"torch_version": torch.__version__, "records": records}, indent=0))
    print(f"{len(records)} records from torch {torch.__version__} written to {FIXTURES}")


if __name__ == "__main__":
    import sys

    sys.path.insert(0, str(Path(__file__).parent))
    record_fixtures()


def tensor_array(t):
    """A tensor of either library (or a number) as float64 NumPy (None stays None)."""
    if t is None:
        return None
    return np.asarray(t.detach().tolist() if hasattr(t, "detach") else t, dtype=np.float64)


def assert_same(mine, theirs, atol=1e-12):
    """The engine's results beside PyTorch's, one by one: None, flags, text, integers and
    lists exactly; numbers and tensors to 1e-10 relative (+ ``atol``), NaN where NaN."""
    assert len(mine) == len(theirs)
    for a, b in zip(mine, theirs):
        if a is None or b is None or isinstance(a, (bool, str, int, list)):
            assert a == b
        else:
            np.testing.assert_allclose(tensor_array(a), tensor_array(b), rtol=1e-10, atol=atol, equal_nan=True)


def on_both(program, engine, torch, atol=1e-12):
    """``program(lib)`` run on the engine and on PyTorch; every result it returns compared."""
    assert_same(program(engine), program(torch), atol)


def leaf(lib, values):
    """A float64 leaf that requires grad, in either library."""
    return lib.tensor(values, dtype=lib.float64, requires_grad=True)
