"""The fused loss nodes of ``torch.nn.functional`` that PyTorch records as one node
(``SmoothL1LossBackward0``, ``HuberLossBackward0``, ``BinaryCrossEntropyBackward0``,
``SoftMarginLossBackward0``, ``MultiMarginLossBackward0``, ``NllLoss2DBackward0``), and the
few nodes the composite losses end in under names of their own (``NormBackward1`` of
``torch.norm(x, p, dim)``, ``DivBackward1`` and ``AddBackward1`` of a tensor and a number
in ATen, ``LogSigmoidBackward0``). The composite losses themselves are in
:mod:`diffcompare.autograd.nn.functional`.

>>> from diffcompare import autograd as ag
>>> from diffcompare.autograd.ops.losses import smooth_l1_loss
>>> smooth_l1_loss(ag.tensor([0.5, 3.0], requires_grad=True), ag.tensor([0.0, 0.0]), "sum", 1.0)
tensor(2.6250, grad_fn=<SmoothL1LossBackward0>)
"""

from __future__ import annotations

import math

import numpy as np

from ..tensor import Tensor
from .arithmetic import AddBackward0, DivBackward0, MulScalarBackward
from .dual import D
from .recording import Op, apply, array_of, check_dim
from .reductions import LinalgVectorNormBackward0, NllLossBackward0, reduction_name


def _reduce(loss, reduction):
    if reduction == "none":
        return loss
    return np.asarray(loss.mean() if reduction == "mean" else loss.sum())


def _norm(reduction, shape):
    return 1.0 / math.prod(shape) if reduction == "mean" else 1.0


class _PairLoss(Op):
    """A loss of ``input`` and ``target`` of one shape whose gradient with respect to the target
    is minus the one with respect to the input (a function of their difference)."""
    saves = (0, 1)

    def backward(self, g, x, target):
        d = x - target
        grad = g * (self.local(d, array_of(d)) * _norm(self.reduction, d.shape))
        return (grad if self.needs(0) else None), (-grad if self.needs(1) else None)


class SmoothL1LossBackward0(_PairLoss):
    """0.5 d²/β where |d| < β, |d| - 0.5 β elsewhere (d = input - target)."""

    @staticmethod
    def forward(x, target, reduction, beta):
        d = np.abs(x - target)
        return _reduce(np.where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta), reduction)

    def local(self, d, da):
        inner = np.abs(da) < self.beta
        return d * (inner / self.beta) + np.sign(da) * ~inner


class HuberLossBackward0(_PairLoss):
    """0.5 d² where |d| < δ, δ (|d| - 0.5 δ) elsewhere."""

    @staticmethod
    def forward(x, target, reduction, delta):
        d = np.abs(x - target)
        return _reduce(np.where(d < delta, 0.5 * d * d, delta * (d - 0.5 * delta)), reduction)

    def local(self, d, da):
        inner = np.abs(da) < self.delta
        return d * inner + (self.delta * np.sign(da)) * ~inner


