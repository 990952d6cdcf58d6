"""Views by strides over a base's storage: ``as_strided``, and the ``AsStridedBackward0`` history
a view gets again after its base, or another view of it, was written in place (PyTorch makes
it when the view's ``grad_fn`` is next read: the version counter the view shares with its base
has moved on since its history was recorded).

>>> from diffcompare import autograd as ag
>>> w = ag.ones(2, 3, requires_grad=True)
>>> base = w * 1
>>> column = base[:, 1]
>>> _ = base.mul_(2)
>>> column.grad_fn
<AsStridedBackward0 ...>
>>> column.sum().backward()
>>> w.grad
tensor([[0., 2., 0.],
        [0., 2., 0.]])
"""

from __future__ import annotations

import math

import numpy as np

from ..grad_mode import STATE
from ..graph import edge_of, init_node
from ..tensor import Tensor
from .indexing import index_add_zeros
from .inplace import rename_node_of
from .recording import Op, record
from .shape import as_view, rebase_error


class AsStridedBackward0(Op):
    """A view given by sizes and strides over its base's storage: its gradient goes to the
    places of its elements in the storage (``places``, flat), summed where the view repeats
    one, and from there to the input: the storage's shape (``in_shape``) when the input is the
    whole of it, else the input's own places in it (``gather``)."""
    saved_params = {"size": "size", "stride": "stride", "storage_offset": "storage_offset"}
    gather = None
    view_fn = None      # a view's history made again: its places are found when backward needs them

    as_real = False     # a real view of a complex base (``view_as_real``): places count real and imaginary parts

    def backward(self, g):
        n = math.prod(self.in_shape)
        if self.view_fn is not None:
            if self.as_real:     # each complex value's real part at 2k, its imaginary part at 2k + 1
                parts = np.arange(0, 2 * n, 2, dtype=np.float64)
                places = self.view_fn((parts + 1j * (parts + 1)).reshape(self.in_shape)).astype(np.int64)
            else:
                places = self.view_fn(np.arange(n).reshape(self.in_shape))
            self.places, self.view_fn = (places,), None
        if self.as_real:
            flat = index_add_zeros(g, self.places, (2 * n,))
            flat = flat[0::2] + 1j * flat[1::2]
        else:
            flat = index_add_zeros(g, self.places, (n,))
        return (flat.reshape(self.in_shape) if self.gather is None else flat[self.gather],)


def refresh_view(view):
    """``view.grad_fn`` once its base, or another view of it, was written in place since its
    history was recorded: a new ``AsStridedBackward0`` from the base's history as it is now,
    as PyTorch makes on reading ``grad_fn``. A view made in no_grad mode, or one of several
    views an op returned, gets PyTorch's error instead."""
    base = view._base
    if view._grad_fn is None and not base.requires_grad_flag:
        return None                 # nothing to rebase: no history on either side
    if view._view_meta[1] is not None:
        raise RuntimeError(rebase_error(view, direct=False))
    root = base._data
    node = object.__new__(AsStridedBackward0)
    init_node(node, (edge_of(base),))
    # where each element of the view lies in the base (flat): the view of positions, taken at backward
    node.in_shape, node.view_fn = root.shape, view._view_fn
    node.as_real = root.dtype.kind == "c" and view._data.dtype.kind != "c"
    node.size, node.stride, node.storage_offset = tuple(view._data.shape), view.stride(), view.storage_offset()
    retained = view._forget_retained()  # a retained gradient follows the new node
    view._grad_fn, view.requires_grad_flag, view._output_nr = node, True, 0
    view._view_meta = (view._vc[0], None)
    if retained:
        view.retain_grad()
    return node


def _offset_in(data, root):
    """Where ``data`` starts in ``root``'s memory, in elements."""
    return (data.__array_interface__["data"][0] - root.__array_interface__["data"][0]) // data.itemsize


