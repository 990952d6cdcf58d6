"""Supervised worker processes: where an audit runs user code (suite modules, functions,
custom backward rules, user gradients), so that nothing it does can take the audit down.

The supervisor (the audit's own process) runs no user code and patches nothing. Each worker
is a process that has run no user code, never a fork of the supervisor: on Linux a fork of
the supervisor's fork server (``forkserver.py``: a warm interpreter with the engine and SymPy
imported), elsewhere a new interpreter (``python -c``). It runs in a session of its own and
dies with its parent (Linux: PR_SET_PDEATHSIG; elsewhere it notices its parent is gone);
units of work (a batch of a case's points) go to it over a pipe of its own, and results come
back the same way. Then:

- a crash of any kind — a signal (SIGSEGV, SIGABRT, the OOM killer's SIGKILL), ``os._exit``,
  an exit at import — ends the unit it was running: its case is an error with the cause (the
  signal's name or the exit code, and what the worker printed last: Python's fault handler
  names the line), the worker is replaced and every other unit runs;
- the supervisor enforces the deadlines — a budget per unit (``unit_timeout``) and the whole
  audit's — by killing the worker's whole process group: a loop in C, code that takes over
  SIGALRM, a child it forked;
- forks in user code are harmless (they are the worker's children, killed with it);
- what user code prints to standard output and error is captured per unit (its file
  descriptors 1 and 2), never mixed into the audit's own output.

On a Dask cluster each task does the same on its worker (:func:`run_in_dask_worker`): the
Dask worker supervises a process of this kind, so a crash or a hang ends one unit, not the
Dask worker and the tasks beside it.

>>> from diffcompare.auditing.suite import Case
>>> with Pool(1) as pool:
...     batches = pool.run([Case("cube", expression="x**3", at=[{"x": 2.0}])], {"points": 0, "adversarial": False})
>>> [(b.case.status, b.case.points[0].reference) for b in batches]
[('pass', [12.0])]
"""

from __future__ import annotations

import os
import pickle
import signal
import subprocess
import sys
import tempfile
import threading
import time
from multiprocessing.connection import Connection, wait

from diffcompare.auditing.batch import BATCH, Batch, run_batch, unit_failed, unit_timed_out
from diffcompare.auditing.forkserver import HOME, die_with_parent, fork_worker
from diffcompare.problem.errors import InputError
from diffcompare.problem.usercode import innermost_user_line, is_user_file

UNIT_TIMEOUT = 300.0            # seconds a unit (a batch of one case's points) may take, by default
OUTPUT_LIMIT = 16_000           # characters of a unit's captured output kept in the report
POLL = 0.5                      # seconds between looks at the workers' processes
STARTUP_LIMIT = 120.0           # seconds a worker's interpreter may take to start
READY = b"ready"                # what a worker says once it has started


# the worker's start (without the fork server): this diffcompare first on its path, in place of
# the current folder that ``-c`` puts there (a json.py in it would replace the standard library's)
BOOTSTRAP = ("import sys; sys.path[0] = sys.argv[1]; from diffcompare.auditing.workers import serve; "
             "serve(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]))")


