"""Detection of wrong backward rules: the catalogue of wrong_backward_rules.py (12 kinds,
each also behind a forward that branches on the value), each wrong rule beside its right
twin, at random points of its domain.

Asked of every rule at every point: ``compare`` (the autograd method's verdict and the
exit status), the audit (``diffcompare.audit`` at that point), and, where installed,
``torch.autograd.gradcheck`` / ``gradgradcheck`` and ``jax.test_util.check_grads`` on the
same rule written for those engines. A wrong rule is caught at a point when the tool
fails it there; whether the bug changes the derivative there is the catalogue's own
hand-derived answer. A right rule that a tool fails is a false alarm.

Run: python benchmarks/bug_detection.py [--points N] [--seed S]
"""

from __future__ import annotations

import argparse
import random
import time

import common  # noqa: F401  (thread pins before NumPy)
from common import table

import diffcompare
from wrong_backward_rules import CATALOGUE, EngineOps, load_jax, load_torch


def tool_compare(f, point, check):
    """(caught, exit status): the autograd method failed at the point."""
    c = diffcompare.compare(f, at=point, kind="hessian" if check == "hessian" else None, methods="autograd",
                            repeat=1, symbolic_timeout=5)
    return c.method("autograd").verdict == "fail", c.exit_status


def tool_audit(f, point, check):
    """The audit's case failed at the point."""
    report = diffcompare.audit(f, points=[point], check=check)
    return report.cases[0].status == "fail"


def tool_gradcheck(ops, f, point, check):
    torch = ops.torch
    inputs = tuple(torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in point.values())
    try:
        if check == "hessian":
            return not torch.autograd.gradgradcheck(f, inputs, raise_exception=False)
        return not torch.autograd.gradcheck(f, inputs, raise_exception=False)
    except Exception:
        return True


def tool_check_grads(ops, f, point, check):
    from jax.test_util import check_grads
    args = tuple(ops.jnp.asarray(v, dtype=ops.jnp.float64) for v in point.values())
    try:
        check_grads(f, args, order=2 if check == "hessian" else 1, modes=["rev"])
    except AssertionError:
        return True
    return False


def main(argv=None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--points", type=int, default=8, help="random points per kind (default 8)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    engine, torch_ops, jax_ops = EngineOps(), load_torch(), load_jax()
    rng = random.Random(args.seed)
    tools = ["compare", "audit"] + (["gradcheck"] if torch_ops else []) + (["check_grads"] if jax_ops else [])
    rows, totals, alarms, findings = [], {t: [0, 0] for t in tools}, {t: [0, 0] for t in tools}, []
    start = time.perf_counter()
    for kind in CATALOGUE:
        names = ["x", "y"][:kind.arity]
        caught = {t: 0 for t in tools}
        changed = 0
        for _ in range(args.points):
            point = {n: round(rng.uniform(*kind.domain), 6) for n in names}
            changes = kind.changes(*point.values())
            for wrong in (True, False):
                verdicts = {}
                f = engine.rule(kind, wrong)
                verdicts["compare"], status = tool_compare(f, point, kind.check)
                verdicts["audit"] = tool_audit(f, point, kind.check)
                if torch_ops:
                    verdicts["gradcheck"] = tool_gradcheck(torch_ops, torch_ops.rule(kind, wrong), point, kind.check)
                if jax_ops:
                    verdicts["check_grads"] = tool_check_grads(jax_ops, jax_ops.rule(kind, wrong), point, kind.check)
                if wrong and changes:
                    for t in tools:
                        caught[t] += verdicts[t]
                        totals[t][0] += verdicts[t]
                        totals[t][1] += 1
                    if not verdicts["compare"] or not verdicts["audit"]:
                        findings.append(f"missed: {kind.name} at {point} (compare {'caught' if verdicts['compare'] else 'missed'}, "
                                        f"audit {'caught' if verdicts['audit'] else 'missed'})")
                if not wrong:
                    for t in tools:
                        alarms[t][0] += verdicts[t]
                        alarms[t][1] += 1
                    if verdicts["compare"] or verdicts["audit"] or status == 1:
                        findings.append(f"false alarm: right rule of {kind.name} at {point}")
            changed += changes
        rows.append((kind.name, kind.check, str(changed)) + tuple(f"{caught[t]}/{changed}" for t in tools))
    seconds = time.perf_counter() - start
    head = ("kind", "check", "points where the bug changes the derivative") + tuple(f"{t} caught" for t in tools)
    first = table(f"Wrong backward rules: detection where the bug changes the derivative ({len(CATALOGUE)} kinds, "
                  f"{args.points} random points each, seed {args.seed})", head, rows)
    summary = [(t, f"{totals[t][0]} of {totals[t][1]}", f"{100 * totals[t][0] / max(totals[t][1], 1):.1f} %",
                f"{alarms[t][0]} of {alarms[t][1]}") for t in tools]
    notes = ["goal: every bug caught at ≥ 97 % of the points where it changes the derivative, no alarm on the "
             "right twins",
             "the same rules for PyTorch (torch.autograd.Function) and JAX (jax.custom_vjp); gradcheck / "
             "gradgradcheck and check_grads at their default tolerances",
             f"{seconds:.0f} s in all"] + [f"finding: {f}" for f in findings[:20]]
    second = table("Wrong backward rules: every tool on the same rules", ("tool", "caught", "rate",
                                                                         "false alarms on the right twins"),
                   summary, notes)
    out = [first, second]
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    main()                      # table() prints each table
