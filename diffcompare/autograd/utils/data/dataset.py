"""``torch.utils.data.dataset``: datasets over tensors (``TensorDataset``), their subsets and
concatenations, and ``random_split``."""

from __future__ import annotations

import math

import numpy as np

from ...tensor import randperm


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
