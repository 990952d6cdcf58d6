"""From "Understanding and Introspecting torch.autograd.backward": y = x ** 2 on
[2., 3., 4.], first as written (backward() on a vector: an error), then with the
`gradient` argument, and autograd.grad with retain_graph.
"""

from diffcompare import autograd as ag

x = ag.tensor([2.0, 3.0, 4.0], requires_grad=True)
y = x ** 2

# As written: y has three elements, so backward() cannot guess the vector v.
try:
    y.backward()
except RuntimeError as error:
    print("as written:", error)

# With the gradient argument v = ones: x.grad = v * 2x. Keep the graph for grad() below.
y.backward(gradient=ag.ones_like(y), retain_graph=True)
print("x.grad   ", x.grad)
print("x.grad_fn", x.grad_fn, "(a leaf has none)")
print("y.grad_fn", y.grad_fn)
assert x.grad.tolist() == [4.0, 6.0, 8.0]

# As written in the article, autograd.grad(y, x, retain_graph=True) has the same problem:
try:
    ag.grad(y, x, retain_graph=True)
except RuntimeError as error:
    print("autograd.grad as written:", error)

# autograd.grad returns the gradient instead of accumulating it; it too needs v here.
(grads,) = ag.grad(y, x, grad_outputs=ag.ones_like(y), retain_graph=True)
print("autograd.grad", grads)
assert grads.tolist() == [4.0, 6.0, 8.0]

# Without retain_graph the first backward frees what PowBackward0 saved (x itself):
z = x ** 2
z.backward(ag.ones_like(z))
try:
    ag.grad(z, x, grad_outputs=ag.ones_like(z))
except RuntimeError as error:
    print("second pass without retain_graph:", str(error).split(".")[0] + ".")

# Three ways: y.backward(v) is the vector-Jacobian product vᵀJ with J = diag(2x).
import diffcompare  # noqa: E402

report = diffcompare.compare("x**2", at={"x": [2.0, 3.0, 4.0]}, kind="vjp", vector=[1.0, 1.0, 1.0], repeat=1)
print("three-way comparison of vᵀJ:", report.verdicts())
assert report.exit_status == 0
assert report.method("autograd").estimate.values[0].tolist() == [4.0, 6.0, 8.0]
