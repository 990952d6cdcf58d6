"""The pytest plugin (registered as ``diffcompare`` when the package is installed): audit
suites collected as tests, one item per case, and a fixture to check gradients in any test.

- Files named ``audit*.toml`` or ``*_audit.toml`` (the ini option ``diffcompare_suites``
  sets other patterns) that are audit suites — TOML with ``[[case]]`` tables — are
  collected; any other TOML file of those names (``audit_settings.toml`` with a
  ``[logging]`` table) is left alone. Each case is a test item that fails with the
  audit's own message (the worst point, every method's values, the tolerance, the wrong
  backward rule), errors when it cannot run (bad input, a crash) and is skipped when a
  point asked for could not be checked (undecided). ``--audit-points N`` and
  ``--audit-seed S`` set the random points, as the command's ``--points`` and ``--seed``
  do; ``--audit-case-timeout S`` the time budget of each batch of a case's points.
- Each case runs as ``diffcompare audit`` runs it: in a supervised worker process (shared
  by the session's cases), with its ``module:function`` imported from its own suite's
  folder — two folders' ``ops.py`` are two modules — so that a crash, an exit or a hang
  in user code ends that case only, and nothing it does reaches the test process.
- The fixture ``assert_gradients`` is :func:`diffcompare.testing.assert_gradients`::

      def test_my_layer(assert_gradients):
          assert_gradients(my_layer, at={"x": [0.5, -1.0, 2.0]})

The plugin imports the audit only when a suite is collected or the fixture is used, so it
costs a pytest run nothing otherwise.
"""

from __future__ import annotations

import pytest

from diffcompare.auditing.collect import PATTERNS, is_suite_file


def pytest_addoption(parser, pluginmanager):
    _leave_the_package_unrewritten(pluginmanager)
    parser.addini("diffcompare_suites", type="linelist", default=list(PATTERNS),
                  help="file-name patterns of the audit suites to collect (default: audit*.toml *_audit.toml)")
    group = parser.getgroup("diffcompare", "gradient audits")
    group.addoption("--audit-points", type=int, default=None, metavar="N",
                    help="random points per audit case (default: each case's own, else 10)")
    group.addoption("--audit-seed", type=int, default=0, metavar="S", help="the seed of the random points")
    group.addoption("--audit-case-timeout", type=float, default=None, metavar="S",
                    help="seconds each batch of an audit case's points may take (default: as diffcompare audit)")


def _leave_the_package_unrewritten(pluginmanager):
    """pytest rewrites the asserts of every module of a package that provides a plugin, so
    that a test run imports this package's hundreds of modules through its rewriter (parsed
    and compiled again, its cache aside): slower to collect, and for nothing — the package
    has no assert of its own. Only the modules imported before this hook (the plugin and
    what it needs) are rewritten; if pytest no longer keeps its list of such packages where
    this looks, nothing changes."""
    must_rewrite = getattr(getattr(pluginmanager, "rewrite_hook", None), "_must_rewrite", None)
    if isinstance(must_rewrite, set):
        must_rewrite.discard(__name__.partition(".")[0])


def pytest_collect_file(file_path, parent):
    # the rule `diffcompare audit FOLDER` collects by
    if file_path.suffix == ".toml" and is_suite_file(str(file_path), parent.config.getini("diffcompare_suites")):
        return AuditSuite.from_parent(parent, path=file_path)
    return None


def _workers(config):
    """The session's supervised workers, started by the first case that needs one."""
    pool = getattr(config, "_diffcompare_workers", None)
    if pool is None:
        from diffcompare.auditing.workers import UNIT_TIMEOUT, Pool
        budget = config.getoption("audit_case_timeout")
        if budget is not None and not budget > 0:
            raise pytest.UsageError(f"--audit-case-timeout must be a positive number of seconds, not {budget:g}")
        pool = config._diffcompare_workers = Pool(1, UNIT_TIMEOUT if budget is None else budget)
    return pool


def pytest_unconfigure(config):
    pool = getattr(config, "_diffcompare_workers", None)
    if pool is not None:
        pool.close()
        config._diffcompare_workers = None


class AuditFailure(Exception):
    """A case whose gradient is wrong, or that could not run: the audit's message."""


class AuditSuite(pytest.File):
    """An audit suite: one item per case."""

    def collect(self):
        from diffcompare.auditing.suite import read_suite
        from diffcompare.problem.errors import InputError
        try:
            suite = read_suite(str(self.path))
        except InputError as error:
            raise self.CollectError(f"{self.path.name}: {error}") from None
        for case in suite.cases:
            yield AuditCase.from_parent(self, name=case.name, case=case)


class AuditCase(pytest.Item):
    """One case of a suite, audited when the test runs."""

    def __init__(self, *, case, **kwargs):
        super().__init__(**kwargs)
        self.case = case

    def runtest(self):
        from diffcompare.auditing.audit import run_cases
        from diffcompare.render.audit import failure_lines
        from diffcompare.render.findings import verdict_of
        config = self.config
        __tracebackhide__ = True
        report = run_cases([self.case], points=config.getoption("audit_points"),
                           seed=config.getoption("audit_seed"), workers=_workers(config))
        result = report.cases[0]
        self.user_properties.append(("verdict", verdict_of(result)))
        if result.status == "error":
            raise AuditFailure(f"bad input: {result.error}")
        if result.status == "internal":
            raise AuditFailure(f"internal error of diffcompare (not of your function): {result.error}")
        if result.status == "fail":
            raise AuditFailure("\n".join(failure_lines(result)))
        if result.status == "undecided":
            # reported at the suite's case, not at this line of the plugin
            raise pytest.skip.Exception(f"{self.name}: undecided: {verdict_of(result)}", _use_item_location=True)

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, AuditFailure):
            return f"{excinfo.value}\n(case {self.name!r}: {self.case.source})"
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self):
        return self.path, 0, f"audit case {self.name!r}"


@pytest.fixture
def assert_gradients():
    """:func:`diffcompare.testing.assert_gradients`: raises AssertionError naming the wrong
    entry, every method's value and the tolerance, unless ``fn``'s gradient is right."""
    from diffcompare.testing import assert_gradients as check
    return check
