"""A model's parameters as one flat vector and back (``torch.nn.utils.parameters_to_vector``)."""

from __future__ import annotations

from ... import ops
from ...tensor import Tensor


def parameters_to_vector(parameters):
    """The parameters flattened and concatenated (CatBackward0 of ViewBackward0s)."""
    return ops.cat([p.view(-1) for p in parameters])


def vector_to_parameters(vec, parameters):
    """Copy consecutive slices of ``vec`` into the parameters' data."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    pointer = 0
    for p in parameters:
        n = p.numel()
        p.data = vec[pointer:pointer + n].view_as(p).data
        pointer += n


__all__ = ["parameters_to_vector", "vector_to_parameters"]
