"""``torch.nn.utils.prune``: pruning a module's tensor by a mask, as PyTorch does it.

Pruning ``name`` moves the parameter to ``<name>_orig``, registers the mask as the buffer
``<name>_mask`` and sets the plain attribute ``<name> = <name>_mask * <name>_orig``, recomputed
before every forward by the pruning method itself, registered as a forward pre-hook. Pruning the
same tensor again combines the masks in a :class:`PruningContainer`; :func:`remove` makes the
pruned tensor a parameter again.

The torch-level calls (``rand_like``, ``rand``, ``topk``, ``kthvalue``, ``norm``) are looked up
on the package at call time, so a caller that replaces the package's random functions replaces
them here too.

>>> from diffcompare import autograd as ag
>>> from diffcompare.autograd.nn.utils import prune
>>> m = ag.nn.Linear(2, 2)
>>> with ag.no_grad():
...     _ = m.weight.copy_(ag.tensor([[1.0, -3.0], [2.0, 0.5]]))
>>> _ = prune.l1_unstructured(m, "weight", amount=0.5)
>>> m.weight_mask
tensor([[0., 1.],
        [1., 0.]])
>>> [name for name, _ in m.named_parameters()], m.weight.grad_fn.name()
(['bias', 'weight_orig'], 'MulBackward0')
"""

from __future__ import annotations

import numbers
import sys
from abc import ABC, abstractmethod
from collections.abc import Iterable

from ...size import Size
from .convert_parameters import parameters_to_vector

# the package itself (partly made while it imports this one; its names are read at call time)
ag = sys.modules[__name__.rsplit(".", 3)[0]]


class BasePruningMethod(ABC):
    """A pruning method: ``compute_mask`` decides which entries to zero; ``apply`` sets up the
    ``<name>_orig`` / ``<name>_mask`` reparametrization on a module; an instance is the forward
    pre-hook that recomputes ``<name>`` from them.

    >>> from diffcompare import autograd as ag
    >>> from diffcompare.autograd.nn.utils import prune
    >>> prune.L1Unstructured(amount=1).prune(ag.tensor([3.0, 1.0, -2.0]))
    tensor([ 3.,  0., -2.])
    """

    _tensor_name: str

    def __call__(self, module, inputs):
        """The forward pre-hook: ``module.<name>`` becomes ``mask * orig`` again."""
        setattr(module, self._tensor_name, self.apply_mask(module))

    @abstractmethod
    def compute_mask(self, t, default_mask):
        """The mask for ``t``, on top of ``default_mask`` (the mask of earlier pruning)."""

    def apply_mask(self, module):
        """``<name>_mask * <name>_orig`` of ``module`` (MulBackward0 in the graph)."""
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned")
        mask = getattr(module, self._tensor_name + "_mask")
        orig = getattr(module, self._tensor_name + "_orig")
        return mask.to(dtype=orig.dtype) * orig

    @classmethod
    def apply(cls, module, name, *args, importance_scores=None, **kwargs):
        """Prune ``module.<name>`` with ``cls(*args, **kwargs)``, on top of any earlier pruning of
        it, and register the method as a forward pre-hook; the method (or container) is returned."""
        method = _composite_method(cls, module, name, args, kwargs)
        orig = getattr(module, name)
        if importance_scores is not None:
            if importance_scores.shape != orig.shape:
                raise AssertionError(f"importance_scores should have the same shape as parameter {name} of "
                                     f"{module}, got {Size(importance_scores.shape)} vs {Size(orig.shape)}")
        else:
            importance_scores = orig
        first_time = not isinstance(method, PruningContainer)
        if first_time:
            module.register_parameter(name + "_orig", orig)
            module._parameters.pop(name)            # `name` is set again below, as a plain attribute
            default_mask = ag.ones_like(orig)
        else:
            default_mask = getattr(module, name + "_mask").detach().clone()
        try:
            mask = method.compute_mask(importance_scores, default_mask=default_mask)
            module.register_buffer(name + "_mask", mask)
            setattr(module, name, method.apply_mask(module))
            module.register_forward_pre_hook(method)
        except Exception:
            if first_time:                          # put the parameter back as it was
                orig = getattr(module, name + "_orig")
                module.register_parameter(name, orig)
                delattr(module, name + "_orig")
            raise
        return method

    def prune(self, t, default_mask=None, importance_scores=None):
        """``t`` times the mask ``compute_mask`` gives (scores: ``importance_scores``, else ``t``)."""
        if importance_scores is not None:
            if importance_scores.shape != t.shape:
                raise AssertionError(f"importance_scores should have the same shape as tensor t, got "
                                     f"{Size(importance_scores.shape)} vs {Size(t.shape)}")
        else:
            importance_scores = t
        default_mask = default_mask if default_mask is not None else ag.ones_like(t)
        return t * self.compute_mask(importance_scores, default_mask=default_mask)

    def remove(self, module):
        """Make ``module.<name>`` a parameter again holding the pruned values; ``<name>_orig``
        and ``<name>_mask`` go (the pruning itself stays)."""
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned before pruning can be removed")
        weight = self.apply_mask(module)
        if hasattr(module, self._tensor_name):
            delattr(module, self._tensor_name)
        orig = module._parameters[self._tensor_name + "_orig"]
        orig.data = weight.data
        delattr(module, self._tensor_name + "_orig")
        delattr(module, self._tensor_name + "_mask")
        setattr(module, self._tensor_name, orig)


