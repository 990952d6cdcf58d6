"""``torch.utils.data.sampler``: the orders a loader takes a dataset in (sequential, random with
or without replacement, in batches)."""

from __future__ import annotations

import sys
from typing import Generic, TypeVar

from ...dtypes import float64, int64
from ...generators import Generator
from ...tensor import Tensor, empty, randint, randperm, tensor


T_co = TypeVar("T_co", covariant=True)


class Sampler(Generic[T_co]):
    """Base class of index samplers: iterables of dataset indices (``Sampler[int]`` in type
    hints, as in PyTorch)."""

    def __init__(self, data_source=None):
        pass


class SequentialSampler(Sampler):
    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


def seed_draw(generator=None) -> int:
    """A seed drawn as PyTorch's data loading draws one: an int64 ``random_()`` (from
    ``generator``, else the global generator)."""
    return int(empty((), dtype=int64).random_(generator=generator).item())


class RandomSampler(Sampler):
    """A fresh random order on each pass, drawn from ``randperm`` with the sampler's
    ``generator``, else (as PyTorch) with a new ``Generator`` seeded by a draw from the
    global one, so the order follows the global seed; with ``replacement``, ``num_samples``
    indices drawn by ``randint`` (32 at a time, as PyTorch)."""

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        if not isinstance(replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got replacement={replacement}")
        self.data_source, self.replacement = data_source, replacement
        self.generator = generator
        self._num_samples = num_samples
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={self.num_samples}")

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n = len(self.data_source)
        generator = self.generator
        if generator is None:
            generator = Generator().manual_seed(seed_draw())
        if self.replacement:        # with replacement: indices drawn 32 at a time, as PyTorch draws them
            for _ in range(self.num_samples // 32):
                yield from randint(high=n, size=(32,), generator=generator).tolist()
            yield from randint(high=n, size=(self.num_samples % 32,), generator=generator).tolist()
            return
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


class SubsetRandomSampler(Sampler):
    """The given indices in a random order (``randperm``), fresh each pass."""

    def __init__(self, indices, generator=None):
        self.indices, self.generator = indices, generator

    def __iter__(self):
        for i in randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """``num_samples`` indices drawn with probabilities proportional to ``weights``
    (``multinomial``, with or without replacement)."""

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got replacement={replacement}")
        from_values = weights if isinstance(weights, Tensor) else tensor(weights, dtype=float64)
        if from_values.ndim != 1:
            raise ValueError(f"weights should be a 1d sequence but given weights have shape {tuple(from_values.shape)}")
        self.weights, self.num_samples, self.replacement, self.generator = from_values, num_samples, replacement, generator

    def __iter__(self):
        # torch.multinomial as the package has it now (a harness may put PyTorch's draws there)
        multinomial = sys.modules[__name__.split(".utils.")[0]].multinomial
        yield from multinomial(self.weights, self.num_samples, self.replacement, generator=self.generator).tolist()

    def __len__(self):
        return self.num_samples
