"""The examples shipped inside the package (``diffcompare example``), so that what the help
names is there after ``pip install``: a catalogue (diffcompare/example_files/index.json) of
named examples, each one or more files, read as package data. The files are the repository's
examples/ themselves (the package's are links to them, stored as NAME.example so that no
test runner or import checker takes them for the package's own modules)."""

from __future__ import annotations

import importlib.resources
import json
import os

from diffcompare.problem.errors import InputError
from diffcompare.render.files import write_whole

SUFFIX = ".example"


def _folder():
    return importlib.resources.files("diffcompare") / "example_files"


def catalogue() -> list:
    """[{"name", "files", "about", "run"}] of every example."""
    return json.loads((_folder() / "index.json").read_text(encoding="utf-8"))


def find(name: str) -> dict:
    """The example called ``name``; InputError naming the others when there is none."""
    for example in catalogue():
        if example["name"] == name:
            return example
    names = ", ".join(e["name"] for e in catalogue())
    raise InputError(f"no example called {name!r}; the examples are {names} (diffcompare example --list)")


def text(filename: str) -> str:
    """One file of an example, as it is in the repository's examples/."""
    return (_folder() / (filename + SUFFIX)).read_text(encoding="utf-8")


def listing(width: int = 80) -> str:
    """The examples, one paragraph each, wrapped to ``width``: name, files, what it shows,
    how to write it out and run it."""
    import textwrap
    out = []
    for e in catalogue():
        out.append(f"{e['name']}: {', '.join(e['files'])}")
        for line in (e["about"], f"diffcompare example {e['name']} --into DIR; then, in DIR: {e['run']}"):
            out += textwrap.wrap(line, width, initial_indent="  ", subsequent_indent="    ", break_on_hyphens=False,
                                 break_long_words=False)
    return "\n".join(out) + "\n"


def write_into(example: dict, folder: str) -> list:
    """Write every file of ``example`` into ``folder`` (made if missing); the paths written.
    A file already there is not overwritten: InputError before anything is written."""
    paths = [os.path.join(folder, f) for f in example["files"]]
    there = [p for p in paths if os.path.exists(p)]
    if there:
        raise InputError(f"--into {folder}: {', '.join(there)} already exist{'s' * (len(there) == 1)}; nothing was written (remove "
                         f"{'it' if len(there) == 1 else 'them'} or "
                         f"choose another folder)")
    os.makedirs(folder, exist_ok=True)
    for filename, path in zip(example["files"], paths):
        write_whole(path, text(filename))
    return paths
