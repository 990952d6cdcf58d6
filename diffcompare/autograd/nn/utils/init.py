"""``torch.nn.utils.skip_init``: a module built without drawing its initial values."""

from __future__ import annotations

import inspect


def skip_init(module_cls, *args, **kwargs):
    """``module_cls(*args, **kwargs)`` built on the meta device and then given parameters of
    unset values (zeros here) on ``device``: no initial values are drawn, so the random numbers
    of what comes after are as if it had not been built.

    >>> from diffcompare import autograd as ag
    >>> ag.nn.utils.skip_init(ag.nn.Linear, 2, 1).weight.shape
    torch.Size([1, 2])
    """
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    final_device = kwargs.pop("device", "cpu")
    kwargs["device"] = "meta"
    return module_cls(*args, **kwargs).to_empty(device=final_device)
