"""The verdicts a method can get, as data: renderers turn them into words and colours.

Besides these, a method that could not run carries its estimate's status as its verdict
(``failed``, ``not applicable``, ``timed out``: see :mod:`diffcompare.methods.estimate`).
"""

PASS = "pass"                # within the accuracy this method can be expected to reach here
FAIL = "fail"                # outside it: the value is wrong for this method
NOT_JUDGED = "not judged"    # no verdict is possible (kink, domain, no reference): the reason says why
