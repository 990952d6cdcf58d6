"""The recorded graph and the backward walk.

Every differentiable operation that runs with grad enabled leaves one ``Node`` behind: it
knows where its inputs' gradients go (``next_functions``) and keeps what its
vector-Jacobian product needs (saved tensors, with the version each had when saved).
A leaf that requires grad is represented in the graph by an ``AccumulateGrad`` node.

``run_backward`` walks the nodes reachable from the outputs in decreasing creation order.
Every input of a node was created before the node, so that order is topological; the
walk is a loop, never recursion, so a graph a million nodes deep is fine.
"""

from __future__ import annotations

import itertools
import traceback
import warnings
import weakref

import numpy as np

from .grad_mode import STATE

_sequence = itertools.count()

FREED_ERROR = (
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed). Saved intermediate values of the graph are freed when you call "
    ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
    "graph a second time or if you need to access saved tensors after calling backward."
)


class SavedTensor:
    """A tensor kept for backward, with the version it had when it was saved.

    An op's output is kept as its array (holding the output tensor itself would make a
    reference cycle output -> node -> output); it is turned back into a tensor whose
    ``grad_fn`` is the saving node only when a differentiable backward asks for it.
    """

    __slots__ = ("tensor", "array", "counter", "version", "is_output")

    def __init__(self, tensor, is_output):
        self.is_output = is_output
        self.counter = tensor._vc
        self.version = tensor._vc[0]
        if is_output:
            self.tensor = None
            self.array = tensor._data
        else:
            self.tensor = tensor
            self.array = None

    def unpack(self, node, as_tensor):
        if self.counter[0] != self.version:
            raise RuntimeError(_modified_message(self, node))
        if self.is_output:
            if not as_tensor:
                return self.array
            from .tensor import Tensor

            return Tensor._make(self.array, True, node, self.counter)
        return self.tensor if as_tensor else self.tensor._data


def _modified_message(saved, node):
    array = saved.array if saved.is_output else saved.tensor._data
    shape = ", ".join(str(n) for n in array.shape)
    who = f"[{array.dtype} tensor [{shape}]]"
    if saved.is_output:
        who += f", which is output 0 of {type(node).__name__}"
    elif saved.tensor.grad_fn is not None:
        who += f", which is output {saved.tensor._output_nr} of {type(saved.tensor.grad_fn).__name__}"
    hint = (
        "Hint: the backtrace further above shows the operation that failed to compute its gradient. "
        "The variable in question was changed in there or anywhere later. Good luck!"
        if STATE.anomaly_enabled
        else "Hint: enable anomaly detection to find the operation that failed to compute its gradient, "
        "with diffcompare.autograd.set_detect_anomaly(True, check_nan=False)."
    )
    return (
        "one of the variables needed for gradient computation has been modified by an inplace "
        f"operation: {who}, is at version {saved.counter[0]}; expected version {saved.version} "
        f"instead. {hint}"
    )


class Node:
    """One recorded operation. Subclasses define ``backward(self, grad, *saved)``.

    ``next_functions`` is a tuple of ``(node or None, output_index)``, one per input, as in
    PyTorch; ``None`` marks an input that does not require grad.
    """

    __slots__ = ("next_functions", "seq", "_saved", "_freed", "_pre_hooks", "_retained",
                 "_trace", "__weakref__", "__dict__")
    n_outputs = 1

    def name(self) -> str:
        return type(self).__name__

    @property
    def metadata(self):
        return {}

    def __repr__(self):
        return f"<{type(self).__name__} object at {hex(id(self))}>"

    def register_hook(self, hook):  # noqa: D401 - PyTorch spelling
        raise NotImplementedError("node hooks are not supported; use Tensor.register_hook")

    # -- saved tensors -------------------------------------------------------------------
    def _unpack(self, as_tensor):
        saved = self._saved
        if saved is None:
            if self._freed:
                raise RuntimeError(FREED_ERROR)
            return ()
        return [s.unpack(self, as_tensor) if type(s) is SavedTensor else s for s in saved]

    def _release(self):
        if self._saved is not None:
            self._saved = None
            self._freed = True

    def __getattr__(self, name):
        # PyTorch exposes saved values as _saved_<name>; reading them after they were freed
        # raises the same error as a second backward.
        if name.startswith("_saved_"):
            if self._freed:
                raise RuntimeError(FREED_ERROR)
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")


