"""The recorded graph and the backward walk.

Every differentiable operation that runs with grad enabled leaves one ``Node`` behind: it
knows where its inputs' gradients go (``next_functions``) and keeps what its
vector-Jacobian product needs (saved tensors, with the version each had when saved).
A leaf that requires grad is represented in the graph by an ``AccumulateGrad`` node.

``run_backward`` walks the nodes reachable from the outputs in decreasing creation order.
Every input of a node was created before the node, so that order is topological; the
walk is a loop, never recursion, so a graph a million nodes deep is fine. What it carries
from node to node is a :class:`.buffer.GradientBuffer`, which also hands it the next node;
a walk toward chosen targets first finds which nodes lead to them, its *plan*, kept with a
retained graph for the next walk (``plan``); ``walking`` sets and restores the state
around it.

>>> import numpy as np
>>> from diffcompare import autograd as ag
>>> x = ag.tensor(3.0, requires_grad=True)
>>> y = x * x
>>> captured = run_backward([edge_of(y)], [np.array(1.0)], False, False, targets=[edge_of(x)], accumulate=False)
>>> [float(g) for g in captured.values()]       # d(x * x)/dx at 3
[6.0]
"""

from __future__ import annotations

import contextlib
import itertools
from heapq import heappop, heappush
import operator
import traceback
import warnings
import weakref

import numpy as np

from . import collector
from .grad_mode import STATE
from .quiet import IGNORE as QUIET, reset_quiet, set_quiet
from .buffer import GradientBuffer
# what a node keeps for backward; torch.autograd.graph's hooks for saved tensors are here too
from .saved import (FREED_ERROR, SavedTensor, disable_saved_tensors_hooks, expose_saved_attributes,  # noqa: F401
                    save_on_cpu, saved_attribute_names, saved_tensors_hooks)
from .gradients import LAZY, stack_rows
from .tensor import GRAD_DTYPES, HookHandle, Tensor

sequence = itertools.count()
# nodes PyTorch's engine defines itself rather than derivatives.yaml: name() qualifies them
ENGINE_NODES = frozenset({"AccumulateGrad", "CopySlices", "CopyBackwards", "GraphRoot", "Identity"})

