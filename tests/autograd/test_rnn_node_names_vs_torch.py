"""RNN, GRU and LSTM outputs, differentially against PyTorch (float64, its native CPU path):
the nodes that made the output and the final states (TransposeBackward1 for a batch-first
RNN/GRU output, TransposeBackward0 for LSTM's, CatBackward0 over StackBackward0 for a
bidirectional layer), for batch-first or not, packed or not, with values and gradients;
independently, a batch-first layer gives the transpose of the same layer's time-first output,
and a one-step RNN is tanh of its two affine maps."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from diffcompare import autograd as ag  # noqa: E402

RNG = np.random.default_rng(3)


pytestmark = pytest.mark.usefixtures("torch_float64")     # PyTorch in float64, as the engine


def _names(node, depth=2):
    names = []
    while node is not None and depth:
        names.append(node.name())
        node = node.next_functions[0][0] if node.next_functions else None
        depth -= 1
    return names


def _layer(lib, kind, layers, bidirectional, batch_first, weights=None):
    m = getattr(lib.nn, kind)(3, 4, num_layers=layers, bidirectional=bidirectional, batch_first=batch_first)
    if weights is not None:
        for name, value in weights.items():
            getattr(m, name).data = lib.tensor(value)
    return m


def _run(lib, kind, layers, bidirectional, batch_first, packed, x, weights):
    m = _layer(lib, kind, layers, bidirectional, batch_first, weights)
    X = lib.tensor(x, requires_grad=True)
    if packed:
        seq = lib.nn.utils.rnn.pack_padded_sequence(X, lib.tensor([5, 3]), batch_first=batch_first)
        out, h = m(seq)
        data = out.data
    else:
        out, h = m(X)
        data = out
    states = h if kind == "LSTM" else (h,)
    loss = (data * data).sum() + sum((s ** 3).sum() for s in states)
    loss.backward()
    names = (_names(data.grad_fn), [s.grad_fn.name() for s in states])
    grads = [X.grad] + [getattr(m, n).grad for n in sorted(weights)]
    return names, [data] + list(states) + grads


CASES = [(kind, layers, bidirectional, batch_first, packed) for kind in ("RNN", "GRU", "LSTM")
         for layers, bidirectional in ((1, False), (2, True)) for batch_first in (False, True)
         for packed in (False, True)]


@pytest.mark.parametrize("kind, layers, bidirectional, batch_first, packed", CASES)
def test_nodes_values_and_gradients_match_pytorch(kind, layers, bidirectional, batch_first, packed):
    template = _layer(torch, kind, layers, bidirectional, batch_first)
    weights = {n: RNG.uniform(-0.5, 0.5, tuple(p.shape)) for n, p in template.named_parameters()}
    x = RNG.standard_normal((2, 5, 3) if batch_first else (5, 2, 3))
    mine = _run(ag, kind, layers, bidirectional, batch_first, packed, x, weights)
    theirs = _run(torch, kind, layers, bidirectional, batch_first, packed, x, weights)
    assert mine[0] == theirs[0]
    for m, t in zip(mine[1], theirs[1]):
        np.testing.assert_allclose(m.detach().numpy(), t.detach().numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("kind, expected", [("RNN", "TransposeBackward1"), ("GRU", "TransposeBackward1"),
                                            ("LSTM", "TransposeBackward0")])
def test_batch_first_output_is_the_transposed_time_first_output(kind, expected):
    x = RNG.standard_normal((5, 2, 3))
    time_first = _layer(ag, kind, 2, True, False)
    batch_first = _layer(ag, kind, 2, True, True, {n: p.detach().numpy() for n, p in time_first.named_parameters()})
    a, _ = time_first(ag.tensor(x))
    b, _ = batch_first(ag.tensor(np.swapaxes(x, 0, 1)))
    np.testing.assert_array_equal(b.detach().numpy(), np.swapaxes(a.detach().numpy(), 0, 1))
    assert b.grad_fn.name() == expected and _names(a.grad_fn) == ["CatBackward0", "StackBackward0"]


def test_one_step_rnn_by_hand():
    m = ag.nn.RNN(3, 4, batch_first=True)
    x = RNG.standard_normal((2, 1, 3))
    out, h = m(ag.tensor(x))
    w_ih, w_hh, b_ih, b_hh = (getattr(m, n).detach().numpy() for n in ("weight_ih_l0", "weight_hh_l0",
                                                                      "bias_ih_l0", "bias_hh_l0"))
    expected = np.tanh(x[:, 0] @ w_ih.T + b_ih + np.zeros((2, 4)) @ w_hh.T + b_hh)
    np.testing.assert_allclose(out.detach().numpy()[:, 0], expected, rtol=1e-14)
    np.testing.assert_allclose(h.detach().numpy()[0], expected, rtol=1e-14)
