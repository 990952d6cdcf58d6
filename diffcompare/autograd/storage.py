"""A tensor's storage: ``Tensor.untyped_storage()`` (its memory as bytes) and the deprecated
``Tensor.storage()`` (the same memory as elements of its dtype), as code inspects them — is
this tensor a view of that one (the same ``data_ptr()``), how many bytes does it hold.

The engine's storage is the NumPy array a tensor's views all come from (the root of its
``base`` chain); resizing or writing through a storage object is not offered.

>>> from diffcompare import autograd as ag
>>> x = ag.arange(6.0).reshape(2, 3)
>>> s = x.untyped_storage()
>>> s.nbytes(), s.data_ptr() == x[1].untyped_storage().data_ptr(), x.t().untyped_storage().nbytes()
(48, True, 48)
"""

from __future__ import annotations

import warnings

import numpy as np

from .dtypes import scalar_type_name

__all__ = ["TypedStorage", "UntypedStorage", "elements_of"]

_TYPED_WARNING = ("TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the only "
                  "storage class. This should only matter to you if you are using storages directly.  To access "
                  "UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()")


def storage_root(array):
    """The array whose memory ``array`` views (itself when it owns its memory)."""
    while isinstance(array.base, np.ndarray):
        array = array.base
    return array


def elements_of(storage, dtype):
    """The memory of ``storage`` as a 1-d array of ``dtype`` sharing it, for the legacy
    constructors given a storage (``torch.Tensor(x.storage())``, ``torch.FloatTensor(s)``,
    ``x.new(s)``): every element from the first, whatever part of it a view of ``x`` shows,
    and writes through either are seen by both, as in PyTorch. A typed storage of another dtype
    is refused in PyTorch's words.

    >>> from diffcompare import autograd as ag
    >>> a = ag.arange(4.0)
    >>> d = ag.Tensor(a[2:].untyped_storage())
    >>> d[0] = 9.0
    >>> a
    tensor([9., 1., 2., 3.])
    """
    dtype = np.dtype(dtype)
    if type(storage) is TypedStorage and storage.dtype != dtype:
        raise RuntimeError(f"Expected a Storage of type {scalar_type_name(dtype)} or an UntypedStorage, but got type "
                           f"{scalar_type_name(storage.dtype)} for argument 1 'storage'")
    array = storage._array
    if not array.flags.c_contiguous:     # (a root that owns its memory is contiguous; kept honest all the same)
        raise RuntimeError("a storage whose memory is not contiguous cannot be read as elements here")
    return array.reshape(-1).view(np.uint8).view(dtype)


class UntypedStorage:
    """A tensor's memory, as bytes."""

    device = "cpu"

    def __init__(self, array):
        self._array = storage_root(array)

    def nbytes(self) -> int:
        return self._array.nbytes

    size = nbytes

    def __len__(self):
        return self._array.nbytes

    def element_size(self) -> int:
        return 1

    def data_ptr(self) -> int:
        """The address of the memory's first byte: equal for tensors that share memory."""
        return self._array.__array_interface__["data"][0]

    def tolist(self):
        return list(self._bytes())

    def _bytes(self):
        return np.ascontiguousarray(self._array).view(np.uint8).reshape(-1)

    def __getitem__(self, index):
        return int(self._bytes()[index])

    def is_shared(self) -> bool:
        return False

    def cpu(self):
        return self

    def resize_(self, size):
        raise NotImplementedError("resizing a storage is not offered by this engine: its tensors' memory is NumPy's")

    def __repr__(self):
        return f"UntypedStorage of {self.nbytes()} bytes on cpu"


class TypedStorage(UntypedStorage):
    """A tensor's memory as elements of its dtype (deprecated in PyTorch, with its warning)."""

    _warned = [False]      # PyTorch warns once a process

    def __init__(self, array):
        if not self._warned[0]:
            self._warned[0] = True
            warnings.warn(_TYPED_WARNING, UserWarning, stacklevel=3)
        super().__init__(array)
        self.dtype = array.dtype

    def size(self) -> int:
        return self._array.size

    __len__ = size

    def element_size(self) -> int:
        return self._array.itemsize

    def _elements(self):
        return np.ascontiguousarray(self._array).reshape(-1)

    def tolist(self):
        return self._elements().tolist()

    def __getitem__(self, index):
        return self._elements()[index].item()

    def untyped(self):
        return UntypedStorage(self._array)

    def __repr__(self):
        return f"TypedStorage(dtype={self.dtype}, size={self.size()}) of {self.nbytes()} bytes on cpu"
