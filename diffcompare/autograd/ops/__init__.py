"""Every differentiable operation, by family: its forward on arrays and its vector-Jacobian
product side by side, one class per op named as PyTorch names the node (``MulBackward0``).

A node's ``backward(g, *saved)`` gets the incoming gradient ``g`` and the values named in
``saves`` (input positions, or ``RESULT`` for the output). It runs on NumPy arrays, or on
tensors when the gradient itself is being differentiated (``create_graph=True``); it is
written once for both, with operators, array/tensor methods common to both (``sum(axis=,
keepdims=)``, ``reshape``, ``swapaxes``, indexing) and the dual functions of ``D``
(:mod:`.dual`). It returns one gradient per input (``None`` where the input needs none).

The families: :mod:`.recording` (the ``Op`` base class, ``apply``, ``sum_to``),
:mod:`.arithmetic`, :mod:`.elementwise`, :mod:`.reductions`, :mod:`.linalg` (products),
:mod:`.matrices` (triangles, diagonals), :mod:`.decompositions` (det, inv, solve, cholesky),
:mod:`.einstein` (einsum), :mod:`.selection` (gather, sort, split), :mod:`.statistics` (quantile, mode), :mod:`.integration`
(trapezoid, gradient),
:mod:`.pointwise` (lerp, xlogy, ...: beside the function table), :mod:`.composites` (torch
functions PyTorch composes of other ops: ``torch.mul``, ``hstack``, ``narrow``, ...), :mod:`.shape`
(views, ``cat``, ``stack``), :mod:`.indexing`, :mod:`.inplace`, :mod:`.strided` (as_strided; a view's history
after its base was written in place), :mod:`.comparison`,
:mod:`.distances` (``dist``, ``cdist``), :mod:`.convolution` (``conv1d/2d/3d``, ``conv_transpose1d/2d/3d``), :mod:`.layers` (the fused ops of nn's layers and losses), :mod:`.losses` (the other fused
losses), :mod:`.activations` (nn's one-kernel activations), :mod:`.sampling` (draws that depend on tensors: bernoulli, normal, multinomial), :mod:`.separable` (linear maps
applied axis by axis), :mod:`.pooling` (max, average, adaptive, LP, fractional pooling and unpooling of every rank),
:mod:`.normalization_ops` (group, instance, RMS and local response normalisation), :mod:`.resampling`
(interpolation, non-constant padding, channel shuffle, fold/unfold), :mod:`.grid_sampling` (affine grids,
``grid_sample``), :mod:`.ctc` (the CTC loss), :mod:`.fourier` (``torch.fft``'s transforms), :mod:`.noisy`
(rrelu), :mod:`.gamma_functions` (lgamma, digamma, polygamma, erfinv), :mod:`.special_functions` (the rest of
``torch.special``: Bessel functions, erfcx, ndtr, ndtri, the incomplete gamma functions, zeta, ...),
:mod:`.orthogonal_polynomials` (Chebyshev, Hermite, Laguerre, Legendre), :mod:`.spectral` (window functions,
``stft``), :mod:`.foreach` (``torch._foreach_*``: one op over a list of tensors), :mod:`.operator_names`
(``torch.ops.aten``: ``torch.ops`` is this package under PyTorch's names). Each family names what it exports
in its ``__all__``, and its torch-level functions (``ag.sin``, ``ag.cat``) in ``PUBLIC``;
this package gathers both from :data:`FAMILIES`, so an op is added in its family alone.

>>> from diffcompare import autograd as ag
>>> x = ag.tensor(0.5, requires_grad=True)
>>> y = ag.sin(x) * x
>>> y.grad_fn.name(), [type(n).__name__ for n, _ in y.grad_fn.next_functions]
('MulBackward0', ['SinBackward0', 'AccumulateGrad'])
"""

from . import (activations, arithmetic, comparison, composites, convolution, convolution_grads, decompositions, distances, dual, einstein, elementwise, factorizations, indexing, inplace, integration, numeric,
               layers, linalg, losses, matrices, outputs, overloads, pointwise, recording, reductions, sampling, scattering, selection, shape, statistics, strided)
from . import ctc, fourier, gamma_functions, grid_sampling, noisy, normalization_ops, orthogonal_polynomials, pooling, resampling, separable
from . import foreach, operator_names, special_functions, spectral

# the families, in the order their names are gathered (a later family's name wins)
FAMILIES = (dual, recording, outputs, overloads, arithmetic, elementwise, shape, inplace, indexing, strided, reductions, statistics, integration, linalg, comparison, convolution, convolution_grads, layers,
            losses, matrices, decompositions, factorizations, einstein, scattering, selection, pointwise, numeric, activations, distances, sampling, composites,
            separable, pooling, normalization_ops, resampling, grid_sampling, ctc, noisy, gamma_functions, fourier,
            special_functions, orthogonal_polynomials, operator_names, spectral, foreach)

__all__ = []
PUBLIC = ()         # the torch-level functions, `diffcompare.autograd.<name>` as `torch.<name>`
for _family in FAMILIES:
    globals().update({name: getattr(_family, name) for name in _family.__all__})
    __all__ += list(_family.__all__)
    PUBLIC += tuple(getattr(_family, "PUBLIC", ()))
del _family


def __getattr__(name):
    """``torch.ops.<namespace>`` for a namespace of custom operators (``torch.library``)."""
    if name in operator_names.CUSTOM_NAMESPACES:
        return operator_names.CUSTOM_NAMESPACES[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