class Node:
    """One recorded operation. Subclasses define ``_apply(grad, create_graph)``.

    ``next_functions`` is a tuple of ``(node or None, output_index)``, one per input, as in
    PyTorch; ``None`` marks an input that does not require grad. Everything else a node
    may carry has a class-level default, so recording sets only what it needs.
    """

    n_outputs = 1
    fresh_results = False  # built-in ops: backward results are new arrays or views of the input gradient
    takes_scaled = False   # backward accepts a ScaledGrad (it is linear and folds the factor in)
    _next = ()           # per input: the node its gradient goes to, or None
    _nrs = None          # per input: that node's output index (None: all 0)
    _saved = None        # saved values (SavedTensor or constants), None once freed
    _unpack_order = None     # the order they were packed in, where saved-tensor hooks packed them
    _freed = False
    _pre_hooks = None    # output index -> {handle id: hook} of the output tensors' hooks
    _retained = None     # output index -> weakref of a tensor that called retain_grad()
    _trace = None        # the forward call's stack, in anomaly mode
    meta = None          # per input (shape, dtype) when a gradient must be fitted back
    _node_pre_hooks = None   # handle id -> hook(grad_outputs): None, or the grad_outputs to use
    _node_hooks = None       # handle id -> hook(grad_inputs, grad_outputs): None, or the grad_inputs to use
    _special = False         # any of the above, or several outputs: the walk takes its long path
    _plan = None             # the walk's plan from this node, kept when the graph is retained

    def name(self) -> str:
        name = type(self).__name__
        return "torch::autograd::" + name if name in ENGINE_NODES else name

    def register_prehook(self, hook):
        """Call ``hook(grad_outputs)`` (a tuple of tensors) before this node's backward; a
        returned tuple replaces the gradients it gets. Returns a handle with ``remove()``.

        >>> from diffcompare import autograd as ag
        >>> x = ag.tensor([1.0, 2.0], requires_grad=True)
        >>> y = x * 3
        >>> h = y.grad_fn.register_prehook(lambda grad_outputs: (grad_outputs[0] * 10,))
        >>> y.sum().backward()
        >>> x.grad
        tensor([30., 30.])
        """
        if self._node_pre_hooks is None:
            self._node_pre_hooks = {}
            self._special = True
        return HookHandle(self._node_pre_hooks, hook)

    def register_hook(self, hook):
        """Call ``hook(grad_inputs, grad_outputs)`` after this node's backward; a returned
        tuple replaces the gradients it sends to its inputs. Returns a handle with ``remove()``.

        >>> from diffcompare import autograd as ag
        >>> x = ag.tensor([1.0, 2.0], requires_grad=True)
        >>> y = x * 3
        >>> h = y.grad_fn.register_hook(lambda grad_inputs, grad_outputs: (grad_inputs[0] + 1, None))
        >>> y.sum().backward()          # x * 3 has two inputs, as in PyTorch: x and the 3
        >>> x.grad
        tensor([4., 4.])
        """
        if self._node_hooks is None:
            self._node_hooks = {}
            self._special = True
        return HookHandle(self._node_hooks, hook)

    def _apply_batched(self, grads, size):
        """The backward for ``size`` gradients stacked along a new leading (batch) axis.

        This general form runs the backward once per gradient and stacks the results, as
        PyTorch's vmap fallback does; an op whose rule takes the whole batch at once
        overrides it (``Op.batched_backward``).
        """
        multi = self.n_outputs != 1
        rows = []
        for b in range(size):
            row = [None if g is None else g[b] for g in grads] if multi else grads[b]
            rows.append([dense(r) for r in self._apply(row, False)])
        return stack_rows(rows)

    @property
    def next_functions(self):
        """``((node or None, output index), ...)``, one pair per input, as in PyTorch."""
        nrs = self._nrs or (0,) * len(self._next)
        return tuple(zip(self._next, nrs))

    @property
    def metadata(self):
        """A dict of the program's own, kept with the node (``grad_fn.metadata["module"] = m``)."""
        meta = self.__dict__.get("_metadata")
        if meta is None:
            meta = self._metadata = {}
        return meta

    def __repr__(self):
        return f"<{type(self).__name__} object at {hex(id(self))}>"

    # -- saved tensors -------------------------------------------------------------------
    def _unpack(self, as_tensor):
        saved = self._saved
        if saved is None:
            if self._freed:
                raise RuntimeError(FREED_ERROR)
            return ()
        order = self._unpack_order
        if order is None:
            return [s.unpack(self, as_tensor) if isinstance(s, SavedTensor) else s for s in saved]
        values = [None] * len(saved)          # packed through saved-tensor hooks: unpacked in that order
        for k in order:
            s = saved[k]
            values[k] = s.unpack(self, as_tensor) if isinstance(s, SavedTensor) else s
        return values

    def __init_subclass__(cls, **kwargs):
        # PyTorch exposes saved values as _saved_<name> (and _raw_saved_<name>); reading them
        # after they were freed raises the same error as a second backward
        super().__init_subclass__(**kwargs)
        expose_saved_attributes(Node, cls)

    def __dir__(self):
        # the saved-value descriptors on Node serve every op: only this node's own are listed
        listed = {name for name in super().__dir__() if not name.startswith(("_saved_", "_raw_saved_"))}
        return sorted(listed | set(saved_attribute_names(self)))


expose_saved_attributes(Node, Node)     # the names every op may use: self, other, result, parameters


def init_node(node, edges, saved=None):
    """Fill the fields every node has from ``edges``, pairs (node, output index)."""
    set_edges(node, edges)
    if saved is not None:
        node._saved = saved
    if STATE.anomaly_enabled:
        node._trace = traceback.format_stack()[:-3]
    seq = node.seq = next(sequence)
    if not seq & collector.MASK:
        collector.checkpoint(node)
    return node


