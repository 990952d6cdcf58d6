"""In process and fast: pyproject.toml's settings merged into a command's options (the
command's own table over [tool.diffcompare], the command line over both, types and choices
as the parser's), and the -k parser against an evaluation of the same expression written
here, tree by tree, with Python's own and/or/not."""

from __future__ import annotations

import argparse

import pytest
from hypothesis import given, settings as hypothesis_settings, strategies as st

from diffcompare.auditing.keywords import compile_keywords, parse_keywords
from diffcompare.cli.config import Configuration, given_on_command_line, options, settings
from diffcompare.cli.main import build_parser
from diffcompare.problem.errors import InputError


def _commands():
    return build_parser().commands()


def test_every_long_option_of_every_command_is_a_key():
    commands = _commands()
    for name, command in commands.items():
        written = {s[2:] for a in command._actions for s in a.option_strings if s.startswith("--")}
        assert set(options(command)) == written - {"help", "show-config"} | (
            {"suites"} if name == "audit" else set())


def test_the_command_table_wins_over_the_top_and_only_its_command_gets_it():
    commands = _commands()
    table = {"seed": 3, "digits": 40, "audit": {"seed": 7}, "compare": {"repeat": 2}}
    compare = settings(table, "compare", commands, "p.toml")
    audit = settings(table, "audit", commands, "p.toml")
    assert {k: v for k, (v, _) in compare.items()} == {"seed": 3, "digits": 40, "repeat": 2}
    assert {k: v for k, (v, _) in audit.items()} == {"seed": 7}          # audit has no --digits, its own seed
    assert audit["seed"][1] == "p.toml [tool.diffcompare.audit]" and compare["seed"][1] == "p.toml [tool.diffcompare]"


@pytest.mark.parametrize("table, command, value", [
    ({"symbolic-timeout": 0}, "compare", None),               # through the option's own type: 0 is no limit
    ({"no-adversarial": True}, "audit", False),               # a flag that stores False
    ({"at": ["x=1", "y=2"]}, "steps", ["x=1", "y=2"]),        # a repeatable option: a list
    ({"timeout": float("inf")}, "audit", None),
])
def test_values_become_what_the_command_line_would_give(table, command, value):
    [(got, _)] = settings(table, command, _commands(), "p.toml").values()
    assert got == value


@pytest.mark.parametrize("table, words", [
    ({"digits": True}, ["digits", "whole number"]),
    ({"format": "pdf"}, ["format", "choose from text"]),
    ({"grid": "yes"}, ["grid", "true or false"]),
    ({"compare": {"jobs": 2}}, ["'jobs'", "not an option of compare"]),
    ({"explian": {}}, ["did you mean 'explain'"]),
    ({"symbolic_timeout": 5}, ["did you mean 'symbolic-timeout'"]),
])
def test_wrong_keys_and_types_name_the_file_the_key_and_what_is_valid(table, words):
    with pytest.raises(InputError) as error:
        settings(table, "compare", _commands(), "/x/pyproject.toml")
    text = str(error.value)
    assert text.startswith("/x/pyproject.toml: ") and "\n" not in text and all(w in text for w in words)


def test_the_command_line_wins_and_given_options_are_told_apart(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.diffcompare]\ndigits = 40\nrepeat = 2\n", encoding="utf-8")
    parser = build_parser()
    configuration = Configuration("compare", parser.commands(), str(tmp_path / "below"))
    argv = ["compare", "x", "--at", "x=1", "--digits", "30"]     # 30 is also the default: still the command line's
    args = parser.parse_args(argv)
    configuration.apply(args, argv[1:])
    assert (args.digits, args.repeat) == (30, 2)
    assert configuration.source("digits") == "command line" and configuration.source("step") == "default"
    assert configuration.source("repeat").endswith("pyproject.toml [tool.diffcompare]")
    assert given_on_command_line(parser.commands()["compare"], argv[1:]) == {"expression", "at", "digits"}


# -k: random expressions, their text, and the truth of each at random case names

NAMES = ["alpha", "beta", "Gam", "ta", "a"]
LABELS = ["Alpha one", "beta", "gamma", "delta.toml", "x", ""]

trees = st.recursive(
    st.sampled_from(NAMES).map(lambda n: ("name", n)),
    lambda inner: st.one_of(inner.map(lambda t: ("not", t)),
                            st.tuples(st.sampled_from(["and", "or"]), inner, inner)),
    max_leaves=12)

PRECEDENCE = {"or": 1, "and": 2, "not": 3, "name": 4}


def text_of(tree, around: int = 0) -> str:
    """The tree as -k text, parenthesised only where precedence needs it."""
    kind = tree[0]
    if kind == "name":
        return tree[1]
    if kind == "not":
        inner = f"not {text_of(tree[1], PRECEDENCE['not'])}"
    else:
        inner = f"{text_of(tree[1], PRECEDENCE[kind])} {kind} {text_of(tree[2], PRECEDENCE[kind] + 1)}"
    return f"({inner})" if PRECEDENCE[kind] < around else inner


def truth(tree, labels) -> bool:
    kind = tree[0]
    if kind == "name":
        return any(tree[1].lower() in label.lower() for label in labels)
    if kind == "not":
        return not truth(tree[1], labels)
    left, right = truth(tree[1], labels), truth(tree[2], labels)
    return (left and right) if kind == "and" else (left or right)


@hypothesis_settings(max_examples=300, deadline=None)
@given(trees, st.lists(st.sampled_from(LABELS), max_size=3), st.booleans())
def test_k_agrees_with_python_and_or_not(tree, labels, spaced):
    text = text_of(tree)
    if spaced:
        text = "  " + text.replace("(", "( ").replace(")", " )") + " "
    assert compile_keywords(text)(labels) == truth(tree, labels)


@pytest.mark.parametrize("text", ["a and", "(a", "a)", "a b", "not", "a && b", "__import__('os')"])
def test_k_mistakes_are_bad_input_saying_where(text):
    with pytest.raises(InputError) as error:
        parse_keywords(text)
    assert "column" in str(error.value) or "cannot be part of a name" in str(error.value)


def test_k_nested_too_deep_is_bad_input_not_a_crash():
    with pytest.raises(InputError):
        parse_keywords("not " * 10_000 + "a")


def test_the_readme_configuration_is_accepted_by_every_command():
    import pathlib
    import re
    from diffcompare.auditing.collect import toml
    readme = (pathlib.Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    [block] = [b for b in re.findall(r"```toml\n(.*?)```", readme, re.S) if "[tool.diffcompare]" in b]
    table = toml().loads(block)["tool"]["diffcompare"]
    commands = _commands()
    for command in commands:
        settings(table, command, commands, "README.md")        # raises on a key or value the parser refuses
    assert settings(table, "audit", commands, "README.md")["suites"][0] == ["tests/"]
