"""Elementwise functions: the table of one-input functions (forward, saved values, VJP,
read like PyTorch's derivatives.yaml), and softplus, clamp, maximum/minimum, atan2, hypot and
where."""

from __future__ import annotations

import math

import numpy as np

from ..tensor import Tensor
from . import special
from .dual import D, define, register
from .outputs import write_out
from .recording import RESULT, Op, apply, array_of


def unary_op(name, cls):
    """The function of a one-input op class, with a docstring saying its VJP."""
    def op(input, *, out=None):
        if out is None:
            return apply(cls, (input,))
        return write_out(apply(cls, (input,)), out, name)
    op.__name__ = op.__qualname__ = name
    op.own_names = True     # PyTorch's signature itself: no keyword wrapper on this hot path
    op.__doc__ = (f"Elementwise {name}(x), recorded as {cls.__name__}; its vector-Jacobian product is "
                  f"{cls.formula}.\n\n    >>> from diffcompare import autograd as ag\n"
                  f"    >>> ag.{name}(ag.tensor([0.5], requires_grad=True)).grad_fn\n"
                  f"    <{cls.__name__} object at ...>\n    ")
    return op


def _elementwise(np_func, name, saves, vjp, formula):
    """Make a one-input elementwise op class from its forward and its VJP ``vjp(g, *saved)``."""

    if len(saves) == 1:     # the common case (x or the result saved): no argument tuple packed per step
        def backward(self, g, saved):
            return (vjp(g, saved),)
    else:
        def backward(self, g, *saved):
            return (vjp(g, *saved),)

    return type(name, (Op,), {"forward": staticmethod(np_func), "backward": backward, "batched_backward": backward,
                              "tangent": "linear" if name in LINEAR_NAMES else "elementwise", "saves": saves,
                              "formula": formula, "__doc__": f"VJP: {formula}."})


def real_sign(x):
    """PyTorch's sign of real values: np.sign, but 0 at NaN (so abs'(nan) is 0, as in PyTorch).

    >>> real_sign(np.array([-2.0, 0.0, np.nan, np.inf]))
    array([-1.,  0.,  0.,  1.])
    """
    s = np.sign(x)
    if s.dtype.kind == "f" and np.isnan(s).any():
        s = np.where(np.isnan(s), 0, s).astype(s.dtype)
    return s


def _sgn(x):
    """PyTorch's sgn: sign(x) for real x (0 at NaN); x/|x| for complex x (0 at 0), itself
    differentiable when x is a tensor, so that second derivatives through abs are right."""
    a = array_of(x)
    if a.dtype.kind != "c":
        # a recorded x (create_graph) gets a recorded sgn, as PyTorch's: zero derivative, but
        # the gradient stays in the graph (requires_grad, SgnBackward0) as there
        return D.sgn(x) if isinstance(x, Tensor) and x.requires_grad else real_sign(a)
    zero = a == 0
    return D.where(zero, 0.0, x / D.where(zero, 1.0, D.abs(x)))


define("sgn", real_sign)       # the tensor form: numeric's sgn (SgnBackward0)

LINEAR_NAMES = ("ConjBackward0", "RealBackward0", "ImagBackward0")   # their tangent: the op on the tangent

def _acosh_grad(g, x):
    """acosh's derivative, as PyTorch writes it: 1/sqrt(x^2 - 1) for real x, and for complex x
    1/(sqrt(x + 1) sqrt(x - 1)), which keeps acosh's branch where Re x < 0 (1/sqrt(x^2 - 1) is
    its negative there)."""
    if x.dtype.kind == "c":
        return g * (1 / D.sqrt(x + 1) * (1 / D.sqrt(x - 1)))
    return g / D.sqrt(x * x - 1)


def _one_minus_square(r):
    """1 - r^2, rounded once for a float32 array as PyTorch's kernel rounds it (a fused
    multiply-add); tanh's derivative from its result."""
    if type(r) is np.ndarray and r.dtype == np.float32:
        wide = r.astype(np.float64)
        return (1 - wide * wide).astype(np.float32)
    return 1 - r * r


_LN2, _LN10, _2_SQRT_PI = math.log(2.0), math.log(10.0), 2.0 / math.sqrt(math.pi)
X, R = (0,), (RESULT,)

# name -> (forward on arrays, saves, VJP, the VJP in words). Read it like derivatives.yaml.
_P = special.float32_as_pytorch    # (float32 results as PyTorch's kernels give them: rounded from float64)

