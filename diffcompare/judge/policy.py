"""The one verdict policy: from a method's errors against the reference and the band each
entry is held to, the verdict, for one partial or a Hessian at a thousand points alike.

- ``fail`` when an entry lies outside its band (the worst, by error over band, is named);
- ``inconclusive`` when none does but a band is too wide to tell a right value from a
  wrong one (infinite, or as large as the exact value), or some entries have no band;
- ``not judged`` when no entry could be held to a band;
- ``pass`` otherwise: every judged entry inside a band narrower than its value.

>>> import numpy as np
>>> v = decide(np.array([[1e-15, 2e-3]]), np.array([[1e-14, 1e-12]]), np.array([[0.5, 3.0]]),
...            np.array([[0.5, 3.002]]), ["∂f/∂x", "∂f/∂y"])
>>> v.outcome, v.cause, v.numbers["entry"], v.numbers["outside"]
('fail', 'outside', '∂f/∂y', 1)
>>> decide(np.array([[1e-17]]), np.array([[0.9]]), np.array([[0.5]]), np.array([[0.5]]), ["∂f/∂x"]).outcome
'inconclusive'
"""

from __future__ import annotations

import math

import numpy as np

from diffcompare.judge.verdicts import (
    FAIL,
    INCONCLUSIVE,
    NO_BAND,
    NO_REFERENCE,
    NON_FINITE,
    NOT_JUDGED,
    OUTSIDE,
    PASS,
    WIDE_BAND,
    WITHIN,
    Verdict,
    undecidable,
)


def decide(errors, tolerance, exact, values, labels, rows=None, judged=None, source="",
           skipped: int = 0, drawn: bool = False, rounded=None) -> Verdict:
    """The verdict on a method's entries.

    ``errors``, ``tolerance``, ``exact``, ``values``: arrays (points, entries) of absolute
    errors, bands (nan: no band here), exact values (their magnitudes decide whether a band
    is too wide; a non-zero exact value below the binary64 range is passed as the smallest
    subnormal) and the method's values. ``labels``: the entries' names; ``rows``: each
    row's point number (None for one point); ``judged``: the entries to judge (default:
    where there is an exact value, infinite included: beyond binary64 it rounds to ±inf);
    ``source``: where the band came from (one text, or one per entry); ``skipped``: entries
    left out before (kinks, domain errors), counted in the numbers. ``drawn``: the points
    were drawn by the tool, not asked for: an entry whose band cannot decide (as wide as the
    value, or none) is counted (``undecided``) and the verdict rests on the entries that
    can be decided; only when none can is the method inconclusive. ``rounded``: the exact
    values correctly rounded to binary64; a value equal to its entry's is right, whatever
    the band (0 where the exact value lies below binary64's range).

    >>> import numpy as np
    >>> v = decide(np.array([[1e-17], [1e-17]]), np.array([[1e-15], [0.9]]), np.array([[0.5], [0.5]]),
    ...            np.array([[0.5], [0.5]]), ["∂f/∂x"], rows=[0, 1], drawn=True)
    >>> v.outcome, v.numbers["undecided"], v.incomplete
    ('pass', 1, False)
    """
    errors, tolerance, exact, values = (np.atleast_2d(np.asarray(a, dtype=float))
                                        for a in (errors, tolerance, exact, values))
    # an exact value beyond binary64 (1.4e485) is still a value to judge against: only nan means none
    judged = ~np.isnan(exact) if judged is None else (np.atleast_2d(judged) & ~np.isnan(exact))
    no_band = judged & np.isnan(tolerance)
    judged = judged & ~no_band
    sources = source if isinstance(source, (list, tuple)) else None
    counts = {"judged": int(judged.sum()), "no_band": int(no_band.sum()), "skipped": int(skipped),
              "source": source if sources is None else next((t for t in sources if t), "")}
    if drawn:
        counts["drawn"] = True
    if not judged.any():
        cause = NO_BAND if no_band.any() else NO_REFERENCE
        return Verdict(NOT_JUDGED, cause, counts)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        outside = judged & ~(errors <= tolerance)
        if outside.any():
            ratio = np.where(outside, np.nan_to_num(errors / np.maximum(tolerance, 1e-300), nan=np.inf), -1.0)
            row, entry = np.unravel_index(int(np.argmax(ratio)), ratio.shape)
            cause = OUTSIDE if math.isfinite(values[row, entry]) else NON_FINITE
            numbers = _entry(row, entry, errors, tolerance, exact, values, labels, rows, sources)
            return Verdict(FAIL, cause, {**counts, **numbers, "outside": int(outside.sum())})
        wide = judged & undecidable(tolerance, exact)
        if rounded is not None:
            wide &= ~(np.atleast_2d(np.asarray(rounded, dtype=float)) == values)
        if drawn and (wide.any() or no_band.any()) and (judged & ~wide).any():
            counts["undecided"] = int(wide.sum() + no_band.sum())
            counts["judged"] = int((judged & ~wide).sum())
            return Verdict(PASS, WITHIN, counts)
        if wide.any():
            ratio = np.where(wide, np.nan_to_num(tolerance / np.maximum(np.abs(exact), 1e-300), nan=np.inf,
                                                 posinf=np.inf), -1.0)
            row, entry = np.unravel_index(int(np.argmax(ratio)), ratio.shape)
            numbers = _entry(row, entry, errors, tolerance, exact, values, labels, rows, sources)
            return Verdict(INCONCLUSIVE, WIDE_BAND, {**counts, **numbers, "wide": int(wide.sum())})
    if no_band.any():
        row, entry = np.argwhere(no_band)[0]
        numbers = _entry(row, entry, errors, tolerance, exact, values, labels, rows, sources)
        return Verdict(INCONCLUSIVE, NO_BAND, {**counts, **numbers})
    return Verdict(PASS, WITHIN, counts)


def _entry(row, entry, errors, tolerance, exact, values, labels, rows, sources=None) -> dict:
    """The numbers of one entry: its name, point, value, exact value, error and band (and
    where that band came from, when each entry has its own)."""
    own = {"source": sources[entry]} if sources is not None and sources[entry] else {}
    return {**own, "entry": labels[entry], "point": None if rows is None else int(rows[row]),
            "value": float(values[row, entry]), "exact": float(exact[row, entry]),
            "error": float(errors[row, entry]), "tolerance": float(tolerance[row, entry])}
