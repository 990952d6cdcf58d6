"""``--show-config``: the options in force, written as pyproject.toml would set them, each
with where it came from (the command line, a pyproject.toml table, or the default).

>>> print(config_text("compare", [("digits", "40", "/p/pyproject.toml [tool.diffcompare]"),
...                               ("methods", None, "default")]), end="")
# diffcompare compare: the options in force, and where each came from
digits = 40       # /p/pyproject.toml [tool.diffcompare]
# methods: unset  # default
"""

from __future__ import annotations


def config_text(command: str, rows) -> str:
    """``rows``: (key, its value as TOML writes it, or None when unset; where it came from)."""
    lines = [(f"{key} = {value}" if value is not None else f"# {key}: unset", source) for key, value, source in rows]
    width = max((len(text) for text, _ in lines), default=0)
    out = [f"# diffcompare {command}: the options in force, and where each came from"]
    out += [f"{text.ljust(width)}  # {source}" for text, source in lines]
    return "\n".join(out) + "\n"
