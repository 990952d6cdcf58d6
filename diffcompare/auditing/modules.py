"""User modules, imported from their suite's own folder: ``function = "ops:f"`` in
``a/audit.toml`` means ``a/ops.py``, whatever other suite names its own ``ops``.

Each folder's modules are kept apart from every other folder's: while a case runs (its
module imported, its function called) the modules of its folder are the ones its imports
find — ``import helpers`` inside ``a/ops.py`` is ``a/helpers.py`` — and another folder's
same-named modules are out of sight. A module named like one of the standard library's, or
like one diffcompare itself depends on (``json.py``, ``multiprocessing.py``, ``numpy.py``),
never replaces it for the tool or for the user's code; the suite may still name it
(``function = "json:f"`` loads ``a/json.py`` under a name of its own). A module not in the
folder comes from the Python path, as ``import`` would find it.

>>> import os, tempfile
>>> folders = [tempfile.mkdtemp() for _ in range(2)]
>>> for folder, body in zip(folders, ["def f(x):\\n    return 1.0\\n", "def f(x):\\n    return 2.0\\n"]):
...     with open(os.path.join(folder, "ops.py"), "w") as handle:
...         _ = handle.write(body)
>>> [imported("ops", folder).f(0) for folder in folders]
[1.0, 2.0]
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.machinery
import importlib.util
import os
import sys
import threading
from contextlib import contextmanager

# names a suite's folder never provides to an import: the standard library's, and the packages
# diffcompare itself imports (its dependencies and optional extras)
TOOL_PACKAGES = frozenset({
    "diffcompare", "numpy", "sympy", "mpmath", "rich", "tomli", "pytest", "_pytest", "pluggy", "hypothesis",
    "torch", "jax", "jaxlib", "symengine", "numdifftools", "scipy", "dask", "distributed", "matplotlib",
    "graphviz", "IPython"})
PROTECTED = frozenset(getattr(sys, "stdlib_module_names", ())) | frozenset(sys.builtin_module_names) | TOOL_PACKAGES

_OWNED: dict = {}               # folder -> {module name: module} imported from that folder
_LOCK = threading.RLock()       # sys.modules is one per process: one folder at a time


def protected(name: str) -> bool:
    """Whether a module name is one a suite's folder never provides (``json``, ``numpy``)."""
    return name.partition(".")[0] in PROTECTED


class _FolderFinder:
    """Finds top-level modules in one folder, before the rest of the Python path, except the
    protected names."""

    def __init__(self, folder: str):
        self.folder = folder

    def find_spec(self, name, path=None, target=None):
        if path is not None or "." in name or protected(name):
            return None                 # a package's submodules: found through the package
        return importlib.machinery.PathFinder.find_spec(name, [self.folder])

    def invalidate_caches(self):
        pass


def _inside(module, folder: str) -> bool:
    where = getattr(module, "__file__", None)
    if not where:
        paths = list(getattr(module, "__path__", []) or [])
        where = paths[0] if paths else None
    if not where:
        return False
    return os.path.realpath(where).startswith(folder + os.sep)


@contextmanager
def in_folder(folder: str | None):
    """Run with ``folder``'s modules as the ones imports find (None: the Python path as it
    is). Modules other folders provided are out of sight meanwhile; those imported from
    ``folder`` stay in ``sys.modules`` afterwards, for code that imports as it runs."""
    if folder is None:
        yield
        return
    folder = os.path.realpath(folder)
    with _LOCK:
        for other, modules in _OWNED.items():
            if other != folder:
                for name, module in modules.items():
                    if sys.modules.get(name) is module:
                        del sys.modules[name]
        own = _OWNED.setdefault(folder, {})
        sys.modules.update(own)
        finder = _FolderFinder(folder)
        sys.meta_path.insert(0, finder)
        before = set(sys.modules)
        try:
            yield
        finally:
            try:
                sys.meta_path.remove(finder)
            except ValueError:
                pass
            for name in set(sys.modules) - before:
                module = sys.modules.get(name)
                if module is not None and _inside(module, folder):
                    own[name] = module


def _alias(name: str, folder: str) -> str:
    """The name a protected module of ``folder`` is loaded under."""
    digest = hashlib.sha1(folder.encode("utf-8", "surrogateescape")).hexdigest()[:12]
    return f"_diffcompare_suite_{digest}_{name}"


def _location(name: str, folder: str):
    """The file of top-level module ``name`` in ``folder`` (and its package path), or None."""
    package = os.path.join(folder, name)
    if os.path.isfile(os.path.join(package, "__init__.py")):
        return os.path.join(package, "__init__.py"), [package]
    if os.path.isfile(package + ".py"):
        return package + ".py", None
    return None


def imported(module_name: str, folder: str | None = None):
    """Module ``module_name`` ("ops", "pkg.ops") from ``folder`` when it is there, else from
    the Python path; raises as importing it raises (ModuleNotFoundError when it is nowhere)."""
    if folder is None:
        return importlib.import_module(module_name)
    folder = os.path.realpath(folder)
    top, _, rest = module_name.partition(".")
    with in_folder(folder):
        found = _location(top, folder)
        present = sys.modules.get(top)
        if found is None or not (protected(top) or (present is not None and not _inside(present, folder))):
            return importlib.import_module(module_name)
        # a module of the folder named like a protected one, or like one imported from elsewhere
        # already: loaded under a name of its own
        alias = _alias(top, folder)
        if alias not in sys.modules:
            path, search = found
            spec = importlib.util.spec_from_file_location(alias, path, submodule_search_locations=search)
            _OWNED[folder][alias] = _executed(alias, spec)
        return importlib.import_module(alias + ("." + rest if rest else ""))


def imported_file(path: str):
    """The module in the Python file ``path``, loaded as ``import`` would load it from its own
    folder (whose other modules its imports find, see :func:`in_folder`); a file named like a
    module of the standard library's or diffcompare's (``json.py``) never replaces that one."""
    folder, name = os.path.split(os.path.realpath(path))
    stem = name[:-3] if name.endswith(".py") else name
    if stem.isidentifier():
        return imported(stem, folder)
    alias = _alias(stem.replace(".", "_").replace("-", "_"), folder)        # my-ops.py: not an importable name
    if alias not in sys.modules:
        with in_folder(folder):
            _executed(alias, importlib.util.spec_from_file_location(alias, os.path.join(folder, name)))
    return sys.modules[alias]


def _executed(alias: str, spec):
    """The module ``spec`` describes, run under the name ``alias`` (in sys.modules while it
    runs, as import does; taken out again when it fails)."""
    module = importlib.util.module_from_spec(spec)
    sys.modules[alias] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(alias, None)
        raise
    return module