class Worker:
    """One worker process, its pipes, and the unit it is running."""

    def __init__(self, idle_exit: float = 0.0):
        to_worker_r, to_worker_w = os.pipe()
        from_worker_r, from_worker_w = os.pipe()
        # what the worker itself prints (Python's fault handler on a crash): a file with no name,
        # so that nothing is left behind even when the supervisor is killed
        self.log = tempfile.TemporaryFile()
        # forked from the warm fork server (it gets copies of the descriptors), or a new interpreter
        self.process = fork_worker(to_worker_r, from_worker_w, self.log.fileno(), idle_exit)
        if self.process is None:
            self.process = subprocess.Popen(
                [sys.executable, "-c", BOOTSTRAP, HOME, str(to_worker_r), str(from_worker_w), str(os.getpid()),
                 str(idle_exit)],
                stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log, pass_fds=(to_worker_r, from_worker_w),
                start_new_session=True, env=dict(os.environ), cwd=os.getcwd())
        os.close(to_worker_r)
        os.close(from_worker_w)
        self.send_to = Connection(to_worker_w, readable=False)
        self.receive_from = Connection(from_worker_r, writable=False)
        self.unit = None                # (index, case, start) being run
        self.deadline = None            # monotonic time by which it must answer
        self.ready = False              # its interpreter has started (the unit's clock runs from then)
        self.budget = None              # (seconds for the unit, the audit's wall-clock deadline)

    def start(self, unit, settings, budget: float | None, audit_deadline: float | None):
        index, case, start = unit
        self.unit, self.budget = unit, (budget, audit_deadline)
        self._arm()
        # the supervisor's Python path comes along: a module:function found there is found here too
        self.send_to.send_bytes(pickle.dumps((index, case, start, settings, [p for p in sys.path if p])))

    def _arm(self):
        """The deadline of the unit: its budget from when the worker is ready (an interpreter
        starting on a loaded machine does not use the case's time), the audit's in any case."""
        budget, audit_deadline = self.budget
        now = time.monotonic()
        deadline = (None if budget is None else now + budget) if self.ready else now + STARTUP_LIMIT
        if audit_deadline is not None:
            left = now + max(0.0, audit_deadline - time.time())
            deadline = left if deadline is None else min(deadline, left)
        self.deadline = deadline

    def finish(self) -> Batch | None:
        """The batch the worker sent, or None when it said it is ready."""
        message = self.receive_from.recv_bytes()
        if message == READY:
            self.ready = True
            if self.unit is not None:
                self._arm()
            return None
        batch = pickle.loads(message)
        self._done()
        return batch

    def _done(self):
        self.unit, self.deadline, self.budget = None, None, None

    def why_gone(self) -> str:
        """How the worker ended, in words: the signal or the exit code."""
        try:
            code = self.process.wait(timeout=2)     # its pipe closed as it died: let it be reaped
        except subprocess.TimeoutExpired:
            code = None
        if code is None:
            return "it stopped answering"
        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            more = {"SIGKILL": " (killed from outside: the out-of-memory killer?)",
                    "SIGSEGV": " (a segmentation fault)", "SIGABRT": " (an abort)",
                    "SIGBUS": " (a bus error)", "SIGFPE": " (a floating-point trap)"}.get(name, "")
            return f"it was killed by {name}{more}"
        return f"it exited with code {code} (os._exit, or an exit the function could not be stopped from making)"

    def last_words(self) -> str:
        """The line where the worker crashed, as Python's fault handler names it (or the last
        line it printed)."""
        try:
            self.log.seek(0)
            text = self.log.read().decode("utf-8", errors="replace")
        except (OSError, ValueError):
            text = ""
        lines = [line for line in text.strip().splitlines() if line.strip()]
        exits = [line.strip() for line in lines if line.startswith(EXIT_MARK)]
        if exits:
            return exits[-1]
        return innermost_user_line(lines) or (lines[-1].strip() if lines else "")

    def kill(self):
        """End the worker and everything it started: its process group, and the processes
        that left it (a child that called ``setsid``) but descend from the worker."""
        _end_descendants(self.process.pid)
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass

    def ask_to_stop(self):
        try:
            self.send_to.send_bytes(b"")
        except OSError:
            pass

    def close(self):
        """Ask the worker to stop, then make sure it and its children are gone."""
        if self.process.poll() is None:
            _end_descendants(self.process.pid)      # before they lose their parent, and with it their trace
        self.ask_to_stop()
        try:
            self.process.wait(timeout=2)
        except subprocess.TimeoutExpired:
            pass
        self.kill()
        self._done()
        for connection in (self.send_to, self.receive_from):
            try:
                connection.close()
            except OSError:
                pass
        try:
            self.log.close()
        except OSError:
            pass


