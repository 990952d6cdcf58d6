"""A tour of backward(): gradients of a scalar, the `gradient` argument as a
vector-Jacobian product, retain_graph, and create_graph for second derivatives.

Run: python examples/backward_basics.py
"""

from diffcompare import autograd as ag

# 1. A scalar output: backward() needs no argument.
x = ag.tensor([2.0, 3.0, 4.0], requires_grad=True)
loss = (x ** 2).sum()
loss.backward()
print("d/dx sum(x^2) = 2x        ->", x.grad)
assert x.grad.tolist() == [4.0, 6.0, 8.0]

# 2. A vector output: backward(v) computes v^T J, the vector-Jacobian product, without
#    ever forming the Jacobian J (here J = diag(2x)).
x = ag.tensor([2.0, 3.0, 4.0], requires_grad=True)
y = x ** 2
v = ag.tensor([1.0, 0.1, 0.01])
y.backward(v)
print("v^T J = v * 2x            ->", x.grad)
assert [round(g, 12) for g in x.grad.tolist()] == [4.0, 0.6, 0.08]

# 3. Saved tensors are freed after backward; retain_graph keeps them for another pass,
#    and gradients accumulate into .grad.
x = ag.tensor([1.0, 2.0], requires_grad=True)
y = (x * x).sum()
y.backward(retain_graph=True)
y.backward()
print("two backward passes, 2x+2x ->", x.grad)
assert x.grad.tolist() == [4.0, 8.0]
try:
    y.backward()
except RuntimeError as error:
    print("a third pass without retain_graph:", str(error).split(".")[0] + ".")

# 4. create_graph records the backward pass itself: the gradient can be differentiated.
x = ag.tensor(3.0, requires_grad=True)
(first,) = ag.grad(x ** 4, x, create_graph=True)       # 4x^3
(second,) = ag.grad(first, x)                           # 12x^2
print("d/dx x^4 at 3 =", first.item(), " d2/dx2 =", second.item())
assert (first.item(), second.item()) == (108.0, 108.0)
