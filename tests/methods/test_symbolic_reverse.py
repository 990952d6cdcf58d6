"""Symbolic reverse mode: the reverse sweep on SymPy expressions, every intermediate a symbol.
Values are held to hand-derived derivatives or to sympy.diff of the whole expression (a route
that shares nothing with the node-by-node sweep); sizes on the logistic map are linear in n."""

import json
import math
import sys

import numpy as np
import pytest

import diffcompare
from diffcompare.language import functions as F
from diffcompare.language.table import ROWS
from diffcompare.lecture.swell import FAMILIES
from diffcompare.methods import symengine_backend
from diffcompare.methods.estimate import NOT_APPLICABLE, OK, TIMED_OUT
from diffcompare.methods.symbolic import differentiate
from diffcompare.methods.symbolic_reverse import (
    DECOMPOSED,
    TRACED,
    symbolic_reverse,
    symbolic_reverse_entries,
    trace,
)
from diffcompare.problem.errors import InputError
from diffcompare.problem.points import Points, single
from diffcompare.problem.problem import make_problem
from diffcompare.problem.tasks import make_task


def _gradient(problem):
    r = symbolic_reverse(problem)
    assert r.status == "ok", r.reason
    return np.array(r.function(*problem.flat_point()), dtype=np.float64), r


def test_gradient_by_hand():
    g, r = _gradient(make_problem("sin(x) * exp(y)", {"x": 1.0, "y": 2.0}))
    assert g == pytest.approx([math.exp(2) * math.cos(1), math.exp(2) * math.sin(1)], rel=1e-15)
    assert r.how == TRACED and r.program.lines()[-2:] == ["∂f/∂x = t2*cos(x)", "∂f/∂y = t1*t2"]


def test_one_logistic_step_written_out():
    # f = (4x)(1 - x): t1 = 4x, t2 = 1 - x, f = t1 t2; back: ∂f/∂t1 = t2, ∂f/∂t2 = t1, so
    # ∂f/∂x = 4 t2 - t1: three operations forward, three back, one program of 4 operations
    r = symbolic_reverse(make_problem(lambda x: 4 * x * (1 - x), {"x": 0.3}))
    assert r.forward.lines() == ["t1 = 4*x", "t2 = 1 - x", "t3 = t1*t2", "out[0] = t3"]
    assert r.program.lines() == ["t1 = 4*x", "t2 = 1 - x", "∂f/∂x = -t1 + 4*t2"]
    assert (r.size_f, r.size) == (3, 4)
    assert float(r.function(0.3)[0]) == pytest.approx(4 - 8 * 0.3, rel=1e-15)


def test_logistic_sizes_grow_linearly_like_f_not_like_the_raw_derivative():
    build = FAMILIES["logistic"][0]
    sizes, forward = [], []
    for n in range(1, 21):
        f, point = build(n)
        g, r = _gradient(make_problem(f, point))
        sizes.append(r.size)
        forward.append(r.size_f)
        # by hand: l_{k+1} = 4 l_k (1 - l_k), so dl_n/dx = Π (4 - 8 l_k) over k < n (l_0 = x)
        chain, l = 1.0, 0.3
        for _ in range(n):
            chain *= 4 - 8 * l
            l = (4 * l) * (1 - l)
        assert g[0] == pytest.approx(chain, rel=1e-12), n
    assert forward == [3 * n for n in range(1, 21)]            # three operations per step, as f performs them
    steps = {b - a for a, b in zip(sizes, sizes[1:])}
    assert len(steps) == 1 and steps.pop() <= 3 * 3              # one constant step: linear in n, within 3x f's
    # the raw derivative outgrows f, and its growth is not linear (SymPy, n = 1..6 only: it swells)
    raw = [differentiate(make_problem(*build(n))).size_raw for n in range(1, 7)]
    growth = np.diff(raw)
    assert all(growth[1:] > growth[:-1])
    assert raw[-1] > 10 * sizes[5]


def test_every_differentiable_row_against_sympy_diff():
    checked = []
    for row in ROWS.values():
        if row.is_constant or row.syntax or not row.samples:
            continue
        names = "abc"[:row.arity]
        if row.is_operator:
            text = f"{row.symbol}a" if row.arity == 1 else f"a {row.symbol} b"
        else:
            text = f"{row.name}({', '.join(names)})"
        if row.name in ("sum", "prod", "mean", "norm"):
            text = f"{row.name}(a * a)"
        if row.name == "matmul":
            text = "sum(a @ b)"
        at = {n: (v.tolist() if isinstance(v, np.ndarray) else v) for n, v in zip(names, row.samples[0])}
        problem = make_problem(text, at)
        g, r = _gradient(problem)
        expected = differentiate(problem)
        assert expected.status == "ok", text
        want = np.array(expected.function(*problem.flat_point()), dtype=np.float64)
        assert g == pytest.approx(want, rel=1e-13, abs=1e-15), text
        assert r.how == TRACED, text
        checked.append(row.name)
    assert len(checked) >= 40 and {"sigmoid", "softplus", "clamp", "cbrt", "atan2", "norm", "matmul"} <= set(checked)


