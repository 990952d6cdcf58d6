"""The fault harness: user code that takes processes down, audited the way CI audits it.

Each fault is a function in a suite's ``ops.py`` that does what real user code does to an
audit — a segmentation fault (``ctypes.string_at(0)``), an abort, ``os._exit``, the
out-of-memory killer's SIGKILL, ``sys.exit``, a ``BaseException``, an exception on part of
the domain, a ``MemoryError``, an exception whose message cannot be printed, a result that
is not a number (``None``, an object whose ``__float__`` raises), a loop in C, a loop that
takes over SIGALRM, a fork (multiprocessing's fork method, a child left running, a child that
escapes its process group with ``setsid``), output on the file descriptors, a closed
``sys.stdout``, an exit while its module is imported, and modules beside the suite named
like the standard library's. Every suite holds the faults between a right case and a wrong
one (a backward rule off by a factor): whatever the faults do, the audit must still report
the wrong gradient, pass the right one, give each fault's case its own cause, write its report
whole, leave no process behind and finish within its time budget.

``run(suite, route)`` runs ``diffcompare audit`` on such a suite as CI does (a separate
process, ``--format json`` on standard output and ``--report`` to a file) through a route:
``--jobs 1``, ``--jobs 2`` or a Dask cluster (:class:`LocalDask`, a scheduler and two worker
processes on 127.0.0.1) and returns what a person would check. Used by
``benchmarks/fault_survival.py`` (every fault, every route) and
``tests/auditing/test_faults.py`` (a few of them, fast).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

RIGHT_AND_WRONG = '''
import os, signal, sys, time
import diffcompare.autograd as ag
from diffcompare.language.functions import sin


def right(x):
    return sin(x) * x


class WrongCube(ag.Function):
    """x**3 with the backward of 2x² instead of 3x²."""
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * 2 * x ** 2
'''


@dataclass(frozen=True)
class Fault:
    """One kind of fault: the body of ``fault(x)`` in ops.py, what its case's status must be
    (``expect``, on every route) and a text its message must hold (``says``)."""
    name: str
    body: str
    expect: str
    says: str = ""
    files: dict = field(default_factory=dict)       # other files beside the suite: name -> text
    module: str = "ops"                             # the module the fault's case names
    hangs: bool = False


FAULTS = [
    Fault("segmentation fault", "import ctypes\nctypes.string_at(0)\nreturn x", "error", "SIGSEGV"),
    Fault("abort", "os.abort()", "error", "SIGABRT"),
    Fault("os._exit", "os._exit(0)", "error", "os._exit(0)"),
    Fault("killed (OOM)", "os.kill(os.getpid(), signal.SIGKILL)", "error", "SIGKILL"),
    Fault("sys.exit", "sys.exit(3)", "error", "sys.exit(3)"),
    Fault("BaseException", "class Stop(BaseException):\n    pass\nraise Stop('stop')", "error", "Stop"),
    Fault("exception on part of the domain", "if x > 1.0:\n    raise KeyError('missing')\nreturn sin(x)",
          "error", "KeyError: 'missing' (ops.py line"),
    Fault("MemoryError", "raise MemoryError()", "error", "MemoryError"),
    Fault("returns None", "return None", "error", "NoneType"),
    Fault("loop in C", "return sum(range(10 ** 13)) * x", "undecided", "timed out", hangs=True),
    Fault("takes over SIGALRM", "signal.signal(signal.SIGALRM, signal.SIG_IGN)\nwhile True:\n    time.sleep(0.05)",
          "undecided", "timed out", hangs=True),
    Fault("fork (multiprocessing)", "import multiprocessing\nchild = multiprocessing.get_context('fork')"
          ".Process(target=print)\nchild.start()\nchild.join()\nreturn sin(x) * x", "pass"),
    Fault("fork, child left running", "if os.fork() == 0:\n    time.sleep(600)\n    os._exit(0)\nreturn sin(x) * x",
          "pass"),
    Fault("prints", "print('to stdout', x)\nprint('to stderr', file=sys.stderr)\nos.write(1, b'to fd 1\\n')\n"
          "return sin(x) * x", "pass"),
    Fault("an exception that cannot be printed", "class Mute(Exception):\n    def __str__(self):\n"
          "        raise ValueError('no text')\nraise Mute()", "error", "Mute"),
    Fault("returns an object that is not a number", "class Thing:\n    def __float__(self):\n"
          "        raise RuntimeError('no float')\nreturn Thing()", "error", "not a number"),
    Fault("closes sys.stdout", "sys.stdout.close()\nreturn sin(x) * x", "pass"),
    Fault("fork, child escapes with setsid", "if os.fork() == 0:\n    os.setsid()\n    time.sleep(600)\n"
          "    os._exit(0)\nreturn sin(x) * x", "pass"),
    Fault("exit at import", "return x", "error", "os._exit(0)",
          files={"exits_at_import.py": "import os\nos._exit(0)\ndef fault(x):\n    return x\n"},
          module="exits_at_import"),
    Fault("stdlib-named modules beside the suite", "import json\njson.dumps({'a': 1}, indent=2)\nreturn sin(x) * x",
          "pass", files={"json.py": "raise RuntimeError('the suite folder json.py was imported')\n",
                         "multiprocessing.py": "raise RuntimeError('the suite folder multiprocessing.py "
                                               "was imported')\n"}),
]
BY_NAME = {f.name: f for f in FAULTS}


def write_suite(folder: Path, *faults: Fault) -> Path:
    """``folder``/suite.toml: a right case, one case per fault (named after it), a wrong case;
    their ops.py and the faults' other files."""
    folder.mkdir(parents=True, exist_ok=True)
    functions, cases = [], []
    for k, fault in enumerate(faults):
        name = "fault" if fault.module != "ops" else f"fault_{k}"
        if fault.module == "ops":
            functions.append(f"\n\ndef {name}(x):\n{textwrap.indent(fault.body, '    ')}\n")
        for file, text in fault.files.items():
            (folder / file).write_text(text)
        cases.append((fault.name, f"{fault.module}:{name}"))
    (folder / "ops.py").write_text(RIGHT_AND_WRONG + "".join(functions))
    cases = [("right", "ops:right")] + cases + [("wrong", "ops:WrongCube")]
    (folder / "suite.toml").write_text("[defaults]\nrandom = 3\n" + "".join(
        f'\n[[case]]\nname = "{name}"\nfunction = "{function}"\ndomain = {{ x = [0.5, 1.5] }}\n'
        for name, function in cases))
    return folder / "suite.toml"


