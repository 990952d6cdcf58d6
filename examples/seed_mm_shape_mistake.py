"""The second example of "Understanding the Backward Function in PyTorch": a linear
model with `torch.mm(x, w)` where x is 1-D. mm needs two matrices, so the original code
fails; the error says what is wrong. The corrected model uses a (2, 2) batch.
"""

from diffcompare import autograd as ag

ag.manual_seed(1)

# As written in the article: x has shape (2,), a vector, not a matrix.
x = ag.randn(2, requires_grad=True)
w = ag.randn(2, 1, requires_grad=True)
try:
    y = ag.mm(x, w)
except RuntimeError as error:
    print("as written, mm fails:", error)

# Corrected: two samples with two features each, targets as a column.
X = ag.randn(2, 2, requires_grad=True)
target = ag.tensor([[3.0], [5.0]])
y = ag.mm(X, w)
loss = ag.mean((y - target) ** 2)
loss.backward()
print("loss", loss)
print("X.grad has X's shape", tuple(X.grad.shape), "and w.grad has w's shape", tuple(w.grad.shape))
assert X.grad.shape == (2, 2) and w.grad.shape == (2, 1)

# By hand: dL/dw = X^T (2 (y - t) / 2), dL/dX = (2 (y - t) / 2) w^T
r = (y.detach().numpy() - target.numpy())
assert abs(w.grad.numpy() - X.detach().numpy().T @ r).max() < 1e-12
assert abs(X.grad.numpy() - r @ w.detach().numpy().T).max() < 1e-12

# Three ways: the corrected loss as an expression of the matrices X (2x2) and w (2x1).
import diffcompare  # noqa: E402

report = diffcompare.compare("mean((X @ w - [[3], [5]])**2)",
                             at={"X": X.detach().numpy().tolist(), "w": w.detach().numpy().tolist()}, repeat=1)
print("three-way comparison:", report.verdicts())
assert report.exit_status == 0
# the survey's values: one row per point, the entries X[0,0], X[0,1], X[1,0], X[1,1], w[0,0], w[1,0]
by_autograd = report.method("autograd").estimate.values[0]
assert abs(by_autograd - [*X.grad.numpy().ravel(), *w.grad.numpy().ravel()]).max() < 1e-12