def set_edges(node, edges):
    node._next = tuple([n for n, _ in edges])
    nrs = tuple([i for _, i in edges])
    # the walk's short path assumes single-output producers; a node fed by one with several
    # outputs (even its output 0) keeps its output indices, so the walk fills that node's slots
    several = any(n is not None and n.n_outputs != 1 for n, _ in edges)
    node._nrs = nrs if any(nrs) or several else None


class AccumulateGrad(Node):
    """The graph's node for a leaf that requires grad: writes into ``leaf.grad``."""

    def __init__(self, variable):
        self.variable = variable
        self.seq = next(sequence)
        if STATE.anomaly_enabled:
            init_node(self, ())

    def __call__(self, *grad_outputs):
        """Accumulate ``grad_outputs[0]`` into the leaf's ``.grad`` (its hooks first), as
        calling PyTorch's node does; nothing is returned for inputs (it has none): ``()``."""
        _arguments(self, grad_outputs)
        _accumulate_leaf(self.variable, grad_outputs[0], STATE.grad_enabled)
        return ()


def call_node(node, grad_outputs):
    """``node``'s backward on ``grad_outputs`` (one per output of its op; None as zeros),
    called directly as PyTorch's nodes are (``y.grad_fn(torch.ones(2))``): the gradients for
    its inputs as tensors (None where an input wants none), the one gradient alone when it
    has one input. In grad mode they record their history where the saved values require
    grad. Nothing is released: the graph stays whole for a backward."""
    _arguments(node, grad_outputs)
    differentiable = STATE.grad_enabled
    grads = [g if differentiable or not isinstance(g, Tensor) else g._data for g in grad_outputs]
    quiet = set_quiet(QUIET)
    try:
        results = node._apply(grads[0] if node.n_outputs == 1 else grads, differentiable)
    finally:
        reset_quiet(quiet)
    out = []
    for g in results:
        while type(g) in LAZY:
            g = g.dense()
        out.append(None if g is None else _to_tensor(g))
    return out[0] if len(out) == 1 else tuple(out)


def _arguments(node, grad_outputs):
    """PyTorch's check of a node's call: one gradient per output of its op."""
    if len(grad_outputs) != node.n_outputs:
        raise TypeError(f"expected {node.n_outputs} arguments, got {len(grad_outputs)} instead")


def edge_of(t):
    """The (node, output index) through which a gradient reaches tensor ``t``."""
    fn = t.grad_fn
    if fn is not None:
        return (fn, t._output_nr)
    if not t.requires_grad_flag:     # (a view taken in no_grad mode says it requires grad: no edge, as in PyTorch)
        return (None, 0)
    ref = t._accum
    acc = ref() if ref is not None else None
    if acc is None:
        acc = AccumulateGrad(t)
        t._accum = weakref.ref(acc)
    return (acc, 0)


@contextlib.contextmanager
def recording(callback):
    """Call ``callback(node, inputs, params, outputs)`` for every node recorded in the block:
    the node, the arguments it was called with (tensors and constants), its keyword
    parameters and its output tensors. ``diffcompare.explain`` reads the graph this way.

    >>> from diffcompare import autograd as ag
    >>> seen = []
    >>> x = ag.tensor(2.0, requires_grad=True)
    >>> with recording(lambda node, inputs, params, outputs: seen.append(node.name())):
    ...     y = (x * x).sin()
    >>> seen
    ['MulBackward0', 'SinBackward0']
    """
    previous = STATE.recorder
    STATE.recorder = callback
    try:
        yield
    finally:
        STATE.recorder = previous


# --- the backward walk ----------------------------------------------------------------------

