"""A convolution's derivatives as differentiable operations: its forward-mode rule (a
convolution is linear in its input and in its weight separately, so its tangent is
``conv(t_input, weight) + conv(input, t_weight) + t_bias``), and its backward with a graph
(``create_graph=True``), whose input and weight gradients are recorded as PyTorch records
them, ``ConvolutionBackwardBackward0``, so that they can be differentiated again.

All three pieces of a convolution (the forward, the gradient for the input, the gradient
for the weight) are bilinear, and the derivatives of each are the other two:

====================  ==========================  ================================
piece                 d/d first operand (of G)     d/d second operand (of G)
====================  ==========================  ================================
forward(x, w)         input(G, w)                  weight(G, x)
input(g, w)           forward(G, w)                weight(g, G)
weight(g, x)          forward(x, G)                input(g, G)
====================  ==========================  ================================

>>> from diffcompare import autograd as ag
>>> x = ag.tensor([[[1.0, 2.0, 3.0]]], requires_grad=True)
>>> w = ag.tensor([[[1.0, -1.0]]], requires_grad=True)
>>> gx, = ag.autograd.grad(ag.nn.functional.conv1d(x, w).pow(2).sum(), x, create_graph=True)
>>> gx.grad_fn.name(), gx
('ConvolutionBackwardBackward0', tensor([[[-2.,  0.,  2.]]], grad_fn=<ConvolutionBackwardBackward0>))
"""

from __future__ import annotations

from ..tensor import Tensor
from .convolution import ConvolutionBackward0, conv_forward, conv_input_grad, conv_weight_grad
from .dual import D
from .recording import Op, apply

_CONV = ("stride", "padding", "dilation", "groups")


def _compute(piece, a, c, size, conv):
    if piece == "forward":
        return conv_forward(a, c, *conv)
    if piece == "input":
        return conv_input_grad(a, c, size, *conv)
    return conv_weight_grad(a, c, size, *conv)


class ConvolutionBackwardBackward0(Op):
    """One piece of a convolution (``piece``: "forward", "input" or "weight", see the module's
    table) of two operands, as recorded by a convolution's backward with a graph."""
    saves = (0, 1)

    @staticmethod
    def forward(a, c, piece, size, conv):
        return _compute(piece, a, c, size, conv)

    def backward(self, g, a, c):
        piece, conv = self.piece, self.conv
        da = dc = None
        if piece == "forward":
            if self.needs(0):
                da = pieces("input", g, c, a.shape[2:], conv)
            if self.needs(1):
                dc = pieces("weight", g, a, c.shape[2:], conv)
        elif piece == "input":
            if self.needs(0):
                da = pieces("forward", g, c, None, conv)
            if self.needs(1):
                dc = pieces("weight", a, g, c.shape[2:], conv)
        else:
            if self.needs(0):
                da = pieces("forward", c, g, None, conv)
            if self.needs(1):
                dc = pieces("input", a, g, c.shape[2:], conv)
        return da, dc


def pieces(piece, a, c, size, conv):
    """One piece of a convolution on arrays, or recorded (ConvolutionBackwardBackward0) when
    an operand is a tensor."""
    if isinstance(a, Tensor) or isinstance(c, Tensor):
        return apply(ConvolutionBackwardBackward0, (a, c), {"piece": piece, "size": size, "conv": conv})
    return _compute(piece, a, c, size, conv)


class ConvolutionBiasGrad(Op):
    """A convolution's bias gradient from a gradient with history: ``g`` summed over all but
    the channel dimension (PyTorch's node: ConvolutionBackwardBackward0)."""
    tangent = "linear"

    @staticmethod
    def forward(g, shape):
        return g.sum(axis=(0,) + tuple(range(2, g.ndim)))

    def backward(self, g):
        return (D.expand(g.reshape((1, -1) + (1,) * (len(self.shape) - 2)), self.shape),)


ConvolutionBiasGrad.__name__ = "ConvolutionBackwardBackward0"


def _piece_tangent(node, tangents, arrays, out):
    (ta, tc), (a, c) = tangents, arrays
    total = None
    if ta is not None:
        total = pieces(node.piece, ta, c, node.size, node.conv)
    if tc is not None:
        part = pieces(node.piece, a, tc, node.size, node.conv)
        total = part if total is None else total + part
    return total


ConvolutionBackwardBackward0.tangent = staticmethod(_piece_tangent)


def backward_with_graph(node, g, x, w):
    """A convolution's VJP with ``g`` a tensor with history: the input and weight gradients
    as ConvolutionBackwardBackward0 nodes, the bias gradient likewise."""
    conv = tuple(getattr(node, k) for k in _CONV)
    gx = gw = gb = None
    if node.transposed:
        if node.needs(0):
            gx = pieces("forward", g, w, None, conv)
        if node.needs(1):
            gw = pieces("weight", x, g, w.shape[2:], conv)
    else:
        if node.needs(0):
            gx = pieces("input", g, w, x.shape[2:], conv)
        if node.needs(1):
            gw = pieces("weight", g, x, w.shape[2:], conv)
    if node.needs(2):
        gb = apply(ConvolutionBiasGrad, (g,), {"shape": tuple(g.shape)})
    return gx, gw, gb


def convolution_tangent(node, tangents, arrays, out):
    """The tangent of ``conv(x, w) + b``: ``conv(tx, w) + conv(x, tw) + tb`` (a transposed
    convolution likewise)."""
    (tx, tw, tb), (x, w, b) = tangents, arrays
    conv = tuple(getattr(node, k) for k in _CONV)
    piece = "input" if getattr(node, "transposed", False) else "forward"
    size = getattr(node, "output_size", None)
    total = None
    if tx is not None:
        total = _conv(piece, tx, w, size, conv)
    if tw is not None:
        part = _conv(piece, x, tw, size, conv)
        total = part if total is None else total + part
    if tb is not None:
        part = tb.reshape((-1,) + (1,) * (len(out.shape) - 2))
        total = part if total is None else total + part
    return total


def _conv(piece, a, c, size, conv):
    """A convolution without bias, recorded as ConvolutionBackward0 when an operand is a tensor."""
    if isinstance(a, Tensor) or isinstance(c, Tensor):
        stride, padding, dilation, groups = conv
        return apply(ConvolutionBackward0, (a, c, None), {"stride": stride, "padding": padding, "dilation": dilation,
                                                          "groups": groups, "transposed": piece == "input",
                                                          "output_size": size})
    return _compute(piece, a, c, size, conv)


ConvolutionBackward0.tangent = staticmethod(convolution_tangent)
ConvolutionBackward0.graph_backward = backward_with_graph

# what the module exports to `ops`
__all__ = ["ConvolutionBackwardBackward0", "ConvolutionBiasGrad"]
