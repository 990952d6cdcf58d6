"""The pytest plugin: audit suites collected as tests (one per case, with the audit's
message), and the ``assert_gradients`` fixture. Runs pytest inside pytest (pytester)."""

from __future__ import annotations

import importlib.metadata
import sys
import textwrap
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]


@pytest.fixture(autouse=True, scope="module")
def _libraries_stay_imported():
    """pytester's in-process run removes from sys.modules whatever it imported. Were a
    module of diffcompare or of a library (a SymPy printer) first imported there, the tests
    after this file would import a second copy of it — two classes of one name, and a test
    order that fails. Modules of diffcompare and of installed libraries are kept; what the
    run imported from its own folder (its test files, the suites' ops.py) still goes."""
    import sysconfig
    import _pytest.pytester as pytester_module
    import diffcompare
    places = tuple({sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib", "purelib", "platlib")} |
                   {str(Path(diffcompare.__file__).parent)})
    original = pytester_module.SysModulesSnapshot

    class KeepLibraries(original):
        def __init__(self, preserve=None):
            def keep(name):
                where = getattr(sys.modules.get(name), "__file__", None) or ""
                return bool(preserve and preserve(name)) or where.startswith(places)
            super().__init__(keep)

    pytester_module.SysModulesSnapshot = KeepLibraries
    yield
    pytester_module.SysModulesSnapshot = original


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


def test_the_package_is_not_run_through_pytests_assert_rewriter():
    # pytest marks every module of a plugin's package for rewriting; the plugin takes its
    # package off that list, so modules imported after it load as Python loads them
    # (tested in this session, where the plugin was loaded from its entry point)
    rewriter = sys.modules["_pytest.assertion.rewrite"].AssertionRewritingHook
    import diffcompare.autograd.ops.recording as module     # not needed by the plugin itself
    assert not isinstance(module.__spec__.loader, rewriter)


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
            assert_gradients("sum(x**3)", at={"x": [1.0, 2.0]}, gradient=lambda x: 3 * x ** 2)

        def test_wrong(assert_gradients):
            assert_gradients("sum(x**3)", at={"x": [1.0, 2.0]}, gradient=lambda x: 2 * x ** 2)
    ''')
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1)
    assert "the <lambda> gradient of sum(x**3) is wrong" in result.stdout.str()


def test_each_suite_uses_its_own_folders_module(pytester):
    """Two folders with an ops.py each: each suite's case checks its own (b's backward is wrong)."""
    body = textwrap.dedent('''
        import helpers
        import diffcompare.autograd as ag

        class Square(ag.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            def backward(ctx, g):
                x, = ctx.saved_tensors
                return g * helpers.FACTOR * x
    ''')
    for folder, factor in (("a", 2), ("b", 3)):          # d(x²)/dx = 2x: b's rule is wrong
        (pytester.path / folder).mkdir()
        (pytester.path / folder / "ops.py").write_text(body)
        (pytester.path / folder / "helpers.py").write_text(f"FACTOR = {factor}\n")
        (pytester.path / folder / "json.py").write_text("raise RuntimeError('not the standard library')\n")
        (pytester.path / folder / "audit_ops.toml").write_text(
            '[[case]]\nname = "square"\nfunction = "ops:Square"\nat = [{ x = 1.5 }]\n')
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "--audit-points", "2")
    result.assert_outcomes(passed=1, failed=1)
    output = result.stdout.str()
    assert "FAILED b/audit_ops.toml::square" in output
    assert "autograd 4.5, exact 3" in output              # 3 * 1.5 against 2 * 1.5


def test_a_crash_in_a_case_is_an_error_of_that_case_only(pytester):
    (pytester.path / "ops.py").write_text(textwrap.dedent('''
        import os
        from diffcompare.language.functions import sin

        def crashes(x):
            os.abort()

        def fine(x):
            print("printed by fine")
            return sin(x)
    '''))
    (pytester.path / "audit_crash.toml").write_text(textwrap.dedent('''
        [[case]]
        name = "crashes"
        function = "ops:crashes"
        at = [{ x = 0.5 }]

        [[case]]
        name = "fine"
        function = "ops:fine"
        at = [{ x = 0.5 }]
    '''))
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "--audit-points", "2")
    result.assert_outcomes(passed=1, failed=1)
    output = result.stdout.str()
    assert "SIGABRT" in output and "ops.py" in output
    assert "printed by fine" not in output                  # the case's output stays in its worker's capture
    assert "diffcompare/auditing" not in output             # the audit's message, not the library's traceback


def test_a_toml_file_named_like_a_suite_that_is_not_one_is_left_alone(pytester):
    pytester.makefile(".toml", audit_settings="[logging]\nlevel = 'info'\n")
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
