"""``torch.utils.data.distributed.DistributedSampler``: the share of a dataset one of
``num_replicas`` processes reads, as PyTorch's sampler gives it. Given ``num_replicas`` and
``rank`` it needs no process group and yields PyTorch's indices (the same permutation, drawn
from a generator seeded with ``seed + epoch``); without them it asks the process group for
them, and there is none here, so it raises PyTorch's error (distributed training is out of
scope). Importing it, as training scripts do beside their other imports, always works.

>>> from diffcompare.autograd.utils.data.distributed import DistributedSampler
>>> sampler = DistributedSampler(list(range(10)), num_replicas=3, rank=1, shuffle=False)
>>> list(sampler), len(sampler)
([1, 4, 7, 0], 4)
"""

from __future__ import annotations

import math

from ...generators import Generator
from ...tensor import randperm
from .sampler import Sampler


class DistributedSampler(Sampler):
    """Every ``num_replicas``-th index from ``rank`` of a (shuffled, padded or trimmed to a
    multiple of ``num_replicas``) order of the dataset; ``set_epoch`` reshuffles."""

    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0, drop_last=False):
        if num_replicas is None or rank is None:
            raise ValueError("Default process group has not been initialized, please make sure to call "
                             "init_process_group.")
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]")
        self.dataset, self.num_replicas, self.rank = dataset, num_replicas, rank
        self.epoch, self.drop_last, self.shuffle, self.seed = 0, drop_last, shuffle, seed
        if drop_last and len(dataset) % num_replicas != 0:
            self.num_samples = math.ceil((len(dataset) - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(len(dataset) / num_replicas)
        self.total_size = self.num_samples * num_replicas

    def __iter__(self):
        if self.shuffle:
            generator = Generator()
            generator.manual_seed(self.seed + self.epoch)
            indices = randperm(len(self.dataset), generator=generator).tolist()
        else:
            indices = list(range(len(self.dataset)))
        if not self.drop_last:
            padding = self.total_size - len(indices)
            indices += (indices * math.ceil(padding / len(indices)))[:padding] if padding > len(indices) \
                else indices[:padding]
        else:
            indices = indices[:self.total_size]
        return iter(indices[self.rank:self.total_size:self.num_replicas])

    def __len__(self):
        return self.num_samples

    def set_epoch(self, epoch):
        """The epoch whose order ``__iter__`` draws (seed + epoch), so each epoch reshuffles."""
        self.epoch = epoch


__all__ = ["DistributedSampler"]
