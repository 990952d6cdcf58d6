"""Verdict quality on a catalogue of wrong backward rules (wrong_rules.py: 13 kinds, each
smooth and behind a forward that branches on the value, each beside a correct control), and
the audit's false alarms on random well-posed functions.

First section: for every entry, N random points of its domain (seeded; the control at the
same points). At each point four tools are asked the same question: ``diffcompare.compare``
(the autograd method's verdict and the exit status, every method at its defaults),
``diffcompare.audit`` at that point (no adversarial points), ``torch.autograd.gradcheck``
(``gradgradcheck`` for second derivatives) on the same rule written as a
``torch.autograd.Function``, and ``jax.test_util.check_grads`` on it written with
``jax.custom_vjp`` (each skipped when not installed). Whether the bug changes the
derivative at a point, and by how much, is the catalogue's hand-derived answer, never a
tool's. A tool catches the bug where it says the gradient is wrong; an alarm is any such
answer where the derivative is right (a control, or a wrong rule where its bug changes
nothing). A broken promise is an autograd ``pass`` where the bug changes the derivative
by more than PROMISE relative: far outside any band the tool allows itself.

Second section: random well-posed functions (verdict_quality's generator: smooth, away from
singularities, every rule right) audited at their point in float64 and float32; every
"autograd is wrong" (exit status 1) is a false alarm. gradcheck and check_grads are asked
the same question in the same dtype.

Run: python benchmarks/bug_catalogue.py [--points N] [--functions M] [--seed S]
"""

from __future__ import annotations

import argparse
import collections
import random
import sys
import time
import warnings
from dataclasses import dataclass

import common  # noqa: F401  (thread pins before NumPy)
import mpmath
from common import table, tools_footer
from wrong_rules import ENTRIES, Engines

import diffcompare

PROMISE = 1e-10             # a change this large (relative) is far beyond every band autograd is allowed
SYMBOLIC_TIMEOUT = 5.0
GOAL_DETECTION = 0.97
GOAL_FALSE_ALARMS = {"float64": 0.002, "float32": 0.02}


# -- each tool's answer, read in one place per tool --------------------------------------------

@dataclass
class Answer:
    wrong: bool                 # the tool says the gradient is wrong here
    said: str                   # what it said, for the findings
    verdict: str = ""           # compare: the autograd method's verdict
    status: int | None = None   # the exit status (compare, audit)


def tool_compare(f, point: dict, check: str) -> Answer:
    """``compare`` at the point, every method at its defaults: the autograd method's verdict
    ('pass', 'fail', 'inconclusive', 'not judged', ...) and the exit status."""
    report = diffcompare.compare(f, at=point, kind="hessian" if check == "hessian" else None, repeat=1,
                                 symbolic_timeout=SYMBOLIC_TIMEOUT)

    def outcome(method):
        return str(getattr(method.verdict, "outcome", method.verdict))
    autograd = report.method("autograd")
    verdict, status = outcome(autograd), report.exit_status
    failing = [m.name for m in report.methods if outcome(m) == "fail"]
    said = f"autograd {verdict} ({getattr(autograd, 'reason', '')}); exit {status}"
    if failing and failing != ["autograd"]:
        said += f"; failing methods: {', '.join(failing)}"
    return Answer(verdict == "fail" or status == 1, said, verdict, status)


def tool_audit(f, point: dict, check: str, dtype: str = "float64") -> Answer:
    """``audit`` at the point alone (no adversarial points): exit status 1 when autograd is
    wrong there, 0 when it is right, 4 when it could not be checked."""
    report = diffcompare.audit(f, at=[point], kind=check, dtype=dtype, adversarial=False)
    said = "; ".join(f"{getattr(p, 'verdict', '?')}: {getattr(p, 'reason', '')}"
                     for c in report.cases for p in getattr(c, "points", ())) or str(report.cases[0].verdict)
    return Answer(report.exit_status == 1, f"exit {report.exit_status}: {said}", status=report.exit_status)


def tool_gradcheck(torch_ops, f, inputs, check: str) -> Answer:
    """``torch.autograd.gradcheck`` (``gradgradcheck`` for a Hessian) at its defaults."""
    torch = torch_ops.torch
    run = torch.autograd.gradgradcheck if check == "hessian" else torch.autograd.gradcheck
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")             # float32 inputs: "not a double precision" warning
            passed = run(f, inputs, raise_exception=False)
    except Exception as error:  # noqa: BLE001  (a backward may raise anything: gradcheck's answer is "wrong")
        return Answer(True, f"raised {type(error).__name__}: {error}")
    return Answer(not passed, "fails" if not passed else "passes")


