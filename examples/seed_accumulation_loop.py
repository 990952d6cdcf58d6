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

# Three ways: the six backward() calls add up to the gradient of the sum of the squares
# of rows 0 and 1.
import diffcompare  # noqa: E402

report = diffcompare.compare("sum(X[0]**2) + sum(X[1]**2)", at={"X": [[2, 4, 6], [2, 7, 9], [2, 4, 5]]}, repeat=1)
print("three-way comparison:", report.verdicts())
assert report.exit_status == 0
assert report.method("symbolic").estimate.values[0].tolist() == [4, 8, 12, 4, 14, 18, 0, 0, 0]
