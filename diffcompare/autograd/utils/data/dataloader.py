"""``torch.utils.data.dataloader``: ``DataLoader`` (its batches collated by ``_utils.collate``).

Everything runs in this process. With ``num_workers`` > 0 the loader still reads what
PyTorch's worker processes would: batch k is fetched by worker k mod ``num_workers``, and each
worker's draws (``random``, NumPy's global generator, the global generator) come from its own
generators, seeded as PyTorch seeds its workers from the pass's base seed, and leave the main
process's generators as they were. A dataset that draws its augmentation or its negative
samples in ``__getitem__`` gives PyTorch's samples.

>>> from diffcompare import autograd as ag
>>> import numpy as np
>>> class Noisy(ag.utils.data.Dataset):
...     def __len__(self):
...         return 4
...     def __getitem__(self, i):
...         return np.random.rand()
>>> _ = ag.manual_seed(0)
>>> before = np.random.get_state()[1][:3].tolist()
>>> batches = [float(b) for b in ag.utils.data.DataLoader(Noisy(), num_workers=2)]
>>> len(batches), np.random.get_state()[1][:3].tolist() == before      # the main process's NumPy unmoved
(4, True)
"""

from __future__ import annotations

import collections.abc
import contextlib
import copy
import itertools
import numbers
import random

import numpy as np

from ...ops import stack
from ...random import get_rng_state, manual_seed, set_rng_state
from ...tensor import Tensor, tensor
from ._utils.collate import default_collate, default_convert
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, SequentialSampler, seed_draw


class DataLoader:
    """Iterate over ``dataset`` in batches of ``batch_size`` samples (in order, or in a fresh
    random order each epoch with ``shuffle=True``), collated by ``collate_fn``
    (``default_collate``); ``batch_size=None`` yields the samples one by one."""

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None, num_workers=0,
                 collate_fn=None, pin_memory=False, drop_last=False, timeout=0, worker_init_fn=None,
                 multiprocessing_context=None, generator=None, *, prefetch_factor=None,
                 persistent_workers=False, pin_memory_device="", in_order=True):
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable "
                             "multiprocessing.")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in multiprocessing.let num_workers > 0 "
                             "to enable multiprocessing, otherwise set prefetch_factor to None.")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, "
                                 "sampler, and drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with drop_last")
        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable and (shuffle or sampler is not None or batch_sampler is not None):
            what = "shuffle" if shuffle else "sampler" if sampler is not None else "batch_sampler"
            raise ValueError(f"DataLoader with IterableDataset: expected unspecified {what} option, but got "
                             f"{what}={shuffle if shuffle else sampler if sampler is not None else batch_sampler}")
        if sampler is None:
            sampler = RandomSampler(dataset, generator=generator) if shuffle else SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.dataset, self.batch_size, self.drop_last = dataset, batch_size, drop_last
        self.sampler, self.batch_sampler, self.num_workers = sampler, batch_sampler, num_workers
        self.generator, self.worker_init_fn = generator, worker_init_fn
        self.prefetch_factor = (2 if prefetch_factor is None else prefetch_factor) if num_workers > 0 else None
        self.persistent_workers, self._workers = persistent_workers, None
        if collate_fn is None:
            collate_fn = default_collate if batch_sampler is not None else default_convert
        self.collate_fn = collate_fn

    def __iter__(self):
        # each pass first draws a base seed for its workers (PyTorch does, with no workers
        # too), which moves the global generator on as there; persistent workers keep theirs
        if self.num_workers == 0:
            seed_draw(self.generator)
            return self._batches()
        if self._workers is None or not self.persistent_workers:
            base_seed = seed_draw(self.generator)
            self._workers = [_Worker(i, self.num_workers, base_seed,
                                     copy.deepcopy(self.dataset) if self._iterable else self.dataset,
                                     self.worker_init_fn) for i in range(self.num_workers)]
        if self._iterable:
            return self._worker_streams(self._workers)
        # PyTorch hands the workers their first indices at once: the sampler starts here
        indices = iter(self.batch_sampler if self.batch_sampler is not None else self.sampler)
        first = list(itertools.islice(indices, self.prefetch_factor * self.num_workers))
        return self._worker_batches(self._workers, itertools.chain(first, indices))

    def _fetch(self, index):
        if self.batch_sampler is None:
            return self.collate_fn(self.dataset[index])
        return self.collate_fn([self.dataset[i] for i in index])

    def _stream_batches(self, dataset=None):
        """The batches of an iterable dataset's stream (``dataset``: a worker's copy), in order."""
        dataset = self.dataset if dataset is None else dataset
        if self.batch_size is None:
            for item in dataset:
                yield self.collate_fn(item)
            return
        batch = []
        for item in dataset:
            batch.append(item)
            if len(batch) == self.batch_size:
                yield self.collate_fn(batch)
                batch = []
        if batch and not self.drop_last:
            yield self.collate_fn(batch)

    def _worker_streams(self, workers):
        """An iterable dataset read by ``num_workers`` workers, as PyTorch's are: each worker
        iterates its own copy of the dataset (``get_worker_info()`` tells it which one it is,
        so it can split the work, or repeats the whole stream if it does not) and the loader
        takes one batch from each worker in turn. Here the workers are taken in turn in this
        process; a worker's stream starts at its first ``next()``."""
        streams = [(worker, self._stream_batches(worker.info.dataset)) for worker in workers]
        while streams:
            for entry in list(streams):
                worker, stream = entry
                with worker.running():
                    batch = next(stream, _DONE)
                if batch is _DONE:
                    streams.remove(entry)
                    continue
                yield batch

    def _worker_batches(self, workers, indices):
        """A map-style dataset read by workers: batch k by worker k mod ``num_workers``, as
        PyTorch hands out indices (in order). The dataset is read in place (PyTorch's workers
        each read a copy: a ``__getitem__`` that changes its dataset changes this one)."""
        for k, index in enumerate(indices):
            worker = workers[k % len(workers)]
            with worker.running():
                batch = self._fetch(index)
            yield batch

    def _batches(self):
        if self._iterable:          # a stream: its items batched in order
            yield from self._stream_batches()
            return
        for index in (self.batch_sampler if self.batch_sampler is not None else self.sampler):
            yield self._fetch(index)

    def __len__(self):
        if self._iterable:
            n = len(self.dataset)
            if self.batch_size is None:
                return n
            return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
        return len(self.batch_sampler if self.batch_sampler is not None else self.sampler)


