"""The verdicts a method can get, as data: renderers turn them into words and colours.

Besides these, a method that could not run carries its estimate's status as its verdict
(``failed``, ``not applicable``, ``timed out``: see :mod:`diffcompare.methods.estimate`).
"""

PASS = "pass"                # within the accuracy this method can be expected to reach here
FAIL = "fail"                # outside it: the value is wrong for this method
NOT_JUDGED = "not judged"    # no verdict is possible (kink, domain, no reference): the reason says why
INCONCLUSIVE = "inconclusive"  # the expected accuracy is as large as the value: right and wrong look alike


def undecidable(tolerance, reference):
    """Whether an error band of ``tolerance`` around ``reference`` is too wide to tell a
    right value from a wrong one: infinite or unknown, or as large as the value itself (a
    value of either sign, or 0, would pass). Works elementwise on NumPy arrays too.

    >>> undecidable(1e-12, 0.5), undecidable(0.7, 0.5), undecidable(float("inf"), 0.5)
    (False, True, True)
    """
    magnitude = abs(reference)
    return (tolerance != tolerance) | (tolerance == float("inf")) | ((magnitude > 0) & (tolerance >= magnitude))