def _composite_method(cls, module, name, args, kwargs):
    """A new ``cls`` method for ``name``, added to the pruning already hooked on ``name`` (whose
    hook is taken off) in a container."""
    old_method, keys = None, []
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            old_method = hook
            keys.append(key)
    if len(keys) > 1:
        raise AssertionError(f"Avoid adding multiple pruning hooks to the same tensor {name} of module {module}. "
                             "Use a PruningContainer.")
    for key in keys:
        del module._forward_pre_hooks[key]
    method = cls(*args, **kwargs)
    method._tensor_name = name
    if isinstance(old_method, PruningContainer):
        old_method.add_pruning_method(method)
        method = old_method
    elif isinstance(old_method, BasePruningMethod):
        container = PruningContainer(old_method)
        container.add_pruning_method(method)
        method = container
    return method


class PruningContainer(BasePruningMethod):
    """The pruning methods applied one after another to one tensor; its mask is the last method's
    mask computed on the entries (or channels) the earlier ones left.

    >>> from diffcompare import autograd as ag
    >>> from diffcompare.autograd.nn.utils import prune
    >>> m = prune.l1_unstructured(ag.nn.Linear(3, 1), "weight", amount=1)
    >>> m = prune.l1_unstructured(m, "weight", amount=1)
    >>> [type(p).__name__ for p in next(iter(m._forward_pre_hooks.values()))]
    ['L1Unstructured', 'L1Unstructured']
    >>> int((m.weight_mask == 0).sum())
    2
    """

    def __init__(self, *args):
        self._pruning_methods = ()
        if len(args) == 1:
            self._tensor_name = args[0]._tensor_name
            self.add_pruning_method(args[0])
        else:
            for method in args:
                self.add_pruning_method(method)

    def add_pruning_method(self, method):
        """Append ``method`` (acting on the same tensor name) to the container."""
        if not isinstance(method, BasePruningMethod) and method is not None:
            raise TypeError(f"{type(method)} is not a BasePruningMethod subclass")
        if method is not None and self._tensor_name != method._tensor_name:
            raise ValueError("Can only add pruning methods acting on the parameter named "
                             f"'{self._tensor_name}' to PruningContainer {self}. Found '{method._tensor_name}'")
        self._pruning_methods += (method,)

    def __len__(self):
        return len(self._pruning_methods)

    def __iter__(self):
        return iter(self._pruning_methods)

    def __getitem__(self, idx):
        return self._pruning_methods[idx]

    def compute_mask(self, t, default_mask):
        """``default_mask`` with the last method's mask written where it still has a say: the
        entries still 1 ('unstructured'), the channels along its ``dim`` not all zero
        ('structured'), or everywhere ('global')."""
        method = self._pruning_methods[-1]
        new_mask = default_mask.to(dtype=t.dtype)
        kind = method.PRUNING_TYPE
        if kind == "unstructured":
            slc = default_mask == 1
        elif kind == "structured":
            if not hasattr(method, "dim"):
                raise AttributeError('Pruning methods of PRUNING_TYPE "structured" need to have the attribute '
                                     "`dim` defined.")
            n_dims = t.dim()
            dim = method.dim + n_dims if method.dim < 0 else method.dim
            if dim < 0:
                raise IndexError(f"Index is out of bounds for tensor with dimensions {n_dims}")
            keep_channel = default_mask.sum(dim=[d for d in range(n_dims) if d != dim]) != 0
            slc = [slice(None)] * n_dims
            slc[dim] = keep_channel
            slc = tuple(slc)
        elif kind == "global":
            slc = (slice(None),) * len(t.shape)
        else:
            raise ValueError(f"Unrecognized PRUNING_TYPE {kind}")
        partial_mask = method.compute_mask(t[slc], default_mask=default_mask[slc])
        new_mask[slc] = partial_mask.to(dtype=new_mask.dtype)
        return new_mask


