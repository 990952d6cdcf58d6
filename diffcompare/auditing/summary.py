"""A case's summary: its verdict, the counts of each verdict, what a plain gradcheck would
have said, the worst point of each method."""

from __future__ import annotations

import math

from diffcompare.auditing.results import (
    AGREE,
    DISAGREE,
    FAILING,
    FD_UNRELIABLE,
    F_RAISED_HERE,
    INCONCLUSIVE_HERE,
    INTERNAL,
    NONDIFF,
    ROUNDING_LOSS,
    UNCHECKED,
    UNDEFINED,
    UNVERIFIED,
    VERDICTS,
    WRONG,
    CaseResult,
    format_point,
    worded,
)


def summarise(case: CaseResult):
    """Counts, worst points, the plain gradcheck's record and the verdict, from the points."""
    points = case.points
    case.counts = {v: sum(1 for p in points if p.verdict == v) for v in VERDICTS}
    case.gradcheck = {
        "false alarms": sum(1 for p in points if p.gradcheck == "fail" and p.verdict in (AGREE, FD_UNRELIABLE,
                                                                                        ROUNDING_LOSS, NONDIFF)),
        "missed": sum(1 for p in points if p.gradcheck == "pass" and p.verdict == WRONG),
    }
    case.worst = {}
    for method, attribute in (("autograd", "autograd_error"), ("fd", "fd_error")):
        judged = [p for p in points if getattr(p, attribute) is not None]
        if judged:
            p = max(judged, key=lambda q: getattr(q, attribute))
            case.worst[method] = {"relative_error": getattr(p, attribute), "point": p.point, "origin": p.origin}
    failing = [p for p in points if p.verdict in FAILING]
    total = len(points)
    broken = [p for p in points if p.verdict == INTERNAL]
    if broken and not failing:
        case.status = "internal"
        case.error = f"diffcompare failed at {len(broken)} of {total} points: {broken[0].reason}"
        case.verdict = f"internal error at {len(broken)} of {total} points (the others were checked); {broken[0].reason}"
        return
    if failing:
        case.status = "fail"
        worst = max(failing, key=lambda p: p.autograd_error if p.autograd_error is not None else math.inf)
        what = WRONG if any(p.verdict == WRONG for p in failing) else DISAGREE
        case.verdict = (f"{worded(what, case.judged)} at {len(failing)} of {total} points; worst at "
                        f"{format_point(worst.point)}: {worst.reason}")
        return
    crashed = [p for p in points if p.verdict == F_RAISED_HERE]
    unchecked = [p for p in points if p.asked and p.verdict in UNCHECKED]
    checked = [p for p in points if p.verdict not in UNCHECKED]
    case.status = "undecided" if unchecked or not checked else "pass"
    parts = [f"all agree at {case.counts[AGREE]} of {total} points" if case.counts[AGREE] else
             f"no point where all three agree ({total} points)"]
    if case.counts[ROUNDING_LOSS]:
        parts.append(f"{worded(ROUNDING_LOSS, case.judged)} at {case.counts[ROUNDING_LOSS]} (not a wrong rule: "
                     f"the error scales with the precision)")
    if case.counts[FD_UNRELIABLE]:
        causes = {}
        for p in points:
            if p.verdict == FD_UNRELIABLE:
                causes[p.cause] = causes.get(p.cause, 0) + 1
        parts.append(f"FD is unreliable at {case.counts[FD_UNRELIABLE]} (" +
                     ", ".join(f"{c} ×{n}" for c, n in causes.items()) + ")")
    if case.counts[NONDIFF]:
        parts.append(f"a subgradient at {case.counts[NONDIFF]} kink{'s' * (case.counts[NONDIFF] != 1)} (a value "
                     f"between the one-sided derivatives)")
    if case.counts[INCONCLUSIVE_HERE]:
        parts.append(f"inconclusive at {case.counts[INCONCLUSIVE_HERE]} (a right value and a wrong one cannot be "
                     f"told apart there)")
    if case.counts[UNDEFINED]:
        parts.append(f"undefined at {case.counts[UNDEFINED]}")
    if case.counts[UNVERIFIED]:
        parts.append(f"no exact reference at {case.counts[UNVERIFIED]}: {case.judged} and FD agree there")
    if case.gradcheck["false alarms"]:
        parts.append(f"a plain gradcheck would have raised {case.gradcheck['false alarms']} false alarm"
                     f"{'s' * (case.gradcheck['false alarms'] != 1)}")
    if unchecked:
        parts.append(f"{len(unchecked)} of the points asked for could not be checked against the exact reference")
    case.verdict = "; ".join(parts)
    if crashed:
        # the user's code failed at some points: the case cannot be audited there (bad input), and
        # what the other points showed is kept beside it
        case.status = "error"
        case.error = (f"f raised {crashed[0].reason} at {len(crashed)} of {total} points, e.g. "
                      f"{format_point(crashed[0].point)}")
        case.verdict = case.error if len(crashed) == total else f"{case.error}; at the others: {case.verdict}"
