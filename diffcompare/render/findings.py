"""The audit's verdicts and findings in words: the one table of the audit's phrases.

The audit computes codes and numbers (:mod:`diffcompare.auditing.results`); this module
says them, naming the gradient on trial (autograd's, or a user's ``gradient module:df``).

>>> from diffcompare.auditing.results import WRONG, finding
>>> verdict_words(WRONG, "gradient grads:df")
'gradient grads:df is wrong'
>>> case_verdict([finding("agree", count=9, total=10), finding("undefined", count=1)], "autograd")
'all agree at 9 of 10 points; undefined at 1'
"""

from __future__ import annotations

from diffcompare.auditing import results as r
from diffcompare.auditing.results import format_point

# a point's verdict, said of the gradient on trial ({judged})
VERDICT_PHRASES = {
    r.AGREE: "all agree",
    r.WRONG: "{judged} is wrong",
    r.FD_UNRELIABLE: "FD is unreliable here",
    r.NONDIFF: "kink: a right subgradient",
    r.UNDEFINED: "undefined here",
    r.ROUNDING_LOSS: "{judged} loses accuracy to rounding",
    r.UNVERIFIED: "{judged} and FD agree (no exact reference)",
    r.DISAGREE: "{judged} and FD disagree (no exact reference)",
    r.INCONCLUSIVE_HERE: "inconclusive: right and wrong cannot be told apart here",
    r.INTERNAL: "internal error (a bug of diffcompare, not of the function)",
    r.F_RAISED_HERE: "f raised here",
}


def verdict_words(code: str, judged: str = "autograd") -> str:
    """A point's verdict in words, said of the gradient on trial."""
    return VERDICT_PHRASES[code].format(judged=judged)


def verdict_code(words: str, judged: str = "autograd") -> str:
    """The code of a verdict in words (what a JSON report holds), the inverse of :func:`verdict_words`."""
    for code in VERDICT_PHRASES:
        if verdict_words(code, judged) == words:
            return code
    raise ValueError(f"not an audit verdict: {words!r}")


def _plural(n: int, word: str) -> str:
    return f"{word}{'s' * (n != 1)}"


def _agree(f, judged):
    if f["count"]:
        return f"all agree at {f['count']} of {f['total']} points"
    return f"no point where all three agree ({f['total']} points)"


def _failing(f, judged):
    return (f"{verdict_words(f['code'], judged)} at {f['count']} of {f['total']} points; worst at "
            f"{format_point(f['point'])}: {f['reason']}")


def _fd_unreliable(f, judged):
    causes = ", ".join(f"{c} ×{n}" for c, n in f["causes"].items())
    return f"FD is unreliable at {f['count']} ({causes})"


def _timed_out(f, judged):
    return (f"timed out: the audit's time budget ({f['timeout']:g} s) ran out before points {f['first']} to "
            f"{f['last']} of this case were checked")


def _later_batch(f, judged):
    return f"{'internal error' if f['internal'] else 'error'} in a later batch: {f['error']}"


AS_WRITTEN = "as-written"       # text: a verdict read back from a JSON report, as it was written


# a case's finding: its code -> the sentence from its numbers and the gradient on trial
SAY = {
    r.AGREE: _agree,
    r.WRONG: _failing,
    r.DISAGREE: _failing,
    r.ROUNDING_LOSS: lambda f, judged: (f"{verdict_words(r.ROUNDING_LOSS, judged)} at {f['count']} (not a wrong "
                                        f"rule: the error scales with the precision)"),
    r.FD_UNRELIABLE: _fd_unreliable,
    r.NONDIFF: lambda f, judged: (f"a subgradient at {f['count']} {_plural(f['count'], 'kink')} (a value between "
                                  f"the one-sided derivatives)"),
    r.INCONCLUSIVE_HERE: lambda f, judged: (f"inconclusive at {f['count']} (a right value and a wrong one cannot "
                                            f"be told apart there)"),
    r.UNDEFINED: lambda f, judged: f"undefined at {f['count']}",
    r.UNVERIFIED: lambda f, judged: f"no exact reference at {f['count']}: {judged} and FD agree there",
    r.FALSE_ALARMS: lambda f, judged: (f"a plain gradcheck would have raised {f['count']} false "
                                       f"{_plural(f['count'], 'alarm')}"),
    r.UNCHECKED_ASKED: lambda f, judged: (f"{f['count']} of the points asked for could not be checked against the "
                                          f"exact reference"),
    r.INTERNAL_AT: lambda f, judged: (f"internal error at {f['count']} of {f['total']} points (the others were "
                                      f"checked); {f['reason']}"),
    r.CASE_ERROR: lambda f, judged: f["error"],
    r.BAD_INPUT: lambda f, judged: f"bad input: {f['why']}",
    r.INTERNAL_ERROR: lambda f, judged: f"internal error: {f['error']}",
    r.LATER_BATCH: _later_batch,
    r.TIMED_OUT: _timed_out,
    r.UNIT_TIMED_OUT: lambda f, judged: f["why"],
    r.INTERRUPTED: lambda f, judged: "interrupted before every point was checked",
    r.NOT_RUN: lambda f, judged: "interrupted before it was checked" if f["interrupted"] else "no worker ran it",
    AS_WRITTEN: lambda f, judged: f["text"],
}


def case_verdict(findings: list, judged: str = "autograd") -> str:
    """A case's findings in one sentence, "; " between them (what follows an ``at-the-others``
    marker is what the points other than the failing ones showed)."""
    codes = [f["code"] for f in findings]
    if r.AT_THE_OTHERS in codes:
        k = codes.index(r.AT_THE_OTHERS)
        return f"{case_verdict(findings[:k], judged)}; at the others: {case_verdict(findings[k + 1:], judged)}"
    return "; ".join(SAY[f["code"]](f, judged) for f in findings)


def verdict_of(case) -> str:
    """A case's verdict in one sentence."""
    return case_verdict(case.findings, case.judged)
