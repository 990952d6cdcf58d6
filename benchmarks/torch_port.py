"""Real PyTorch autograd code, cell by cell, on PyTorch and on the engine with only the imports
renamed: how many cells run and agree, and which missing APIs stop the rest.

Run: python benchmarks/torch_port.py [--corpus DIR] [--timeout S] [--write]   (--write: put the
section into benchmarks/RESULTS.md, replacing an earlier one)

The corpus (``--corpus DIR``; by default ``$DIFFCOMPARE_PORT_CORPUS``, else
``torch_port_corpus/`` beside this file; it is other projects' code and is not shipped: its
sources are listed in ``torch_port_sources.md``) holds one file per source — PyTorch's tutorials, its
documentation's notes and docstrings, small public training scripts — its first lines
``# source: <url or repository path>``, its cells separated by ``# %%`` lines, the code as
published. Each file runs twice, in a fresh subprocess each: with PyTorch, and with the engine
under PyTorch's import names (``RENAMES``: an import hook, the corpus is not edited). Both sides:

- float64 as the default dtype (the engine's; PyTorch is set to it), CPU, the same seeds
  (PyTorch's generator, ``random``, ``numpy.random``) before every cell (``CELL_SEED``), so a
  draw only one side makes (gradgradcheck's random grad_outputs) does not shift later cells;
- on the engine's side every random draw (``rand``, ``randn``, ``randint``, ``*_like``,
  ``manual_seed``, parameter initialisation) takes its values from PyTorch's generator with the
  same arguments, so both sides see the same numbers (``EngineRandom``, patched by this harness);
- each cell under a time limit; after it, every variable that is a tensor, a number, or a
  list/tuple/dict of them (and the parameters of a module) is read as float64 NumPy together with
  its ``.grad``, ``.grad_fn`` name and ``requires_grad``; so are the values a cell prints and the
  values of its top-level expressions (printed text, its formatting, is not compared); a tensor
  on the meta device is read as its shape and dtype, and a variable assigned a wall-clock
  reading (``start = timeit.default_timer()``), an address (``old_id = id(c)``) or what ``gc.collect()`` freed is not
  read, nor shown (``clock_names``, ``_run_dependent``); a cell's
  ``empty`` and its kin, and the legacy constructors given sizes (``torch.Tensor(2, 3)``,
  ``x.new(2, 3)``, ``Tensor(2, 3)`` after ``Tensor = torch.Tensor``), give
  zeros on PyTorch's side, as the engine's do (``_ZeroEmpty``: their contents are undefined).

A cell is then: "agree" (every value it changed, on either side, equal to 1e-10 relative to the
array's largest magnitude — 1e-5 where either side is float32 or lower, or is a Python number that
both sides give as a float32 value (``loss.item()`` of a float32 loss), or where the program computes
in float32 (its default dtype set to float32, or more of its tensors' elements float32 than float64:
``computes_in_low_precision``) —, or on both sides below
the cell's noise floor, 64 ulps of the largest of its kind: ``noise_floors``; the same shapes, grad_fn
names and requires_grad); "differ" (the first value that does not); "engine error" (PyTorch ran
it, the engine raised: the missing API is named when the error is an AttributeError,
ImportError or an unexpected keyword on a torch name; a NameError for a variable an earlier
failing cell should have made is "blocked" and counted against that cell's API); "torch error
too" (PyTorch raised as well: excluded); "out of scope" (``SCOPE_RULES``: not run on either side).
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import importlib
import importlib.abc
import importlib.machinery
import io
import os
import pickle
import re
import signal
import subprocess
import sys
import tempfile
import time
import tokenize
import warnings
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from common import replace_section  # noqa: E402  (the results file's sections, one way for every benchmark)
CORPUS = Path(os.environ.get("DIFFCOMPARE_PORT_CORPUS", HERE / "torch_port_corpus"))
RESULTS = HERE / "RESULTS.md"
HEADING = "## Porting real PyTorch autograd code"

# The import renames: a torch module path maps to the engine's by its first component.
RENAMES = {"torch": "diffcompare.autograd", "functorch": "diffcompare.autograd.functorch"}

# What the engine is not meant to run: a cell matching one of these is not run on either side.
SCOPE_RULES = [
    (r"\b(torchvision|torchaudio|torchtext|torchviz|torchrec)\b", "another package than torch (datasets, models, graph drawing)"),
    (r"\.cuda\(|['\"]cuda:?\d*['\"]|torch\.cuda\.(?!is_available)", "CUDA"),
    (r"torch\.(compile|jit|export|fx|_dynamo)\b", "compilation, tracing, export"),
    (r"torch\.distributed|DistributedDataParallel", "distributed"),
    # (PyTorch's quantization API, not a program's own names: a VQ-VAE's `Quantize` codebook, or
    # "dequantization" as normalizing flows say of uniform noise added to pixels)
    (r"to_sparse|sparse_coo|torch\.sparse|torch\.masked\b|torch\.(ao\.)?(nn\.)?quantiz|"
     r"quantize_(per_tensor|per_channel|dynamic|qat|fx|jit)|\bq(u)?int(8|32|4x2|2x4)\b|(De)?QuantStub|fake_quant|"
     r"\.dequantize\(|\.q_(scale|zero_point|per_channel)",
     "sparse tensors, quantization, masked tensors"),
    (r"torch\.utils\.benchmark|Timer\(|\.timeit\(", "timing (torch.utils.benchmark)"),
]

RTOL64, RTOL32 = 1e-10, 1e-5
CELL_SEED = 1000   # cell i starts from seed CELL_SEED + i on both sides


# ---------------------------------------------------------------------------------------------
# The corpus
# ---------------------------------------------------------------------------------------------

@dataclass
class CorpusFile:
    name: str
    source: str
    cells: list


def load_corpus(directory: Path) -> list:
    """Every ``*.py`` file of ``directory``: its source line and its cells (split at ``# %%``)."""
    files = []
    for path in sorted(Path(directory).glob("*.py")):
        text = path.read_text()
        parts = re.split(r"^# %%.*$", text, flags=re.M)
        header, cells = parts[0], [c.strip("\n") for c in parts[1:]]
        source = " ".join(m.group(1).strip() for m in re.finditer(r"^# source:(.*)$", header, flags=re.M))
        files.append(CorpusFile(path.stem, source, [c for c in cells if c.strip()]))
    return files


def out_of_scope(cell: str):
    """The reason a cell is out of scope, or None (its comments are not read)."""
    code = _without_comments(cell)
    for pattern, reason in SCOPE_RULES:
        if re.search(pattern, code):
            return reason
    return None


def _without_comments(cell: str) -> str:
    try:
        tokens = [t for t in tokenize.generate_tokens(io.StringIO(cell).readline) if t.type != tokenize.COMMENT]
        return tokenize.untokenize(tokens)
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return cell


# ---------------------------------------------------------------------------------------------
# The worker: runs one file's cells on one side and pickles what each cell left behind
# ---------------------------------------------------------------------------------------------

class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports ``torch`` and ``torch.x.y`` as the engine's ``diffcompare.autograd.x.y`` (and
    ``functorch`` as ``diffcompare.autograd.functorch``); a missing one is a ModuleNotFoundError
    naming the torch module."""

    def find_spec(self, fullname, path=None, target=None):
        head = fullname.split(".")[0]
        if head not in RENAMES:
            return None
        target_name = RENAMES[head] + fullname[len(head):]
        try:
            module = importlib.import_module(target_name)
        except ModuleNotFoundError:
            raise ModuleNotFoundError(f"No module named '{fullname}'", name=fullname) from None
        return importlib.machinery.ModuleSpec(fullname, self, origin=getattr(module, "__file__", None),
                                              loader_state=module)

    def create_module(self, spec):
        return spec.loader_state

    def exec_module(self, module):
        pass


class EngineRandom:
    """Draws for the engine from PyTorch's default generator: the engine's random functions
    keep their own signatures and checks (they run first) and then take PyTorch's values for
    the same call; the engine's generator (parameter initialisation) is replaced by this
    object's NumPy-like methods."""

    def __init__(self, real_torch, engine, real_modules, gen=None):
        self.torch, self.ag = real_torch, engine
        self.gen = real_torch.default_generator if gen is None else gen
        self.real_modules = real_modules   # PyTorch's own sys.modules entries, put back while it draws
        self.scratch = __import__("numpy").random.default_rng(0)

    @contextlib.contextmanager
    def real(self):
        aliased = {m: sys.modules.pop(m) for m in list(sys.modules) if m.split(".")[0] in RENAMES}
        sys.modules.update(self.real_modules)
        try:
            yield
        finally:
            for m in [m for m in sys.modules if m.split(".")[0] in RENAMES]:
                del sys.modules[m]
            sys.modules.update(aliased)

    # numpy.random.Generator's methods the engine uses
    def random(self, size=None, dtype=None):
        with self.real():
            return self.torch.rand(self._size(size), dtype=self._dtype(dtype), generator=self.gen).numpy()

    def standard_normal(self, size=None, dtype=None):
        with self.real():
            return self.torch.randn(self._size(size), dtype=self._dtype(dtype), generator=self.gen).numpy()

    def _dtype(self, dtype):
        """PyTorch's dtype for a NumPy one (float32 draws differ from float64 ones in PyTorch)."""
        import numpy as np
        return self.torch.float32 if dtype is not None and np.dtype(dtype) == np.float32 else self.torch.float64

    def uniform(self, low=0.0, high=1.0, size=None):
        with self.real():
            return self.torch.empty(self._size(size), dtype=self.torch.float64).uniform_(low, high, generator=self.gen).numpy()

    def normal(self, loc=0.0, scale=1.0, size=None):
        with self.real():
            return self.torch.empty(self._size(size), dtype=self.torch.float64).normal_(loc, scale, generator=self.gen).numpy()

    def integers(self, low, high=None, size=None):
        if high is None:
            low, high = 0, low
        with self.real():
            return self.torch.randint(int(low), int(high), self._size(size), generator=self.gen).numpy()

    def permutation(self, n):
        with self.real():
            return self.torch.randperm(int(n), generator=self.gen).numpy()

    @staticmethod
    def _size(size):
        if size is None:
            return ()
        return (int(size),) if isinstance(size, (int,)) or hasattr(size, "__index__") else tuple(int(s) for s in size)

    # the engine's functions
    def _torch_args(self, value):
        """An engine argument as PyTorch takes it: a tensor with the same values (a draw's
        parameters: ``bernoulli(p)``, ``normal(mean, std)``), shape and dtype."""
        import numpy as np
        if isinstance(value, self.ag.Tensor):
            if getattr(value, "is_meta", False):
                return self.torch.empty(tuple(value.shape), dtype=self._torch_args(value.dtype))
            return self.torch.from_numpy(np.array(value.detach().numpy(), copy=True))
        if isinstance(value, np.dtype):
            return getattr(self.torch, value.name, None) or self.torch.float64
        if type(value).__name__ == "memory_format" and isinstance(getattr(value, "name", None), str):
            return getattr(self.torch, value.name)      # (the engine's torch.preserve_format, ...)
        if isinstance(value, (list, tuple)):
            return type(value)(self._torch_args(v) for v in value)
        return value

    def _torch_generator(self, engine_generator):
        """PyTorch's generator behind an engine ``Generator`` (see ``install``), else the global one."""
        rng = getattr(engine_generator, "_rng", None)
        return rng.gen if isinstance(rng, EngineRandom) else self.gen

    def _engine_draw(self, original, args, kwargs):
        """The engine's own call (its checks, its result's shape and history), its draw thrown away."""
        module = sys.modules[RENAMES["torch"] + ".tensor"]
        module._generator = self.scratch
        engine_generator = kwargs.get("generator")
        if engine_generator is not None:
            kept, engine_generator._rng = engine_generator._rng, self.scratch
        try:
            return original(*args, **kwargs)
        finally:
            module._generator = self
            if engine_generator is not None:
                engine_generator._rng = kept

    def wrap(self, name):
        original = getattr(self.ag, name)

        def draw(*args, **kwargs):
            result = self._engine_draw(original, args, kwargs)
            if getattr(result, "is_meta", False):   # nothing drawn on the meta device, on either side
                return result
            with self.real():
                targs = self._torch_args(args)
                tkwargs = {k: self._torch_args(v) for k, v in kwargs.items() if k not in ("requires_grad", "device", "generator")}
                if name in ("rand", "randn", "normal") and "dtype" not in tkwargs and \
                        not any(isinstance(a, self.torch.Tensor) for a in (*targs, *tkwargs.values())):
                    # the engine's default dtype (a cell may set it), not this process's PyTorch's
                    tkwargs["dtype"] = self._torch_args(result._data.dtype)
                values = getattr(self.torch, name)(*targs, generator=self._torch_generator(kwargs.get("generator")),
                                                   **tkwargs).numpy()
            # in place: a node that saved the draw's array (StandardGammaBackward0's result) sees PyTorch's values
            result._data[...] = values.astype(result._data.dtype).reshape(result._data.shape)
            return result

        draw.__name__ = draw.__qualname__ = name
        return draw

    def wrap_method(self, name):
        """An in-place draw (``x.uniform_(a, b)``): the engine's method runs, then its tensor takes
        the values PyTorch's method draws into a tensor of the same shape and dtype."""
        original = getattr(self.ag.Tensor, name)
        harness = self

        def draw(tensor, *args, **kwargs):
            result = harness._engine_draw(original, (tensor,) + args, kwargs)
            if getattr(result, "is_meta", False):
                return result
            with harness.real():
                target = harness._torch_args(tensor)
                targs = harness._torch_args(args)
                tkwargs = {k: harness._torch_args(v) for k, v in kwargs.items() if k != "generator"}
                getattr(target, name)(*targs, generator=harness._torch_generator(kwargs.get("generator")), **tkwargs)
                values = target.numpy()
            result._data[...] = values.astype(result._data.dtype).reshape(result._data.shape)
            return result

        draw.__name__ = draw.__qualname__ = name
        return draw

    def install(self):
        tensor_module = sys.modules[RENAMES["torch"] + ".tensor"]   # (the package's `tensor` is the function)
        tensor_module._generator = self
        for name in ("rand", "randn", "randint", "rand_like", "randn_like", "randint_like", "randperm", "normal",
                     "bernoulli", "multinomial", "poisson", "binomial", "_standard_gamma", "_sample_dirichlet"):
            if hasattr(self.ag, name) and hasattr(self.torch, name):
                setattr(self.ag, name, self.wrap(name))
                if name in ("bernoulli", "multinomial") and hasattr(self.ag.Tensor, name):
                    setattr(self.ag.Tensor, name, getattr(self.ag, name))   # x.bernoulli(): the same draw
        for name in ("uniform_", "normal_", "random_", "bernoulli_", "exponential_", "cauchy_", "geometric_",
                     "log_normal_"):
            if hasattr(self.ag.Tensor, name):
                setattr(self.ag.Tensor, name, self.wrap_method(name))
        # an engine Generator seeded with s draws what a PyTorch Generator seeded with s draws
        generators = sys.modules.get(RENAMES["torch"] + ".generators")
        if generators is not None:
            def new_rng(seed):
                with self.real():
                    gen = self.torch.Generator().manual_seed(int(seed))
                return EngineRandom(self.torch, self.ag, self.real_modules, gen)
            generators.new_rng = new_rng
        original_seed = self.ag.manual_seed

        def manual_seed(seed):
            result = original_seed(seed)
            with self.real():
                self.gen.manual_seed(int(seed))
            tensor_module._generator = self
            return result

        self.ag.manual_seed = tensor_module.manual_seed = manual_seed

        # the global generator's state is PyTorch's (a checkpoint's recomputation, fork_rng)
        def get_rng_state():
            with self.real():
                state = self.gen.get_state().numpy().copy()
            return self.ag.from_numpy(state)

        def set_rng_state(new_state):
            with self.real():
                self.gen.set_state(self.torch.from_numpy(new_state.numpy().copy()))

        def initial_seed():     # (PyTorch's state holds its seed: set_rng_state puts it back)
            with self.real():
                return self.gen.initial_seed()

        self.ag.get_rng_state = tensor_module.get_rng_state = get_rng_state
        self.ag.set_rng_state = tensor_module.set_rng_state = set_rng_state
        self.ag.initial_seed = tensor_module.initial_seed = initial_seed


