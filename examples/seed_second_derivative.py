"""retain_graph and create_graph, from the articles' parameter lists: a second backward
pass through the same graph, and the derivative of a derivative.

Teaches: backward frees what the nodes saved unless retain_graph=True; create_graph=True
records the backward pass itself, so the gradient is a tensor with a grad_fn that can be
differentiated again (here f = x³: f' = 3x² = 27 and f'' = 6x = 18 at x = 3).
"""

import diffcompare
from diffcompare import autograd as ag

x = ag.tensor(3.0, requires_grad=True)
y = x ** 3

y.backward(retain_graph=True)
y.backward()                                    # allowed: the graph was retained
print("two passes accumulate 27 + 27:", x.grad)
assert x.grad.item() == 54.0
try:
    y.backward()                                # the graph is gone now
except RuntimeError as error:
    print("a third pass:", str(error).split(".")[0] + ".")

x.grad = None
y = x ** 3
(dy,) = ag.grad(y, x, create_graph=True)        # dy = 3x² as a differentiable tensor
print("f'(3) =", dy, "with grad_fn", type(dy.grad_fn).__name__)
dy.backward()                                   # d/dx 3x² = 6x
print("f''(3) =", x.grad)
assert dy.item() == 27.0 and x.grad.item() == 18.0

# Three ways: the Hessian (here 1x1) by double backward, SymPy and second differences.
report = diffcompare.compare("x**3", at={"x": 3.0}, kind="hessian", repeat=1)
print("three-way comparison of f'':", report.verdicts())
assert report.exit_status == 0 and float(report.method("autograd").estimate.values.ravel()[0]) == 18.0
