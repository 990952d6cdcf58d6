"""A kink the verdict did not judge (a difference stencil across it) is never shown as a
method's worst point, nor counted in its errors, beside a pass."""

import numpy as np

import diffcompare


def test_the_worst_point_of_a_pass_is_a_judged_point():
    # f = relu(x)·x + |x| on a grid of 9 points over [-1, 1]: x = 0 is a kink, where forward
    # differences (a one-sided stencil) give 1 + h-ish, outside the subgradient interval [-1, 1]
    c = diffcompare.compare("relu(x)*x + abs(x)", at={"x": 0.0}, box="x=-1:1", points=9, grid=True,
                            methods="autograd,forward-difference,central-difference", repeat=1)
    grid = np.linspace(-1.0, 1.0, 9)
    kink = int(np.flatnonzero(grid == 0.0)[0])
    forward = c.method("forward-difference")
    assert forward.verdict == "pass" and kink in forward.unjudged
    for m in c.methods:
        if m.worst is not None:
            assert m.worst["point"] != kink, (m.name, m.worst)
    # elsewhere f' is 2x + 1 (x > 0) or -1 (x < 0): forward's error there is its truncation h·f''/2 = h
    # for x > 0 and 0 for x < 0, so its worst point is one where x > 0
    assert c.points.flat[forward.worst["point"]][0] > 0
    text = " ".join(c.render("text", width=200).split())
    assert f"forward-difference: worst ∂f/∂x = {forward.worst['value']!r}" in text
