"""``torch.nn.utils.rnn``: sequences of different lengths, padded to one tensor or packed
time step by time step (``PackedSequence``) for the recurrent layers, as PyTorch's.

A packed sequence holds, for each time step t, the rows of the sequences still running at t
(longest first): ``data`` (sum of the lengths, *), ``batch_sizes`` (how many at each step), and
the permutation that sorted the batch by length (``sorted_indices``) and its inverse.

>>> from diffcompare import autograd as ag
>>> packed = pack_sequence([ag.tensor([1, 2, 3]), ag.tensor([4, 5]), ag.tensor([6])])
>>> packed.data, packed.batch_sizes
(tensor([1, 4, 6, 2, 5, 3]), tensor([3, 2, 1]))
>>> pad_packed_sequence(packed, batch_first=True)[0]
tensor([[1, 2, 3],
        [4, 5, 0],
        [6, 0, 0]])
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

import numpy as np

from ... import ops
from ...ops.recording import Op, apply
from ...tensor import Tensor, full

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence", "pad_packed_sequence", "pad_sequence",
           "unpad_sequence", "pack_sequence", "unpack_sequence"]


def _long(values):
    return Tensor._make(np.asarray(values, dtype=np.int64))


class PackedSequence_(NamedTuple):
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None
    unsorted_indices: Tensor | None


class PackedSequence(PackedSequence_):
    """The rows of a batch of sequences packed time step by time step; made by
    ``pack_padded_sequence`` and ``pack_sequence``, taken by RNN, LSTM and GRU."""

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:
            if not (isinstance(data, (list, tuple)) and len(data) == 2):
                raise AssertionError("Expected data to be a list or tuple of length 2")
            data, batch_sizes = data
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs):
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        return type(self)(data, self.batch_sizes, self.sorted_indices, self.unsorted_indices)

    def cpu(self, *args, **kwargs):
        return self

    def double(self):
        return self.to(dtype=np.float64)

    def float(self):
        return self.to(dtype=np.float32)

    def long(self):
        return self.to(dtype=np.int64)

    def int(self):
        return self.to(dtype=np.int32)

    @property
    def is_cuda(self):
        return False

    def is_pinned(self):
        return False


def invert_permutation(permutation):
    """The permutation that undoes ``permutation`` (None for None)."""
    if permutation is None:
        return None
    order = np.asarray(permutation._data)
    inverse = np.empty_like(order)
    inverse[order] = np.arange(order.size, dtype=order.dtype)
    return Tensor._make(inverse)


class PackPaddedSequenceBackward0(Op):
    """The rows ``input[t, :batch_sizes[t]]`` of a time-major padded batch, one step after the
    other; the gradient goes back to those rows (zero on the padding)."""

    @staticmethod
    def forward(input, batch_sizes=(), input_shape=()):
        return np.concatenate([input[t, :b] for t, b in enumerate(batch_sizes)], axis=0)

    def backward(self, g):
        grad = np.zeros(self.input_shape, dtype=g.dtype) if not isinstance(g, Tensor) else None
        if grad is None:        # create_graph: a differentiable scatter of the rows
            rows, start = [], 0
            for t in range(self.input_shape[0]):
                b = self.batch_sizes[t] if t < len(self.batch_sizes) else 0
                step = g[start:start + b]
                start += b
                pad = Tensor._make(np.zeros((self.input_shape[1] - b,) + tuple(self.input_shape[2:]), g.dtype))
                rows.append(ops.cat([step, pad], 0))
            return (ops.stack(rows),)
        start = 0
        for t, b in enumerate(self.batch_sizes):
            grad[t, :b] = g[start:start + b]
            start += b
        return (grad,)


def _batch_sizes(lengths):
    """How many of the sequences (sorted longest first) are still running at each time step."""
    steps = int(lengths[0]) if len(lengths) else 0
    return [int((lengths > t).sum()) for t in range(steps)]


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Pack a padded batch (T, B, *) — (B, T, *) with ``batch_first`` — of sequences of
    ``lengths``; unless ``enforce_sorted``, the batch is first sorted longest first."""
    lengths = np.asarray(lengths._data if isinstance(lengths, Tensor) else lengths, dtype=np.int64).reshape(-1)
    if enforce_sorted:
        sorted_indices = None
        if np.any(np.diff(lengths) > 0):
            raise RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
                               "You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence "
                               "to sidestep this requirement if you do not need ONNX exportability.")
    else:
        order = np.argsort(-lengths, kind="stable")
        lengths = lengths[order]
        sorted_indices = _long(order)
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    if lengths.size and lengths[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' "
                           "that is <= 0")
    if batch_first:
        input = input.transpose(0, 1)
    if lengths.size and lengths[0] > input.shape[0]:
        raise RuntimeError(f"the longest length {int(lengths[0])} is more than the {input.shape[0]} time steps "
                           "of the padded input")
    batch_sizes = _batch_sizes(lengths)
    data = apply(PackPaddedSequenceBackward0, (input,),
                 {"batch_sizes": tuple(batch_sizes), "input_shape": tuple(input.shape)})
    return PackedSequence(data, _long(batch_sizes), sorted_indices, None)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """The inverse of ``pack_padded_sequence``: the padded batch and the lengths (int64), in
    the batch's original order."""
    batch_sizes = [int(b) for b in sequence.batch_sizes._data]
    max_seq_length = len(batch_sizes)
    if total_length is not None:
        if total_length < max_seq_length:
            raise ValueError("Expected total_length to be at least the length of the longest sequence in input, "
                             f"but got total_length={total_length} and max sequence length being {max_seq_length}")
        max_seq_length = total_length
    data = sequence.data
    batch = batch_sizes[0] if batch_sizes else 0
    padded = full((max_seq_length, batch) + tuple(data.shape[1:]), padding_value, dtype=data.dtype)
    start = 0
    for t, b in enumerate(batch_sizes):
        padded[t, :b] = data[start:start + b]
        start += b
    lengths = np.array([sum(1 for b in batch_sizes if b > i) for i in range(batch)], dtype=np.int64)
    if batch_first:
        padded = padded.transpose(0, 1)
    lengths = _long(lengths)
    if sequence.unsorted_indices is not None:
        unsorted = sequence.unsorted_indices
        return padded.index_select(0 if batch_first else 1, unsorted), _long(lengths._data[unsorted._data])
    return padded, lengths


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stack tensors of shape (L_i, *) into (max L, B, *) — (B, max L, *) with
    ``batch_first`` — filling with ``padding_value`` on the right (or the left)."""
    if not isinstance(sequences, Iterable):
        raise RuntimeError("pad_sequence: Expected iterable for input sequences, but got arg of type: "
                           f"{type(sequences)}")
    sequences = tuple(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    if padding_side not in ("left", "right"):
        raise ValueError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    max_len = max(s.shape[0] for s in sequences)
    trailing = tuple(sequences[0].shape[1:])
    shape = (len(sequences), max_len) + trailing if batch_first else (max_len, len(sequences)) + trailing
    out = full(shape, padding_value, dtype=sequences[0].dtype)
    for i, seq in enumerate(sequences):
        n = seq.shape[0]
        where = slice(0, n) if padding_side == "right" else slice(max_len - n, max_len)
        if batch_first:
            out[i, where] = seq
        else:
            out[where, i] = seq
    return out


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """The list of sequences a padded batch holds, each cut to its length."""
    if not batch_first:
        padded_sequences = _transpose_batch_first(padded_sequences)
    max_length = padded_sequences.shape[1]
    idx = np.arange(max_length)
    return [seq[Tensor._make(idx < int(length))] for seq, length in zip(padded_sequences, lengths)]


def _transpose_batch_first(t):
    """PyTorch's ``t.transpose_(0, 1)``: a tensor outside the graph is transposed in place (the
    caller sees it, as in PyTorch); one with history is transposed as a new view."""
    if t.requires_grad:
        return t.transpose(0, 1)
    t._data = np.swapaxes(t._data, 0, 1)
    t._bump()
    return t


def pack_sequence(sequences, enforce_sorted=True):
    """Pack a list of sequences (L_i, *): ``pack_padded_sequence(pad_sequence(sequences), lengths)``."""
    lengths = _long([v.shape[0] for v in sequences])
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """The list of sequences a PackedSequence holds, in their original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
