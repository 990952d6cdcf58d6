"""Slides in three calls: the backward pass as a Markdown table, the finite-difference
step sweep, and expression swell, each from the Python API (the CLI commands explain,
steps and swell print the same reports).

Run: python examples/lecture_material.py > slides.md
"""

import math

import diffcompare

# 1. backward(v) on a vector output: the vector v flows backward, J is never formed.
walk = diffcompare.explain("[x*y, sin(x)*z, exp(y)]", at={"x": 1.0, "y": 2.0, "z": 3.0}, vector=[0.1, 1.0, 0.0001])
print(walk.render("markdown"))
# vᵀJ by hand: x: 0.1 y + z cos x, y: 0.1 x + 0.0001 e^y, z: sin x
expected = {"x": 0.1 * 2 + 3 * math.cos(1), "y": 0.1 + 0.0001 * math.exp(2), "z": math.sin(1)}
assert all(abs(float(walk.gradient[n]) - v) < 1e-15 for n, v in expected.items())

# 2. Truncation against rounding: the V-shaped error curves, float64 and float32.
sweep = diffcompare.step_sweep("exp(x)/sqrt(sin(x)**3 + cos(x)**3)", at={"x": 1.5})
print(sweep.render("markdown"))
central = sweep.curve("central-difference", "float64")
assert abs(math.log10(central.best_h / central.predicted_h)) <= 1

# 3. Expression swell: SymPy's raw derivative against the engine's graph.
swell = diffcompare.swell("logistic", "1..8")
print(swell.render("markdown"))
last = swell.rows[-1]
assert last.size_raw > 10 * last.size_f and last.graph_nodes < last.size_f
