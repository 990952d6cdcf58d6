"""The first example of "Understanding the Backward Function in PyTorch": one scalar
parameter each for x, w, b; loss = (x*w + b - 2)^2; backward; one SGD step.

By hand: dL/dx = 2(y-2) w, dL/dw = 2(y-2) x, dL/db = 2(y-2), with y = x w + b.
"""

from diffcompare import autograd as ag

ag.manual_seed(0)
x = ag.randn(1, requires_grad=True)
w = ag.randn(1, requires_grad=True)
b = ag.randn(1, requires_grad=True)

y = x * w + b
loss = (y - 2) ** 2
loss.backward()

print("x.grad", x.grad)
print("w.grad", w.grad)
print("b.grad", b.grad)
residual = 2 * (y.item() - 2)
assert abs(x.grad.item() - residual * w.item()) < 1e-12
assert abs(w.grad.item() - residual * x.item()) < 1e-12
assert abs(b.grad.item() - residual) < 1e-12

before = [t.item() for t in (x, w, b)]
optimizer = ag.optim.SGD([x, w, b], lr=0.01)
optimizer.step()
after = [t.item() for t in (x, w, b)]
for old, new, t in zip(before, after, (x, w, b)):
    assert abs(new - (old - 0.01 * t.grad.item())) < 1e-12
print("after one SGD step: x, w, b =", [round(v, 6) for v in after])

# The same loss three ways (autograd, SymPy, finite differences) against the exact
# reference, at the values the SGD step started from.
import diffcompare  # noqa: E402

point = dict(zip("xwb", before))
report = diffcompare.compare("(x*w + b - 2)**2", at=point, repeat=1)
print("three-way comparison:", report.verdicts())
assert report.exit_status == 0
assert abs(report.method("symbolic").entry("w").value - residual * before[0]) < 1e-12