def accumulate_into(tensor, grad, create_graph, fresh=False):
    """Add ``grad`` into ``tensor.grad`` as PyTorch does: a fresh tensor the first time, in
    place after that, out of place when the gradient itself is being differentiated.
    ``fresh``: the array is the walk's own, so it can be stored without a copy."""

    if isinstance(grad, Tensor):
        if not create_graph:
            grad = grad._data
    dtype = tensor._data.dtype
    if GRAD_DTYPES and id(tensor) in GRAD_DTYPES:          # a leaf's grad_dtype, set (None: any)
        dtype = GRAD_DTYPES[id(tensor)][1] or grad.dtype
        if type(grad) is Tensor and grad.dtype != dtype:
            grad = grad.to(dtype)
    if grad.dtype.kind == "c" and dtype.kind != "c":
        grad = grad.real        # a real leaf keeps the real part, as in PyTorch
    if type(grad) is not Tensor and grad.dtype != dtype:
        grad = grad.astype(dtype)
    current = tensor._grad
    if current is None:
        if type(grad) is Tensor:
            # a gradient with history is copied into the new .grad, as PyTorch's AccumulateGrad
            # copies it (its node: CopyBackwards)
            tensor._grad = Tensor._make(np.zeros(grad.shape, grad.dtype)).copy_(grad) if grad.grad_fn is not None \
                else Tensor._make(np.array(grad._data))
        elif fresh and grad.dtype == dtype and grad.shape == tensor._data.shape:
            tensor._grad = Tensor._make(grad)
        else:
            tensor._grad = Tensor._make(np.array(grad, dtype=dtype))
    elif create_graph or current.requires_grad or type(grad) is Tensor:
        tensor._grad = current + grad
    else:
        if current._data.flags.writeable:
            current._data += grad
        else:       # a .grad the program set to a read-only array (a broadcast view): summed into a new one
            current._data = current._data + grad
        current._bump()


def _to_tensor(g):

    return g if isinstance(g, Tensor) else Tensor._make(np.asarray(g))


def _run_tensor_hooks(hooks, grad, create_graph):
    """Apply a tensor's hooks in registration order; each may return a replacement."""
    g = _to_tensor(grad)
    for hook in list(hooks.values()):      # (a hook may remove itself, or another)
        result = hook(g)
        if result is not None:
            if tuple(result.shape) != tuple(g.shape):
                name = getattr(hook, "__name__", repr(hook))
                raise RuntimeError(f"hook '{name}' has changed the size of value")
            g = _to_tensor(result)
    return g if create_graph else g._data


def _run_node_hooks(node, results, grads, create_graph):
    """A node's hooks on what its backward sent (grad_inputs) and got (grad_outputs)."""
    def tensor(g):
        if g is None:
            return None
        while type(g) in LAZY:
            g = g.dense()
        return _to_tensor(g)
    inputs = tuple(tensor(g) for g in results)
    outputs = tuple(tensor(g) for g in (grads if node.n_outputs != 1 else [grads]))
    for hook in list(node._node_hooks.values()):
        replaced = hook(inputs, outputs)
        if replaced is not None:
            if len(replaced) != len(inputs):
                raise RuntimeError(f"hook '{getattr(hook, '__name__', repr(hook))}' has returned an incorrect number "
                                   f"of values (got {len(replaced)}, but expected {len(inputs)})")
            inputs = tuple(replaced)
    return tuple(None if g is None else (g if create_graph else g._data) for g in inputs)


def dense(g):
    """A gradient as a plain array (or tensor): lazy forms multiplied out."""
    while type(g) in LAZY:
        g = g.dense()
    return g


def _has_nan(g):
    while type(g) in LAZY:
        g = g.values
    data = np.asarray(getattr(g, "_data", g))
    return data.dtype.kind in "fc" and bool(np.isnan(data).any())


def _warn_error_in(node, stacklevel=4):
    """Anomaly mode: say which backward function failed and where its forward call was."""
    name = type(node).__name__
    where = ("Traceback of forward call that caused the error:\n" + "".join(node._trace) if node._trace else
             "No forward pass information available. Enable detect anomaly during forward pass for more "
             "information.")
    warnings.warn(f"Error detected in {name}. {where}", UserWarning, stacklevel=stacklevel)


def _anomaly_error(node, index):
    _warn_error_in(node, stacklevel=5)      # the warning points where it did when run_backward raised it
    return RuntimeError(f"Function '{type(node).__name__}' returned nan values in its {index}th output.")