def smooth_l1_loss(input, target, reduction="mean", beta=1.0):
    reduction = reduction_name(reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    return apply(SmoothL1LossBackward0, (input, target), {"reduction": reduction, "beta": float(beta)})


def huber_loss(input, target, reduction="mean", delta=1.0):
    reduction = reduction_name(reduction)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    return apply(HuberLossBackward0, (input, target), {"reduction": reduction, "delta": float(delta)})


class BinaryCrossEntropyBackward0(Op):
    """-w (y log x + (1 - y) log(1 - x)), each log clamped at -100 as in PyTorch; the input's
    gradient w (x - y) / max(x (1 - x), 1e-12), the target's -w logit(x)."""
    saves = (0, 1)

    @staticmethod
    def forward(x, target, weight, reduction):
        with np.errstate(divide="ignore"):
            loss = -(target * np.maximum(np.log(x), -100) + (1 - target) * np.maximum(np.log1p(-x), -100))
        if weight is not None:
            loss = loss * weight
        return _reduce(loss, reduction)

    def backward(self, g, x, target):
        scale = g * _norm(self.reduction, x.shape)
        if self.weight is not None:
            scale = scale * self.weight
        gx = gt = None
        if self.needs(0):
            xa = array_of(x)
            gx = scale * (x - target) / np.maximum((1 - xa) * xa, 1e-12)
        if self.needs(1):
            gt = scale * (D.log(1 - x) - D.log(x))
        return gx, gt


def binary_cross_entropy(input, target, weight=None, reduction="mean"):
    reduction = reduction_name(reduction)
    x = input._data
    if x.size and not ((x >= 0) & (x <= 1)).all():
        raise RuntimeError("all elements of input should be between 0 and 1")
    if weight is not None:
        weight = np.broadcast_to(np.asarray(array_of(weight), dtype=x.dtype), target.shape)
    return apply(BinaryCrossEntropyBackward0, (input, target), {"weight": weight, "reduction": reduction})


class SoftMarginLossBackward0(Op):
    """log(1 + exp(-y x)); the gradient -y σ(-y x) (no gradient for the target, as in PyTorch)."""
    saves = (0,)

    @staticmethod
    def forward(x, target, reduction):
        return _reduce(np.log1p(np.exp(-target * x)), reduction)

    def backward(self, g, x):
        y = self.target
        z = np.exp(-y * array_of(x))
        return (g * (-y * z / (1 + z) * _norm(self.reduction, z.shape)), None)


def soft_margin_loss(input, target, reduction="mean"):
    reduction = reduction_name(reduction)
    if isinstance(target, Tensor) and target.requires_grad:
        raise RuntimeError("The function 'soft_margin_loss' is not differentiable with respect to argument "
                           "'target'. This input cannot have requires_grad True.")
    y = np.asarray(array_of(target), dtype=input.dtype)
    return apply(SoftMarginLossBackward0, (input,), {"target": y, "reduction": reduction})


class MultiMarginLossBackward0(Op):
    """Per sample, the mean over classes j ≠ y of w_y max(0, margin - x_y + x_j)^p (p 1 or 2)."""
    saves = (0,)

    @staticmethod
    def _parts(x, index, p, margin, weight):
        rows = x.reshape(-1, x.shape[-1])
        n, c = rows.shape
        picked = rows[np.arange(n), index][:, None]
        z = margin - picked + rows
        active = (z > 0) & (np.arange(c)[None, :] != index[:, None])
        w = np.ones((n, 1), x.dtype) if weight is None else weight[index][:, None]
        return rows, z, active, w, c

    @staticmethod
    def forward(x, index, p, margin, weight, reduction):
        rows, z, active, w, c = MultiMarginLossBackward0._parts(x, index, p, margin, weight)
        h = np.where(active, z if p == 1 else z * z, 0) * w
        per = h.sum(axis=1) / c
        if reduction == "none":
            return per.reshape(x.shape[:-1])
        return np.asarray(per.mean() if reduction == "mean" else per.sum())

    def backward(self, g, x):
        xa = array_of(x)
        rows, z, active, w, c = self._parts(xa, self.index, self.p, self.margin, self.weight)
        slope = active * (1.0 if self.p == 1 else 2 * z) * w / c
        n = rows.shape[0]
        if self.reduction == "mean":
            slope = slope / n
        slope[np.arange(n), self.index] = -slope.sum(axis=1)
        slope = slope.reshape(xa.shape)
        gg = g if self.reduction != "none" else D.unsqueeze(g, -1)
        return (gg * slope,)


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, reduction="mean"):
    reduction = reduction_name(reduction)
    index = np.asarray(array_of(target))
    if input.ndim > 2:
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{list(input.shape)}")
    n = 1 if input.ndim <= 1 else input.shape[0]
    c = input.shape[-1] if input.ndim else 1
    if index.ndim > 1 or index.size != n:
        raise RuntimeError(f"inconsistent target size, expected {n} but got {list(index.shape)}")
    index = index.reshape(-1).astype(np.int64)
    if index.size and (index.min() < 0 or index.max() >= c):
        raise RuntimeError("target out of range")
    w = None if weight is None else np.asarray(array_of(weight), dtype=input.dtype)
    x = input if input.ndim else input.reshape(1)
    return apply(MultiMarginLossBackward0, (x,), {"index": index, "p": p, "margin": float(margin), "weight": w,
                                                  "reduction": reduction})