class Pool:
    """``jobs`` supervised workers; ``run(cases, settings, progress)`` audits every batch of
    every case and returns the batches, whatever user code does. ``idle_exit`` (seconds, for
    a pool kept between audits: a Dask worker's) ends a worker left idle that long, with what
    user code left running."""

    def __init__(self, jobs: int = 1, unit_timeout: float | None = UNIT_TIMEOUT, idle_exit: float = 0.0):
        self.jobs, self.unit_timeout, self.idle_exit = jobs, unit_timeout, idle_exit
        self.last_used = time.monotonic()
        self.workers: list = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        """Stop every worker (and whatever it started): an idle one is asked to, a busy one
        (the audit interrupted, or given up) is killed at once."""
        for worker in self.workers:
            if worker.process.poll() is None:
                _end_descendants(worker.process.pid)    # while they still have the worker as a parent
            if worker.unit is not None:
                worker.kill()
            else:
                worker.ask_to_stop()
        for worker in self.workers:
            worker.close()
        self.workers = []

    def run(self, cases, settings, progress=None, collected=None) -> list:
        for case in cases:
            try:
                pickle.dumps(case)
            except Exception:
                raise InputError(f"case {case.name!r}: its function cannot be sent to a worker process (a lambda "
                                 f"or a function defined inside another): name it as 'module:function', or audit "
                                 f"it in this process (jobs=1)") from None
        return self._run([(i, case, 0) for i, case in enumerate(cases)], settings, progress, collected)

    def run_unit(self, index: int, case, start: int, settings: dict) -> Batch:
        """One unit (points ``start`` onward of case ``index``, one batch), whatever it does:
        what a Dask task runs, so that a crash or a hang ends the unit, not the Dask worker."""
        if self.idle_exit and time.monotonic() - self.last_used > self.idle_exit / 2:
            self.close()                    # it may be ending itself just now: start afresh
        for worker in [w for w in self.workers if w.process.poll() is not None]:
            worker.close()                  # ended while idle (its parent thread ended, say)
            self.workers.remove(worker)
        try:
            return self._run([(index, case, start)], settings, follow=False)[0]
        finally:
            self.last_used = time.monotonic()

    def _run(self, queue, settings, progress=None, collected=None, follow=True) -> list:
        """Run the units in ``queue``; with ``follow``, a case's first batch queues the rest."""
        cases = {index: case for index, case, _ in queue}
        total, results = len(queue), ([] if collected is None else collected)
        audit_deadline = settings.get("deadline")
        while queue or any(w.unit is not None for w in self.workers):
            self._fill(queue, settings, audit_deadline)
            busy = [w for w in self.workers if w.unit is not None]
            timeout = self._wait_for(busy)
            # (a child the worker forked may hold its pipe open after it died: look at it twice a second)
            ready = wait([w.receive_from for w in busy], POLL if timeout is None else min(timeout, POLL))
            now = time.monotonic()
            for worker in busy:
                batch = None
                if worker.receive_from in ready or worker.receive_from.poll():
                    try:
                        batch = worker.finish()
                    except (EOFError, OSError):
                        batch = self._lost(worker, settings, worker.why_gone())
                    if batch is None:
                        continue
                elif worker.process.poll() is not None:
                    batch = self._lost(worker, settings, worker.why_gone())
                elif worker.deadline is not None and now >= worker.deadline:
                    over_all = audit_deadline is not None and time.time() >= audit_deadline
                    batch = self._lost(worker, settings, None, timed_out=True, whole=over_all)
                if batch is None:
                    continue
                results.append(batch)
                if follow and batch.start == 0:
                    for start in range(BATCH, batch.total, BATCH):
                        queue.append((batch.index, cases[batch.index], start))
                        total += 1
                if progress is not None:
                    progress(len(results), total)
        return results

    def _fill(self, queue, settings, audit_deadline):
        """Give every idle worker a unit (starting workers up to ``jobs``)."""
        while queue:
            idle = [w for w in self.workers if w.unit is None]
            if not idle and len(self.workers) < self.jobs:
                self.workers.append(Worker(self.idle_exit))
                continue
            if not idle:
                return
            idle[0].start(queue.pop(0), settings, self.unit_timeout, audit_deadline)

    def _wait_for(self, busy) -> float | None:
        deadlines = [w.deadline for w in busy if w.deadline is not None]
        if not deadlines:
            return None
        return max(0.0, min(deadlines) - time.monotonic()) + 0.01

    def _lost(self, worker, settings, how, timed_out=False, whole=False) -> Batch:
        """The batch of a unit whose worker died or was killed; the worker is replaced."""
        index, case, start = worker.unit
        worker.kill()
        last = worker.last_words()
        worker.close()
        self.workers.remove(worker)
        if timed_out:
            batch = unit_timed_out(index, case, start, settings, None if whole else self.unit_timeout,
                                   "the worker running them was stopped")
        elif last.startswith(EXIT_MARK):
            batch = unit_failed(index, case, start, settings, "crashed",
                                f"the function called {last.removeprefix(EXIT_MARK)}, which ends the process running "
                                f"it: a function that exits cannot be audited")
        else:
            batch = unit_failed(index, case, start, settings, "crashed",
                                f"the process running this case's function died: {how}"
                                + (f"; its last words: {last}" if last else ""))
        return batch