def collect(roots):
    """Every node reachable from ``roots``, found with an explicit stack (no recursion), in
    the order found; ``sorted(..., key=sequence_key, reverse=True)`` is the order of the walk
    (the order found is close to it, which the sort takes advantage of). A node is marked
    when first seen, so each is pushed once and every edge costs one set lookup (``None``,
    an input without grad, counts as seen)."""
    seen = {None}
    order = []
    for node in roots:
        if node not in seen:
            seen.add(node)
            order.append(node)
    stack = order[:]
    pop, push, mark, found = stack.pop, stack.append, seen.add, order.append
    while stack:
        for nxt in pop()._next:
            if nxt not in seen:
                mark(nxt)
                push(nxt)
                found(nxt)
    return order


def plan(roots, targets=None, keep=False):
    """The walk's plan: the nodes reachable from the ``roots`` edges, latest first, and for
    ``targets`` (a set of edges) the nodes that lead to one (``reaching``) and those whose
    backward must run (``executing``); both None without targets.

    ``keep``: the graph is retained for another walk (retain_graph), so the plan is kept on
    the first root's node and reused by the next walk from the same roots to the same
    targets (a Jacobian row by row walks one graph m times). What is kept leaves the roots
    out, so it holds no reference back to them: no cycle keeps a released graph alive.
    """
    root_nodes = [edge[0] for edge in roots]
    head = root_nodes[0] if root_nodes else None
    key = (tuple(map(id, root_nodes)), None if targets is None else frozenset((id(n), i) for n, i in targets))
    kept = head._plan if head is not None else None
    if kept is not None and kept[0] == key:
        return _reuse(kept, root_nodes)
    nodes, reaching, executing = _plan(roots, targets)
    if keep and head is not None:
        head._plan = _kept(key, nodes, reaching, executing, root_nodes, targets)
    return nodes, reaching, executing


def _kept(key, nodes, reaching, executing, root_nodes, targets):
    """A plan with its roots replaced by their positions (see ``plan``)."""
    position = {node: i for i, node in enumerate(root_nodes)}
    order = [position.get(node, node) for node in nodes]
    flags = None
    if reaching is not None:
        flags = [(node in reaching, node in executing) for node in root_nodes]
        reaching = reaching.difference(position)
        executing = executing.difference(position)
    alive = [node for node, _ in targets or () if node not in position]   # keeps target ids from being reused
    return key, order, reaching, executing, flags, alive


def _reuse(kept, root_nodes):
    _, order, reaching, executing, flags, _ = kept
    nodes = [root_nodes[x] if type(x) is int else x for x in order]
    if reaching is None:
        return nodes, None, None
    reaching, executing = set(reaching), set(executing)
    for node, (reach, execute) in zip(root_nodes, flags):
        if reach:
            reaching.add(node)
        if execute:
            executing.add(node)
    return nodes, reaching, executing


def _plan(roots, targets):
    nodes = collect([edge[0] for edge in roots])
    nodes.sort(key=sequence_key, reverse=True)
    if targets is None:
        return nodes, None, None
    target_nodes = {edge[0] for edge in targets}
    # Only nodes with a path to a target matter (PyTorch's exec_info). A node runs its
    # backward only if one of its inputs leads to a target; a target itself is read
    # before it would run. Inputs come first in reversed order, so one pass marks all.
    reaching, executing = set(), set()
    for node in reversed(nodes):
        if any(n in reaching for n in node._next if n is not None):
            executing.add(node)
            reaching.add(node)
        elif node in target_nodes:
            reaching.add(node)
    return nodes, reaching, executing


# the backward walks under way, innermost last: (root nodes, target edges or None, reaching or None)
WALKS = []


def _will_run(walk, node):
    """Whether the walk ``walk`` runs ``node``'s part: it is reached from the roots and, when
    the walk has targets, leads to one (a leaf: is one)."""
    roots, targets, reaching = walk[:3]
    if targets is None:
        if walk[3] is None:
            walk[3] = set(collect(roots))
        return node in walk[3]
    if type(node) is AccumulateGrad:
        return (node, 0) in targets
    return node in reaching


