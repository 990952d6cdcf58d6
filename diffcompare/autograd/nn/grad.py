"""``torch.nn.grad`` (also ``torch.nn.functional.grad``): the gradients of a convolution with
respect to its input or its weight, given the gradient of its output — the two halves of a
convolution's backward, for code that writes its own (a custom ``Function``'s backward).

Each is the vector-Jacobian product of the engine's own convolution, so it agrees with
``backward()`` through ``F.conv2d`` by construction; where the given weight (or input)
requires grad the result is itself differentiable (PyTorch records
``ConvolutionBackwardBackward0`` there).

>>> from diffcompare import autograd as ag
>>> F = ag.nn.functional
>>> x, w = ag.ones(1, 1, 4), ag.tensor([[[1.0, 2.0]]])
>>> F.grad.conv1d_input(x.shape, w, ag.ones(1, 1, 3))      # each input sums the taps it meets
tensor([[[1., 3., 3., 2.]]])
>>> F.grad.conv1d_weight(x, w.shape, ag.ones(1, 1, 3))
tensor([[[3., 3.]]])
"""

from __future__ import annotations

from .. import ops
from ..backward import grad as _grad
from ..grad_mode import enable_grad
from ..tensor import zeros

__all__ = ["conv1d_input", "conv1d_weight", "conv2d_input", "conv2d_weight", "conv3d_input", "conv3d_weight"]


def _input_grad(conv, input_size, weight, grad_output, *options):
    x = zeros(*tuple(input_size), dtype=grad_output.dtype, requires_grad=True)
    return _vjp(lambda: conv(x, weight, None, *options), x, weight, grad_output)


def _weight_grad(conv, input, weight_size, grad_output, *options):
    w = zeros(*tuple(weight_size), dtype=grad_output.dtype, requires_grad=True)
    return _vjp(lambda: conv(input, w, None, *options), w, input, grad_output)


def _vjp(convolve, wrt, other, grad_output):
    """The gradient of ``convolve()`` with respect to ``wrt`` (zeros of its size: the product is
    linear in it) against ``grad_output``; differentiable where ``other`` or it requires grad."""
    with enable_grad():
        return _grad(convolve(), wrt, grad_output, create_graph=other.requires_grad or grad_output.requires_grad)[0]


def conv1d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """The gradient of ``conv1d`` with respect to an input of ``input_size``."""
    return _input_grad(ops.conv1d, input_size, weight, grad_output, stride, padding, dilation, groups)


def conv1d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """The gradient of ``conv1d`` with respect to a weight of ``weight_size``."""
    return _weight_grad(ops.conv1d, input, weight_size, grad_output, stride, padding, dilation, groups)


def conv2d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """The gradient of ``conv2d`` with respect to an input of ``input_size``."""
    return _input_grad(ops.conv2d, input_size, weight, grad_output, stride, padding, dilation, groups)


def conv2d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """The gradient of ``conv2d`` with respect to a weight of ``weight_size``."""
    return _weight_grad(ops.conv2d, input, weight_size, grad_output, stride, padding, dilation, groups)


def conv3d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """The gradient of ``conv3d`` with respect to an input of ``input_size``."""
    return _input_grad(ops.conv3d, input_size, weight, grad_output, stride, padding, dilation, groups)


def conv3d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """The gradient of ``conv3d`` with respect to a weight of ``weight_size``."""
    return _weight_grad(ops.conv3d, input, weight_size, grad_output, stride, padding, dilation, groups)