def as_strided(input, size, stride, storage_offset=None):
    """The view of ``input``'s storage with the given ``size`` and ``stride`` (in elements),
    starting ``storage_offset`` elements in (``input``'s own offset when None), as
    ``torch.as_strided``: it shares memory and version counter with ``input``, and its
    gradient is summed back to the places of its elements (AsStridedBackward0). The storage is
    the memory of ``input``'s base, which must be contiguous.

    >>> from diffcompare import autograd as ag
    >>> ag.arange(6.0).as_strided((2, 3), (1, 2))
    tensor([[0., 2., 4.],
            [1., 3., 5.]])
    """
    size, stride = tuple(int(n) for n in size), tuple(int(s) for s in stride)
    if len(size) != len(stride):
        raise RuntimeError(f"mismatch in length of strides and shape")
    if any(s < 0 for s in stride):
        raise RuntimeError(f"as_strided: Negative strides are not supported at the moment, got strides: {list(stride)}")
    if any(n < 0 for n in size):
        raise RuntimeError(f"as_strided: Negative sizes are not supported, got sizes: {list(size)}")
    base = input._base if input._base is not None else input
    root = base._data
    if not root.flags.c_contiguous:
        raise RuntimeError("as_strided: the engine takes strides over the storage of a contiguous tensor; this one's "
                           "base is not contiguous (call .contiguous() first)")
    itemsize = root.itemsize
    offset = _offset_in(input._data, root) if storage_offset is None else int(storage_offset)
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    needed = 0 if 0 in size else offset + 1 + sum((n - 1) * s for n, s in zip(size, stride))
    if needed > root.size:
        raise RuntimeError(f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, and "
                           f"itemsize {itemsize} requiring a storage size of {needed * itemsize} are out of bounds "
                           f"for storage of size {root.size * itemsize}")

    def strided(storage):
        """The view of a storage-shaped array (the base's, or an array of its shape)."""
        flat = storage.reshape(-1)
        return np.lib.stride_tricks.as_strided(flat[offset:], size, tuple(s * flat.itemsize for s in stride),
                                               writeable=flat.flags.writeable and not _expanded(size, stride))

    out = strided(root)
    params = {"size": size, "stride": stride, "storage_offset": storage_offset, "in_shape": root.shape}
    if STATE.grad_enabled and input.requires_grad:
        result = record(AsStridedBackward0, (input,), params, out)
        node = result._grad_fn
        node.places = (strided(np.arange(root.size).reshape(root.shape)),)
        if input._data is not root or input._data.shape != root.shape:
            positions = np.arange(root.size).reshape(root.shape)
            node.gather = np.lib.stride_tricks.as_strided(
                positions.reshape(-1)[_offset_in(input._data, root):], input._data.shape,
                tuple(s // itemsize * positions.itemsize for s in input._data.strides))
    else:
        result = Tensor._make(out)
    if input._base is None and input._data is root:
        return as_view(result, input, strided)
    return as_view(result, base, strided)


def as_strided_scatter(input, src, size, stride, storage_offset=None):
    """A copy of ``input`` with ``src`` written into its view by ``size`` and ``stride``
    (AsStridedScatterBackward0), as ``torch.as_strided_scatter``.

    >>> from diffcompare import autograd as ag
    >>> ag.as_strided_scatter(ag.zeros(2, 2), ag.ones(2), (2,), (3,))
    tensor([[1., 0.],
            [0., 1.]])
    """
    out = input.clone(memory_format=None).contiguous() if not input._data.flags.c_contiguous else input.clone()
    as_strided(out, size, stride, storage_offset).copy_(src)
    return rename_node_of(out, "AsStridedScatterBackward0")


def _expanded(size, stride):
    """Whether a view repeats elements along a dimension of stride 0 (an expanded view: no
    write through it, as PyTorch refuses in-place ops on one; other overlaps it lets pass)."""
    return any(s == 0 and n > 1 for n, s in zip(size, stride))


# what the family exports to `ops`
__all__ = ['AsStridedBackward0', 'as_strided', 'as_strided_scatter', 'refresh_view']
PUBLIC = ("as_strided", "as_strided_scatter")