class _CellTimeout(BaseException):
    pass


def _on_alarm(signum, frame):
    raise _CellTimeout()


class _Shown(ast.NodeTransformer):
    """A cell's top-level expression statements record their values (as a notebook shows them),
    but for one that reads a clock or an address (``time.time() - start``, or a name ``clock``
    holds: ``clock_names``, as in ``end - start``); an argument of ``print`` that does so is
    printed and not recorded (``__port_unread__``)."""

    def __init__(self, clock=frozenset()):
        self.clock = clock

    def visit_Module(self, node):
        self.generic_visit(node)
        body = []
        for stmt in node.body:
            if isinstance(stmt, ast.Expr) and not self._clocked(stmt.value):     # (``end - start``: not shown)
                call = ast.Call(func=ast.Name("__port_show__", ast.Load()), args=[stmt.value], keywords=[])
                stmt = ast.copy_location(ast.Expr(call), stmt)
            body.append(stmt)
        node.body = body
        return ast.fix_missing_locations(node)

    def visit_Call(self, node):
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id == "print":
            node.args = [ast.Call(ast.Name("__port_unread__", ast.Load()), [arg], [])
                         if not isinstance(arg, ast.Starred) and self._clocked(arg) else arg for arg in node.args]
        return node

    def _clocked(self, value):
        return _run_dependent(value) or any(isinstance(sub, ast.Name) and sub.id in self.clock for sub in ast.walk(value))


