"""Every op's first derivative passes gradcheck (float64, random inputs, broadcast shapes);
second derivatives pass gradgradcheck where the op is twice differentiable."""

import pytest

from diffcompare import autograd as ag

from op_catalogue import CASES


@pytest.mark.parametrize("case", CASES, ids=str)
def test_first_derivative(case):
    for seed in (0, 1):
        assert ag.gradcheck(case.bound(), case.inputs(seed))


@pytest.mark.parametrize("case", [c for c in CASES if c.twice], ids=str)
def test_second_derivative(case):
    assert ag.gradgradcheck(case.bound(), case.inputs(2))


@pytest.mark.parametrize("case", CASES[:6], ids=str)
def test_fast_mode_agrees(case):
    assert ag.gradcheck(case.bound(), case.inputs(3), fast_mode=True)
