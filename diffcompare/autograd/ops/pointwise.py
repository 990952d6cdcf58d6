"""Pointwise functions PyTorch has beside diffcompare's function table (whose functions are
:mod:`.elementwise`'s): ``clamp_min``/``clamp_max``, ``lerp``, ``addcmul``, ``addcdiv``,
``logaddexp``, ``xlogy``, ``logit``, ``nan_to_num``, ``remainder``, ``fmod`` and the rounded
quotient of ``div(rounding_mode=)``, each with its VJP.

>>> from diffcompare import autograd as ag
>>> x = ag.tensor([0.0, 2.0], requires_grad=True)
>>> ag.logaddexp(x, ag.tensor([0.0, 0.0])).sum().backward()
>>> x.grad
tensor([0.5000, 0.8808])
"""

from __future__ import annotations

import numpy as np

from ..dtypes import default_dtype, scalar_type_name
from ..return_types import return_type
from ..tensor import Tensor
from .dual import D
from .elementwise import ClampBackward0, ClampBackward1
from .outputs import write_out
from .overloads import number_first, scalar_argument
from .recording import RESULT, Op, apply, array_of, floating_dtype
from .scattering import not_differentiable
from .shape import record_view


class ClampMinBackward0(ClampBackward1):
    """clamp_min(x, min): the gradient passes where x >= min."""


class ClampMaxBackward0(ClampBackward1):
    """clamp_max(x, max): the gradient passes where x <= max."""


def clamp_min(x, min):
    """``max(x, min)`` elementwise, recorded as ClampMinBackward0 (a tensor bound: see :func:`clamp`)."""
    if isinstance(min, Tensor):
        return apply(ClampBackward0, (x, min, None))
    return apply(ClampMinBackward0, (x,), {"min": min, "max": None})


def clamp_max(x, max):
    """``min(x, max)`` elementwise, recorded as ClampMaxBackward0."""
    if isinstance(max, Tensor):
        return apply(ClampBackward0, (x, None, max))
    return apply(ClampMaxBackward0, (x,), {"min": None, "max": max})


class LerpBackward1(Op):
    """start + weight (end - start), weight a tensor: d start = g (1 - w), d end = g w,
    d weight = g (end - start)."""
    broadcasts = True
    saves = (0, 1, 2)

    @staticmethod
    def forward(start, end, weight):
        return start + weight * (end - start)

    def backward(self, g, start, end, weight):
        return (g * (1 - weight) if self.needs(0) else None, g * weight if self.needs(1) else None,
                g * (end - start) if self.needs(2) else None)


class LerpBackward0(LerpBackward1):
    """lerp with a number as the weight."""


def lerp(input, end, weight):
    """Linear interpolation ``input + weight * (end - input)``.

    >>> from diffcompare import autograd as ag
    >>> ag.lerp(ag.tensor([0.0, 1.0]), ag.tensor([10.0, 3.0]), 0.5)
    tensor([5., 2.])
    """
    return apply(LerpBackward1 if isinstance(weight, Tensor) else LerpBackward0, (input, end, weight))


class AddcmulBackward0(Op):
    """input + value * t1 * t2."""
    broadcasts = True
    saves = (1, 2, "value")

    @staticmethod
    def forward(x, t1, t2, value):
        return x + value * (t1 * t2)

    def backward(self, g, t1, t2, value):
        return (g if self.needs(0) else None, g * (t2 * value) if self.needs(1) else None,
                g * (t1 * value) if self.needs(2) else None)


class AddcdivBackward0(Op):
    """input + value * t1 / t2."""
    broadcasts = True
    saves = (1, 2, "value")

    @staticmethod
    def forward(x, t1, t2, value):
        return x + value * (t1 / t2)

    def backward(self, g, t1, t2, value):
        return (g if self.needs(0) else None, g * value / t2 if self.needs(1) else None,
                -g * value * t1 / (t2 * t2) if self.needs(2) else None)


