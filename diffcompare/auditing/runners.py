"""Where an audit's units of work run: here, one after another (``jobs=1``); in
``jobs`` processes on this machine; or on a Dask distributed cluster (``scheduler``,
the optional extra ``dask[distributed]``). A unit is one batch of one case's points;
the first batch of a case tells how many points it has, and the others follow. The
results do not depend on where or in which order units ran. Away from this process, user
code always runs in a supervised worker process (:mod:`diffcompare.auditing.workers`), on
this machine or on each Dask worker.
"""

from __future__ import annotations

import re
import socket
import time
from contextlib import contextmanager

from diffcompare.auditing.batch import BATCH, run_batch, unit_failed, unit_timed_out
from diffcompare.auditing.workers import Pool, run_in_dask_worker
from diffcompare.problem.errors import InputError
from diffcompare.problem.usercode import message
from diffcompare.problem.values import whole_number
from diffcompare.version import install_hint

MAX_JOBS = 256


class _Done:
    """A finished unit, for the serial runner (the interface of a future)."""

    def __init__(self, value):
        self.value = value

    def result(self):
        return self.value


@contextmanager
def runner(jobs: int = 1, scheduler: str | None = None, isolate: bool = False, unit_timeout: float | None = None):
    """A function ``run(cases, settings, progress, collected) -> [Batch]`` using the chosen
    workers: ``jobs`` supervised worker processes (:mod:`diffcompare.auditing.workers`: user
    code cannot take the audit down, ``unit_timeout`` bounds each batch) when ``isolate`` or
    ``jobs`` > 1; this process when ``jobs`` is 1 and not ``isolate`` (``assert_gradients``
    in the user's own test process); or a Dask cluster (``scheduler``)."""
    whole_number(jobs, "--jobs", 1, MAX_JOBS)
    if scheduler is not None:
        with _dask(scheduler, unit_timeout) as run:
            yield run
    elif isolate or jobs > 1:
        with Pool(jobs, unit_timeout) as pool:
            yield pool.run
    else:
        yield lambda cases, settings, progress, collected=None: _drive(
            lambda *a: _Done(run_batch(*a)), lambda pending, timeout: (set(pending), set()), cases, settings, progress,
            collected)


DASK_POLL = 1.0     # seconds between looks at the Dask futures (the deadlines, the scheduler's health)
DASK_GRACE = 10.0   # seconds a Dask task may run past its unit's budget (its supervised process ends it)


@contextmanager
def _dask(address: str, unit_timeout: float | None):
    try:
        from distributed import Client
    except ImportError:
        raise InputError(f"--scheduler needs Dask: {install_hint('dask')}") from None
    refused = _refused(address)
    if refused:
        raise InputError(f"cannot reach the Dask scheduler at {address!r}: {refused}")
    with _quiet_logs():
        try:
            client = Client(address, timeout="10s")
        except (OSError, TimeoutError, ValueError) as error:
            raise InputError(f"cannot reach the Dask scheduler at {address!r}: {error}") from None
        cluster = _Cluster(client, address)
        # each task runs its unit in a supervised process on the Dask worker, which enforces the
        # budget itself; the budget here (longer) catches a Dask worker that stopped answering
        outer = None if unit_timeout is None else unit_timeout + DASK_GRACE
        try:
            yield lambda cases, settings, progress, collected=None: _drive(
                lambda *a: client.submit(run_in_dask_worker, *a, unit_timeout, pure=False), cluster.waiting, cases,
                settings, progress, collected, lost=cluster.lost, overdue=cluster.overdue, started=cluster.started,
                unit_timeout=outer, poll=DASK_POLL)
        finally:
            try:
                client.close(timeout=5)
            except Exception:           # a scheduler that died: nothing left to close
                pass


@contextmanager
def _quiet_logs():
    """Dask's and its network libraries' logs silenced: a lost scheduler or worker is reported
    in the case, not in 40 lines of log."""
    import logging
    quiet = [logging.getLogger(name) for name in ["distributed", "tornado", "asyncio"] + [
        name for name in list(logging.Logger.manager.loggerDict) if name.startswith("distributed.")]]
    levels = [logger.level for logger in quiet]
    for logger in quiet:
        logger.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        for logger, level in zip(quiet, levels):
            logger.setLevel(level)


_CRASHED = "the function crashed its process (a segmentation fault, an abort, os._exit, the out-of-memory killer)"