class WorkerInfo:
    """What ``get_worker_info()`` tells a worker: its ``id``, ``num_workers``, ``seed`` and ``dataset``."""

    def __init__(self, **fields):
        self.__dict__.update(fields)

    def __repr__(self):
        return "WorkerInfo(" + ", ".join(f"{k}={v!r}" for k, v in self.__dict__.items() if k != "dataset") + ")"


_WORKER = None      # the WorkerInfo of the worker whose fetch is running (None: the main process)
_DONE = object()    # a worker's stream has ended


def _rng_states():
    return random.getstate(), np.random.get_state(), get_rng_state()


def _put_rng_states(states):
    python, numpy, torch = states
    random.setstate(python)
    np.random.set_state(numpy)
    set_rng_state(torch)


class _Worker:
    """A data-loading worker of a pass, as PyTorch starts one: ``random`` and the global
    generator seeded with ``base_seed + id``, NumPy's global generator with PyTorch's hash of
    the two (NumPy's ``SeedSequence`` of ``[id, base_seed`` low and high 32 bits``, 0]``, the
    same four words), then ``worker_init_fn(id)``. Its generators' states are kept here and
    put in place while it fetches (``running``)."""

    def __init__(self, worker_id, num_workers, base_seed, dataset, init_fn):
        self.info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=base_seed + worker_id, dataset=dataset)
        main = _rng_states()
        random.seed(self.info.seed)
        np.random.seed(np.random.SeedSequence([worker_id, base_seed & 0xFFFFFFFF, base_seed >> 32, 0])
                       .generate_state(4))
        manual_seed(self.info.seed)
        self.states = _rng_states()
        _put_rng_states(main)
        if init_fn is not None:
            with self.running():
                init_fn(worker_id)

    @contextlib.contextmanager
    def running(self):
        """This worker's generators in place of the main process's, and ``get_worker_info()``
        its info, for the ``with`` block."""
        global _WORKER
        main = _rng_states()
        _put_rng_states(self.states)
        _WORKER = self.info
        try:
            yield
        finally:
            _WORKER = None
            self.states = _rng_states()
            _put_rng_states(main)


def get_worker_info():
    """The ``WorkerInfo`` of the data-loading worker this code runs in, None in the main
    process (as PyTorch's)."""
    return _WORKER