ELEMENTWISE = {
    "exp":   (_P(np.exp), R, lambda g, r: g * r, "grad * result"),
    "log":   (_P(np.log), X, lambda g, x: g / x, "grad / x"),
    "log1p": (_P(np.log1p), X, lambda g, x: g / (x + 1), "grad / (x + 1)"),
    "expm1": (_P(np.expm1), R, lambda g, r: g * (r + 1), "grad * (result + 1)"),
    "log2":  (_P(np.log2), X, lambda g, x: g / (x * _LN2), "grad / (x ln 2)"),
    "log10": (_P(np.log10), X, lambda g, x: g / (x * _LN10), "grad / (x ln 10)"),
    "sqrt":  (np.sqrt,    R, lambda g, r: g / (2 * r), "grad / (2 result)"),
    "cbrt":  (np.cbrt,    R, lambda g, r: g / (3 * r * r), "grad / (3 result^2)"),
    "rsqrt": (lambda x: 1 / np.sqrt(x), R, lambda g, r: g * (-0.5 * r * r * r), "-grad result^3 / 2"),
    "sin":   (_P(np.sin), X, lambda g, x: g * D.cos(x), "grad * cos(x)"),
    "cos":   (_P(np.cos), X, lambda g, x: -g * D.sin(x), "-grad * sin(x)"),
    "tan":   (np.tan,     R, lambda g, r: g * (1 + r * r), "grad * (1 + result^2)"),
    "asin":  (_P(np.arcsin), X, lambda g, x: g / D.sqrt(1 - x * x), "grad / sqrt(1 - x^2)"),
    "acos":  (np.arccos,  X, lambda g, x: -g / D.sqrt(1 - x * x), "-grad / sqrt(1 - x^2)"),
    "atan":  (np.arctan,  X, lambda g, x: g / (1 + x * x), "grad / (1 + x^2)"),
    "sinh":  (_P(np.sinh), X, lambda g, x: g * D.cosh(x), "grad * cosh(x)"),
    "cosh":  (_P(np.cosh), X, lambda g, x: g * D.sinh(x), "grad * sinh(x)"),
    "tanh":  (_P(np.tanh), R, lambda g, r: g * _one_minus_square(r), "grad * (1 - result^2)"),
    "asinh": (np.arcsinh, X, lambda g, x: g / D.sqrt(x * x + 1), "grad / sqrt(x^2 + 1)"),
    "acosh": (np.arccosh, X, _acosh_grad, "grad / sqrt(x^2 - 1) (complex: / (sqrt(x + 1) sqrt(x - 1)))"),
    "atanh": (_P(np.arctanh), X, lambda g, x: g / (1 - x * x), "grad / (1 - x^2)"),
    "sigmoid": (special.sigmoid, R, lambda g, r: g * (1 - r) * r, "grad * (1 - result) result"),  # (PyTorch's order)
    "relu":  (special.relu,   R, lambda g, r: threshold_backward(g, r, 0), "grad except where result <= 0 (NaN passes it)"),
    "abs":   (np.abs,     X, lambda g, x: g * _sgn(x), "grad * sgn(x)"),
    "sign":  (real_sign,      (), lambda g: D.zeros_like(g), "0"),
    "floor": (np.floor,   (), lambda g: D.zeros_like(g), "0"),
    "ceil":  (np.ceil,    (), lambda g: D.zeros_like(g), "0"),
    "round": (np.round,   (), lambda g: D.zeros_like(g), "0"),
    "erf":   (special.erf,    X, lambda g, x: g * (_2_SQRT_PI * D.exp(-(x * x))), "grad * 2/sqrt(pi) exp(-x^2)"),
    "reciprocal": (lambda x: 1 / x, R, lambda g, r: -g * (r * r), "-grad * result^2"),
    # complex parts: grad is real for real and imag, and the gradient of z is dL/da + i dL/db
    "conj":  (np.conj,    (), lambda g: D.conj(g), "conj(grad)"),
    "real":  (np.real,    (), lambda g: g, "grad (as the real part)"),
    "imag":  (np.imag,    (), lambda g: g * 1j, "i grad (as the imaginary part)"),
}
_GRAD_FN_NAMES = {"log1p": "Log1PBackward0", "expm1": "Expm1Backward0"}

# real and imag of a complex tensor are views of it (pointwise's functions, as PyTorch's); their
# ops here carry a tangent or a gradient through the dual functions, and are not torch-level
VIEWS = ("real", "imag")
OP_CLASSES = {}
for _name, (_fwd, _saves, _vjp, _formula) in ELEMENTWISE.items():
    _cls_name = _GRAD_FN_NAMES.get(_name, _name.capitalize() + "Backward0")
    OP_CLASSES[_name] = _elementwise(_fwd, _cls_name, _saves, _vjp, _formula)
    globals()[_cls_name] = OP_CLASSES[_name]
    globals()[_name] = unary_op(_name, OP_CLASSES[_name])
