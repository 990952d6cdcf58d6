"""swell: sizes of f, SymPy's derivative, cse and the engine's graph as n grows; sizes
checked against counts derived by hand."""

import json

import pytest

import diffcompare
from diffcompare.lecture.swell import parse_ns
from diffcompare.problem.errors import InputError


def test_logistic_sizes_by_hand():
    r = diffcompare.swell("logistic", "1..6")
    # count_ops of l_n = 4 l (1 - l): s_1 = 3 (two products, one subtraction), s_{n+1} = 2 s_n + 2
    sizes = [3]
    for _ in range(5):
        sizes.append(2 * sizes[-1] + 2)
    assert [row.size_f for row in r.rows] == sizes
    # the engine: three nodes per iterate (1 - l, 4 l, the product) and the leaf
    assert [row.graph_nodes for row in r.rows] == [3 * n + 1 for n in range(1, 7)]
    ratios = [row.size_raw / row.size_f for row in r.rows]
    assert all(b > a for a, b in zip(ratios, ratios[1:]))          # the raw derivative outgrows f
    assert r.rows[-1].size_cse < r.rows[-1].size_raw / 10           # cse tames it
    assert all(row.agreement < 1e-12 for row in r.rows)


def test_nested_sin_and_sines():
    nested = diffcompare.swell("nested-sin", [1, 2, 4, 8])
    assert [row.size_f for row in nested.rows] == [1, 2, 4, 8]
    assert [row.graph_nodes for row in nested.rows] == [2, 3, 5, 9]
    sines = diffcompare.swell("sines", [1, 2, 4, 8])
    # f: n sines and n - 1 products; each partial: n - 1 sines, a cosine, n - 1 products
    assert [row.size_f for row in sines.rows] == [2 * n - 1 for n in (1, 2, 4, 8)]
    assert [row.size_raw for row in sines.rows] == [n * (2 * n - 1) for n in (1, 2, 4, 8)]
    assert all(row.agreement < 1e-14 for row in sines.rows)


def test_rosenbrock_mlp_and_template_run():
    for family, ns, template in (("rosenbrock", "2..4", None), ("mlp", "1..2", None),
                                 ("template", "1..3", "sin(y) * x + y")):
        r = diffcompare.swell(family, ns, template=template)
        assert all(row.symbolic == "ok" and row.agreement < 1e-12 for row in r.rows), family


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")   # an alarm a gc callback drops
def test_sympy_budget_stops_sympy_not_the_engine():
    # n = 14 takes SymPy seconds (a million-operation derivative): it cannot finish in 0.5 s (a budget
    # of 0.05 s repeats its alarm faster than pytest can report a time-out that landed in a __del__)
    r = diffcompare.swell("logistic", "14,15", timeout=0.5)
    assert [row.graph_nodes for row in r.rows] == [43, 46] and r.rows[-1].backward_seconds is not None
    assert r.rows[0].symbolic.startswith("timed out") and r.rows[1].symbolic.startswith("skipped")
    assert r.rows[1].size_raw is None and "budget" in r.notes[0]


def test_formats_and_png(tmp_path):
    r = diffcompare.swell("nested-sin", "1..4")
    data = json.loads(r.render("json"))
    assert data["report"] == "swell" and [row["n"] for row in data["rows"]] == [1, 2, 3, 4]
    assert "the engine's graph ×" in r.render("text", width=200)
    assert r.render("markdown").count("\n| ") == 5
    pytest.importorskip("matplotlib")
    from diffcompare.render.plots import swell_png
    swell_png(r, tmp_path / "swell.png")
    assert (tmp_path / "swell.png").read_bytes()[:4] == b"\x89PNG"


def test_parse_ns():
    assert parse_ns("2..10..2") == [2, 4, 6, 8, 10]
    assert parse_ns("1..64..x2") == [1, 2, 4, 8, 16, 32, 64]
    for bad, message in (("5..1", "down to"), ("0..3", "at least 1"), ("a..b", "expected a range"),
                         ("1..8..x1", "at least 2"), ("1..1000000", "at most")):
        with pytest.raises(InputError, match=message):
            parse_ns(bad)


@pytest.mark.parametrize("family, template, message", [
    ("logistc", None, "did you mean 'logistic'"),
    ("template", None, "needs template="),
    ("template", "sin(x)", "does not use y"),
    ("logistic", "sin(y)", "for the template family"),
])
def test_bad_requests(family, template, message):
    with pytest.raises(InputError, match=message):
        diffcompare.swell(family, "1..2", template=template)


def test_a_time_out_swallowed_by_a_gc_callback_is_raised_again_and_never_printed(monkeypatch):
    """Python drops an exception raised inside a gc callback and hands it to
    sys.unraisablehook (whose default prints a traceback); the budget's alarm repeats, and the
    dropped time-out never reaches the hook in place before the budget."""
    import gc
    import sys
    import time

    from diffcompare.methods.budget import TimedOut, time_limit

    seen = []

    def hook(unraisable):
        seen.append(unraisable.exc_value)
    monkeypatch.setattr(sys, "unraisablehook", hook)
    interrupted = []

    def slow_callback(phase, info):
        if phase == "start" and not interrupted:
            end = time.perf_counter() + 3
            try:
                while time.perf_counter() < end:       # the first alarm fires in here and is dropped
                    sum(range(100))
            except BaseException:
                interrupted.append(True)
                raise
    gc.callbacks.append(slow_callback)
    try:
        with pytest.raises(TimedOut):
            with time_limit(0.2):
                gc.collect()
                deadline = time.perf_counter() + 5
                while time.perf_counter() < deadline:
                    sum(range(100))
    finally:
        gc.callbacks.remove(slow_callback)
    assert interrupted == [True]
    assert seen == [] and sys.unraisablehook is hook
    # other exceptions Python cannot raise still reach the hook in place before
    class Finalized:
        def __del__(self):
            raise ValueError("from __del__")
    with time_limit(5):
        Finalized()
    assert [type(e) for e in seen] == [ValueError]
