"""From "Understanding and Introspecting torch.autograd.backward": looking inside the
backward pass with grad_fn, autograd.grad(..., retain_graph=True) and detect_anomaly.

Teaches: a non-leaf tensor knows the node that made it (grad_fn) and that node knows its
inputs (next_functions); autograd.grad returns gradients instead of accumulating them,
and retain_graph keeps the graph for another pass; anomaly mode names the backward
function that produced a nan and shows where its forward ran.
"""

import warnings

import diffcompare
from diffcompare import autograd as ag

x = ag.tensor([2.0, 3.0, 4.0], requires_grad=True)
y = (x ** 2).sum()
print("y.grad_fn:", y.grad_fn, "-> next_functions:", y.grad_fn.next_functions)
print("x.grad_fn:", x.grad_fn, "(x is a leaf: no node made it)")
assert type(y.grad_fn).__name__ == "SumBackward0" and x.grad_fn is None

(first,) = ag.grad(y, x, retain_graph=True)      # the graph is kept ...
(again,) = ag.grad(y, x)                         # ... so a second pass works
print("autograd.grad twice:", first, again, "and x.grad is still", x.grad)
assert first.tolist() == again.tolist() == [4.0, 6.0, 8.0] and x.grad is None

# detect_anomaly: sqrt(x) * 0 at x = 0 has a nan gradient (0 * 1/(2 sqrt 0) = 0 * inf).
x = ag.tensor([0.0, 1.0], requires_grad=True)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    with ag.detect_anomaly():
        y = (ag.sqrt(x) * 0).sum()
        try:
            y.backward()
        except RuntimeError as error:
            print("detect_anomaly:", error)
            message = str(error)
assert "SqrtBackward0" in message
assert any("Traceback of forward call" in str(w.message) for w in caught)

# Three ways on the first example: the gradient of sum(x**2) is 2x.
report = diffcompare.compare("sum(x**2)", at={"x": [2.0, 3.0, 4.0]}, repeat=1)
print("three-way comparison:", report.verdicts())
assert report.exit_status == 0 and report.method("autograd").estimate.values[0].tolist() == [4.0, 6.0, 8.0]
