"""Lecture material: ``explain`` (the backward pass node by node), ``steps`` (the
finite-difference error against the step size) and ``swell`` (expression swell)."""
