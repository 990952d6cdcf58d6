"""steps reproduces the literature's figures from the commands its --help documents:
Baydin et al. (2018), Figure 3 (forward and centre differences of the logistic map's l4
at x = 0.2), and Squire and Trapp (1998) (the complex step against differences for
e^x / sqrt(sin³x + cos³x) at 1.5). The errors are derived here with mpmath, independently
of the tool."""

import json
import shlex

import mpmath
import pytest

from diffcompare.cli import help as texts
from diffcompare.cli.main import main


def documented(marker):
    """The argv of the example command under the line of the epilog that names ``marker``."""
    lines = texts.STEPS_EPILOG.splitlines()
    k = next(i for i, line in enumerate(lines) if marker in line)
    return shlex.split(lines[k + 1])[1:]


def report(argv, capsys):
    code = main(argv + ["--format", "json"])
    return code, json.loads(capsys.readouterr().out)


def logistic(x):
    return 64 * x * (1 - x) * (1 - 2 * x) ** 2 * (1 - 8 * x + 8 * x ** 2) ** 2


def test_baydin_figure_3(capsys):
    argv = documented("Baydin et al. (2018), Figure 3")
    code, data = report(argv, capsys)
    assert code == 0 and data["error"] == "absolute" and data["h_axis"] == "increasing"
    assert {(c["scheme"], c["dtype"]) for c in data["curves"]} == {("forward", "float64"), ("central", "float64")}
    assert min(data["steps"]) == 1e-16 and max(data["steps"]) == 1e-1
    forward = next(c for c in data["curves"] if c["scheme"] == "forward")
    with mpmath.workdps(50):
        x = mpmath.mpf(0.2)                                   # the binary64 point
        exact = mpmath.diff(logistic, x)
        for h in (1e-2, 1e-3, 1e-4, 1e-5):
            # the forward difference in exact arithmetic at the binary64 samples x and x + h (rounded as
            # binary64 adds them): where truncation dominates, f's own rounding is far below the error
            moved = mpmath.mpf(0.2 + h)
            error = abs((logistic(moved) - logistic(x)) / h - exact)
            k = data["steps"].index(h)
            assert forward["abs_errors"][k] == pytest.approx(float(error), rel=1e-6), h
            assert forward["regimes"][k] == "truncation"
    assert forward["regimes"][data["steps"].index(1e-14)] == "round-off"
    assert data["exact"] == pytest.approx(float(exact), rel=1e-15)


def test_squire_trapp(capsys):
    argv = documented("Squire and Trapp (1998)")
    code, data = report(argv, capsys)
    assert code == 0 and [c["scheme"] for c in data["curves"]] == ["forward", "central", "complex-step"]
    with mpmath.workdps(40):
        exact = mpmath.diff(lambda x: mpmath.exp(x) / mpmath.sqrt(mpmath.sin(x) ** 3 + mpmath.cos(x) ** 3),
                            mpmath.mpf(1.5))
    complex_step = next(c for c in data["curves"] if c["scheme"] == "complex-step")
    central = next(c for c in data["curves"] if c["scheme"] == "central")
    for h, error, rounding in zip(data["steps"], complex_step["abs_errors"], central["abs_errors"]):
        if h <= 1e-9:
            # no subtraction: a few ulps of f'(x) at every small h, where the differences have lost every digit
            assert error <= 4 * 2.0 ** -52 * float(exact) and rounding > 1e3 * error
    # h = 1e-2: both are truncation, h²|f'''|/6; the complex step's truncation is the same size
    with mpmath.workdps(40):
        third = mpmath.diff(lambda x: mpmath.exp(x) / mpmath.sqrt(mpmath.sin(x) ** 3 + mpmath.cos(x) ** 3),
                            mpmath.mpf(1.5), 3)
    k = data["steps"].index(1e-2)
    assert complex_step["abs_errors"][k] == pytest.approx(float(abs(third)) * 1e-4 / 6, rel=0.05)
    assert central["abs_errors"][k] == pytest.approx(float(abs(third)) * 1e-4 / 6, rel=0.05)
