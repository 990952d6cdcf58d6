"""``torch.utils.data._utils``: the loader's helpers that user code imports by this path
(``collate``)."""

from . import collate

__all__ = ["collate"]
