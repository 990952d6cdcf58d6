"""Three ways to differentiate, side by side, against an exact reference.

Teaches: what reverse-mode AD, SymPy and finite differences each get right and what each
costs; why the complex step reaches full precision where central differences stop at
ten digits; and what happens when SymPy cannot see through a Python function.
"""

import diffcompare
from diffcompare.functions import cos, exp, sin, sqrt

# 1. The Squire–Trapp function at 1.5, from text: its exact derivative is
#    4.05342789389862065771418792561...
report = diffcompare.compare("exp(x)/sqrt(sin(x)**3 + cos(x)**3)", at={"x": 1.5}, repeat=3)
print(report.render("text"))
assert report.reference.text("x", 25) == "4.053427893898620657714188"
assert report.method("complex-step").entry("x").rel_error <= 1e-15
assert report.method("central-difference").entry("x").rel_error <= 1e-9


# 2. The same function as ordinary Python: diffcompare.functions follow their arguments
#    (floats, complex numbers, mpmath, SymPy symbols, engine tensors), so every method runs.
def squire_trapp(x):
    return exp(x) / sqrt(sin(x) ** 3 + cos(x) ** 3)


same = diffcompare.compare(squire_trapp, at={"x": 1.5}, methods="autograd,symbolic,complex-step", repeat=3)
assert same.reference.text("x") == report.reference.text("x")


# 3. A branch on a value: SymPy cannot trace it, so the symbolic row says why and the
#    reference becomes mpmath's high-precision numerical derivative, labelled as such.
def piecewise(x):
    if x > 0:
        return x ** 3
    return -x


fallback = diffcompare.compare(piecewise, at={"x": 1.5}, methods="autograd,symbolic,central-difference", repeat=3)
print(fallback.render("text"))
assert fallback.reference.source == "mpmath"
assert fallback.method("autograd").entry("x").value == 6.75          # 3 x² at 1.5