def test_subscripts_vectors_and_arrays_by_hand():
    v = [1.0, 2.0, 3.0]
    g, _ = _gradient(make_problem("sum(v * v) + v[0] * sin(v[2])", {"v": v}))
    assert g == pytest.approx([2 + math.sin(3), 4, 6 + math.cos(3)], rel=1e-15)
    g, _ = _gradient(make_problem("norm([x, y])", {"x": 3.0, "y": 4.0}))
    assert g == pytest.approx([0.6, 0.8], rel=1e-15)
    g, _ = _gradient(make_problem("x @ A @ x", {"x": [1.0, 2.0], "A": [[1.0, 2.0], [3.0, 4.0]]}))
    # xᵀAx: ∂/∂x = (A + Aᵀ) x = [12, 21]; ∂/∂A = x xᵀ = [1, 2, 2, 4]
    assert g == pytest.approx([12, 21, 1, 2, 2, 4], rel=1e-15)


def test_callables_traced_and_decomposed():
    _, r = _gradient(make_problem(lambda x: np.sin(x) * np.exp(x), {"x": 0.5}))
    assert r.how == TRACED and len(r.forward.assignments) == 3
    # erf's NumPy form is not a ufunc: f is taken from SymPy's expression, node by node
    g, r = _gradient(make_problem(lambda x, y: F.erf(x) * y, {"x": 0.5, "y": 2.0}))
    d = 2 / math.sqrt(math.pi) * math.exp(-0.25)           # erf'(x) = 2/√π e^(-x²)
    assert r.how == DECOMPOSED and g == pytest.approx([2 * d, math.erf(0.5)], rel=1e-14)
    # sigmoid's is 1 / (1 + exp(-x)), ufuncs all: traced
    g, r = _gradient(make_problem(lambda x, y: F.sigmoid(x) * y, {"x": 0.5, "y": 2.0}))
    s = 1 / (1 + math.exp(-0.5))
    assert r.how == TRACED and g == pytest.approx([2 * s * (1 - s), s], rel=1e-14)


def test_a_shared_intermediate_is_one_symbol():
    program, _ = trace(make_problem("sin(x)**2 + sin(x)", {"x": 0.4}))
    assert sum("sin(x)" in line for line in program.lines()) == 1


def test_tasks_by_hand():
    p = make_problem("[x*y*z, sin(x)*exp(z)]", {"x": 1, "y": 2, "z": 3})
    j = [[6, 3, 2], [math.cos(1) * math.exp(3), 0, math.sin(1) * math.exp(3)]]
    for kind, vector, want in (("jacobian", None, j), ("vjp", "1,2", np.array([1, 2]) @ np.array(j)),
                               ("jvp", "1,2,3", np.array(j) @ np.array([1, 2, 3]))):
        e = symbolic_reverse_entries(p, make_task(p, kind, vector), single(p), batches=1)
        assert e.status == OK and e.values[0] == pytest.approx(np.asarray(want), rel=1e-14), kind
    p = make_problem("x*y**2*sin(z)", {"x": 1, "y": 2, "z": 3})
    e = symbolic_reverse_entries(p, make_task(p, "hessian"), single(p), batches=1)
    s, c = math.sin(3), math.cos(3)
    hessian = [[0, 4 * s, 4 * c], [4 * s, 2 * s, 4 * c], [4 * c, 4 * c, -4 * s]]
    assert e.status == OK and e.values[0] == pytest.approx(np.array(hessian), rel=1e-14, abs=1e-15)


def test_the_method_on_many_points_and_its_details():
    p = make_problem("x**3 * y", {"x": 2, "y": 5})
    flat = np.random.default_rng(0).uniform(-2, 2, (50, 2))
    e = symbolic_reverse_entries(p, make_task(p, "gradient"), Points(flat, "random"), batches=1)
    x, y = flat[:, 0], flat[:, 1]
    assert e.method == "symbolic-reverse" and e.family == "symbolic" and e.details["vectorised"]
    assert e.values == pytest.approx(np.stack([3 * x ** 2 * y, x ** 3], axis=1), rel=1e-15)
    assert {"size_f", "size", "assignments", "how", "diff_seconds", "codegen_seconds", "work"} <= set(e.details)
    assert e.setup_seconds > 0


