"""Gradient of all weights of an MLP 784-128-10 (tanh, cross-entropy, batch 64, float64):
the engine against PyTorch eager and a hand-written NumPy backward, in the same run.

Run: python benchmarks/mlp_gradient.py
"""

from __future__ import annotations

import common  # noqa: F401  (thread pins before NumPy)
import numpy as np

from common import best_time, load_torch, micros, ratio, table
from diffcompare import autograd as ag

BATCH, SIZES = 64, (784, 128, 10)


def data():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((BATCH, SIZES[0]))
    labels = rng.integers(0, SIZES[2], BATCH)
    w1 = rng.uniform(-1, 1, (SIZES[1], SIZES[0])) / np.sqrt(SIZES[0])
    b1 = rng.uniform(-1, 1, SIZES[1]) / np.sqrt(SIZES[0])
    w2 = rng.uniform(-1, 1, (SIZES[2], SIZES[1])) / np.sqrt(SIZES[1])
    b2 = rng.uniform(-1, 1, SIZES[2]) / np.sqrt(SIZES[1])
    return x, labels, [w1, b1, w2, b2]


def hand_gradient(x, labels, params):
    """Forward and backward written out in NumPy: the baseline."""
    w1, b1, w2, b2 = params
    h = np.tanh(x @ w1.T + b1)
    z = h @ w2.T + b2
    z = z - z.max(1, keepdims=True)
    p = np.exp(z)
    p /= p.sum(1, keepdims=True)
    dz = p
    dz[np.arange(BATCH), labels] -= 1
    dz /= BATCH
    dh = (dz @ w2) * (1 - h * h)
    return [dh.T @ x, dh.sum(0), dz.T @ h, dz.sum(0)]


def engine_gradient(lib, x, labels, params, cross_entropy):
    ws = [lib.tensor(p, requires_grad=True) for p in params]
    xs, ys = lib.tensor(x), lib.tensor(labels)

    def step():
        for w in ws:
            w.grad = None
        w1, b1, w2, b2 = ws
        logits = (xs @ w1.T + b1).tanh() @ w2.T + b2
        cross_entropy(logits, ys).backward()
        return [w.grad for w in ws]
    return step


def main():
    torch = load_torch()
    x, labels, params = data()
    hand = hand_gradient(x, labels, [p.copy() for p in params])
    ours = engine_gradient(ag, x, labels, params, ag.nn.functional.cross_entropy)
    for a, b in zip(ours(), hand):
        assert np.allclose(a.numpy(), b, rtol=1e-10, atol=1e-13), "engine gradient differs from the hand-written one"
    base = best_time(lambda: hand_gradient(x, labels, params))
    t_ours = best_time(ours)
    rows = [["hand-written NumPy backward", micros(base), "1.00x"],
            ["diffcompare.autograd", micros(t_ours), ratio(t_ours / base)]]
    notes = []
    if torch is not None:
        theirs = engine_gradient(torch, x, labels, params, torch.nn.functional.cross_entropy)
        t_torch = best_time(theirs)
        rows.append([f"PyTorch {torch.__version__} eager", micros(t_torch), ratio(t_torch / base)])
        notes.append(f"target: the engine no slower than PyTorch eager; measured PyTorch/engine = {t_torch / t_ours:.2f}")
    return table("MLP 784-128-10, tanh, cross-entropy, batch 64, float64: gradient of all weights",
                 ["method", "time per gradient", "relative to hand-written NumPy"], rows, notes)


if __name__ == "__main__":
    main()
