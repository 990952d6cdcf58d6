"""The fault harness, fast (benchmarks/fault_survival.py runs every fault on every route): user
code that crashes, exits, hangs, forks, prints or shadows the standard library, in one suite
between a right case and a wrong one, audited by ``diffcompare audit`` in a process of its own
as CI runs it. The wrong case still fails, the right one passes, each fault's case has its own
cause, the report file and standard output are whole JSON, and no process is left behind."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from faults import BY_NAME, LocalDask, ROOT, _marked, judged, run, write_suite  # noqa: E402

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the harness reads /proc")

ROUTES = {
    "jobs 1": ["segmentation fault", "os._exit", "exception on part of the domain", "prints",
               "exit at import", "stdlib-named modules beside the suite"],
    "jobs 2": ["abort", "killed (OOM)", "sys.exit", "BaseException", "MemoryError", "returns None",
               "fork (multiprocessing)", "fork, child left running", "takes over SIGALRM", "loop in C",
               "fork, child escapes with setsid", "an exception that cannot be printed",
               "returns an object that is not a number", "closes sys.stdout"],
}


@pytest.mark.parametrize("route", list(ROUTES))
def test_the_audit_survives_faults_with_the_right_verdicts(tmp_path, route):
    faults = [BY_NAME[name] for name in ROUTES[route]]
    outcome = run(write_suite(tmp_path, *faults), route, case_timeout=2)
    assert judged(outcome, faults) == [], outcome.stderr[-2000:]
    # the hangs were bounded by the per-case budget, not by the audit's 120 s
    assert outcome.seconds < 60
    if "prints" in ROUTES[route]:
        what_user_code_prints_is_in_the_report_not_on_standard_output(outcome, tmp_path)


def what_user_code_prints_is_in_the_report_not_on_standard_output(outcome, folder):
    """(Checked on the route that has the fault "prints", after its verdicts.)"""
    assert outcome.stdout_cases is not None             # standard output is the report's JSON, whole
    report = json.loads(next(folder.glob("report-*.json")).read_text())
    output = {c["name"]: c["output"] for c in report["cases"]}
    assert "to stdout" in output["prints"] and "to stderr" in output["prints"] and "to fd 1" in output["prints"]
    assert output["right"] == ""


def test_sigterm_ends_the_audit_like_ctrl_c(tmp_path):
    (tmp_path / "slow_ops.py").write_text("import time\nfrom diffcompare.language.functions import sin\n\n"
                                          "def slow(x):\n    time.sleep(0.2)\n    return sin(x)\n")
    (tmp_path / "suite.toml").write_text("".join(f'[[case]]\nname = "slow {k}"\nfunction = "slow_ops:slow"\n'
                                                 f'domain = {{ x = [0.5, 1.5] }}\npoints = 2\n\n' for k in range(4)))
    marker = os.urandom(8).hex()
    environment = {**os.environ, "DIFFCOMPARE_FAULT_RUN": marker,
                   "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    process = subprocess.Popen([sys.executable, "-m", "diffcompare", "audit", "suite.toml", "--jobs", "2",
                                "--report", "r.json"], cwd=tmp_path, env=environment, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
    waited = time.monotonic()           # until its workers run (they carry the marker): the audit is under way
    while len(_marked(marker)) < 3 and time.monotonic() - waited < 60:
        time.sleep(0.1)
    time.sleep(1.0)
    process.send_signal(signal.SIGTERM)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 130
    lines = err.decode().strip().splitlines()
    assert len(lines) == 1 and "interrupted" in lines[0], lines
    report = json.loads((tmp_path / "r.json").read_text())            # written whole
    assert report["interrupted"] is True and len(report["cases"]) == 4
    assert {c["status"] for c in report["cases"]} <= {"pass", "undecided"}
    time.sleep(0.5)
    assert _marked(marker) == [] and not list(tmp_path.glob(".diffcompare-*"))


def test_a_dask_cluster_that_loses_workers_or_its_scheduler(tmp_path):
    pytest.importorskip("distributed")
    faults = [BY_NAME["segmentation fault"], BY_NAME["loop in C"]]
    with LocalDask(workers=2, folder=tmp_path) as cluster:
        outcome = run(write_suite(tmp_path / "crash", *faults), "dask", case_timeout=2, scheduler=cluster.address)
        assert judged(outcome, faults) == [], outcome.stderr[-2000:]
        cluster.kill_scheduler()
        start = time.perf_counter()
        outcome = run(write_suite(tmp_path / "gone", BY_NAME["prints"]), "dask", case_timeout=3,
                      scheduler=cluster.address)
    # nothing listens any more: bad input at once, said in a line, not a hang
    assert outcome.exit_status == 2 and time.perf_counter() - start < 30
    assert "cannot reach the Dask scheduler" in outcome.stderr and "Traceback" not in outcome.stderr