class _Unread:
    """A printed value that differs between any two runs (a clock's reading): printed as it
    is, not compared."""

    def __init__(self, value):
        self.value = value

    def __str__(self):
        return str(self.value)

    def __repr__(self):
        return repr(self.value)

    def __format__(self, spec):
        return format(self.value, spec)


class _ZeroEmpty(ast.NodeTransformer):
    """On PyTorch's side, a cell's calls of ``empty``, ``empty_like`` and ``new_empty`` (and
    the strided ``empty_strided``, ``new_empty_strided``) become ``zeros``, ``zeros_like`` and
    ``new_zeros``, as the engine's are: their contents are
    undefined (whatever the memory held), so a cell that reads them before writing would
    otherwise compare leftover bits. Only the cell's own calls change; PyTorch itself is
    left as it is (a patched ``torch.empty`` changes how functorch dispatches)."""

    NAMES = {"empty": "zeros", "empty_like": "zeros_like", "new_empty": "new_zeros"}
    STRIDED = {"empty_strided": "zeros", "new_empty_strided": "new_zeros"}
    # the legacy constructors, given sizes (``torch.Tensor(2, 3)``, ``x.new(2, 3)``), are uninitialised too
    LEGACY = {"Tensor": None, "FloatTensor": "float32", "DoubleTensor": "float64", "HalfTensor": "float16",
              "LongTensor": "int64", "IntTensor": "int32", "ShortTensor": "int16", "CharTensor": "int8",
              "ByteTensor": "uint8", "BoolTensor": "bool"}

    def visit_Call(self, node):
        self.generic_visit(node)
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in self.NAMES and (node.args or node.keywords):
            func.attr = self.NAMES[func.attr]       # (``queue.empty()``, with no sizes, is not a tensor's)
        elif isinstance(func, ast.Attribute) and func.attr in self.STRIDED:      # (size, stride, ...): the stride dropped
            func.attr = self.STRIDED[func.attr]
            node.args = node.args[:1] + node.args[2:]
            node.keywords = [k for k in node.keywords if k.arg != "stride"]
        elif isinstance(func, ast.Attribute) and func.attr in self.LEGACY and self._sizes(node):
            dtype = self.LEGACY[func.attr]
            func.attr = "zeros"
            if dtype is not None:
                node.keywords.append(ast.keyword("dtype", ast.Attribute(func.value, dtype, ast.Load())))
        elif isinstance(func, ast.Name) and func.id in self.LEGACY and self._sizes(node):
            # a legacy constructor under a name of the program's (``Tensor = torch.Tensor``, then
            # ``Tensor(2, 3)``): zeros when the name holds PyTorch's class, the call itself otherwise
            torch_ = ast.Call(ast.Name("__import__", ast.Load()), [ast.Constant("torch")], [])
            zeros = ast.Call(ast.Attribute(torch_, "zeros", ast.Load()), list(node.args), [])
            dtype = self.LEGACY[func.id]
            if dtype is not None:
                zeros.keywords.append(ast.keyword("dtype", ast.Attribute(torch_, dtype, ast.Load())))
            held = ast.Compare(ast.Name(func.id, ast.Load()), [ast.Is()], [ast.Attribute(torch_, func.id, ast.Load())])
            return ast.IfExp(held, zeros, node)
        elif isinstance(func, ast.Attribute) and func.attr == "new" and self._sizes(node):    # x.new(2, 3)
            func.attr = "new_zeros"
            node.args = [ast.Tuple(node.args, ast.Load())]
        return node

    @staticmethod
    def _sizes(node):
        """Whether a legacy constructor's call gives sizes, not data: integer literals, or more
        than one argument (data is one)."""
        args = node.args
        if not args or node.keywords or any(isinstance(a, ast.Starred) for a in args):
            return False
        return len(args) > 1 or (isinstance(args[0], ast.Constant) and type(args[0].value) is int)


