"""Workers forked by the fork server: each is a process of its own that has run no user code,
in the supervisor's current folder and environment, with its own random state, never a fork
of the supervisor; the server is replaced when it died or the variables read at start-up
changed; it and its workers die with the supervisor; without it, workers start as before."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from diffcompare.auditing import forkserver
from diffcompare.auditing.suite import Case
from diffcompare.auditing.workers import Pool

pytestmark = pytest.mark.skipif(not (sys.platform.startswith("linux") and hasattr(socket, "send_fds")),
                                reason="the fork server runs on Linux")

PROBE = textwrap.dedent('''
    import json
    import os

    import numpy as np

    from diffcompare.functions import sin


    def probe(x):
        with open(os.environ["PROBE_FILE"], "a") as out:
            out.write(json.dumps({"pid": os.getpid(), "ppid": os.getppid(), "sid": os.getsid(0),
                                  "folder": os.getcwd(), "seen": os.environ.get("PROBE_SEEN"),
                                  "draw": float(np.random.random())}) + "\\n")
        return sin(x) * x
''')

ROOT = Path(__file__).resolve().parents[2]


def _probe_cases(folder: Path, k: int) -> list:
    (folder / "probe_ops.py").write_text(PROBE)
    return [Case(f"probe {i}", function="probe_ops:probe", domain={"x": (0.5, 1.5)}, search_path=str(folder))
            for i in range(k)]


def _run(cases, jobs=1) -> list:
    with Pool(jobs) as pool:
        batches = pool.run(cases, {"points": 1, "adversarial": False})
    assert [b.case.status for b in batches] == ["pass"] * len(cases), [b.case.error for b in batches]
    return batches


def _probes(path: Path) -> dict:
    """The first line each worker wrote, by its pid."""
    found = {}
    for line in path.read_text().splitlines():
        entry = json.loads(line)
        found.setdefault(entry["pid"], entry)
    return found


def _parent_of(pid: int) -> int:
    with open(f"/proc/{pid}/stat", "rb") as handle:
        return int(handle.read().rsplit(b")", 1)[1].split()[1])


def _gone(pid: int, within: float) -> bool:
    end = time.monotonic() + within
    while time.monotonic() < end:
        try:
            with open(f"/proc/{pid}/stat", "rb") as handle:
                if handle.read().rsplit(b")", 1)[1].split()[0] == b"Z":     # a zombie: dead, not yet reaped
                    return True
        except OSError:
            return True
        time.sleep(0.05)
    return False


def test_workers_are_forks_of_a_server_in_the_supervisors_folder_and_environment(tmp_path, monkeypatch):
    _run([Case("warm", expression="x**3", at=[{"x": 2.0}])])       # the server is running before what follows
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)                                         # changed after the server started
    monkeypatch.setenv("PROBE_FILE", str(tmp_path / "probes.jsonl"))
    monkeypatch.setenv("PROBE_SEEN", "set after the server started")
    _run(_probe_cases(tmp_path, 2), jobs=2)
    probes = _probes(tmp_path / "probes.jsonl")
    assert len(probes) == 2                                         # two workers, one per case
    servers = {p["ppid"] for p in probes.values()}
    assert len(servers) == 1 and os.getpid() not in servers         # not children of this process...
    (server,) = servers
    assert _parent_of(server) == os.getpid()                        # ...but of the server it started
    for pid, p in probes.items():
        assert p["sid"] == pid                                      # each in a session of its own
        assert p["folder"] == str(work) and p["seen"] == "set after the server started"
    draws = [p["draw"] for p in probes.values()]
    assert draws[0] != draws[1]                                     # NumPy's random state drawn afresh in each


def test_the_server_is_replaced_when_startup_variables_change_or_it_dies(tmp_path, monkeypatch):
    monkeypatch.setenv("PROBE_FILE", str(tmp_path / "probes.jsonl"))
    cases = _probe_cases(tmp_path, 1)
    servers = []
    for step in ("first", "a start-up variable changed", "the server was killed"):
        if step == "a start-up variable changed":
            monkeypatch.setenv("OMP_NUM_THREADS", str(1 + len(os.environ.get("OMP_NUM_THREADS", ""))))
        elif step == "the server was killed":
            os.kill(servers[-1], signal.SIGKILL)
            assert _gone(servers[-1], 10)
        (tmp_path / "probes.jsonl").unlink(missing_ok=True)
        _run(cases)
        (probe,) = _probes(tmp_path / "probes.jsonl").values()
        servers.append(probe["ppid"])
    assert len(set(servers)) == 3 and os.getpid() not in servers
    assert _gone(servers[0], 10)            # the one left behind by the change was closed


def test_without_the_server_a_worker_is_a_new_interpreter(tmp_path, monkeypatch):
    monkeypatch.setattr(forkserver, "ENABLED", False)
    monkeypatch.setenv("PROBE_FILE", str(tmp_path / "probes.jsonl"))
    _run(_probe_cases(tmp_path, 1))
    (probe,) = _probes(tmp_path / "probes.jsonl").values()
    assert probe["ppid"] == os.getpid()


SUPERVISOR = textwrap.dedent('''
    import sys
    from diffcompare.auditing.suite import Case
    from diffcompare.auditing.workers import Pool

    with Pool(1) as pool:
        pool.run([Case("hangs", function="hang_ops:hang", domain={"x": (0.5, 1.5)}, search_path=sys.argv[1])],
                 {"points": 1, "adversarial": False})
''')

HANG = textwrap.dedent('''
    import os
    import time


    def hang(x):
        with open(os.environ["PROBE_FILE"], "w") as out:
            out.write(f"{os.getpid()} {os.getppid()}")
        time.sleep(120)
        return x
''')


def test_the_server_and_its_workers_die_with_the_supervisor(tmp_path):
    (tmp_path / "hang_ops.py").write_text(HANG)
    probe = tmp_path / "probe.txt"
    environment = {**os.environ, "PROBE_FILE": str(probe),
                   "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    supervisor = subprocess.Popen([sys.executable, "-c", SUPERVISOR, str(tmp_path)], env=environment,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        waited = time.monotonic()
        while not probe.exists() or not probe.read_text():
            assert time.monotonic() - waited < 90 and supervisor.poll() is None
            time.sleep(0.1)
        worker, server = map(int, probe.read_text().split())
        assert _parent_of(server) == supervisor.pid
    finally:
        supervisor.kill()
        supervisor.wait()
    assert _gone(server, 10) and _gone(worker, 10)
