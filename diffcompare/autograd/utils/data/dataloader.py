"""``torch.utils.data.dataloader``: ``DataLoader``, single process (its batches collated by
``_utils.collate``)."""

from __future__ import annotations

import collections.abc
import copy
import numbers

import numpy as np

from ...ops import stack
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
        if collate_fn is None:
            collate_fn = default_collate if batch_sampler is not None else default_convert
        self.collate_fn = collate_fn

    def __iter__(self):
        # each pass first draws a base seed for its workers (PyTorch does, with no workers
        # too), which moves the global generator on as there
        base_seed = seed_draw(self.generator)
        if self._iterable and self.num_workers > 0:
            return self._worker_batches(base_seed)
        return self._batches()

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

    def _worker_batches(self, base_seed):
        """An iterable dataset read by ``num_workers`` workers, as PyTorch's are: each worker
        iterates the dataset itself (``get_worker_info()`` tells it which one it is, so it can
        split the work, or repeats the whole stream if it does not) and the loader takes one
        batch from each worker in turn. Here the workers are taken in turn in this process."""
        global _WORKER
        streams = []
        for worker in range(self.num_workers):
            # a worker has its own copy of the dataset (PyTorch's is pickled into the worker
            # process), which worker_init_fn may change; its stream starts at its first next()
            dataset = copy.deepcopy(self.dataset)
            info = WorkerInfo(id=worker, num_workers=self.num_workers, seed=base_seed + worker, dataset=dataset)
            if self.worker_init_fn is not None:
                _WORKER = info
                try:
                    self.worker_init_fn(worker)
                finally:
                    _WORKER = None
            streams.append((info, self._stream_batches(dataset)))
        while streams:
            for entry in list(streams):
                info, stream = entry
                _WORKER = info
                try:
                    batch = next(stream)
                except StopIteration:
                    streams.remove(entry)
                    continue
                finally:
                    _WORKER = None
                yield batch

    def _batches(self):
        if self._iterable:          # a stream: its items batched in order
            yield from self._stream_batches()
            return
        if self.batch_sampler is None:
            for idx in self.sampler:
                yield self.collate_fn(self.dataset[idx])
            return
        for indices in self.batch_sampler:
            yield self.collate_fn([self.dataset[i] for i in indices])

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


_WORKER = None      # the worker whose part of an iterable dataset is being read (None: the main process)


def get_worker_info():
    """The ``WorkerInfo`` of the data-loading worker this code runs in, None in the main
    process (as PyTorch's)."""
    return _WORKER