def addcmul(input, tensor1, tensor2, *deprecated, value=1):
    """``input + value * tensor1 * tensor2`` (also in the deprecated order ``addcmul(input,
    value, tensor1, tensor2)``)."""
    if deprecated:
        value, (tensor1, tensor2) = number_first("addcmul", tensor1, (tensor2,), deprecated, "value",
                                                 ("tensor1", "tensor2"))
    return apply(AddcmulBackward0, (input, tensor1, tensor2), {"value": scalar_argument("addcmul", "value", value)})


def addcdiv(input, tensor1, tensor2, *deprecated, value=1):
    """``input + value * tensor1 / tensor2`` (also in the deprecated order ``addcdiv(input,
    value, tensor1, tensor2)``)."""
    if deprecated:
        value, (tensor1, tensor2) = number_first("addcdiv", tensor1, (tensor2,), deprecated, "value",
                                                 ("tensor1", "tensor2"))
    return apply(AddcdivBackward0, (input, tensor1, tensor2), {"value": scalar_argument("addcdiv", "value", value)})


class LogaddexpBackward0(Op):
    """log(exp(a) + exp(b)) without overflow: d a = g sigmoid(a - b), d b = g sigmoid(b - a)."""
    broadcasts = True
    saves = (0, 1)
    forward = staticmethod(np.logaddexp)

    def backward(self, g, a, b):
        return (g * D.sigmoid(a - b) if self.needs(0) else None, g * D.sigmoid(b - a) if self.needs(1) else None)


def logaddexp(input, other):
    """``log(exp(input) + exp(other))``, computed without overflow."""
    return apply(LogaddexpBackward0, (input, other))


def x_log_family(name, node, log, pole):
    """``name(input, other)`` = input * log(other) (``log``: np.log or np.log1p, -inf at
    other = ``pole``), 0 where input is 0 unless other is NaN, as PyTorch's ``xlogy`` and
    ``special.xlog1py``: the function and its three nodes, ``{node}Backward0`` (two tensors),
    ``{node}Backward1`` (input a number) and ``{node}Backward2`` (other a number). The rules
    are derivatives.yaml's: d input = name(grad, other), 0 where input = 0 and other <= pole
    (the number other: everywhere when it is > pole), d other = grad input / (other - pole).

    >>> import math
    >>> xlog2, nodes = x_log_family("xlog2", "Xlog2", np.log2, 0.0)
    >>> xlog2(np.array([0.0, 3.0]), np.array([0.0, 4.0])), [cls.__name__ for cls in nodes]
    (array([0., 6.]), ['Xlog2Backward0', 'Xlog2Backward1', 'Xlog2Backward2'])
    """

    def values(x, y, dtype):
        x, y = np.asarray(x, dtype=dtype), np.asarray(y, dtype=dtype)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where((x == 0) & ~np.isnan(y), dtype.type(0), x * log(y)).astype(dtype)

    def function(input, other):
        if not isinstance(input, Tensor) and not isinstance(other, Tensor):   # arrays: a rule's own values
            return values(input, other, np.result_type(input, other, np.float16))
        dtype = floating_dtype(input, other)
        if not isinstance(input, Tensor):
            return apply(Backward1, (other,), {"scalar": input, "dtype": dtype})
        if not isinstance(other, Tensor):
            return apply(Backward2, (input,), {"scalar": other, "dtype": dtype})
        return apply(Backward0, (input, other), {"dtype": dtype})

    class Backward0(Op):
        broadcasts = True
        saves = (0, 1)
        forward = staticmethod(values)

        def backward(self, g, x, y):
            gx = gy = None
            if self.needs(0):
                gx = D.where((array_of(x) == 0) & (array_of(y) <= pole), 0.0, function(g, y))
            if self.needs(1):
                gy = g * x / (y - pole)
            return gx, gy

    class Backward1(Op):
        saves = (0,)

        @staticmethod
        def forward(y, scalar, dtype):
            return values(scalar, y, dtype)

        def backward(self, g, y):
            return (g * self.scalar / (y - pole),)

    class Backward2(Op):
        saves = (0,)

        @staticmethod
        def forward(x, scalar, dtype):
            return values(x, scalar, dtype)

        def backward(self, g, x):
            gx = function(g, self.scalar)
            return (gx if self.scalar > pole else D.where(array_of(x) == 0, 0.0, gx),)

    nodes = (Backward0, Backward1, Backward2)
    for k, cls in enumerate(nodes):
        cls.__name__ = cls.__qualname__ = f"{node}Backward{k}"
        cls.__doc__ = f"{name}: input * {log.__name__}(other); {('two tensors', 'a number input', 'a number other')[k]}."
        cls.batched_backward = cls.backward      # elementwise: the rule takes a batch as it is
        cls.tangent = "elementwise"
    function.__name__ = function.__qualname__ = name
    return function, nodes


