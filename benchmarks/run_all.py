"""Run every benchmark and write benchmarks/RESULTS.md.

Run: python benchmarks/run_all.py [--quick] [--before REV]   (--quick: a 100,000-op deep chain)
"""

from __future__ import annotations

import argparse
import platform
import time

import common  # noqa: F401  (thread pins before NumPy)
import numpy as np

import audit_large
import audit_scaling
import bug_catalogue
import compare_wall_time
import deep_chain_memory
import fault_survival
import supervision_cost
import forward_reverse
import jacobian_hessian
import many_points_gradient
import mlp_gradient
import peer_engines
import real_bug_detection
import reference_quality
import per_op_overhead
import real_workloads
import polynomial_points
import richardson_accuracy
import richardson_estimate
import rosenbrock_gradient
import rosenbrock_methods
import startup_layout
import symbolic_reverse
import verdict_quality
import unused_features_cost
from common import RESULTS, load_torch


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a shorter deep chain")
    parser.add_argument("--before", metavar="REV", help="an earlier revision whose start-up and layout to show beside")
    args = parser.parse_args()
    torch = load_torch()
    header = (
        "# Benchmark results\n\n"
        f"Written by `python benchmarks/run_all.py` on {time.strftime('%Y-%m-%d')}: Python "
        f"{platform.python_version()}, NumPy {np.__version__}, "
        f"{'PyTorch ' + torch.__version__ if torch else 'PyTorch not installed'}, "
        f"{platform.machine()}, one BLAS thread. Every figure is a ratio to a baseline timed in the "
        "same run; absolute times move with the machine's load.\n\n"
    )
    sections = [per_op_overhead.main([]), polynomial_points.main([]), jacobian_hessian.main([]), forward_reverse.main([]),
                peer_engines.main([]), symbolic_reverse.main([]),
                rosenbrock_gradient.main([]), mlp_gradient.main(), real_workloads.main(["--no-write"]),
                deep_chain_memory.main(["--ops", "100000" if args.quick else "1000000"]),
                unused_features_cost.main(), compare_wall_time.main([]), richardson_accuracy.main(), richardson_estimate.main([]),
                rosenbrock_methods.main([]), many_points_gradient.main([]), audit_scaling.main([]),
                audit_large.main([]),
                verdict_quality.main([]), bug_catalogue.main([]), real_bug_detection.main([]), fault_survival.main([]),
                supervision_cost.main([]),
                reference_quality.main([]),
                startup_layout.main(["--before", args.before] if args.before else [])]
    RESULTS.write_text(header + "\n".join(sections))
    print(f"written to {RESULTS}")


if __name__ == "__main__":
    main()