class Reader:
    """Reads the values a namespace holds as float64 NumPy arrays (and grad_fn names, flags)."""

    LIMIT = 64   # elements of a list, tuple or dict read

    def __init__(self, tensor_type, np):
        self.tensor_type, self.np = tensor_type, np

    def array(self, t):
        np = self.np
        t = t.detach()
        if hasattr(t, "resolve_conj"):
            t = t.resolve_conj().resolve_neg()
        data = t._data if hasattr(t, "_data") else t.cpu().numpy()
        data = np.array(data)
        return data

    def read(self, key, value, out, depth=0):
        np = self.np
        if isinstance(value, self.tensor_type) and getattr(value, "is_meta", False):
            dtype = str(value.dtype).replace("torch.", "")   # no values: the shape and dtype are compared
            out[key] = ("name", f"meta {tuple(value.shape)} {dtype}", "")
            out[key + ".requires_grad"] = ("flag", bool(value.requires_grad), "")
            gf = value.grad_fn
            out[key + ".grad_fn"] = ("name", None if gf is None else _node_name(gf), "")
        elif isinstance(value, self.tensor_type):
            data = self.array(value)
            out[key] = ("tensor", data.astype(np.complex128 if data.dtype.kind == "c" else np.float64), str(data.dtype))
            out[key + ".requires_grad"] = ("flag", bool(value.requires_grad), "")
            gf = value.grad_fn
            out[key + ".grad_fn"] = ("name", None if gf is None else _node_name(gf), "")
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                grad = value.grad
            if grad is not None:
                self.read(key + ".grad", grad, out, depth + 1)
        elif isinstance(value, (bool, int, float, complex, np.number, np.bool_)):
            out[key] = ("number", np.array(value).astype(np.complex128 if isinstance(value, complex) else np.float64), "")
        elif isinstance(value, np.ndarray) and value.dtype.kind in "biufc":
            out[key] = ("array", value.astype(np.complex128 if value.dtype.kind == "c" else np.float64), str(value.dtype))
        elif depth >= 3:
            return
        elif isinstance(value, (list, tuple)):
            for i, v in enumerate(value[:self.LIMIT]):
                self.read(f"{key}[{i}]", v, out, depth + 1)
        elif isinstance(value, dict):
            for k, v in list(value.items())[:self.LIMIT]:
                if isinstance(k, (str, int)):
                    self.read(f"{key}[{k!r}]", v, out, depth + 1)
        elif callable(getattr(value, "named_parameters", None)) and not isinstance(value, type):
            try:
                params = list(value.named_parameters())[:self.LIMIT]
            except Exception:   # noqa: BLE001 - a module that cannot list its parameters is not read
                return
            for name, p in params:
                self.read(f"{key}.{name}", p, out, depth + 1)

    def namespace(self, ns):
        out = {}
        for name, value in list(ns.items()):
            if name.startswith("_") or isinstance(value, type) or callable(value) and not hasattr(value, "named_parameters"):
                continue
            try:
                self.read(name, value, out)
            except Exception:   # noqa: BLE001 - a value that cannot be read is not compared
                pass
        return out


