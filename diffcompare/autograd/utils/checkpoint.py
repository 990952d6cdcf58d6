"""``torch.utils.checkpoint``: activation checkpointing, trading compute for memory.

``checkpoint(function, *args, use_reentrant=True)`` runs ``function`` without recording it
and keeps only its inputs; backward runs it again with recording on (the same random draws:
the generator's state is put back first) and back-propagates through that second run, as
PyTorch's reentrant ``CheckpointFunction`` does, with its limits: the output requires grad only
when an input tensor does (parameters used inside do not count), and ``autograd.grad`` or
``backward(inputs=...)`` through it is refused.

``use_reentrant=False`` gives the gradients and graph of running ``function`` plainly — its own
nodes, parameters reached whatever the inputs — as PyTorch's non-reentrant variant does; here
the intermediate values are kept rather than recomputed (the memory saving is not reproduced).
Selective checkpointing's policies (``create_selective_checkpoint_contexts``) decide what is
saved versus recomputed, so they change memory, not values: they are accepted and not called.

>>> from diffcompare import autograd as ag
>>> from diffcompare.autograd.utils.checkpoint import checkpoint
>>> w = ag.tensor([2.0], requires_grad=True)
>>> x = ag.tensor([3.0], requires_grad=True)
>>> y = checkpoint(lambda t: (t * w).sin(), x, use_reentrant=True)
>>> y.grad_fn.name()
'CheckpointFunctionBackward'
>>> y.sum().backward()
>>> round(float(x.grad), 6), round(float(w.grad), 6)      # w cos(wx), x cos(wx)
(1.920341, 2.880511)
"""

from __future__ import annotations

import contextlib
import enum
import warnings

from ..backward import backward as run_backward
from ..function import Function
from ..grad_mode import enable_grad, no_grad
from ..graph import WALKS
from .. import random
from ..tensor import Tensor

__all__ = ["CheckpointError", "CheckpointFunction", "CheckpointPolicy", "SelectiveCheckpointContext", "check_backward_validity",
           "get_device_states", "set_device_states",
           "checkpoint", "checkpoint_sequential", "create_selective_checkpoint_contexts", "detach_variable",
           "noop_context_fn", "set_checkpoint_debug_enabled", "set_checkpoint_early_stop"]


class CheckpointError(RuntimeError):
    """A checkpointed function's second run differed from its first (PyTorch's error class)."""


def get_device_states(*args):
    """The accelerator devices of ``args``' tensors and their random states, for a checkpoint
    to replay: none on a CPU-only engine (``([], [])``), as PyTorch's CPU build says."""
    return [], []


def set_device_states(devices, states, *, device_type=None) -> None:
    """Restore what ``get_device_states`` gave: nothing to restore on a CPU-only engine."""


def noop_context_fn():
    """The default ``context_fn``: two contexts that do nothing."""
    return contextlib.nullcontext(), contextlib.nullcontext()


def check_backward_validity(inputs):
    """PyTorch's warning when no input tensor requires grad: the reentrant checkpoint's output
    then requires none, and nothing inside gets a gradient."""
    if not any(t.requires_grad for t in inputs if isinstance(t, Tensor)):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None", stacklevel=3)


def detach_variable(inputs):
    """The tensors of ``inputs`` detached, each requiring grad as the original did (others as they are)."""
    if not isinstance(inputs, tuple):
        raise RuntimeError(f"Only tuple of tensors is supported. Got Unsupported input type: {type(inputs).__name__}")
    out = []
    for value in inputs:
        if isinstance(value, Tensor):
            detached = value.detach()
            detached.requires_grad = value.requires_grad
            out.append(detached)
        else:
            out.append(value)
    return tuple(out)


