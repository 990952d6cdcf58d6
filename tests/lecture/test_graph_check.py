"""graph --check: the check of explain --check, its wrong node drawn red in DOT (and so in
SVG and PNG) and marked in the text tree; exit 1 for a wrong rule, 0 when every rule
agrees, 4 when a node could not be checked. The wrong rule comes in through a user module
with a custom ag.Function whose backward is 2x² where x³'s derivative is 3x²."""

import pathlib
import re

from cli_runner import in_process as run

# the cubes of tests/custom_ops.py (3x² and the wrong 2x²), and f written with each
MODULE = (pathlib.Path(__file__).resolve().parents[1] / "custom_ops.py").read_text() + '''
from diffcompare.functions import sin


def wrong(x, y):
    return sin(WrongCube.apply(x) * y) + x


def right(x, y):
    return sin(Cube.apply(x) * y) + x
'''


def _nodes(dot_text):
    """node id -> (its label, its attributes after the label) in DOT text."""
    return {m.group(1): (m.group(2), m.group(3))
            for m in re.finditer(r'^  (n\d+) \[label="((?:[^"\\]|\\.)*)"(.*)\];$', dot_text, re.M)}


def test_the_wrong_custom_backward_is_the_one_red_node(tmp_path):
    (tmp_path / "ops.py").write_text(MODULE, encoding="utf-8")
    result = run("graph", "ops:wrong", "--at", "x=0.7,y=1.3", "--check", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    nodes = _nodes(result.stdout)
    red = [label for label, attributes in nodes.values() if 'color="red"' in attributes]
    assert len(red) == 1 and red[0].startswith("WrongCubeBackward") and "backward rule wrong" in red[0]
    # the one line of what --check found, on stderr: stdout holds only the graph
    assert "WrongCubeBackward" in result.stderr and "is wrong" in result.stderr
    assert result.stdout.startswith("digraph backward {") and "Traceback" not in result.stderr


def test_every_rule_right_exits_0_with_no_red(tmp_path):
    (tmp_path / "ops.py").write_text(MODULE, encoding="utf-8")
    result = run("graph", "ops:right", "--at", "x=0.7,y=1.3", "--check", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert 'color="red"' not in result.stdout and "agrees with the reference" in result.stderr


def test_the_text_tree_marks_only_the_wrong_node(tmp_path):
    (tmp_path / "ops.py").write_text(MODULE, encoding="utf-8")
    path = tmp_path / "g.txt"
    result = run("graph", "ops:wrong", "--at", "x=0.7,y=1.3", "--check", "--output", str(path), cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    marked = [line for line in path.read_text(encoding="utf-8").splitlines() if "backward rule wrong" in line]
    assert len(marked) == 1 and "WrongCubeBackward" in marked[0]


def test_a_node_that_could_not_be_checked_is_never_exit_0(tmp_path):
    # |x| at its kink: the conventions differ, nothing is judged there
    result = run("graph", "abs(x)*y", "--at", "x=0,y=1.3", "--check", "--format", "text", cwd=tmp_path)
    assert result.returncode == 4, result.stderr
    kink = [line for line in result.stdout.splitlines() if "AbsBackward0" in line]
    assert len(kink) == 1 and "not checked (kink)" in kink[0]
    assert "could not be checked" in result.stderr
    dot = run("graph", "abs(x)*y", "--at", "x=0,y=1.3", "--check", cwd=tmp_path)
    assert dot.returncode == 4
    dashed = [label for label, attributes in _nodes(dot.stdout).values() if "dashed" in attributes]
    assert len(dashed) == 1 and dashed[0].startswith("AbsBackward0")


def test_without_check_nothing_is_judged(tmp_path):
    (tmp_path / "ops.py").write_text(MODULE, encoding="utf-8")
    result = run("graph", "ops:wrong", "--at", "x=0.7,y=1.3", cwd=tmp_path)
    assert result.returncode == 0 and 'color="red"' not in result.stdout and "--check ran" not in result.stdout
    assert result.stderr == ""


def test_the_svg_draws_the_wrong_node_red(tmp_path):
    import xml.etree.ElementTree as ElementTree
    (tmp_path / "ops.py").write_text(MODULE, encoding="utf-8")
    path = tmp_path / "g.svg"
    result = run("graph", "ops:wrong", "--at", "x=0.7,y=1.3", "--check", "--output", str(path), cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    root = ElementTree.parse(path).getroot()            # a well-formed SVG file
    groups = [g for g in root.iter("{http://www.w3.org/2000/svg}g")
              if "WrongCubeBackward" in "".join(g.itertext()) and "node" in (g.get("class") or "")]
    if "own layout" in result.stderr:                   # no Graphviz here: diffcompare's drawing
        red = [g for g in root.iter("{http://www.w3.org/2000/svg}g") if "wrong" in (g.get("class") or "").split()]
        assert len(red) == 1 and red == groups
        assert "--check ran" in "".join(root.itertext())          # the legend under the drawing
    else:                                               # Graphviz drew the DOT: the red pen
        assert any(shape.get("stroke") == "red" for g in groups for shape in g.iter())