class _MultiHandle:
    """What :func:`register_multi_grad_hook` returns: ``remove()`` takes all its hooks out."""

    def __init__(self, handles):
        self.handles = tuple(handles)

    def remove(self):
        for handle in self.handles:
            handle.remove()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def register_multi_grad_hook(tensors, fn, *, mode="all"):
    """Call ``fn`` once per backward about gradients of several tensors, as PyTorch's
    ``torch.autograd.graph.register_multi_grad_hook``: with ``mode="all"``, ``fn(grads)`` after
    every tensor the walk reaches has its gradient (None for the others); with ``mode="any"``,
    ``fn(grad)`` with the first one computed. Returns a handle with ``remove()``.

    >>> from diffcompare import autograd as ag
    >>> a, b = ag.ones(2, requires_grad=True), ag.ones(2, requires_grad=True)
    >>> c = a * 2
    >>> h = register_multi_grad_hook((a, b, c), lambda grads: print([g is not None for g in grads]))
    >>> c.sum().backward()
    [True, False, True]
    """
    if mode not in ("all", "any"):
        raise ValueError(f"Expects mode to be one of ('all', 'any') but got {mode}")
    tensors = tuple(tensors)
    state = {"walk": None, "grads": None, "expected": 0, "count": 0, "done": False}

    def start():
        walk = WALKS[-1] if WALKS else None
        if state["walk"] is not walk:
            state.update(walk=walk, grads=[None] * len(tensors), count=0, done=False,
                         expected=sum(1 for t in tensors if walk is not None and t.requires_grad
                                      and _will_run(walk, t.grad_fn or edge_of(t)[0])))

    def hook_for(i):
        def inner(grad):
            start()
            if mode == "any":
                if not state["done"]:
                    state["done"] = True
                    fn(grad)
                return None
            state["grads"][i] = grad
            state["count"] += 1
            if state["count"] == state["expected"]:
                grads, state["grads"] = tuple(state["grads"]), [None] * len(tensors)
                fn(grads)
            return None
        return inner

    return _MultiHandle(t.register_hook(hook_for(i)) for i, t in enumerate(tensors) if t.requires_grad)


class allow_mutation_on_saved_tensors(saved_tensors_hooks):  # noqa: N801  (PyTorch's name)
    """Context manager: tensors saved for backward inside it may be changed in place
    afterwards; backward uses the values they had when saved (kept as copies), as with
    PyTorch's ``torch.autograd.graph.allow_mutation_on_saved_tensors``.

    >>> from diffcompare import autograd as ag
    >>> a = ag.ones(2, requires_grad=True)
    >>> with allow_mutation_on_saved_tensors():
    ...     b = a.clone()
    ...     out = (b ** 2).sum()
    ...     _ = b.sin_()
    ...     out.backward()
    >>> a.grad
    tensor([2., 2.])
    """

    def __init__(self):
        super().__init__(_copy_of, _as_is)


def _copy_of(t):
    return Tensor._make(np.array(t._data))


def _as_is(t):
    return t


@contextlib.contextmanager
def walking(create_graph, walk=None):
    """The state of a backward walk: grad mode as ``create_graph`` asks, NumPy's
    floating-point warnings off (0 * inf is nan, as in PyTorch, silently), and afterwards the
    previous mode back and what recording froze out of the garbage collector's sight unfrozen
    (:mod:`.collector`)."""
    previous_mode = STATE.grad_enabled
    STATE.grad_enabled = create_graph
    quiet = set_quiet(QUIET)
    if walk is not None:
        WALKS.append(walk)
    try:
        yield
    finally:
        STATE.grad_enabled = previous_mode
        reset_quiet(quiet)
        collector.resume()
        if walk is not None:
            WALKS.pop()


def release(node):
    """Free a node's saved values after the walk that did not retain the graph."""
    if node._saved is not None:
        node._saved = None
        node._freed = True