class MultilabelMarginLossBackward0(Op):
    """Per sample, sum over its target classes j and the other classes i of
    max(0, 1 - (x_j - x_i)), divided by the number of classes. ``labels`` (N, K) holds the
    class indices, ``valid`` (N, K) which of them count (those before the first -1),
    ``is_target`` (N, C) the classes among them."""
    saves = (0,)

    @staticmethod
    def _active(rows, labels, valid, is_target):
        n = rows.shape[0]
        picked = rows[np.arange(n)[:, None], labels]                     # (N, K)
        z = 1.0 - picked[:, :, None] + rows[:, None, :]                  # (N, K, C)
        return z, (z > 0) & valid[:, :, None] & ~is_target[:, None, :]

    @staticmethod
    def forward(x, labels, valid, is_target, reduction):
        rows = x.reshape(-1, x.shape[-1])
        z, active = MultilabelMarginLossBackward0._active(rows, labels, valid, is_target)
        per = np.where(active, z, 0).sum(axis=(1, 2)) / rows.shape[1]
        if reduction == "none":
            return per.reshape(x.shape[:-1]).astype(x.dtype)
        return np.asarray(per.mean() if reduction == "mean" else per.sum(), dtype=x.dtype)

    def backward(self, g, x):
        xa = array_of(x)
        rows = xa.reshape(-1, xa.shape[-1])
        n, c = rows.shape
        _, active = self._active(rows, self.labels, self.valid, self.is_target)
        slope = active.sum(axis=1).astype(xa.dtype) / c                  # d/dx_i: +1 per active (j, i)
        np.add.at(slope, (np.arange(n)[:, None], self.labels), -active.sum(axis=2) / c)
        if self.reduction == "mean":
            slope = slope / n
        slope = slope.reshape(xa.shape)
        gg = g if self.reduction != "none" or xa.ndim < 2 else D.unsqueeze(g, -1)
        return (gg * slope,)


def multilabel_margin_loss(input, target, reduction="mean"):
    """Multi-class multi-label hinge loss as ``torch.nn.functional.multilabel_margin_loss``: the
    targets of a sample are its class indices up to the first -1."""
    reduction = reduction_name(reduction)
    labels = np.asarray(array_of(target))
    if input.ndim > 2 or input.ndim == 0:
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{list(input.shape)}")
    if labels.shape != tuple(input.shape):
        raise RuntimeError(f"inconsistent target size: {list(labels.shape)} for input of size: "
                           f"{list(input.shape)}")
    c = input.shape[-1]
    labels = labels.reshape(-1, c).astype(np.int64)
    valid = np.cumprod(labels != -1, axis=1).astype(bool)               # up to the first -1
    if (labels[valid] < 0).any() or (labels[valid] >= c).any():
        raise RuntimeError("target out of range")
    safe = np.where(valid, labels, 0)
    is_target = np.zeros(labels.shape, bool)
    rows = np.broadcast_to(np.arange(labels.shape[0])[:, None], labels.shape)
    is_target[rows[valid], safe[valid]] = True
    return apply(MultilabelMarginLossBackward0, (input,), {"labels": safe, "valid": valid, "is_target": is_target,
                                                          "reduction": reduction})


