"""Shared set-up for the benchmarks: one BLAS thread, timing by best of repeats, PyTorch
when it is installed, and a results file.

Import this module before NumPy: the thread pins only take effect before BLAS loads.
Every number a benchmark reports is a ratio against a baseline timed in the same run, on
the same data: these machines are shared and noisy, absolute times are not comparable.
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import time
import types
from pathlib import Path

for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))   # run from a checkout too

RESULTS = Path(__file__).resolve().parent / "RESULTS.md"


def load_torch():
    """PyTorch pinned to one thread, or None when it is not installed."""
    try:
        import torch
    except ImportError:
        return None
    torch.set_num_threads(1)
    return torch


def load_baseline(path):
    """The ``diffcompare.autograd`` of another checkout at ``path`` (say the main branch's),
    imported beside this one under the package name ``baseline_diffcompare``, so that both
    engines are timed in the same run. Its package ``__init__`` is not run; its absolute
    imports of ``diffcompare`` (outside the autograd package) get this checkout's modules."""
    package = Path(path).resolve() / "diffcompare"
    if not (package / "autograd" / "__init__.py").exists():
        raise SystemExit(f"--baseline: no diffcompare/autograd package under {path}")
    name = "baseline_diffcompare"
    if name not in sys.modules:
        parent = types.ModuleType(name)
        parent.__path__ = [str(package)]
        sys.modules[name] = parent
    return importlib.import_module(f"{name}.autograd")


def best_time(func, repeat=7, min_time=0.05):
    """The best per-call time of ``func`` over ``repeat`` rounds of enough calls to last
    ``min_time`` seconds (as timeit does): the least disturbed measurement."""
    calls, elapsed = 1, 0.0
    while True:
        start = time.perf_counter()
        for _ in range(calls):
            func()
        elapsed = time.perf_counter() - start
        if elapsed >= min_time or calls >= 1 << 20:
            break
        calls *= 2
    best = elapsed / calls
    for _ in range(repeat - 1):
        start = time.perf_counter()
        for _ in range(calls):
            func()
        best = min(best, (time.perf_counter() - start) / calls)
    return best


def table(title, header, rows, notes=()):
    """Print a Markdown table and return it (run_all collects them into RESULTS.md)."""
    lines = [f"### {title}", "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    if notes:
        lines += [""] + [f"- {n}" for n in notes]
    text = "\n".join(lines) + "\n"
    print(text)
    return text


def ratio(x):
    return f"{x:.2f}x"


def micros(seconds):
    return f"{seconds * 1e6:.2f} µs"


class LazyEngines:
    """The engines a catalogue of rules runs on — diffcompare's, PyTorch's and JAX's — each
    built on first use (None where not installed). A subclass names its three Ops classes
    (``ENGINE``, ``TORCH``, ``JAX``: built from nothing, the torch module, the jax module)."""
    ENGINE = TORCH = JAX = None

    def __init__(self):
        self._built = {}

    def _once(self, name, build):
        if name not in self._built:
            self._built[name] = build()
        return self._built[name]

    @property
    def engine(self):
        return self._once("engine", self.ENGINE)

    @property
    def torch(self):
        def build():
            try:
                import torch
            except ImportError:
                return None
            torch.set_num_threads(1)
            return self.TORCH(torch)
        return self._once("torch", build)

    @property
    def jax(self):
        def build():
            try:
                import jax
            except ImportError:
                return None
            jax.config.update("jax_enable_x64", True)
            return self.JAX(jax)
        return self._once("jax", build)


def tools_footer(start: float, tools) -> str:
    """The last line of a tools' comparison: its time, and the tools not installed."""
    skipped = [t for t in ("gradcheck", "check_grads") if t not in tools]
    return (f"\n{time.perf_counter() - start:.0f} s in all"
            + (f"; not installed, skipped: {', '.join(skipped)}" if skipped else "") + "\n")


def baseline_commit(path):
    """The short commit id checked out at ``path`` ('?' when git cannot say)."""
    try:
        return subprocess.run(["git", "-C", path, "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "?"


def replace_section(path, heading, text):
    """Put ``text`` (a section starting with ``heading``, a Markdown heading such as
    ``"### Title"``) into the file at ``path``: in place of the earlier section of that heading,
    which ends at the next heading of its level or a higher one, or at the end.

    >>> import pathlib, tempfile
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "R.md"
    >>> _ = f.write_text("# R\\n\\n### A\\nold\\n\\n## B\\nkept\\n")
    >>> replace_section(f, "### A", "### A\\nnew\\n"); f.read_text()
    '# R\\n\\n### A\\nnew\\n\\n## B\\nkept\\n'
    """
    old = path.read_text() if path.exists() else "# Benchmark results\n"
    start = old.find(heading)
    if start < 0:
        path.write_text(old.rstrip("\n") + "\n\n" + text.rstrip("\n") + "\n")
        return
    level = len(heading) - len(heading.lstrip("#"))
    ends = [e for e in (old.find("\n" + "#" * k + " ", start + len(heading)) for k in range(1, level + 1)) if e >= 0]
    rest = old[min(ends) + 1:] if ends else ""
    path.write_text(old[:start] + text.rstrip("\n") + "\n" + ("\n" + rest if rest else ""))
