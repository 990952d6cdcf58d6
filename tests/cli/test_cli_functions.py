"""``compare`` and ``explain`` take module:function (imported from the current directory, as
the audit imports a suite's functions); a function the engine cannot trace (NumPy functions
on its tensors, math on its tensors) gets every method that can run on it, and autograd is
'not applicable' with the reason: never 'wrong'."""

from __future__ import annotations

import json
import math

import pytest
from cli_runner import run

from diffcompare import autograd as ag

OPS = '''
import math
import numpy as np
from diffcompare.language.functions import exp, sin

def swish(x, y):
    return x * exp(y) * sin(x)

def with_numpy(x, y):
    return np.dot([x, y], [x, y])

def with_math(x):
    return math.sin(x) * 2
'''


@pytest.fixture
def here(tmp_path, monkeypatch):
    (tmp_path / "user_fns.py").write_text(OPS)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _methods(out):
    return {m["name"]: m for m in json.loads(out)["methods"]}


def test_compare_takes_module_function(here, capsys):
    code, out = run(["compare", "user_fns:swish", "--at", "x=1,y=2", "--methods", "autograd,forward-mode,central-difference",
                     "--repeat", "1", "--format", "json"], capsys)
    assert code == 0
    methods = _methods(out.out)
    # d/dx x e^y sin x = e^y (sin x + x cos x); d/dy = x e^y sin x: by hand
    want = [math.exp(2) * (math.sin(1) + math.cos(1)), math.exp(2) * math.sin(1)]
    for name in ("autograd", "forward-mode"):
        assert methods[name]["values"] == pytest.approx(want, rel=1e-15)


def test_explain_takes_module_function(here, capsys):
    code, out = run(["explain", "user_fns:swish", "--at", "x=1,y=2"], capsys)
    assert code == 0 and "SinBackward0" in out.out and "user_fns:swish" in out.out


def test_numpy_on_tensors_is_not_applicable_not_wrong(here, capsys):
    code, out = run(["compare", "user_fns:with_numpy", "--at", "x=1,y=2", "--repeat", "1", "--format", "json"],
                    capsys)
    methods = _methods(out.out)
    assert methods["autograd"]["status"] == "not applicable"
    assert "hands the engine's tensors to NumPy" in methods["autograd"]["reason"]
    assert methods["central-difference"]["verdict"] == "pass"       # 2x and 2y, judged against SymPy's exact derivative
    assert code == 0


def test_math_on_tensors_is_not_applicable_not_wrong(here, capsys):
    code, out = run(["compare", "user_fns:with_math", "--at", "x=1", "--methods", "autograd,central-difference", "--repeat", "1",
                     "--format", "json"], capsys)
    methods = _methods(out.out)
    assert methods["autograd"]["status"] == "not applicable"
    assert "plain numbers" in methods["autograd"]["reason"]
    assert code != 1


def test_unknown_function_is_a_clear_error(here, capsys):
    code, out = run(["compare", "user_fns:swisj", "--at", "x=1,y=2"], capsys)
    assert code == 2 and "has no 'swisj'" in out.err and "swish" in out.err


def test_numpy_refuses_a_tensor_that_requires_grad_as_pytorch_does():
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    import numpy as np
    with pytest.raises(RuntimeError, match="Can't call numpy\\(\\) on Tensor that requires grad"):
        np.dot(x, x)
    assert float(np.dot(x.detach(), x.detach())) == 5.0


def test_the_audit_calls_an_untraceable_function_bad_input_not_wrong(here, capsys):
    import diffcompare
    for name in ("with_numpy", "with_math"):
        report = diffcompare.audit(f"user_fns:{name}", at=[{"x": 1.0, "y": 2.0}] if name == "with_numpy"
                                   else [{"x": 1.0}])
        case = report.cases[0]
        assert case.status == "error" and "cannot audit f with the engine" in case.error, case.findings
        assert report.exit_status == 2


@pytest.mark.parametrize("method, package, engine", [("torch", "torch", "PyTorch"), ("jax", "jax", "JAX")])
def test_peer_engines_on_numpy_code_are_not_applicable(here, capsys, method, package, engine):
    pytest.importorskip(package)
    (here / "np_fns.py").write_text("import numpy as np\n\ndef f(x):\n    return np.sin(x) * x\n")
    code, out = run(["compare", "np_fns:f", "--at", "x=1", "--methods", f"{method},central", "--repeat", "1",
                     "--format", "json"], capsys)
    methods = _methods(out.out)
    assert methods[method]["status"] == "not applicable", methods[method]
    assert f"so {engine} cannot trace it" in methods[method]["reason"]
    assert code != 1
