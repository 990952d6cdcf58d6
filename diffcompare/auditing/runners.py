"""Where an audit's units of work run: here, one after another (``jobs=1``); in
``jobs`` processes on this machine; or on a Dask distributed cluster (``scheduler``,
the optional extra ``dask[distributed]``). A unit is one batch of one case's points;
the first batch of a case tells how many points it has, and the others follow. The
results do not depend on where or in which order units ran.
"""

from __future__ import annotations

import re
import socket
from contextlib import contextmanager

from diffcompare.auditing.batch import BATCH, run_batch
from diffcompare.problem.errors import InputError
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
    """A function ``run(cases, settings, progress) -> [Batch]`` using the chosen workers:
    with ``isolate``, ``jobs`` supervised worker processes (:mod:`diffcompare.auditing.workers`:
    user code cannot take the audit down, ``unit_timeout`` bounds each batch); else in this
    process (``jobs`` 1: ``assert_gradients`` in the user's own test process) or in forked
    processes; or on a Dask cluster."""
    if not isinstance(jobs, int) or isinstance(jobs, bool) or not 1 <= jobs <= MAX_JOBS:
        raise InputError(f"--jobs must be an integer from 1 to {MAX_JOBS}, not {jobs!r}")
    if scheduler is not None:
        with _dask(scheduler) as run:
            yield run
    elif isolate:
        from diffcompare.auditing.workers import Pool
        with Pool(jobs, unit_timeout) as pool:
            yield pool.run
    elif jobs == 1:
        yield lambda cases, settings, progress, collected=None: _drive(lambda *a: _Done(run_batch(*a)),
                                                                       lambda pending: (set(pending), set()),
                                                                       cases, settings, progress, collected)
    else:
        import multiprocessing
        import threading
        from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
        # fork where there is one: workers start at once with everything imported (this
        # process runs no threads of its own: the progress bar refreshes without one). A
        # process that does run threads (a library's, a test runner's) may hold a lock at the
        # fork, which the child would wait for forever: then a fork server, started clean
        methods = multiprocessing.get_all_start_methods()
        threaded = threading.active_count() > 1
        method = "forkserver" if threaded and "forkserver" in methods else "fork" if "fork" in methods else None
        context = multiprocessing.get_context(method)
        with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
            yield lambda cases, settings, progress, collected=None: _drive(
                lambda *a: pool.submit(run_batch, *a),
                lambda pending: wait(pending, return_when=FIRST_COMPLETED), cases, settings, progress, collected)


@contextmanager
def _dask(address: str):
    try:
        from distributed import Client, wait
    except ImportError:
        raise InputError(f"--scheduler needs Dask: {install_hint('dask')}") from None
    refused = _refused(address)
    if refused:
        raise InputError(f"cannot reach the Dask scheduler at {address!r}: {refused}")
    try:
        client = Client(address, timeout="10s")
    except (OSError, TimeoutError, ValueError) as error:
        raise InputError(f"cannot reach the Dask scheduler at {address!r}: {error}") from None
    try:
        yield lambda cases, settings, progress, collected=None: _drive(
            lambda *a: client.submit(run_batch, *a, pure=False),
            lambda pending: wait(list(pending), return_when="FIRST_COMPLETED"), cases, settings, progress, collected)
    finally:
        client.close()


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


def _drive(submit, wait, cases, settings, progress, collected=None):
    """Submit every case's first batch, then the rest of each case's batches as its first
    reports the number of points; collect every batch (into ``collected`` as they come)."""
    pending = {submit(i, case, 0, settings) for i, case in enumerate(cases)}
    total, results = len(pending), ([] if collected is None else collected)
    while pending:
        done, not_done = wait(pending)
        pending = set(not_done)
        for future in done:
            batch = future.result()
            results.append(batch)
            if batch.start == 0:
                for start in range(BATCH, batch.total, BATCH):
                    pending.add(submit(batch.index, cases[batch.index], start, settings))
                    total += 1
            if progress is not None:
                progress(len(results), total)
    return results