class NllLoss2DBackward0(NllLossBackward0):
    """``nll_loss`` of (N, C, H, W) log-probabilities and (N, H, W) class indices."""


def nll_loss2d(logp, target, reduction="mean", weight=None, ignore_index=-100):
    """Mean (or sum, or none) of -logp[n, target[n, h, w], h, w], weighted per class, targets
    equal to ``ignore_index`` left out, as ``nll_loss`` of (N, C)."""
    reduction = reduction_name(reduction)
    n, c, h, w = logp.shape
    if target.shape != (n, h, w):
        raise RuntimeError(f"size mismatch (got input: {n}x{c}x{h}x{w} , target: "
                           f"{'x'.join(map(str, target.shape))}")
    kept = target != ignore_index
    checked = target[kept]
    if checked.size and (checked.min() < 0 or checked.max() >= c):
        raise IndexError(f"Target {int(checked.max() if checked.max() >= c else checked.min())} is out of bounds.")
    safe = np.where(kept, target, 0)
    class_weight = np.ones(c, logp.dtype) if weight is None else np.asarray(array_of(weight), dtype=logp.dtype)
    weights = class_weight[safe] * kept
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = np.float64(1.0) / weights.sum() if reduction == "mean" else 1.0
    index = (np.arange(n)[:, None, None], safe, np.arange(h)[None, :, None], np.arange(w)[None, None, :])
    return apply(NllLoss2DBackward0, (logp,), {"index": index, "scale": scale, "reduction": reduction,
                                               "in_shape": logp.shape, "weights": weights})


class NormBackward1(LinalgVectorNormBackward0):
    """``torch.norm(x, p, dim)``'s node (the same p-norm)."""


def norm_dim(x, p, dim, keepdim=False):
    """``torch.norm(x, p, dim, keepdim)`` (one dimension)."""
    dim = check_dim(dim, x.ndim)
    keep_shape = tuple(1 if i == dim else n for i, n in enumerate(x.shape))
    return apply(NormBackward1, (x,), {"axis": (dim,), "keepdims": keepdim, "in_shape": x.shape,
                                       "keep_shape": keep_shape, "p": float(p)})


class DivBackward1(DivBackward0):
    """A tensor divided by a number in ATen (``at::div(Tensor, Scalar)``)."""


class AddBackward1(AddBackward0):
    """A number added to a tensor in ATen (``at::add(Tensor, Scalar)``)."""


class MulBackward1(MulScalarBackward):
    """A tensor times a number in ATen (``at::mul(Tensor, Scalar)``)."""


MulBackward1.__name__ = "MulBackward1"


def div_scalar(x, number):
    return apply(DivBackward1, (x, number))


def mul_scalar(x, number):
    return apply(MulBackward1, (x, number))


def add_scalar(x, number):
    return apply(AddBackward1, (x, number))


class LogSigmoidBackward0(Op):
    """log σ(x), computed stably; the gradient σ(-x)."""
    saves = (0,)

    @staticmethod
    def forward(x):
        return -(np.log1p(np.exp(-np.abs(x))) + np.maximum(-x, 0))

    def backward(self, g, x):
        return (g * D.sigmoid(-x),)


def logsigmoid(input):
    return apply(LogSigmoidBackward0, (input,))


__all__ = ['AddBackward1', 'BinaryCrossEntropyBackward0', 'DivBackward1', 'MulBackward1', 'HuberLossBackward0',
           'LogSigmoidBackward0', 'MultiMarginLossBackward0', 'MultilabelMarginLossBackward0', 'NllLoss2DBackward0', 'NormBackward1',
           'SmoothL1LossBackward0', 'SoftMarginLossBackward0', 'add_scalar', 'binary_cross_entropy',
           'div_scalar', 'mul_scalar', 'huber_loss', 'logsigmoid', 'multi_margin_loss', 'multilabel_margin_loss', 'nll_loss2d', 'norm_dim',
           'smooth_l1_loss', 'soft_margin_loss']