def init_node(node, edges, saved=None):
    """Fill the fields every node has; ops call this right after creating the node."""
    node.next_functions = edges
    node._saved = saved
    node._freed = False
    node._pre_hooks = None
    node._retained = None
    node._trace = traceback.format_stack()[:-3] if STATE.anomaly_enabled else None
    node.seq = next(_sequence)
    return node


class AccumulateGrad(Node):
    """The graph's node for a leaf that requires grad: writes into ``leaf.grad``."""

    def __init__(self, variable):
        init_node(self, ())
        self.variable = variable


def edge_of(t):
    """The (node, output index) through which a gradient reaches tensor ``t``."""
    fn = t.grad_fn
    if fn is not None:
        return (fn, t._output_nr)
    if not t.requires_grad:
        return (None, 0)
    ref = t._accum
    acc = ref() if ref is not None else None
    if acc is None:
        acc = AccumulateGrad(t)
        t._accum = weakref.ref(acc)
    return (acc, 0)


# --- the backward walk ----------------------------------------------------------------------

def _add(a, b):
    """Sum two gradient contributions; ``None`` means no contribution."""
    if a is None:
        return b
    if b is None:
        return a
    return a + b


def accumulate_into(tensor, grad, create_graph):
    """Add ``grad`` into ``tensor.grad`` as PyTorch does: a fresh tensor the first time, in
    place after that, out of place when the gradient itself is being differentiated."""
    from .tensor import Tensor

    if isinstance(grad, Tensor):
        if not create_graph:
            grad = grad._data
    if type(grad) is not Tensor and grad.dtype != tensor._data.dtype:
        grad = grad.astype(tensor._data.dtype)
    current = tensor._grad
    if current is None:
        if type(grad) is Tensor:
            tensor._grad = grad if grad.grad_fn is not None else Tensor._make(np.array(grad._data))
        else:
            tensor._grad = Tensor._make(np.array(grad, dtype=tensor._data.dtype))
    elif create_graph or current.requires_grad or type(grad) is Tensor:
        tensor._grad = current + grad
    else:
        current._data += grad
        current._vc[0] += 1


def _to_tensor(g):
    from .tensor import Tensor

    return g if isinstance(g, Tensor) else Tensor._make(np.asarray(g))


def _run_tensor_hooks(hooks, grad, create_graph):
    """Apply a tensor's hooks in registration order; each may return a replacement."""
    g = _to_tensor(grad)
    for hook in hooks.values():
        result = hook(g)
        if result is not None:
            if tuple(result.shape) != tuple(g.shape):
                name = getattr(hook, "__name__", repr(hook))
                raise RuntimeError(f"hook '{name}' has changed the size of value")
            g = _to_tensor(result)
    return g if create_graph else g._data


def _has_nan(g):
    data = np.asarray(getattr(g, "_data", g))
    return data.dtype.kind in "fc" and bool(np.isnan(data).any())


def _anomaly_error(node, index):
    name = type(node).__name__
    if node._trace:
        warnings.warn(
            f"Error detected in {name}. Traceback of forward call that caused the error:\n"
            + "".join(node._trace),
            UserWarning,
            stacklevel=4,
        )
    return RuntimeError(f"Function '{name}' returned nan values in its {index}th output.")


def _collect(roots):
    """Every node reachable from ``roots``, found with an explicit stack."""
    seen = set()
    order = []
    stack = [n for n in roots if n is not None]
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        order.append(node)
        for nxt, _ in node.next_functions:
            if nxt is not None and nxt not in seen:
                stack.append(nxt)
    return order


