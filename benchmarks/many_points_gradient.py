"""The gradient of a 3-variable expression at 10^6 points, every point at once: the
engine's backward on arrays of points against NumPy evaluating f on the same points in
the same run (and SymPy's generated code and central differences for context).

Run: python benchmarks/many_points_gradient.py [--points 1000000]
"""

from __future__ import annotations

import argparse

import common  # noqa: F401  (thread pins before NumPy)
import numpy as np

from common import best_time, ratio, table

TEXT = "sin(x)*exp(y) + log(1 + z**2)"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--points", type=int, default=1_000_000)
    args = parser.parse_args(argv)
    from diffcompare.methods.entries import autograd_entries, fd_entries, outputs, symbolic_entries
    from diffcompare.problem.tasks import make_task
    from diffcompare.problem.points import box_centre, random_points
    from diffcompare.problem.problem import make_problem
    from diffcompare.methods.symbolic import differentiate

    box = {"x": (-2.0, 2.0), "y": (-1.0, 1.0), "z": (-3.0, 3.0)}
    problem = make_problem(TEXT, box_centre(box, {}))
    task = make_task(problem, "gradient")
    points = random_points(problem, box, args.points, seed=0)
    x, y, z = points.flat.T.copy()

    def numpy_forward():
        return np.sin(x) * np.exp(y) + np.log(1 + z ** 2)

    forward = best_time(numpy_forward, repeat=5)
    rows = [["NumPy forward (hand-written)", f"{forward * 1e3:.1f} ms", "1.00x"]]
    tool_forward = best_time(lambda: outputs(problem, task, points.flat), repeat=5)
    rows.append(["f by the expression evaluator", f"{tool_forward * 1e3:.1f} ms", ratio(tool_forward / forward)])
    autograd = best_time(lambda: autograd_entries(problem, task, points, batches=0), repeat=5)
    rows.append(["autograd (one backward on arrays of points)", f"{autograd * 1e3:.1f} ms", ratio(autograd / forward)])
    derivative = differentiate(problem, 10.0, task)
    symbolic = best_time(lambda: symbolic_entries(problem, task, points, derivative, batches=0), repeat=5)
    rows.append(["symbolic (lambdify, cse)", f"{symbolic * 1e3:.1f} ms", ratio(symbolic / forward)])
    central = best_time(lambda: fd_entries(problem, task, points, "central", batches=0), repeat=3)
    rows.append(["central differences (6 evaluations)", f"{central * 1e3:.1f} ms", ratio(central / forward)])

    gradient = autograd_entries(problem, task, points, batches=0).values      # checked by hand
    expected = np.stack([np.cos(x) * np.exp(y), np.sin(x) * np.exp(y), 2 * z / (1 + z ** 2)], axis=1)
    assert np.allclose(gradient, expected, rtol=1e-14, atol=1e-15)
    return table(f"Gradient of {TEXT} at {args.points:,} points (same run)", ["method", "time", "/ NumPy forward"],
                 rows, notes=["target: autograd at most 5x the NumPy forward on the same points",
                              "the engine's backward on arrays holds every intermediate of the forward (as NumPy's "
                              "forward does not), so part of the ratio is memory traffic"])


if __name__ == "__main__":
    main()
