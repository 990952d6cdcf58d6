"""Arithmetic: ``+ - * /``, negation and powers, each op's forward beside its VJP."""

from __future__ import annotations

import math

import numpy as np

from ..broadcast import broadcast_view
from ..gradients import ScaledGrad, is_constant, scaled
from ..quiet import quietly
from ..tensor import Tensor
from .dual import D, register
from .outputs import write_out
from .overloads import number_first, scalar_argument
from .recording import RESULT, Op, apply, array_of, sum_axes
from .short_axis import MIN_SIZE, broadcasting, summed, times

class AddBackward0(Op):
    broadcasts = True
    takes_scaled = True
    forward = staticmethod(broadcasting(np.add))

    def backward(self, g):
        return g, g


_BOOL_SUB = ("Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a mask, "
             "use the `~` or `logical_not()` operator instead.")
_BOOLS_SUB = ("Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` "
              "operator instead.")


def _without_bools(subtract):
    """A subtraction's forward refusing booleans in PyTorch's words (NumPy subtracts a bool
    array and an integer, and refuses two bool arrays in its own words)."""
    def forward(a, b):
        a_bool = a.__class__ is np.ndarray and a.dtype.kind == "b"
        if a_bool or (b.__class__ is np.ndarray and b.dtype.kind == "b"):
            raise RuntimeError(_BOOLS_SUB if a_bool and b.__class__ is np.ndarray and b.dtype.kind == "b" else _BOOL_SUB)
        return subtract(a, b)
    forward.__name__ = forward.__qualname__ = "subtract"
    return forward


class SubBackward0(Op):
    broadcasts = True
    takes_scaled = True
    forward = staticmethod(_without_bools(broadcasting(np.subtract)))

    def backward(self, g):
        return g, (scaled(g, -1) if self.needs(1) else None)


class RsubBackward1(Op):
    """``c - x`` for a constant c."""
    takes_scaled = True
    forward = staticmethod(_without_bools(lambda x, c: np.subtract(c, x)))

    def backward(self, g):
        return scaled(g, -1), None


class MulBackward0(Op):
    broadcasts = True
    saves = (0, 1)
    forward = staticmethod(broadcasting(np.multiply))

    def backward(self, g, a, b):
        wants_a, wants_b = self._next      # self.needs(0), self.needs(1)
        if type(g) is np.ndarray and g.size < MIN_SIZE:    # small: NumPy's product, no questions
            return (g * b if wants_a is not None else None), (g * a if wants_b is not None else None)
        meta = self.meta
        if meta is None:
            return (times(g, b) if wants_a is not None else None), (times(g, a) if wants_b is not None else None)
        return (_product_to(g, b, meta[0]) if wants_a is not None else None), \
            (_product_to(g, a, meta[1]) if wants_b is not None else None)

    def batched_backward(self, g, a, b):
        return (times(g, b) if self.needs(0) else None), (times(g, a) if self.needs(1) else None)


def _product_to(g, other, meta):
    """``g * other`` summed back to the shape of a broadcast input (``meta``: its shape and
    dtype) in one pass, without the full product in between (``summed``)."""
    if meta is not None and type(g) is np.ndarray and type(other) is np.ndarray and g.shape != meta[0]:
        full = other if other.shape == g.shape else broadcast_view(other, g.shape)
        return summed((g, full), sum_axes(g.shape, meta[0])).reshape(meta[0])
    return times(g, other)


class MulScalarBackward(Op):
    """``x * c`` for a number c: only c is kept (PyTorch records MulBackward0 and keeps it too)."""
    takes_scaled = True
    saves = (1,)
    forward = staticmethod(np.multiply)

    def backward(self, g, c):
        return scaled(g, c), None


MulScalarBackward.__name__ = "MulBackward0"
MulScalarBackward.saved_names, MulScalarBackward.saved_absent = ("other",), ("self",)   # as PyTorch keeps x * c


class DivBackward0(Op):
    broadcasts = True
    saves = (0, 1)

    forward = staticmethod(broadcasting(np.true_divide))

    def backward(self, g, a, b):
        # PyTorch's formulas (div_tensor_self/other_backward): the same roundings, and the
        # same infinities where b is 0 (-g * a / (b * b) would be nan in a second derivative)
        return (g / b if self.needs(0) else None), (-g * ((a / b) / b) if self.needs(1) else None)


def _negative(x):
    if x.__class__ is np.ndarray and x.dtype.kind == "b":
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
                           "invert a mask, use the `~` or `logical_not()` operator instead.")
    return np.negative(x)


class NegBackward0(Op):
    takes_scaled = True
    forward = staticmethod(_negative)

    def backward(self, g):
        return (scaled(g, -1),)