def _descendants(root: int) -> list:
    """The pids of every process descending from ``root`` (Linux: /proc; elsewhere none)."""
    parents = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return []
    for entry in entries:
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as handle:
                    parents[int(entry)] = int(handle.read().rsplit(b")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
    found, frontier = [], {root}
    while frontier:
        children = [pid for pid, parent in parents.items() if parent in frontier and pid not in found]
        found += children
        frontier = set(children)
    return found


def _end_descendants(root: int):
    """SIGKILL every process descending from ``root`` (a few rounds: one may fork meanwhile)."""
    for _ in range(3):
        family = _descendants(root)
        if not family:
            return
        for pid in family:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass


# -- the worker's side ---------------------------------------------------------------------

EXIT_MARK = "exit: "


def _report_exits(log):
    """Make ``os._exit`` in this worker say where it was called (in its log) before it exits;
    a child that user code forked exits as it would."""
    real_exit, me = os._exit, os.getpid()

    def exiting(code=0):
        if os.getpid() == me:
            frame = sys._getframe(1)
            while frame is not None and not is_user_file(frame.f_code.co_filename):
                frame = frame.f_back
            at = f" ({os.path.basename(frame.f_code.co_filename)} line {frame.f_lineno}, in " \
                 f"{frame.f_code.co_name})" if frame is not None else ""
            try:
                log.write(f"{EXIT_MARK}os._exit({code!r}){at}\n")
                log.flush()
            except (OSError, ValueError):
                pass
        real_exit(code)
    os._exit = exiting


def _flush(*streams):
    for stream in streams:
        try:
            stream.flush()
        except Exception:       # noqa: BLE001  (user code may have closed or replaced it)
            pass


def _usable(stream, fd: int):
    """``stream``, or a new one on ``fd`` when user code closed it."""
    if stream is not None and not getattr(stream, "closed", True):
        return stream
    return open(fd, "w", buffering=1, closefd=False, encoding="utf-8", errors="replace")


def _captured(run):
    """``run()`` with file descriptors 1 and 2 pointed at a file with no name: (its result,
    what was printed there — the end of it, when long). What user code changed of the
    process's standard streams and working folder is put back for the next unit."""
    streams, folder = (sys.stdout, sys.stderr), os.getcwd()
    _flush(*streams)
    saved = os.dup(1), os.dup(2)
    with tempfile.TemporaryFile() as target:
        os.dup2(target.fileno(), 1)
        os.dup2(target.fileno(), 2)
        try:
            result = run()
        finally:
            _flush(sys.stdout, sys.stderr, *streams)
            sys.stdout, sys.stderr = (_usable(stream, fd) for stream, fd in zip(streams, (1, 2)))
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])
            try:
                os.chdir(folder)
            except OSError:
                pass
        target.seek(0, os.SEEK_END)
        size = target.tell()
        target.seek(max(0, size - 4 * OUTPUT_LIMIT))        # the end of it: megabytes are not read whole
        text = target.read().decode("utf-8", errors="replace")
    if size > 4 * OUTPUT_LIMIT or len(text) > OUTPUT_LIMIT:
        text = "…" + text[-OUTPUT_LIMIT:]
    return result, text


