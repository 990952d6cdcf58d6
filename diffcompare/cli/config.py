"""Defaults from ``pyproject.toml``: ``[tool.diffcompare]`` sets any command's options,
``[tool.diffcompare.COMMAND]`` one command's (over the table above it), and the command
line wins over both. Keys are the long options as written on the command line, without
the dashes (``methods = "autograd,central"``, ``digits = 40``, ``symbolic-timeout = 5``,
``no-adversarial = true``), and a positional that takes a list, by its name (``suites``).
The keys and the types they take are read off the parser itself, so an option added to a
command can be configured at once.

The file is the nearest ``pyproject.toml`` holding a ``[tool.diffcompare]`` table, from the
current folder up (as ruff finds its own). An unknown key or a value of the wrong type is
bad input: one line naming the file, the key and what is valid.

>>> import argparse
>>> command = argparse.ArgumentParser(prog="diffcompare demo")
>>> _ = command.add_argument("--digits", type=int, default=30)
>>> _ = command.add_argument("--no-cache", dest="cache", action="store_false")
>>> sorted(options(command))
['digits', 'no-cache']
>>> settings({"digits": 40}, "demo", {"demo": command}, "pyproject.toml")
{'digits': (40, 'pyproject.toml [tool.diffcompare]')}
"""

from __future__ import annotations

import argparse
import os

from diffcompare.auditing.collect import toml
from diffcompare.cli.parser import closest
from diffcompare.problem.errors import InputError

FILE = "pyproject.toml"
TABLE = "tool.diffcompare"
NOT_CONFIGURABLE = ("help", "version", "show-config")
DEFAULT, COMMAND_LINE = "default", "command line"


def options(command) -> dict:
    """The keys ``command`` (an argparse parser) can be given in pyproject.toml, each with
    its action: every long option but --help and --show-config, and each positional that
    takes a list (``nargs="*"``)."""
    found = {}
    for action in command._actions:
        if action.option_strings:
            long = [s for s in action.option_strings if s.startswith("--")]
            if long and long[0][2:] not in NOT_CONFIGURABLE and action.dest != argparse.SUPPRESS:
                found[long[0][2:]] = action
        elif action.nargs == "*":
            found[action.dest] = action
    return found


