"""``torch.profiler``'s and ``torch.autograd.profiler``'s ``record_function``: a labelled
region of a program (a context manager or a decorator, as PyTorch's). PyTorch's profilers
show such labels in their timing tables; the engine has no profiler (``profile`` is out of
scope: its tables are timings), so a region runs as it is and records nothing.

>>> from diffcompare import autograd as ag
>>> from diffcompare.autograd.profiler import record_function
>>> with record_function("forward"):
...     y = ag.tensor([1.0, 2.0]).sum()
>>> y
tensor(3.)
>>> @record_function("step")
... def step(x):
...     return x * 2
>>> step(3)
6
"""

from __future__ import annotations

import contextlib


class record_function(contextlib.ContextDecorator):  # noqa: N801 - PyTorch's name
    """A region named ``name`` (``args``: a string PyTorch's profiler would attach)."""

    def __init__(self, name: str, args: str | None = None):
        self.name, self.args = name, args

    def __enter__(self):
        if not isinstance(self.name, str):     # PyTorch's check, when the region is entered
            raise RuntimeError(f"profiler::_record_function_enter_new() Expected a value of type 'str' for argument "
                               f"'name' but instead found type '{type(self.name).__name__}'.")
        return self

    def __exit__(self, *exc):
        return False


__all__ = ["record_function"]
