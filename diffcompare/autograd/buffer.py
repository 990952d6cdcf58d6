"""The gradients of a backward walk on their way: for every node not yet walked, the sum of
what its consumers sent it, and which of those sums are the walk's own arrays.

An array is the walk's own when nothing but the buffer holds it: a sum the walk made, or
a fresh result of a node's backward (:func:`.gradients.is_own`). Such an array can take the
next gradient in place (``+=``) instead of a new sum, and be stored as a leaf's ``.grad``
without a copy; an array anyone else may hold (the seed, a saved value, a view of the
incoming gradient) never is.

>>> import numpy as np
>>> class Leaf:                       # a node: one output, no inputs, recorded first
...     n_outputs, seq = 1, 0
>>> leaf = Leaf()
>>> buffer = GradientBuffer([(leaf, 0), (leaf, 0)], [np.ones(2), np.ones(2)], create_graph=False)
>>> grads = buffer.pending.pop(leaf)
>>> grads                             # the two seeds summed
array([2., 2.])
>>> buffer.claim(leaf, grads, uncommon=False)   # seeds are the caller's: not the walk's own
(array([2., 2.]), False)
"""

from __future__ import annotations

from heapq import heapify, heappush

import numpy as np

from . import gradients
from .gradients import LAZY, IndexedGrad, add, is_own, merge


def deposit(pending, node, index, grad):
    """Add ``grad`` to what ``pending`` holds for output ``index`` of ``node``."""
    if node.n_outputs == 1:
        previous = pending.get(node)
        pending[node] = grad if previous is None else previous + grad
    else:
        slots = pending.get(node)
        if slots is None:
            slots = pending[node] = [None] * node.n_outputs
        slots[index] = add(slots[index], grad)


class GradientBuffer:
    """The gradients waiting for their nodes in one backward walk, seeded with ``seeds``
    (one per root edge), and the ids of the arrays among them that are the walk's own.

    ``ready`` is a heap of ``(-node.seq, node)``, one entry per node in ``pending``, pushed
    when the node gets its first gradient: popping it gives the waiting node recorded last.
    Every node's consumers were recorded after it, so when a node is popped all of them
    have been walked and its gradient is complete; the walk takes the nodes in decreasing
    order of recording without collecting and sorting the graph first."""

    __slots__ = ("pending", "owned", "create_graph", "min_size", "ready")

    def __init__(self, roots, seeds, create_graph):
        self.pending = {}
        self.owned = set()
        self.create_graph = create_graph
        self.min_size = gradients.OWNERSHIP_MIN_SIZE     # below it a copy costs less than the proof
        for (node, index), seed in zip(roots, seeds):
            if node is not None:
                deposit(self.pending, node, index, seed)
        self.ready = [(-node.seq, node) for node in self.pending]
        heapify(self.ready)

    def claim(self, node, grads, uncommon):
        """``(gradient, own)`` for ``grads``, just popped from ``pending`` for ``node``: in the form its
        backward takes (lazy forms made dense unless it takes them), and whether that array
        is the walk's own. Once taken it may be passed on and shared, so it is no longer
        counted as owned; and on an ``uncommon`` step (hooks, retain_grad, captured
        gradients) the node's inputs never count it as theirs. A walk that owns nothing and
        got a plain array need not ask: that is ``(grads, False)``."""
        owned = self.owned
        if type(grads) in LAZY and (uncommon or type(grads) is IndexedGrad or not node.takes_scaled
                                    or node.meta is not None):
            grads = grads.dense()
            owned.add(id(grads))
        if owned:
            key = id(grads)
            if key in owned:
                owned.discard(key)
                return grads, not uncommon
        return grads, False

    def send(self, node, results, grads, incoming_owned):
        """Add ``results``, what ``node``'s backward returned for its inputs given ``grads``,
        to what waits for the nodes those inputs come from."""
        pending = self.pending
        if node._nrs is not None:   # an input comes from a node with several outputs
            for (nxt, index), g in zip(node.next_functions, results):
                if nxt is not None and g is not None:
                    if nxt not in pending:
                        heappush(self.ready, (-nxt.seq, nxt))
                    deposit(pending, nxt, index, g)
            return
        owned = self.owned
        for nxt, g in zip(node._next, results):
            if nxt is None or g is None:
                continue
            previous = pending.get(nxt)
            if previous is None:
                pending[nxt] = g
                heappush(self.ready, (-nxt.seq, nxt))
                if type(g) is np.ndarray and g.size >= self.min_size and node.fresh_results and \
                        is_own(g, results, grads, incoming_owned, node._saved):
                    owned.add(id(g))
            elif type(previous) is np.ndarray and type(g) is np.ndarray and id(previous) not in owned:
                total = previous + g
                owned.add(id(total))
                pending[nxt] = total
            else:
                pending[nxt] = merge(previous, g, owned) if not self.create_graph else previous + g
