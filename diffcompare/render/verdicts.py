"""A verdict in words: the sentence that says why a method got its outcome, written from the
verdict's cause and numbers (:class:`diffcompare.judge.verdicts.Verdict`).

>>> from diffcompare.judge.verdicts import FAIL, OUTSIDE, Verdict
>>> reason(Verdict(FAIL, OUTSIDE, {"entry": "∂f/∂x", "error": 2e-3, "tolerance": 1e-12, "outside": 1,
...                                "judged": 1, "source": "4 × rounding bound"}))
'∂f/∂x: error 0.002 exceeds the expected 1e-12 (4 × rounding bound)'
"""

from __future__ import annotations

from diffcompare.judge.verdicts import (
    CROSSING,
    DOMAIN,
    KINK,
    METHOD_STATUS,
    NO_BAND,
    NO_REFERENCE,
    NON_FINITE,
    OUTSIDE,
    RAISED,
    REFERENCE_UNCERTAIN,
    ROUNDING,
    SINGULAR,
    WIDE_BAND,
    WITHIN,
)
from diffcompare.render.common import number

# what would help a method that could not be decided
REMEDY = {
    WIDE_BAND: "another step or another method could decide",
    NO_BAND: "another step or another method could decide",
    CROSSING: "a smaller step (--step) or an exact method could decide",
    REFERENCE_UNCERTAIN: "more digits (--digits) could decide",
}


ROUTES = {"quotients": "f's one-sided difference quotients in high precision",
          "limit": "SymPy's limit of the quotient", "formula": "SymPy's formula"}
SIDES = {"finite": "finite", "infinite": "infinite", "no value": "f has no value there", "unsettled": "does not settle"}


def _number(value) -> str:
    return "?" if value is None else f"{value:.12g}"


def finding(found) -> str:
    """What f's derivative is at a point where the formula could not say, in words (a
    :class:`~diffcompare.judge.differentiability.Finding` or its ``as_dict()``).

    >>> print(finding({"kind": "kink", "lower": -1.0, "upper": 1.0, "routes": ["quotients"],
    ...                "left": {"value": -1.0}, "right": {"value": 1.0}}))
    a kink: the one-sided derivatives are -1 (left) and 1 (right); a value between them (a subgradient) is right, nan or ±inf is not (decided by f's one-sided difference quotients in high precision)
    """
    if found is None:
        return ""
    f = found if isinstance(found, dict) else found.as_dict()
    kind = f["kind"]
    how = " and ".join(ROUTES[r] for r in f.get("routes") or [] if r in ROUTES)
    decided = f" (decided by {how})" if how else ""
    if kind == "differentiable":
        return f"f is differentiable here: the derivative is {_number(f.get('value'))}{decided}"
    if kind == "kink":
        left = (f.get("left") or {}).get("value")
        right = (f.get("right") or {}).get("value")
        sides = (f"{_number(left)} (left) and {_number(right)} (right)" if left is not None and right is not None
                 else f"{_number(f.get('lower'))} and {_number(f.get('upper'))}")
        return (f"a kink: the one-sided derivatives are {sides}; a value between them (a subgradient) is right, nan "
                f"or ±inf is not{decided}")
    if kind == "one-sided":
        return f"f is defined on one side only here; its one-sided derivative is {_number(f.get('value'))}{decided}"
    if kind == "singular":
        left = SIDES.get((f.get("left") or {}).get("status"), "?")
        right = SIDES.get((f.get("right") or {}).get("status"), "?")
        return (f"f has no finite derivative here (an infinite slope, a jump or a pole): from the left {left}, "
                f"from the right {right}{decided}")
    if kind == "undefined":
        return "f itself has no value here"
    if kind == "not differentiable":
        return ("f is not differentiable here, though each partial derivative exists (along a sum of the inputs' "
                "directions its slope is not the sum of the partials, as at a tie of several inputs): the right values "
                "are not an interval per entry, so only nan or ±inf can be told wrong")
    notes = f.get("notes") or []
    if "routes disagree" in notes:
        return "f's quotients and SymPy's limit disagree about the derivative here: it is not decided"
    if "budget" in notes:
        return "the time budget ran out before f's derivative here was decided"
    if "too many inputs" in notes:
        return "too many inputs to decide f's derivative here input by input"
    return "f's difference quotients do not settle here: the derivative is not decided"


def reason(verdict) -> str:
    """Why ``verdict`` is what it is, in one sentence (each cause's words in :data:`_SAY`)."""
    say = _SAY.get(verdict.cause)
    return say(verdict, verdict.numbers) if say else (verdict.detail or verdict.cause)


def _rounding(verdict, n) -> str:
    if (n.get("rerun") or {}).get("held") is False:
        return (f"{_entry(n)} is off by {n['error']:.2g} (beyond the expected {n['tolerance']:.2g}), too little for a "
                f"wrong rule to be told from rounding, and float32 cannot hold this point to re-run the rules and "
                f"tell: not decided")
    rerun = n.get("rerun") or {}
    text = (f"outside the first-order band, but in {rerun.get('dtype', 'the other precision')} the same rules err "
            f"{_number(rerun.get('error'))} against {_number(rerun.get('here'))} here: the error scales with ε, "
            f"so it is rounding (a cancellation in the formula), not a wrong rule")
    if verdict.outcome == "inconclusive":
        text += (f"; at {n.get('entry', 'an entry')} that rounding is as large as the value, so a right value and "
                 f"a wrong one cannot be told apart")
    return text


