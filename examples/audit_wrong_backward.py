"""A gradient audit: a custom operation with a deliberately wrong backward, caught and
localised.

Swish(x) = x · sigmoid(x) has the derivative sigmoid(x) + x · sigmoid(x) (1 - sigmoid(x)).
The backward below forgets the second term, a classic slip. Three tools look at it:

1. gradcheck compares autograd with finite differences: it says *that* the gradient is
   wrong, but not which of the two methods is, nor where;
2. diffcompare.compare measures every method against SymPy's exact derivative (SymPy
   traces Swish's forward): autograd fails, the finite differences pass;
3. diffcompare.explain(..., check=True) checks every node's backward rule on its own
   and names the first wrong one: SwishBackward.
"""

import diffcompare
from diffcompare import autograd as ag
from diffcompare.functions import sigmoid, tanh


class Swish(ag.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * sigmoid(x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * sigmoid(x)                 # wrong: + x sigmoid(x) (1 - sigmoid(x)) is missing


def model(x, w):
    return tanh(Swish.apply(w * x + 0.5)) * x


point = {"x": 0.8, "w": -1.3}

# 1. A plain gradient check: a mismatch, no diagnosis.
inputs = tuple(ag.tensor(v, requires_grad=True) for v in point.values())
try:
    ag.gradcheck(model, inputs)
except RuntimeError as error:
    print("gradcheck:", str(error).splitlines()[0])
    plain = "mismatch" in str(error)
assert plain

# 2. Every method against the exact reference: autograd is the one that is wrong.
report = diffcompare.compare(model, at=point, methods="autograd,symbolic,central-difference,complex-step", repeat=1)
print("compare:", report.verdicts())
assert report.method("autograd").verdict == "fail"
assert all(report.method(m).verdict == "pass" for m in ("symbolic", "central-difference", "complex-step"))
assert report.exit_status == 1

# 3. Node by node: the wrong rule is named.
walk = diffcompare.explain(model, at=point, check=True)
wrong = walk.first_wrong
print(f"explain --check: step {wrong.number}, {wrong.name}: {wrong.detail}")
assert wrong.name == "SwishBackward" and walk.exit_status == 1
assert all(step.check in ("ok", "not checked") for step in walk.steps if step is not wrong)


# The fix, and the same audit passes.
class FixedSwish(Swish):
    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        s = sigmoid(x)
        return grad * (s + x * s * (1 - s))


def fixed_model(x, w):
    return tanh(FixedSwish.apply(w * x + 0.5)) * x


assert ag.gradcheck(fixed_model, tuple(ag.tensor(v, requires_grad=True) for v in point.values()))
assert diffcompare.compare(fixed_model, at=point, repeat=1).exit_status == 0
assert diffcompare.explain(fixed_model, at=point, check=True).first_wrong is None
print("fixed: gradcheck, compare and explain --check all pass")
