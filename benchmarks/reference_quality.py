"""The exact reference of ``diffcompare.compare``, before and after a change, in the same run.

"before" is an earlier revision (default 9d51b3e: ``git archive`` of its ``diffcompare``
package into a temporary directory, deleted at the end); "after" is the working tree. Each
version runs in its own subprocess (this file with ``--worker``, PYTHONPATH at that version,
one BLAS thread), reads a JSON list of functions on stdin and writes one JSON line per
function on stdout: ``compare(text, at=point, methods="autograd", repeat=1)``'s reference
(seconds, available, reason, trusted digits, uncertain entries, values) or the exception it
raised, and the time of the whole call.

Functions: random well-posed functions of 1 to 4 variables (verdict_quality's generator:
smooth, away from every singularity, seeded), plus the issue's named cases. The two versions
run alternately for R rounds; times are per-function medians over the rounds. Reported:
(1) reference failures (unavailable, an entry trusted to fewer than 17 digits or marked
uncertain, time-outs, crashes), (2) references that disagree beyond 1e-12 relative with
verdict_quality's forward-mode dual numbers over mpmath (code that shares nothing with the
tool), (3) reference seconds, median and worst, after/before, by number of variables,
(4) the named cases.

Run: python benchmarks/reference_quality.py [--functions N] [--seed S] [--rounds R] [--quick] [--before REV]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
import os
import queue
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

BEFORE = "9d51b3e"
REPO = Path(__file__).resolve().parent.parent
TRUSTED_DIGITS = 17         # an entry trusted to fewer digits than binary64 needs is a failure
AGREEMENT = 1e-12           # relative: a reference farther from the dual-number gradient disagrees
HARD_TIMEOUT = 120.0        # seconds one compare call may take before its worker is killed
VARIABLES = ["x", "y", "z", "w"]
NAMED_DPS = 400            # digits for the named cases' exact gradients (far from well-posed)
WARM_UP = ("sin(x) * y", {"x": 0.5, "y": 1.5})

# the named cases: (text, point); exact gradients by named_exact
NAMED = [
    ("tanh(x)", {"x": -184.61094599530887}),
    ("erf(sin(x/y)*tanh(z**y))", {"x": 2.4260055062371038, "y": 1.962532805991824, "z": 2.3011056939145034}),
    ("log1p(y) / x", {"y": -1e-300, "x": 1.0}),
]


# -- the worker: one version of diffcompare, in its own process ---------------------------------

def worker() -> None:
    """Read a JSON list of {"id", "text", "at"} on stdin; write a header line, then one JSON
    line per function (flushed, so that the parent can time out a hung call)."""
    out = sys.stdout
    sys.stdout = sys.stderr             # anything the library prints stays off the results
    import diffcompare                  # from PYTHONPATH (the parent checks which copy was imported)

    def emit(record):
        out.write(json.dumps(record) + "\n")
        out.flush()
    emit({"header": True, "file": str(Path(diffcompare.__file__).resolve()),
          "threads": os.environ.get("OPENBLAS_NUM_THREADS")})
    functions = json.load(sys.stdin)
    diffcompare.compare(WARM_UP[0], at=WARM_UP[1], methods="autograd", repeat=1)   # imports, first-call costs
    for item in functions:
        record = {"id": item["id"]}
        start = time.perf_counter()
        try:
            c = diffcompare.compare(item["text"], at=item["at"], methods="autograd", repeat=1)
        except Exception as error:                      # a crash is a failure of the version
            record.update(compare_seconds=time.perf_counter() - start,
                          error=f"{type(error).__name__}: {error}")
            emit(record)
            continue
        record["compare_seconds"] = time.perf_counter() - start
        r = c.reference
        high = getattr(r, "high", None)
        values = [float(v) for v in high[0]] if high is not None and len(high) else []
        trusted = getattr(r, "trusted", None)
        uncertain = getattr(r, "uncertain", None) or {}
        record.update(seconds=float(getattr(r, "seconds", math.nan)), available=bool(r.available),
                      reason=str(getattr(r, "reason", "") or ""),
                      trusted=[int(t) for t in trusted[0]] if trusted is not None and len(trusted) else [],
                      uncertain={str(k): str(v) for k, v in uncertain.items()},
                      high=[None if math.isnan(v) else v for v in values],
                      labels=list(c.task.input_labels), error=None)
        emit(record)


# -- the parent ---------------------------------------------------------------------------------

def _extract(revision: str, directory: str) -> None:
    archive = subprocess.Popen(["git", "-C", str(REPO), "archive", revision, "diffcompare"], stdout=subprocess.PIPE)
    untar = subprocess.run(["tar", "-x", "-C", directory], stdin=archive.stdout)
    archive.stdout.close()
    if archive.wait() != 0 or untar.returncode != 0:
        raise SystemExit(f"could not extract diffcompare at {revision} from {REPO}")


def _environment(path: str) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = path
    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        env.setdefault(name, "1")
    return env


def run_version(path: str, functions: list, scratch: str, label: str) -> dict:
    """id -> the worker's record for every function; a call that outlives HARD_TIMEOUT is
    killed (recorded as a hard time-out) and a new worker takes the rest."""
    results, remaining = {}, list(functions)
    while remaining:
        log = tempfile.TemporaryFile(mode="w+", dir=scratch)
        process = subprocess.Popen([sys.executable, str(Path(__file__).resolve()), "--worker"],
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, text=True,
                                   env=_environment(path), cwd=scratch)
        lines = queue.Queue()

        def read(stream=process.stdout, sink=lines):
            for line in stream:
                sink.put(line)
            sink.put(None)
        threading.Thread(target=read, daemon=True).start()
        process.stdin.write(json.dumps(remaining))
        process.stdin.close()
        start_up = True
        while remaining:
            try:
                line = lines.get(timeout=HARD_TIMEOUT * (3 if start_up else 1))
            except queue.Empty:
                process.kill()
                process.wait()
                results[remaining[0]["id"]] = {"id": remaining[0]["id"], "error": None, "hard_timeout": True}
                remaining = remaining[1:]
                break
            if line is None:                            # the worker died: the function it was on crashed it
                process.wait()
                log.seek(0)
                tail = log.read().strip().splitlines()[-1:] or [""]
                results[remaining[0]["id"]] = {"id": remaining[0]["id"],
                                               "error": f"worker exited with {process.returncode}: {tail[0][:200]}"}
                remaining = remaining[1:]
                break
            record = json.loads(line)
            if record.get("header"):
                if not record["file"].startswith(str(Path(path).resolve()) + os.sep):
                    process.kill()
                    raise SystemExit(f"the {label} worker imported {record['file']}, not the copy in {path}")
                start_up = False
                continue
            results[record["id"]] = record
            remaining = remaining[1:]
        else:
            process.wait()
        log.close()
    return results


def well_posed(vq, rng, count) -> list:
    """verdict_quality's well-posed functions, of 1 to 4 variables (as many of each, in
    expectation): (tree, variables in order of appearance, point, exact Dual)."""
    import mpmath
    found = []
    while len(found) < count:
        k = rng.randint(1, 4)
        while True:
            tree = vq.random_tree(rng, VARIABLES[:k], rng.randint(max(1, k - 1), 4))
            variables = vq.names(tree)
            if len(variables) != k:
                continue
            point = {v: round(rng.uniform(-2, 2), 6) for v in variables}
            try:
                with mpmath.workdps(vq.DPS):
                    exact = vq.evaluate(tree, point, variables, vq.well_posed_guard)
            except (vq.Untame, ZeroDivisionError, ValueError):
                continue
            found.append((vq.text(tree), variables, point, [exact.grad[i] for i in range(k)]))
            break
    return found


def named_exact(vq, index, point) -> list:
    """The named cases' exact gradients by verdict_quality's dual numbers, at NAMED_DPS digits:
    its slope for tanh, 1 - tanh(x)^2, cancels to 0 at 60 digits where sech(x)^2 ~ 1e-160. Its
    trees and ``evaluate`` where they reach; erf and a power, which they do not, written here by
    the chain rule on its Dual (erf' = 2/sqrt(pi) exp(-u^2), z**y = exp(y log z))."""
    import mpmath
    names = list(point)
    with mpmath.workdps(NAMED_DPS):
        if index == 0:
            return list(vq.evaluate(("call", "tanh", ("var", "x")), point, names).grad)
        if index == 2:
            return list(vq.evaluate(("/", ("call", "log1p", ("var", "y")), ("var", "x")), point, names).grad)

        def var(v):
            return vq.Dual(mpmath.mpf(point[v]), [mpmath.mpf(v == n) for n in names])
        x, y, z = var("x"), var("y"), var("z")
        q = x / y
        s = q.chain(mpmath.sin(q.value), mpmath.cos(q.value))
        e = y * z.chain(mpmath.log(z.value), 1 / z.value)
        p = e.chain(mpmath.exp(e.value), mpmath.exp(e.value))
        t = p.chain(mpmath.tanh(p.value), 1 - mpmath.tanh(p.value) ** 2)
        u = s * t
        return list(u.chain(mpmath.erf(u.value), 2 / mpmath.sqrt(mpmath.pi) * mpmath.exp(-u.value ** 2)).grad)


def _cell(text, limit=160) -> str:
    text = str(text).replace("|", "\\|").replace("\n", " ")
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _table(*args, **kwargs) -> str:
    from common import table
    with contextlib.redirect_stdout(io.StringIO()):       # main() returns the text; nothing twice
        return table(*args, **kwargs)


def _summary(record) -> str:
    """What one version said about one function, in a table cell."""
    if record.get("hard_timeout"):
        return f"killed after {HARD_TIMEOUT:g} s"
    if record.get("error"):
        return f"crash: {record['error']}"
    parts = []
    if not record["available"]:
        parts.append(f"unavailable: {record['reason']}")
    if record["trusted"] and min(record["trusted"]) < TRUSTED_DIGITS:
        parts.append(f"trusted {record['trusted']}")
    if record["uncertain"]:
        parts.append("uncertain " + "; ".join(f"{k}: {v}" for k, v in record["uncertain"].items()))
    return ", ".join(parts) or "ok"


def failures_of(records) -> set:
    """The kinds of failure over a function's rounds."""
    kinds = set()
    for r in records:
        if r.get("hard_timeout"):
            kinds.add("killed")
        elif r.get("error"):
            kinds.add("crash")
        else:
            if not r["available"]:
                kinds.add("unavailable")
                if "timed out" in r["reason"]:
                    kinds.add("timeout")
            if r["trusted"] and min(r["trusted"]) < TRUSTED_DIGITS:
                kinds.add("trusted")
            if r["uncertain"]:
                kinds.add("uncertain")
    return kinds


def _values(record, variables) -> list | None:
    """The reference's values in ``variables``' order (None where there is none)."""
    if record.get("error") or record.get("hard_timeout") or not record.get("high"):
        return None
    by_label = dict(zip(record["labels"], record["high"]))
    return [by_label.get(v) for v in variables]


def _agrees(value, exact) -> bool:
    import mpmath
    if value is None or not math.isfinite(value):
        return False
    return abs(mpmath.mpf(value) - exact) <= max(AGREEMENT * abs(exact), 2.0 ** -1074)


def _fmt(values) -> str:
    if values is None:
        return "—"
    return "[" + ", ".join("none" if v is None else f"{v:.17g}" for v in values) + "]"


def _ms(seconds) -> str:
    return "—" if seconds is None else f"{seconds * 1e3:.1f} ms"


def main(argv=None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--functions", type=int, default=200, help="random well-posed functions (default 200)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rounds", type=int, default=3, help="rounds of before and after, alternately (default 3)")
    parser.add_argument("--quick", action="store_true", help="20 functions, 1 round")
    parser.add_argument("--before", default=BEFORE, metavar="REV", help=f"the earlier revision (default {BEFORE})")
    args = parser.parse_args(argv)
    if args.quick:
        args.functions, args.rounds = 20, 1

    import common  # noqa: F401  (thread pins; the benchmarks directory on sys.path)
    import mpmath
    import verdict_quality as vq
    from common import ratio

    began = time.perf_counter()
    rng = random.Random(args.seed)
    corpus = well_posed(vq, rng, args.functions)          # (text, variables, point, exact gradient)
    corpus += [(t, list(p), p, named_exact(vq, i, p)) for i, (t, p) in enumerate(NAMED)]
    named_ids = set(range(args.functions, len(corpus)))
    payload = [{"id": i, "text": t, "at": p} for i, (t, _, p, _) in enumerate(corpus)]

    versions = ("before", "after")
    records = {v: {i: [] for i in range(len(corpus))} for v in versions}
    with tempfile.TemporaryDirectory(prefix="reference_quality_") as scratch:
        old = os.path.join(scratch, "before")
        os.mkdir(old)
        _extract(args.before, old)
        paths = {"before": old, "after": str(REPO)}
        for round_ in range(args.rounds):
            for version in (versions if round_ % 2 == 0 else versions[::-1]):
                t0 = time.perf_counter()
                for i, record in run_version(paths[version], payload, scratch, version).items():
                    records[version][i].append(record)
                print(f"round {round_ + 1}/{args.rounds}: {version} in {time.perf_counter() - t0:.0f} s",
                      file=sys.stderr, flush=True)
    elapsed = time.perf_counter() - began

    n, total = args.functions, len(corpus)
    title = {"before": f"before ({args.before})", "after": "after (working tree)"}

    def first_value(version, i):
        for r in records[version][i]:
            values = _values(r, corpus[i][1])
            if values is not None:
                return values
        return None

    def median_of(version, i, key):
        xs = [r[key] for r in records[version][i] if not r.get("error") and not r.get("hard_timeout")
              and r.get(key) is not None]
        return statistics.median(xs) if xs else None

    # (1) failures
    kinds = {v: {i: failures_of(records[v][i]) for i in range(total)} for v in versions}
    labels = [("unavailable", "reference unavailable"), ("trusted", f"an entry trusted to < {TRUSTED_DIGITS} digits"),
              ("uncertain", "an entry marked uncertain"), ("timeout", "reference timed out (its own budget)"),
              ("killed", f"compare killed after {HARD_TIMEOUT:g} s"),
              ("crash", "crash (an exception, or the worker died)")]

    def count(v, pred):
        k = sum(1 for i in range(total) if pred(kinds[v][i]))
        return f"{k} of {total} ({100 * k / total:.1f} %)"
    rows = [(label,) + tuple(count(v, lambda s, key=key: key in s) for v in versions) for key, label in labels]
    rows.append(("**any of these**",) + tuple(count(v, bool) for v in versions))
    out = [f"## Reference quality: {title['before']} and {title['after']}\n\n"
           f"{n} random well-posed functions of 1 to 4 variables (seed {args.seed}) and {len(NAMED)} named cases; "
           f"`compare(text, at=point, methods=\"autograd\", repeat=1)` in a subprocess per version, {args.rounds} "
           f"round(s) alternately; whole run {elapsed:.0f} s.\n"]
    out.append(_table("Reference failures", ("what", title["before"], title["after"]), rows,
                      ["a function counts under a kind if any round showed it; the kinds overlap"]))
    failing = [i for i in range(total) if kinds["before"][i] or kinds["after"][i]]

    def said(v, i):
        texts = [_summary(r) for r in records[v][i]]
        distinct = list(dict.fromkeys(texts))
        if len(distinct) == 1:
            return _cell(distinct[0])
        return _cell("; ".join(f"{texts.count(t)}/{len(texts)} rounds: {t}" for t in distinct), 300)
    out.append(_table("Functions where some version's reference failed", ("#", "function", "point", title["before"],
                                                                          title["after"]),
                      [(i, f"`{_cell(corpus[i][0], 80)}`", _cell(corpus[i][2]), said("before", i), said("after", i))
                       for i in failing] or [("—", "none", "", "", "")]))

    # (2) correctness against the dual-number gradient
    verdict = {}
    for v in versions:
        for i in range(total):
            values = first_value(v, i)
            if values is None:
                verdict[v, i] = "no value"
            elif all(_agrees(x, e) for x, e in zip(values, corpus[i][3])):
                verdict[v, i] = "agrees"
            else:
                verdict[v, i] = "disagrees"
    rows = [(what,) + tuple(f"{sum(verdict[v, i] == key for i in range(total))} of {total}" for v in versions)
            for key, what in [("agrees", f"agrees within {AGREEMENT:g} relative"),
                              ("disagrees", f"disagrees beyond {AGREEMENT:g} relative"),
                              ("no value", "no reference value (some entry missing)")]]
    out.append(_table("Correctness: the reference against verdict_quality's dual-number gradient (mpmath, 60 digits)",
                      ("what", title["before"], title["after"]), rows,
                      ["the exact gradient at exactly the binary64 point, by code that shares nothing with the tool; "
                       "an exact 0 must be matched to within the smallest subnormal",
                       "values from the first round that had them"]))
    differ, unstable = [], []
    for i in range(total):
        a, b = first_value("before", i), first_value("after", i)
        if a is not None and b is not None and a != b:
            differ.append(i)
        for v in versions:
            seen = {json.dumps(_values(r, corpus[i][1])) for r in records[v][i] if _values(r, corpus[i][1]) is not None}
            if len(seen) > 1:
                unstable.append((v, i))
    wrong = [i for i in range(total) if "disagrees" in (verdict["before", i], verdict["after", i])]
    shown = sorted(set(differ) | set(wrong))
    exact_text = {i: "[" + ", ".join(mpmath.nstr(e, 17) for e in corpus[i][3]) + "]" for i in shown}
    out.append(_table("References that differ between versions or disagree with the dual numbers",
                      ("#", "function", "point", title["before"], title["after"], "dual numbers", "agrees"),
                      [(i, f"`{_cell(corpus[i][0], 80)}`", _cell(corpus[i][2]), _fmt(first_value("before", i)),
                        _fmt(first_value("after", i)), exact_text[i],
                        " and ".join(v for v in versions if verdict[v, i] == "agrees") or "neither")
                       for i in shown] or [("—", "none", "", "", "", "", "")],
                      [f"{len(differ)} function(s) whose values differ in any bit between the versions"] +
                      [f"{v}: function {i}'s reference changed between rounds" for v, i in unstable]))

    # (3) speed
    rows = []
    for group in ("all", 1, 2, 3, 4):
        ids = [i for i in range(n) if group == "all" or len(corpus[i][1]) == group]
        cells = [str(len(ids))]
        stats = {}
        for v in versions:
            xs = [s for s in (median_of(v, i, "seconds") for i in ids) if s is not None]
            stats[v] = (statistics.median(xs), max(xs)) if xs else (None, None)
        b, a = stats["before"], stats["after"]
        cells += [_ms(b[0]), _ms(a[0]), ratio(a[0] / b[0]) if a[0] and b[0] else "—",
                  _ms(b[1]), _ms(a[1]), ratio(a[1] / b[1]) if a[1] and b[1] else "—"]
        rows.append((group,) + tuple(cells))
    calls = {v: [s for s in (median_of(v, i, "compare_seconds") for i in range(n)) if s is not None] for v in versions}
    call_b, call_a = statistics.median(calls["before"]), statistics.median(calls["after"])
    worst = []
    for v in versions:
        timed = [(median_of(v, i, "seconds"), i) for i in range(n) if median_of(v, i, "seconds") is not None]
        if timed:
            s, i = max(timed)
            other = median_of(versions[1 - versions.index(v)], i, "seconds")
            worst.append(f"{v}'s worst: #{i} `{_cell(corpus[i][0], 80)}`, {_ms(s)} ({_ms(other)} in the other version)")
    out.append(_table("Speed: reference seconds (per-function medians over the rounds)",
                      ("variables", "functions", "before median", "after median", "after/before (median)",
                       "before worst", "after worst", "after/before (worst)"), rows,
                      [f"the {n} random functions (the named cases are below); a crash has no time",
                       f"the whole compare call, median: {_ms(call_b)} before, {_ms(call_a)} after "
                       f"({ratio(call_a / call_b)})",
                       "absolute times move with the machine's load; the ratios are the figures"] + worst))

    # (4) named cases
    rows = []
    for i in sorted(named_ids):
        row = [f"`{corpus[i][0]}`", _cell(corpus[i][2])]
        for v in versions:
            row += [_ms(median_of(v, i, "seconds")), _fmt(first_value(v, i)) + ("" if not kinds[v][i] else
                                                                                f" ({said(v, i)})")]
        row.append("[" + ", ".join(mpmath.nstr(e, 17) for e in corpus[i][3]) + "]")
        rows.append(tuple(row))
    out.append(_table("The named cases", ("function", "point", "before: reference time", "before: value",
                                          "after: reference time", "after: value", "dual numbers"), rows))
    return "\n".join(out)


if __name__ == "__main__":
    if sys.argv[1:] == ["--worker"]:
        worker()
    else:
        print(main(sys.argv[1:]))