def power(x, e):
    """``x ** e`` for a number e as PyTorch's CPU kernel computes it: e = 2 and 3 multiplied
    out, -1, -2 and -0.5 as reciprocals (the same roundings, and x*x*x costs a hundredth of
    np.power(x, 3)); other exponents by pow.

    >>> x = np.array([1.1, -2.3])
    >>> bool((power(x, 3) == x * x * x).all()), bool((power(x, -2) == 1 / (x * x)).all())
    (True, True)
    """
    if e == 2:
        return x * x
    if e == 3:
        return x * x * x
    if e == -1:
        return np.reciprocal(x) if np.issubdtype(np.result_type(x), np.floating) else np.power(x, e)
    if e == -2 and np.issubdtype(np.result_type(x), np.floating):
        return 1 / (x * x)
    if e == -0.5 and np.issubdtype(np.result_type(x), np.floating):
        return 1 / np.sqrt(x)
    return np.power(x, e)


class PowBackward0(Op):
    """``x ** e`` for a constant exponent e; e == 0 gives a zero gradient (not nan at x = 0)."""
    takes_scaled = True
    saves = (0,)

    @staticmethod
    def forward(x, exponent):
        return power(x, exponent)

    def backward(self, g, x):
        e = self.exponent
        if not isinstance(g, Tensor):   # plain backward: one new array, filled in place
            if e == 0:
                return (np.zeros_like(g),)
            base = x if e == 2 else quietly(power, x, e - 1)
            if is_constant(g):      # one pass: fold the constant gradient into the factor
                return (base * (g.flat[0] * e),)
            factor = e
            if type(g) is ScaledGrad:
                g, factor = g.values, e * g.factor
            local = times(base, g)
            local *= factor
            return (local,)
        # differentiable backward: PyTorch's formula (pow_backward), so that every higher
        # derivative stays connected to x; for e == 0 its zeros, which have no history (a
        # third derivative of x**2 is zeros that do not require grad, as in PyTorch)
        if e == 0:
            return (D.zeros_like(g),)
        return (g * (e * pow(x, e - 1)),)

    def batched_backward(self, g, x):
        e = self.exponent
        return (np.zeros_like(g) if e == 0 else g * (e * (x if e == 2 else quietly(power, x, e - 1))),)


class PowBackward1(Op):
    """``a ** b`` with both tensors: d/da = b a^(b-1) (0 where b == 0), d/db = a^b log a (0 where
    a == 0 and b >= 0)."""
    broadcasts = True
    saves = (0, 1, RESULT)
    saved_names = ("self", "exponent", "result")
    # complex: the rule is PyTorch's (pow_backward_self, pow_backward_exponent), conjugates
    # taken of the derivatives; conjugating the saved values instead goes wrong for a negative
    # real base, which lies on log's branch cut (log(-1) is i pi, its conjugate -i pi)
    holomorphic = False

    @staticmethod
    def forward(a, b):
        return np.power(a, b)

    def backward(self, g, a, b, r):
        ga = gb = None
        b_array = array_of(b)
        if array_of(r).dtype.kind != "c":
            if self.needs(0):
                ga = D.where(b_array == 0, 0.0, g * b * D.pow(a, b - 1))
            if self.needs(1):
                gb = g * D.where((array_of(a) == 0) & (b_array >= 0), 0.0, r * D.log(a))
            return ga, gb
        if self.needs(0):
            ga = D.where(b_array == 0, 0.0, g * D.conj(b * D.pow(a, b - 1)))
        if self.needs(1):
            real_exponent = (b_array.imag == 0) & (b_array.real >= 0) if b_array.dtype.kind == "c" else b_array >= 0
            base = a if array_of(a).dtype == array_of(r).dtype else D.cast(a, array_of(r).dtype)   # log of a complex base
            gb = g * D.where((array_of(a) == 0) & real_exponent, 0.0, D.conj(r * D.log(base)))
        return ga, gb


class PowBackward2(Op):
    """``c ** x`` for a constant base c."""
    saves = (RESULT,)
    saved_params = {"self": "base"}     # PyTorch's name of the base

    @staticmethod
    def forward(x, base):
        return np.power(base, x)

    def backward(self, g, r):
        c = self.base
        if c == 0:
            return (D.zeros_like(g),)   # PyTorch masks 0**x (x >= 0): no 0 * -inf
        return (g * r * math.log(c) if c > 0 else g * r * math.nan,)






