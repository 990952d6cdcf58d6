"""``torch.utils.data.sampler``: the orders a loader takes a dataset in (sequential, random with
or without replacement, in batches)."""

from __future__ import annotations

from ...dtypes import int64
from ...generators import Generator
from ...tensor import empty, randint, randperm


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
