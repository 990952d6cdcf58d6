"""Which files are audit suites, and the suites under folders: the one rule that both
``diffcompare audit`` and the pytest plugin collect by. A file whose name matches a pattern
(``audit*.toml``, ``*_audit.toml``) and that holds ``[[case]]`` tables is a suite; a folder
is searched through, as pytest searches one (hidden folders, ``build``, ``dist``,
``node_modules``, ``venv`` and the like left out). Also where TOML is read from: ``tomllib``,
or ``tomli`` on Python 3.10. Nothing here imports NumPy: the plugin asks of every file.

>>> matches("audit_suite.toml"), matches("gmm_audit.toml"), matches("settings.toml")
(True, True, False)
"""

from __future__ import annotations

import fnmatch
import os
import re

PATTERNS = ("audit*.toml", "*_audit.toml")
# pytest's norecursedirs by default, and folders that are virtual environments
SKIPPED_FOLDERS = ("*.egg", ".*", "_darcs", "build", "CVS", "dist", "node_modules", "venv", "{arch}", "__pycache__")


def toml():
    """The TOML reader: the standard library's ``tomllib``, or ``tomli`` on Python 3.10."""
    try:
        import tomllib
    except ModuleNotFoundError:           # Python 3.10
        import tomli as tomllib
    return tomllib


def matches(name: str, patterns=PATTERNS) -> bool:
    """Whether a file name is one a suite may have (``patterns``: fnmatch patterns)."""
    return name.endswith(".toml") and any(fnmatch.fnmatch(name, p) for p in patterns)


_CASE_TABLE = re.compile(r"^[ \t]*\[\[?[ \t]*case\b", re.MULTILINE)


def is_suite(path: str) -> bool:
    """Whether the file ``path`` is meant as an audit suite: a TOML document with cases (an
    array of ``[[case]]`` tables). A file that does not parse counts when it has a
    ``[[case]]`` header (a suite with a mistake, to be reported); any other TOML file (a
    project's ``audit_settings.toml`` with a ``[logging]`` table) is not one.

    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False) as other:
    ...     _ = other.write("[logging]\\nlevel = 'info'\\n")
    >>> is_suite(other.name)
    False
    """
    try:
        with open(path, "rb") as handle:
            text = handle.read(1_000_000).decode("utf-8", errors="replace")
    except OSError:
        return False
    tomllib = toml()
    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError):
        return _CASE_TABLE.search(text) is not None
    return isinstance(data.get("case"), list)


def is_suite_file(path: str, patterns=PATTERNS) -> bool:
    """The collection rule: a name that matches and a file that is a suite."""
    return matches(os.path.basename(path), patterns) and is_suite(path)


def collect(paths, patterns=PATTERNS) -> tuple:
    """(suite files, paths that do not exist) for ``paths``: a file given by name is taken
    whatever its name (it was asked for); a folder gives the suites under it, in sorted
    order. A file found twice is listed once."""
    found, missing, seen = [], [], set()

    def add(path):
        key = os.path.realpath(path)
        if key not in seen:
            seen.add(key)
            found.append(path)

    for path in paths:
        if os.path.isfile(path):
            add(path)
        elif os.path.isdir(path):
            for folder, folders, files in os.walk(path):
                folders[:] = sorted(f for f in folders if not _skipped(os.path.join(folder, f)))
                for name in sorted(files):
                    if is_suite_file(os.path.join(folder, name), patterns):
                        add(os.path.join(folder, name))
        else:
            missing.append(path)
    return found, missing


def _skipped(folder: str) -> bool:
    name = os.path.basename(folder)
    return any(fnmatch.fnmatch(name, p) for p in SKIPPED_FOLDERS) or os.path.isfile(os.path.join(folder, "pyvenv.cfg"))
