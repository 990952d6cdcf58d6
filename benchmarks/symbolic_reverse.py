"""Symbolic reverse mode against sympy.diff and sympy.diff + cse: the gradient's size
(count_ops: of the raw derivative; of cse's replacements and reduced expressions; of every
assignment of the reverse sweep's straight-line program) and the time to build it, per n,
on the logistic map (n = 1 ... 20), nested sines and the tanh MLP family of `swell`.

Sizes and times are ratios against sympy.diff in the same run; times are medians of
interleaved rounds, SymPy's cache cleared and the garbage collected before every build. sympy.diff's time starts from
f already built in SymPy; symbolic reverse mode's includes its trace of f. Once sympy.diff
takes longer than the budget, larger n are built by symbolic reverse mode alone.

Run: python benchmarks/symbolic_reverse.py [--rounds R] [--budget S] [--logistic N] [--sines N] [--mlp N]
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time

import common  # noqa: F401  (thread pins before NumPy)
import numpy as np
import sympy
from common import table
from sympy.core.cache import clear_cache

from diffcompare.lecture.swell import FAMILIES
from diffcompare.methods.budget import TimedOut, time_limit
from diffcompare.methods.symbolic_reverse import reverse, trace
from diffcompare.problem.problem import make_problem


def _timed(build, budget):
    """(seconds, result) of one build from a cold SymPy cache, the previous builds' garbage
    collected (SymPy's large expressions would slow whatever runs next), or (None, None)
    past the budget."""
    clear_cache()
    gc.collect()
    try:
        with time_limit(budget):
            start = time.perf_counter()
            result = build()
            return time.perf_counter() - start, result
    except TimedOut:
        return None, None


def _size(expressions) -> int:
    return int(sum(sympy.count_ops(e) for e in expressions))


def measure(family: str, n: int, rounds: int, budget: float, sympy_on: bool) -> dict:
    f, point = FAMILIES[family][0](n)
    problem = make_problem(f, point, label=f"{family} n={n}")
    expression, symbols = problem.sympy_form() if sympy_on else (None, None)

    def by_reverse():
        program, _ = trace(problem)
        return reverse(program)

    def by_diff():
        return [sympy.diff(expression, s) for s in symbols]

    def by_cse():
        return sympy.cse(by_diff())

    builds = {"reverse": by_reverse}
    if sympy_on:
        builds.update(diff=by_diff, cse=by_cse)
    times = {name: [] for name in builds}
    results = {}
    for k in range(rounds):
        names = list(builds)
        for name in names[k % len(names):] + names[:k % len(names)]:       # interleaved, the order rotated
            if name in times and times[name] is None:
                continue
            seconds, result = _timed(builds[name], budget)
            if seconds is None:
                times[name] = None
                continue
            times[name].append(seconds)
            results[name] = result
    out = {"n": n, "time": {name: statistics.median(t) if t else None for name, t in times.items()}}
    program = results["reverse"]
    out["size"] = {"reverse": program.size}
    if "diff" in results:
        out["size"]["diff"] = _size(results["diff"])
        if "cse" in results:
            replacements, reduced = results["cse"]
            out["size"]["cse"] = _size([rhs for _, rhs in replacements]) + _size(reduced)
        # the two gradients agree at the point (the program's code against SymPy's)
        args = [float(v) for v in problem.flat_point()]
        exact = np.array([float(d.subs(dict(zip(symbols, args)))) for d in results["diff"]]) if n <= 6 else None
        if exact is not None:
            np.testing.assert_allclose(np.array(program.function()(*args), dtype=float), exact, rtol=1e-9)
    return out


def _ratio(a, b) -> str:
    return "—" if a is None or b is None or b == 0 else f"{a / b:.3g}x"


def _ms(t) -> str:
    return "—" if t is None else f"{t * 1e3:.3g} ms"


def run_family(family: str, ns, rounds: int, budget: float) -> str:
    rows, sympy_on, stopped = [], True, None
    for n in ns:
        m = measure(family, n, rounds, budget, sympy_on)
        t, s = m["time"], m["size"]
        if sympy_on and (t.get("diff") is None or t.get("cse") is None):
            sympy_on, stopped = False, n
        rows.append([n, f"{s['reverse']:,}", f"{s['diff']:,}" if "diff" in s else "—",
                     _ratio(s.get("cse"), s.get("diff")), _ratio(s["reverse"], s.get("diff")),
                     _ms(t["reverse"]), _ms(t.get("diff")), _ratio(t.get("cse"), t.get("diff")),
                     _ratio(t["reverse"], t.get("diff"))])
    notes = [f"sympy.diff (or its cse) took longer than {budget:g} s at n = {stopped}: from there on, symbolic "
             f"reverse mode alone"] if stopped else []
    return table(f"Symbolic reverse mode against sympy.diff and cse: {family} (same run, medians of {rounds} "
                 f"interleaved rounds)",
                 ["n", "reverse size (ops)", "sympy.diff size (ops)", "cse / diff size", "reverse / diff size",
                  "reverse time", "sympy.diff time", "diff + cse / diff time", "reverse / diff time"],
                 rows, notes)


def main(argv=None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--budget", type=float, default=5.0, help="seconds one SymPy build may take")
    parser.add_argument("--logistic", type=int, default=20, metavar="N", help="logistic map n = 1 ... N")
    parser.add_argument("--sines", type=int, default=20, metavar="N", help="nested sines n = 1 ... N")
    parser.add_argument("--mlp", type=int, default=8, metavar="N", help="tanh MLP n = 1 ... N layers")
    args = parser.parse_args(argv)
    sections = [run_family("logistic", range(1, args.logistic + 1), args.rounds, args.budget),
                run_family("nested-sin", range(1, args.sines + 1), args.rounds, args.budget),
                run_family("mlp", range(1, args.mlp + 1), args.rounds, args.budget)]
    notes = table("Symbolic reverse mode: what the sizes count", ["program", "size"], [
        ["sympy.diff", "count_ops of the partial derivatives written out as trees"],
        ["cse", "count_ops of cse's replacements and reduced expressions"],
        ["symbolic reverse", "count_ops of every assignment of the straight-line program (f's intermediates "
                             "the gradient reads, then one adjoint per node) and of the outputs"]])
    return "\n".join(sections) + "\n" + notes


if __name__ == "__main__":
    main()
