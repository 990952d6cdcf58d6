"""The command line's parser: argparse as pytest's and ruff's users expect it. Options are
written in full (no abbreviations: ``--me`` would change meaning the day an option
``--memory`` is added), and a mistake is told in one line with the nearest valid option or
choice and a pointer to the command's ``--help`` -- not eight lines of usage first.

>>> parser = Parser(prog="diffcompare demo")
>>> _ = parser.add_argument("--format", choices=("text", "json"))
>>> parser.allow_abbrev
False
>>> closest("--formt", ["--format", "--output"]), closest("--f", ["--format", "--output"])
('--format', '--format')
"""

from __future__ import annotations

import argparse
import sys


def visible(text: str) -> str:
    r"""``text`` with control characters (but newlines) written as \xNN, so that an error
    quoting the user's input cannot send ESC ] 0 ; ... BEL to the terminal.

    >>> visible("x+\x1b]0;pwned\x07")
    'x+\\x1b]0;pwned\\x07'
    """
    return "".join(c if c == "\n" or (c >= " " and c != "\x7f" and not 0x80 <= ord(c) < 0xa0) else f"\\x{ord(c):02x}"
                   for c in text)


def closest(given: str, candidates) -> str | None:
    """The candidate ``given`` most likely meant: the only one it begins (an abbreviation),
    else the nearest spelling (difflib), else None."""
    candidates = list(candidates)
    starting = [c for c in candidates if given and c.startswith(given)]
    if len(starting) == 1:
        return starting[0]
    import difflib          # only when a mistake is told: not on the way to --help
    found = difflib.get_close_matches(given, candidates, n=1, cutoff=0.6)
    return found[0] if found else None


def _options(parser) -> list:
    return [s for action in parser._actions for s in action.option_strings]


class Parser(argparse.ArgumentParser):
    """argparse without abbreviations, whose errors are one line of what was wrong (with the
    nearest valid option or choice) and one pointing at ``PROG --help``; exit status 2."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message):
        sys.stderr.write(f"{self.prog}: error: {visible(message)}\n(see '{self.prog} --help')\n")
        sys.exit(2)

    def _check_value(self, action, value):
        if action.choices is None or value in action.choices:
            return
        choices = [str(c) for c in action.choices]
        near = closest(str(value), choices)
        hint = f"; did you mean {near!r}?" if near else ""
        raise argparse.ArgumentError(action, f"invalid choice: {value!r}{hint} (choose from {', '.join(choices)})")

    def parse_args(self, args=None, namespace=None):
        parsed, extra = self.parse_known_args(args, namespace)
        if extra:
            command = self._command_parser(parsed)
            command.error(_unrecognized(extra, command))
        return parsed

    def commands(self) -> dict:
        """{name: parser} of the subcommands ({} when there are none)."""
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction):
                return dict(action.choices)
        return {}

    def _command_parser(self, parsed):
        """The subcommand's parser that ``parsed`` went through (this parser when none)."""
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction):
                return action.choices.get(getattr(parsed, action.dest, None), self)
        return self


def _unrecognized(extra: list, parser) -> str:
    first = extra[0].lstrip(" ")         # a leading space kept "-a" from reading as an option (main.py)
    if first.startswith("-") and first != "-":
        name = first.split("=", 1)[0]
        options = _options(parser)
        near = closest(name, [s for s in options if s.startswith("--") == name.startswith("--")])
        if not name.startswith("--"):       # -a for --at
            near = closest("-" + name, [s for s in options if s.startswith("--")]) or near
        hint = f"; did you mean {near}?" if near else ""
        return f"unrecognized option {name}{hint}"
    return f"unexpected argument {first!r} (this command takes no more)"


def disallow_abbreviations(parser) -> list:
    """Every parser under ``parser`` (its subcommands' too): each must refuse abbreviations.
    Returns them, for a post-pass that adds an option to every command."""
    found, todo = [], [parser]
    while todo:
        current = todo.pop()
        current.allow_abbrev = False
        found.append(current)
        for action in current._actions:
            if isinstance(action, argparse._SubParsersAction):
                todo.extend(action.choices.values())
    return found
