"""One vocabulary for the command line, Python and audit suites: each option's name in
each place, the spellings that were renamed (accepted for one release with a warning that
names the new one), and how an error names an option -- ``--at`` on the command line,
``at=`` from Python.

The command line sets :data:`SPELLING` to :data:`COMMAND_LINE` while it runs a command;
everywhere else errors speak of Python's arguments.

>>> option("at"), option("points"), given("n", "1..x")
('at=', 'points=', "n='1..x'")
>>> token = SPELLING.set(COMMAND_LINE)
>>> option("at"), example("box", "x=-2:2", "{'x': (-2, 2)}")
('--at', '--box x=-2:2')
>>> SPELLING.reset(token)
>>> example("box", "x=-2:2", "{'x': (-2, 2)}")
"box={'x': (-2, 2)}"
>>> RENAMED_METHODS["central"]
'central-difference'
"""

from __future__ import annotations

import contextvars
import os
import sys
import warnings
from dataclasses import dataclass

PYTHON, COMMAND_LINE = "python", "command line"
SPELLING: contextvars.ContextVar = contextvars.ContextVar("diffcompare_spelling", default=PYTHON)


@dataclass(frozen=True)
class Name:
    """One option: what it means, its long option, its Python argument (and audit-suite key)."""
    meaning: str
    option: str             # on the command line, without the dashes
    argument: str           # in Python, and the key of an audit suite's case where it has one

    @property
    def shared(self) -> bool:
        """Whether the command line and Python spell it alike (dashes for underscores)."""
        return self.option.replace("-", "_") == self.argument


# the options every command that has them spells alike; the README's table is this one
NAMES = {
    "kind": Name("what is differentiated or checked: gradient, jacobian, vjp, jvp, hessian", "kind", "kind"),
    "at": Name("the point (compare, explain, steps); explicit points (audit)", "at", "at"),
    "points": Name("how many random points (drawn in the box or the domain)", "points", "points"),
    "box": Name("compare's region for the random points", "box", "box"),
    "seed": Name("the seed of the random points", "seed", "seed"),
    "gradient": Name("your own derivative, judged beside the others (method 'given')", "gradient", "gradient"),
    "methods": Name("the methods to run", "methods", "methods"),
    "n": Name("swell's values of n", "n", "n"),
    "vjp": Name("the vector v of vᵀJ", "vjp", "vector"),
    "jvp": Name("the vector v of Jv", "jvp", "vector"),
    "var": Name("the variable steps and lecture follow", "var", "variable"),
    "error": Name("the error steps shows: absolute or relative", "error", "measure"),
    "h-axis": Name("h increasing or decreasing along steps' axis", "h-axis", "axis"),
    "precision": Name("steps' floating-point types", "precision", "precisions"),
    "schemes": Name("the difference schemes steps sweeps", "schemes", "schemes"),
    "per-decade": Name("steps per decade of h", "per-decade", "per_decade"),
    "h-range": Name("the ends of steps' sweep", "h-range", "h_range"),
    "grid": Name("a grid instead of random points", "grid", "grid"),
    "template": Name("swell's template family's step", "template", "template"),
    "expressions": Name("the n up to which swell shows the expressions", "expressions", "expressions"),
    "numbering": Name("how swell counts n", "numbering", "numbering"),
}

# spellings renamed, accepted for one release: {old: new}
RENAMED_ARGUMENTS = {"grad": "gradient", "ns": "n"}              # compare, audit, swell, assert_gradients
RENAMED_AUDIT = {"check": "kind", "random": "points"}            # audit() and assert_gradients(), suite keys
RENAMED_METHODS = {"forward": "forward-difference", "backward": "backward-difference",
                   "central": "central-difference"}


class RenamedWarning(DeprecationWarning):
    """An old spelling was used: it still works, for one release; the message names the new one."""


def option(name: str) -> str:
    """How an error names the option ``name`` (a key of :data:`NAMES`): ``--at`` on the
    command line, ``at=`` in Python."""
    entry = NAMES.get(name)
    if SPELLING.get() == COMMAND_LINE:
        return f"--{entry.option if entry else name}"
    return f"{entry.argument if entry else name.replace('-', '_')}="


def given(name: str, value) -> str:
    """The option ``name`` with the value the caller gave: ``--n 1..x`` or ``n='1..x'``."""
    return f"{option(name)} {value}" if SPELLING.get() == COMMAND_LINE else f"{option(name)}{value!r}"


def example(name: str, cli: str, python: str) -> str:
    """The option ``name`` with an example value, as the caller would write it:
    ``--box x=-2:2`` or ``box={'x': (-2, 2)}``."""
    return f"{option(name)} {cli}" if SPELLING.get() == COMMAND_LINE else f"{option(name)}{python}"


def _outside() -> int:
    """The stack level of the first caller outside this package: the warning points at the
    user's line, however deep in the package the old spelling was read."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    frame, level = sys._getframe(2), 2
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(package + os.sep):
        frame, level = frame.f_back, level + 1
    return level


def warn_renamed(old: str, new: str) -> None:
    """Warn (a :class:`RenamedWarning`) that ``old`` is now spelled ``new``; the command
    line shows it as a note on standard error."""
    warnings.warn(f"{old} is renamed {new}; {old} will stop working in a future release", RenamedWarning,
                  stacklevel=_outside())


def renamed_method(name: str) -> str:
    """A method's current name: an old spelling (``central``) is translated, with a warning."""
    new = RENAMED_METHODS.get(name)
    if new is None:
        return name
    warn_renamed(f"the method {name!r}", repr(new))
    return new


def old_arguments(function: str, renamed: dict, renames: dict) -> dict:
    """The keyword arguments a function received under old spellings (its ``**renamed``),
    under their new names, each with a warning; any other name is a TypeError, as Python
    says it."""
    out = {}
    for old, value in renamed.items():
        if old not in renames:
            raise TypeError(f"{function}() got an unexpected keyword argument {old!r}")
        warn_renamed(f"{old}=", f"{renames[old]}=")
        out[renames[old]] = value
    return out
