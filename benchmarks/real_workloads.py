"""Real AD workloads side by side: the gradients of ADBench's and GradBench's objectives
(GMM, bundle adjustment, hand tracking, LSTM, log-sum-exp, the determinant by minors;
diffcompare/workloads/) in the engine, PyTorch eager and JAX jit, at two sizes each.

Every gradient is checked first: the engine's against PyTorch's (to 1e-10, relative to the
largest entry of each gradient, float64) and against central differences of the engine's
forward along a few random directions (to 1e-6 relative to the gradient's norm). Then each
way's gradient (forward + backward, from NumPy arrays to gradients) is timed in interleaved
rounds, one BLAS thread, JAX compiled before timing; the medians are reported, with the
engine's forward alone (under no_grad), the objective's own cost.

With ``--baseline PATH`` the engine of another checkout (say the main branch's, before a
change) runs the same objectives beside it in the same interleaved rounds: the table gets
its time and the engine's time over it.

Run: python benchmarks/real_workloads.py [--workloads gmm ba ...] [--sizes small medium]
                                         [--seconds S] [--baseline PATH] [--no-jax] [--no-write]
                                         [--profile WORKLOAD SIZE]

The table is printed and written into RESULTS.md under its heading (replacing an earlier
table of the same heading).
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import io
import os
import pstats
import statistics
import time

import common  # noqa: F401  (thread pins before NumPy)

os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1")

import numpy as np  # noqa: E402

from common import RESULTS, baseline_commit, load_baseline, load_torch, replace_section, table  # noqa: E402
from diffcompare import autograd as ag  # noqa: E402
from diffcompare.workloads import WORKLOADS  # noqa: E402

TITLE = "Real AD workloads: time per gradient, engine against PyTorch eager and JAX jit (same run)"
DIRECTIONS, FD_STEP, FD_TOL, TORCH_TOL = 3, 1e-5, 1e-6, 1e-10


def load_jax():
    """JAX in float64, or None when it is not installed."""
    try:
        import jax
    except ImportError:
        return None
    jax.config.update("jax_enable_x64", True)
    return jax


def engine_gradient(module, data, engine=None):
    """The engine's gradient; ``engine``: another checkout's autograd package (``--baseline``),
    which runs the same objective body (the workload's ``_objective``, given that package)."""
    lib = engine or ag
    consts = data.consts_for(lib.from_numpy)
    objective = module.objective_engine if engine is None else (lambda *p, **c: module._objective(engine, *p, **c))

    def run():
        params = [lib.from_numpy(p).requires_grad_() for p in data.params]
        value = objective(*params, **consts)
        value.backward()
        return value.item(), [p.grad.numpy() for p in params]
    return run


def engine_forward(module, data):
    consts = data.consts_for(ag.from_numpy)

    def run(params=None):
        with ag.no_grad():
            return module.objective_engine(*[ag.from_numpy(p) for p in params or data.params], **consts).item()
    return run


def torch_gradient(torch, module, data):
    consts = data.consts_for(torch.from_numpy)

    def run():
        params = [torch.from_numpy(p).requires_grad_() for p in data.params]
        value = module.objective_torch(*params, **consts)
        value.backward()
        return value.item(), [p.grad.numpy() for p in params]
    return run


def jax_gradient(jax, module, data):
    consts = data.consts_for(jax.numpy.asarray)
    argnums = tuple(range(len(data.params)))
    compiled = jax.jit(jax.value_and_grad(lambda *p: module.objective_jax(*p, **consts), argnums=argnums))

    def run():
        value, grads = compiled(*data.params)
        value.block_until_ready()
        return float(value), [np.asarray(g) for g in grads]
    return run


def difference(grads, reference):
    """The largest entry of grads - reference relative to the largest of reference, over
    the parameters."""
    return max(float(np.max(np.abs(g - r))) / max(float(np.max(np.abs(r))), 1e-300) for g, r in zip(grads, reference))


def finite_difference_error(forward, data, grads, seed=0):
    """The largest |central difference - g . v| / |g| over a few random unit directions v."""
    rng = np.random.default_rng(seed)
    norm = np.sqrt(sum(float(np.sum(g * g)) for g in grads))
    worst = 0.0
    for _ in range(DIRECTIONS):
        v = [rng.standard_normal(p.shape) for p in data.params]
        scale = np.sqrt(sum(float(np.sum(d * d)) for d in v))
        v = [d / scale for d in v]
        plus = forward([p + FD_STEP * d for p, d in zip(data.params, v)])
        minus = forward([p - FD_STEP * d for p, d in zip(data.params, v)])
        exact = sum(float(np.sum(g * d)) for g, d in zip(grads, v))
        worst = max(worst, abs((plus - minus) / (2 * FD_STEP) - exact) / norm)
    return worst


def _timed(run, calls):
    """CPU time per call (the process's, all its threads): on a shared machine wall time
    also counts the time other processes hold the CPU."""
    start = time.process_time()
    for _ in range(calls):
        run()
    return (time.process_time() - start) / calls


def measure(ways, seconds):
    """Median per-call time of every way: interleaved rounds (every way once a round, the order
    rotated from round to round), each round's measurement enough calls to last about 20 ms;
    as many rounds as fit in about ``seconds`` (3 to 15)."""
    calls, once = {}, {}
    for name, run in ways.items():
        start = time.perf_counter()
        run()
        once[name] = time.perf_counter() - start
        calls[name] = max(1, int(0.02 / max(once[name], 1e-9)))
    per_round = sum(once[n] * calls[n] for n in ways)
    rounds = int(min(15, max(3, seconds / max(per_round, 1e-9))))
    times = {name: [] for name in ways}
    names = list(ways)
    gc.collect()
    for r in range(rounds):
        # each round starts with the next way: no way is always the one measured first (or right
        # after another), which with identical code measured up to 1.3x apart
        for name in names[r % len(names):] + names[:r % len(names)]:
            times[name].append(_timed(ways[name], calls[name]))
    return {name: statistics.median(t) for name, t in times.items()}, rounds


def milliseconds(seconds):
    return f"{seconds * 1e3:.3g} ms" if seconds < 1 else f"{seconds:.3g} s"


def run_one(module, size, torch, jax, seconds, baseline=None):
    """The checks and the timings of one workload at one size: a table row."""
    data = module.make_data(size, seed=0)
    ways = {"engine": engine_gradient(module, data), "forward": engine_forward(module, data)}
    value, grads = ways["engine"]()
    fd = finite_difference_error(ways["forward"], data, grads)
    assert fd <= FD_TOL, f"{module.NAME} {size}: the engine's gradient is off central differences by {fd:.2e}"
    if baseline is not None:
        ways["baseline"] = engine_gradient(module, data, baseline)
        _, baseline_grads = ways["baseline"]()
        assert difference(grads, baseline_grads) <= TORCH_TOL, f"{module.NAME} {size}: engine and baseline differ"
    versus_torch = versus_jax = None
    if torch is not None:
        ways["torch"] = torch_gradient(torch, module, data)
        torch_value, torch_grads = ways["torch"]()
        versus_torch = difference(grads, torch_grads)
        assert versus_torch <= TORCH_TOL, f"{module.NAME} {size}: engine and PyTorch differ by {versus_torch:.2e}"
        assert abs(value - torch_value) <= TORCH_TOL * max(abs(torch_value), 1.0)
    if jax is not None:
        compile_start = time.perf_counter()
        ways["jax"] = jax_gradient(jax, module, data)
        _, jax_grads = ways["jax"]()
        compile_time = time.perf_counter() - compile_start
        versus_jax = difference(jax_grads, grads)
    medians, rounds = measure(ways, seconds)
    t = medians["engine"]
    row = [module.NAME, module.describe(size), milliseconds(t)]
    if baseline is not None:
        row += [milliseconds(medians["baseline"]), f"{t / medians['baseline']:.2f}x"]
    row += [milliseconds(medians["torch"]), f"{t / medians['torch']:.2f}x"] if torch is not None else ["—", "—"]
    row += [milliseconds(medians["jax"]), f"{t / medians['jax']:.2f}x"] if jax is not None else ["—", "—"]
    row += [milliseconds(medians["forward"]), f"{t / medians['forward']:.1f}x",
            "—" if versus_torch is None else f"{versus_torch:.0e}", f"{fd:.0e}",
            "—" if versus_jax is None else f"{versus_jax:.0e} (compiled in {compile_time:.1f} s)", rounds]
    print(" | ".join(str(c) for c in row), flush=True)
    return row


def profile(name, size, top=25):
    """cProfile of the engine's gradient of one workload: where its time goes."""
    module = WORKLOADS[name]
    run = engine_gradient(module, module.make_data(size, seed=0))
    run()
    profiler = cProfile.Profile(time.process_time)
    profiler.enable()
    for _ in range(3):
        run()
    profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    stats.sort_stats("tottime").print_stats(top)
    stats.sort_stats("cumulative").print_stats(top)
    print(out.getvalue())


def write(text):
    """Put ``text`` into RESULTS.md in place of an earlier section of the same heading, or at
    the end (``common.replace_section``: the section ends at the next heading of its level or
    a higher one, so a following ``## `` section is kept)."""
    replace_section(RESULTS, f"### {TITLE}", text)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workloads", nargs="+", default=list(WORKLOADS), choices=list(WORKLOADS))
    parser.add_argument("--sizes", nargs="+", default=["small", "medium"], choices=["tiny", "small", "medium"])
    parser.add_argument("--seconds", type=float, default=5.0, help="timing budget per workload and size (default 5)")
    parser.add_argument("--baseline", metavar="PATH",
                        help="a checkout whose engine is timed beside this one (say the main branch's)")
    parser.add_argument("--no-jax", action="store_true", help="leave JAX out (its compilation takes seconds)")
    parser.add_argument("--no-write", action="store_true", help="print the table only")
    parser.add_argument("--profile", nargs=2, metavar=("WORKLOAD", "SIZE"), help="cProfile the engine's gradient instead")
    args = parser.parse_args(argv)
    if args.profile:
        profile(*args.profile)
        return ""
    torch, jax = load_torch(), None if args.no_jax else load_jax()
    baseline = load_baseline(args.baseline) if args.baseline else None
    start = time.perf_counter()
    rows = [run_one(WORKLOADS[name], size, torch, jax, args.seconds, baseline)
            for name in args.workloads for size in args.sizes]
    notes = [
        "time per gradient: forward + backward from NumPy arrays to NumPy gradients, float64, one BLAS/torch/XLA thread; "
        "CPU time of the process (the machine is shared), medians of interleaved rounds (every way once a round, each measurement at least 20 ms of calls)",
        "engine / PyTorch below 1: the engine is faster. Goal (issue 29): at most 1 on every workload",
        "grad / forward: the engine's gradient over its forward alone (no_grad), the objective's own cost",
        *([f"baseline: the engine of another checkout (its git commit {baseline_commit(args.baseline)}), "
           "timed in the same interleaved rounds on the same objective body; engine / baseline below 1: this "
           "engine is faster"] if baseline is not None else []),
        f"checks before timing: engine against PyTorch (largest difference relative to the largest gradient entry, "
        f"must be ≤ {TORCH_TOL:g}); central differences (h = {FD_STEP:g}) along {DIRECTIONS} random unit directions "
        f"(|difference - g·v| / |g| ≤ {FD_TOL:g}); JAX against the engine, reported",
        "objectives: diffcompare/workloads/ (the engine and PyTorch run the same function body); ADBench's BA and HT "
        "ask for Jacobians, here the gradient of the residuals' sum of squares / 2",
        f"{time.perf_counter() - start:.0f} s in all"
        + ("" if torch else "; PyTorch not installed")
        + ("" if jax else "; JAX left out" if args.no_jax else "; JAX not installed"),
    ]
    header = ["workload", "size", "engine", *(["baseline engine", "engine / baseline"] if baseline is not None else []),
              "PyTorch eager", "engine / PyTorch", "JAX jit", "engine / JAX",
              "engine forward", "grad / forward", "vs PyTorch", "vs differences", "JAX vs engine", "rounds"]
    text = table(TITLE, header, rows, notes)
    if not args.no_write:
        write(text)
        print(f"written to {RESULTS}")
    return text


if __name__ == "__main__":
    main()
