"""What every report shares (its methods, the exit status, a one-line summary) and how it
is rendered: each renderer module of :mod:`diffcompare.render` registers itself here for
the report type it formats, so that ``report.render("markdown")`` works while the stages
that compute reports never import a renderer.
"""

from __future__ import annotations

from diffcompare.judge.verdicts import FAIL, PASS
from diffcompare.methods.status import FAILED, NOT_APPLICABLE

EXIT_PASSED, EXIT_FAILED, EXIT_UNDECIDED = 0, 1, 4    # 2: bad input and 3: an internal error, on the command line

RENDERERS: dict = {}     # a report type's name -> a function giving its renderer module


def register_renderer(report_type: str, load) -> None:
    """Make the module ``load()`` returns (with ``render``, ``as_dict`` and ``print_report``)
    the renderer of the reports of type ``report_type`` and of its subclasses."""
    RENDERERS[report_type] = load


def in_words(verdict) -> str:
    """A verdict's reason in one sentence, by the renderer registered for verdicts."""
    return RENDERERS["Verdict"]().reason(verdict)


def finding_in_words(found) -> str:
    """What f's derivative was found to be at a point (a Finding or its dict), in words, by
    the renderer registered for verdicts."""
    return RENDERERS["Verdict"]().finding(found)


class JudgedMethod:
    """What every method's result in a report shares: its name and its verdict, as data
    (``judgement``) and in words."""

    @property
    def name(self):
        return self.estimate.method

    @property
    def verdict(self) -> str:
        return self.judgement.outcome

    @property
    def reason(self) -> str:
        """Why the verdict is what it is, in words (:func:`diffcompare.render.verdicts.reason`)."""
        return in_words(self.judgement)


class Report:
    """What every report shares: its methods, the exit status, and its renderings by the
    renderer registered for its type (renderers only format)."""
    methods: list

    @property
    def exit_status(self) -> int:
        """1 when a method is outside its expected accuracy (or failed); else 4 when
        something asked for could not be decided (inconclusive, not judged, timed out, some
        points or entries skipped, or no method passed); 0 only when every method that
        applies was judged and passed. A method that does not apply to f (complex step
        through a non-analytic function, SymPy on code it cannot follow) is listed and
        does not count.

        >>> from diffcompare import compare
        >>> compare("x**3", at={"x": 2}, methods="autograd,central", repeat=1).exit_status
        0
        >>> compare("abs(x)", at={"x": 0}, methods="autograd,central", repeat=1).exit_status   # a kink
        4
        """
        if not self.methods:            # lecture material (steps, swell) judges no method
            return EXIT_PASSED
        verdicts = [m.verdict for m in self.methods]
        if any(v in (FAIL, FAILED) for v in verdicts):
            return EXIT_FAILED
        decided = [m for m in self.methods if m.verdict != NOT_APPLICABLE]
        if not decided or any(m.verdict != PASS or getattr(m, "incomplete", False) for m in decided):
            return EXIT_UNDECIDED
        return EXIT_PASSED

    def verdicts(self) -> str:
        """One line for scripts and examples: each method's verdict and its largest
        relative error against the exact reference, then the exit status.

        >>> from diffcompare import compare
        >>> compare("x**3", at={"x": 2}, methods="autograd,central", repeat=1).verdicts()
        'autograd pass (0), central pass (...) — exit status 0'
        """
        parts = []
        for m in self.methods:
            worst = m.statistic("max") if hasattr(m, "statistic") else None
            parts.append(f"{m.name} {m.verdict}" + ("" if worst is None else f" ({worst:.1g})"))
        return ", ".join(parts) + f" — exit status {self.exit_status}"

    def method(self, name):
        for m in self.methods:
            if m.name == name:
                return m
        raise KeyError(name)

    def renderer(self):
        """The renderer registered for this report's type (or for a parent type)."""
        for cls in type(self).__mro__:
            if cls.__name__ in RENDERERS:
                return RENDERERS[cls.__name__]()
        raise LookupError(f"no renderer is registered for a {type(self).__name__} "
                          "(importing diffcompare.render registers them)")

    def render(self, format: str = "text", width: int | None = None) -> str:
        """The report as text (rich), json, markdown, latex or html (a whole page)."""
        return self.renderer().render(self, format, width=width)

    def to_dict(self) -> dict:
        return self.renderer().as_dict(self)

    def print_report(self, console) -> None:
        """Print the report on a rich console (colour when it supports it)."""
        self.renderer().print_report(self, console)

    def __repr__(self) -> str:
        """One line: what the report is about and how it ended (the renderer's ``headline``)."""
        try:
            line = self.renderer().headline(self)
        except (LookupError, AttributeError):
            line = f"exit status {self.exit_status}"
        return f"<{type(self).__name__}: {line}>"

    def _repr_pretty_(self, printer, cycle) -> None:
        """IPython's text view: the one line of :meth:`__repr__`."""
        printer.text(repr(self))

    def _repr_html_(self) -> str:
        """Jupyter's view (the only rich one, so a report shows once): the renderer's HTML
        fragment (``html_report``): tables with every column, and the command's plot;
        rendering it prints nothing. ``render("html")`` is the same in a whole page."""
        renderer = self.renderer()
        if hasattr(renderer, "html_report"):
            return renderer.html_report(self)
        return self.render("html")
