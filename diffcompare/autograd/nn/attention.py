"""Attention: ``F.scaled_dot_product_attention``, ``F.multi_head_attention_forward`` and
``nn.MultiheadAttention``, computed as PyTorch computes them on the CPU; and, as
``torch.nn.attention``, ``SDPBackend`` and ``sdpa_kernel`` to choose the kernel.

``scaled_dot_product_attention`` takes PyTorch's fused CPU kernel's place for 4-d inputs without
dropout (ScaledDotProductFlashAttentionForCpuBackward0; a row with every key masked gives zeros)
and its math path otherwise (matmuls, softmax, dropout drawn with ``bernoulli_`` on the
attention weights). ``multi_head_attention_forward`` follows ``torch.nn.functional``'s code:
``baddbmm``/``bmm``/softmax when the weights are asked for, the fused attention when not.
``MultiheadAttention`` registers and draws its parameters in PyTorch's order
(``in_proj_weight``, ``in_proj_bias``, ``out_proj``), so PyTorch's seeds give PyTorch's values.

>>> from diffcompare import autograd as ag
>>> mha = MultiheadAttention(4, 2)
>>> x = ag.randn(3, 1, 4)
>>> out, weights = mha(x, x, x)
>>> out.shape, weights.shape, out.grad_fn.name()
(torch.Size([3, 1, 4]), torch.Size([1, 3, 3]), 'ViewBackward0')
"""

from __future__ import annotations

import contextlib
import enum
import math
import warnings

import numpy as np

from ..dtypes import default_dtype
from .. import ops
from ..ops.dual import D
from ..ops.recording import Op, apply
from ..tensor import Tensor
from . import functional as F
from . import init
from .module import Module, Parameter

__all__ = ["MultiheadAttention", "SDPBackend", "canonical_mask", "multi_head_attention_forward", "none_or_dtype",
           "scaled_dot_product_attention", "sdpa_kernel"]

# The nn layers MultiheadAttention and the Transformer layers are made of, defined in
# ``nn/__init__.py`` (which imports this module, so it hands them over with ``use_layers``).
LAYERS: dict = {}


def use_layers(**layers):
    """Give this module the layer classes it builds from (``Linear``, ``Dropout``), and make
    the attention's output projection class, a module attribute here, so that a model holding
    a ``MultiheadAttention`` pickles whole (``torch.save(model)``)."""
    global NonDynamicallyQuantizableLinear
    LAYERS.update(layers)
    if "Linear" in layers:
        NonDynamicallyQuantizableLinear = LAYERS["NonDynamicallyQuantizableLinear"] = type(
            "NonDynamicallyQuantizableLinear", (layers["Linear"],), {"__module__": __name__})


# -- masks ----------------------------------------------------------------------------------
def _is_floating(t):
    return t.dtype.kind in "fc"


def none_or_dtype(input):
    """The dtype of a mask, or None."""
    if input is None:
        return None
    if isinstance(input, Tensor):
        return input.dtype
    raise RuntimeError("input to _none_or_dtype() must be None or torch.Tensor")


def canonical_mask(mask, mask_name, other_type, other_name, target_type, check_other=True):
    """A boolean mask (True: masked out) as an additive float mask (0 or -inf) of
    ``target_type``; a float mask as it is."""
    if mask is None:
        return None
    if mask.dtype != np.bool_ and not _is_floating(mask):
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype != other_type:
        warnings.warn(f"Support for mismatched {mask_name} and {other_name} is deprecated. Use same type for "
                      "both instead.", stacklevel=3)
    if not _is_floating(mask):
        mask = Tensor._make(np.where(mask._data, -np.inf, 0.0).astype(target_type))
    return mask


# -- scaled dot-product attention -----------------------------------------------------------
class SDPBackend(enum.IntEnum):
    """The kernels ``scaled_dot_product_attention`` may choose from (``torch.nn.attention``);
    on the CPU: the fused one (FLASH_ATTENTION) and the math path."""

    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4


_ENABLED = {SDPBackend.MATH, SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION,
            SDPBackend.CUDNN_ATTENTION, SDPBackend.OVERRIDEABLE}


