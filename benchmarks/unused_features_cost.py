"""Hooks, anomaly mode and version counters cost nothing measurable when unused.

The same 10,000-op chain as per_op_overhead.py is timed: as is; after each feature was
switched on and off again (the state the engine is back in when a feature is unused);
and with the feature in use, for scale.

Run: python benchmarks/unused_features_cost.py
"""

from __future__ import annotations

import warnings

import common  # noqa: F401  (thread pins before NumPy)

from common import best_time, micros, table
from diffcompare import autograd as ag
from per_op_overhead import N


def step(hook_every_tensor=False, modify_in_place=False):
    def run():
        x = ag.tensor([0.3], requires_grad=True)
        y = x
        for _ in range(N // 4):
            y = (y * 1.0001).sin() + 0.5
            if hook_every_tensor:
                y.register_hook(lambda g: g)
            y = y.tanh()
        if modify_in_place:
            y = y * 1
            y.add_(0.0)
        y.sum().backward()
    return run


def _touch_and_release_features():
    """Use anomaly mode and a hook once, then switch both off: the state 'used before, unused now'."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with ag.detect_anomaly():
            x = ag.tensor([1.0], requires_grad=True)
            (x * 2).sum().backward()
        x.register_hook(lambda g: g).remove()


def _anomaly_on(run):
    def wrapped():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ag.set_detect_anomaly(True)
            try:
                run()
            finally:
                ag.set_detect_anomaly(False)
    return wrapped


def main(rounds=4):
    variants = {
        "nothing used": step(),
        "after anomaly mode and a hook were used and switched off": step(),
        "one in-place op on the chain (version counters in play)": step(modify_in_place=True),
        "in use: a hook on every other tensor": step(hook_every_tensor=True),
        "in use: anomaly mode (records a stack per op)": _anomaly_on(step()),
    }
    best = {name: float("inf") for name in variants}
    for round_ in range(rounds):          # interleaved, so drift of the machine hits all alike
        for name, run in variants.items():
            if name.startswith("after") and round_ == 0:
                _touch_and_release_features()
            best[name] = min(best[name], best_time(run, repeat=2) / N)
    baseline = best["nothing used"]
    rows = [[name, micros(t), f"{t / baseline:.2f}x"] for name, t in best.items()]
    return table("Cost of hooks, anomaly mode and version counters (per op, 10,000-op chain)",
                 ["state", "per op", "relative"], rows,
                 [f"best of {rounds} interleaved rounds each; unused, each feature costs one attribute test per "
                  "node on the hot path; version counters exist only for tensors that are saved or modified"])


if __name__ == "__main__":
    main()