def run_backward(roots, seeds, retain_graph, create_graph, targets=None, accumulate=True):
    """Propagate ``seeds`` (one per root edge) backward through the graph.

    ``targets``: edges whose incoming gradient is wanted. With ``accumulate=False`` (that is
    ``autograd.grad``) their gradients are returned and no ``.grad`` is touched; with
    ``accumulate=True`` and targets (``backward(inputs=...)``) only those leaves accumulate.
    Returns a dict edge -> gradient for the targets.
    """
    nodes = _collect([edge[0] for edge in roots])
    nodes.sort(key=_seq_key, reverse=True)

    reaching = executing = None
    captured = {}
    if targets is not None:
        target_set = set(targets)
        target_nodes = {edge[0] for edge in targets}
        # Only nodes with a path to a target matter (PyTorch's exec_info). A node runs its
        # backward only if one of its inputs leads to a target; a target itself is read
        # before it would run. Inputs come first in reversed order, so one pass marks all.
        reaching, executing = set(), set()
        for node in reversed(nodes):
            if any(n in reaching for n, _ in node.next_functions if n is not None):
                executing.add(node)
                reaching.add(node)
            elif node in target_nodes:
                reaching.add(node)

    buffers = {}
    for (node, index), seed in zip(roots, seeds):
        if node is None:
            continue
        _deposit(buffers, node, index, seed)

    previous_mode = STATE.grad_enabled
    STATE.grad_enabled = create_graph
    anomaly = STATE.anomaly_enabled and STATE.anomaly_check_nan
    quiet = np.errstate(all="ignore")  # 0 * inf is nan, as in PyTorch, without warnings
    quiet.__enter__()  # once per backward call, so its cost does not matter
    try:
        for node in nodes:
            if reaching is not None and node not in reaching:
                continue
            grads = buffers.pop(node, None)
            if grads is None:
                continue
            multi = node.n_outputs != 1
            if not multi:
                grads = [grads]
            if node._pre_hooks is not None:
                for index, hooks in node._pre_hooks.items():
                    if grads[index] is not None and hooks:
                        grads[index] = _run_tensor_hooks(hooks, grads[index], create_graph)
            if node._retained is not None:
                for index, ref in node._retained.items():
                    tensor = ref()
                    if tensor is not None and grads[index] is not None:
                        accumulate_into(tensor, grads[index], create_graph)
            if targets is not None:
                for index, g in enumerate(grads):
                    if (node, index) in target_set:
                        captured[(node, index)] = g
            if type(node) is AccumulateGrad:
                if accumulate and (targets is None or (node, 0) in target_set):
                    _accumulate_leaf(node.variable, grads[0], create_graph)
                continue
            if executing is not None and node not in executing:
                continue
            results = node._apply(grads if multi else grads[0], create_graph)
            if not retain_graph:
                node._release()
            if anomaly:
                for index, g in enumerate(results):
                    if g is not None and _has_nan(g):
                        raise _anomaly_error(node, index)
            for (nxt, index), g in zip(node.next_functions, results):
                if nxt is not None and g is not None:
                    _deposit(buffers, nxt, index, g)
    finally:
        STATE.grad_enabled = previous_mode
        quiet.__exit__(None, None, None)
    return captured


def _seq_key(node):
    return node.seq


def _deposit(buffers, node, index, grad):
    if node.n_outputs == 1:
        previous = buffers.get(node)
        buffers[node] = grad if previous is None else previous + grad
    else:
        slots = buffers.get(node)
        if slots is None:
            slots = buffers[node] = [None] * node.n_outputs
        slots[index] = _add(slots[index], grad)


def _accumulate_leaf(tensor, grad, create_graph):
    if tensor._hooks:
        grad = _run_tensor_hooks(tensor._hooks, grad, create_graph)
    accumulate_into(tensor, grad, create_graph)
    if tensor._post_hooks:
        for hook in tensor._post_hooks.values():
            hook(tensor)