@contextlib.contextmanager
def sdpa_kernel(backends, set_priority=False):
    """Within the block, ``scaled_dot_product_attention`` uses only ``backends`` (one or a list)."""
    chosen = {backends} if isinstance(backends, SDPBackend) else set(backends)
    kept = set(_ENABLED)
    _ENABLED.clear()
    _ENABLED.update(chosen)
    try:
        yield
    finally:
        _ENABLED.clear()
        _ENABLED.update(kept)


def _softmax_rows(s):
    """softmax over the last axis of an array; a row of -inf gives zeros (the fused kernel's)."""
    top = s.max(axis=-1, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    e = np.exp(s - top)
    total = e.sum(axis=-1, keepdims=True)
    return np.divide(e, total, out=np.zeros_like(e), where=total > 0)


def _mT(x):
    return D.moveaxis(x, -1, -2)


class ScaledDotProductFlashAttentionForCpuBackward0(Op):
    """softmax(q kᵀ · scale + mask) v over the last two axes (the mask a constant)."""

    saves = (0, 1, 2)

    @staticmethod
    def forward(q, k, v, mask=None, scale=1.0):
        s = (q @ np.swapaxes(k, -1, -2)) * scale
        if mask is not None:
            s = s + mask
        return (_softmax_rows(s) @ v).astype(q.dtype)

    def backward(self, g, q, k, v):
        mask, scale = self.mask, self.scale
        if isinstance(g, Tensor) or isinstance(q, Tensor):     # create_graph: the same rule, recorded
            q, k, v, g = (x if isinstance(x, Tensor) else Tensor._make(x) for x in (q, k, v, g))
            s = ops.matmul(q, _mT(k)) * scale
            if mask is not None:
                s = s + Tensor._make(mask)
            p = ops.softmax(s, -1)
        else:
            s = (q @ np.swapaxes(k, -1, -2)) * scale
            if mask is not None:
                s = s + mask
            p = _softmax_rows(s)
        dp = g @ _mT(v)
        ds = p * (dp - (dp * p).sum(axis=-1, keepdims=True)) if not isinstance(p, Tensor) \
            else p * (dp - (dp * p).sum(-1, keepdim=True))
        gq = (ds @ k) * scale if self.needs(0) else None
        gk = (_mT(ds) @ q) * scale if self.needs(1) else None
        gv = _mT(p) @ g if self.needs(2) else None
        return gq, gk, gv


def _attention_mask(attn_mask, is_causal, L, S, dtype):
    """The additive mask: a boolean ``attn_mask`` (True: attend) as 0/-inf, a causal one as
    ``tril`` of ones, or None."""
    if is_causal:
        if attn_mask is not None:
            raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when "
                               "is_causal=True")
        attn_mask = Tensor._make(np.tril(np.ones((L, S), dtype=bool)))
    if attn_mask is not None and attn_mask.dtype == np.bool_:
        attn_mask = Tensor._make(np.where(attn_mask._data, 0.0, -np.inf).astype(dtype))
    return attn_mask


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
                                 enable_gqa=False):
    """softmax(Q Kᵀ · scale + mask) V, with ``scale`` 1/√E by default, ``attn_mask`` boolean
    (True: attend) or added, ``is_causal`` the lower-triangular mask, dropout with
    probability ``dropout_p`` on the attention weights, and with ``enable_gqa`` each key and
    value head shared by a group of query heads."""
    L, S, E = query.shape[-2], key.shape[-2], query.shape[-1]
    scale = 1.0 / math.sqrt(E) if scale is None else scale
    if enable_gqa and query.ndim >= 3 and key.shape[-3] != query.shape[-3]:   # grouped-query attention
        groups = query.shape[-3] // key.shape[-3]
        key, value = key.repeat_interleave(groups, -3), value.repeat_interleave(groups, -3)
    mask = _attention_mask(attn_mask, is_causal, L, S, query.dtype)
    fits = query.ndim == 4 and key.ndim == 4 and value.ndim == 4 and dropout_p == 0.0 \
        and (mask is None or not mask.requires_grad)
    fused = fits and SDPBackend.FLASH_ATTENTION in _ENABLED
    if not fused and SDPBackend.MATH not in _ENABLED:
        if SDPBackend.FLASH_ATTENTION in _ENABLED:
            raise RuntimeError("No available kernel.  Aborting execution.")
        raise RuntimeError("No viable backend for scaled_dot_product_attention was found. This is likely due to "
                           "turning off both the math kernel and the fused kernels.")
    if fused:
        return apply(ScaledDotProductFlashAttentionForCpuBackward0, (query, key, value),
                     {"mask": None if mask is None else mask._data, "scale": scale})
    factor = math.sqrt(scale)
    attn = ops.matmul(query * factor, key.transpose(-2, -1) * factor)
    if mask is not None:
        attn = attn + mask
    dead = np.isneginf(attn._data).all(-1, keepdims=True)     # rows with every key masked: zeros
    if dead.any():                                            # (ATen's _safe_softmax)
        dead = Tensor._make(dead)
        attn = F.softmax(attn.masked_fill(dead, 0.0), -1).masked_fill(dead, 0.0)
    else:
        attn = F.softmax(attn, -1)
    if dropout_p > 0.0:
        attn = F.dropout(attn, dropout_p, True)
    return ops.matmul(attn, value)


