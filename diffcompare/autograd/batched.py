"""Batched vector-Jacobian products: one backward walk for a whole batch of seeds.

``grad(outputs, inputs, grad_outputs, is_grads_batched=True)`` reads the first dimension of
every grad_output as a batch: row b is a seed v_b, and the result's row b is v_bᵀJ. The walk
below visits the graph once and hands each node the gradients of all rows stacked along a
leading axis; an op whose rule takes the batch at once (``Op.batched_backward``: for an
elementwise op its ordinary rule, for a reduction or a view the rule with its axes moved by
one) does one NumPy call for all rows, and any other node runs its backward row by row
(``Node._apply_batched``). A Jacobian is then one walk seeded with the identity, and a
Hessian one walk through the graph of the gradient.

>>> import numpy as np
>>> from diffcompare import autograd as ag
>>> x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
>>> ag.grad(x ** 2, x, ag.tensor(np.eye(3)), is_grads_batched=True)[0]     # J = diag(2x)
tensor([[2., 0., 0.],
        [0., 4., 0.],
        [0., 0., 6.]])
"""

from __future__ import annotations

from .grad_mode import STATE
from .buffer import deposit
from .graph import AccumulateGrad, dense, plan, release, walking

BATCH_SHAPE_ERROR = (
    "If `is_grads_batched=True`, we interpret the first dimension of each grad_output as the batch dimension. "
    "The sizes of the remaining dimensions are expected to match the shape of corresponding output, but a "
    "mismatch was detected: grad_output[{i}] has a shape of {got} and output[{i}] has a shape of {want}. "
    "If you only want some tensors in `grad_output` to be considered batched, consider using vmap."
)


def walk_supported(nodes):
    """Whether one batched walk can serve these nodes: hooks and retained gradients see one
    gradient at a time, as the user wrote them, so a graph with any is walked row by row."""
    if STATE.anomaly_enabled:
        return False
    for node in nodes:
        if node._pre_hooks is not None or node._retained is not None or node._node_pre_hooks or node._node_hooks:
            return False
        if type(node) is AccumulateGrad and (node.variable._hooks or node.variable._post_hooks):
            return False
    return True


def run_batched_backward(roots, seeds, size, targets, retain_graph):
    """Propagate ``seeds`` (one array per root edge, each ``(size,) + output shape``) to the
    ``targets`` edges in one walk. Returns a dict edge -> ``(size,) + shape`` array, or None
    when the graph has hooks (see ``walk_supported``) and must be walked row by row."""
    targets = set(targets)
    nodes, reaching, executing = plan(roots, targets, keep=retain_graph)
    if not walk_supported(nodes):
        return None
    buffers = {}
    for (node, index), seed in zip(roots, seeds):
        if node is not None:
            deposit(buffers, node, index, seed)
    captured = {}
    with walking(False):
        for node in nodes:
            grads = buffers.pop(node, None)
            if grads is None or node not in reaching:
                continue
            multi = node.n_outputs != 1
            for index, g in enumerate(grads if multi else (grads,)):
                if g is not None and (node, index) in targets:
                    captured[(node, index)] = g
            if type(node) is AccumulateGrad or node not in executing:
                continue
            results = node._apply_batched(grads, size)
            nrs = node._nrs or (0,) * len(node._next)
            for nxt, index, g in zip(node._next, nrs, results):
                if nxt is not None and g is not None:
                    deposit(buffers, nxt, index, dense(g))
            if not retain_graph:
                release(node)
    return captured

