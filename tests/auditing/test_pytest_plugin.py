"""The pytest plugin: audit suites collected as tests (one per case, with the audit's
message), and the ``assert_gradients`` fixture. Runs pytest inside pytest (pytester)."""

from __future__ import annotations

import importlib.metadata
import textwrap
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

SUITE = textwrap.dedent('''
    [[case]]
    name = "smooth"
    expression = "sin(x) * exp(y)"
    domain = { x = [-2, 2], y = [-1, 1] }

    [[case]]
    name = "wrong"
    function = "custom_ops:WrongCube"
    at = [{ x = 1.5 }]

    [[case]]
    name = "infinite slope asked for"
    expression = "sqrt(x)"
    at = [{ x = 0 }]

    [[case]]
    name = "typo"
    expression = "sinn(x)"
    domain = { x = [0, 1] }
''')



def test_the_plugin_is_registered():
    names = [e.value for e in importlib.metadata.entry_points(group="pytest11") if e.name == "diffcompare"]
    assert names == ["diffcompare.pytest_plugin"], "reinstall the package (pip install -e .) to register the plugin"


def test_a_suite_is_collected_case_by_case(pytester):
    pytester.makefile(".toml", audit_layers=SUITE)
    pytester.syspathinsert(Path(__file__).resolve().parents[1])        # tests/custom_ops.py: a cube, 2x² for 3x²
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "-rs", "--audit-points", "3")
    result.assert_outcomes(passed=1, failed=2, skipped=1)
    output = result.stdout.str()
    # the wrong rule's message: 2x² against 3x² at 1.5 is 4.5 against 6.75
    assert "autograd is wrong at 1 of 1 points" in output and "autograd 4.5, exact 6.75" in output
    assert "bad input: in expression: unknown function 'sinn'" in output
    assert "undecided" in output


def test_a_suite_that_cannot_be_read_is_a_collection_error(pytester):
    pytester.makefile(".toml", audit_broken="[[case]\nname = 1")
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider")
    assert result.ret != 0
    assert "audit_broken.toml" in result.stdout.str() and "is not valid TOML" in result.stdout.str()


def test_other_toml_files_are_left_alone(pytester):
    pytester.makefile(".toml", settings="[tool]\nx = 1")
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED


def test_the_fixture(pytester):
    pytester.makepyfile(test_layer='''
        def test_right(assert_gradients):
            assert_gradients("sum(x**3)", at={"x": [1.0, 2.0]}, grad=lambda x: 3 * x ** 2)

        def test_wrong(assert_gradients):
            assert_gradients("sum(x**3)", at={"x": [1.0, 2.0]}, grad=lambda x: 2 * x ** 2)
    ''')
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1)
    assert "the <lambda> gradient of sum(x**3) is wrong" in result.stdout.str()