# -- multi-head attention -------------------------------------------------------------------
def _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads):
    if query.ndim == 3:
        if key.ndim != 3 or value.ndim != 3:
            raise AssertionError("For batched (3-D) `query`, expected `key` and `value` to be 3-D but found "
                                 f"{key.ndim}-D and {value.ndim}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.ndim != 2:
            raise AssertionError("For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D but "
                                 f"found {key_padding_mask.ndim}-D tensor instead")
        if attn_mask is not None and attn_mask.ndim not in (2, 3):
            raise AssertionError("For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but "
                                 f"found {attn_mask.ndim}-D tensor instead")
        return True
    if query.ndim == 2:
        if key.ndim != 2 or value.ndim != 2:
            raise AssertionError("For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found "
                                 f"{key.ndim}-D and {value.ndim}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.ndim != 1:
            raise AssertionError("For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D but "
                                 f"found {key_padding_mask.ndim}-D tensor instead")
        if attn_mask is not None:
            if attn_mask.ndim not in (2, 3):
                raise AssertionError("For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D "
                                     f"but found {attn_mask.ndim}-D tensor instead")
            expected = (num_heads, query.shape[0], key.shape[0])
            if attn_mask.ndim == 3 and tuple(attn_mask.shape) != expected:
                raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got "
                                     f"torch.Size({list(attn_mask.shape)})")
        return False
    raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received {query.ndim}-D query tensor")


def _in_projection_packed(q, k, v, w, b=None):
    E = q.shape[-1]
    if k is v:
        if q is k:
            proj = F.linear(q, w, b)
            proj = proj.unflatten(-1, (3, E)).unsqueeze(0).transpose(0, -2).squeeze(-2).contiguous()
            return proj[0], proj[1], proj[2]
        w_q, w_kv = w.split([E, E * 2])
        b_q, b_kv = (None, None) if b is None else b.split([E, E * 2])
        kv_proj = F.linear(k, w_kv, b_kv)
        kv_proj = kv_proj.unflatten(-1, (2, E)).unsqueeze(0).transpose(0, -2).squeeze(-2).contiguous()
        return F.linear(q, w_q, b_q), kv_proj[0], kv_proj[1]
    w_q, w_k, w_v = w.chunk(3)
    b_q, b_k, b_v = (None, None, None) if b is None else b.chunk(3)
    return F.linear(q, w_q, b_q), F.linear(k, w_k, b_k), F.linear(v, w_v, b_v)


def _pad_last(t):
    """``F.pad(t, (0, 1))``: one zero column appended."""
    return ops.cat([t, Tensor._make(np.zeros(tuple(t.shape[:-1]) + (1,), dtype=t.dtype))], -1)


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias,
                                 bias_k, bias_v, add_zero_attn, dropout_p, out_proj_weight, out_proj_bias,
                                 training=True, key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None, k_proj_weight=None,
                                 v_proj_weight=None, static_k=None, static_v=None, average_attn_weights=True,
                                 is_causal=False):
    """Multi-head attention on (L, N, E) inputs (or unbatched (L, E)): the attention output
    and, with ``need_weights``, the attention weights (averaged over the heads unless
    ``average_attn_weights=False``), as ``torch.nn.functional.multi_head_attention_forward``."""
    is_batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    key_padding_mask = canonical_mask(key_padding_mask, "key_padding_mask", none_or_dtype(attn_mask), "attn_mask",
                                      query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
                           "method `generate_square_subsequent_mask` to create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None
    else:
        attn_mask = canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, check_other=False)
        if key_padding_mask is not None:
            is_causal = False
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if tuple(key.shape[:2]) != tuple(value.shape[:2]):
            raise AssertionError(f"key's sequence and batch dims {tuple(key.shape[:2])} do not match value's "
                                 f"{tuple(value.shape[:2])}")
        b_q, b_k, b_v = (None, None, None) if in_proj_bias is None else in_proj_bias.chunk(3)
        q, k, v = (F.linear(query, q_proj_weight, b_q), F.linear(key, k_proj_weight, b_k),
                   F.linear(value, v_proj_weight, b_v))
    else:
        if key.shape != value.shape:
            raise AssertionError(f"key shape torch.Size({list(key.shape)}) does not match value shape "
                                 f"torch.Size({list(value.shape)})")
        q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    if attn_mask is not None:
        if attn_mask.ndim == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise RuntimeError(f"The shape of the 2D attn_mask is torch.Size({list(attn_mask.shape)}), but "
                                   f"should be {(tgt_len, src_len)}.")
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.ndim == 3:
            if tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
                raise RuntimeError(f"The shape of the 3D attn_mask is torch.Size({list(attn_mask.shape)}), but "
                                   f"should be {(bsz * num_heads, tgt_len, src_len)}.")
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.ndim} is not supported")
    if bias_k is not None and bias_v is not None:
        k = ops.cat([k, bias_k.repeat(1, bsz, 1)])
        v = ops.cat([v, bias_v.repeat(1, bsz, 1)])
        if attn_mask is not None:
            attn_mask = _pad_last(attn_mask)
        if key_padding_mask is not None:
            key_padding_mask = _pad_last(key_padding_mask)
    q = q.view(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    k = k.view(k.shape[0], bsz * num_heads, head_dim).transpose(0, 1) if static_k is None else static_k
    v = v.view(v.shape[0], bsz * num_heads, head_dim).transpose(0, 1) if static_v is None else static_v
    if add_zero_attn:
        zeros = Tensor._make(np.zeros((bsz * num_heads, 1, head_dim), dtype=k.dtype))
        k, v = ops.cat([k, zeros], 1), ops.cat([v, zeros], 1)
        if attn_mask is not None:
            attn_mask = _pad_last(attn_mask)
        if key_padding_mask is not None:
            key_padding_mask = _pad_last(key_padding_mask)
    src_len = k.shape[1]
    if key_padding_mask is not None:
        if tuple(key_padding_mask.shape) != (bsz, src_len):
            raise AssertionError(f"expecting key_padding_mask shape of {(bsz, src_len)}, but got "
                                 f"torch.Size({list(key_padding_mask.shape)})")
        key_padding_mask = key_padding_mask.view(bsz, 1, 1, src_len).expand(-1, num_heads, -1, -1) \
            .reshape(bsz * num_heads, 1, src_len)
        attn_mask = key_padding_mask if attn_mask is None else attn_mask + key_padding_mask
    if not training:
        dropout_p = 0.0
    if need_weights:
        q_scaled = q * math.sqrt(1.0 / float(q.shape[-1]))
        if attn_mask is not None:
            weights = ops.baddbmm(attn_mask, q_scaled, k.transpose(-2, -1))
        else:
            weights = ops.bmm(q_scaled, k.transpose(-2, -1))
        weights = F.softmax(weights, dim=-1)
        if dropout_p > 0.0:
            weights = F.dropout(weights, p=dropout_p)
        attn_output = ops.bmm(weights, v)
        attn_output = attn_output.transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        attn_output = F.linear(attn_output, out_proj_weight, out_proj_bias)
        attn_output = attn_output.view(tgt_len, bsz, attn_output.shape[1])
        weights = weights.view(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(dim=1)
        if not is_batched:
            attn_output, weights = attn_output.squeeze(1), weights.squeeze(0)
        return attn_output, weights
    if attn_mask is not None:
        if attn_mask.shape[0] == 1 and attn_mask.ndim == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.view(bsz, num_heads, -1, src_len)
    q = q.view(bsz, num_heads, tgt_len, head_dim)
    k = k.view(bsz, num_heads, src_len, head_dim)
    v = v.view(bsz, num_heads, src_len, head_dim)
    attn_output = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    attn_output = attn_output.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    attn_output = F.linear(attn_output, out_proj_weight, out_proj_bias)
    attn_output = attn_output.view(tgt_len, bsz, attn_output.shape[1])
    if not is_batched:
        attn_output = attn_output.squeeze(1)
    return attn_output, None


class MultiheadAttention(Module):
    """Attention from ``num_heads`` heads of ``embed_dim // num_heads`` features each, with
    learnt input and output projections; inputs (L, N, E), or (N, L, E) with ``batch_first``."""

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False, add_zero_attn=False,
                 kdim=None, vdim=None, batch_first=False, device=None, dtype=None):
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} and "
                             f"num_heads={num_heads} instead")
        super().__init__()
        dtype = np.dtype(dtype) if dtype is not None else default_dtype()
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads, self.dropout, self.batch_first = num_heads, dropout, batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != self.embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        if not self._qkv_same_embed_dim:
            self.q_proj_weight = Parameter(np.empty((embed_dim, embed_dim), dtype=dtype))
            self.k_proj_weight = Parameter(np.empty((embed_dim, self.kdim), dtype=dtype))
            self.v_proj_weight = Parameter(np.empty((embed_dim, self.vdim), dtype=dtype))
            self.register_parameter("in_proj_weight", None)
        else:
            self.in_proj_weight = Parameter(np.empty((3 * embed_dim, embed_dim), dtype=dtype))
            for name in ("q_proj_weight", "k_proj_weight", "v_proj_weight"):
                self.register_parameter(name, None)
        if bias:
            self.in_proj_bias = Parameter(np.empty(3 * embed_dim, dtype=dtype))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = LAYERS["NonDynamicallyQuantizableLinear"](embed_dim, embed_dim, bias=bias, dtype=dtype)
        if add_bias_kv:
            self.bias_k = Parameter(np.empty((1, 1, embed_dim), dtype=dtype))
            self.bias_v = Parameter(np.empty((1, 1, embed_dim), dtype=dtype))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self):
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            init.xavier_normal_(self.bias_v)

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
                average_attn_weights=True, is_causal=False):
        is_batched = query.ndim == 3
        key_padding_mask = canonical_mask(key_padding_mask, "key_padding_mask", none_or_dtype(attn_mask),
                                          "attn_mask", query.dtype)
        attn_mask = canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, check_other=False)
        if self.batch_first and is_batched:
            if key is value:
                if query is key:
                    query = key = value = query.transpose(1, 0)
                else:
                    query, key = (x.transpose(1, 0) for x in (query, key))
                    value = key
            else:
                query, key, value = (x.transpose(1, 0) for x in (query, key, value))
        separate = not self._qkv_same_embed_dim
        attn_output, weights = multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight, self.in_proj_bias,
            self.bias_k, self.bias_v, self.add_zero_attn, self.dropout, self.out_proj.weight, self.out_proj.bias,
            training=self.training, key_padding_mask=key_padding_mask, need_weights=need_weights,
            attn_mask=attn_mask, use_separate_proj_weight=separate, q_proj_weight=self.q_proj_weight,
            k_proj_weight=self.k_proj_weight, v_proj_weight=self.v_proj_weight,
            average_attn_weights=average_attn_weights, is_causal=is_causal)
        if self.batch_first and is_batched:
            return attn_output.transpose(1, 0), weights
        return attn_output, weights

    def merge_masks(self, attn_mask, key_padding_mask, query):
        """The attention mask and the key padding mask as one (N, heads, L, L) mask, and its type."""
        mask_type, merged = None, None
        if key_padding_mask is not None:
            mask_type, merged = 1, key_padding_mask
        if attn_mask is not None:
            batch_size, seq_len, _ = query.shape
            mask_type = 2
            if attn_mask.ndim == 3:
                merged = attn_mask.view(batch_size, -1, seq_len, seq_len)
            else:
                merged = attn_mask.view(1, 1, seq_len, seq_len).expand(batch_size, self.num_heads, -1, -1)
            if key_padding_mask is not None:
                merged = merged + key_padding_mask.view(batch_size, 1, 1, seq_len).expand(-1, self.num_heads, -1, -1)
        return merged, mask_type
