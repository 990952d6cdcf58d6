"""Random draws that depend on tensors: ``torch.bernoulli`` and ``Tensor.bernoulli_``,
``torch.normal`` in its four forms, ``torch.multinomial``, ``Tensor.exponential_``. A draw does
not depend differentiably on its parameters in PyTorch: every node here passes a zero gradient
(``BernoulliBackward0``, ``NormalBackward1``, ...), named as PyTorch names it.

>>> from diffcompare import autograd as ag
>>> p = ag.tensor([0.0, 1.0], requires_grad=True)
>>> y = ag.bernoulli(p)
>>> y, y.grad_fn.name()
(tensor([0., 1.], grad_fn=<BernoulliBackward0>), 'BernoulliBackward0')
>>> ag.zeros(3).bernoulli_(1.0)
tensor([1., 1., 1.])
"""

from __future__ import annotations

import numbers

import numpy as np

from ..generators import rng_of
from ..dtypes import default_dtype
from ..tensor import Tensor, generator as global_generator
from .dual import D
from .inplace import write_in_place
from .recording import Op, apply


def _rng(generator):
    return rng_of(generator, global_generator())


class _Sampled(Op):
    """A draw: its value is given, every input's gradient is zero."""

    @staticmethod
    def forward(*args, values, n_inputs):
        return values

    def backward(self, g):
        return tuple(D.zeros_like(g) if self.needs(i) else None for i in range(self.n_inputs))

    @staticmethod
    def tangent(node, tangents, arrays, out):
        return np.zeros(np.shape(out), dtype=np.result_type(out))


def _sampled_op(name):
    return type(name, (_Sampled,), {"__doc__": _Sampled.__doc__})


BernoulliBackward0 = _sampled_op("BernoulliBackward0")    # torch.bernoulli(p)
BernoulliBackward1 = _sampled_op("BernoulliBackward1")    # t.bernoulli_(p_tensor)
BernoulliBackward2 = _sampled_op("BernoulliBackward2")    # t.bernoulli_(p_float)
NormalBackward1 = _sampled_op("NormalBackward1")          # normal(mean_tensor, std_float)
NormalBackward2 = _sampled_op("NormalBackward2")          # normal(mean_float, std_tensor)
NormalBackward3 = _sampled_op("NormalBackward3")          # normal(mean_tensor, std_tensor)
ExponentialBackward0 = _sampled_op("ExponentialBackward0")


def _record(cls, inputs, values):
    tensors = tuple(t for t in inputs if isinstance(t, Tensor))
    return apply(cls, tensors, {"values": values, "n_inputs": len(tensors)})


def _check_probabilities(p):
    if np.any((p < 0) | (p > 1)):
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.")


def bernoulli(input, p=None, *, generator=None, out=None):
    """``torch.bernoulli(input)``: 1 with probability ``input`` (elementwise), else 0, with
    ``input``'s dtype (BernoulliBackward0)."""
    if p is not None:
        return empty_like_of(input).bernoulli_(p, generator=generator)
    probs = input._data
    if probs.dtype.kind not in "f":
        raise NotImplementedError(f"\"bernoulli_tensor_cpu_p_\" not implemented for '{probs.dtype.name}'")
    _check_probabilities(probs)
    values = (_rng(generator).random(probs.shape) < probs).astype(probs.dtype)
    return _record(BernoulliBackward0, (input,), values)


def empty_like_of(t):
    return Tensor._make(np.zeros(t.shape, dtype=t.dtype))


def bernoulli_(t, p=0.5, *, generator=None):
    """``t.bernoulli_(p)``: ``t`` filled with 1 with probability ``p`` (a number or a tensor
    broadcast to ``t``), else 0 (BernoulliBackward2 / BernoulliBackward1)."""
    if isinstance(p, Tensor):
        probs = np.broadcast_to(p._data, t.shape)
        _check_probabilities(probs)
        op = BernoulliBackward1
    else:
        if not 0 <= p <= 1:
            raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p}")
        probs, op = p, BernoulliBackward2
    values = (_rng(generator).random(t.shape) < probs).astype(t.dtype)
    return write_in_place(t, lambda old: apply(op, (old,), {"values": values, "n_inputs": 1}))


def exponential_(t, lambd=1.0, *, generator=None):
    """``t.exponential_(lambd)``: ``t`` filled with draws from Exp(lambd) (ExponentialBackward0)."""
    if lambd <= 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd}")
    values = (-np.log1p(-_rng(generator).random(t.shape)) / lambd).astype(t.dtype)
    return write_in_place(t, lambda old: apply(ExponentialBackward0, (old,), {"values": values, "n_inputs": 1}))


def normal(mean=0.0, std=1.0, size=None, *, generator=None, out=None, dtype=None, layout=None, device=None,
           pin_memory=False, requires_grad=False):
    """``torch.normal``: ``normal(mean, std)`` with either or both tensors (their broadcast
    shape; NormalBackward1/2/3), or ``normal(mean, std, size)`` with numbers."""
    tensors = [isinstance(mean, Tensor), isinstance(std, Tensor)]
    if not any(tensors):
        if size is None:
            raise TypeError("normal() received an invalid combination of arguments - got (float, float), but "
                            "expected (float mean, float std, tuple of ints size)")
        if std < 0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
        shape = (int(size),) if isinstance(size, numbers.Integral) else tuple(int(s) for s in size)
        values = _rng(generator).normal(mean, std, size=shape).astype(np.dtype(dtype) if dtype else default_dtype())
        result = Tensor._make(values)
        if requires_grad:
            result.requires_grad_(True)
        return result
    m = mean._data if tensors[0] else mean
    s = std._data if tensors[1] else std
    if np.any(np.asarray(s) < 0):
        raise RuntimeError("normal expects all elements of std >= 0.0")
    dtype_ = np.result_type(*(a.dtype for a in (m, s) if isinstance(a, np.ndarray)))
    shape = np.broadcast_shapes(np.shape(m), np.shape(s))
    values = (m + s * _rng(generator).standard_normal(shape)).astype(dtype_)
    op = NormalBackward3 if all(tensors) else NormalBackward1 if tensors[0] else NormalBackward2
    return _record(op, (mean, std), values)


def multinomial(input, num_samples, replacement=False, *, generator=None, out=None):
    """``torch.multinomial``: ``num_samples`` category indices per row of the (unnormalised)
    probabilities ``input`` (1-d or 2-d), int64; without replacement, each index at most once."""
    probs = np.asarray(input._data, dtype=np.float64)
    if probs.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    if not replacement and num_samples > probs.shape[-1]:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    if np.any(probs < 0) or not np.all(np.isfinite(probs)):
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    rows = probs.reshape(-1, probs.shape[-1])
    if np.any(rows.sum(axis=1) <= 0):
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    rng = _rng(generator)
    drawn = np.stack([rng.choice(len(r), size=num_samples, replace=replacement, p=r / r.sum()) for r in rows])
    return Tensor._make(drawn.reshape(probs.shape[:-1] + (num_samples,)).astype(np.int64))


PUBLIC = ('bernoulli', 'multinomial', 'normal')
# what the family exports to `ops`
__all__ = ['BernoulliBackward0', 'BernoulliBackward1', 'BernoulliBackward2', 'ExponentialBackward0', 'NormalBackward1',
           'NormalBackward2', 'NormalBackward3', 'bernoulli', 'bernoulli_', 'exponential_', 'multinomial', 'normal']