def tool_check_grads(jax_ops, f, inputs, check: str) -> Answer:
    """``jax.test_util.check_grads`` in reverse mode (order 2 for a Hessian), at its defaults."""
    from jax.test_util import check_grads
    try:
        check_grads(f, inputs, order=2 if check == "hessian" else 1, modes=["rev"])
    except AssertionError as error:
        return Answer(True, f"fails: {str(error).splitlines()[0] if str(error) else ''}")
    except Exception as error:  # noqa: BLE001  (a backward may raise anything: check_grads' answer is "wrong")
        return Answer(True, f"raised {type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}")
    return Answer(False, "passes")


# -- section 1: the catalogue ----------------------------------------------------------------

def ask_all(engines, tools, entry, point) -> dict:
    answers = {"compare": tool_compare(engines.engine.function(entry), point, entry.check),
               "audit": tool_audit(engines.engine.function(entry), point, entry.check)}
    if "gradcheck" in tools:
        t = engines.torch
        answers["gradcheck"] = tool_gradcheck(t, t.function(entry), t.inputs(point, entry.variables), entry.check)
    if "check_grads" in tools:
        j = engines.jax
        answers["check_grads"] = tool_check_grads(j, j.function(entry), j.inputs(point, entry.variables),
                                                  entry.check)
    return answers


def _rate(hit, total):
    return f"{hit}/{total} ({100 * hit / total:.0f} %)" if total else "—"


def _exact_text(entry, point):
    found = entry.exact(point)
    if found is None:
        return "plain side of the branch"
    right, mine = found
    show = ", ".join(mpmath.nstr(v, 17) for v in right)
    if entry.changes(point):
        show += f"; the wrong rule gives {', '.join(mpmath.nstr(v, 17) for v in mine)} (relative change " \
                f"{entry.shift(point):.3g})"
    return show


def catalogue(points: int, seed: int, engines, tools) -> tuple:
    """(markdown tables, findings)."""
    detection, alarms, promises, findings = [], [], [], []
    totals = {t: [0, 0] for t in tools}
    alarm_totals = {t: [0, 0] for t in tools}
    below_goal = []
    by_kind = {}
    for entry in ENTRIES:
        by_kind.setdefault((entry.kind.name, entry.branching), {})[entry.control] = entry
    start = time.perf_counter()
    for (name, branching), pair in by_kind.items():
        wrong, control = pair[False], pair[True]
        rng = random.Random(f"{seed}:{wrong.name}")
        sample = wrong.sample(rng, points)
        caught = {t: 0 for t in tools}
        changed = 0
        false = {t: 0 for t in tools}          # alarms on the control, and on the wrong rule where it changes nothing
        right_points = 0
        for point in sample:
            changes = wrong.changes(point)
            answers = ask_all(engines, tools, wrong, point)
            if changes:
                changed += 1
                for t in tools:
                    a = answers[t]
                    hit = (a.verdict == "fail" and a.status == 1) if t == "compare" else a.wrong
                    caught[t] += hit
                    if not hit and t in ("compare", "audit"):
                        findings.append(("missed", wrong, point, t, a.said))
                if answers["compare"].verdict == "pass" and wrong.shift(point) > PROMISE:
                    promises.append((wrong, point, answers["compare"].said))
                if answers["audit"].status == 0 and wrong.shift(point) > PROMISE:
                    promises.append((wrong, point, "audit: " + answers["audit"].said))
            else:
                right_points += 1
                for t in tools:
                    false[t] += answers[t].wrong
                    if answers[t].wrong and t in ("compare", "audit"):
                        findings.append(("alarm (bug changes nothing here)", wrong, point, t, answers[t].said))
            control_answers = ask_all(engines, tools, control, point)
            right_points += 1
            for t in tools:
                false[t] += control_answers[t].wrong
                if control_answers[t].wrong and t in ("compare", "audit"):
                    findings.append(("alarm on the control", control, point, t, control_answers[t].said))
        for t in tools:
            totals[t][0] += caught[t]
            totals[t][1] += changed
            alarm_totals[t][0] += false[t]
            alarm_totals[t][1] += right_points
        if changed and min(caught["compare"], caught["audit"]) < GOAL_DETECTION * changed:
            below_goal.append(wrong.name)
        variant = "branching" if branching else "smooth"
        detection.append((name, variant, wrong.check, f"{changed} of {points}")
                         + tuple(_rate(caught[t], changed) for t in tools))
        alarms.append((name, variant, right_points) + tuple(false[t] for t in tools))
        print(f"  {wrong.name}: {time.perf_counter() - start:.0f} s", file=sys.stderr)
    seconds = time.perf_counter() - start
    detection.append(("**all kinds**", "", "", str(totals["compare"][1]))
                     + tuple(f"**{_rate(*totals[t])}**" for t in tools))
    alarms.append(("**all kinds**", "", alarm_totals["compare"][1]) + tuple(f"**{alarm_totals[t][0]}**" for t in tools))
    names = {"compare": "compare (autograd fail, exit 1)", "audit": "audit (exit 1)",
             "gradcheck": "gradcheck / gradgradcheck", "check_grads": "check_grads"}
    text = table(f"Wrong backward rules: detection where the bug changes the derivative ({len(by_kind)} entries, "
                 f"{points} random points each, seed {seed})",
                 ("kind", "forward", "check", "points where the bug changes the derivative")
                 + tuple(names[t] for t in tools), detection,
                 [f"goal: every bug caught by compare and the audit at ≥ {GOAL_DETECTION:.0%} of the points where it "
                  f"changes the derivative; " + (f"below it: {', '.join(below_goal)}" if below_goal else "all met"),
                  ("whether and how much the bug changes the derivative: the catalogue's hand-derived mathematics "
                   "(wrong_rules.py), never a tool's answer"),
                  ("branching: f(x, ...) = the custom op where x > a cut (30 % into the domain; the negative-only and "
                   "large-only kinds' cuts are -2 and -2.5), 0.5 × a plain formula + x below it (differentiated by "
                   "the engine's own rules: there the bug changes nothing)"),
                  ("PyTorch (torch.autograd.Function) and JAX (jax.custom_vjp) run the same rules written for them, "
                   "at the same points, at their default tolerances"),
                  f"{seconds:.0f} s for this section"])
    text += "\n" + table("Wrong backward rules: alarms where the derivative is right (the controls, and the wrong "
                         "rules at points where their bug changes nothing)",
                         ("kind", "forward", "points with a right derivative") + tuple(names[t] for t in tools),
                         alarms, ["goal: no alarm",
                                  "compare's alarm: the autograd verdict 'fail' or exit status 1 (any method failing)"])
    rows = [(w.name, ", ".join(f"{k}={v!r}" for k, v in p.items()), f"{w.shift(p):.3g}", said)
            for w, p, said in promises]
    text += "\n" + table(f"Wrong backward rules: broken promises (a pass where the bug changes the derivative by "
                         f"more than {PROMISE:g} relative)", ("entry", "point", "relative change", "the tool said"),
                         rows or [("none", "", "", "")])
    return text, findings


# -- section 2: false alarms on well-posed functions ------------------------------------------

def torch_tree(torch, tree, variables):
    """The corpus function (verdict_quality's tree) on torch tensors."""
    functions = {"sin": torch.sin, "cos": torch.cos, "exp": torch.exp, "tanh": torch.tanh, "atan": torch.atan,
                 "sigmoid": torch.sigmoid, "log": torch.log, "sqrt": torch.sqrt, "log1p": torch.log1p,
                 "softplus": lambda t: torch.nn.functional.softplus(t, threshold=1e9)}
    return _tree_function(tree, variables, functions, lambda value, like: torch.tensor(value, dtype=like.dtype))


def jax_tree(jax, tree, variables):
    jnp = jax.numpy
    functions = {"sin": jnp.sin, "cos": jnp.cos, "exp": jnp.exp, "tanh": jnp.tanh, "atan": jnp.arctan,
                 "sigmoid": jax.nn.sigmoid, "log": jnp.log, "sqrt": jnp.sqrt, "log1p": jnp.log1p,
                 "softplus": jax.nn.softplus}
    return _tree_function(tree, variables, functions, lambda value, like: jnp.asarray(value, dtype=like.dtype))


def _tree_function(tree, variables, functions, const):
    def build(node, args):
        kind = node[0]
        if kind == "var":
            return args[variables.index(node[1])]
        if kind == "const":
            return const(node[1], args[0])
        if kind == "call":
            return functions[node[1]](build(node[2], args))
        a, b = build(node[1], args), build(node[2], args)
        return a + b if kind == "+" else a - b if kind == "-" else a * b if kind == "*" else a / b
    return lambda *args: build(tree, args)


