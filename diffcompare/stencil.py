"""Difference stencils: a derivative from samples of f, f'(x) ≈ Σ weight · f(x + offset·h) / h.

A stencil is its (offset, weight) pairs, in the order f is sampled. This module holds
every scheme's stencil and the one combination of samples into a difference; the
finite-difference methods, gradcheck's numerical Jacobian (PyTorch's central
differences), the audit's gradcheck reference and explain's check of a node by
differences all form their differences here. How a caller moves x by ``offset·h`` (a
column of a batch of points, one element in place, a direction) and which dtype it
works in stay the caller's: :func:`sample` hands it the displacement.

Central differences of x³ at x = 1 with h = 0.5: (1.5³ - 0.5³) / (2 · 0.5) = 3.25, the
derivative 3 plus h² f'''/6 = 0.25:

>>> difference(lambda step: (1.0 + step) ** 3, 0.5)
3.25
>>> sample(lambda step: step, 0.5)              # f(x - h) first, then f(x + h), as PyTorch's gradcheck
[-0.5, 0.5]
>>> reach(STENCILS["five-point"])
(2, 2)
"""

from __future__ import annotations

import math


def _richardson_stencil():
    # (64 D(h/4) - 20 D(h/2) + D(h)) / 45 with D(s) = (f(x + s) - f(x - s)) / 2s
    weights = {}
    for scale, c in ((0.25, 64 / 45), (0.5, -20 / 45), (1.0, 1 / 45)):
        weights[scale] = weights.get(scale, 0) + c / (2 * scale)
        weights[-scale] = weights.get(-scale, 0) - c / (2 * scale)
    return tuple(weights.items())


CENTRAL = ((-1, -0.5), (1, 0.5))        # (f(x+h) - f(x-h)) / 2h, sampled left first

# f'(x) ≈ Σ weight · f(x + offset·h) / h, exact for polynomials of degree up to the scheme's order
# (the error model reads these too: their weights and moments)
STENCILS = {
    "forward-difference": ((0, -1.0), (1, 1.0)),
    "backward-difference": ((0, 1.0), (-1, -1.0)),
    "central-difference": CENTRAL,
    "five-point": ((-2, 1 / 12), (-1, -8 / 12), (1, 8 / 12), (2, -1 / 12)),
    "richardson": _richardson_stencil(),
}


def sample(at, h, stencil=CENTRAL, centre=None) -> list:
    """``[at(offset · h) for each offset]`` in the stencil's order: ``at`` is f at x moved
    by the displacement it is given (a number, or an array of them, one per point).
    ``centre``: f(x) when the caller has it already, used for the offset 0.

    >>> sample(lambda step: 10 + step, 2.0, STENCILS["forward-difference"], centre=10.0)
    [10.0, 12.0]
    """
    return [centre if offset == 0 and centre is not None else at(offset * h) for offset, _ in stencil]


def combine(samples, h, stencil=CENTRAL):
    """Σ weight · sample / h, the samples taken at the stencil's offsets (:func:`sample`);
    numbers or arrays alike, in their own dtype.

    The weights are first scaled by a power of two p (exactly) so that the largest is 1 or
    a little more, and h by the same p: the result is Σ weight · sample / h wherever the
    products are normal numbers, and central differences are (f(x+h) - f(x-h)) / 2h as
    PyTorch's gradcheck computes them, also where f's values are subnormal.

    >>> combine([1.0, 4.0], 0.5)                      # (4 - 1) / (2 · 0.5)
    3.0
    >>> combine([0.0, 5e-324], 1.0) == 5e-324 / 2     # the smallest subnormal is not halved first
    True
    """
    scale = _power_of_two(max(abs(weight) for _, weight in stencil))
    total = None
    for (_, weight), value in zip(stencil, samples, strict=True):
        term = (weight / scale) * value
        total = term if total is None else total + term
    return total / (h / scale)


def _power_of_two(x: float) -> float:
    """The largest power of two not above x > 0 (exact: read from x's binary exponent)."""
    return math.ldexp(1.0, math.frexp(x)[1] - 1)


def difference(at, h, stencil=CENTRAL, taken=None, centre=None):
    """The derivative along the direction ``at`` moves x: f sampled at ``offset · h``
    (:func:`sample`) and combined over ``taken``, the step actually taken when rounding
    makes it differ from h (``(x + h) - x``), else h.

    >>> difference(lambda step: (2.0 + step) ** 2, 0.25, STENCILS["forward-difference"])    # 2x + h at x = 2
    4.25
    """
    return combine(sample(at, h, stencil, centre), h if taken is None else taken, stencil)


def reach(stencil) -> tuple:
    """How far the stencil reaches, in steps: (to the left, to the right).

    >>> reach(STENCILS["forward-difference"]), reach(STENCILS["richardson"])
    ((0, 1), (1.0, 1.0))
    """
    offsets = [offset for offset, _ in stencil]
    return max(0, -min(offsets)), max(0, max(offsets))
