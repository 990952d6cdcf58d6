"""``torch.autograd.profiler``: its ``record_function`` (see :mod:`diffcompare.autograd.profiler`)."""

from ..profiler import record_function

__all__ = ["record_function"]