xlogy, (XlogyBackward0, XlogyBackward1, XlogyBackward2) = x_log_family("xlogy", "Xlogy", np.log, 0.0)
xlogy.__doc__ = """``input * log(other)``, 0 where ``input`` is 0 unless ``other`` is NaN (as scipy's xlogy);
    either may be a number.

    >>> from diffcompare import autograd as ag
    >>> ag.xlogy(ag.tensor([0.0, 2.0]), ag.tensor([0.0, 3.0])), ag.xlogy(2, ag.tensor([1, 3]))
    (tensor([0.0000, 2.1972]), tensor([0.0000, 2.1972]))
    """


class LogitBackward0(Op):
    """log(x / (1 - x)), x first clamped to [eps, 1 - eps] when eps is given (gradient 0 outside)."""
    saves = (0,)

    @staticmethod
    def forward(x, eps):
        if eps is not None:
            x = np.clip(x, eps, 1 - eps)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.log(x / (1 - x))

    def backward(self, g, x):
        local = g / (x * (1 - x))
        if self.eps is None:
            xa = array_of(x)
            return (D.where((xa < 0) | (xa > 1), np.nan, local),)
        xa = array_of(x)
        return (D.where((xa < self.eps) | (xa > 1 - self.eps), 0.0, local),)


def logit(input, eps=None):
    """The inverse of the sigmoid, log(p / (1 - p)).

    >>> from diffcompare import autograd as ag
    >>> ag.logit(ag.tensor([0.5]))
    tensor([0.])
    """
    return apply(LogitBackward0, (input,), {"eps": eps})


class NanToNumBackward0(Op):
    """nan, +inf and -inf replaced by numbers; the gradient passes where x is finite."""
    saves = (0,)

    @staticmethod
    def forward(x, nan, posinf, neginf):
        return np.nan_to_num(x, nan=nan, posinf=posinf, neginf=neginf)

    def backward(self, g, x):
        return (D.where(np.isfinite(array_of(x)), g, 0.0),)


def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    """nan as ``nan``, +-inf as ``posinf``/``neginf`` (default: the dtype's largest/smallest value)."""
    return apply(NanToNumBackward0, (input,), {"nan": nan, "posinf": posinf, "neginf": neginf})



def _quotient(a, b, mode):
    """a / b rounded toward zero ("trunc") or down ("floor"), in the operands' dtype."""
    with np.errstate(divide="ignore", invalid="ignore"):
        if mode == "floor":
            return np.floor_divide(a, b)
        q = np.trunc(np.true_divide(a, b))
    kind = np.result_type(a, b)
    return q.astype(kind) if kind.kind in "iub" else q


class DivBackward2(Op):
    """a / b with a rounding mode: a step function, its gradient zero."""
    broadcasts = True
    forward = staticmethod(_quotient)

    def backward(self, g):
        return (D.zeros_like(g) if self.needs(0) else None, D.zeros_like(g) if self.needs(1) else None)


def rounded_div(input, other, rounding_mode):
    """``input / other`` rounded as ``rounding_mode`` says ("trunc" or "floor"), DivBackward2."""
    return apply(DivBackward2, (input, other), {"mode": rounding_mode})


