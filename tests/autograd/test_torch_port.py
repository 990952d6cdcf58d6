"""benchmarks/torch_port.py classifies cells right: a tiny corpus with a cell that agrees (its
random draws the same on both sides), one whose values differ, one that stops at a missing
torch API (named), one blocked by it, one where PyTorch raises too, one out of scope."""

import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import torch_port  # noqa: E402

CORPUS = '''# source: synthetic
# %%
import torch
x = torch.randn(3, requires_grad=True)
(x * x).sum().backward()
# %%
y = torch.tensor(torch.__name__ == "torch", dtype=torch.float64)
# %%
d = torch.lobpcg(torch.diag(torch.arange(1.0, 7.0)), k=1)[0]
# %%
e = [d]
# %%
torch.ones(2) + torch.ones(3)
# %%
import torchvision
'''


def test_a_tiny_corpus_is_classified_cell_by_cell(tmp_path):
    (tmp_path / "demo.py").write_text(CORPUS)
    (corpus_file,) = torch_port.load_corpus(tmp_path)
    result = torch_port.run_file(corpus_file, tmp_path / "demo.py", timeout=60, python=sys.executable)
    verdicts = [(c.verdict, c.api, c.blocked_by) for c in result.cells]
    assert verdicts == [("agree", None, None),
                        ("differ", None, None),
                        ("engine error", "torch.lobpcg", None),
                        ("engine error", None, "torch.lobpcg"),
                        ("torch error", None, None),
                        ("out of scope", None, None)]
    assert result.cells[1].detail.startswith("y: ")
    section = torch_port.report([result])
    assert "**1 of 4 cells in scope run and agree" in section
    assert "| `torch.lobpcg` | 2 | 1 | demo |" in section


def test_the_missing_api_is_named_from_the_exception():
    from diffcompare import autograd as ag
    with pytest.raises(AttributeError) as info:
        ag.no_such_api   # noqa: B018
    assert torch_port.missing_api(info.value) == "torch.no_such_api"
    with pytest.raises(AttributeError) as info:
        ag.tensor([1.0]).no_such_method   # noqa: B018
    assert torch_port.missing_api(info.value) == "torch.Tensor.no_such_method"
    with pytest.raises(TypeError) as info:
        ag.ones(2, no_such_keyword=1)
    assert torch_port.missing_api(info.value) == "torch.ones(no_such_keyword=)"


RANDOM_CORPUS = '''# source: synthetic
# %%
import torch
from torch.utils.data import DataLoader, TensorDataset
# %%
order = [b[0] for b in DataLoader(TensorDataset(torch.arange(8.0)), batch_size=3, shuffle=True)]
g = torch.Generator().manual_seed(4)
drawn = torch.rand(3, generator=g)
u = torch.empty(5).uniform_(-1, 1)
n = torch.zeros(2, 2).normal_(generator=g)
i = torch.empty(3, dtype=torch.int64).random_(0, 100)
'''


def test_random_draws_through_generators_and_loaders_agree(tmp_path):
    # the harness maps the engine's Generators, in-place draws and loader seeds onto PyTorch's
    (tmp_path / "draws.py").write_text(RANDOM_CORPUS)
    (corpus_file,) = torch_port.load_corpus(tmp_path)
    result = torch_port.run_file(corpus_file, tmp_path / "draws.py", timeout=60, python=sys.executable)
    assert [(c.verdict, c.detail) for c in result.cells] == [("agree", ""), ("agree", "")]


FLOAT32_CORPUS = '''# source: synthetic
# %%
import torch
torch.set_default_dtype(torch.float32)
lin = torch.nn.Linear(3, 4)
u = torch.rand(5)
n = torch.randn(2, 3)
e = torch.empty(6).normal_(1.0, 2.0)
'''


def test_float32_draws_agree(tmp_path):
    # under a float32 default the engine draws in float32, as PyTorch does (its float32 and
    # float64 draws differ), and the harness asks PyTorch for the engine's dtype
    (tmp_path / "float32.py").write_text(FLOAT32_CORPUS)
    (corpus_file,) = torch_port.load_corpus(tmp_path)
    result = torch_port.run_file(corpus_file, tmp_path / "float32.py", timeout=60, python=sys.executable)
    assert [(c.verdict, c.detail) for c in result.cells] == [("agree", "")]


FLOAT16_CORPUS = """# source: test
# %%
import torch
import torch.nn as nn
# %%
m = nn.Linear(5, 3, dtype=torch.half)
x = torch.rand(4, dtype=torch.half)
y = torch.empty(3, dtype=torch.half).uniform_(-2, 2)
w = torch.randn(3)
"""