def _within(verdict, n) -> str:
    skipped = []
    if n.get("skipped"):
        skipped.append(f"{n['skipped']} special entries or points")
    if n.get("undecided"):
        count = n["undecided"]
        skipped.append(f"{count} entr{'ies' if count != 1 else 'y'} at points drawn by the tool whose band could "
                       f"not decide (as large as the value, or none)")
    return "within the expected accuracy" + (f" (not judged: {'; '.join(skipped)})" if skipped else "")


def _outside(verdict, n) -> str:
    entry = _entry(n)
    found = n.get("finding")
    if n.get("joint"):
        j = n["joint"]
        return (f"{entry} = {number(n['value'])}, but at this kink f's one-sided derivatives along the sum of "
                f"these directions are {_number(j['lower'])} and {_number(j['upper'])}: a subgradient's entries "
                f"add up to a value between them (a tie counted twice does not); off by {n['error']:.2g}, "
                f"beyond the expected {n['tolerance']:.2g}")
    if verdict.cause == NON_FINITE:
        text = f"{entry} = {n['value']} where the reference is finite"
    elif found and found.get("kind") == "kink":
        text = (f"{entry} = {number(n['value'])} lies {n['error']:.2g} outside the interval of right values "
                f"[{found['lower']:.12g}, {found['upper']:.12g}] (expected accuracy {n['tolerance']:.2g})")
    else:
        text = f"{entry}: error {n['error']:.2g} exceeds the expected {n['tolerance']:.2g} ({n.get('source', '')})"
    if n.get("judged", 1) > 1:
        text = f"{n['outside']} of {n['judged']} entries outside the expected accuracy; worst {text}"
    if found:
        text += f"; {finding(found)}"
    return text + (f"; {verdict.detail}" if verdict.detail else "")


def _singular(verdict, n) -> str:
    found = n.get("finding") or next(iter((n.get("findings") or {}).values()), None)
    entry = f"{n['entry']}: " if "entry" in n else ""
    return f"{entry}{finding(found) or 'f has no finite derivative here'}; nothing to judge against"


def _wide_band(verdict, n) -> str:
    entry = _entry(n)
    count = f"{n['wide']} of {n['judged']} entries have" if n.get("judged", 1) > 1 else f"{entry} has"
    return (f"a right value and a wrong one cannot be told apart here: {count} an expected accuracy as large "
            f"as the value (e.g. {entry}: expected {n['tolerance']:.2g} around {n['exact']:.2g}; "
            f"{n.get('source', '')}); {REMEDY[WIDE_BAND]}")


def _no_band(verdict, n) -> str:
    if "entry" in n:
        return (f"a right value and a wrong one cannot be told apart at {n['no_band']} of "
                f"{n['judged'] + n['no_band']} entries: no expected accuracy there (the derivatives it needs "
                f"are unknown, or the step does not resolve f: h, h/2, h/4 do not converge); "
                f"{REMEDY[NO_BAND]}")
    return "no error band here (the derivatives it needs are unknown, or the step does not resolve f)"


def _kink(verdict, n) -> str:
    return ((f"a difference stencil straddles a kink here ({verdict.detail})" if verdict.detail else
             "a difference stencil straddles a kink here") + "; its value is not judged (the exact methods are "
            "held to the interval between the one-sided derivatives)")


def _crossing(verdict, n) -> str:
    where = verdict.detail or ("f meets a point where its derivative formula has no value (see the "
                               "reference)" if n.get("findings") else "")
    return ("the stencil crosses a point where f is not smooth, so its value cannot be trusted"
            + (f": {where}" if where else "") + f"; {REMEDY[CROSSING]}")


def _no_reference(verdict, n) -> str:
    if "entry" in n:
        return f"{n['entry']}: {verdict.detail or 'no reference value'}"
    return verdict.detail or "the reference is undefined at every entry"


# each cause's words: (verdict, its numbers) -> the sentence
_SAY = {
    METHOD_STATUS: lambda verdict, n: verdict.detail,
    RAISED: lambda verdict, n: verdict.detail,
    ROUNDING: _rounding,
    WITHIN: _within,
    OUTSIDE: _outside,
    NON_FINITE: _outside,
    SINGULAR: _singular,
    WIDE_BAND: _wide_band,
    NO_BAND: _no_band,
    KINK: _kink,
    DOMAIN: lambda verdict, n: (("f is not finite in binary64 at this point: " + verdict.detail) if verdict.detail
                                else "f is not finite in binary64 here"),
    CROSSING: _crossing,
    REFERENCE_UNCERTAIN: lambda verdict, n: (f"reference uncertain for {n.get('entry', 'an entry')}: "
                                             f"{verdict.detail}; {REMEDY[REFERENCE_UNCERTAIN]}"),
    NO_REFERENCE: _no_reference,
}


def _entry(numbers) -> str:
    point = numbers.get("point")
    return f"{numbers['entry']}" + (f" at point {point}" if point is not None else "")