class RemainderBackward0(Op):
    """a - floor(a / b) b, the sign of b's (Python's %): d a = g, d b = -g floor(a / b)."""
    broadcasts = True
    saves = (0, 1)
    forward = staticmethod(np.remainder)

    def backward(self, g, a, b):
        return (g if self.needs(0) else None,
                -g * _quotient(array_of(a), array_of(b), "floor") if self.needs(1) else None)


class FmodBackward0(Op):
    """a - trunc(a / b) b, the sign of a's (C's fmod): d a = g, d b = -g trunc(a / b)."""
    broadcasts = True
    saves = (0, 1)
    forward = staticmethod(np.fmod)

    def backward(self, g, a, b):
        return (g if self.needs(0) else None,
                -g * _quotient(array_of(a), array_of(b), "trunc") if self.needs(1) else None)


class RemainderBackward1(RemainderBackward0):
    """remainder with a tensor divisor."""


class FmodBackward1(FmodBackward0):
    """fmod with a tensor divisor."""


def remainder(input, other):
    """The remainder of ``input / other`` with the divisor's sign (Python's ``%``).

    >>> from diffcompare import autograd as ag
    >>> ag.remainder(ag.tensor([-3.0, 3.0]), 2)
    tensor([1., 1.])
    """
    if not isinstance(input, Tensor):
        input = Tensor._make(np.asarray(input))
    return apply(RemainderBackward1 if isinstance(other, Tensor) else RemainderBackward0, (input, other))


def fmod(input, other):
    """The remainder of ``input / other`` with the dividend's sign (C's fmod)."""
    return apply(FmodBackward1 if isinstance(other, Tensor) else FmodBackward0, (input, other))

class AngleBackward0(Op):
    """The argument of each element (0 or pi for a real one): the gradient is zero for real
    inputs; for complex z = a + ib it is g (-b + ia) / |z|^2, PyTorch's convention."""
    saves = (0,)
    holomorphic = False

    @staticmethod
    def forward(x):
        out = np.angle(x)
        return out if np.iscomplexobj(x) else out.astype(x.dtype if x.dtype.kind == "f" else np.float32)

    def backward(self, g, x):
        if array_of(x).dtype.kind != "c":
            return (D.zeros_like(g),)
        re, im = (x.real, x.imag) if isinstance(x, Tensor) else (np.real(x), np.imag(x))
        return (g * (-im + 1j * re) / (re * re + im * im),)


AngleBackward0.tangent = "elementwise"     # Re(conj(w) t) for complex z: Im(conj(z) t) / |z|^2; 0 for a real one


def angle(input):
    """The argument of each element, as ``torch.angle`` (pi for a negative real, 0 for others).

    >>> from diffcompare import autograd as ag
    >>> ag.angle(ag.tensor([-2.0, 3.0]))
    tensor([3.1416, 0.0000])
    """
    return apply(AngleBackward0, (input,))


class FrexpBackward0(Op):
    """The mantissa of ``frexp``: x = mantissa * 2**exponent, so its gradient is g / 2**exponent."""

    @staticmethod
    def forward(x, scale):
        return np.frexp(x)[0]

    def backward(self, g):
        return (g / self.scale,)


def frexp(input):
    """``(mantissa, exponent)`` with input = mantissa * 2**exponent and |mantissa| in [0.5, 1)
    (``torch.frexp``; the exponent int32).

    >>> from diffcompare import autograd as ag
    >>> ag.frexp(ag.tensor([8.0, 0.3]))
    torch.return_types.frexp(
    mantissa=tensor([0.5000, 0.6000]),
    exponent=tensor([ 4, -1], dtype=int32))
    """
    if input.dtype.kind != "f":
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    exponent = np.frexp(input._data)[1].astype(np.int32)
    mantissa = apply(FrexpBackward0, (input,), {"scale": np.ldexp(np.ones((), input.dtype), exponent)})
    return return_type("frexp", ("mantissa", "exponent"))(mantissa, Tensor._make(exponent))