class Identity(BasePruningMethod):
    """Prunes nothing: the reparametrization with a mask of ones."""

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t, default_mask):
        return default_mask

    @classmethod
    def apply(cls, module, name):
        return super().apply(module, name)


def _unstructured_mask(t, default_mask, amount, scores, largest):
    """``default_mask`` with the ``amount`` entries of ``t`` that rank first by ``scores()``
    (largest or smallest; computed only when something is pruned, as PyTorch draws) set to 0."""
    tensor_size = t.nelement()
    nparams_toprune = _compute_nparams_toprune(amount, tensor_size)
    _validate_pruning_amount(nparams_toprune, tensor_size)
    mask = default_mask.clone()
    if nparams_toprune != 0:
        topk = ag.topk(scores().view(-1), k=nparams_toprune, largest=largest)
        mask.view(-1)[topk.indices] = 0
    return mask


class _Unstructured(BasePruningMethod):
    """A method that prunes ``amount`` single entries (a count, or a fraction of them)."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount):
        _validate_pruning_amount_init(amount)
        self.amount = amount


class RandomUnstructured(_Unstructured):
    """Prunes ``amount`` entries (a count, or a fraction of them) chosen at random: the ``k``
    largest of ``torch.rand_like(t)``."""

    def compute_mask(self, t, default_mask):
        return _unstructured_mask(t, default_mask, self.amount, lambda: ag.rand_like(t), largest=True)

    @classmethod
    def apply(cls, module, name, amount):
        return super().apply(module, name, amount=amount)


class L1Unstructured(_Unstructured):
    """Prunes the ``amount`` entries of smallest magnitude (``torch.topk(..., largest=False)``:
    its choice among equal magnitudes)."""

    def compute_mask(self, t, default_mask):
        return _unstructured_mask(t, default_mask, self.amount, lambda: ag.abs(t), largest=False)

    @classmethod
    def apply(cls, module, name, amount, importance_scores=None):
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


class RandomStructured(BasePruningMethod):
    """Prunes ``amount`` whole channels along ``dim`` at random: those whose ``torch.rand``
    draw is not above the ``k``-th smallest."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount, dim=-1):
        _validate_pruning_amount_init(amount)
        self.amount = amount
        self.dim = dim

    def compute_mask(self, t, default_mask):
        _validate_structured_pruning(t)
        _validate_pruning_dim(t, self.dim)
        tensor_size = t.shape[self.dim]
        nparams_toprune = _compute_nparams_toprune(self.amount, tensor_size)
        _validate_pruning_amount(nparams_toprune, tensor_size)
        if nparams_toprune == 0:
            return default_mask
        prob = ag.rand(tensor_size)
        threshold = ag.kthvalue(prob, k=nparams_toprune).values
        mask = _channel_mask(t, self.dim, prob > threshold)
        mask *= default_mask.to(dtype=mask.dtype)
        return mask

    @classmethod
    def apply(cls, module, name, amount, dim=-1):
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(BasePruningMethod):
    """Prunes the ``amount`` channels along ``dim`` of smallest L``n``-norm (``torch.norm``'s
    ``p``: a number, ``inf``, ``-inf``, ``'fro'``, ``'nuc'``); the others are kept by
    ``torch.topk``."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount, n, dim=-1):
        _validate_pruning_amount_init(amount)
        self.amount = amount
        self.n = n
        self.dim = dim

    def compute_mask(self, t, default_mask):
        _validate_structured_pruning(t)
        _validate_pruning_dim(t, self.dim)
        tensor_size = t.shape[self.dim]
        nparams_toprune = _compute_nparams_toprune(self.amount, tensor_size)
        nparams_tokeep = tensor_size - nparams_toprune
        _validate_pruning_amount(nparams_toprune, tensor_size)
        norm = _compute_norm(t, self.n, self.dim)
        topk = ag.topk(norm, k=nparams_tokeep, largest=True)
        if nparams_toprune == 0:
            return default_mask
        mask = _channel_mask(t, self.dim, topk.indices)
        mask *= default_mask.to(dtype=mask.dtype)
        return mask

    @classmethod
    def apply(cls, module, name, amount, n, dim, importance_scores=None):
        return super().apply(module, name, amount=amount, n=n, dim=dim, importance_scores=importance_scores)


def _channel_mask(t, dim, channels):
    """Zeros shaped as ``t``, ones in the ``channels`` (indices or booleans) along ``dim``."""
    mask = ag.zeros_like(t)
    slc = [slice(None)] * len(t.shape)
    slc[dim] = channels
    mask[tuple(slc)] = 1
    return mask


class CustomFromMask(BasePruningMethod):
    """Prunes where the given ``mask`` is zero."""

    PRUNING_TYPE = "global"

    def __init__(self, mask):
        self.mask = mask

    def compute_mask(self, t, default_mask):
        if default_mask.shape != self.mask.shape:
            raise AssertionError(f"default_mask shape {Size(default_mask.shape)} must match self.mask shape "
                                 f"{Size(self.mask.shape)}")
        return default_mask * self.mask.to(dtype=default_mask.dtype)

    @classmethod
    def apply(cls, module, name, mask):
        return super().apply(module, name, mask=mask)


def identity(module, name):
    """The pruning reparametrization of ``module.<name>`` with a mask of ones; ``module`` is returned.

    >>> from diffcompare import autograd as ag
    >>> identity(ag.nn.Linear(2, 3), "bias").bias_mask
    tensor([1., 1., 1.])
    """
    Identity.apply(module, name)
    return module


def random_unstructured(module, name, amount):
    """Prune ``amount`` random (still unpruned) entries of ``module.<name>``.

    >>> from diffcompare import autograd as ag
    >>> int((random_unstructured(ag.nn.Linear(2, 3), "weight", amount=1).weight_mask == 0).sum())
    1
    """
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(module, name, amount, importance_scores=None):
    """Prune the ``amount`` (still unpruned) entries of ``module.<name>`` of smallest magnitude
    (of ``importance_scores`` when given).

    >>> from diffcompare import autograd as ag
    >>> list(l1_unstructured(ag.nn.Linear(2, 3), "weight", amount=0.2).state_dict().keys())
    ['bias', 'weight_orig', 'weight_mask']
    """
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module, name, amount, dim):
    """Prune ``amount`` random (still unpruned) channels of ``module.<name>`` along ``dim``.

    >>> from diffcompare import autograd as ag
    >>> m = random_structured(ag.nn.Linear(5, 3), "weight", amount=3, dim=1)
    >>> int((m.weight_mask.sum(dim=0) == 0).sum())
    3
    """
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(module, name, amount, n, dim, importance_scores=None):
    """Prune the ``amount`` (still unpruned) channels of ``module.<name>`` along ``dim`` of
    smallest L``n``-norm.

    >>> from diffcompare import autograd as ag
    >>> m = ag.nn.Linear(3, 2)
    >>> with ag.no_grad():
    ...     _ = m.weight.copy_(ag.tensor([[1.0, 0.1, -2.0], [1.0, 0.2, 2.0]]))
    >>> ln_structured(m, "weight", amount=1, n=1, dim=1).weight_mask
    tensor([[1., 0., 1.],
            [1., 0., 1.]])
    """
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def global_unstructured(parameters, pruning_method, importance_scores=None, **kwargs):
    """Prune the ``(module, name)`` tensors of ``parameters`` together: ``pruning_method``
    (unstructured) chooses among all their entries at once (``kwargs``: its ``amount``).

    >>> from diffcompare import autograd as ag
    >>> a, b = ag.nn.Linear(3, 2), ag.nn.Linear(2, 1)
    >>> with ag.no_grad():
    ...     _ = a.weight.copy_(ag.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))
    ...     _ = b.weight.copy_(ag.tensor([[0.5, 7.0]]))
    >>> global_unstructured([(a, "weight"), (b, "weight")], pruning_method=L1Unstructured, amount=3)
    >>> a.weight_mask, b.weight_mask
    (tensor([[0., 0., 1.],
            [1., 1., 1.]]), tensor([[0., 1.]]))
    """
    if not isinstance(parameters, Iterable):
        raise TypeError("global_unstructured(): parameters is not an Iterable")
    importance_scores = importance_scores if importance_scores is not None else {}
    if not isinstance(importance_scores, dict):
        raise TypeError("global_unstructured(): importance_scores must be of type dict")
    relevant_importance_scores = parameters_to_vector(
        [importance_scores.get((module, name), getattr(module, name)) for module, name in parameters])
    default_mask = parameters_to_vector(
        [getattr(module, name + "_mask", ag.ones_like(getattr(module, name))) for module, name in parameters])
    container = PruningContainer()
    container._tensor_name = "temp"
    method = pruning_method(**kwargs)
    method._tensor_name = "temp"
    if method.PRUNING_TYPE != "unstructured":
        raise TypeError('Only "unstructured" PRUNING_TYPE supported for the `pruning_method`. Found method '
                        f"{pruning_method} of type {method.PRUNING_TYPE}")
    container.add_pruning_method(method)
    final_mask = container.compute_mask(relevant_importance_scores, default_mask)
    pointer = 0
    for module, name in parameters:
        param = getattr(module, name)
        num_param = param.numel()
        custom_from_mask(module, name, mask=final_mask[pointer:pointer + num_param].view_as(param))
        pointer += num_param


def custom_from_mask(module, name, mask):
    """Prune ``module.<name>`` where ``mask`` is zero.

    >>> from diffcompare import autograd as ag
    >>> custom_from_mask(ag.nn.Linear(5, 3), name="bias", mask=ag.tensor([0, 1, 0])).bias_mask
    tensor([0., 1., 0.])
    """
    CustomFromMask.apply(module, name, mask)
    return module


def remove(module, name):
    """Make the pruned ``module.<name>`` a parameter again (its pruned values stay) and take its
    pruning hook off.

    >>> from diffcompare import autograd as ag
    >>> m = remove(random_unstructured(ag.nn.Linear(5, 7), name="weight", amount=0.2), name="weight")
    >>> [name for name, _ in m.named_parameters()], list(m.named_buffers())
    (['bias', 'weight'], [])
    """
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(f"Parameter '{name}' of module {module} has to be pruned before pruning can be removed")


def is_pruned(module):
    """Whether ``module`` or a submodule has a pruning hook.

    >>> from diffcompare import autograd as ag
    >>> m = ag.nn.Sequential(ag.nn.Linear(5, 7))
    >>> is_pruned(m), is_pruned(identity(m[0], "weight")), is_pruned(m)
    (False, True, True)
    """
    for _, submodule in module.named_modules():
        for hook in submodule._forward_pre_hooks.values():
            if isinstance(hook, BasePruningMethod):
                return True
    return False


def _validate_pruning_amount_init(amount):
    """``amount`` is a non-negative int or a float in [0, 1] (PyTorch's errors otherwise)."""
    if not isinstance(amount, numbers.Real):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    if (isinstance(amount, numbers.Integral) and amount < 0) or (
            not isinstance(amount, numbers.Integral) and (float(amount) > 1.0 or float(amount) < 0.0)):
        raise ValueError(f"amount={amount} should either be a float in the range [0, 1] or a non-negative integer")


def _validate_pruning_amount(amount, tensor_size):
    """An int ``amount`` is at most ``tensor_size``."""
    if isinstance(amount, numbers.Integral) and amount > tensor_size:
        raise ValueError(f"amount={amount} should be smaller than the number of parameters to prune={tensor_size}")


def _validate_structured_pruning(t):
    """``t`` has at least two dimensions (channels make sense)."""
    shape = t.shape
    if len(shape) <= 1:
        raise ValueError("Structured pruning can only be applied to multidimensional tensors. Found tensor of shape "
                         f"{Size(shape)} with {len(shape)} dims")


def _compute_nparams_toprune(amount, tensor_size):
    """The number of units to prune: an int ``amount`` itself, a fraction rounded (``round``:
    halves to even).

    >>> _compute_nparams_toprune(0.5, 5), _compute_nparams_toprune(0.5, 7), _compute_nparams_toprune(3, 7)
    (2, 4, 3)
    """
    if isinstance(amount, numbers.Integral):
        return amount
    return round(amount * tensor_size)


def _validate_pruning_dim(t, dim):
    """``dim`` is below ``t.dim()``."""
    if dim >= t.dim():
        raise IndexError(f"Invalid index {dim} for tensor of size {Size(t.shape)}")


def _compute_norm(t, n, dim):
    """The L``n``-norm of every channel of ``t`` along ``dim`` (over all the other dimensions).

    >>> from diffcompare import autograd as ag
    >>> _compute_norm(ag.tensor([[3.0, -1.0], [4.0, 2.0]]), 2, -1)
    tensor([5.0000, 2.2361])
    """
    dims = list(range(t.dim()))
    if dim < 0:
        dim = dims[dim]
    dims.remove(dim)
    return ag.norm(t, p=n, dim=dims)