for _name in VIEWS:    # (the op itself: D's tensor form, in gradients of gradients)
    globals()[_name].__doc__ = (f"The {_name} part as the op {OP_CLASSES[_name].__name__}, D.{_name}'s tensor form; "
                                f"``torch.{_name}`` is a view of a complex tensor (pointwise's).")
OP_CLASSES["abs"].holomorphic = False    # g * sgn(z), with sgn(z) = z/|z| for complex z, as in PyTorch


class RoundBackward1(Op):
    """round(x, decimals=n): to n decimals, halves to even; a step function, gradient zero."""

    @staticmethod
    def forward(x, decimals):
        return np.round(x, decimals)

    def backward(self, g):
        return (D.zeros_like(g),)


_round_to_integers = round      # noqa: F821  (made in the loop above)


def round(input, *, decimals=0):  # noqa: A001 - PyTorch's name
    """To the nearest integer (RoundBackward0), or to ``decimals`` decimal places (RoundBackward1);
    halves to even."""
    if decimals == 0:
        return _round_to_integers(input)
    return apply(RoundBackward1, (input,), {"decimals": decimals})


class SoftplusBackward0(Op):
    """softplus(x) = log(1 + exp(beta x)) / beta, linear above ``threshold``."""
    saves = (0,)

    @staticmethod
    def forward(x, beta=1.0, threshold=20.0):
        z = x * beta
        return np.where(z > threshold, x, np.logaddexp(0, z) / beta).astype(np.asarray(x).dtype)

    def backward(self, g, x):
        z = x * self.beta
        return (D.where(array_of(z) > self.threshold, g, g * D.sigmoid(z)),)


def softplus(input, beta=1.0, threshold=20.0):
    return apply(SoftplusBackward0, (input,), {"beta": beta, "threshold": threshold})


class ClampBackward1(Op):
    """clamp with constant bounds: the gradient passes where ``min <= x <= max`` (inclusive)."""
    saves = (0,)

    @staticmethod
    def forward(x, min=None, max=None):
        out = x
        if min is not None:
            out = np.maximum(out, min)
        if max is not None:
            out = np.minimum(out, max)
        return out if out is not x else x.copy()

    def backward(self, g, x):
        x = array_of(x)
        mask = np.ones(x.shape, dtype=bool)
        if self.min is not None:
            mask &= x >= self.min
        if self.max is not None:
            mask &= x <= self.max
        return (D.where(mask, g, 0.0),)


class ClampBackward0(Op):
    """clamp with tensor bounds: ties go to x; a bound gets the gradient where it clamps."""
    broadcasts = True
    saves = (0, 1, 2)
    saved_names = ("self", "min", "max")

    @staticmethod
    def forward(x, lo, hi):
        out = x
        if lo is not None:
            out = np.maximum(out, lo)
        if hi is not None:
            out = np.minimum(out, hi)
        return np.array(out, dtype=np.result_type(x))

    def backward(self, g, x, lo, hi):
        # PyTorch's clamp_backward_min_max: comparisons with a NaN are false, so x's gradient
        # is zero where x or a bound is NaN, and a bound gets it only where it clamps
        xa, la, ha = array_of(x), array_of(lo), array_of(hi)
        gx = glo = ghi = None
        if la is not None and ha is not None:
            if self.needs(0):
                gx = D.where((xa >= la) & (xa <= ha), g, 0.0)
            if self.needs(1):
                glo = D.where((xa < la) & (la < ha), g, 0.0)
            if self.needs(2):
                ghi = D.where((xa > ha) | (ha < la), g, 0.0)
        elif la is not None:
            gx = D.where(xa >= la, g, 0.0) if self.needs(0) else None
            glo = D.where(xa < la, g, 0.0) if self.needs(1) else None
        else:
            gx = D.where(xa <= ha, g, 0.0) if self.needs(0) else None
            ghi = D.where(xa > ha, g, 0.0) if self.needs(2) else None
        return gx, glo, ghi


def clamp(x, min=None, max=None):
    """Limit values to ``[min, max]``; bounds may be numbers or tensors.

    >>> from diffcompare import autograd as ag
    >>> x = ag.tensor([-1.0, 0.0, 1.0, 2.0], requires_grad=True)
    >>> x.clamp(0, 1).sum().backward()
    >>> x.grad
    tensor([0., 1., 1., 0.])
    """
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        return apply(ClampBackward0, (x, min, max))
    return apply(ClampBackward1, (x,), {"min": min, "max": max})


clip = clamp


