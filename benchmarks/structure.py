"""How easy the code is to change, measured from its text: lines per package, the longest
and the most branchy functions (cyclomatic complexity, counted as radon and mccabe count
it), the English sentences written by the computing stages, and the places that choose
what to run by comparing a method's name. For this checkout and, with ``--before REV``,
an earlier revision (``git archive``), side by side.

Run: python benchmarks/structure.py [--before REV] [--top 10]
"""

from __future__ import annotations

import argparse
import ast
import io
import re
import subprocess
import tarfile
import tempfile
from collections import Counter
from pathlib import Path

import common  # noqa: F401  (the checkout on sys.path)
from common import table

ROOT = Path(__file__).resolve().parent.parent
COMPUTING = ("language", "problem", "methods", "judge", "pipeline", "auditing", "lecture")   # below render/
ENGLISH = re.compile(r"[A-Za-z']{2,} [A-Za-z']{2,} [A-Za-z']{2,}")               # three words or more
BRANCHES = (ast.If, ast.IfExp, ast.For, ast.AsyncFor, ast.While, ast.ExceptHandler, ast.Assert, ast.comprehension)


def complexity(function: ast.AST) -> int:
    """McCabe's number: 1 + the decisions in the function's own body (nested functions and
    classes count for themselves)."""
    count = 1
    stack = list(ast.iter_child_nodes(function))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, BRANCHES):
            count += 1 + (len(node.ifs) if isinstance(node, ast.comprehension) else 0)
        elif isinstance(node, ast.BoolOp):
            count += len(node.values) - 1
        elif isinstance(node, ast.match_case):
            count += 1
        stack.extend(ast.iter_child_nodes(node))
    return count


def functions(tree: ast.AST, module: str):
    """(qualified name, lines, complexity) of every function and method."""
    def visit(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = f"{prefix}{child.name}"
                yield name, child.end_lineno - child.lineno + 1, complexity(child)
                yield from visit(child, name + ".")
            elif isinstance(child, ast.ClassDef):
                yield from visit(child, f"{prefix}{child.name}.")
            else:
                yield from visit(child, prefix)
    yield from ((f"{module}.{name}", lines, cc) for name, lines, cc in visit(tree, ""))


def _docstrings(tree) -> set:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def sentences(tree) -> tuple:
    """(English string literals outside docstrings, those inside a ``raise``: the error
    messages for bad input, which stay where the input is checked)."""
    docs, inside_raise = _docstrings(tree), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Raise):
            inside_raise.update(id(n) for n in ast.walk(node))
    total = raised = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            text = " ".join(v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str))
            for part in node.values:
                docs.add(id(part))              # its pieces are not literals of their own
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            text = node.value
        else:
            continue
        if ENGLISH.search(text):
            total += 1
            raised += id(node) in inside_raise
    return total, raised


def name_dispatch(tree, names: set) -> int:
    """Comparisons of something with a method's name (``method == "autograd"``,
    ``name in ("torch", "jax")``): where code chooses what to run by a name."""
    count = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            for operand in [node.left, *node.comparators]:
                values = [operand] if isinstance(operand, ast.Constant) else \
                    list(operand.elts) if isinstance(operand, (ast.Tuple, ast.List, ast.Set)) else []
                if any(isinstance(v, ast.Constant) and v.value in names for v in values):
                    count += 1
                    break
        elif isinstance(node, ast.match_case) and isinstance(node.pattern, ast.MatchValue):
            value = node.pattern.value
            count += isinstance(value, ast.Constant) and value.value in names
    return count


def method_names() -> set:
    from diffcompare.methods.registry import METHODS_FOR, PEERS
    names = {n for group in METHODS_FOR.values() for n in group} | set(PEERS) | {"given", "symbolic-reverse"}
    return names - {"forward", "backward"}         # also the words of a difference scheme's direction


def measure(package: Path, names: set) -> dict:
    lines, funcs, english, raised, dispatch = Counter(), [], Counter(), Counter(), Counter()
    for path in sorted(package.rglob("*.py")):
        relative = path.relative_to(package.parent)
        stage = relative.parts[1] if len(relative.parts) > 2 else "(top)"
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text)
        lines[stage] += len(text.splitlines())
        module = ".".join(relative.with_suffix("").parts)
        funcs += list(functions(tree, module))
        if stage in COMPUTING:
            total, in_raise = sentences(tree)
            english[stage] += total
            raised[stage] += in_raise
        dispatch[stage] += name_dispatch(tree, names)
    return {"lines": lines, "functions": funcs, "english": english, "raised": raised, "dispatch": dispatch}


def checkout(rev: str) -> Path:
    folder = Path(tempfile.mkdtemp(prefix="diffcompare-structure-"))
    archive = subprocess.run(["git", "archive", rev, "diffcompare"], cwd=ROOT, capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(folder, filter="data")
    return folder / "diffcompare"


def main(argv=None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", metavar="REV", help="an earlier revision to measure beside this checkout")
    parser.add_argument("--top", type=int, default=10, help="how many of the longest functions to list")
    args = parser.parse_args(argv)
    names = method_names()
    versions = {"this checkout": measure(ROOT / "diffcompare", names)}
    if args.before:
        versions[args.before] = measure(checkout(args.before), names)
    labels = list(versions)
    text = ""
    stages = sorted({s for v in versions.values() for s in v["lines"]})
    text += table("Structure: lines per package", ["package"] + labels,
                  [[s] + [f"{v['lines'].get(s, 0):,}" for v in versions.values()] for s in stages] +
                  [["all"] + [f"{sum(v['lines'].values()):,}" for v in versions.values()]])
    rows = []
    for label, v in versions.items():
        funcs = v["functions"]
        rows.append([label, len(funcs), sum(1 for _, n, _ in funcs if n > 50), sum(1 for _, n, _ in funcs if n > 80),
                     sum(1 for *_, c in funcs if c > 20), max(n for _, n, _ in funcs), max(c for *_, c in funcs),
                     sum(v["english"].values()), sum(v["english"].values()) - sum(v["raised"].values()),
                     sum(v["dispatch"].values())])
    text += table("Structure: functions, sentences in the computing stages, dispatch on a method's name",
                  ["version", "functions", "over 50 lines", "over 80 lines", "complexity over 20", "longest",
                   "most complex", "English literals (computing stages)", "of them outside a raise",
                   "comparisons with a method's name"], rows,
                  [f"computing stages: {', '.join(COMPUTING)}; an English literal: a string of three words or more "
                   "that is not a docstring (an f-string counts once)",
                   "complexity: McCabe's number, 1 + if/elif/for/while/except/assert/comprehension/boolean operands "
                   "in the function's own body"])
    for label, v in versions.items():
        longest = sorted(v["functions"], key=lambda f: (-f[1], f[0]))[:args.top]
        text += table(f"Structure: the {args.top} longest functions ({label})", ["function", "lines", "complexity"],
                      [[f"`{name}`", n, c] for name, n, c in longest])
        per_stage = sorted(v["english"].items())
        text += table(f"Structure: English literals by stage ({label})", ["stage", "all", "outside a raise",
                                                                           "comparisons with a method's name"],
                      [[s, n, n - v["raised"][s], v["dispatch"][s]] for s, n in per_stage])
    return text


if __name__ == "__main__":
    main()