def _node_name(node):
    name = getattr(node, "name", None)
    return name() if callable(name) else type(node).__name__


def _torch_name(module_name):
    for head, target in RENAMES.items():
        if module_name == target or module_name.startswith(target + "."):
            return head + module_name[len(target):]
    return module_name


def missing_api(exc, real_torch=None):
    """The torch API an exception says is missing, or None."""
    message = str(exc)
    if isinstance(exc, ModuleNotFoundError) and exc.name:
        return _torch_name(exc.name)
    if isinstance(exc, ImportError):
        m = re.search(r"cannot import name '(\w+)' from '([\w.]+)'", message)
        if m:
            return f"{_torch_name(m.group(2))}.{m.group(1)}"
        return None
    if isinstance(exc, AttributeError) and getattr(exc, "name", None):
        obj, name = getattr(exc, "obj", None), exc.name
        if obj is None:
            return None
        if type(obj).__name__ == "module":
            module = _torch_name(obj.__name__)
            if module.split(".")[0] not in RENAMES:
                return None
            if real_torch is not None and _resolve(real_torch, module) is None:
                # an engine module reached through `torch.autograd` (the engine's package is
                # also its `autograd`): `torch.autograd.graph`, not `torch.graph`
                inner = "torch.autograd" + module[len("torch"):]
                if _resolve(real_torch, inner) is not None:
                    module = inner
            return f"{module}.{name}"
        return _qualified(obj if isinstance(obj, type) else type(obj), name, real_torch)
    if isinstance(exc, TypeError):
        m = re.match(r"([\w.]+)\(\) got an unexpected keyword argument '(\w+)'", message)
        if m:
            return f"{_function_name(m.group(1))}({m.group(2)}=)"
    return None


def _resolve(real_torch, dotted):
    """The object PyTorch has at ``torch.a.b``, or None."""
    value = real_torch
    for part in dotted.split(".")[1:]:
        value = getattr(value, part, None)
        if value is None:
            return None
    return value


def _function_name(qualname):
    """``Tensor.to`` -> ``torch.Tensor.to``; ``randn`` -> ``torch.randn`` (as the engine has it)."""
    head = qualname.split(".")[0]
    try:
        ag = importlib.import_module(RENAMES["torch"])
    except ImportError:
        return qualname
    if head in ("Tensor", "Parameter"):
        return ("torch.nn." if head == "Parameter" else "torch.") + qualname
    if hasattr(ag, head):
        return "torch." + qualname
    for sub in ("nn", "nn.functional", "autograd", "autograd.functional", "optim"):
        module = sys.modules.get(f"{RENAMES['torch']}.{sub}")
        if module is not None and hasattr(module, head):
            return f"torch.{sub}.{qualname.replace('.__init__', '')}"
    return qualname


def _qualified(cls, name, real_torch):
    """The public torch name of attribute ``name`` of an engine class (where torch defines it)."""
    module = getattr(cls, "__module__", "")
    if not module.startswith(RENAMES["torch"]):
        return None
    engine_graph = module.endswith(".graph") or module.endswith(".ops") or ".ops." in module
    if engine_graph or cls.__name__.endswith("Backward0") or cls.__name__.endswith("Backward1"):
        return f"grad_fn.{name}"
    if cls.__name__ in ("FunctionCtx", "BackwardCFunction") or "function" in module.split(".")[-1]:
        return f"ctx.{name}" if "Ctx" in cls.__name__ else f"torch.autograd.Function.{name}"
    if cls.__name__ == "Tensor":
        return f"torch.Tensor.{name}"
    if real_torch is not None:
        for space in ("nn", "optim"):
            torch_cls = getattr(getattr(real_torch, space), cls.__name__, None)
            if isinstance(torch_cls, type):
                for base in torch_cls.__mro__:
                    if name in vars(base):
                        public = getattr(getattr(real_torch, space), base.__name__, None)
                        owner = base.__name__ if public is base else cls.__name__
                        return f"torch.{space}.{owner}.{name}"
                return f"torch.{space}.{cls.__name__}.{name}"
    return f"{_torch_name(module)}.{cls.__name__}.{name}"


CLOCKS = {"default_timer", "time", "perf_counter", "monotonic", "process_time", "time_ns", "perf_counter_ns",
          "id", "data_ptr",     # (and the readings of addresses: an object's id, a tensor's data pointer,
          "collect"}            # and the count of objects a gc.collect() freed)


def _run_dependent(value):
    """Whether an expression holds a value that differs between any two runs: a call of one of
    ``CLOCKS`` anywhere in it (``c.data_ptr(), a.data_ptr()``, ``id(a.storage()) == id(b)``),
    or an address function passed on uncalled (``list(map(id, model.parameters()))``)."""
    for sub in ast.walk(value):
        if isinstance(sub, ast.Call):
            func = sub.func
            if (func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)) in CLOCKS:
                return True
        elif isinstance(sub, ast.Name) and sub.id == "id" or isinstance(sub, ast.Attribute) and sub.attr == "data_ptr":
            return True
    return False


def clock_names(cell, known=frozenset()):
    """The names a cell assigns a wall-clock reading (``start = timeit.default_timer()``) or a
    memory address (``old_id = id(c)``, ``ptr = x.data_ptr()``) to, or a value computed from
    one (``step_time = time.time() - start``, ``total = end - start`` with ``known``, the
    names earlier cells made such): they differ between any two runs, so neither side's value
    is compared."""
    names = set(known)
    try:
        tree = ast.parse(cell)
    except SyntaxError:
        return names
    assignments = [(node.targets if isinstance(node, ast.Assign) else [node.target], node.value)
                   for node in ast.walk(tree)
                   if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and node.value is not None]
    grown = True
    while grown:                # (until no assignment adds a name: a chain of them in any order)
        grown = False
        for targets, value in assignments:
            if any(_run_dependent(sub) or isinstance(sub, ast.Name) and sub.id in names for sub in ast.walk(value)):
                for name in _target_names(targets):
                    if name not in names:
                        names.add(name)
                        grown = True
    return names