class MaximumBackward0(Op):
    """Elementwise max; a tie sends half the gradient to each side, and where a comparison
    fails (a NaN on either side) both sides get all of it, as in PyTorch.

    >>> from diffcompare import autograd as ag
    >>> a = ag.tensor([float("nan"), 1.0, 2.0], requires_grad=True)
    >>> b = ag.tensor([1.0, 1.0, 3.0], requires_grad=True)
    >>> ag.maximum(a, b).sum().backward()
    >>> a.grad, b.grad
    (tensor([1.0000, 0.5000, 0.0000]), tensor([1.0000, 0.5000, 1.0000]))
    """
    broadcasts = True
    saves = (0, 1)
    forward = staticmethod(np.maximum)

    def backward(self, g, a, b):
        return _extremum_shares(self, g, array_of(a), array_of(b), np.less, np.greater)


class MinimumBackward0(Op):
    """Elementwise min; ties and NaNs as in :class:`MaximumBackward0`."""
    broadcasts = True
    saves = (0, 1)
    forward = staticmethod(np.minimum)

    def backward(self, g, a, b):
        return _extremum_shares(self, g, array_of(a), array_of(b), np.greater, np.less)


def _extremum_shares(node, g, a, b, a_loses, b_loses):
    """PyTorch's rule for maximum/minimum: each side gets the gradient, halved where a == b,
    zeroed where it loses (``a_loses(a, b)``); NaN compares false, so it loses nowhere."""
    tie = np.where(a == b, 0.5, 1.0).astype(g.dtype)
    share_a = np.where(a_loses(a, b), 0.0, tie).astype(g.dtype) if node.needs(0) else None
    share_b = np.where(b_loses(a, b), 0.0, tie).astype(g.dtype) if node.needs(1) else None
    return (None if share_a is None else g * share_a), (None if share_b is None else g * share_b)


def _extremum_tangent(node, tangents, arrays, out):
    """Forward mode of maximum/minimum, PyTorch's formula: tb + w (ta - tb) with w = 1/2 at a
    tie, else whether a wins (so at a NaN the tangent is b's)."""
    (ta, tb), (a, b) = tangents, (array_of(arrays[0]), array_of(arrays[1]))   # tensors when tangents are recorded
    wins = np.greater(a, b) if type(node) is MaximumBackward0 else np.less(a, b)
    share = np.where(np.equal(a, b), 0.5, wins).astype(array_of(out).dtype)
    ta = 0 if ta is None else ta
    tb = 0 if tb is None else tb
    return tb + share * (ta - tb)


def maximum(input, other, *, out=None):
    """The elementwise larger of ``input`` and ``other`` (NaN where either is NaN)."""
    return write_out(apply(MaximumBackward0, (input, other)), out, "maximum")


def minimum(input, other, *, out=None):
    """The elementwise smaller of ``input`` and ``other`` (NaN where either is NaN)."""
    return write_out(apply(MinimumBackward0, (input, other)), out, "minimum")


class Atan2Backward0(Op):
    """atan2(y, x): d/dy = x / (x² + y²), d/dx = -y / (x² + y²); 0 at the origin."""
    broadcasts = True
    saves = (0, 1)
    forward = staticmethod(np.arctan2)

    def backward(self, g, y, x):
        r2 = x * x + y * y
        zero = array_of(r2) == 0
        gy = D.where(zero, 0.0, g * x / r2) if self.needs(0) else None
        gx = D.where(zero, 0.0, -g * y / r2) if self.needs(1) else None
        return gy, gx


def atan2(input, other):
    """The angle of the point (other, input), elementwise: ``atan2(y, x)`` in NumPy's order."""
    return apply(Atan2Backward0, (input, other))


class HypotBackward0(Op):
    """hypot(a, b) = sqrt(a² + b²): d/da = a / result, d/db = b / result (nan at the origin, as PyTorch)."""
    broadcasts = True
    saves = (0, 1, RESULT)
    forward = staticmethod(np.hypot)

    def backward(self, g, a, b, r):
        return (g * a / r if self.needs(0) else None), (g * b / r if self.needs(1) else None)


def hypot(a, b):
    return apply(HypotBackward0, (a, b))


class ThresholdBackwardBackward0(Op):
    """The backward of relu and threshold as an op of its own, PyTorch's ``threshold_backward``:
    the gradient where x > threshold, else 0 (NaN passes). It is linear in the gradient and its
    derivative in x is zero, but x is an input all the same: a second derivative reaches what x
    depends on, with zeros, as in PyTorch (not nothing)."""
    saves = (1,)

    @staticmethod
    def forward(g, x, threshold):
        return np.where(x <= threshold, 0, g)

    def backward(self, gg, x):
        return threshold_backward(gg, x, self.threshold), (D.zeros_like(gg) if self.needs(1) else None)


