"""Renderers: every report as text, JSON, Markdown, LaTeX, JUnit or a plot. The only code
that writes sentences for people; it never computes a derivative.

Importing this package (``import diffcompare`` does) tells each report type where its
renderer is (see :mod:`diffcompare.judge.report`); a renderer module is imported the first
time a report of its type is rendered, so that ``diffcompare --help`` stays quick.
"""

from diffcompare.judge.report import register_renderer


def _comparison():
    from diffcompare.render import compare
    return compare


def _audit():
    from diffcompare.render import audit
    return audit


def _explanation():
    from diffcompare.render import explain
    return explain


def _steps():
    from diffcompare.render import steps
    return steps


def _swell():
    from diffcompare.render import swell
    return swell


def _lecture():
    from diffcompare.render import lecture
    return lecture


def _verdict():
    from diffcompare.render import verdicts
    return verdicts


register_renderer("Comparison", _comparison)
register_renderer("Verdict", _verdict)
register_renderer("AuditReport", _audit)
register_renderer("Explanation", _explanation)
register_renderer("StepSweep", _steps)
register_renderer("SwellReport", _swell)
register_renderer("Lecture", _lecture)