def run_backward(roots, seeds, retain_graph, create_graph, targets=None, accumulate=True):
    """Propagate ``seeds`` (one per root edge) backward through the graph.

    ``targets``: edges whose incoming gradient is wanted. With ``accumulate=False`` (that is
    ``autograd.grad``) their gradients are returned and no ``.grad`` is touched; with
    ``accumulate=True`` and targets (``backward(inputs=...)``) only those leaves accumulate.
    Returns a dict edge -> gradient for the targets.

    The nodes are walked as their gradients complete, latest recorded first (the buffer's
    ``ready`` heap); only a walk with targets plans the graph first, to know which nodes
    lead to one. A step is short unless the node is ``_special`` (hooks, retain_grad,
    several outputs) or the walk has targets; then :func:`_before_apply` does the uncommon
    parts.

    Under an open dual level (forward-mode AD) the backward's ops run on tensors, as with
    ``create_graph``, recorded only if it is set: their tangents carry through (forward over
    reverse), so a seed with a tangent gives gradients with theirs, as in PyTorch.
    """
    recording = create_graph
    create_graph = create_graph or bool(STATE.forward_level)    # (the backward's ops take tensors)
    captured = {}
    reaching = executing = None
    if targets is not None:
        targets = set(targets)
        _, reaching, executing = plan(roots, targets, keep=retain_graph)
    buffer = GradientBuffer(roots, seeds, create_graph)
    pop, owned, claim, send, ready = buffer.pending.pop, buffer.owned, buffer.claim, buffer.send, buffer.ready
    anomaly_mode = STATE.anomaly_enabled
    check_nan = anomaly_mode and STATE.anomaly_check_nan
    special = targets is not None
    # what ``walking`` does, without a generator's cost on every backward call
    previous_mode = STATE.grad_enabled
    STATE.grad_enabled = recording
    quiet = set_quiet(QUIET)
    WALKS.append([[edge[0] for edge in roots], targets, reaching, None])
    try:
        while ready:
            key, node = heappop(ready)
            if type(node) is AccumulateGrad and ready and ready[0][0] == 1 + key and key == -node.seq and \
                    type(ready[0][1]) is AccumulateGrad:
                node = _leaves_in_pytorchs_order(ready, node)
            grads = pop(node)
            uncommon = special or node._special
            own = False     # the gradient is the walk's own array (the buffer knows; none while it owns none)
            if type(grads) in LAZY:
                grads, own = claim(node, grads, uncommon)
            elif owned and id(grads) in owned:      # buffer.claim on a plain array, inline
                owned.discard(id(grads))
                own = not uncommon
            if uncommon:
                grads = _before_apply(node, grads, create_graph, accumulate, targets, reaching, executing, captured)
                if grads is None:
                    continue
            elif type(node) is AccumulateGrad:
                _accumulate_leaf(node.variable, grads, create_graph, fresh=own)
                continue
            results = _apply_noting_errors(node, grads, create_graph) if anomaly_mode else \
                node._apply(grads, create_graph)
            if uncommon and node._node_hooks:
                results = _run_node_hooks(node, results, grads, create_graph)
            if check_nan:
                _check_nan(node, results)
            send(node, results, grads, own)
            if not retain_graph and node._saved is not None:
                node._saved, node._freed = None, True        # release(node), inline
    finally:
        STATE.grad_enabled = previous_mode
        reset_quiet(quiet)
        collector.resume()
        WALKS.pop()
    return captured


_LEAF_ORDERS: dict = {}     # k -> the order PyTorch's ready queue gives k leaves pushed together


def leaf_order(k):
    """The order in which PyTorch's engine runs the AccumulateGrad nodes of ``k`` leaves that
    one node's backward made ready together (in input order): its ready queue is a binary heap
    on which they all have the highest priority, so ties come out as the heap's algorithm
    leaves them, not first in first out. ``heapq`` is the same algorithm (libstdc++'s
    ``push_heap``/``pop_heap``, ties to the right child, strict comparisons).

    >>> leaf_order(2), leaf_order(3), leaf_order(4), leaf_order(5)
    ([0, 1], [0, 1, 2], [0, 2, 1, 3], [0, 2, 4, 1, 3])
    """
    order = _LEAF_ORDERS.get(k)
    if order is None:
        heap = []
        for i in range(k):
            heappush(heap, _Tie(i))
        order = _LEAF_ORDERS[k] = [heappop(heap).index for _ in range(k)]
    return order