def backward_op(cls, g, x, **params):
    """An activation's backward ``cls`` (an op of the gradient and the input) on ``g`` and
    ``x``: recorded when given tensors, as a backward with ``create_graph`` gives them;
    computed on arrays."""
    if isinstance(g, Tensor) or isinstance(x, Tensor):
        return apply(cls, (g, x), params)
    return cls.forward(g, x, **params)


def threshold_backward(g, x, threshold):
    """``g`` where ``x`` > ``threshold``, else 0 (ThresholdBackwardBackward0)."""
    return backward_op(ThresholdBackwardBackward0, g, x, threshold=threshold)


class WhereBackward0(Op):
    """where(cond, a, b): the unselected side receives an exact 0 (whose product with an
    infinite local derivative is nan: the well-known where-NaN trap, kept on purpose)."""
    broadcasts = True
    saves = (0,)
    saved_names = ("condition",)

    @staticmethod
    def forward(cond, a, b):
        return np.where(cond, a, b)

    def backward(self, g, cond):
        cond = array_of(cond)
        return None, (D.where(cond, g, 0.0) if self.needs(1) else None), (D.where(cond, 0.0, g) if self.needs(2) else None)


_NOT_GIVEN = object()


def nonzero_indices(condition):
    """The indices of ``condition``'s non-zero elements: a tuple of 1-d int64 tensors, one per
    dimension (a 0-d condition as a 1-d one), as ``nonzero(as_tuple=True)`` gives them."""
    a = np.asarray(condition._data if isinstance(condition, Tensor) else condition)
    return tuple(Tensor._make(i.astype(np.int64)) for i in np.nonzero(np.atleast_1d(a)))


def where(condition, input=_NOT_GIVEN, other=_NOT_GIVEN):
    """Pick ``input`` where ``condition`` holds, else ``other``; given the condition alone,
    the indices where it holds (``nonzero(condition, as_tuple=True)``).

    >>> from diffcompare import autograd as ag
    >>> ag.where(ag.tensor([0.0, 2.0, -1.0]))
    (tensor([1, 2]),)
    """
    if input is _NOT_GIVEN and other is _NOT_GIVEN:
        return nonzero_indices(condition)
    if input is _NOT_GIVEN or other is _NOT_GIVEN:
        raise TypeError(f"where() received an invalid combination of arguments - got ({_type_names(condition, input, other)}),"
                        " but expected one of:\n * (Tensor condition)\n * (Tensor condition, Tensor input, Tensor other, "
                        "*, Tensor out = None)")
    cond = condition._data if isinstance(condition, Tensor) else np.asarray(condition)
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        return Tensor._make(np.where(cond, input, other))
    out = apply(WhereBackward0, (cond, input, other))
    return out


def _type_names(*values):
    return ", ".join(type(v).__name__ if not isinstance(v, Tensor) else "Tensor" for v in values if v is not _NOT_GIVEN)


for _cls in (SoftplusBackward0, ClampBackward1, ClampBackward0, MaximumBackward0, MinimumBackward0, Atan2Backward0,
             HypotBackward0, WhereBackward0, ThresholdBackwardBackward0):
    _cls.batched_backward = _cls.backward   # elementwise: the rule takes a batch as it is
    _cls.tangent = "elementwise"
MaximumBackward0.tangent = MinimumBackward0.tangent = staticmethod(_extremum_tangent)

register(conj=conj, real=real, exp=exp, log=log, sqrt=sqrt,  # noqa: F821
         sin=sin, cos=cos, sinh=sinh, cosh=cosh, sigmoid=sigmoid, abs=abs,  # noqa: F821
         where=where)  # noqa: F821  (exp ... abs are made from the table above)


# the torch-level functions of this family (`ag.<name>`, as `torch.<name>`): the table's, and the rest
PUBLIC = (*(name for name in ELEMENTWISE if name not in VIEWS), "atan2", "clamp", "clip", "hypot", "maximum",
          "minimum", "softplus", "where")
# what the family exports to `ops`
__all__ = [*PUBLIC, *(cls.__name__ for cls in OP_CLASSES.values()), "Atan2Backward0", "ClampBackward0",
           "ClampBackward1", "HypotBackward0", "MaximumBackward0", "MinimumBackward0", "SoftplusBackward0",
           "WhereBackward0", "RoundBackward1", "ELEMENTWISE", "OP_CLASSES", "R", "X", "nonzero_indices",
           "ThresholdBackwardBackward0", "backward_op", "threshold_backward"]