def test_float16_uniform_draws_agree(tmp_path):
    # PyTorch draws a half tensor's uniform values in float, then rounds: so does the engine, so
    # the draws after a float16 layer's initialisation stay in step with PyTorch's
    (tmp_path / "float16.py").write_text(FLOAT16_CORPUS)
    (corpus_file,) = torch_port.load_corpus(tmp_path)
    result = torch_port.run_file(corpus_file, tmp_path / "float16.py", timeout=60, python=sys.executable)
    assert [(c.verdict, c.detail) for c in result.cells] == [("agree", "")] * 2


def test_uninitialised_constructors_become_zeros_on_pytorchs_side():
    """torch.empty and the legacy constructors given sizes read undefined memory on PyTorch's
    side: the cell's own calls become zeros there; a constructor given data is left as it is, and
    so is ``empty()`` with no sizes (a queue's question, not a tensor)."""
    import ast
    source = ("a = torch.Tensor(2, 3)\nb = torch.FloatTensor(4)\nc = torch.Tensor([1, 2])\n"
              "d = torch.LongTensor(n, m)\ne = torch.empty(3)\nf = torch.Tensor(x)\ng = a.new(2, 3)\n"
              "h = a.new([1, 2])\nk = queue.empty()\n")
    tree = torch_port._ZeroEmpty().visit(ast.parse(source))
    assert ast.unparse(tree).splitlines() == [
        "a = torch.zeros(2, 3)", "b = torch.zeros(4, dtype=torch.float32)", "c = torch.Tensor([1, 2])",
        "d = torch.zeros(n, m, dtype=torch.int64)", "e = torch.zeros(3)", "f = torch.Tensor(x)",
        "g = a.new_zeros((2, 3))", "h = a.new([1, 2])",
        "k = queue.empty()"]                       # no sizes: a queue's, a stack's empty(), not a tensor's
    # under a name of the program's: zeros only when the name holds PyTorch's class when it runs
    alias = "Tensor = torch.Tensor\ni = Tensor(2, 3)\nFloatTensor = list\nj = FloatTensor(2, 3)\n"
    namespace = {"torch": torch_port.importlib.import_module("torch")} if _has_torch() else None
    tree = ast.fix_missing_locations(torch_port._ZeroEmpty().visit(ast.parse(alias)))
    assert "__import__('torch').zeros(2, 3) if Tensor is __import__('torch').Tensor else Tensor(2, 3)" in ast.unparse(tree)
    if namespace is not None:
        namespace["list"] = lambda *sizes: list(sizes)
        exec(compile(tree, "<cell>", "exec"), namespace)
        assert namespace["i"].tolist() == [[0.0] * 3] * 2 and namespace["j"] == [2, 3]


def _has_torch():
    try:
        import torch  # noqa: F401
    except ImportError:
        return False
    return True


def test_run_dependent_values_are_neither_read_nor_shown():
    cell = "import gc\nstart = time.perf_counter()\nfreed = gc.collect()\ngc.collect()\nx = 1\nx"
    assert torch_port.clock_names(cell) == {"start", "freed"}
    # what is computed from a reading differs too, within a cell or after it
    assert torch_port.clock_names("t = time.time() - start\nrate = n / t\nloss = f(x)") == {"t", "rate"}
    assert torch_port.clock_names("total_time = end_time - start_time\ny = 2", {"end_time", "start_time"}) == {
        "total_time", "end_time", "start_time"}
    assert torch_port.clock_names("elapsed += time.perf_counter() - t0\nw, d = model(x), 3") == {"elapsed"}
    assert torch_port.clock_names("times[epoch] = time.time() - t0\na, (b, c) = 1, (time.time(), 2)") == {
        "times", "a", "b", "c"}
    # addresses: called anywhere in an expression, or passed on uncalled
    assert torch_port.clock_names("ids = list(map(id, model.parameters()))\nsame = id(a.storage()) == id(b)") == {
        "ids", "same"}
    import ast
    shown_cell = "c.data_ptr(), a.data_ptr()\nid(a.storage()) == id(b.storage())\nlist(map(id, ps))\nx + 1"
    kept = [stmt for stmt in torch_port._Shown().visit(ast.parse(shown_cell)).body
            if isinstance(stmt.value, ast.Call) and getattr(stmt.value.func, "id", None) == "__port_show__"]
    assert [ast.unparse(stmt.value.args[0]) for stmt in kept] == ["x + 1"]
    shown = torch_port._Shown().visit(__import__("ast").parse(cell))
    calls = [stmt for stmt in shown.body if isinstance(stmt, __import__("ast").Expr)]
    # gc.collect() stays as it was; the bare `x` is recorded through __port_show__
    assert [getattr(s.value.func, "id", getattr(s.value.func, "attr", None)) if hasattr(s.value, "func") else None
            for s in calls] == ["collect", "__port_show__"]


