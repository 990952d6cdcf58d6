"""The README's Python snippet runs, and what its comments say it prints is what it prints."""

import builtins
import math
import re
import symtable
from pathlib import Path

import numpy as np
import pytest

README = (Path(__file__).resolve().parents[2] / "README.md").read_text()


@pytest.fixture(scope="module")
def run_in_order():
    """Every Python block of the README run once, in order, in one namespace (the project's
    own fixed text): (the blocks, the namespace as each block left it)."""
    blocks = re.findall(r"```python\n(.*?)```", README, re.S)
    namespace, after = {}, []
    for block in blocks:
        exec(compile(block, "README.md", "exec"), namespace)
        after.append(dict(namespace))
    return blocks, after


def unbound_names(block: str) -> set:
    """The names ``block`` reads that it neither binds nor has from Python's builtins: what
    it would need from an earlier block."""
    top = symtable.symtable(block, "README.md", "exec")
    bound = {s.get_name() for s in top.get_symbols() if s.is_assigned() or s.is_imported()}
    read, tables = set(), [top]
    while tables:
        table = tables.pop()
        read |= {s.get_name() for s in table.get_symbols()
                 if s.is_referenced() and (table is top or s.is_global() or s.is_free())}
        tables += table.get_children()
    return read - bound - set(dir(builtins))


def test_readme_snippet_runs_as_documented(run_in_order):
    blocks, after = run_in_order
    assert blocks, "the README should show the engine in use"
    namespace = after[-1]
    assert repr(namespace["x"].grad) == "tensor([4.0000, 0.6000, 0.0800])"   # as the README's comment says
    assert namespace["g"].tolist() == [12.0, 27.0, 48.0]                       # 3x^2 at 2, 3, 4
    w = [0.3, -1.2, 0.8]                     # the Hessian of sum(w e^w) by hand: diag((2 + w) e^w)
    # d/dt [e^(x+t e0) (sum x + t)] at x = (0, 1): (e^0 (1) + e^0, e^1): tensor([2., 2.7183])
    assert namespace["column"].numpy().tolist() == [2.0, math.e]
    hessian = namespace["H"].numpy()
    assert abs(hessian - np.diag([(2 + v) * math.exp(v) for v in w])).max() < 1e-14


def test_readme_compare_example_reports_as_documented():
    blocks = re.findall(r"```python\n(.*?)```", README, re.S)
    namespace = {}
    exec(compile(next(b for b in blocks if "diffcompare.compare" in b), "README.md", "exec"), namespace)
    report = namespace["report"]
    assert report.exit_status == 0 and report.method("autograd").verdict == "pass"
    assert "| autograd |" in namespace["markdown"]


def test_readme_main_command_is_the_squire_trapp_comparison():
    assert 'diffcompare compare "exp(x)/sqrt(sin(x)**3 + cos(x)**3)" --at x=1.5' in README
    assert "4.05342789389862065771418792561" in README


def test_readme_survey_example_reports_as_documented(run_in_order):
    blocks, after = run_in_order
    survey = next(k for k, b in enumerate(blocks) if "kind=\"hessian\"" in b)
    assert unbound_names(blocks[survey]) == set()           # it runs on its own too
    namespace = after[survey]                               # as the survey's block left it
    # the Rosenbrock Hessian by hand at (1.2, 1.0, 0.8): tridiagonal
    expected = [[1200 * 1.44 - 400 + 2, -480, 0], [-480, 202 + 1200 - 320, -400], [0, -400, 200]]
    assert namespace["hessian"].method("autograd").estimate.values[0].tolist() == expected
    assert namespace["vjp"].exit_status == 0 and namespace["many"].method("central-difference").verdict == "pass"


def test_readme_wrong_backward_example_names_the_node():
    blocks = re.findall(r"```python\n(.*?)```", README, re.S)
    namespace = {}
    exec(compile(next(b for b in blocks if "class Swish" in b), "README.md", "exec"), namespace)
    walk = namespace["walk"]
    assert walk.first_wrong.name == "SwishBackward" and walk.exit_status == 1
    comment = re.search(r"# SwishBackward (.*)", README).group(1)
    assert comment == walk.first_wrong.detail


def test_readme_audit_example_reports_as_documented():
    blocks = re.findall(r"```python\n(.*?)```", README, re.S)
    block = next(b for b in blocks if "diffcompare.audit(" in b)
    namespace = {}
    exec(compile(block.replace("print(", "shown = ("), "README.md", "exec"), namespace)
    case = namespace["report"].cases[0]
    documented = re.search(r"# (all agree at .*)", block).group(1).strip()
    assert case.verdict == documented
    # x·|x| has the derivative 2|x| everywhere, at abs's kink 0 too (both one-sided slopes are 0
    # there): every point is judged, the kink's among them
    assert any(p.point["x"] == 0.0 and "kink of abs" in p.origin for p in case.points)
    assert all(p.autograd[0] == 2 * abs(p.point["x"]) for p in case.points)
