"""``torch.utils.data``: datasets over tensors and a loader that batches them, enough for
the training loops of PyTorch's tutorials (single process; ``num_workers`` and the other
process options are accepted and ignored).

>>> from diffcompare import autograd as ag
>>> from diffcompare.autograd.utils.data import DataLoader, TensorDataset
>>> ds = TensorDataset(ag.arange(5.0), ag.arange(5))
>>> [(x.tolist(), y.tolist()) for x, y in DataLoader(ds, batch_size=2)]
[([0.0, 1.0], [0, 1]), ([2.0, 3.0], [2, 3]), ([4.0], [4])]
"""

from __future__ import annotations

import collections.abc
import math
import numbers

import numpy as np

from ..dtypes import int64
from ..generators import Generator
from ..ops import stack
from ..tensor import Tensor, empty, randperm, tensor

__all__ = ["BatchSampler", "ConcatDataset", "DataLoader", "Dataset", "RandomSampler", "Sampler",
           "SequentialSampler", "Subset", "TensorDataset", "default_collate", "random_split"]


class Dataset:
    """Base class of map-style datasets: subclasses define ``__getitem__`` (and ``__len__``)."""

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other):
        return ConcatDataset([self, other])


class TensorDataset(Dataset):
    """Samples are the ``index``-th rows of the given tensors, which share their first size."""

    def __init__(self, *tensors):
        if any(tensors[0].shape[0] != t.shape[0] for t in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].shape[0]


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``."""

    def __init__(self, dataset, indices):
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __len__(self):
        return len(self.indices)


class ConcatDataset(Dataset):
    """The samples of several datasets, one after the other."""

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if not self.datasets:
            raise AssertionError("datasets should not be an empty iterable")
        self.cumulative_sizes = list(np.cumsum([len(d) for d in self.datasets]))

    def __len__(self):
        return int(self.cumulative_sizes[-1]) if self.cumulative_sizes else 0

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        which = int(np.searchsorted(self.cumulative_sizes, idx, side="right"))
        start = int(self.cumulative_sizes[which - 1]) if which else 0
        return self.datasets[which][idx - start]


def random_split(dataset, lengths, generator=None):
    """Split ``dataset`` into non-overlapping random ``Subset``s of the given lengths (or
    fractions summing to 1, the remainder dealt round-robin), the order drawn from
    ``randperm`` as in PyTorch.

    >>> from diffcompare import autograd as ag
    >>> a, b = random_split(TensorDataset(ag.arange(10.0)), [0.7, 0.3])
    >>> len(a), len(b)
    (7, 3)
    """
    n = len(dataset)
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        counts = [int(math.floor(n * frac)) for frac in lengths]
        for i in range(n - sum(counts)):
            counts[i % len(counts)] += 1
        lengths = counts
    if sum(lengths) != n:
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    order = randperm(sum(lengths), generator=generator).tolist()
    subsets, offset = [], 0
    for length in lengths:
        subsets.append(Subset(dataset, order[offset:offset + length]))
        offset += length
    return subsets


class Sampler:
    """Base class of index samplers: iterables of dataset indices."""

    def __init__(self, data_source=None):
        pass


class SequentialSampler(Sampler):
    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


def _seed_draw(generator=None) -> int:
    """A seed drawn as PyTorch's data loading draws one: an int64 ``random_()`` (from
    ``generator``, else the global generator)."""
    return int(empty((), dtype=int64).random_(generator=generator).item())


class RandomSampler(Sampler):
    """A fresh random order on each pass, drawn from ``randperm`` with the sampler's
    ``generator``, else (as PyTorch) with a new ``Generator`` seeded by a draw from the
    global one, so the order follows the global seed."""

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        if replacement:
            raise NotImplementedError("RandomSampler(replacement=True) is not supported by this engine")
        self.data_source = data_source
        self.generator = generator
        self._num_samples = num_samples

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n = len(self.data_source)
        generator = self.generator
        if generator is None:
            generator = Generator().manual_seed(_seed_draw())
        for _ in range(self.num_samples // n):
            yield from randperm(n, generator=generator).tolist()
        yield from randperm(n, generator=generator).tolist()[:self.num_samples % n]

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler):
    """Groups the indices of ``sampler`` into lists of ``batch_size``."""

    def __init__(self, sampler, batch_size, drop_last):
        self.sampler, self.batch_size, self.drop_last = sampler, batch_size, drop_last

    def __iter__(self):
        batch = []
        for idx in self.sampler:
            batch.append(idx)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self):
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size


def default_collate(batch):
    """Stack a list of samples into a batch, as PyTorch's ``default_collate``: tensors are
    stacked along a new first dimension, Python numbers become a tensor (float64 for
    floats, int64 for ints), and tuples, lists and dicts are collated element-wise (a
    tuple of samples gives a list of batches)."""
    elem = batch[0]
    if isinstance(elem, Tensor):
        return stack(list(batch), 0)
    if isinstance(elem, np.ndarray) and elem.dtype.kind not in "USO":
        return stack([tensor(b) for b in batch], 0)
    if isinstance(elem, np.number) or isinstance(elem, numbers.Number) and not isinstance(elem, bool):
        return tensor(batch)
    if isinstance(elem, bool):
        return tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        return {key: default_collate([d[key] for d in batch]) for key in elem}
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return type(elem)(*(default_collate(samples) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        if any(len(e) != len(elem) for e in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        return [default_collate(samples) for samples in zip(*batch)]
    raise TypeError("default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; "
                    f"found {type(elem)}")


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
        if sampler is None:
            sampler = RandomSampler(dataset, generator=generator) if shuffle else SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.dataset, self.batch_size, self.drop_last = dataset, batch_size, drop_last
        self.sampler, self.batch_sampler, self.num_workers = sampler, batch_sampler, num_workers
        self.generator = generator
        if collate_fn is None:
            collate_fn = default_collate if batch_sampler is not None else (lambda sample: sample)
        self.collate_fn = collate_fn

    def __iter__(self):
        # each pass first draws a base seed for its workers (PyTorch does, with no workers
        # too), which moves the global generator on as there
        _seed_draw(self.generator)
        return self._batches()

    def _batches(self):
        if self.batch_sampler is None:
            for idx in self.sampler:
                yield self.collate_fn(self.dataset[idx])
            return
        for indices in self.batch_sampler:
            yield self.collate_fn([self.dataset[i] for i in indices])

    def __len__(self):
        return len(self.batch_sampler if self.batch_sampler is not None else self.sampler)
