"""Devices on the CPU-only engine against PyTorch 2.13 (a CPU build): ``device`` objects, the
``device=`` keyword of the factories, ``Tensor.to``/``cpu``/``cuda``, ``cuda``, ``backends.mps``,
``accelerator`` and the default device; asking for CUDA raises what a CPU-only PyTorch raises."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from diffcompare import autograd as ag

torch = pytest.importorskip("torch")


def _raises(f):
    try:
        f()
    except Exception as error:   # noqa: BLE001 - the type and message are what is compared
        return type(error), str(error)
    return None


@pytest.mark.parametrize("spec", ["cpu", "cuda", "cuda:1", "cpu:0", "mps", "meta"])
def test_device_objects_as_torch(spec):
    mine, theirs = ag.device(spec), torch.device(spec)
    assert (mine.type, mine.index, str(mine), repr(mine)) == (theirs.type, theirs.index, str(theirs), repr(theirs))
    assert (mine == spec) == (theirs == spec)          # False: a device never equals a string
    assert mine == ag.device(spec) and hash(mine) == hash(ag.device(spec))
    assert pickle.loads(pickle.dumps(mine)) == mine


@pytest.mark.parametrize("args", [("cuda", 0), ("cpu", -1), ("foo",), ("cuda:x",), (1,)])
def test_device_errors_as_torch(args):
    mine, theirs = _raises(lambda: ag.device(*args)), _raises(lambda: torch.device(*args))
    assert mine == theirs


def test_availability_as_a_cpu_only_build():
    for name in ("is_available", "device_count"):
        assert getattr(ag.cuda, name)() == getattr(torch.cuda, name)()
    assert ag.backends.mps.is_available() == torch.backends.mps.is_available()
    assert ag.accelerator.is_available() == torch.accelerator.is_available()
    assert ag.accelerator.current_accelerator() == torch.accelerator.current_accelerator()
    assert ag.accelerator.device_count() == torch.accelerator.device_count()
    for name in ("current_device", "synchronize"):
        assert _raises(getattr(ag.cuda, name)) == _raises(getattr(torch.cuda, name))


@pytest.mark.parametrize("name", ["backends", "backends.cudnn", "backends.mps", "backends.cuda", "backends.mkldnn",
                                  "backends.mkl", "backends.openmp", "cuda", "cuda.amp", "cpu", "cpu.amp"])
def test_namespaces_import_as_torchs(name):
    """``import torch.backends.cudnn as cudnn`` (training scripts' first lines) and
    ``from torch.cuda.amp import GradScaler`` import, and their probes answer as a CPU build's."""
    import importlib
    mine, theirs = importlib.import_module(f"diffcompare.autograd.{name}"), importlib.import_module(f"torch.{name}")
    assert mine is eval(f"ag.{name}")       # noqa: S307 - a fixed attribute path, no user text
    for probe in ("is_available", "is_built", "version"):
        if hasattr(theirs, probe):
            assert getattr(mine, probe)() == getattr(theirs, probe)(), (name, probe)
    for flag in ("enabled", "benchmark", "deterministic", "allow_tf32"):
        if hasattr(theirs, flag) and name != "backends.mkldnn":
            assert getattr(mine, flag) == getattr(theirs, flag), (name, flag)


def test_sparse_accessors_refuse_a_dense_tensor_as_torch():
    """A dense tensor's ``values``/``indices``/... are there (read without a call, as
    ``torch.mean(x, dim=0).values`` is) and raise PyTorch's error when called."""
    x, t = ag.ones(2, 3, requires_grad=True), torch.ones(2, 3, requires_grad=True)
    for name in ("values", "indices", "coalesce", "is_coalesced", "crow_indices", "col_indices", "ccol_indices",
                 "row_indices"):
        assert callable(getattr(ag.mean(x, dim=0), name))
        assert _raises(getattr(x, name)) == _raises(getattr(t, name)), name
    assert x.to_dense() is x and t.to_dense() is t
    assert (x.sparse_dim(), x.dense_dim(), x.is_sparse_csr) == (t.sparse_dim(), t.dense_dim(), t.is_sparse_csr)


def test_the_tutorials_first_lines_run():
    for lib in (ag, torch):
        device = "cuda" if lib.cuda.is_available() else "cpu"
        assert device == "cpu"
        device = lib.accelerator.current_accelerator().type if lib.accelerator.is_available() else "cpu"
        assert device == "cpu"
        x = lib.ones(3, device=device).to(device)
        assert str(x.device) == "cpu" and x.device == lib.device("cpu")


FACTORIES = [
    ("tensor", lambda lib, **kw: lib.tensor([1.0, 2.0], **kw)),
    ("zeros", lambda lib, **kw: lib.zeros(2, 3, **kw)),
    ("ones", lambda lib, **kw: lib.ones((2,), **kw)),
    ("full", lambda lib, **kw: lib.full((2,), 1.5, **kw)),
    ("arange", lambda lib, **kw: lib.arange(4, **kw)),
    ("linspace", lambda lib, **kw: lib.linspace(0, 1, 5, **kw)),
    ("eye", lambda lib, **kw: lib.eye(3, **kw)),
    ("rand", lambda lib, **kw: lib.rand(2, **kw)),
    ("randn", lambda lib, **kw: lib.randn(2, **kw)),
    ("randint", lambda lib, **kw: lib.randint(0, 5, (3,), **kw)),
    ("zeros_like", lambda lib, **kw: lib.zeros_like(lib.ones(2), **kw)),
    ("ones_like", lambda lib, **kw: lib.ones_like(lib.ones(2), **kw)),
    ("full_like", lambda lib, **kw: lib.full_like(lib.ones(2), 3.0, **kw)),
    ("as_tensor", lambda lib, **kw: lib.as_tensor([1.0], **kw)),
]


@pytest.mark.parametrize("name,make", FACTORIES, ids=[f[0] for f in FACTORIES])
def test_factories_take_device(name, make):
    for device in ("cpu", ag.device("cpu"), "cpu:0", None):
        t = make(ag, device=device)
        assert t.device == ag.device("cpu")
    theirs = make(torch, device=torch.device("cpu"))
    assert make(ag, device="cpu").shape == tuple(theirs.shape)
    for device in ("cuda", "cuda:0"):
        assert _raises(lambda: make(ag, device=device)) == _raises(lambda: make(torch, device=device))
    with pytest.raises(RuntimeError, match="mps"):     # PyTorch's type varies by factory here
        make(ag, device="mps")


def test_to_as_torch():
    data = np.array([1.0, 2.0])
    x, tx = ag.tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)
    assert x.to("cpu") is x and tx.to("cpu") is tx
    assert x.to(ag.device("cpu")) is x and x.to(device="cpu") is x and x.cpu() is x
    for mine, theirs in [(x.to(ag.float32), tx.to(torch.float32)),
                         (x.to("cpu", ag.float32), tx.to("cpu", torch.float32)),
                         (x.to(device="cpu", dtype=ag.float32), tx.to(device="cpu", dtype=torch.float32)),
                         (x.to(ag.zeros(1, dtype=ag.float32)), tx.to(torch.zeros(1, dtype=torch.float32))),
                         (x.to("cpu", copy=True), tx.to("cpu", copy=True))]:
        assert str(mine.dtype) == str(theirs.dtype).replace("torch.", "")
        assert mine is not x and mine.grad_fn.name() == theirs.grad_fn.name() == "ToCopyBackward0"
        mine.sum().backward()
        theirs.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), tx.grad.numpy())
    for call in (lambda t: t.cuda(), lambda t: t.to("cuda"), lambda t: t.to("cuda", torch.float32 if t is tx
                                                                             else ag.float32), lambda t: t.to("mps")):
        assert _raises(lambda: call(x)) == _raises(lambda: call(tx))
    assert (x.is_cuda, x.is_cpu) == (tx.is_cuda, tx.is_cpu)


def test_default_device_as_torch():
    assert ag.get_default_device() == ag.device("cpu") and str(torch.get_default_device()) == "cpu"
    try:
        ag.set_default_device("cuda")
        torch.set_default_device("cuda")
        for call in (lambda lib: lib.zeros(2), lambda lib: lib.get_default_device()):
            assert _raises(lambda: call(ag)) == _raises(lambda: call(torch))
        ag.set_default_device("cpu")
        assert ag.zeros(2).device == ag.device("cpu")
    finally:
        ag.set_default_device(None)
        torch.set_default_device(None)
    assert ag.get_default_device() == ag.device("cpu")
