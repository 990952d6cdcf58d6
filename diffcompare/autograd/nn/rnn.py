"""``torch.nn``'s recurrent layers, RNN, LSTM and GRU, and their cells, composed from the
engine's ops as PyTorch's CPU path computes them: a cell's gates are two ``linear``s, the
outputs of a layer are stacked over time (a bidirectional layer's two directions then joined:
CatBackward0) and its final states over layers (StackBackward0); a batch-first output is
transposed back as ATen does it (TransposeBackward1 for RNN and GRU, TransposeBackward0 for LSTM).
Parameters are named and drawn as PyTorch's (``weight_ih_l0``, ..., U(-1/√hidden, 1/√hidden)
in registration order).

>>> from diffcompare import autograd as ag
>>> lstm = ag.nn.LSTM(3, 4)
>>> out, (h, c) = lstm(ag.randn(5, 1, 3))
>>> out.shape, h.shape, out.grad_fn.name()
(torch.Size([5, 1, 4]), torch.Size([1, 1, 4]), 'StackBackward0')
"""

from __future__ import annotations

import math

import numpy as np

from ..dtypes import default_dtype
from .. import ops
from ..tensor import Tensor
from . import functional as F
from . import init
from .module import Module, Parameter
from .utils.rnn import PackedSequence


def _lstm_cell(x, state, w_ih, w_hh, b_ih, b_hh):
    h, c = state
    gates = F.linear(x, w_ih, b_ih) + F.linear(h, w_hh, b_hh)
    i, f, g, o = gates.chunk(4, 1)
    c = ops.sigmoid(f) * c + ops.sigmoid(i) * ops.tanh(g)
    return ops.sigmoid(o) * ops.tanh(c), c


def _gru_cell(x, h, w_ih, w_hh, b_ih, b_hh):
    i_r, i_z, i_n = F.linear(x, w_ih, b_ih).chunk(3, 1)
    h_r, h_z, h_n = F.linear(h, w_hh, b_hh).chunk(3, 1)
    r, z = ops.sigmoid(i_r + h_r), ops.sigmoid(i_z + h_z)
    n = ops.tanh(i_n + r * h_n)
    return (1 - z) * n + z * h


def _rnn_cell(nonlinearity):
    act = ops.tanh if nonlinearity == "tanh" else ops.relu

    def cell(x, h, w_ih, w_hh, b_ih, b_hh):
        return act(F.linear(x, w_ih, b_ih) + F.linear(h, w_hh, b_hh))
    return cell