class CheckpointFunction(Function):
    """The reentrant checkpoint: forward without recording, backward by running again."""

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        check_backward_validity(args)
        ctx.run_function, ctx.preserve_rng_state = run_function, preserve_rng_state
        if preserve_rng_state:
            ctx.fwd_cpu_state = random.get_rng_state()
        ctx.inputs = [None if isinstance(a, Tensor) else a for a in args]
        ctx.tensor_indices = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        ctx.save_for_backward(*[a for a in args if isinstance(a, Tensor)])
        with no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx, *grads):
        if WALKS and WALKS[-1][1] is not None:
            raise RuntimeError("When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() or "
                               "passing an `inputs` parameter to .backward(). To resolve this error, you can either "
                               "set use_reentrant=False, or call .backward() without passing the `inputs` argument.")
        inputs = list(ctx.inputs)
        for i, t in zip(ctx.tensor_indices, ctx.saved_tensors):
            inputs[i] = t
        with random.fork_rng(enabled=ctx.preserve_rng_state):
            if ctx.preserve_rng_state:
                random.set_rng_state(ctx.fwd_cpu_state)
            detached = detach_variable(tuple(inputs))
            with enable_grad():
                outputs = ctx.run_function(*detached)
        if isinstance(outputs, Tensor):
            outputs = (outputs,)
        pairs = [(o, g) for o, g in zip(outputs, grads) if isinstance(o, Tensor) and o.requires_grad]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
        run_backward([o for o, _ in pairs], [g for _, g in pairs])
        return (None, None) + tuple(t.grad if isinstance(t, Tensor) else None for t in detached)


def checkpoint(function, *args, use_reentrant=None, context_fn=noop_context_fn, determinism_check="default",
               debug=False, early_stop=True, **kwargs):
    """``function(*args, **kwargs)`` checkpointed (see the module's description). Without
    ``use_reentrant``, PyTorch 2.13's warning and the reentrant variant, its default."""
    if use_reentrant is None:
        warnings.warn("torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting in "
                      "PyTorch 2.9, calling checkpoint without use_reentrant will raise an exception. "
                      "use_reentrant=False is recommended, but if you need to preserve the current default behavior, "
                      "you can pass use_reentrant=True. Refer to docs for more details on the differences between the "
                      "two variants.", stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if use_reentrant:
        if kwargs:
            raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only supported when use_reentrant=False.")
        return CheckpointFunction.apply(function, preserve, *args)
    forward_context, _ = context_fn()
    with forward_context:
        return function(*args, **kwargs)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """A sequence of functions (an ``nn.Sequential``'s modules) run in ``segments`` parts, each
    part but the last checkpointed, as PyTorch's ``checkpoint_sequential``."""
    if use_reentrant is None:
        warnings.warn("torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be passed "
                      "explicitly. In version 2.9 we will raise an exception if use_reentrant is not passed. "
                      "use_reentrant=False is recommended, but if you need to preserve the current default behavior, "
                      "you can pass use_reentrant=True. Refer to docs for more details on the differences between the "
                      "two variants.", stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if hasattr(functions, "children") and callable(functions.children):
        functions = list(functions.children())

    def run(start, end):
        def forward(value):
            for j in range(start, end + 1):
                value = functions[j](value)
            return value
        return forward

    size = len(functions) // segments
    end = -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        input = checkpoint(run(start, end), input, use_reentrant=use_reentrant, preserve_rng_state=preserve)
    return run(end + 1, len(functions) - 1)(input)


@contextlib.contextmanager
def set_checkpoint_early_stop(enable: bool):
    """Whether recomputation stops once the needed values are made: a memory matter, so a
    context that changes nothing here."""
    yield


@contextlib.contextmanager
def set_checkpoint_debug_enabled(enabled):
    """PyTorch's debug traces of recomputation (none here: nothing is recomputed without reentrancy)."""
    yield


class CheckpointPolicy(enum.Enum):
    """What selective checkpointing does with an op's output: save it or recompute it."""
    MUST_SAVE = 0
    PREFER_SAVE = 1
    MUST_RECOMPUTE = 2
    PREFER_RECOMPUTE = 3


class SelectiveCheckpointContext:
    """What a selective checkpointing policy is told about the op it decides on."""

    def __init__(self, *, is_recompute):
        self.is_recompute = is_recompute


def create_selective_checkpoint_contexts(policy_fn_or_list, allow_cache_entry_mutation=False):
    """The ``context_fn`` of selective checkpointing: the policy (a function of the op, or a
    list of ops to save) decides memory, not values, so the contexts do nothing here."""
    if not (callable(policy_fn_or_list) or isinstance(policy_fn_or_list, list)):
        raise TypeError("policy_fn_or_list must be either a function or a list of ops.")
    return noop_context_fn()