def test_what_it_cannot_follow_is_not_applicable():
    def branching(x):
        return x if x > 0 else -x
    p = make_problem(branching, {"x": 0.5})
    e = symbolic_reverse_entries(p, make_task(p, "gradient"), single(p), batches=1)
    assert e.status == NOT_APPLICABLE and "SymPy" in e.reason


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")   # an alarm a gc callback drops
def test_a_time_budget_stops_it():
    f, point = FAMILIES["mlp"][0](20)
    r = symbolic_reverse(make_problem(f, point), timeout=0.01)
    assert r.status == "timed out" and "during" in r.reason
    p = make_problem(f, point)
    e = symbolic_reverse_entries(p, make_task(p, "gradient"), single(p), batches=1, timeout=0.01)
    assert e.status == TIMED_OUT


def test_swell_shows_it_in_every_format(tmp_path):
    r = diffcompare.swell("logistic", "1..4")
    assert [row.size_reverse for row in r.rows] == [4, 11, 18, 25]       # 7n - 3
    assert [row.size_forward for row in r.rows] == [3, 6, 9, 12]
    assert all(row.reverse == "ok" and row.reverse_agreement < 1e-14 for row in r.rows)
    assert "symbolic reverse mode's gradient ×6.25, f's own program ×4" in r.render("text", width=250)
    data = json.loads(r.render("json"))
    assert data["rows"][-1]["symbolic_reverse"]["size"] == 25 and data["rows"][-1]["symengine"] is None
    assert data["schema_version"] == 2 and data["command"]["n"] == [1, 2, 3, 4]
    assert repr(r).startswith("<SwellReport: expression swell of logistic, from n=1 to n=4: ")
    assert "symbolic reverse" in r.render("markdown") and "symbolic reverse" in r.render("latex")
    narrow = r.render("text", width=80)
    assert "symbolic reverse" in narrow and "trace + sweep" in narrow and "not shown" not in narrow
    try:
        import jsonschema
    except ImportError:
        pass
    else:
        import importlib.resources
        schema = importlib.resources.files("diffcompare") / "schemas" / "swell.schema.json"
        jsonschema.validate(data, json.loads(schema.read_text(encoding="utf-8")))
    pytest.importorskip("matplotlib")
    from diffcompare.render.plots import swell_png
    swell_png(r, tmp_path / "swell.png")
    assert (tmp_path / "swell.png").read_bytes()[:4] == b"\x89PNG"


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")   # an alarm a gc callback drops
def test_swell_goes_on_past_sympy_s_budget():
    r = diffcompare.swell("logistic", "14,20", timeout=0.5)       # SymPy needs seconds at n = 14
    assert r.rows[1].symbolic.startswith("skipped") and r.rows[1].size_reverse == 7 * 20 - 3


def test_symengine_backend_in_swell():
    pytest.importorskip("symengine")
    r = diffcompare.swell("nested-sin", "1..3", symbolic_backend="symengine")
    assert all(row.symengine == "ok" and row.symengine_agreement < 1e-14 for row in r.rows)
    assert all(row.symengine_diff_seconds > 0 and row.symengine_codegen_seconds > 0 for row in r.rows)
    assert "symengine Lambdify" in r.render("text", width=250)
    assert json.loads(r.render("json"))["rows"][0]["symengine"]["status"] == "ok"
    # a function SymEngine does not know is said so, not differentiated as a constant
    t = diffcompare.swell("template", "1..2", template="log1p(y) * x", symbolic_backend="symengine")
    assert t.rows[0].symengine == "SymEngine does not know log1p"


def test_symengine_missing_is_one_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "symengine", None)     # find_spec: not installed
    assert not symengine_backend.available()
    with pytest.raises(InputError, match=r'needs SymEngine, which is not installed: pip install "symengine>=0.11"'):
        diffcompare.swell("logistic", "1..2", symbolic_backend="symengine")
    with pytest.raises(InputError, match="unknown symbolic backend 'symengin' \\(did you mean 'symengine'\\?\\)"):
        diffcompare.swell("logistic", "1..2", symbolic_backend="symengin")


def test_text_is_never_parsed_as_mathematics():
    # the traced outputs pass through sympify(strict=True): a string must be refused, not run
    import sympy

    from diffcompare.methods.symbolic_reverse import decompose
    marker = "__import__('os').environ.setdefault('DIFFCOMPARE_PARSED_TEXT', '1')"
    with pytest.raises(sympy.SympifyError):
        decompose([marker], (sympy.Symbol("x"),))
    import os
    assert "DIFFCOMPARE_PARSED_TEXT" not in os.environ