class RNNBase(Module):
    """The stacked, optionally bidirectional, recurrent layer shared by RNN, LSTM and GRU."""

    gates = 1
    transposes_in_place = True      # a batch-first output: ``transpose_`` (RNN, GRU) or ``transpose`` (LSTM)

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, device=None, dtype=None):
        super().__init__()
        self.input_size, self.hidden_size, self.num_layers = input_size, hidden_size, num_layers
        self.bias, self.batch_first, self.dropout, self.bidirectional = bias, batch_first, float(dropout), bidirectional
        dtype = np.dtype(dtype) if dtype is not None else default_dtype()
        directions = 2 if bidirectional else 1
        self._flat_names = []
        for layer in range(num_layers):
            for direction in range(directions):
                size_in = input_size if layer == 0 else hidden_size * directions
                suffix = f"_l{layer}" + ("_reverse" if direction else "")
                shapes = [("weight_ih", (self.gates * hidden_size, size_in)),
                          ("weight_hh", (self.gates * hidden_size, hidden_size))]
                if bias:
                    shapes += [("bias_ih", (self.gates * hidden_size,)), ("bias_hh", (self.gates * hidden_size,))]
                for name, shape in shapes:
                    setattr(self, name + suffix, Parameter(np.empty(shape, dtype=dtype)))
                    self._flat_names.append(name + suffix)
        self.reset_parameters()

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def flatten_parameters(self):
        """Nothing to do: PyTorch packs the weights into one block for cuDNN; on the CPU it
        does nothing either."""

    def _weights(self, layer, direction):
        suffix = f"_l{layer}" + ("_reverse" if direction else "")
        return tuple(getattr(self, f"{name}{suffix}", None) for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"))

    def _zeros(self, batch, dtype):
        directions = 2 if self.bidirectional else 1
        return Tensor._make(np.zeros((self.num_layers * directions, batch, self.hidden_size), dtype=dtype))

    def _run(self, input, hx, cell, paired):
        """Every layer over the sequence: ``hx`` (and the cell states when ``paired``) per layer
        and direction; the output, and the final states stacked."""
        if isinstance(input, PackedSequence):
            return self._run_packed(input, hx, cell, paired)
        unbatched = input.ndim == 2
        if unbatched:
            input = input.unsqueeze(1)
            hx = None if hx is None else tuple(h.unsqueeze(1) for h in hx) if paired else hx.unsqueeze(1)
        elif self.batch_first:
            input = input.transpose(0, 1)
        batch = input.shape[1]
        if hx is None:
            hx = (self._zeros(batch, input.dtype), self._zeros(batch, input.dtype)) if paired \
                else self._zeros(batch, input.dtype)
        directions = 2 if self.bidirectional else 1
        finals, finals_c = [], []
        layer_input = input
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(directions):
                k = layer * directions + direction
                state = (hx[0][k], hx[1][k]) if paired else hx[k]
                weights = self._weights(layer, direction)
                steps = range(layer_input.shape[0])
                seq = [None] * layer_input.shape[0]
                for t in (reversed(steps) if direction else steps):
                    state = cell(layer_input[t], state, *weights)
                    seq[t] = state[0] if paired else state
                outputs.append(seq)
                finals.append(state[0] if paired else state)
                if paired:
                    finals_c.append(state[1])
            if directions == 1:
                layer_input = ops.stack(outputs[0])
            else:       # each direction's outputs stacked, then joined (CatBackward0), as ATen
                layer_input = ops.cat([ops.stack(outputs[0]), ops.stack(outputs[1])], -1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                layer_input = F.dropout(layer_input, self.dropout, True)
        output = layer_input
        h_n = ops.stack(finals)
        states = (h_n, ops.stack(finals_c)) if paired else h_n
        if unbatched:
            output = output.squeeze(1)
            states = tuple(s.squeeze(1) for s in states) if paired else states.squeeze(1)
        elif self.batch_first:      # ATen's RNN and GRU transpose in place (TransposeBackward1), LSTM not
            output = output.transpose_(0, 1) if self.transposes_in_place else output.transpose(0, 1)
        return output, states

    def _run_packed(self, packed, hx, cell, paired):
        """Every layer over a PackedSequence, as ATen's packed layers: at each time step only the
        sequences still running go through the cell; a sequence's final state is taken where it
        ends (forward) or where it starts (reverse). The states are in the batch's original
        order, and ``hx`` is taken in that order too."""
        data, batch_sizes = packed.data, [int(b) for b in packed.batch_sizes._data]
        sorted_indices, unsorted_indices = packed.sorted_indices, packed.unsorted_indices
        batch = batch_sizes[0]
        if hx is None:
            hx = (self._zeros(batch, data.dtype), self._zeros(batch, data.dtype)) if paired \
                else self._zeros(batch, data.dtype)
        elif sorted_indices is not None:
            hx = tuple(h.index_select(1, sorted_indices) for h in hx) if paired else hx.index_select(1, sorted_indices)
        directions = 2 if self.bidirectional else 1
        finals, finals_c = [], []
        layer_input = data
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(directions):
                k = layer * directions + direction
                state = (hx[0][k], hx[1][k]) if paired else hx[k]
                run = _packed_reverse if direction else _packed_forward
                output, state = run(layer_input, batch_sizes, state, cell, self._weights(layer, direction), paired)
                outputs.append(output)
                finals.append(state[0] if paired else state)
                if paired:
                    finals_c.append(state[1])
            layer_input = outputs[0] if directions == 1 else ops.cat(outputs, -1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                layer_input = F.dropout(layer_input, self.dropout, True)
        states = (ops.stack(finals), ops.stack(finals_c)) if paired else ops.stack(finals)
        if unsorted_indices is not None:
            states = tuple(s.index_select(1, unsorted_indices) for s in states) if paired \
                else states.index_select(1, unsorted_indices)
        return PackedSequence(layer_input, packed.batch_sizes, sorted_indices, unsorted_indices), states

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if not self.bias:
            s += ", bias=False"
        if self.batch_first:
            s += ", batch_first=True"
        if self.dropout:
            s += f", dropout={self.dropout}"
        if self.bidirectional:
            s += ", bidirectional=True"
        return s


def _rows(state, start, stop, paired):
    return tuple(h[start:stop] for h in state) if paired else state[start:stop]


def _joined(pieces, paired):
    if len(pieces) == 1:
        return pieces[0]
    return tuple(ops.cat(list(p), 0) for p in zip(*pieces)) if paired else ops.cat(pieces, 0)


def _packed_forward(input, batch_sizes, state, cell, weights, paired):
    """One direction forward in time over packed rows: the rows of sequences that have ended
    leave the state (and are its final value) as the batch shrinks."""
    outputs, ended, offset, last = [], [], 0, batch_sizes[0]
    for b in batch_sizes:
        if b < last:
            ended.append(_rows(state, b, last, paired))
            state = _rows(state, 0, b, paired)
        last = b
        state = cell(input[offset:offset + b], state, *weights)
        offset += b
        outputs.append(state[0] if paired else state)
    ended.append(state)
    return ops.cat(outputs, 0), _joined(ended[::-1], paired)


def _packed_reverse(input, batch_sizes, initial, cell, weights, paired):
    """One direction backward in time over packed rows: sequences join the state (from their
    initial value) at their last step."""
    offset, last = input.shape[0], batch_sizes[-1]
    state, outputs = _rows(initial, 0, last, paired), []
    for b in reversed(batch_sizes):
        if b > last:
            state = _joined([state, _rows(initial, last, b, paired)], paired)
        last = b
        state = cell(input[offset - b:offset], state, *weights)
        offset -= b
        outputs.append(state[0] if paired else state)
    return ops.cat(outputs[::-1], 0), state


class RNN(RNNBase):
    def __init__(self, *args, nonlinearity="tanh", **kwargs):
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'.")
        self.__dict__["nonlinearity"] = nonlinearity
        super().__init__(*args, **kwargs)

    def forward(self, input, hx=None):
        return self._run(input, hx, _rnn_cell(self.nonlinearity), False)


class LSTM(RNNBase):
    gates = 4
    transposes_in_place = False

    def forward(self, input, hx=None):
        return self._run(input, hx, _lstm_cell, True)


class GRU(RNNBase):
    gates = 3

    def forward(self, input, hx=None):
        return self._run(input, hx, _gru_cell, False)


class RNNCellBase(Module):
    gates = 1

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__()
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        dtype = np.dtype(dtype) if dtype is not None else default_dtype()
        self.weight_ih = Parameter(np.empty((self.gates * hidden_size, input_size), dtype=dtype))
        self.weight_hh = Parameter(np.empty((self.gates * hidden_size, hidden_size), dtype=dtype))
        if bias:
            self.bias_ih = Parameter(np.empty(self.gates * hidden_size, dtype=dtype))
            self.bias_hh = Parameter(np.empty(self.gates * hidden_size, dtype=dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    reset_parameters = RNNBase.reset_parameters

    def _step(self, input, hx, cell, paired):
        unbatched = input.ndim == 1
        if unbatched:
            input = input.unsqueeze(0)
            hx = None if hx is None else tuple(h.unsqueeze(0) for h in hx) if paired else hx.unsqueeze(0)
        if hx is None:
            zeros = Tensor._make(np.zeros((input.shape[0], self.hidden_size), dtype=input.dtype))
            hx = (zeros, zeros) if paired else zeros
        out = cell(input, hx, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        if unbatched:
            out = tuple(o.squeeze(0) for o in out) if paired else out.squeeze(0)
        return out

    def extra_repr(self):
        return f"{self.input_size}, {self.hidden_size}" + ("" if self.bias else ", bias=False")


class RNNCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None):
        self.__dict__["nonlinearity"] = nonlinearity
        super().__init__(input_size, hidden_size, bias, device, dtype)

    def forward(self, input, hx=None):
        return self._step(input, hx, _rnn_cell(self.nonlinearity), False)


class LSTMCell(RNNCellBase):
    gates = 4

    def forward(self, input, hx=None):
        return self._step(input, hx, _lstm_cell, True)


class GRUCell(RNNCellBase):
    gates = 3

    def forward(self, input, hx=None):
        return self._step(input, hx, _gru_cell, False)


__all__ = ["GRU", "GRUCell", "LSTM", "LSTMCell", "RNN", "RNNBase", "RNNCell", "RNNCellBase"]
