"""From "PyTorch backward" (EDUCBA): B = A * 4 on a scalar A, then B.backward().

Teaches: backward() on a scalar needs no argument; the gradient lands in the leaf's .grad
(dB/dA = 4), and the recorded node is MulBackward0.
"""

import diffcompare
from diffcompare import autograd as ag

A = ag.tensor(2.0, requires_grad=True)
B = A * 4
print("B =", B)                    # tensor(8., grad_fn=<MulBackward0>)
B.backward()
print("A.grad.data =", A.grad.data)
assert A.grad.item() == 4.0 and type(B.grad_fn).__name__ == "MulBackward0"

# Three ways, and the backward pass node by node.
report = diffcompare.compare("A * 4", at={"A": 2.0}, repeat=1)
print("three-way comparison:", report.verdicts())
assert report.exit_status == 0
walk = diffcompare.explain("A * 4", at={"A": 2.0})
print(walk.render("text"))
assert [step.name for step in walk.steps] == ["MulBackward0", "AccumulateGrad"]
