"""``torch.utils.data``: datasets over tensors and a loader that batches them, enough for
the training loops of PyTorch's tutorials. One process reads everything: with
``num_workers`` > 0 each batch is read by the worker PyTorch would give it, with that worker's
seeded generators (``dataloader``), so random augmentation or negative sampling in a dataset
draws what PyTorch's worker processes draw; the other process options are accepted.

>>> from diffcompare import autograd as ag
>>> from diffcompare.autograd.utils.data import DataLoader, TensorDataset
>>> ds = TensorDataset(ag.arange(5.0), ag.arange(5))
>>> [(x.tolist(), y.tolist()) for x, y in DataLoader(ds, batch_size=2)]
[([0.0, 1.0], [0, 1]), ([2.0, 3.0], [2, 3]), ([4.0], [4])]
"""

from __future__ import annotations

from ._utils.collate import default_collate, default_convert
from .dataloader import DataLoader, get_worker_info
from .dataset import (ChainDataset, ConcatDataset, Dataset, IterableDataset, StackDataset, Subset, TensorDataset,
                      random_split)
from .sampler import (BatchSampler, RandomSampler, Sampler, SequentialSampler, SubsetRandomSampler,
                      WeightedRandomSampler)
from . import distributed  # noqa: E402  (torch.utils.data.distributed)
from .distributed import DistributedSampler

__all__ = ["BatchSampler", "ChainDataset", "ConcatDataset", "DataLoader", "Dataset", "DistributedSampler",
           "IterableDataset", "RandomSampler",
           "Sampler", "SequentialSampler", "StackDataset", "Subset", "SubsetRandomSampler", "TensorDataset",
           "WeightedRandomSampler", "default_collate", "default_convert", "get_worker_info", "random_split"]