def find(start: str) -> str | None:
    """The nearest pyproject.toml from ``start`` up that mentions [tool.diffcompare], or None."""
    folder = os.path.abspath(start)
    while True:
        path = os.path.join(folder, FILE)
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                if TABLE in handle.read():
                    return path
        except OSError:
            pass
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def read(path: str) -> dict:
    """The [tool.diffcompare] table of ``path`` ({} when it has none)."""
    tomllib = toml()
    try:
        with open(path, "rb") as handle:
            data = tomllib.load(handle)
    except OSError as error:
        raise InputError(f"cannot read {path}: {error.strerror or error}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise InputError(f"{path} is not valid TOML: {error}") from None
    table = data.get("tool", {}).get("diffcompare", {})
    if not isinstance(table, dict):
        raise InputError(f"{path}: [{TABLE}] must be a table of options, e.g. digits = 40")
    return table


def settings(table: dict, command: str, commands: dict, path: str) -> dict:
    """{key: (value, where it was set)} for ``command`` from the [tool.diffcompare] ``table``
    (its sub-table named after the command over its own keys). Every key of the table is
    checked against ``commands`` ({name: parser}), the running command's values against its
    options; InputError names the file, the key and what is valid."""
    every = {key for parser in commands.values() for key in options(parser)}
    chosen, own_table = {}, {}
    for key, value in table.items():
        if isinstance(value, dict):
            if key not in commands:
                raise InputError(f"{path}: [{TABLE}.{key}] names no command{_hint(key, commands)}; the commands: "
                                 f"{', '.join(commands)}")
            own = options(commands[key])
            for name in value:
                if name not in own:
                    raise InputError(f"{path}: [{TABLE}.{key}] has {name!r}, not an option of {key}"
                                     f"{_hint(name, own)}; its keys: {', '.join(sorted(own))}")
            if key == command:
                own_table = value
        elif key not in every:
            raise InputError(f"{path}: [{TABLE}] has {key!r}, not an option of any command{_hint(key, every)}; "
                             f"the keys: {', '.join(sorted(every))}")
        else:
            chosen[key] = (value, f"[{TABLE}]")
    chosen.update({key: (value, f"[{TABLE}.{command}]") for key, value in own_table.items()})
    own = options(commands[command])
    return {key: (convert(own[key], value, f"{path}: {where} {key}"), f"{path} {where}")
            for key, (value, where) in chosen.items() if key in own}


def _hint(name, candidates) -> str:
    near = closest(name, sorted(candidates))
    return f" (did you mean {near!r}?)" if near else ""


def convert(action, value, where: str):
    """``value`` from TOML as the option's own value (its type, its choices): what the
    command line would give for it. InputError says what the option takes."""
    if isinstance(action, (argparse._StoreTrueAction, argparse._StoreFalseAction, argparse._StoreConstAction)):
        if not isinstance(value, bool):
            raise InputError(f"{where} = {_toml(value)}: give true or false")
        return action.const if value else action.default
    if isinstance(action, argparse._CountAction):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise InputError(f"{where} = {_toml(value)}: give a count, 0, 1, 2 ...")
        return value
    if isinstance(action, argparse._AppendAction) or action.nargs in ("*", "+"):
        items = value if isinstance(value, list) else None
        if items is None:
            raise InputError(f"{where} = {_toml(value)}: give a list, e.g. {where.rpartition(' ')[2]} = "
                             f"[{_toml(_example(action))}]")
        return [_one(action, item, where) for item in items]
    return _one(action, value, where)


def _example(action):
    return (action.metavar or "text") if action.type is None else 1


def _one(action, value, where: str):
    kind = action.type
    if kind is None or kind is str:
        if not isinstance(value, str):
            raise InputError(f"{where} = {_toml(value)}: give text, e.g. {where.rpartition(' ')[2]} = "
                             f"\"{(action.choices or ['...'])[0]}\"")
        converted = value
    elif kind is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise InputError(f"{where} = {_toml(value)}: give a whole number")
        converted = value
    else:
        if isinstance(value, (bool, list, dict)):
            raise InputError(f"{where} = {_toml(value)}: give a number or text, as on the command line")
        try:
            converted = kind(str(value))
        except (argparse.ArgumentTypeError, TypeError, ValueError) as error:
            raise InputError(f"{where} = {_toml(value)}: {error}") from None
    if action.choices is not None and converted not in action.choices:
        choices = [str(c) for c in action.choices]
        raise InputError(f"{where} = {_toml(value)}{_hint(str(value), choices)}: choose from {', '.join(choices)}")
    return converted


def _toml(value) -> str:
    """``value`` as TOML writes it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, float) and value != value:
        return "nan"
    if isinstance(value, float) and value in (float("inf"), float("-inf")):
        return "inf" if value > 0 else "-inf"
    return str(value)


def given_on_command_line(command, argv: list) -> set:
    """The destinations of the options ``argv`` (the command's own arguments) gives: it is
    parsed again with every default taken away, so only what was typed is left."""
    saved = [(action, action.default) for action in command._actions]
    try:
        for action, _ in saved:
            action.default = argparse.SUPPRESS
        parsed, _ = command.parse_known_args(argv)
    finally:
        for action, default in saved:
            action.default = default
    return set(vars(parsed))


class Configuration:
    """What pyproject.toml sets for one command, applied to its parsed arguments."""

    def __init__(self, command: str, commands: dict, start: str):
        self.command, self.parser = command, commands[command]
        self.path = find(start)
        self.values = {} if self.path is None else settings(read(self.path), command, commands, self.path)
        own = options(self.parser)
        for key in self.values:
            own[key].required = False           # pyproject.toml may give a required option (steps' --at)
        self.given: set = set()

    def apply(self, args, argv: list) -> None:
        """Set every configured option the command line did not give (``argv``: the
        command's own arguments, after its name)."""
        self.given = given_on_command_line(self.parser, argv)
        own = options(self.parser)
        for key, (value, _) in self.values.items():
            if own[key].dest not in self.given:
                setattr(args, own[key].dest, value)

    def folder(self) -> str | None:
        """The folder of the pyproject.toml in force (its relative paths start there)."""
        return None if self.path is None else os.path.dirname(self.path)

    def source(self, key: str) -> str:
        """Where the option ``key`` in force came from: the command line, the file and its
        table, or the default."""
        action = options(self.parser)[key]
        if action.dest in self.given:
            return COMMAND_LINE
        return self.values[key][1] if key in self.values else DEFAULT

    def rows(self, args) -> list:
        """(key, value as TOML writes it or None when unset, where it came from) for every
        option of the command."""
        out = []
        for key, action in sorted(options(self.parser).items()):
            value = getattr(args, action.dest, None)
            if isinstance(action, (argparse._StoreTrueAction, argparse._StoreFalseAction,
                                   argparse._StoreConstAction)):
                value = value == action.const
            out.append((key, None if value is None else _toml(value), self.source(key)))
        return out