def pow(x, exponent):
    """``x ** exponent``; either side may be a number."""
    if isinstance(exponent, Tensor):
        if isinstance(x, Tensor):
            return apply(PowBackward1, (x, exponent))
        return apply(PowBackward2, (exponent,), {"base": x})
    return apply(PowBackward0, (x,), {"exponent": exponent})




# -- torch.add / torch.sub with alpha ----------------------------------------------------------

class _AlphaSum(Op):
    """``a + sign * alpha * b``: ``torch.add(a, b, alpha=)`` and ``torch.sub``, one node as in
    PyTorch (AddBackward0, SubBackward0)."""
    broadcasts = True
    sign = 1

    @classmethod
    def forward(cls, a, b, alpha):
        return a + (cls.sign * alpha) * b

    def backward(self, g):
        return g, (g * (self.sign * self.alpha) if self.needs(1) else None)


AddAlphaBackward = type("AddBackward0", (_AlphaSum,), {"__doc__": "``a + alpha * b``", "sign": 1})
SubAlphaBackward = type("SubBackward0", (_AlphaSum,), {"__doc__": "``a - alpha * b``", "sign": -1})


def _with_alpha(cls, plain, input, other, alpha, name):
    if not isinstance(input, Tensor):
        input = Tensor._make(np.asarray(input))
    if not isinstance(other, (Tensor, int, float, complex)):
        other = Tensor._make(np.asarray(other))
    if type(alpha) is int and alpha == 1:
        return plain(input, other)
    alpha = scalar_argument(name, "alpha", alpha)
    kinds = {input.dtype.kind, (other.dtype.kind if isinstance(other, Tensor) else "f" if isinstance(other, float)
                                else "i")}
    if isinstance(alpha, (bool, np.bool_)) and kinds != {"b"}:
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    if isinstance(alpha, float) and not kinds & set("fc"):
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")
    return apply(cls, (input, other), {"alpha": alpha})


def add(input, other, *deprecated, alpha=1, out=None):
    """``input + alpha * other``, recorded as AddBackward0, as ``torch.add`` (also in its
    deprecated order ``add(input, alpha, other)``, with PyTorch's warning).

    >>> from diffcompare import autograd as ag
    >>> ag.add(ag.tensor([1.0, 2.0], requires_grad=True), ag.tensor([3.0, 4.0]), alpha=2)
    tensor([ 7., 10.], grad_fn=<AddBackward0>)
    """
    if deprecated:
        alpha, (other,) = number_first("add", other, (), deprecated, "alpha", ("other",))
    return write_out(_with_alpha(AddAlphaBackward, Tensor.__add__, input, other, alpha, "add"), out, "add")


def sub(input, other, *deprecated, alpha=1, out=None):
    """``input - alpha * other``, recorded as SubBackward0, as ``torch.sub`` (also in its
    deprecated order ``sub(input, alpha, other)``).

    >>> from diffcompare import autograd as ag
    >>> ag.sub(ag.tensor([1.0, 2.0]), ag.tensor([3.0, 4.0]), alpha=0.5)
    tensor([-0.5000,  0.0000])
    """
    if deprecated:
        alpha, (other,) = number_first("sub", other, (), deprecated, "alpha", ("other",))
    return write_out(_with_alpha(SubAlphaBackward, Tensor.__sub__, input, other, alpha, "sub"), out, "sub")


# the rules that take a batch of gradients as they are: NumPy broadcasting lines g's trailing
# axes up with the saved values
for _cls in (AddBackward0, SubBackward0, RsubBackward1, MulScalarBackward, DivBackward0,
             NegBackward0, PowBackward1, PowBackward2, AddAlphaBackward, SubAlphaBackward):
    _cls.batched_backward = _cls.backward
for _cls in (AddBackward0, SubBackward0, RsubBackward1, AddAlphaBackward, SubAlphaBackward):
    _cls.tangent = "affine"
for _cls in (MulScalarBackward, NegBackward0):
    _cls.tangent = "linear"
for _cls in (MulBackward0, DivBackward0, PowBackward0, PowBackward1, PowBackward2):
    _cls.tangent = "elementwise"

square = lambda x: pow(x, 2)  # noqa: E731 - PyTorch records x.square() as PowBackward0


register(pow=pow)


# the torch-level functions of this family (`ag.<name>`, as `torch.<name>`)
PUBLIC = ('add', 'pow', 'square', 'sub')
# what the family exports to `ops`
__all__ = ['AddAlphaBackward', 'AddBackward0', 'DivBackward0', 'MulBackward0', 'MulScalarBackward', 'NegBackward0',
           'PowBackward0', 'PowBackward1', 'PowBackward2', 'RsubBackward1', 'SubAlphaBackward', 'SubBackward0', 'add',
           'pow', 'square', 'sub']
