import compileall
import gc
import os
import sys
from pathlib import Path

import pytest
from hypothesis import settings

sys.path.insert(0, str(Path(__file__).parent / "autograd"))  # the engine tests' shared helpers (op_catalogue, differential)
sys.path.insert(0, str(Path(__file__).parent))              # the tool's tests' shared custom ops (custom_ops)

# Property tests draw the same examples on every run (derandomize): a run never passes or
# fails by what Hypothesis happened to draw, and a failure is reproduced by running again.
# Cases that once failed are kept as @example in their tests.
# In CI (the README's test command on a fresh clone, within its time budget) each property
# test draws 30 examples; elsewhere 60.
settings.register_profile("diffcompare", max_examples=30 if os.environ.get("CI") else 60, deadline=None,
                          derandomize=True, database=None)
settings.load_profile("diffcompare")

# The bytecode of the package (and of the tests and benchmarks they import), written once:
# every process the tests start (the CLI run as users run it, the audit's worker processes,
# pytest-xdist's workers) reads it instead of compiling
# diffcompare's source again, also where PYTHONDONTWRITEBYTECODE is set (it stops only
# writing at import, not reading).
for _folder in ("diffcompare", "tests", "benchmarks"):
    compileall.compile_dir(str(Path(__file__).resolve().parents[1] / _folder), quiet=1)


@pytest.hookimpl(hookwrapper=True)
def pytest_collection(session):
    """Collection (importing some 900 modules, rewriting the tests' asserts) runs with Python's
    cyclic collector paused: what it builds lives on, and the collector's full scans of the
    growing heap cost a tenth of its time."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


@pytest.fixture(autouse=True)
def _default_dtypes_restored():
    """A test that sets PyTorch's (or the engine's) default dtype (to float64, to compare with the engine) leaves
    it as it found it: PyTorch's optimizers choose their step counter's dtype by it, so a later
    test on the same worker would otherwise see PyTorch behave differently."""
    torch = sys.modules.get("torch")
    previous = torch.get_default_dtype() if torch is not None else None
    yield
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_default_dtype(previous if previous is not None else torch.float32)
    engine = sys.modules.get("diffcompare.autograd.dtypes")
    if engine is not None:           # and the engine's default dtype, float64
        engine.set_default_dtype(engine.float64)


@pytest.fixture
def torch_float64():
    """PyTorch's default dtype float64 while a test runs, as the engine's (the autouse fixture
    above puts it back): a comparison file marks its tests with it (``pytestmark``). Without
    PyTorch installed, the test is skipped."""
    torch = pytest.importorskip("torch")
    torch.set_default_dtype(torch.float64)