def _target_names(targets):
    """The variables an assignment writes: names, those of tuples and lists, and the container
    of a subscript or attribute (``times[epoch] = ...`` writes ``times``, not ``epoch``)."""
    for target in targets:
        while isinstance(target, (ast.Subscript, ast.Attribute, ast.Starred)):
            target = target.value
        if isinstance(target, ast.Name):
            yield target.id
        elif isinstance(target, (ast.Tuple, ast.List)):
            yield from _target_names(target.elts)


def run_worker(side, path, out_path, timeout):
    """Run the cells of ``path`` on ``side`` ("torch" or "engine"); pickle one record per cell."""
    import random

    import numpy as np
    warnings.simplefilter("ignore")
    real_torch = importlib.import_module("torch")
    real_torch.set_num_threads(1)
    real_torch.set_default_dtype(real_torch.float64)
    real_torch.manual_seed(0)
    random.seed(0)
    np.random.seed(0)
    if side == "engine":
        sys.path.insert(0, str(HERE.parent))
        ag = importlib.import_module(RENAMES["torch"])
        real_modules = {m: sys.modules.pop(m) for m in list(sys.modules) if m.split(".")[0] in RENAMES}
        sys.meta_path.insert(0, _Alias())
        # the engine's modules already loaded are loaded under their torch names too, as a renamed
        # import finds them (importing one anew would rebind its package's attribute of that name,
        # as torch.autograd.gradcheck, the function, to the module)
        for name, module in list(sys.modules.items()):
            for head, target in RENAMES.items():
                if name == target or name.startswith(target + "."):
                    sys.modules.setdefault(head + name[len(target):], module)
        engine_random = EngineRandom(real_torch, ag, real_modules)
        engine_random.install()
        reader = Reader(ag.Tensor, np)
    else:
        reader = Reader(real_torch.Tensor, np)

    def seed_all(seed):
        # Every cell starts from the same seeds on both sides: a draw that only one side makes
        # (gradgradcheck's random grad_outputs in PyTorch, a cell that stops early in the
        # engine) does not shift the random numbers of the cells after it.
        if side == "engine":
            with engine_random.real():
                real_torch.default_generator.manual_seed(seed)
        else:
            real_torch.manual_seed(seed)
        random.seed(seed)
        np.random.seed(seed)

    corpus_file = next(f for f in load_corpus(Path(path).parent) if f.name == Path(path).stem)
    ns = {"__name__": "__main__", "__builtins__": __builtins__}
    records = []
    signal.signal(signal.SIGALRM, _on_alarm)
    clock = set()
    for index, cell in enumerate(corpus_file.cells):
        reason = out_of_scope(cell)
        if reason:
            records.append({"status": "out", "reason": reason})
            continue
        shown = []
        sink = io.StringIO()

        def show(value, shown=shown):
            if value is not None:
                shown.append(value)
            return value

        def recorded_print(*args, shown=shown, sink=sink, **kwargs):
            shown.extend(a for a in args if not isinstance(a, (str, _Unread)))
            kwargs.pop("file", None)
            print(*args, file=sink, **kwargs)

        ns["__port_show__"], ns["print"], ns["__port_unread__"] = show, recorded_print, _Unread
        seed_all(CELL_SEED + index)
        record = {"status": "ok"}
        start = time.perf_counter()
        try:
            tree = ast.parse(cell)
            if side == "torch":
                tree = _ZeroEmpty().visit(tree)
            code = compile(_Shown(clock_names(cell, clock)).visit(tree), f"<{corpus_file.name} cell {index + 1}>", "exec")
            signal.alarm(timeout)
            try:
                exec(code, ns)
            finally:
                signal.alarm(0)
        except _CellTimeout:
            record = {"status": "error", "type": "Timeout", "message": f"over {timeout} s", "api": None}
        except BaseException as exc:   # noqa: BLE001 - every failure of a cell is a result
            record = {"status": "error", "type": type(exc).__name__, "message": str(exc)[:300],
                      "api": missing_api(exc, real_torch if side == "engine" else None),
                      "name": getattr(exc, "name", None) if isinstance(exc, NameError) else None}
        record["seconds"] = time.perf_counter() - start
        # (the program's own default: float32 when it asked for it, float64 as the harness set it)
        record["default_dtype"] = str((real_torch if side == "torch" else ag).get_default_dtype()).replace("torch.", "")
        values = reader.namespace(ns)
        for i, value in enumerate(shown):
            try:
                reader.read(f"<shown {i + 1}>", value, values)
            except Exception:   # noqa: BLE001
                pass
        clock = clock_names(cell, clock)    # once a clock reading, never compared in this file
        record["values"] = {k: v for k, v in values.items() if re.split(r"[.\[]", k)[0] not in clock}
        records.append(record)
    with open(out_path, "wb") as handle:
        pickle.dump(records, handle)


# ---------------------------------------------------------------------------------------------
# Comparing the two sides
# ---------------------------------------------------------------------------------------------

def same(a, b, zero_below=0.0, low_cell=False):
    """Whether two read values agree (see the module's docstring); the reason when not.
    ``zero_below``: a magnitude under which an array is zero on both sides (``noise_floors``);
    ``low_cell``: the cell's program computes in float32 (``computes_in_low_precision``), so its
    values carry float32's rounding even where they are float64 (a return summed in Python from
    a float32 network's outputs) and are compared at float32's tolerance."""
    import numpy as np
    kind_a, value_a, dtype_a = a
    kind_b, value_b, dtype_b = b
    if kind_a in ("flag", "name") or kind_b in ("flag", "name"):
        return (None if value_a == value_b else f"{value_a!r} vs {value_b!r}")
    if value_a.shape != value_b.shape:
        return f"shape {value_a.shape} vs {value_b.shape}"
    if value_a.size == 0:
        return None
    if not np.array_equal(np.isnan(value_a), np.isnan(value_b)):
        return "NaN at different places"
    finite = np.isfinite(value_a) & np.isfinite(value_b)
    if not np.array_equal(value_a[~finite], value_b[~finite], equal_nan=True):
        return "inf at different places"
    if not finite.any():
        return None
    low = low_cell or any(d in LOW for d in (dtype_a, dtype_b)) or \
        kind_a == kind_b == "number" and _float32_valued(value_a) and _float32_valued(value_b)
    rtol = RTOL32 if low else RTOL64
    scale = np.max(np.abs(value_a[finite]))
    error = np.max(np.abs(value_a[finite] - value_b[finite]))
    if max(scale, np.max(np.abs(value_b[finite]))) <= zero_below:
        return None
    if error > rtol * scale:
        return f"max error {error:.3g} (scale {scale:.3g}, rtol {rtol:g})"
    return None


