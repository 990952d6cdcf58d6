"""What each method did, in words: the one table of the work descriptions.

A method records its work as data (:func:`diffcompare.methods.estimate.work`: whose work,
for which task, and its counts); this table says it.

>>> from diffcompare.methods.estimate import work
>>> work_words(work("autograd", "jacobian", m=3, n=2))
'1 forward, 1 backward over a batch of 3 seeds (one per output row)'
>>> work_words(work("differences", "vjp", evaluations=4, directions=2))
'4 evaluations of f (2 columns of J), then vᵀJ'
"""

from __future__ import annotations

# whose work -> task -> its description, with the record's counts in braces
WORK = {
    "autograd": {
        "gradient": "1 forward, 1 backward()",
        "jacobian": "1 forward, 1 backward over a batch of {m} seeds (one per output row)",
        "vjp": "1 forward, 1 backward(v): J is never formed",
        "jvp": "1 forward, 2 backward passes (the double-vjp trick)",
        "hessian": "1 forward, 1 backward(create_graph=True), then 1 backward through it over a batch of {n} seeds",
    },
    "autograd-full-J": {"vjp": "1 forward, {m} backward passes to form J, then vᵀJ"},
    "autograd-functional": {
        "jacobian": "ag.functional.jacobian(vectorize=True)", "jvp": "ag.functional.jvp",
        "vjp": "ag.functional.vjp", "hessian": "ag.functional.hessian(vectorize=True)",
    },
    "symbolic": {
        "gradient": "diff, cse, generated code", "jacobian": "Matrix.jacobian, cse, generated code",
        "vjp": "the full J (Matrix.jacobian), then vᵀJ", "jvp": "the full J, then Jv",
        "hessian": "hessian, cse, generated code",
    },
    "symbolic-reverse": {
        "gradient": "one reverse sweep over the traced program, lambdify",
        "vjp": "one reverse sweep seeded with v, lambdify",
        "jacobian": "one reverse sweep per output over one shared forward program, lambdify",
        "jvp": "the full J by one reverse sweep per output, then Jv",
        "hessian": "reverse over reverse: one sweep per gradient entry over the gradient's program, lambdify",
    },
    "forward-mode": {
        "gradient": "{n} forward passes, one per input (each gives one partial)",
        "jacobian": "{n} forward passes, one per input column of J",
        "vjp": "{n} forward passes to form J, then vᵀJ",
        "jvp": "1 forward pass along v: J is never formed",
        "hessian": "{n} forward-over-reverse passes (a gradient with create_graph, carrying e_j)",
    },
    "torch": {
        "gradient": "torch.autograd.grad, one backward", "jacobian": "torch.autograd.grad, one per output row",
        "hessian": "torch.autograd.grad with create_graph, then one per gradient entry",
        "vjp": "torch.autograd.grad per output row (J), then vᵀJ", "jvp": "J by torch.autograd.grad, then Jv",
    },
    "jax": {
        "gradient": "jax.grad", "jacobian": "jax.jacrev (one backward per output row, vectorised by vmap)",
        "hessian": "jax.hessian (forward over reverse)", "vjp": "jax.vjp: one backward with v",
        "jvp": "jax.jvp: one forward pass along v",
    },
    "differences": {
        "gradient": "{evaluations} evaluations of f ({directions} columns of J)",
        "jacobian": "{evaluations} evaluations of f ({directions} columns of J)",
        "vjp": "{evaluations} evaluations of f ({directions} columns of J), then vᵀJ",
        "jvp": "{evaluations} evaluations of f along v",
    },
    "second-differences": {"hessian": "{evaluations} evaluations of f"},
    "mixed": {"hessian": "{gradients} gradients by autograd"},
    "given": {kind: "{function}, called once per point" for kind in ("gradient", "jacobian", "hessian", "vjp", "jvp")},
}
JIT = {True: ", compiled by jax.jit", False: ", eager"}


def work_words(record) -> str:
    """A method's work record in words ("" when it has none)."""
    if not record:
        return ""
    text = WORK[record["of"]][record["task"]].format(**record)
    if "jit" in record:
        text += JIT[record["jit"]]
    return text
