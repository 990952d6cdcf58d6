"""A case's summary: its status and findings, the counts of each verdict, what a plain gradcheck would
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
    CASE_ERROR,
    AT_THE_OTHERS,
    FALSE_ALARMS,
    INTERNAL_AT,
    UNCHECKED_ASKED,
    CaseResult,
    finding,
    format_point,
)


def _count(case: CaseResult) -> None:
    """The counts of each verdict, a plain gradcheck's false alarms and misses, and each
    method's worst point."""
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


def summarise(case: CaseResult):
    """Counts, worst points, the plain gradcheck's record, the status and the findings (records
    that render/ says), from the points."""
    points = case.points
    _count(case)
    failing = [p for p in points if p.verdict in FAILING]
    total = len(points)
    broken = [p for p in points if p.verdict == INTERNAL]
    if broken and not failing:
        case.status = "internal"
        case.error = f"diffcompare failed at {len(broken)} of {total} points: {broken[0].reason}"
        case.findings = [finding(INTERNAL_AT, count=len(broken), total=total, reason=broken[0].reason)]
        return
    if failing:
        case.status = "fail"
        worst = max(failing, key=lambda p: p.autograd_error if p.autograd_error is not None else math.inf)
        what = WRONG if any(p.verdict == WRONG for p in failing) else DISAGREE
        case.findings = [finding(what, count=len(failing), total=total, point=worst.point, reason=worst.reason)]
        return
    crashed = [p for p in points if p.verdict == F_RAISED_HERE]
    unchecked = [p for p in points if p.asked and p.verdict in UNCHECKED]
    checked = [p for p in points if p.verdict not in UNCHECKED]
    case.status = "undecided" if unchecked or not checked else "pass"
    causes = {}
    for p in points:
        if p.verdict == FD_UNRELIABLE:
            causes[p.cause] = causes.get(p.cause, 0) + 1
    findings = [finding(AGREE, count=case.counts[AGREE], total=total)]
    for verdict in (ROUNDING_LOSS, FD_UNRELIABLE, NONDIFF, INCONCLUSIVE_HERE, UNDEFINED, UNVERIFIED):
        if case.counts[verdict]:
            findings.append(finding(verdict, count=case.counts[verdict],
                                    **({"causes": causes} if verdict == FD_UNRELIABLE else {})))
    if case.gradcheck["false alarms"]:
        findings.append(finding(FALSE_ALARMS, count=case.gradcheck["false alarms"]))
    if unchecked:
        findings.append(finding(UNCHECKED_ASKED, count=len(unchecked)))
    case.findings = findings
    if crashed:
        # the user's code failed at some points: the case cannot be audited there (bad input), and
        # what the other points showed is kept beside it
        case.status = "error"
        case.error = (f"f raised {crashed[0].reason} at {len(crashed)} of {total} points, e.g. "
                      f"{format_point(crashed[0].point)}")
        case.findings = [finding(CASE_ERROR, error=case.error)] + \
            ([] if len(crashed) == total else [finding(AT_THE_OTHERS)] + findings)