class LdexpBackward0(Op):
    """input * 2**other: the gradient of input is g * 2**other, with 2**other computed in the
    exponent's dtype as PyTorch computes it (an integer exponent below 0 gives 0 there)."""

    @staticmethod
    def forward(x, factor, grad_factor):
        return x * factor

    def backward(self, g):
        return (g * self.grad_factor,)


def ldexp(input, other):
    """``input * 2**other`` (``torch.ldexp``), a floating result.

    >>> from diffcompare import autograd as ag
    >>> ag.ldexp(ag.tensor([1.0]), ag.tensor([3]))
    tensor([8.])
    """
    data = array_of(input)
    dtype = data.dtype if data.dtype.kind in "fc" else default_dtype()
    exponent = np.asarray(array_of(other))
    factor = np.power(np.asarray(2.0, dtype), exponent).astype(dtype)
    grad_factor = np.where(exponent < 0, 0, factor).astype(dtype) if exponent.dtype.kind in "iu" else factor
    if not isinstance(input, Tensor) or data.dtype != dtype:
        input = Tensor._make(np.asarray(data, dtype))
    return apply(LdexpBackward0, (input,), {"factor": factor, "grad_factor": grad_factor})


def heaviside(input, values):
    """0 where input < 0, 1 where input > 0, ``values`` where input == 0 (``torch.heaviside``);
    PyTorch gives it no derivative, and nor does the engine."""
    x, v = array_of(input), array_of(values)
    if np.result_type(x) != np.result_type(v):
        raise RuntimeError(f"heaviside is not yet implemented for tensors with different dtypes")
    out = np.heaviside(x, v).astype(np.result_type(x))
    return not_differentiable(tuple(t for t in (input, values) if isinstance(t, Tensor)), out, "heaviside")


class NextafterBackward0(Op):
    """The next representable value after ``input`` towards ``other``: the gradient passes to
    ``input`` where the two differ, none to ``other`` (PyTorch's rule)."""
    broadcasts = True
    saves = (0, 1)

    forward = staticmethod(np.nextafter)

    def backward(self, g, a, b):
        moved = array_of(a) != array_of(b)
        return (g * moved if self.needs(0) else None), (D.zeros_like(g) if self.needs(1) else None)


def nextafter(input, other):
    """The next floating-point value after ``input`` towards ``other``, elementwise
    (``torch.nextafter``).

    >>> from diffcompare import autograd as ag
    >>> float(ag.nextafter(ag.tensor([1.0]), ag.tensor([2.0]))[0] - 1.0) == 2.0 ** -52
    True
    """
    return apply(NextafterBackward0, (input, other))


def _integers(name, ufunc):
    def function(input, other):
        a, b = array_of(input), array_of(other)
        if np.result_type(a).kind not in "iub" or np.result_type(b).kind not in "iub":
            raise RuntimeError(f"\"{name}_cpu\" not implemented for 'Double'" if np.result_type(a).kind == "f" else
                               f"\"{name}_cpu\" not implemented for this dtype")
        return Tensor._make(np.asarray(ufunc(a, b)))
    function.__name__ = name
    function.__doc__ = f"The elementwise {'greatest common divisor' if name == 'gcd' else 'least common multiple'} " \
                       f"of two integer tensors (``torch.{name}``)."
    return function


gcd = _integers("gcd", np.gcd)
lcm = _integers("lcm", np.lcm)


for _cls in (LerpBackward1, AddcmulBackward0, AddcdivBackward0, LogaddexpBackward0, LogitBackward0, NanToNumBackward0):
    _cls.batched_backward = _cls.backward   # elementwise: the rule takes a batch as it is
    _cls.tangent = "elementwise"


# the torch-level functions of this family (`ag.<name>`, as `torch.<name>`)
PUBLIC = ("addcdiv", "addcmul", "angle", "complex", "polar", "real", "imag", "view_as_complex", "view_as_real", "clamp_max", "clamp_min", "fmod", "frexp", "gcd", "heaviside", "lcm", "ldexp",
          "lerp", "logaddexp", "logit", "nan_to_num", "nextafter", "remainder", "xlogy")