def test_a_program_that_computes_in_float32_is_compared_at_float32s_tolerance():
    """A cell whose tensors are mostly float32 (a network fed torch.FloatTensor data) gives
    float64 values that carry float32's rounding (a return summed in Python): they are compared
    at 1e-5, not 1e-10; a program whose tensors are mostly float64 keeps 1e-10 for them."""
    import numpy as np
    f32 = {"w": ("tensor", np.ones(4), "float32"), "idx": ("tensor", np.zeros(9), "int64"),
           "obs": ("array", np.ones(9), "float64"), "reward": ("tensor", np.ones(1), "float64")}
    f64 = dict(f32, b=("tensor", np.ones(5), "float64"))
    assert torch_port.computes_in_low_precision(f32) and not torch_port.computes_in_low_precision(f64)
    assert not torch_port.computes_in_low_precision({"n": ("tensor", np.ones(2), "int64")})
    ret_a, ret_b = ("number", np.array(338.25), ""), ("number", np.array(338.25 + 7e-6), "")   # 2e-8 relative
    assert torch_port.same(ret_a, ret_b) is not None
    assert torch_port.same(ret_a, ret_b, low_cell=True) is None
    assert torch_port.same(ret_a, ("number", np.array(338.25 * (1 + 3e-5)), ""), low_cell=True) is not None


def test_a_program_whose_default_dtype_is_float32_is_compared_at_float32s_tolerance():
    """A program that sets PyTorch's default dtype to float32 computes in float32 wherever its
    networks are (inside objects the reader does not open): its returns, summed in Python, are
    compared at 1e-5."""
    import numpy as np

    def records(value, default):
        return [{"status": "ok", "default_dtype": default, "values": {"ret": ("number", np.array(value), "")}}]
    for default, verdict in (("float32", "agree"), ("float64", "differ")):
        (cell,) = torch_port.classify("f.py", records(338.25, default), records(338.25 + 7e-6, default))
        assert cell.verdict == verdict, default


def test_the_quantization_rule_names_pytorchs_api_not_a_programs_words():
    """A VQ-VAE's own `Quantize` layer and a flow's "dequantization" noise are in scope;
    PyTorch's quantization API is not."""
    import re

    def out(line):
        return any(re.search(rule, line) for rule, _ in torch_port.SCOPE_RULES)
    for line in ("class Quantize(nn.Module):", "quantize, diff, embed_ind = self.quantize_t(enc)",
                 "x = dequantization(x)  # uniform noise"):
        assert not out(line), line
    for line in ("model = torch.quantization.quantize_dynamic(model)", "from torch.ao.quantization import QuantStub",
                 "q = torch.quantize_per_tensor(x, 0.1, 0, torch.quint8)", "y = q.dequantize()",
                 "import torch.nn.quantized as nnq"):
        assert out(line), line


def test_a_printed_clock_reading_is_printed_and_not_compared():
    import ast
    import time
    cell = "def done(t0, loss):\n    print('Finished! Time:', time.time() - t0, loss)\ndone(start, 0.5)\nprint(elapsed, 2.0)\n"
    tree = torch_port._Shown(frozenset({"elapsed"})).visit(ast.parse(cell))
    shown, lines = [], []

    def recorded_print(*args):
        shown.extend(a for a in args if not isinstance(a, (str, torch_port._Unread)))
        lines.append(" ".join(str(a) for a in args))
    namespace = {"time": time, "start": time.time() - 1.0, "elapsed": 3.25, "print": recorded_print,
                 "__port_unread__": torch_port._Unread, "__port_show__": lambda v: v}
    exec(compile(tree, "<cell>", "exec"), namespace)
    assert shown == [0.5, 2.0]                                    # the readings are not among the values
    assert lines[0].startswith("Finished! Time: 1.") and lines[1] == "3.25 2.0"    # but are printed


def test_a_clock_reading_as_a_cells_last_expression_is_not_shown():
    """``end - start`` at the end of a notebook cell (times from ``time.perf_counter()``) differs
    between any two runs: it is not among the cell's shown values; ``loss`` beside it is."""
    import ast
    cell = "end - start\nloss\n"
    clock = torch_port.clock_names("start = time.perf_counter()\nend = time.perf_counter()\n")
    shown = []
    tree = torch_port._Shown(clock).visit(ast.parse(cell))
    exec(compile(tree, "<cell>", "exec"), {"start": 1.0, "end": 3.5, "loss": 0.25, "__port_show__": shown.append})
    assert clock == {"start", "end"} and shown == [0.25]
