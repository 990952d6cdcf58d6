"""``torch.nn.parallel`` on a machine with no accelerator, as PyTorch runs it there.

``nn.DataParallel(model)`` finds no device to spread the batch over, so it keeps the model as
``.module`` and its forward is the model's: the same values, the same gradients, the
parameters named ``module.<name>`` in ``state_dict()``. Training scripts wrap their model this
way unconditionally, and run unchanged on a CPU.

>>> from diffcompare import autograd as ag
>>> net = ag.nn.DataParallel(ag.nn.Linear(2, 1))
>>> net.device_ids, list(net.state_dict())
([], ['module.weight', 'module.bias'])
>>> net(ag.ones(3, 2)).shape
torch.Size([3, 1])

``data_parallel`` (the function) and ``DistributedDataParallel`` need devices or a process
group; they raise, ``data_parallel`` with PyTorch's error on a CPU-only machine.
"""

from __future__ import annotations

from .module import Module


class DataParallel(Module):
    """``module`` run as it is: with no accelerator, PyTorch's ``DataParallel`` keeps no device
    ids and calls the module itself (``device_ids``, ``output_device`` and ``dim`` are taken and
    unused, as there)."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        self.module = module
        self.device_ids = []

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)


def data_parallel(module, inputs, device_ids=None, output_device=None, dim=0, module_kwargs=None):
    """PyTorch's functional ``data_parallel``: it needs an accelerator, and says so."""
    raise RuntimeError("device type could not be determined")


class DistributedDataParallel(Module):
    """Out of scope (distributed training): refused as PyTorch refuses it without a process group."""

    def __init__(self, module, *args, **kwargs):
        raise ValueError("Default process group has not been initialized, please make sure to call "
                         "init_process_group.")


__all__ = ["DataParallel", "DistributedDataParallel", "data_parallel"]
