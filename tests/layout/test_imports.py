"""The house rules of the package's layout, checked on its source: imports point one way
(a stage imports only the stages before it), there is no import cycle, no module imports
another module's private names, and imports inside functions are kept for the modules on
the command line's start-up path (they keep NumPy and SymPy out of ``diffcompare --help``).
"""

from __future__ import annotations

import ast
import functools
import pathlib

import pytest

PACKAGE = pathlib.Path(__file__).resolve().parents[2] / "diffcompare"

# the stages in data-flow order; a module may import its own stage and the stages before it
STAGES = ("version", "lazy", "stencil", "autograd", "workloads", "language", "problem", "methods", "judge", "pipeline", "lecture", "auditing",
          "render", "functions", "testing", "pytest_plugin", "cli", "__main__", "__init__")
# modules on a start-up path (the CLI's; every pytest run's, for the plugin), whose imports
# inside functions keep start-up quick
LAZY_IMPORTERS = ("diffcompare", "diffcompare.cli.main", "diffcompare.render", "diffcompare.pytest_plugin")


def _modules() -> dict:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


MODULES = _modules()


def _target(name: str) -> str | None:
    """The project module an imported name lives in (the longest known prefix)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _imports(module: str, path: pathlib.Path):
    """(imported project module, imported names, inside a function?) for every import."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node, inside in _import_nodes(tree, False):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "diffcompare":
                    yield _target(alias.name), [], inside
        else:
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[:len(package.split(".")) - node.level + 1] + ([base] if base else []))
            if base.split(".")[0] != "diffcompare":
                continue
            for alias in node.names:
                full = f"{base}.{alias.name}"
                if full in MODULES:                       # from package import submodule
                    yield full, [], inside
                else:
                    yield _target(base), [alias.name], inside


def _import_nodes(node, inside):
    """(import statement, whether it is inside a function) for every import under ``node``,
    in one walk of the tree."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.Import, ast.ImportFrom)):
            yield child, inside
        elif isinstance(child, ast.stmt) or isinstance(child, ast.excepthandler) or isinstance(child, ast.match_case):
            # (imports are statements: expressions hold none, and are not walked)
            yield from _import_nodes(child, inside or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)))


@functools.cache
@functools.lru_cache(maxsize=None)
def edges() -> dict:
    """Every module's imports (read once, when a test first needs them, not at collection)."""
    return {m: list(_imports(m, p)) for m, p in MODULES.items()}


def _stage(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def test_the_package_has_its_stages():
    assert {_stage(m) for m in MODULES} == set(STAGES)


def test_no_import_cycle():
    graph = {m: {t for t, _, _ in edges()[m] if t and t != m} for m in MODULES}
    state, cycles = {}, []

    def visit(node, trail):
        state[node] = "open"
        for nxt in sorted(graph[node]):
            if state.get(nxt) == "open":
                cycles.append(trail[trail.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt, trail + [nxt])
        state[node] = "done"

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])
    assert cycles == []


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_point_one_way(module):
    mine = STAGES.index(_stage(module))
    later = sorted({t for t, _, _ in edges()[module] if t and STAGES.index(_stage(t)) > mine})
    assert later == [], f"{module} ({_stage(module)}) imports later stages"


def test_no_private_names_of_other_modules():
    private = sorted((m, t, n) for m in MODULES for t, names, _ in edges()[m] for n in names
                     if t != m and n.startswith("_") and not n.startswith("__"))
    assert private == []


def test_imports_inside_functions_only_on_the_start_up_path():
    hidden = sorted((m, t) for m in MODULES for t, _, inside in edges()[m] if inside and m not in LAZY_IMPORTERS)
    assert hidden == []


def test_the_checker_sees_a_cycle_and_a_private_import(tmp_path):
    # the checks above are only as good as the import reader: it must see both kinds
    source = "from diffcompare.judge.report import _hidden\n\ndef f():\n    from diffcompare.render import common\n"
    path = tmp_path / "probe.py"
    path.write_text(source)
    found = list(_imports("diffcompare.judge.probe", path))
    assert ("diffcompare.judge.report", ["_hidden"], False) in found
    assert ("diffcompare.render.common", [], True) in found