def _float32_valued(value):
    """Whether a number read is a float32 value (not an integer): what a float32 tensor gives
    as a Python number (``loss.item()``), compared at float32's tolerance as the tensor itself
    is. A float64 result with a fractional part is a float32 value by a chance of 2**-29."""
    import numpy as np
    if value.dtype.kind != "f" or not np.isfinite(value).all() or (value == np.round(value)).all():
        return False
    return bool((value.astype(np.float32).astype(np.float64) == value).all())


def computes_in_low_precision(values):
    """Whether a program's namespace, as a cell leaves it, holds more elements of floating
    tensors (module parameters among them) of float32 or lower than of float64: a program that
    computes in float32 (a network under ``set_default_dtype(torch.float32)``, fed
    ``torch.FloatTensor`` data), whose every value, float64 ones derived from it included (a
    return summed in Python, an action array), carries float32's rounding, and whose BLAS
    differs from the engine's in the last bits of a float32 sum."""
    low = high = 0
    for kind, value, dtype in values.values():
        if kind == "tensor":        # (not NumPy's arrays: an environment's float64 states)
            if dtype in LOW:
                low += value.size
            elif dtype in ("float64", "complex128"):
                high += value.size
    return low > high


NOISE_ULPS = 64


LOW = ("float32", "float16", "bfloat16", "complex64")


def _floor_class(key, dtype):
    """Values that share a noise floor: gradients with gradients, other values with other
    values, each in its precision."""
    return key.endswith(".grad"), dtype in LOW


def noise_floors(values, keys):
    """For each class of ``_floor_class``, the magnitude below which a value of a cell is
    rounding noise around an exact zero: 64 units in the last place (of its precision) of the
    largest magnitude of its class among ``keys`` of ``values`` (the PyTorch side's). A bias
    gradient that batch norm cancels comes out as 1e-18 on one side and -3e-18 on the other:
    relative to its own magnitude they differ completely, relative to the cell's other
    gradients both are zero."""
    import numpy as np
    floors = {}
    for key in keys:
        kind, value, dtype = values[key]
        if kind in ("flag", "name") or not getattr(value, "size", 0):
            continue
        finite = value[np.isfinite(value)]
        if finite.size:
            cls = _floor_class(key, dtype)
            eps = np.finfo(np.float32 if cls[1] else np.float64).eps
            floors[cls] = max(floors.get(cls, 0.0), NOISE_ULPS * eps * float(np.max(np.abs(finite))))
    return floors


def changed(before, after):
    """The keys of ``after`` that are new or whose value differs from ``before``."""
    import numpy as np
    keys = []
    for key, value in after.items():
        old = before.get(key)
        if old is None or key.startswith("<shown"):
            keys.append(key)
        elif old[0] != value[0] or old[2] != value[2]:
            keys.append(key)
        elif value[0] in ("flag", "name"):
            if old[1] != value[1]:
                keys.append(key)
        elif old[1].shape != value[1].shape or not np.array_equal(old[1], value[1], equal_nan=True):
            keys.append(key)
    return keys


@dataclass
class CellResult:
    file: str
    index: int
    verdict: str          # agree, differ, engine error, torch error, out of scope
    detail: str = ""
    api: str = None       # the missing API that stops the cell (engine errors)
    blocked_by: str = None


@dataclass
class FileResult:
    name: str
    source: str
    cells: list = field(default_factory=list)


def classify(file_name, torch_records, engine_records):
    """One CellResult per cell from the two sides' records."""
    results = []
    torch_before, engine_before = {}, {}
    last_failure_api = None
    for index, (t, e) in enumerate(zip(torch_records, engine_records)):
        if t["status"] == "out":
            results.append(CellResult(file_name, index + 1, "out of scope", t["reason"]))
            continue
        t_values, e_values = t["values"], e.get("values", {})
        if t["status"] == "error":
            detail = f"PyTorch: {t['type']}: {t['message'][:120]}"
            if e["status"] == "ok":
                detail += " (the engine ran it)"
            results.append(CellResult(file_name, index + 1, "torch error", detail))
        elif e["status"] == "error":
            api = e.get("api")
            blocked = None
            if e["type"] == "NameError" and e.get("name") and last_failure_api is not None:
                blocked = last_failure_api
            key = api or f"{e['type']}: {_normalise(e['message'])}"
            results.append(CellResult(file_name, index + 1, "engine error", f"{e['type']}: {e['message'][:160]}",
                                      api=key if blocked is None else None, blocked_by=blocked))
            if blocked is None:
                last_failure_api = key
        else:
            keys = sorted((set(changed(torch_before, t_values)) | set(changed(engine_before, e_values))) & set(t_values))
            problem = None
            floors = noise_floors(t_values, [k for k in keys if k in t_values])
            low_cell = t.get("default_dtype") in LOW or computes_in_low_precision(t_values)
            for key in keys:
                if key not in t_values:
                    continue
                if key not in e_values:
                    problem = f"{key}: missing on the engine's side"
                    break
                reason = same(t_values[key], e_values[key], floors.get(_floor_class(key, t_values[key][2]), 0.0),
                              low_cell)
                if reason:
                    problem = f"{key}: {reason}"
                    break
            results.append(CellResult(file_name, index + 1, "differ" if problem else "agree", problem or ""))
        torch_before, engine_before = t_values, e_values
    return results


