"""The connectionist temporal classification loss, ``ctc_loss``, recorded as PyTorch records it
(``CtcLossBackward0``, then the reduction): the negative log-likelihood of each target over all
its alignments with the input, by the forward (alpha) recursion in log space; its gradient by the
backward (beta) recursion, in PyTorch's form ``exp(lp) - exp(log(sum of alpha beta) + nll - lp)``
(the gradient of the loss with respect to the logits when ``log_probs`` is a ``log_softmax``).

>>> import numpy as np
>>> from diffcompare import autograd as ag
>>> lp = ag.tensor(np.log(np.full((2, 1, 2), 0.5)), requires_grad=True)   # T=2, N=1, C=2 (blank 0)
>>> loss = ag.ctc_loss(lp, ag.tensor([[1]]), [2], [1], reduction="sum")     # paths 11, 01, 10: 3/4
>>> bool(abs(loss.item() + np.log(0.75)) < 1e-15), loss.grad_fn.name()
(True, 'SumBackward0')
"""

from __future__ import annotations

import numpy as np

from ..tensor import Tensor
from .elementwise import where
from .recording import Op, apply
from .reductions import reduction_name

_NEG = -np.inf


def _logsumexp3(a, b, c):
    m = np.maximum(np.maximum(a, b), c)
    m = np.where(m == _NEG, 0.0, m)
    with np.errstate(divide="ignore"):
        return np.log(np.exp(a - m) + np.exp(b - m) + np.exp(c - m)) + m


def _one(lp, target, blank):
    """nll and the gradient (T, C) of one sequence: ``lp`` (T, C) its log-probabilities."""
    t_len, n_classes = lp.shape
    length = len(target)
    prime = np.full(2 * length + 1, blank, dtype=np.int64)
    prime[1::2] = target
    s_len = prime.size
    skip = np.zeros(s_len, dtype=bool)                   # s - 2 reachable: a label unlike the one before it
    skip[2:] = prime[2:] != prime[:-2]
    alpha = np.full((t_len, s_len), _NEG)
    alpha[0, 0] = lp[0, blank]
    if length:
        alpha[0, 1] = lp[0, prime[1]]
    one, two = np.full(s_len, _NEG), np.full(s_len, _NEG)
    for t in range(1, t_len):
        prev = alpha[t - 1]
        one[1:] = prev[:-1]
        two[2:] = prev[:-2]
        alpha[t] = _logsumexp3(prev, one, np.where(skip, two, _NEG)) + lp[t, prime]
    last = alpha[-1, -1]
    second = alpha[-1, -2] if length else _NEG
    nll = -_logsumexp3(last, second, _NEG)
    beta = np.full((t_len, s_len), _NEG)
    beta[-1, -1] = lp[-1, blank]
    if length:
        beta[-1, -2] = lp[-1, prime[-2]]
    skip_up = np.zeros(s_len, dtype=bool)
    skip_up[:-2] = prime[:-2] != prime[2:]
    one, two = np.full(s_len, _NEG), np.full(s_len, _NEG)
    for t in range(t_len - 2, -1, -1):
        nxt = beta[t + 1]
        one[:-1] = nxt[1:]
        two[:-2] = nxt[2:]
        beta[t] = _logsumexp3(nxt, one, np.where(skip_up, two, _NEG)) + lp[t, prime]
    both = np.full((t_len, n_classes), _NEG)
    np.logaddexp.at(both, (np.arange(t_len)[:, None], prime[None, :]), alpha + beta)
    with np.errstate(over="ignore", invalid="ignore"):
        grad = np.exp(lp) - np.exp(both + nll - lp)
    return nll, grad


class CtcLossBackward0(Op):
    """The per-sequence negative log-likelihoods; the gradient (computed with them) times g."""

    @staticmethod
    def forward(log_probs, nll, grad, shape):
        return nll

    def backward(self, g):
        if isinstance(g, Tensor):
            raise NotImplementedError("the derivative of ctc_loss's backward is not implemented (as in PyTorch)")
        return ((self.grad * g.reshape(1, -1, 1).astype(self.grad.dtype)).reshape(self.shape),)


def _lengths(value, name):
    data = np.asarray(value._data if isinstance(value, Tensor) else value).astype(np.int64).reshape(-1)
    return data


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean", zero_infinity=False):
    """``torch.nn.functional.ctc_loss``: ``log_probs`` (T, N, C) or (T, C), targets padded (N, S)
    or concatenated (sum of ``target_lengths``); reduction "mean" divides each loss by its target
    length (at least 1) before the mean, as PyTorch."""
    reduction = reduction_name(reduction)
    batched = log_probs.ndim == 3
    lp = log_probs._data if batched else log_probs._data[:, None, :]
    t_max, n, c = lp.shape
    tgt = np.asarray(targets._data if isinstance(targets, Tensor) else targets).astype(np.int64)
    in_lens, tgt_lens = _lengths(input_lengths, "input_lengths"), _lengths(target_lengths, "target_lengths")
    if not 0 <= blank < c:
        raise RuntimeError("blank must be in label range")
    if in_lens.size != n:
        raise RuntimeError(f"input_lengths must be of size batch_size, but got {in_lens.size}")
    if tgt_lens.size != n:
        raise RuntimeError(f"target_lengths must be of size batch_size, but got {tgt_lens.size}")
    nlls = np.zeros(n, dtype=lp.dtype)
    grad = np.zeros_like(lp)
    offsets = np.concatenate([[0], np.cumsum(tgt_lens)])
    for b in range(n):
        t_len, length = int(in_lens[b]), int(tgt_lens[b])
        if t_len > t_max:
            raise RuntimeError(f"Expected input_lengths to have value at most {t_max}, but got value {t_len} (while "
                               f"checking arguments for ctc_loss_cpu)")
        if batched and tgt.ndim == 2:
            if length > tgt.shape[1]:
                raise RuntimeError(f"Expected tensor to have size at least {length} at dimension 1, but got size "
                                   f"{tgt.shape[1]} for argument #2 'targets' (while checking arguments for "
                                   f"ctc_loss_cpu)")
            target = tgt[b, :length]
        else:
            target = tgt.reshape(-1)[offsets[b]:offsets[b] + length]
        if t_len == 0:
            nlls[b] = 0.0 if length == 0 else np.inf
            continue
        nll, g = _one(lp[:t_len, b], target, blank)
        if zero_infinity and nll == np.inf:
            continue
        nlls[b] = nll
        grad[:t_len, b] = g
    out = apply(CtcLossBackward0, (log_probs,), {"nll": nlls, "grad": grad, "shape": tuple(log_probs.shape)})
    if zero_infinity:
        out = where(Tensor._make(nlls == np.inf), Tensor._make(np.zeros((), dtype=lp.dtype)), out)
    if not batched:
        out = out.reshape(())
    if reduction == "mean":
        return (out / Tensor._make(np.maximum(tgt_lens, 1).astype(lp.dtype).reshape(out.shape))).mean()
    if reduction == "sum":
        return out.sum()
    return out


PUBLIC = ('ctc_loss',)
__all__ = ['CtcLossBackward0', 'ctc_loss']