class ComplexBackward0(Op):
    """``real + i imag`` from two real tensors of one dtype: the gradient's real part goes to
    ``real``, its imaginary part to ``imag``."""
    broadcasts = True

    @staticmethod
    def forward(real, imag):
        out = np.empty(np.broadcast_shapes(np.shape(real), np.shape(imag)), np.result_type(real, np.complex64))
        out.real, out.imag = real, imag
        return out

    def backward(self, g):
        return (D.real(g) if self.needs(0) else None), (g.imag if self.needs(1) else None)


def complex(real, imag, *, out=None):  # noqa: A001  (PyTorch's name)
    """The complex tensor ``real + i imag`` (ComplexBackward0), as ``torch.complex``.

    >>> from diffcompare import autograd as ag
    >>> ag.complex(ag.tensor([1.0, 2.0]), ag.tensor([0.5, -1.0]))
    tensor([1.+0.5000j, 2.-1.0000j])
    """
    for name, t in (("real", real), ("imag", imag)):
        if not isinstance(t, Tensor):
            raise TypeError(f"complex(): argument '{name}' (position {1 if name == 'real' else 2}) must be Tensor, "
                            f"not {type(t).__name__}")
    if real.dtype != imag.dtype:
        raise RuntimeError(f"Expected object of scalar type {scalar_type_name(real.dtype)} but got scalar type "
                           f"{scalar_type_name(imag.dtype)} for second argument")
    if real.dtype.kind != "f" or real.dtype == np.float16:
        raise RuntimeError(f"Expected both inputs to be Half, Float or Double tensors but got "
                           f"{scalar_type_name(real.dtype)} and {scalar_type_name(imag.dtype)}")
    return write_out(apply(ComplexBackward0, (real, imag)), out, "complex")


class PolarBackward0(Op):
    """``abs exp(i angle)``; PyTorch's ``polar_backward``: with c = conj(g), abs gets
    Re(c sgn(result)) and angle gets Re(c i result)."""
    broadcasts = True
    saves = (RESULT,)
    holomorphic = False

    @staticmethod
    def forward(abs, angle):
        return ComplexBackward0.forward(abs * np.cos(angle), abs * np.sin(angle))

    def backward(self, g, result):
        c = D.conj(g)
        size = D.abs(result)
        sgn = D.where(array_of(size) == 0, 0.0, result / D.where(array_of(size) == 0, 1.0, size))
        return (D.real(c * sgn) if self.needs(0) else None), (D.real(c * result * 1j) if self.needs(1) else None)


def _polar_tangent(node, tangents, arrays, out):
    """d(abs e^(i angle)) = e^(i angle) d abs + i result d angle."""
    (t_abs, t_angle), (_, angle) = tangents, arrays
    total = None
    if t_abs is not None:
        total = t_abs * D.cast(D.cos(angle) + 1j * D.sin(angle), out.dtype)
    if t_angle is not None:
        part = t_angle * (1j * out)
        total = part if total is None else total + part
    return total


PolarBackward0.tangent = staticmethod(_polar_tangent)


def polar(abs, angle, *, out=None):  # noqa: A002  (PyTorch's names)
    """The complex tensor of modulus ``abs`` and argument ``angle`` (PolarBackward0).

    >>> from diffcompare import autograd as ag
    >>> ag.polar(ag.tensor([2.0]), ag.tensor([0.0]))
    tensor([2.+0.j])
    """
    if abs.dtype != angle.dtype:
        raise RuntimeError(f"Expected object of scalar type {scalar_type_name(abs.dtype)} but got scalar type "
                           f"{scalar_type_name(angle.dtype)} for second argument")
    return write_out(apply(PolarBackward0, (abs, angle)), out, "polar")