def _normalise(message):
    message = message.replace("diffcompare.autograd", "torch")
    message = re.sub(r"\d+", "N", message.splitlines()[0] if message else "")
    return message[:90]


def run_file(corpus_file, path, timeout, python):
    """Both sides of one file in their own subprocesses; the file's CellResults."""
    records = {}
    with tempfile.TemporaryDirectory() as tmp:
        for side in ("torch", "engine"):
            out = Path(tmp) / f"{side}.pkl"
            env = dict(os.environ, PYTHONPATH=str(HERE.parent) + os.pathsep + os.environ.get("PYTHONPATH", ""),
                       OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1",
                       PYTHONHASHSEED="0")      # a set's order (a vocabulary built from one) the same on both sides
            budget = timeout * (len(corpus_file.cells) + 2)
            try:
                proc = subprocess.run([python, str(Path(__file__).resolve()), "--worker", side, str(path), str(out),
                                       "--timeout", str(timeout)], env=env, capture_output=True, text=True,
                                      timeout=budget)
                failure = proc.stderr[-400:] if proc.returncode else None
            except subprocess.TimeoutExpired:
                failure = f"the whole file took over {budget} s"
            if out.exists():
                records[side] = pickle.loads(out.read_bytes())
            else:
                records[side] = [{"status": "error", "type": "WorkerDied", "message": str(failure), "api": None,
                                  "values": {}}] * len(corpus_file.cells)
    return FileResult(corpus_file.name, corpus_file.source, classify(corpus_file.name, records["torch"], records["engine"]))


# ---------------------------------------------------------------------------------------------
# The report
# ---------------------------------------------------------------------------------------------

def report(files):
    """The Markdown section: a table per file, the totals and the missing APIs ranked."""
    cells = [c for f in files for c in f.cells]
    count = Counter(c.verdict for c in cells)
    in_scope = count["agree"] + count["differ"] + count["engine error"]
    lines = [HEADING, ""]
    share = count["agree"] / in_scope if in_scope else 0.0
    lines += [f"**{count['agree']} of {in_scope} cells in scope run and agree ({100 * share:.1f} %)**; "
              f"{count['differ']} differ, {count['engine error']} stop at an engine error; excluded: "
              f"{count['torch error']} where PyTorch raises too, {count['out of scope']} out of scope. "
              f"{len(files)} files, {len(cells)} cells (`python benchmarks/torch_port.py`).", ""]
    lines += ["| file | cells | agree | differ | engine error | excluded | source |", "|---|---|---|---|---|---|---|"]
    for f in files:
        c = Counter(x.verdict for x in f.cells)
        lines.append(f"| {f.name} | {len(f.cells)} | {c['agree']} | {c['differ']} | {c['engine error']} | "
                     f"{c['torch error'] + c['out of scope']} | {f.source} |")
    lines.append(f"| **all** | {len(cells)} | {count['agree']} | {count['differ']} | {count['engine error']} | "
                 f"{count['torch error'] + count['out of scope']} | |")
    lines += ["", "### Porting: missing APIs ranked by the cells they stop", "",
              "| API (or error) | cells stopped | of which blocked (a later cell needing its result) | files |",
              "|---|---|---|---|"]
    stopped, blocked, where = Counter(), Counter(), defaultdict(set)
    for c in cells:
        if c.verdict == "engine error":
            key = c.api or c.blocked_by
            stopped[key] += 1
            where[key].add(c.file)
            if c.blocked_by:
                blocked[key] += 1
    for key, n in sorted(stopped.items(), key=lambda kv: (-kv[1], kv[0])):
        lines.append(f"| `{key}` | {n} | {blocked[key]} | {', '.join(sorted(where[key]))} |")
    differ = [c for c in cells if c.verdict == "differ"]
    if differ:
        lines += ["", "### Porting: cells that run and differ", "", "| cell | first value that differs |", "|---|---|"]
        lines += [f"| {c.file} #{c.index} | {c.detail} |" for c in differ]
    lines += ["", "### Porting: scope rules (cells matching one are run on neither side)", ""]
    lines += [f"- {reason}: `{pattern}`" for pattern, reason in SCOPE_RULES]
    lines += ["", "- both sides float64 by default, CPU, the same seeds before every cell; the engine's random draws take PyTorch's "
              "values; a cell agrees when every value it changed (variables, their .grad, grad_fn names, "
              "requires_grad, printed and shown values) agrees to 1e-10 relative (1e-5 where float32)"]
    return "\n".join(lines) + "\n"


def write_results(section):
    """Replace this benchmark's section of RESULTS.md (or append it)."""
    replace_section(RESULTS, HEADING, section)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--timeout", type=int, default=300, help="seconds per cell")
    parser.add_argument("--only", nargs="*", help="file names (stems) to run")
    parser.add_argument("--write", action="store_true", help="write the section into RESULTS.md")
    parser.add_argument("--details", action="store_true", help="print every cell's verdict")
    parser.add_argument("--worker", nargs=3, metavar=("SIDE", "FILE", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        side, path, out = args.worker
        run_worker(side, path, out, args.timeout)
        return None
    try:
        import torch  # noqa: F401
    except ImportError:
        print("PyTorch is not installed: nothing to compare against")
        return None
    if not args.corpus.is_dir() or not any(args.corpus.glob("*.py")):
        print(f"no corpus at {args.corpus}: assemble it from the sources in benchmarks/torch_port_sources.md and "
              f"give its folder with --corpus DIR (or DIFFCOMPARE_PORT_CORPUS)", file=sys.stderr)
        return 2
    files = []
    for corpus_file in load_corpus(args.corpus):
        if args.only and corpus_file.name not in args.only:
            continue
        result = run_file(corpus_file, args.corpus / f"{corpus_file.name}.py", args.timeout, sys.executable)
        files.append(result)
        c = Counter(x.verdict for x in result.cells)
        print(f"{corpus_file.name}: {dict(c)}", file=sys.stderr)
        if args.details:
            for x in result.cells:
                print(f"  #{x.index} {x.verdict}: {x.api or x.blocked_by or ''} {x.detail}", file=sys.stderr)
    section = report(files)
    print(section)
    if args.write:
        write_results(section)
    return section


if __name__ == "__main__":
    main()
