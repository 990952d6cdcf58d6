"""Forward mode against reverse mode on Jacobians of f: R^n -> R^m, f(x) = tanh(A x) (A m x n):
passes and time for n, m in {1, 10, 100, 1000}, beside PyTorch's forward and reverse mode.

Forward mode makes one pass per input (n), reverse mode one per output (m): the engine's
forward mode runs n passes of forward_ad; its reverse mode one backward over a batch of m
seeds (is_grads_batched) and, for the count of passes the lecture speaks of, m backward
passes one by one. PyTorch: torch.autograd.functional.jacobian with strategy="forward-mode"
and "reverse-mode" (vectorize=True, vmap over the passes). Interleaved rounds, medians.

Run: python benchmarks/forward_reverse.py [--sizes 1 10 100 1000] [--rounds R]
"""

from __future__ import annotations

import argparse
import statistics
import time

import common  # noqa: F401  (thread pins before NumPy)
import numpy as np
from common import load_torch, table

from diffcompare import autograd as ag
from diffcompare.autograd import forward_ad


def engine_forward(a, x):
    """n forward passes, pass j seeded with e_j: column j of J."""
    n = x.shape[0]
    columns = []
    for j in range(n):
        e = np.zeros(n)
        e[j] = 1.0
        with forward_ad.dual_level():
            dual = forward_ad.make_dual(ag.tensor(x), ag.tensor(e))
            columns.append(forward_ad.unpack_dual((a @ dual).tanh()).tangent.numpy())
    return np.stack(columns, axis=1)


def engine_reverse_batched(a, x):
    return ag.functional.jacobian(lambda t: (a @ t).tanh(), ag.tensor(x), vectorize=True).numpy()


def engine_reverse_rows(a, x):
    return ag.functional.jacobian(lambda t: (a @ t).tanh(), ag.tensor(x)).numpy()


def main(argv=None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 10, 100, 1000])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    torch = load_torch()
    if torch is not None:
        torch.set_default_dtype(torch.float64)
    rng = np.random.default_rng(0)
    rows = []
    for n in args.sizes:
        for m in args.sizes:
            a_np = rng.normal(size=(m, n)) / np.sqrt(n)
            x = rng.uniform(-1, 1, n)
            a = ag.tensor(a_np)
            runs = {"forward mode (n passes)": lambda: engine_forward(a, x),
                    "reverse mode, batched (1 walk, m seeds)": lambda: engine_reverse_batched(a, x),
                    "reverse mode, m passes": lambda: engine_reverse_rows(a, x)}
            if torch is not None:
                ta = torch.tensor(a_np)
                f = (lambda t: torch.tanh(ta @ t))
                runs["PyTorch forward-mode"] = lambda: torch.autograd.functional.jacobian(
                    f, torch.tensor(x), vectorize=True, strategy="forward-mode")
                runs["PyTorch reverse-mode"] = lambda: torch.autograd.functional.jacobian(
                    f, torch.tensor(x), vectorize=True)
            exact = (1 - np.tanh(a_np @ x) ** 2)[:, None] * a_np
            for name, run in runs.items():
                value = run()
                value = value.detach().numpy() if hasattr(value, "detach") else value
                np.testing.assert_allclose(np.asarray(value).reshape(m, n), exact, rtol=1e-9, atol=1e-12,
                                           err_msg=name)
            times = {name: [] for name in runs}
            slow = n * m >= 10 ** 6
            for _ in range(1 if slow else args.rounds):
                for name, run in runs.items():
                    start = time.perf_counter()
                    run()
                    times[name].append(time.perf_counter() - start)
            med = {name: statistics.median(t) for name, t in times.items()}
            faster = "forward" if med["forward mode (n passes)"] < med["reverse mode, m passes"] else "reverse"
            rows.append([n, m, n, m] + [f"{med[name] * 1e3:.2f} ms" for name in runs] + [faster])
    names = list(runs)
    return table("Forward mode against reverse mode: the Jacobian of tanh(A x), R^n -> R^m (same run)",
                 ["n", "m", "forward passes", "reverse passes"] + names + ["faster, pass for pass"], rows,
                 notes=[f"{args.rounds} interleaved rounds (one where n m ≥ 10^6), medians; every way checked "
                        "against the exact Jacobian (1 - tanh²(Ax)) A first",
                        "'faster, pass for pass': the engine's forward mode (n passes) against its reverse mode one "
                        "pass per output (m passes): forward wins where n < m, reverse where m < n"])


if __name__ == "__main__":
    main()
