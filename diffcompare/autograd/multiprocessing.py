"""``torch.multiprocessing``: Python's :mod:`multiprocessing` under PyTorch's name, with
PyTorch's ``spawn`` and its sharing-strategy switches.

A tensor moved to shared memory (``share_memory_()``, ``module.share_memory()``) keeps its
values in an anonymous shared mapping, so processes forked after that (the ``fork`` start
method, Linux's default) read and write the same numbers: Hogwild training, where workers
update one model in place, works as in PyTorch. Under the ``spawn`` and ``forkserver`` methods
a tensor reaches the child by pickling, as a copy (PyTorch passes a handle to the shared
memory instead).

>>> from diffcompare import autograd as ag
>>> from diffcompare.autograd import multiprocessing as mp
>>> w = ag.zeros(3).share_memory_()
>>> def work(rank, t):
...     t[rank] = rank + 1.0
>>> ctx = mp.get_context("fork")
>>> workers = [ctx.Process(target=work, args=(r, w)) for r in range(3)]
>>> for p in workers: p.start()
>>> for p in workers: p.join()
>>> w, w.is_shared()
(tensor([1., 2., 3.]), True)
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import sys
import traceback
from multiprocessing import *  # noqa: F401,F403  (PyTorch's module is Python's, with tensors' reducers)

__all__ = ["set_sharing_strategy", "get_sharing_strategy", "get_all_sharing_strategies", "spawn",
           "start_processes", "ProcessContext", "ProcessException", "ProcessRaisedException",
           "ProcessExitedException", *multiprocessing.__all__]

_STRATEGIES = {"file_system"} if sys.platform in ("darwin", "win32") else {"file_descriptor", "file_system"}
_strategy = ["file_system" if sys.platform in ("darwin", "win32") else "file_descriptor"]


def set_sharing_strategy(new_strategy):
    """Choose how shared tensors are passed between processes (recorded; one mechanism here)."""
    if new_strategy not in _STRATEGIES:
        raise AssertionError(f"invalid sharing strategy {new_strategy!r}, expected one of {_STRATEGIES}")
    _strategy[0] = new_strategy


def get_sharing_strategy():
    return _strategy[0]


def get_all_sharing_strategies():
    return set(_STRATEGIES)


class ProcessException(Exception):
    """A process started by ``spawn`` failed (PyTorch's ``ProcessException``)."""

    def __init__(self, msg, error_index, pid):
        super().__init__(msg)
        self.msg, self.error_index, self.pid = msg, error_index, pid

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.pid)


class ProcessRaisedException(ProcessException):
    """A spawned process raised: the message carries its traceback."""


class ProcessExitedException(ProcessException):
    """A spawned process exited with a nonzero code or a signal."""

    def __init__(self, msg, error_index, error_pid, exit_code, signal_name=None):
        super().__init__(msg, error_index, error_pid)
        self.exit_code, self.signal_name = exit_code, signal_name

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.pid, self.exit_code, self.signal_name)


def _run(fn, index, args, errors):
    """A spawned process's body: ``fn(index, *args)``, its traceback sent back if it raises."""
    try:
        fn(index, *args)
    except KeyboardInterrupt:
        pass
    except Exception:
        errors.put(traceback.format_exc())
        sys.exit(1)


class ProcessContext:
    """The processes ``start_processes`` started; ``join()`` waits for them and raises the
    first failure as PyTorch's ``ProcessRaisedException`` or ``ProcessExitedException``."""

    def __init__(self, processes, error_queues):
        self.processes, self.error_queues = processes, error_queues

    def pids(self):
        return [p.pid for p in self.processes]

    def join(self, timeout=None, grace_period=None):
        """Wait (up to ``timeout``) until some process ends; True once every one ended well.
        The first that failed ends the others and raises, as PyTorch's: a worker that fails
        never leaves the caller waiting on one that hangs."""
        running = [p.sentinel for p in self.processes if p.exitcode is None]
        if running and all(p.exitcode in (None, 0) for p in self.processes):   # a failure already seen
            multiprocessing.connection.wait(running, timeout=timeout)          # is raised at once
        for index, (p, errors) in enumerate(zip(self.processes, self.error_queues)):
            if p.exitcode is None or p.exitcode == 0:
                continue
            for other in self.processes:
                if other.is_alive():
                    other.terminate()
                other.join()
            if not errors.empty():
                raise ProcessRaisedException(f"\n\n-- Process {index} terminated with the following error:\n"
                                             + errors.get(), index, p.pid)
            if p.exitcode < 0:
                raise ProcessExitedException(f"process {index} terminated with signal {-p.exitcode}",
                                             index, p.pid, p.exitcode, str(-p.exitcode))
            raise ProcessExitedException(f"process {index} terminated with exit code {p.exitcode}",
                                         index, p.pid, p.exitcode)
        if all(p.exitcode == 0 for p in self.processes):
            for p in self.processes:
                p.join()
            return True
        return False


def start_processes(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """Run ``fn(i, *args)`` in ``nprocs`` new processes (``i`` = 0 .. nprocs - 1); with ``join``
    wait for them, else return their ``ProcessContext``."""
    context = multiprocessing.get_context(start_method)
    processes, queues = [], []
    for index in range(nprocs):
        errors = context.SimpleQueue()
        process = context.Process(target=_run, args=(fn, index, args, errors), daemon=daemon)
        process.start()
        processes.append(process)
        queues.append(errors)
    result = ProcessContext(processes, queues)
    if not join:
        return result
    while not result.join():
        pass
    return None


def spawn(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """``start_processes`` with PyTorch's defaults (the ``spawn`` start method)."""
    return start_processes(fn, args, nprocs, join, daemon, start_method)