class ViewAsRealBackward0(Op):
    """A complex tensor's values as (real, imaginary) pairs along a new last axis (a view)."""
    forward = staticmethod(lambda z: _as_pairs(z))

    def backward(self, g):
        return (view_as_complex(g) if isinstance(g, Tensor) else _as_complex(np.ascontiguousarray(g)),)


class ViewAsComplexBackward0(Op):
    """A real tensor whose last axis holds (real, imaginary) pairs, as complex values (a view;
    a tangent, which may be a broadcast array, is made contiguous first)."""
    forward = staticmethod(lambda x: _as_complex(x if x.flags.c_contiguous else np.ascontiguousarray(x)))

    def backward(self, g):
        return (view_as_real(g) if isinstance(g, Tensor) else _as_pairs(np.ascontiguousarray(g)),)


ViewAsRealBackward0.tangent = ViewAsComplexBackward0.tangent = "linear"


def _as_pairs(z):
    real = z.real                   # a view with z's strides: the imaginary part one item further on
    return np.lib.stride_tricks.as_strided(real, z.shape + (2,), real.strides + (real.itemsize,))


def _as_complex(x):
    return x.view(np.complex128 if x.dtype == np.float64 else np.complex64).reshape(x.shape[:-1])


def view_as_real(input):
    """The complex ``input`` as a real view with a last axis of (real, imaginary), as
    ``torch.view_as_real`` (ViewAsRealBackward0).

    >>> from diffcompare import autograd as ag
    >>> ag.view_as_real(ag.tensor([1.0 + 2.0j]))
    tensor([[1., 2.]])
    """
    if input.dtype.kind != "c":
        raise RuntimeError("view_as_real is only supported for complex tensors")
    return record_view(ViewAsRealBackward0, input, {}, _pairs_of)


def _pairs_of(z):
    """The view function of ``view_as_real``: of an array its pairs, of a recorded gradient
    (a write's backward under create_graph) the recorded view."""
    return view_as_real(z) if isinstance(z, Tensor) else _as_pairs(z)


def real(input):
    """The real part: of a complex tensor a view (written through it, ``z.real.mul_(2)``, the
    tensor changes), recorded as PyTorch records it (SelectBackward0 of ViewAsRealBackward0);
    a real tensor is its own real part (the tensor itself).

    >>> from diffcompare import autograd as ag
    >>> z = ag.tensor([1.0 + 2.0j])
    >>> _ = z.real.mul_(3)
    >>> z
    tensor([3.+2.j])
    """
    if input.dtype.kind != "c":
        return input
    return view_as_real(input)[..., 0]


def imag(input):
    """The imaginary part of a complex tensor, a view of it as ``real``'s; a real tensor has
    none, as in PyTorch."""
    if input.dtype.kind != "c":
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return view_as_real(input)[..., 1]


def view_as_complex(input):
    """A real tensor whose last dimension has size 2 as a complex view, as
    ``torch.view_as_complex`` (ViewAsComplexBackward0)."""
    if input.dtype not in (np.float64, np.float32):
        raise RuntimeError(f"view_as_complex is only supported for float and double tensors, but got a tensor of "
                           f"scalar type: {scalar_type_name(input.dtype)}")
    if input.ndim == 0 or input.shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    if not input._data.flags.c_contiguous:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    return record_view(ViewAsComplexBackward0, input, {}, _as_complex)


# what the family exports to `ops`
__all__ = ["AngleBackward0", "ComplexBackward0", "PolarBackward0", "ViewAsComplexBackward0", "ViewAsRealBackward0", "FrexpBackward0", "LdexpBackward0", "NextafterBackward0", "AddcdivBackward0", "AddcmulBackward0", "ClampMaxBackward0", "ClampMinBackward0", "LerpBackward0",
           "LerpBackward1", "LogaddexpBackward0", "LogitBackward0", "NanToNumBackward0", "XlogyBackward0", "XlogyBackward1", "XlogyBackward2", "DivBackward2",
           "FmodBackward0", "FmodBackward1", "RemainderBackward0", "RemainderBackward1", "rounded_div", "x_log_family", *PUBLIC]