@dataclass
class Outcome:
    """What a person checks after an audit: its exit status, the cases in the report file and
    on standard output (both whole JSON), processes left behind, and the time it took."""
    exit_status: int | None
    cases: dict                 # name -> (status, message), from the report file
    stdout_cases: dict          # the same, from the JSON on standard output (None: not JSON)
    left_behind: list           # pids of the audit's processes still running after it ended
    seconds: float
    stderr: str


def _marked(marker: str) -> list:
    """The pids of the processes whose environment holds ``marker`` (Linux: /proc)."""
    found = []
    needle = f"DIFFCOMPARE_FAULT_RUN={marker}".encode()
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as handle:
                if needle in handle.read().split(b"\0"):
                    found.append(int(entry))
        except OSError:
            continue
    return found


def _cases(text: str) -> dict | None:
    try:
        data = json.loads(text)
    except ValueError:
        return None
    return {c["name"]: (c["status"], c.get("error") or c.get("verdict", "")) for c in data.get("cases", [])}


def run(suite: Path, route: str, case_timeout: float = 4.0, timeout: float = 120.0, scheduler: str | None = None,
        limit: float = 180.0) -> Outcome:
    """Audit ``suite`` through ``route`` ("jobs 1", "jobs 2", "dask" with ``scheduler``) in a
    process of its own, as CI runs it; ``limit`` seconds before the harness kills it (a
    hang of the audit itself)."""
    marker = uuid.uuid4().hex
    report = suite.parent / f"report-{marker}.json"
    command = [sys.executable, "-m", "diffcompare", "audit", str(suite), "--format", "json", "--report", str(report),
               "--case-timeout", str(case_timeout), "--timeout", str(timeout)]
    command += ["--scheduler", scheduler] if route == "dask" else ["--jobs", route.split()[-1]]
    environment = {**os.environ, "DIFFCOMPARE_FAULT_RUN": marker, "CI": "true",
                   "PYTHONPATH": os.pathsep.join([str(ROOT)] + [p for p in os.environ.get("PYTHONPATH", "").split(
                       os.pathsep) if p])}
    start = time.perf_counter()
    process = subprocess.Popen(command, cwd=suite.parent, env=environment, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        out, err = process.communicate(timeout=limit)
        status = process.returncode
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        out, err = process.communicate()
        status = None
    seconds = time.perf_counter() - start
    time.sleep(0.3)                         # a worker being reaped as its parent ended
    left = _marked(marker)
    for pid in left:                        # the harness cleans up what the audit left
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    cases = _cases(report.read_text()) if report.exists() else None
    return Outcome(status, cases or {}, _cases(out.decode("utf-8", "replace")), left, seconds,
                   err.decode("utf-8", "replace"))


def judged(outcome: Outcome, faults) -> list:
    """What went wrong, in words (empty: the audit survived the faults with the right verdicts)."""
    faults = [faults] if isinstance(faults, Fault) else list(faults)
    problems = []
    if outcome.exit_status != 1:
        problems.append(f"exit status {outcome.exit_status}, not 1 (the wrong case fails)")
    names = {"right", "wrong"} | {f.name for f in faults}
    if set(outcome.cases) != names:
        problems.append(f"the report file holds {sorted(outcome.cases) or 'nothing'}")
    if outcome.stdout_cases != outcome.cases:
        problems.append("standard output is not the report's JSON")
    expected = [("right", "pass", None), ("wrong", "fail", None)] + [
        (f.name, f.expect, f.says) for f in faults]
    for name, status, says in expected:
        got = outcome.cases.get(name, ("missing", ""))
        if got[0] != status:
            problems.append(f"{name}: {got[0]}, not {status} ({got[1][:120]})")
        elif says and says not in got[1]:
            problems.append(f"{name}: the message does not say {says!r}: {got[1][:160]}")
    if outcome.left_behind:
        problems.append(f"{len(outcome.left_behind)} process(es) left running")
    return problems


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class LocalDask:
    """A Dask scheduler and ``workers`` worker processes (one thread each, with their nanny)
    on 127.0.0.1, started as a person would start them; ``restart()`` replaces the workers
    (after a fault that leaves one busy for good); ``close()`` ends everything."""

    def __init__(self, workers: int = 2, folder: Path | None = None):
        self.port = free_port()
        self.address = f"tcp://127.0.0.1:{self.port}"
        self.workers_count = workers
        self.folder = folder or Path(tempfile.mkdtemp())
        self.environment = {**os.environ, "PYTHONPATH": os.pathsep.join(
            [str(ROOT)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])}
        self.scheduler = self._start([sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
                                      "--port", str(self.port), "--no-dashboard"])
        self.workers = None
        self._wait_for_port()
        self.restart()

    def _start(self, command):
        return subprocess.Popen(command, cwd=self.folder, env=self.environment, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, start_new_session=True)

    def _wait_for_port(self, seconds: float = 30.0):
        give_up = time.monotonic() + seconds
        while time.monotonic() < give_up:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                time.sleep(0.2)
        raise RuntimeError(f"the Dask scheduler did not start on port {self.port}")

    def restart(self, seconds: float = 60.0):
        """New worker processes (the old ones, busy or not, are killed)."""
        if self.workers is not None:
            _kill_group(self.workers)
            self.workers = None
        if not self.workers_count:
            return
        self.workers = self._start([sys.executable, "-m", "distributed.cli.dask_worker", self.address, "--nworkers",
                                    str(self.workers_count), "--nthreads", "1", "--no-dashboard"])
        from distributed import Client
        with Client(self.address, timeout="20s") as client:
            client.wait_for_workers(self.workers_count, timeout=seconds)

    def kill_scheduler(self):
        _kill_group(self.scheduler)

    def close(self):
        for process in (self.workers, self.scheduler):
            if process is not None:
                _kill_group(process)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _kill_group(process):
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except OSError:
        pass
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass
