"""Detection of REAL gradient bugs (real_bugs.py: wrong backward rules that shipped in PyTorch,
JAX, TensorFlow, HIPS autograd, Chainer, SciPy, ..., each cited to its issue or PR, each beside
its fix as a control).

First section: at the points where users hit each bug and at a few ordinary ones, four
answers to the same question: ``diffcompare.audit(f, points=[point], adversarial=False)``
(the public API: status "fail" means caught; the same call on the fixed rule is the control,
where a "fail" is an alarm), ``torch.autograd.gradcheck`` (float64, its defaults;
``gradgradcheck`` for a bug in second derivatives) on the rules written as
``torch.autograd.Function``, and ``jax.test_util.check_grads(..., order=1, modes=["rev"])``
(order 2 for second derivatives) on the rules written with ``jax.custom_vjp`` (each skipped
when not installed). Whether the bug changes the derivative at a point is the corpus'
hand-derived answer, never a tool's. An alarm is a "fail" where the rule is right: on the
control, or on the shipped rule where its bug changes nothing; a fail where the fixed rule is
itself wrong (``control_changes``) or where both rules break down in float64
(``inaccurate``) is counted as justified, not as an alarm. A tool error is the audit
raising or reporting status "error", or gradcheck / check_grads raising anything but their
own failure (GradcheckError, AssertionError).

Second section: the audit choosing its own points, ``diffcompare.audit(f, domain=...,
random=20, shape=...)`` with its adversarial points on (the default): is the bug found
(status "fail" with a failing point where the bug changes the derivative), and is the fixed
control left alone by the same call?

Run: python benchmarks/real_bug_detection.py [--quick] [--bugs a,b] [--random N] [--seed S]
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from dataclasses import dataclass

import common  # noqa: F401  (thread pins before NumPy)
import numpy as np
from common import table, tools_footer
from real_bugs import BUGS, BY_NAME, KINDS, QUICK, Engines

import diffcompare

FAILING = ("autograd is wrong", "autograd and FD disagree (no exact reference)")
NAMES = {"audit": "audit", "gradcheck": "gradcheck", "check_grads": "check_grads"}


@dataclass
class Answer:
    caught: bool                # the tool says the gradient is wrong
    said: str                   # what it said
    error: bool = False         # the tool failed to answer (raised, or status "error")


def _short(text, most=160) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= most else text[:most - 1] + "…"


# -- each tool's answer ----------------------------------------------------------------------------

def ask_audit(f, point: dict, check: str) -> Answer:
    try:
        report = diffcompare.audit(f, at=[point], kind=check, adversarial=False)
    except Exception as error:  # noqa: BLE001  (the tool's own failure is data)
        return Answer(False, f"raised {type(error).__name__}: {error}", error=True)
    case = report.cases[0]
    if case.status == "error":
        return Answer(False, case.error or case.verdict, error=True)
    said = "; ".join(f"{p.verdict} ({p.cause})" for p in case.points) or case.verdict
    return Answer(case.status == "fail", f"{case.status}: {said}")


def ask_gradcheck(torch_ops, bug, f, point: dict) -> Answer:
    torch = torch_ops.torch
    from torch.autograd.gradcheck import GradcheckError
    run = torch.autograd.gradgradcheck if bug.check == "hessian" else torch.autograd.gradcheck
    try:
        run(f, torch_ops.inputs(bug, point))
    except GradcheckError as error:
        return Answer(True, f"fails: {str(error).splitlines()[0]}")
    except Exception as error:  # noqa: BLE001
        return Answer(False, f"raised {type(error).__name__}: {error}", error=True)
    return Answer(False, "passes")


def ask_check_grads(jax_ops, bug, f, point: dict) -> Answer:
    from jax.test_util import check_grads
    try:
        check_grads(f, jax_ops.inputs(bug, point), order=2 if bug.check == "hessian" else 1, modes=["rev"])
    except AssertionError as error:
        return Answer(True, f"fails: {str(error).splitlines()[0] if str(error) else ''}")
    except Exception as error:  # noqa: BLE001
        return Answer(False, f"raised {type(error).__name__}: {error}", error=True)
    return Answer(False, "passes")


def ask_all(engines, tools, bug, which, point) -> dict:
    answers = {"audit": ask_audit(engines.engine.function(bug, which), point, bug.check)}
    if "gradcheck" in tools:
        answers["gradcheck"] = ask_gradcheck(engines.torch, bug, engines.torch.function(bug, which), point)
    if "check_grads" in tools:
        answers["check_grads"] = ask_check_grads(engines.jax, bug, engines.jax.function(bug, which), point)
    return answers


# -- section 1: at the corpus' points ----------------------------------------------------------------

def _where(point) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in point.items())


def at_points(bugs, engines, tools) -> tuple:
    """(rows, totals, findings, per-bug detections)."""
    rows, findings, per_bug = [], [], {}
    totals = {"points": 0, "changed": 0, **{f"caught {t}": 0 for t in tools}, **{f"alarms {t}": 0 for t in tools},
              **{f"justified {t}": 0 for t in tools}, **{f"errors {t}": 0 for t in tools}, "right": 0}
    for bug in bugs:
        start = time.perf_counter()
        changed = 0
        caught = {t: 0 for t in tools}
        alarms = {t: 0 for t in tools}
        justified = {t: 0 for t in tools}
        errors = {t: 0 for t in tools}
        right = 0               # (rule, point) pairs where the rule is right: the room for alarms
        for point in bug.points:
            changes = bool(bug.changes(point))
            shared = bug.shared_breakdown(point)
            wrong = ask_all(engines, tools, bug, "shipped", point)
            control = ask_all(engines, tools, bug, "fixed", point)
            changed += changes
            for t in tools:
                errors[t] += wrong[t].error + control[t].error
            if changes:
                for t in tools:
                    caught[t] += wrong[t].caught
                    if t == "audit" and not wrong[t].caught:
                        findings.append(("missed", bug, point, wrong[t].said))
            else:
                right += not shared
                for t in tools:
                    if wrong[t].caught:
                        if shared:
                            justified[t] += 1
                        else:
                            alarms[t] += 1
                            if t == "audit":
                                findings.append(("alarm (bug changes nothing here)", bug, point, wrong[t].said))
            control_wrong = bug.control_wrong(point) or shared
            right += not control_wrong
            for t in tools:
                if control[t].caught:
                    if control_wrong:
                        justified[t] += 1
                    else:
                        alarms[t] += 1
                        if t == "audit":
                            findings.append(("alarm on the fixed control", bug, point, control[t].said))
            for t in tools:
                for rule, answer in (("shipped", wrong[t]), ("fixed", control[t])):
                    if answer.error:
                        findings.append((f"tool error ({t}, {rule} rule)", bug, point, answer.said))
        per_bug[bug.name] = (changed, caught)
        n = len(bug.points)
        row = [bug.name, bug.library, bug.kind, bug.check if bug.check != "gradient" else "", f"{changed} of {n}"]
        row += [f"{caught[t]}/{changed}" if changed else "—" for t in tools]
        row += [f"{alarms[t]}" + (f" (+{justified[t]} justified)" if justified[t] else "") for t in tools]
        row += [" / ".join(str(errors[t]) for t in tools)]
        if "gradcheck" in tools:
            row += ["yes" if caught["audit"] >= caught["gradcheck"] else "**no**"]
        rows.append(tuple(row))
        totals["points"] += n
        totals["changed"] += changed
        totals["right"] += right
        for t in tools:
            totals[f"caught {t}"] += caught[t]
            totals[f"alarms {t}"] += alarms[t]
            totals[f"justified {t}"] += justified[t]
            totals[f"errors {t}"] += errors[t]
        print(f"  {bug.name}: {time.perf_counter() - start:.1f} s", file=sys.stderr)
    return rows, totals, findings, per_bug


# -- section 2: the audit choosing its own points --------------------------------------------------------

def _plain(point: dict) -> dict:
    return {k: (np.asarray(v, dtype=float).tolist() if np.ndim(v) else float(v)) for k, v in point.items()}


def audit_domain(f, bug, random: int, seed: int):
    try:
        report = diffcompare.audit(f, domain=bug.domain, points=random, seed=seed, shape=bug.shapes or None,
                                   check=bug.check)
    except Exception as error:  # noqa: BLE001
        return None, f"raised {type(error).__name__}: {error}"
    return report.cases[0], ""


def own_points(bugs, engines, random: int, seed: int) -> tuple:
    rows, findings = [], []
    totals = {"found": 0, "found right": 0, "alarms": 0, "justified": 0, "errors": 0, "undecided": 0}
    for bug in bugs:
        start = time.perf_counter()
        wrong, werr = audit_domain(engines.engine.function(bug, "shipped"), bug, random, seed)
        control, cerr = audit_domain(engines.engine.function(bug, "fixed"), bug, random, seed)
        errors = 0
        cells = []
        found = right = False
        for case, err, rule in ((wrong, werr, "shipped"), (control, cerr, "fixed")):
            if case is None or case.status == "error":
                errors += 1
                findings.append((f"tool error ({rule} rule)", bug, None, err or case.error or case.verdict))
        if wrong is not None and wrong.status != "error":
            failing = [p for p in wrong.points if p.verdict in FAILING]
            found = wrong.status == "fail"
            right = any(bug.changes(_plain(p.point)) for p in failing)
            hit = [p for p in wrong.points if bug.changes(_plain(p.point))]
            verdict = ("found" if right else "failed, but only where the bug changes nothing") if found \
                else "**not found**"
            cells += [len(wrong.points), len(hit), wrong.status, verdict]
            if not found and hit:
                findings.append(("not found, though points hit the bug", bug, _plain(hit[0].point),
                                 f"{hit[0].origin}: {hit[0].verdict} ({hit[0].cause})"))
            for p in failing:
                if not bug.changes(_plain(p.point)) and not bug.shared_breakdown(_plain(p.point)):
                    findings.append(("alarm (bug changes nothing here)", bug, _plain(p.point),
                                     f"{p.origin}: {p.verdict} ({p.cause})"))
        else:
            cells += ["—", "—", "error", "tool error"]
        alarm = justified = 0
        if control is not None and control.status != "error":
            for p in control.points:
                if p.verdict not in FAILING:
                    continue
                q = _plain(p.point)
                if bug.control_wrong(q) or bug.shared_breakdown(q):
                    justified += 1
                else:
                    alarm += 1
                    findings.append(("alarm on the fixed control", bug, q, f"{p.origin}: {p.verdict} ({p.cause})"))
            cells += [control.status, f"{alarm}" + (f" (+{justified} justified)" if justified else "")]
        else:
            cells += ["error", "—"]
        undecided = [c for c in (wrong, control) if c is not None and c.status == "undecided"]
        rows.append((bug.name, bug.library) + tuple(cells) + (errors,))
        totals["found"] += found
        totals["found right"] += found and right
        totals["alarms"] += alarm > 0
        totals["justified"] += justified > 0 and alarm == 0
        totals["errors"] += errors
        totals["undecided"] += len(undecided)
        print(f"  {bug.name} (own points): {time.perf_counter() - start:.1f} s", file=sys.stderr)
    return rows, totals, findings


# -- the report ---------------------------------------------------------------------------------------------

def corpus_table(bugs) -> str:
    def fixed_in(b):
        if not b.fix:
            return "— (unfixed: the control is the fix proposed in the thread)"
        return "the same thread" if b.fix == b.source else b.fix
    rows = [(b.name, b.library, KINDS[b.kind], b.status, b.source, fixed_in(b)) for b in bugs]
    return table(f"Real gradient bugs: the corpus ({len(bugs)} wrong backward rules that shipped, "
                 f"{sum(b.status == 'fixed' for b in bugs)} of them fixed)",
                 ("bug", "library", "kind", "status", "reported", "fixed in"), rows,
                 ["each rule written once for diffcompare's engine (ag.Function), PyTorch (autograd.Function) and "
                  "JAX (custom_vjp), beside the rule as the fix made it (the control); unfixed bugs have the fix "
                  "proposed in their thread as control",
                  "real_bugs.py: each bug's story, forward, shipped and fixed rules, and the hand-derived answers "
                  "(changes, exact); `python benchmarks/real_bugs.py` checks them against the rules"])


def kinds_table(bugs, tools, per_bug, own_rows) -> str:
    """Per kind of bug: how many, the points where they change the derivative, caught there by
    each tool, and how many the audit found on its own."""
    found_own = {row[0]: row[5] == "found" for row in own_rows if row[0] in per_bug}
    rows = []
    for kind, words in KINDS.items():
        members = [b for b in bugs if b.kind == kind]
        if not members:
            continue
        changed = sum(per_bug[b.name][0] for b in members)
        caught = {t: sum(per_bug[b.name][1][t] for b in members) for t in tools}
        rows.append((words, len(members), changed) + tuple(f"{caught[t]}/{changed}" for t in tools)
                    + (f"{sum(found_own.get(b.name, False) for b in members)} of {len(members)}",))
    return table("Real gradient bugs: by kind", ("kind", "bugs", "points where they change the derivative")
                 + tuple(f"caught: {NAMES[t]}" for t in tools) + ("found by the audit on its own points",), rows)


def findings_table(findings) -> str:
    rows = [(what, bug.name, _where(point) if point else "(its own points)", _short(said))
            for what, bug, point, said in findings]
    return table("Real gradient bugs: every miss, alarm and error of the audit (and the other tools' errors)",
                 ("what", "bug", "point", "what the tool said"),
                 [tuple(str(c).replace("|", "\\|") for c in r) for r in rows] or [("none", "", "", "")])


def main(argv=None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help=f"only {len(QUICK)} bugs: {', '.join(QUICK)}")
    parser.add_argument("--bugs", help="comma-separated bug names (see real_bugs.BUGS)")
    parser.add_argument("--random", type=int, default=20, help="random points of the audit's own search (default 20)")
    parser.add_argument("--seed", type=int, default=0, help="seed of those random points (default 0)")
    args = parser.parse_args(argv)
    if args.bugs:
        unknown = [n for n in args.bugs.split(",") if n not in BY_NAME]
        if unknown:
            parser.error(f"unknown bugs: {', '.join(unknown)}")
        bugs = [BY_NAME[n] for n in args.bugs.split(",")]
    else:
        bugs = [BY_NAME[n] for n in QUICK] if args.quick else BUGS
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")         # 0/0 and overflow in the rules are the point
        old = np.seterr(all="ignore")
        try:
            return _run(bugs, args)
        finally:
            np.seterr(**old)


def _run(bugs, args) -> str:
    engines = Engines()
    tools = ["audit"] + (["gradcheck"] if engines.torch else []) + (["check_grads"] if engines.jax else [])
    start = time.perf_counter()

    out = corpus_table(bugs) + "\n"
    rows, totals, findings, per_bug = at_points(bugs, engines, tools)
    first = time.perf_counter() - start
    bugs_caught = {t: sum(caught[t] > 0 for _, caught in per_bug.values()) for t in tools}
    changed = totals["changed"]
    rows.append(("**all bugs**", "", "", "", f"**{changed} of {totals['points']}**")
                + tuple(f"**{totals[f'caught {t}']}/{changed}**" for t in tools)
                + tuple(f"**{totals[f'alarms {t}']}**" + (f" (+{totals[f'justified {t}']} justified)"
                                                          if totals[f'justified {t}'] else "") for t in tools)
                + (" / ".join(str(totals[f"errors {t}"]) for t in tools),)
                + ((f"**{sum(r[-1] == 'yes' for r in rows)} of {len(rows)}**",) if "gradcheck" in tools else ()))
    head = ("bug", "library", "kind", "check", "points where the bug changes the derivative") \
        + tuple(f"caught: {NAMES[t]}" for t in tools) + tuple(f"alarms: {NAMES[t]}" for t in tools) \
        + ("tool errors (" + " / ".join(NAMES[t] for t in tools) + ")",) \
        + (("audit ≥ gradcheck",) if "gradcheck" in tools else ())
    out += table(f"Real gradient bugs: detection at the points users hit ({len(bugs)} bugs, {totals['points']} "
                 "points, each with the shipped rule and the fixed control)", head, rows,
                 ["caught: the tool says the gradient is wrong at a point where the shipped rule's derivative "
                  "differs from the true one (the corpus' hand-derived `changes`; NaN/inf where it is finite, or "
                  "outside the subgradient interval at a kink)",
                  f"alarms: a 'wrong' where the rule is right, out of {totals['right']} (rule, point) pairs with a "
                  "right derivative (the fixed controls, and the shipped rules where their bug changes nothing); "
                  "justified: where the fix is itself wrong (control_changes) or both rules break down in "
                  "float64 (inaccurate)",
                  "audit: diffcompare.audit(f, points=[point], adversarial=False), caught = status 'fail'; a status "
                  "'error' or an exception is a tool error",
                  "gradcheck: torch.autograd.gradcheck at its defaults in float64 (gradgradcheck for the second-"
                  "derivative bug), caught = GradcheckError; check_grads: jax.test_util.check_grads(order=1, "
                  "modes=['rev']) (order 2 there), caught = AssertionError",
                  "audit ≥ gradcheck: the audit catches the bug at least at as many of these points as gradcheck",
                  "bugs caught at one of their points at least: " + ", ".join(f"{NAMES[t]} {bugs_caught[t]} of "
                                                                             f"{len(bugs)}" for t in tools),
                  f"{first:.0f} s for this section"])

    second_start = time.perf_counter()
    rows2, totals2, findings2 = own_points(bugs, engines, args.random, args.seed)
    second = time.perf_counter() - second_start
    rows2.append(("**all bugs**", "", "", "", "", f"**{totals2['found right']} of {len(bugs)} found**", "",
                  f"**{totals2['alarms']} controls with a false alarm**", f"**{totals2['errors']}**"))
    out += "\n" + table(f"Real gradient bugs: the audit choosing its own points (random={args.random}, seed "
                        f"{args.seed}, adversarial points on)",
                        ("bug", "library", "points audited", "of which the bug changes", "status (shipped)",
                         "bug found", "status (fixed control)", "alarms on the control", "tool errors"),
                        rows2,
                        ["diffcompare.audit(f, domain=bug.domain, points=N, seed=S, shape=bug.shapes) on the shipped "
                         "rule and on the fixed control; found: status 'fail' with a failing point where the bug "
                         "changes the derivative (hand-derived), 'of which the bug changes' counts every point the "
                         "audit visited where it does",
                         "alarms on the control: failing points where the fixed rule is right; justified: failing "
                         "points where it is itself wrong or both rules break down in float64",
                         f"{totals2['undecided']} audits ended 'undecided' (a point asked for could not be checked); "
                         f"{second:.0f} s for this section"])
    out += "\n" + kinds_table(bugs, tools, per_bug, rows2)
    out += "\n" + findings_table(findings + findings2)
    out += tools_footer(start, tools)
    return out


if __name__ == "__main__":
    main()                      # table() prints each table
