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
    REFERENCE_UNCERTAIN,
    WIDE_BAND,
    WITHIN,
)

# what would help a method that could not be decided
REMEDY = {
    WIDE_BAND: "another step or another method could decide",
    NO_BAND: "another step or another method could decide",
    CROSSING: "a smaller step (--step) or an exact method could decide",
    REFERENCE_UNCERTAIN: "more digits (--digits) could decide",
}


def reason(verdict) -> str:
    """Why ``verdict`` is what it is, in one sentence."""
    n = verdict.numbers
    cause = verdict.cause
    if cause == METHOD_STATUS:
        return verdict.detail
    if cause == WITHIN:
        skipped = []
        if n.get("skipped"):
            skipped.append(f"{n['skipped']} special points")
        return "within the expected accuracy" + (f" (not judged: {'; '.join(skipped)})" if skipped else "")
    if cause in (OUTSIDE, NON_FINITE):
        entry = _entry(n)
        if cause == NON_FINITE:
            text = f"{entry} = {n['value']} where the reference is finite"
        else:
            text = f"{entry}: error {n['error']:.2g} exceeds the expected {n['tolerance']:.2g} ({n.get('source', '')})"
        if n.get("judged", 1) > 1:
            text = f"{n['outside']} of {n['judged']} entries outside the expected accuracy; worst {text}"
        return text + (f"; {verdict.detail}" if verdict.detail else "")
    if cause == WIDE_BAND:
        entry = _entry(n)
        count = f"{n['wide']} of {n['judged']} entries have" if n.get("judged", 1) > 1 else f"{entry} has"
        return (f"a right value and a wrong one cannot be told apart here: {count} an expected accuracy as large "
                f"as the value (e.g. {entry}: expected {n['tolerance']:.2g} around {n['exact']:.2g}; "
                f"{n.get('source', '')}); {REMEDY[WIDE_BAND]}")
    if cause == NO_BAND:
        if "entry" in n:
            return (f"a right value and a wrong one cannot be told apart at {n['no_band']} of "
                    f"{n['judged'] + n['no_band']} entries: no expected accuracy there (the derivatives it needs "
                    f"are unknown, or the step does not resolve f: h, h/2, h/4 do not converge); "
                    f"{REMEDY[NO_BAND]}")
        return "no error band here (the derivatives it needs are unknown, or the step does not resolve f)"
    if cause == KINK:
        return verdict.detail or "non-differentiable point: each method follows its own convention (see notes)"
    if cause == DOMAIN:
        return ("f is not finite in binary64 at this point: " + verdict.detail) if verdict.detail else \
            "f is not finite in binary64 here"
    if cause == CROSSING:
        return ("the stencil crosses a point where f is not smooth, so its value cannot be trusted: "
                f"{verdict.detail}; {REMEDY[CROSSING]}")
    if cause == REFERENCE_UNCERTAIN:
        return f"reference uncertain for {n.get('entry', 'an entry')}: {verdict.detail}; {REMEDY[REFERENCE_UNCERTAIN]}"
    if cause == NO_REFERENCE:
        if "entry" in n:
            return f"{n['entry']}: {verdict.detail or 'no reference value'}"
        return verdict.detail or "the reference is undefined at every entry"
    return verdict.detail or cause


def _entry(numbers) -> str:
    point = numbers.get("point")
    return f"{numbers['entry']}" + (f" at point {point}" if point is not None else "")