_POOLS = threading.local()
DASK_IDLE_EXIT = 60.0           # seconds a Dask worker's supervised process waits for the next unit


def run_in_dask_worker(index: int, case, start: int, settings: dict, unit_timeout: float | None) -> Batch:
    """A Dask task: the unit, run by a supervised worker process that this Dask worker's thread
    keeps for the next unit (its start-up is paid once per thread). A segmentation fault, an
    ``os._exit`` or a hang in user code ends that process, and the unit, with its cause; the
    Dask worker and every other task on it go on."""
    pool = getattr(_POOLS, "pool", None)
    if pool is None or pool.unit_timeout != unit_timeout:
        if pool is not None:
            pool.close()
        pool = _POOLS.pool = Pool(1, unit_timeout, idle_exit=DASK_IDLE_EXIT)
    return pool.run_unit(index, case, start, settings)


_EXIT = os._exit        # (``_report_exits`` replaces os._exit for user code: this one says nothing)


def _end_now(log):
    """End the worker at once, its streams flushed: an interpreter's ordinary shutdown (SymPy's
    and NumPy's objects finalised one by one, user code's atexit handlers, which could print or
    hang) takes half a second or more, and the supervisor waits for it at the end of every audit."""
    for stream in (sys.stdout, sys.stderr, log):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    _EXIT(0)


def serve(receive_fd: int, send_fd: int, parent: int, idle_exit: float = 0.0) -> None:
    """The worker's loop: receive a unit, run it with its output captured, send the batch.
    With ``idle_exit`` (seconds), a worker left idle that long ends, with its process group:
    whatever user code left running (a forked child) goes with it."""
    die_with_parent(parent, subreaper=True)
    signal.signal(signal.SIGINT, signal.SIG_IGN)    # Ctrl-C is the supervisor's to handle
    import faulthandler
    # a crash's trace goes to the worker's own log (the supervisor reads it), not to the unit's output
    log = os.fdopen(os.dup(2), "w")
    faulthandler.enable(file=log, all_threads=False)
    _report_exits(log)
    receive, send = Connection(receive_fd, writable=False), Connection(send_fd, readable=False)
    import sympy  # noqa: F401  (every reference needs it: its import is the worker's start, not a case's time)
    try:
        send.send_bytes(READY)
    except OSError:
        return
    while True:
        if idle_exit > 0 and not receive.poll(idle_exit):
            _end_descendants(os.getpid())
            os.killpg(os.getpgrp(), signal.SIGKILL)
        try:
            message = receive.recv_bytes()
        except (EOFError, OSError):
            message = b""
        if not message:             # asked to stop, or the supervisor is gone
            _end_now(log)
        index, case, start, settings, path = pickle.loads(message)
        sys.path.extend(p for p in path if p not in sys.path)      # after its own: nothing is shadowed
        batch, output = _captured(lambda: run_batch(index, case, start, settings, in_worker=True))
        batch.case.output = output
        try:
            send.send_bytes(pickle.dumps(batch))
        except (OSError, pickle.PicklingError):
            return