class _Tie:
    """A heap entry equal to every other (``<`` is always false)."""
    __slots__ = ("index",)

    def __init__(self, index):
        self.index = index

    def __lt__(self, other):
        return False


def _leaves_in_pytorchs_order(ready, node):
    """``node`` (an AccumulateGrad just popped) and the AccumulateGrads recorded just before it
    that wait on top of ``ready``: leaves that became inputs of one op together, complete
    together. They are put back with keys that pop them in PyTorch's order (``leaf_order``,
    their input order for two), so that their hooks run in PyTorch's order; the first is
    returned (popped)."""
    group = [node]
    while ready and ready[0][0] == 1 - group[-1].seq and type(ready[0][1]) is AccumulateGrad:
        group.append(heappop(ready)[1])
    group.reverse()             # in the order they were made: the op's input order
    top = -node.seq - 1
    k = len(group)
    for place, index in enumerate(leaf_order(k)):
        heappush(ready, (top + place / k, group[index]))
    return heappop(ready)[1]


def _apply_noting_errors(node, grads, create_graph):
    """A node's backward in anomaly mode: if it fails, say where its forward call was."""
    try:
        return node._apply(grads, create_graph)
    except Exception:
        _warn_error_in(node, stacklevel=5)  # the warning points where it did when run_backward raised it
        raise


def _check_nan(node, results):
    """Anomaly mode with its NaN check: a backward that returned NaN is an error."""
    for index, g in enumerate(results):
        if g is not None and _has_nan(g):
            raise _anomaly_error(node, index)


def _before_apply(node, grads, create_graph, accumulate, targets, reaching, executing, captured):
    """The uncommon parts of a step: tensor hooks, retain_grad, capturing the gradients that
    ``grad()`` asked for, leaves. Returns what the node's backward gets, or None to skip it."""
    if reaching is not None and node not in reaching:
        return None
    multi = node.n_outputs != 1
    grads = _hooked(node, grads if multi else [grads], create_graph)
    if node._retained is not None:
        for index, ref in node._retained.items():
            tensor = ref()
            if tensor is not None and grads[index] is not None:
                accumulate_into(tensor, grads[index], create_graph)
    if targets is not None:
        for index, g in enumerate(grads):
            if (node, index) in targets:
                captured[(node, index)] = g
    if type(node) is AccumulateGrad:
        if accumulate and (targets is None or (node, 0) in targets):
            _accumulate_leaf(node.variable, grads[0], create_graph)
        return None
    if executing is not None and node not in executing:
        return None
    return grads if multi else grads[0]


def _hooked(node, grads, create_graph):
    """The gradients of a node's outputs (a list) after its outputs' tensor hooks and its
    own pre-hooks, each of which may replace them."""
    if node._pre_hooks is not None:
        for index, hooks in node._pre_hooks.items():
            if grads[index] is not None and hooks:
                grads[index] = _run_tensor_hooks(hooks, grads[index], create_graph)
    if node._node_pre_hooks:
        outputs = tuple(None if g is None else _to_tensor(g) for g in grads)
        for hook in list(node._node_pre_hooks.values()):
            replaced = hook(outputs)
            if replaced is not None:
                outputs = tuple(replaced)
        grads = [None if g is None else (g if create_graph else g._data) for g in outputs]
    return grads


sequence_key = operator.attrgetter("seq")   # a node's place in the order of recording: later nodes are walked first


def _accumulate_leaf(tensor, grad, create_graph, fresh=False):
    if tensor._hooks:
        grad = _run_tensor_hooks(tensor._hooks, grad, create_graph)
        fresh = False
    accumulate_into(tensor, grad, create_graph, fresh)
    if tensor._post_hooks:
        for hook in list(tensor._post_hooks.values()):
            hook(tensor)