class _Cluster:
    """What the driver asks a Dask cluster: which units finished, when each began, why one was
    lost or is overdue."""

    def __init__(self, client, address: str):
        self.client, self.address = client, address
        self.began: dict = {}

    def waiting(self, pending, timeout):
        from distributed import wait
        try:
            return wait(list(pending), timeout=timeout, return_when="FIRST_COMPLETED")
        except TimeoutError:
            return set(), set(pending)
        except Exception:           # the scheduler is gone: its futures were cancelled, and are done
            done = {f for f in pending if f.done()}
            return done, set(pending) - done

    def lost(self, error) -> str:
        name = type(error).__name__
        if name == "KilledWorker":
            return f"the Dask worker running it died, and each worker that tried it after: {_CRASHED}"
        if "cancel" in name.lower() or self.client.status != "running":
            return f"the Dask scheduler at {self.address} stopped answering before this case was checked"
        return f"the Dask cluster could not run it: {message(error)}"

    def started(self, futures) -> dict:
        """When each unit began running on a worker (a unit queued behind others has not used
        its budget yet); while the scheduler has no worker at all, the wait counts."""
        client = self.client
        if client.status != "running":
            return {}               # the scheduler is gone: asking it would wait for its time-out
        try:
            running = {key for keys in client.processing().values() for key in keys}
            workers = len(client.scheduler_info().get("workers", {}))
        except Exception:           # the scheduler is gone: the next wait reports it
            return {}
        now = time.monotonic()
        for future in futures:
            if future.key in running:
                self.began.setdefault(future.key, now)
        return {f: self.began.get(f.key) for f in futures if workers or f.key in self.began}

    def overdue(self, future) -> tuple:
        """(how the unit ended: "timed out" or "crashed", why)."""
        client = self.client
        try:
            workers = client.scheduler_info().get("workers", {}) if client.status == "running" else {}
            deaths = client.run_on_scheduler(_deaths, key=future.key) if workers else 0
        except Exception:
            workers, deaths = None, 0
        client.cancel([future])
        if deaths:
            return "crashed", (f"the Dask worker running it died ({deaths} time{'s' * (deaths != 1)} before the "
                               f"budget ran out): {_CRASHED}")
        if workers == {}:
            return "timed out", f"no Dask worker ran it: the scheduler at {self.address} has no workers"
        return "timed out", ("a Dask worker cannot stop a task it is running: that worker may stay busy until the "
                             "function returns")


def _refused(address: str) -> str | None:
    """Why a TCP scheduler address refuses connections, found at once (a closed port answers
    straight away, where Dask's client would retry for its whole time-out); None when it
    accepts one, or when the address is not host:port over TCP.

    >>> _refused("tcp://127.0.0.1:9") is not None     # the discard port, closed here
    True
    """
    match = re.fullmatch(r"(?:tcp://)?\[?([^\[\]/]+?)\]?:(\d+)", address.strip())
    if match is None:
        return None
    try:
        socket.create_connection((match.group(1), int(match.group(2))), timeout=2).close()
    except ConnectionRefusedError:
        return "connection refused (no scheduler listens there)"
    except OSError:
        return None             # slow or unresolvable: Dask's own time-out decides
    return None


def _deaths(dask_scheduler=None, key=None) -> int:
    """On a Dask scheduler: how many workers died while running task ``key``."""
    task = dask_scheduler.tasks.get(key) if dask_scheduler is not None else None
    return int(getattr(task, "suspicious", 0) or 0)


def _drive(submit, wait, cases, settings, progress, collected=None, lost=None, overdue=None, started=None,
           unit_timeout: float | None = None, poll: float | None = None):
    """Submit every case's first batch, then the rest of each case's batches as its first
    reports the number of points; collect every batch (into ``collected`` as they come).
    ``wait(pending, timeout) -> (done, not done)``. A unit whose future raised is lost
    (``lost(error)`` says why: its case is an error); one running past ``unit_timeout`` or
    the audit's deadline is given up (``overdue(future) -> (how, why)`` cancels it and says
    why: its case is undecided, or an error when the unit's process crashed meanwhile);
    ``started(futures) -> {future: when it began running, or None}`` starts a unit's clock
    when it runs, not when it was queued. Every other unit goes on."""
    pending = {}
    audit_deadline = settings.get("deadline")

    def add(index, start):
        pending[submit(index, cases[index], start, settings)] = (index, start, time.monotonic())

    for i in range(len(cases)):
        add(i, 0)
    total, results = len(pending), ([] if collected is None else collected)
    while pending:
        done, _ = wait(set(pending), poll)
        finished = []
        for future in done:
            index, start, _ = pending.pop(future)
            try:
                finished.append(future.result())
            except Exception as error:      # noqa: BLE001  (the cluster's own failure: the unit is lost)
                if lost is None:
                    raise
                finished.append(unit_failed(index, cases[index], start, settings, "crashed", lost(error)))
        now = time.monotonic()
        over_all = audit_deadline is not None and time.time() >= audit_deadline
        starts = started(list(pending)) if started is not None and unit_timeout is not None else {}
        for future, (index, start, since) in list(pending.items()):
            began = starts.get(future, since)
            if over_all or (unit_timeout is not None and began is not None and now - began >= unit_timeout):
                del pending[future]
                how, more = overdue(future) if overdue is not None else ("timed out", "")
                if how == "crashed":
                    finished.append(unit_failed(index, cases[index], start, settings, "crashed", more))
                else:
                    finished.append(unit_timed_out(index, cases[index], start, settings,
                                                   None if over_all else unit_timeout, more))
        for batch in finished:
            results.append(batch)
            if batch.start == 0:
                for start in range(BATCH, batch.total, BATCH):
                    add(batch.index, start)
                    total += 1
            if progress is not None:
                progress(len(results), total)
    return results
