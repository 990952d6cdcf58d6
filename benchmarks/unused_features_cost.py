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


def main():
    baseline = best_time(step(), repeat=5) / N
    rows = [["nothing used", micros(baseline), "1.00x"]]

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with ag.detect_anomaly():
            x = ag.tensor([1.0], requires_grad=True)
            (x * 2).sum().backward()
        h = x.register_hook(lambda g: g)
        h.remove()
    after_toggle = best_time(step(), repeat=5) / N
    rows.append(["after anomaly mode and a hook were used and removed", micros(after_toggle),
                 f"{after_toggle / baseline:.2f}x"])
    in_place = best_time(step(modify_in_place=True), repeat=5) / N
    rows.append(["one in-place op on the chain (version counters in play)", micros(in_place),
                 f"{in_place / baseline:.2f}x"])
    hooks = best_time(step(hook_every_tensor=True), repeat=5) / N
    rows.append(["in use: a hook on every other tensor", micros(hooks), f"{hooks / baseline:.2f}x"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ag.set_detect_anomaly(True)
        try:
            anomaly = best_time(step(), repeat=3) / N
        finally:
            ag.set_detect_anomaly(False)
    rows.append(["in use: anomaly mode (records a stack per op)", micros(anomaly), f"{anomaly / baseline:.2f}x"])
    again = best_time(step(), repeat=5) / N
    rows.append(["nothing used, measured again (the noise level)", micros(again), f"{again / baseline:.2f}x"])
    return table("Cost of hooks, anomaly mode and version counters (per op, 10,000-op chain)",
                 ["state", "per op", "relative"], rows,
                 ["unused, each feature costs one attribute test per node on the hot path; version counters "
                  "are only created for tensors that are saved or modified"])


if __name__ == "__main__":
    main()