def false_alarms(functions: int, seed: int, engines, tools) -> tuple:
    import verdict_quality as vq
    corpus = vq.well_posed_corpus(random.Random(seed), functions)
    rows, findings = [], []
    start = time.perf_counter()
    for dtype in ("float64", "float32"):
        counts = collections.Counter()
        for tree, variables, point, _ in corpus:
            expression = vq.text(tree)
            audit = tool_audit(expression, point, "gradient", dtype)
            counts["audit"] += audit.wrong
            counts["audit undecided"] += audit.status == 4
            if audit.wrong:
                findings.append(("audit false alarm", expression, point, dtype, audit.said))
            if "gradcheck" in tools:
                torch = engines.torch.torch
                inputs = tuple(torch.tensor(point[v], dtype=getattr(torch, dtype), requires_grad=True)
                               for v in variables)
                counts["gradcheck"] += tool_gradcheck(engines.torch, torch_tree(torch, tree, variables), inputs,
                                                      "gradient").wrong
            if "check_grads" in tools:
                jax, jnp = engines.jax.jax, engines.jax.jnp
                inputs = tuple(jnp.asarray(point[v], dtype=getattr(jnp, dtype)) for v in variables)
                counts["check_grads"] += tool_check_grads(engines.jax, jax_tree(jax, tree, variables), inputs,
                                                          "gradient").wrong
        n = len(corpus)
        goal = GOAL_FALSE_ALARMS[dtype]
        row = [dtype, n, f"{counts['audit']} ({100 * counts['audit'] / n:.1f} %)", f"≤ {goal:.1%}",
               "met" if counts["audit"] <= goal * n else "**not met**", counts["audit undecided"]]
        row += [f"{counts[t]} ({100 * counts[t] / n:.1f} %)" for t in ("gradcheck", "check_grads") if t in tools]
        rows.append(tuple(row))
    head = ("dtype", "functions", "audit: 'autograd is wrong'", "goal", "", "audit undecided (exit 4)")
    head += tuple(f"{t} fails" for t in ("gradcheck", "check_grads") if t in tools)
    text = table("Audit: false alarms on random well-posed functions (every rule right)", head, rows,
                 [(f"{functions} functions of verdict_quality's well-posed generator (seed {seed}), each audited "
                   "at its own point alone; in float32 the point is the audit's float32 rounding of it, and "
                   "gradcheck / check_grads get float32 inputs"),
                  ("gradcheck and check_grads at their default tolerances: in float32 their differences are "
                   "rounding, not a wrong rule"),
                  f"{time.perf_counter() - start:.0f} s for this section"])
    return text, findings


# -- the report --------------------------------------------------------------------------------

def findings_table(findings, alarm_findings) -> str:
    rows = []
    for what, entry, point, tool, said in findings:
        where = ", ".join(f"{k}={v!r}" for k, v in point.items())
        rows.append((what, tool, f"{entry.name}: {entry.kind.story}", where, said, _exact_text(entry, point)))
    for what, expression, point, dtype, said in alarm_findings:
        where = ", ".join(f"{k}={v!r}" for k, v in point.items())
        rows.append((what, f"audit ({dtype})", expression, where, said, "every rule right (well-posed corpus)"))
    if not rows:
        rows = [("none", "", "", "", "", "")]
    return table("Findings: every miss and every alarm of compare and the audit",
                 ("what", "tool", "function", "point", "what the tool said", "exact derivative (by hand)"),
                 [tuple(str(c).replace("|", "\\|").replace("\n", " ") for c in r) for r in rows])


def main(argv=None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--points", type=int, default=30, help="random points per entry (default 30)")
    parser.add_argument("--functions", type=int, default=1000, help="well-posed functions (default 1000)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    engines = Engines()
    tools = ["compare", "audit"] + (["gradcheck"] if engines.torch else []) + (["check_grads"] if engines.jax else [])
    start = time.perf_counter()
    first, findings = catalogue(args.points, args.seed, engines, tools)
    second, alarm_findings = false_alarms(args.functions, args.seed, engines, tools)
    out = first + "\n" + second + "\n" + findings_table(findings, alarm_findings)
    out += tools_footer(start, tools)
    return out


if __name__ == "__main__":
    main()                      # table() prints each table
