"""``torch.signal``: its ``windows`` (SciPy's window functions, with ``sym=``)."""

from . import windows

__all__ = ["windows"]
