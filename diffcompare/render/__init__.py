"""Renderers: every report as text, JSON, Markdown, LaTeX, JUnit or a plot. The only code
that writes sentences for people; it never computes a derivative.

Importing this package registers each renderer with the report type it formats (see
:mod:`diffcompare.judge.report`); ``import diffcompare`` does that, and stays quick: no
renderer imports NumPy, SymPy or rich before it runs.
"""

from diffcompare.render import audit, compare, compare_entries, explain, steps, swell  # noqa: F401  (they register)
