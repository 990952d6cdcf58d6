"""From "PyTorch backward" (EDUCBA): backward() inside a loop over X[i, j] * X[i, j]
accumulates into X.grad: each call adds d/dX of one squared entry.

By hand: X.grad[i, j] = 2 X[i, j] for the six visited entries (rows 0 and 1), 0 elsewhere.
"""

from diffcompare import autograd as ag

X = ag.tensor([[2, 4, 6], [2, 7, 9], [2, 4, 5]], dtype=ag.float32, requires_grad=True)
for i in range(2):
    for j in range(3):
        output = X[i, j] * X[i, j]
        output.backward()
print(X.grad)
assert X.grad.tolist() == [[4, 8, 12], [4, 14, 18], [0, 0, 0]]

# The second example of the same article: B = A * 4, so dB/dA = 4.
A = ag.tensor(2.0, requires_grad=True)
B = A * 4
B.backward()
print(A.grad.data)
assert A.grad.item() == 4.0
