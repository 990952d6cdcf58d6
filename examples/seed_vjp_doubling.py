"""From "How Pytorch Backward() function works": the implicit gradient of a sum, then
y = x * 2 doubled while its norm stays below 1000, and y.backward(v).

The article's loop reads `while < 1000:`, which is not Python; the intended condition is
`while y.data.norm() < 1000`. y = x * 2^k after k doublings in all, so J = 2^k I and
x.grad = v * 2^k: the vector v weighs the outputs, as the article explains.
"""

from diffcompare import autograd as ag

ag.manual_seed(4)
x = ag.randn(3, requires_grad=True)
y = x.sum()
y.backward()              # the same as y.backward(ag.tensor(1.))
print("gradient of a sum:", x.grad)
assert x.grad.tolist() == [1.0, 1.0, 1.0]

x = ag.randn(3, requires_grad=True)
y = x * 2
k = 1
while y.data.norm() < 1000:
    y = y * 2
    k += 1
v = ag.tensor([0.1, 1.0, 0.0001], dtype=ag.float32)
y.backward(v)             # v is cast to y's dtype, float64
print(f"{k} doublings: x.grad =", x.grad)
assert x.grad.tolist() == [c * 2 ** k for c in v.tolist()]   # exact: powers of two

# Three ways. The loop branches on values, so SymPy cannot trace it and there is no exact
# reference: the methods are compared with each other instead. Finite differences see
# the same k doublings (the norm stays on the same side of 1000 within their steps).
import numpy as np  # noqa: E402

import diffcompare  # noqa: E402
from diffcompare.functions import norm  # noqa: E402


def doubled(x):
    y = x * 2
    while norm(y) < 1000:
        y = y * 2
    return y


x0 = x.detach().numpy().tolist()
report = diffcompare.compare(doubled, at={"x": x0}, kind="vjp", vector=v.tolist(), repeat=1)
print("three-way comparison of vᵀJ:", report.verdicts())
by = {m.name: m.estimate.values[0] for m in report.methods if m.estimate.has_values}
print("symbolic:", report.method("symbolic").reason)
assert by["autograd"].tolist() == x.grad.tolist()
assert np.allclose(by["central-difference"], by["autograd"], rtol=1e-9) and by["complex-step"].tolist() == x.grad.tolist()
