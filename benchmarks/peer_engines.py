"""The engine beside PyTorch and JAX as methods of ``compare`` (``--methods torch,jax,jax-jit``)
on random well-posed functions at random points (verdict_quality's generator): how many of
each engine's gradients are within their expected accuracy of the exact reference (judged by
the one judge, against an exact gradient that this benchmark also derives by forward-mode
dual numbers in mpmath, sharing no code with the tool), and the time per gradient of each
engine side by side (medians over the functions of each one's median).

Run: python benchmarks/peer_engines.py [--count N] [--seed S]
"""

from __future__ import annotations

import argparse
import random
import statistics

import common  # noqa: F401  (thread pins before NumPy)
import mpmath
from common import table
from verdict_quality import DPS, text, well_posed_corpus

import diffcompare
from diffcompare.language.jax_world import available as jax_available
from diffcompare.language.torch_world import available as torch_available

ENGINES = ("autograd", "forward-mode", "torch", "jax", "jax-jit")


def main(argv=None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=60)
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args(argv)
    engines = [e for e in ENGINES if (e != "torch" or torch_available()) and (not e.startswith("jax") or
                                                                            jax_available())]
    corpus = well_posed_corpus(random.Random(args.seed), args.count)
    passes = {e: 0 for e in engines}
    other = {e: {} for e in engines}
    far = {e: 0 for e in engines}
    times = {e: [] for e in engines}
    for tree, variables, point, exact in corpus:
        report = diffcompare.compare(text(tree), at=point, methods=",".join(engines), repeat=3, symbolic_timeout=5)
        for e in engines:
            m = report.method(e)
            if m.verdict == "pass":
                passes[e] += 1
            else:
                other[e][m.verdict] = other[e].get(m.verdict, 0) + 1
            values = m.estimate.values.reshape(-1) if m.estimate.has_values else []
            with mpmath.workdps(DPS):          # off by more than half the exact gradient: a wrong value
                for v, g in zip(values, exact.grad):
                    if g != 0 and abs(float(v) - float(g)) > 0.5 * abs(float(g)):
                        far[e] += 1
            if m.estimate.timing is not None:
                times[e].append(m.estimate.timing.median)
    rows = []
    base = statistics.median(times["autograd"])
    for e in engines:
        t = statistics.median(times[e]) if times[e] else float("nan")
        rows.append([e, f"{passes[e]} of {len(corpus)}", ", ".join(f"{k} ×{n}" for k, n in other[e].items()) or "—",
                     str(far[e]), f"{t * 1e6:.1f} µs", f"{t / base:.2f}x"])
    return table(f"Engines side by side on {len(corpus)} random well-posed functions (seed {args.seed})",
                 ["engine", "within its expected accuracy (pass)", "other verdicts", "values off by more than half a "
                  "nonzero exact gradient", "median time per gradient", "relative to autograd"], rows,
                 notes=["every engine judged by compare's one judge against SymPy's exact derivative; the 'off by "
                        "more than half' column against the benchmark's own mpmath dual numbers",
                        "times: compare's median of repeated batches per function (jax-jit compiled before timing), "
                        "then the median over the functions"])


if __name__ == "__main__":
    main()
