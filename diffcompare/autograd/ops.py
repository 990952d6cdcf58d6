"""Every differentiable operation: its forward on arrays and its vector-Jacobian product,
side by side, one class per op named as PyTorch names the node (``MulBackward0``).

A node's ``backward(g, *saved)`` gets the incoming gradient ``g`` and the values named in
``saves`` (input positions, or ``RESULT`` for the output). It runs on NumPy arrays, or on
tensors when the gradient itself is being differentiated (``create_graph=True``); it is
written once for both, with operators, array/tensor methods common to both (``sum(axis=,
keepdims=)``, ``reshape``, ``swapaxes``, indexing) and the dual functions of ``D`` below.
It returns one gradient per input (``None`` where the input needs none).

>>> from diffcompare import autograd as ag
>>> x = ag.tensor(0.5, requires_grad=True)
>>> y = ag.sin(x) * x
>>> y.grad_fn.name(), [type(n).__name__ for n, _ in y.grad_fn.next_functions]
('MulBackward0', ['SinBackward0', 'AccumulateGrad'])
"""

from __future__ import annotations

import builtins
import math
import traceback
import numbers
from collections import namedtuple

import numpy as np

from .grad_mode import STATE
from .gradients import IndexedGrad, ScaledGrad, is_constant, scaled
from .graph import FREED_ERROR, Node, SavedTensor, _sequence, edge_of, init_node
from .quiet import _IGNORE as QUIET, quietly, reset_quiet, set_quiet
from .tensor import Tensor

RESULT = -1
_max = builtins.max  # the names max, min, sum, abs, pow below are ops


class Op(Node):
    """A differentiable operation: ``forward`` on arrays, ``backward`` for its VJP."""

    saves = ()          # what backward needs: input positions, RESULT, or parameter names
    broadcasts = False  # elementwise op with NumPy broadcasting: gradients summed back to shape
    fresh_results = True

    def _apply(self, g, create_graph):
        saved = self._saved
        if saved is None:
            if self._freed:
                raise RuntimeError(FREED_ERROR)
            grads = self.backward(g)
        elif create_graph:
            grads = self.backward(g, *self._unpack(True))
        else:
            values = []
            for s in saved:
                if type(s) is SavedTensor:
                    if s.counter[0] != s.version:
                        s.unpack(self, False)   # raises the "modified by an inplace operation" error
                    values.append(s.array)
                else:
                    values.append(s)
            grads = self.backward(g, *values)
        meta = self.meta
        if meta is not None:
            grads = tuple([_fit(gi, m) for gi, m in zip(grads, meta)])
        return grads

    def needs(self, i):
        """Whether input ``i`` wants a gradient (PyTorch's ``needs_input_grad``)."""
        return self._next[i] is not None


def _fit(g, meta):
    """Sum a broadcast gradient back to the input's shape and dtype."""
    if g is None or meta is None:
        return g
    if type(g) is ScaledGrad:
        return ScaledGrad(_fit(g.values, meta), g.factor)
    shape, dtype = meta
    if g.shape != shape:
        g = sum_to(g, shape)
    if g.dtype != dtype:
        g = D.cast(g, dtype)
    return g


def sum_to(g, shape):
    """Sum ``g`` over the axes along which an array of ``shape`` was broadcast."""
    shape = tuple(shape)
    if g.shape == shape:
        return g
    lead = g.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, n in enumerate(shape) if n == 1 and g.shape[lead + i] != 1
    )
    if axes:
        g = g.sum(axis=axes, keepdims=True)
    return g.reshape(shape) if g.shape != shape else g


# --- recording ---------------------------------------------------------------------------

def apply(cls, args, params=None):
    """Run ``cls.forward`` on the arrays behind ``args`` and record a node if any tensor
    argument requires grad. Non-tensor arguments are constants."""
    arrays = []
    needs_grad = False
    for a in args:
        if isinstance(a, Tensor):
            arrays.append(a._data)
            if a.requires_grad_flag:
                needs_grad = True
        else:
            arrays.append(a)
    token = set_quiet(QUIET)
    try:
        out = cls.forward(*arrays, **params) if params else cls.forward(*arrays)
    except ValueError as error:
        raise _shape_error(arrays) or error
    finally:
        reset_quiet(token)
    if needs_grad and STATE.grad_enabled:
        return _record(cls, args, params, out)
    return Tensor._make(out)


def _shape_error(arrays):
    """PyTorch's words for operands whose shapes do not broadcast (None if they do)."""
    shapes = [np.shape(a) for a in arrays if isinstance(a, np.ndarray)]
    if not shapes:
        return None
    running = shapes[0]   # broadcast one operand at a time: "tensor a" is the shape so far
    for shape in shapes[1:]:
        ndim = _max(len(running), len(shape))
        for k in range(1, ndim + 1):
            a = running[-k] if k <= len(running) else 1
            b = shape[-k] if k <= len(shape) else 1
            if a != b and a != 1 and b != 1:
                return RuntimeError(f"The size of tensor a ({a}) must match the size of tensor b ({b}) at "
                                    f"non-singleton dimension {ndim - k}")
        running = np.broadcast_shapes(running, shape)
    return None


def _record(cls, args, params, out):
    if type(out) is not np.ndarray:
        out = np.asarray(out)
    node = object.__new__(cls)
    nexts = []
    nrs = None
    for i, a in enumerate(args):
        if isinstance(a, Tensor) and a.requires_grad_flag:
            fn = a.grad_fn
            if fn is None:
                fn = edge_of(a)[0]
            elif a._output_nr:
                nrs = nrs or [0] * len(args)
                nrs[i] = a._output_nr
            nexts.append(fn)
        else:
            nexts.append(None)
    node._next = tuple(nexts)
    if nrs is not None:
        node._nrs = tuple(nrs)
    node.seq = next(_sequence)
    if STATE.anomaly_enabled:
        node._trace = traceback.format_stack()[:-3]
    if params:
        node.__dict__.update(params)
    result = Tensor._make(out, True, node)
    saves = cls.saves
    if saves:
        saved = []
        for i in saves:
            if i == RESULT:
                saved.append(SavedTensor(result, True))
            elif type(i) is str:
                saved.append(params[i])
            else:
                a = args[i]
                saved.append(SavedTensor(a, False) if isinstance(a, Tensor) else a)
        node._saved = saved
    if cls.broadcasts:
        # Gradients need fitting back only where an input's shape or dtype differs from the output's.
        shape, dtype = out.shape, out.dtype
        for a in args:
            if isinstance(a, Tensor) and (a._data.shape != shape or a._data.dtype != dtype):
                node.meta = tuple([(t._data.shape, t._data.dtype) if isinstance(t, Tensor) else None for t in args])
                break
    if STATE.recorder is not None:
        STATE.recorder(node, args, params, (result,))
    return result


def _unary(name, cls):
    def op(x):
        return apply(cls, (x,))
    op.__name__ = op.__qualname__ = name
    op.__doc__ = (f"Elementwise {name}(x), recorded as {cls.__name__}; its vector-Jacobian product is "
                  f"{cls.formula}.\n\n    >>> from diffcompare import autograd as ag\n"
                  f"    >>> ag.{name}(ag.tensor([0.5], requires_grad=True)).grad_fn\n"
                  f"    <{cls.__name__} object at ...>\n    ")
    return op


# --- arithmetic ------------------------------------------------------------------------------

class AddBackward0(Op):
    broadcasts = True
    takes_scaled = True
    forward = staticmethod(np.add)

    def backward(self, g):
        return g, g


class SubBackward0(Op):
    broadcasts = True
    takes_scaled = True
    forward = staticmethod(np.subtract)

    def backward(self, g):
        return g, (scaled(g, -1) if self.needs(1) else None)


class RsubBackward1(Op):
    """``c - x`` for a constant c."""
    takes_scaled = True
    forward = staticmethod(lambda x, c: np.subtract(c, x))

    def backward(self, g):
        return scaled(g, -1), None


class MulBackward0(Op):
    broadcasts = True
    saves = (0, 1)
    forward = staticmethod(np.multiply)

    def backward(self, g, a, b):
        return (g * b if self.needs(0) else None), (g * a if self.needs(1) else None)


class MulScalarBackward(Op):
    """``x * c`` for a number c: only c is kept (PyTorch records MulBackward0 and keeps it too)."""
    takes_scaled = True
    saves = (1,)
    forward = staticmethod(np.multiply)

    def backward(self, g, c):
        return scaled(g, c), None


MulScalarBackward.__name__ = "MulBackward0"


class DivBackward0(Op):
    broadcasts = True
    saves = (0, 1)

    @staticmethod
    def forward(a, b):
        return np.true_divide(a, b)

    def backward(self, g, a, b):
        return (g / b if self.needs(0) else None), (-g * a / (b * b) if self.needs(1) else None)


class NegBackward0(Op):
    takes_scaled = True
    forward = staticmethod(np.negative)

    def backward(self, g):
        return (scaled(g, -1),)


class PowBackward0(Op):
    """``x ** e`` for a constant exponent e; e == 0 gives a zero gradient (not nan at x = 0)."""
    takes_scaled = True
    saves = (0,)

    @staticmethod
    def forward(x, exponent):
        return np.power(x, exponent)

    def backward(self, g, x):
        e = self.exponent
        if not isinstance(g, Tensor):   # plain backward: one new array, filled in place
            if e == 0:
                return (np.zeros_like(g),)
            base = x if e == 2 else quietly(np.power, x, e - 1)
            if is_constant(g):      # one pass: fold the constant gradient into the factor
                return (base * (g.flat[0] * e),)
            factor = e
            if type(g) is ScaledGrad:
                g, factor = g.values, e * g.factor
            local = base * g
            local *= factor
            return (local,)
        # differentiable backward: PyTorch's formula, so that every higher derivative stays
        # connected to x (the derivative after a constant one is a materialised 0, not None)
        grad = g * (e * pow(x, e - 1))
        return (where(np.True_, D.zeros_like(g), grad) if e == 0 else grad,)


class PowBackward1(Op):
    """``a ** b`` with both tensors: d/da = b a^(b-1) (0 where b == 0), d/db = a^b log a (0 where
    a == 0 and b >= 0)."""
    broadcasts = True
    saves = (0, 1, RESULT)

    @staticmethod
    def forward(a, b):
        return np.power(a, b)

    def backward(self, g, a, b, r):
        ga = gb = None
        if self.needs(0):
            ga = D.where(_arr(b) == 0, 0.0, g * b * D.pow(a, b - 1))
        if self.needs(1):
            gb = g * D.where((_arr(a) == 0) & (_arr(b) >= 0), 0.0, r * D.log(a))
        return ga, gb


class PowBackward2(Op):
    """``c ** x`` for a constant base c."""
    saves = (RESULT,)

    @staticmethod
    def forward(x, base):
        return np.power(base, x)

    def backward(self, g, r):
        c = self.base
        if c == 0:
            return (D.zeros_like(g),)   # PyTorch masks 0**x (x >= 0): no 0 * -inf
        return (g * r * math.log(c) if c > 0 else g * r * math.nan,)


def _arr(v):
    return v._data if isinstance(v, Tensor) else v


# --- elementwise functions -------------------------------------------------------------------

def _elementwise(np_func, name, saves, vjp, formula):
    """Make a one-input elementwise op class from its forward and its VJP ``vjp(g, *saved)``."""

    def backward(self, g, *saved):
        return (vjp(g, *saved),)

    return type(name, (Op,), {"forward": staticmethod(np_func), "backward": backward, "saves": saves,
                              "formula": formula, "__doc__": f"VJP: {formula}."})


_LN2, _LN10, _2_SQRT_PI = math.log(2.0), math.log(10.0), 2.0 / math.sqrt(math.pi)
X, R = (0,), (RESULT,)

_erf_scalar = np.frompyfunc(math.erf, 1, 1)


def _np_erf(x):
    """erf to full double precision (NumPy has none): math.erf per element."""
    x = np.asarray(x)
    return np.asarray(_erf_scalar(x), dtype=np.float64).astype(x.dtype if x.dtype.kind == "f" else np.float64)


def _np_sigmoid(x):
    e = np.exp(-np.abs(x))  # never overflows
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e))


def _np_relu(x):
    return np.maximum(x, 0)  # propagates nan, as PyTorch does


# name -> (forward on arrays, saves, VJP, the VJP in words). Read it like derivatives.yaml.
ELEMENTWISE = {
    "exp":   (np.exp,     R, lambda g, r: g * r, "grad * result"),
    "log":   (np.log,     X, lambda g, x: g / x, "grad / x"),
    "log1p": (np.log1p,   X, lambda g, x: g / (x + 1), "grad / (x + 1)"),
    "expm1": (np.expm1,   R, lambda g, r: g * (r + 1), "grad * (result + 1)"),
    "log2":  (np.log2,    X, lambda g, x: g / (x * _LN2), "grad / (x ln 2)"),
    "log10": (np.log10,   X, lambda g, x: g / (x * _LN10), "grad / (x ln 10)"),
    "sqrt":  (np.sqrt,    R, lambda g, r: g / (2 * r), "grad / (2 result)"),
    "cbrt":  (np.cbrt,    R, lambda g, r: g / (3 * r * r), "grad / (3 result^2)"),
    "rsqrt": (lambda x: 1 / np.sqrt(x), R, lambda g, r: g * (-0.5 * r * r * r), "-grad result^3 / 2"),
    "sin":   (np.sin,     X, lambda g, x: g * D.cos(x), "grad * cos(x)"),
    "cos":   (np.cos,     X, lambda g, x: -g * D.sin(x), "-grad * sin(x)"),
    "tan":   (np.tan,     R, lambda g, r: g * (1 + r * r), "grad * (1 + result^2)"),
    "asin":  (np.arcsin,  X, lambda g, x: g / D.sqrt(1 - x * x), "grad / sqrt(1 - x^2)"),
    "acos":  (np.arccos,  X, lambda g, x: -g / D.sqrt(1 - x * x), "-grad / sqrt(1 - x^2)"),
    "atan":  (np.arctan,  X, lambda g, x: g / (1 + x * x), "grad / (1 + x^2)"),
    "sinh":  (np.sinh,    X, lambda g, x: g * D.cosh(x), "grad * cosh(x)"),
    "cosh":  (np.cosh,    X, lambda g, x: g * D.sinh(x), "grad * sinh(x)"),
    "tanh":  (np.tanh,    R, lambda g, r: g * (1 - r * r), "grad * (1 - result^2)"),
    "asinh": (np.arcsinh, X, lambda g, x: g / D.sqrt(x * x + 1), "grad / sqrt(x^2 + 1)"),
    "acosh": (np.arccosh, X, lambda g, x: g / D.sqrt(x * x - 1), "grad / sqrt(x^2 - 1)"),
    "atanh": (np.arctanh, X, lambda g, x: g / (1 - x * x), "grad / (1 - x^2)"),
    "sigmoid": (_np_sigmoid, R, lambda g, r: g * (r * (1 - r)), "grad * result (1 - result)"),
    "relu":  (_np_relu,   R, lambda g, r: D.where(_arr(r) > 0, g, 0.0), "grad where result > 0, else 0"),
    "abs":   (np.abs,     X, lambda g, x: g * np.sign(_arr(x)), "grad * sign(x)"),
    "sign":  (np.sign,    (), lambda g: D.zeros_like(g), "0"),
    "floor": (np.floor,   (), lambda g: D.zeros_like(g), "0"),
    "ceil":  (np.ceil,    (), lambda g: D.zeros_like(g), "0"),
    "round": (np.round,   (), lambda g: D.zeros_like(g), "0"),
    "erf":   (_np_erf,    X, lambda g, x: g * (_2_SQRT_PI * D.exp(-(x * x))), "grad * 2/sqrt(pi) exp(-x^2)"),
    "reciprocal": (lambda x: 1 / x, R, lambda g, r: -g * (r * r), "-grad * result^2"),
}
_GRAD_FN_NAMES = {"log1p": "Log1PBackward0", "expm1": "Expm1Backward0"}

OP_CLASSES = {}
for _name, (_fwd, _saves, _vjp, _formula) in ELEMENTWISE.items():
    _cls_name = _GRAD_FN_NAMES.get(_name, _name.capitalize() + "Backward0")
    OP_CLASSES[_name] = _elementwise(_fwd, _cls_name, _saves, _vjp, _formula)
    globals()[_cls_name] = OP_CLASSES[_name]
    globals()[_name] = _unary(_name, OP_CLASSES[_name])

square = lambda x: pow(x, 2)  # noqa: E731 - PyTorch records x.square() as PowBackward0


class SoftplusBackward0(Op):
    """softplus(x) = log(1 + exp(beta x)) / beta, linear above ``threshold``."""
    saves = (0,)

    @staticmethod
    def forward(x, beta=1.0, threshold=20.0):
        z = x * beta
        return np.where(z > threshold, x, np.logaddexp(0, z) / beta).astype(np.asarray(x).dtype)

    def backward(self, g, x):
        z = x * self.beta
        return (D.where(_arr(z) > self.threshold, g, g * D.sigmoid(z)),)


def softplus(x, beta=1.0, threshold=20.0):
    return apply(SoftplusBackward0, (x,), {"beta": beta, "threshold": threshold})


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
        x = _arr(x)
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

    @staticmethod
    def forward(x, lo, hi):
        out = x
        if lo is not None:
            out = np.maximum(out, lo)
        if hi is not None:
            out = np.minimum(out, hi)
        return np.array(out, dtype=np.result_type(x))

    def backward(self, g, x, lo, hi):
        xa, la, ha = _arr(x), _arr(lo), _arr(hi)
        below = (xa < la) if la is not None else np.zeros_like(xa, dtype=bool)
        above = (xa > ha) if ha is not None else np.zeros_like(xa, dtype=bool)
        if la is not None and ha is not None:
            below = below & ~(la > ha)
            above = above | (la > ha)
        gx = D.where(below | above, 0.0, g)
        glo = D.where(below, g, 0.0) if self.needs(1) else None
        ghi = D.where(above, g, 0.0) if self.needs(2) else None
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
    """Elementwise max; a tie sends half the gradient to each side."""
    broadcasts = True
    saves = (0, 1)
    forward = staticmethod(np.maximum)

    def backward(self, g, a, b):
        a, b = _arr(a), _arr(b)
        share_a = np.where(a > b, 1.0, np.where(a == b, 0.5, 0.0)).astype(g.dtype)
        return (g * share_a if self.needs(0) else None), (g * (1 - share_a) if self.needs(1) else None)


class MinimumBackward0(Op):
    broadcasts = True
    saves = (0, 1)
    forward = staticmethod(np.minimum)

    def backward(self, g, a, b):
        a, b = _arr(a), _arr(b)
        share_a = np.where(a < b, 1.0, np.where(a == b, 0.5, 0.0)).astype(g.dtype)
        return (g * share_a if self.needs(0) else None), (g * (1 - share_a) if self.needs(1) else None)


def maximum(a, b):
    return apply(MaximumBackward0, (a, b))


def minimum(a, b):
    return apply(MinimumBackward0, (a, b))


class Atan2Backward0(Op):
    """atan2(y, x): d/dy = x / (x² + y²), d/dx = -y / (x² + y²); 0 at the origin."""
    broadcasts = True
    saves = (0, 1)
    forward = staticmethod(np.arctan2)

    def backward(self, g, y, x):
        r2 = x * x + y * y
        zero = _arr(r2) == 0
        gy = D.where(zero, 0.0, g * x / r2) if self.needs(0) else None
        gx = D.where(zero, 0.0, -g * y / r2) if self.needs(1) else None
        return gy, gx


def atan2(y, x):
    return apply(Atan2Backward0, (y, x))


class HypotBackward0(Op):
    """hypot(a, b) = sqrt(a² + b²): d/da = a / result, d/db = b / result (nan at the origin, as PyTorch)."""
    broadcasts = True
    saves = (0, 1, RESULT)
    forward = staticmethod(np.hypot)

    def backward(self, g, a, b, r):
        return (g * a / r if self.needs(0) else None), (g * b / r if self.needs(1) else None)


def hypot(a, b):
    return apply(HypotBackward0, (a, b))


class WhereBackward0(Op):
    """where(cond, a, b): the unselected side receives an exact 0 (whose product with an
    infinite local derivative is nan: the well-known where-NaN trap, kept on purpose)."""
    broadcasts = True
    saves = (0,)

    @staticmethod
    def forward(cond, a, b):
        return np.where(cond, a, b)

    def backward(self, g, cond):
        cond = _arr(cond)
        return None, (D.where(cond, g, 0.0) if self.needs(1) else None), (D.where(cond, 0.0, g) if self.needs(2) else None)


def where(condition, input, other):
    """Pick ``input`` where ``condition`` holds, else ``other``."""
    cond = condition._data if isinstance(condition, Tensor) else np.asarray(condition)
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        return Tensor._make(np.where(cond, input, other))
    out = apply(WhereBackward0, (cond, input, other))
    return out


def pow(x, exponent):
    """``x ** exponent``; either side may be a number."""
    if isinstance(exponent, Tensor):
        if isinstance(x, Tensor):
            return apply(PowBackward1, (x, exponent))
        return apply(PowBackward2, (exponent,), {"base": x})
    return apply(PowBackward0, (x,), {"exponent": exponent})


# --- reductions --------------------------------------------------------------------------------

def check_dim(dim, ndim):
    """``dim`` as a non-negative axis of an ``ndim``-dimensional tensor, or PyTorch's IndexError.
    A 0-d tensor accepts dims -1 and 0, as in PyTorch."""
    size = _max(ndim, 1)
    if not -size <= dim < size:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-size}, {size - 1}], but got {dim})")
    return dim % size if ndim else 0


def _dims(dim, ndim):
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, (list, tuple)):
        return tuple(sorted(check_dim(d, ndim) for d in dim))
    return (check_dim(dim, ndim),)


def _keep_shape(shape, dims):
    return tuple(1 if i in dims else n for i, n in enumerate(shape))


def _expand_back(g, node):
    """Bring a reduced gradient back to the input's shape: re-insert reduced dims, broadcast."""
    if g.shape != node.keep_shape:
        g = g.reshape(node.keep_shape)
    return D.expand(g, node.in_shape)


def _reduction(cls, x, dim, keepdim, **extra):
    shape = x.shape
    dims = _dims(dim, len(shape))
    params = {"axis": dims if dim is not None else None, "keepdims": keepdim,
              "in_shape": shape, "keep_shape": _keep_shape(shape, dims), **extra}
    return apply(cls, (x,), params)


class SumBackward0(Op):
    @staticmethod
    def forward(x, axis, keepdims, in_shape, keep_shape):
        return np.sum(x, axis=axis, keepdims=keepdims)

    def backward(self, g):
        return (_expand_back(g, self),)


class SumBackward1(SumBackward0):
    pass


class MeanBackward0(Op):
    @staticmethod
    def forward(x, axis, keepdims, in_shape, keep_shape):
        return np.mean(x, axis=axis, keepdims=keepdims)

    def backward(self, g):
        count = math.prod(self.in_shape) // _max(1, math.prod(self.keep_shape))
        return (_expand_back(g / count, self),)


class MeanBackward1(MeanBackward0):
    pass


class ProdBackward0(Op):
    """Product; zero-safe: with one zero only that element gets a gradient, with two none do."""
    saves = (0, RESULT)

    @staticmethod
    def forward(x, axis, keepdims, in_shape, keep_shape):
        return np.prod(x, axis=axis, keepdims=keepdims)

    def backward(self, g, x, r):
        g = _expand_back(g, self)
        xa = _arr(x)
        if not (xa == 0).any():
            return (g * _expand_back(r, self) / x,)
        return (g * _prod_of_others(x, self.axis),)


class ProdBackward1(ProdBackward0):
    pass


def _prod_of_others(x, axis):
    """For each element, the product of the other elements along ``axis`` (None: all)."""
    if axis is None:
        flat = x.reshape(-1)
        n = flat.shape[0]
        return _prod_of_others(flat, (0,)).reshape(x.shape) if n else x
    (ax,) = axis
    n = x.shape[ax]
    moved = D.moveaxis(x, ax, -1)
    eye = np.eye(n, dtype=bool)
    # row i of the stack holds x with element i replaced by 1
    stacked = D.where(eye, 1.0, D.unsqueeze(moved, -2))
    others = D.prod(stacked, -1)
    return D.moveaxis(others, -1, ax)


class MaxBackward1(Op):
    """max over all elements (or amax over dims): ties share the gradient evenly."""
    saves = (0, RESULT)

    @staticmethod
    def forward(x, axis, keepdims, in_shape, keep_shape):
        return np.max(x, axis=axis, keepdims=keepdims)

    def backward(self, g, x, r):
        mask = _arr(x) == _expand_back(_arr(r), self)
        share = mask / mask.sum(axis=self.axis, keepdims=True)
        return (_expand_back(g, self) * share.astype(_arr(x).dtype),)


class MinBackward1(MaxBackward1):
    forward = staticmethod(lambda x, axis, keepdims, in_shape, keep_shape: np.min(x, axis=axis, keepdims=keepdims))


class AmaxBackward0(MaxBackward1):
    pass


class AminBackward0(MinBackward1):
    pass


class MaxBackward0(Op):
    """max/min along a dim: the gradient goes to the one index returned."""
    saves = ("index",)

    @staticmethod
    def forward(x, axis, keepdims, in_shape, keep_shape, index):
        values = np.take_along_axis(x, index, axis=axis[0])
        return values if keepdims else values.squeeze(axis[0])

    def backward(self, g, index):
        ax = self.axis[0]
        positions = np.arange(self.in_shape[ax]).reshape([-1 if i == ax else 1 for i in range(len(self.in_shape))])
        mask = positions == index
        return (_expand_back(g, self) * mask.astype(g.dtype),)


class MinBackward0(MaxBackward0):
    pass


MaxResult = namedtuple("max", ["values", "indices"])


def _max_min(x, dim, keepdim, largest):
    if isinstance(dim, Tensor):           # max(a, b): elementwise
        return maximum(x, dim) if largest else minimum(x, dim)
    if dim is None:
        if x.numel() == 0:
            raise RuntimeError("max(): Expected reduction dim to be specified for input.numel() == 0.")
        return _reduction(MaxBackward1 if largest else MinBackward1, x, None, False)
    ax = _dims(dim, x.ndim)[0]
    index = (np.argmax if largest else np.argmin)(x._data, axis=ax)
    index = np.expand_dims(index, ax)
    values = _reduction(MaxBackward0 if largest else MinBackward0, x, ax, keepdim, index=index)
    return MaxResult(values, Tensor._make(index if keepdim else index.squeeze(ax)))


def max(x, dim=None, keepdim=False):
    """Largest value; with ``dim`` a (values, indices) pair; with a tensor, elementwise maximum.

    >>> from diffcompare import autograd as ag
    >>> x = ag.tensor([1.0, 3.0, 3.0, 2.0], requires_grad=True)
    >>> x.max().backward()
    >>> x.grad
    tensor([0.0000, 0.5000, 0.5000, 0.0000])
    """
    return _max_min(x, dim, keepdim, True)


def min(x, dim=None, keepdim=False):
    return _max_min(x, dim, keepdim, False)


def amax(x, dim=None, keepdim=False):
    return _reduction(AmaxBackward0, x, dim, keepdim)


def amin(x, dim=None, keepdim=False):
    return _reduction(AminBackward0, x, dim, keepdim)


class VarBackward0(Op):
    saves = (0,)

    @staticmethod
    def forward(x, axis, keepdims, in_shape, keep_shape, correction):
        return np.var(x, axis=axis, keepdims=keepdims, ddof=correction)

    def backward(self, g, x):
        n = math.prod(self.in_shape) // _max(1, math.prod(self.keep_shape))
        centred = x - D.mean(x, self.axis, True)
        return (_expand_back(g, self) * centred * (2.0 / (n - self.correction)),)


class StdBackward0(Op):
    """d std = (x - mean) / ((N - correction) std); 0 where std is 0 (a constant input)."""
    saves = (0, RESULT)

    @staticmethod
    def forward(x, axis, keepdims, in_shape, keep_shape, correction):
        return np.std(x, axis=axis, keepdims=keepdims, ddof=correction)

    def backward(self, g, x, r):
        n = math.prod(self.in_shape) // _max(1, math.prod(self.keep_shape))
        r = _expand_back(r, self)
        centred = x - D.mean(x, self.axis, True)
        return (D.where(_arr(r) == 0, 0.0, _expand_back(g, self) * centred / ((n - self.correction) * r)),)


def _correction(unbiased, correction):
    if correction is not None:
        return correction
    return 1 if unbiased in (None, True) else 0


def var(x, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return _reduction(VarBackward0, x, dim, keepdim, correction=_correction(unbiased, correction))


def std(x, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return _reduction(StdBackward0, x, dim, keepdim, correction=_correction(unbiased, correction))


class LinalgVectorNormBackward0(Op):
    """p-norm; the gradient at the zero vector is 0 (a sub-gradient), not nan."""
    saves = (0, RESULT)

    @staticmethod
    def forward(x, axis, keepdims, in_shape, keep_shape, p):
        ax = np.abs(x)
        if p == math.inf:
            return np.max(ax, axis=axis, keepdims=keepdims)
        if p == 2:
            return np.sqrt(np.sum(ax * ax, axis=axis, keepdims=keepdims))
        if p == 1:
            return np.sum(ax, axis=axis, keepdims=keepdims)
        return np.sum(ax ** p, axis=axis, keepdims=keepdims) ** (1.0 / p)

    def backward(self, g, x, r):
        g = _expand_back(g, self)
        r = _expand_back(r, self)
        p, zero = self.p, _arr(r) == 0
        if p == 2:
            local = x / r
        elif p == 1:
            local = np.sign(_arr(x))
        elif p == math.inf:
            mask = np.abs(_arr(x)) == _arr(r)
            local = np.sign(_arr(x)) * mask / mask.sum(axis=self.axis, keepdims=True)
        else:
            local = x * D.pow(D.abs(x), p - 2) / D.pow(r, p - 1)
        return (D.where(zero, 0.0, g * local),)


def norm(x, p=2, dim=None, keepdim=False):
    """Vector p-norm over all elements or along ``dim`` (p = 'fro' means 2)."""
    p = 2 if p in ("fro", None) else (math.inf if p in ("inf",) else p)
    return _reduction(LinalgVectorNormBackward0, x, dim, keepdim, p=float(p))


class LogsumexpBackward0(Op):
    saves = (0, RESULT)

    @staticmethod
    def forward(x, axis, keepdims, in_shape, keep_shape):
        m = np.max(x, axis=axis, keepdims=True)
        m = np.where(np.isfinite(m), m, 0)  # all -inf (or inf) stays -inf (inf), not nan
        out = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m
        return out if keepdims else np.squeeze(out, axis=axis)

    def backward(self, g, x, r):
        return (_expand_back(g, self) * D.exp(x - _expand_back(r, self)),)


def logsumexp(x, dim, keepdim=False):
    return _reduction(LogsumexpBackward0, x, dim, keepdim)


class SoftmaxBackward0(Op):
    saves = (RESULT,)

    @staticmethod
    def forward(x, dim):
        e = np.exp(x - np.max(x, axis=dim, keepdims=True))
        return e / np.sum(e, axis=dim, keepdims=True)

    def backward(self, g, y):
        return (y * (g - (g * y).sum(axis=self.dim, keepdims=True)),)


class LogSoftmaxBackward0(Op):
    saves = (RESULT,)

    @staticmethod
    def forward(x, dim):
        shifted = x - np.max(x, axis=dim, keepdims=True)
        return shifted - np.log(np.sum(np.exp(shifted), axis=dim, keepdims=True))

    def backward(self, g, y):
        return (g - D.exp(y) * g.sum(axis=self.dim, keepdims=True),)


class NllLossBackward0(Op):
    """Negative log-likelihood of class indices: -logp[i, target[i]], reduced.
    The gradient is -grad (scaled by 1/N for the mean) at the targets, 0 elsewhere."""

    @staticmethod
    def forward(logp, index, scale, reduction, in_shape):
        picked = -logp[index]
        if reduction == "none":
            return picked
        return np.asarray(picked.sum() * scale)

    def backward(self, g):
        return (index_add_zeros(-g * self.scale, self.index, self.in_shape),)


def nll_loss(logp, target, reduction="mean"):
    """Mean (or sum, or none) of -logp[i, target[i]] for log-probabilities (N, C) or (C,)."""
    target = np.asarray(target._data if isinstance(target, Tensor) else target)
    if target.dtype.kind not in "iu":
        raise TypeError(f"nll_loss expects integer class indices as target, got dtype {target.dtype}")
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction (use 'mean', 'sum' or 'none')")
    n_classes = logp.shape[-1]
    if target.size and (target.min() < 0 or target.max() >= n_classes):
        bad = int(target.max() if target.max() >= n_classes else target.min())
        raise IndexError(f"Target {bad} is out of bounds: classes are 0..{n_classes - 1}")
    if logp.ndim == 1:
        index, count = (int(target),), 1
    else:
        if target.shape != (logp.shape[0],):
            raise ValueError(f"Expected target of shape ({logp.shape[0]},) for input of shape {tuple(logp.shape)}, "
                             f"got {tuple(target.shape)}")
        index, count = (np.arange(logp.shape[0]), target), logp.shape[0]
    scale = 1.0 / count if reduction == "mean" else 1.0
    return apply(NllLossBackward0, (logp,), {"index": index, "scale": scale, "reduction": reduction,
                                             "in_shape": logp.shape})


def softmax(x, dim):
    return apply(SoftmaxBackward0, (x,), {"dim": check_dim(dim, x.ndim)})


def log_softmax(x, dim):
    return apply(LogSoftmaxBackward0, (x,), {"dim": check_dim(dim, x.ndim)})


class CumsumBackward0(Op):
    forward = staticmethod(lambda x, dim: np.cumsum(x, axis=dim))

    def backward(self, g):
        # reversed cumulative sum: total - running sum + own term
        return (g.sum(axis=self.dim, keepdims=True) - D.cumsum(g, self.dim) + g,)


def cumsum(x, dim):
    return apply(CumsumBackward0, (x,), {"dim": check_dim(dim, x.ndim)})


def sum(x, dim=None, keepdim=False, dtype=None, *, axis=None, keepdims=None):
    """Sum of all elements, or along ``dim`` (an int or a tuple).

    >>> from diffcompare import autograd as ag
    >>> ag.tensor([[1.0, 2.0], [3.0, 4.0]]).sum(1)
    tensor([3., 7.])
    """
    dim, keepdim = (axis if dim is None else dim), (keepdims if keepdims is not None else keepdim)
    if dtype is not None:
        x = x.to(dtype)
    return _reduction(SumBackward1 if dim is not None else SumBackward0, x, dim, keepdim)


def mean(x, dim=None, keepdim=False, *, axis=None, keepdims=None):
    dim, keepdim = (axis if dim is None else dim), (keepdims if keepdims is not None else keepdim)
    return _reduction(MeanBackward1 if dim is not None else MeanBackward0, x, dim, keepdim)


def prod(x, dim=None, keepdim=False):
    return _reduction(ProdBackward1 if dim is not None else ProdBackward0, x, dim, keepdim)


# --- linear algebra ------------------------------------------------------------------------------

class MmBackward0(Op):
    """Matrix product; 1-d operands are treated as a row (left) or a column (right)."""
    saves = (0, 1)
    forward = staticmethod(np.matmul)

    def backward(self, g, a, b):
        if a.ndim == 1 and b.ndim == 1:
            return (g * b if self.needs(0) else None), (g * a if self.needs(1) else None)
        a2 = a.reshape((1,) + a.shape) if a.ndim == 1 else a
        b2 = b.reshape(b.shape + (1,)) if b.ndim == 1 else b
        g2 = g
        if a.ndim == 1:
            g2 = D.unsqueeze(g2, -2)
        if b.ndim == 1:
            g2 = D.unsqueeze(g2, -1)
        ga = gb = None
        if self.needs(0):
            ga = sum_to(g2 @ b2.swapaxes(-1, -2), a2.shape).reshape(a.shape)
        if self.needs(1):
            gb = sum_to(a2.swapaxes(-1, -2) @ g2, b2.shape).reshape(b.shape)
        return ga, gb


class DotBackward0(MmBackward0):
    pass


class MvBackward0(MmBackward0):
    pass


class SqueezeBackward4(MmBackward0):
    """PyTorch's node name for vector @ matrix."""


class MatmulBackward0(MmBackward0):
    """Batched matmul (PyTorch records these through views as UnsafeViewBackward0)."""


def matmul(a, b):
    """Matrix product with NumPy's (and PyTorch's) rules for 1-d and batched operands."""
    a_nd = a.ndim if isinstance(a, Tensor) else np.ndim(a)
    b_nd = b.ndim if isinstance(b, Tensor) else np.ndim(b)
    if a_nd == 0 or b_nd == 0:
        raise RuntimeError("both arguments to matmul need to be at least 1D, but they are "
                           f"{a_nd}D and {b_nd}D")
    a_shape = a.shape if isinstance(a, Tensor) else np.shape(a)
    b_shape = b.shape if isinstance(b, Tensor) else np.shape(b)
    inner_a = a_shape[-1]
    inner_b = b_shape[0] if b_nd == 1 else b_shape[-2]
    if inner_a != inner_b:
        left = "x".join(str(n) for n in ((1,) + tuple(a_shape) if a_nd == 1 else a_shape))
        right = "x".join(str(n) for n in (tuple(b_shape) + (1,) if b_nd == 1 else b_shape))
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({left} and {right})")
    cls = {(1, 1): DotBackward0, (2, 2): MmBackward0, (2, 1): MvBackward0, (1, 2): SqueezeBackward4}.get(
        (a_nd, b_nd), MatmulBackward0)
    return apply(cls, (a, b))


def mm(a, b):
    """Matrix-matrix product; both operands must be 2-D (as in PyTorch)."""
    if a.ndim != 2:
        raise RuntimeError(f"self must be a matrix (mm expects 2-D tensors; got a {a.ndim}-D tensor of shape "
                           f"{list(a.shape)}: for a vector use matmul, mv or reshape it to (1, n))")
    if b.ndim != 2:
        raise RuntimeError(f"mat2 must be a matrix (mm expects 2-D tensors; got a {b.ndim}-D tensor of shape "
                           f"{list(b.shape)})")
    return matmul(a, b)


def mv(a, v):
    if a.ndim != 2 or v.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {a.ndim}, {v.ndim}")
    return matmul(a, v)


def dot(a, b):
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
    if a.shape != b.shape:
        raise RuntimeError("inconsistent tensor size, expected tensor [%d] and src [%d] to have the same "
                           "number of elements, but got %d and %d elements respectively"
                           % (a.shape[0], b.shape[0], a.shape[0], b.shape[0]))
    return matmul(a, b)


# --- shapes and views ------------------------------------------------------------------------------

def _view(cls, x, params, view_fn):
    """Record a view op: the result shares storage and version counter with ``x``."""
    out = apply(cls, (x,), params)
    if out._data.base is not None:
        out._vc = x._counter()
        base = x._base if x._base is not None else x
        out._base = base
        out._view_fn = view_fn if x._base is None else _compose(x._view_fn, view_fn)
    return out


def _compose(first, second):
    return lambda a: second(first(a))


class ViewBackward0(Op):
    forward = staticmethod(lambda x, shape, in_shape: np.reshape(x, shape))

    def backward(self, g):
        return (g.reshape(self.in_shape),)


def reshape(x, *shape):
    shape = shape[0] if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape
    try:
        target = np.empty(x.shape, dtype=bool).reshape(shape).shape
    except ValueError:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {x.numel()}") from None
    return _view(ViewBackward0, x, {"shape": target, "in_shape": x.shape}, lambda a: a.reshape(target))


view = reshape


def flatten(x, start_dim=0, end_dim=-1):
    if x.ndim == 0:
        return reshape(x, 1)
    if x.ndim == 1:
        return x  # as in PyTorch: nothing to flatten, the same tensor
    s, e = check_dim(start_dim, x.ndim), check_dim(end_dim, x.ndim)
    shape = x.shape[:s] + (-1,) + x.shape[e + 1:]
    return reshape(x, shape)


class TransposeBackward0(Op):
    forward = staticmethod(lambda x, dim0, dim1: np.swapaxes(x, dim0, dim1))

    def backward(self, g):
        return (g.swapaxes(self.dim0, self.dim1),)


class TBackward0(TransposeBackward0):
    pass


def transpose(x, dim0, dim1):
    dim0, dim1 = check_dim(dim0, x.ndim), check_dim(dim1, x.ndim)
    return _view(TransposeBackward0, x, {"dim0": dim0, "dim1": dim1}, lambda a: a.swapaxes(dim0, dim1))


swapaxes = transpose


def t(x):
    if x.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {x.ndim}D")
    if x.ndim < 2:
        return _view(TBackward0, x, {"dim0": 0, "dim1": 0}, lambda a: a)
    return _view(TBackward0, x, {"dim0": 0, "dim1": 1}, lambda a: a.swapaxes(0, 1))


class PermuteBackward0(Op):
    forward = staticmethod(lambda x, dims, inverse: np.transpose(x, dims))

    def backward(self, g):
        return (permute(g, self.inverse) if isinstance(g, Tensor) else g.transpose(self.inverse),)


def permute(x, *dims):
    dims = tuple(dims[0]) if len(dims) == 1 and isinstance(dims[0], (tuple, list)) else dims
    if sorted(d % _max(1, x.ndim) for d in dims) != list(range(x.ndim)):
        raise RuntimeError(f"permute: dims {list(dims)} must be an ordering of the tensor's {x.ndim} "
                           f"dimensions (input.dim() = {x.ndim}, len(dims) = {len(dims)})")
    dims = tuple(d % _max(1, x.ndim) for d in dims)
    inverse = tuple(sorted(range(len(dims)), key=dims.__getitem__))
    return _view(PermuteBackward0, x, {"dims": dims, "inverse": inverse}, lambda a: D.permute(a, dims))


def moveaxis(x, source, destination):
    order = list(np.moveaxis(np.arange(x.ndim), source, destination))
    return permute(x, order)


class SqueezeBackward0(Op):
    forward = staticmethod(lambda x, shape, in_shape: np.reshape(x, shape))

    def backward(self, g):
        return (g.reshape(self.in_shape),)


class SqueezeBackward1(SqueezeBackward0):
    pass


class UnsqueezeBackward0(SqueezeBackward0):
    pass


def squeeze(x, dim=None):
    if dim is None:
        shape = tuple(n for n in x.shape if n != 1)
        cls = SqueezeBackward0
    else:
        d = check_dim(dim, x.ndim)
        shape = tuple(n for i, n in enumerate(x.shape) if not (i == d and n == 1))
        cls = SqueezeBackward1
    return _view(cls, x, {"shape": shape, "in_shape": x.shape}, lambda a: a.reshape(shape))


def unsqueeze(x, dim):
    d = check_dim(dim, x.ndim + 1)
    shape = x.shape[:d] + (1,) + x.shape[d:]
    return _view(UnsqueezeBackward0, x, {"shape": shape, "in_shape": x.shape}, lambda a: a.reshape(shape))


class ExpandBackward0(Op):
    forward = staticmethod(lambda x, shape, in_shape: np.broadcast_to(x, shape))

    def backward(self, g):
        return (sum_to(g, self.in_shape),)


def expand(x, *sizes):
    sizes = tuple(sizes[0]) if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)) else sizes
    lead = len(sizes) - x.ndim
    if lead < 0:
        raise RuntimeError(f"expand: the number of sizes provided ({len(sizes)}) must be greater or equal to "
                           f"the number of dimensions in the tensor ({x.ndim})")
    shape = tuple(x.shape[i - lead] if (n == -1 and i >= lead) else n for i, n in enumerate(sizes))
    try:
        np.broadcast_shapes(x.shape, shape)
    except ValueError:
        raise RuntimeError(f"The expanded size of the tensor must match the existing size at non-singleton "
                           f"dimensions. Target sizes: {list(sizes)}.  Tensor sizes: {list(x.shape)}") from None
    return _view(ExpandBackward0, x, {"shape": shape, "in_shape": x.shape}, lambda a: D.expand(a, shape))


def expand_as(x, other):
    return expand(x, other.shape)


class CloneBackward0(Op):
    forward = staticmethod(np.array)

    def backward(self, g):
        return (g,)


def clone(x):
    return apply(CloneBackward0, (x,))


def contiguous(x):
    return x


class ToCopyBackward0(Op):
    forward = staticmethod(lambda x, dtype, in_dtype: x.astype(dtype))

    def backward(self, g):
        return (D.cast(g, self.in_dtype),)


def to(x, dtype=None, *args, **kwargs):
    """A copy with another dtype (device arguments are accepted and ignored: CPU only)."""
    if dtype is None or isinstance(dtype, str) and dtype in ("cpu", "cuda"):
        dtype = kwargs.get("dtype")
        if dtype is None:
            return x
    dtype = np.dtype(dtype)
    if dtype == x.dtype:
        return x
    return apply(ToCopyBackward0, (x,), {"dtype": dtype, "in_dtype": x.dtype})


# --- indexing ------------------------------------------------------------------------------

def _normalise_index(index):
    """Turn tensors inside an index into arrays; report whether the index is basic (a view)."""
    if not isinstance(index, tuple):
        index = (index,)
    parts, basic = [], True
    for item in index:
        if isinstance(item, Tensor):
            item = item._data
        if isinstance(item, (list, np.ndarray)):
            item = np.asarray(item)
            if item.dtype.kind not in "biu":
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
            basic = False
        elif not (item is None or item is Ellipsis or isinstance(item, (slice, numbers.Integral))):
            raise IndexError(f"only integers, slices (`:`), ellipsis (`...`), None and long or byte "
                             f"tensors are valid indices (got {type(item).__name__})")
        parts.append(item)
    if basic and Ellipsis not in parts:
        parts.append(Ellipsis)  # makes NumPy return a 0-d view rather than a scalar copy
    return tuple(parts), basic


class IndexBackward0(Op):
    """x[index]: scatter the gradient back; repeated indices accumulate."""
    saves = ("index",)

    @staticmethod
    def forward(x, index, in_shape):
        return x[index]

    def backward(self, g, index):
        return (index_add_zeros(g, index, self.in_shape),)


class SelectBackward0(Op):
    """A basic index (ints, slices): the result is a view."""
    takes_scaled = True
    forward = staticmethod(lambda x, index, in_shape: x[index])

    def backward(self, g):
        if isinstance(g, Tensor):
            return (index_add_zeros(g, self.index, self.in_shape, basic=True),)
        return (IndexedGrad(g, self.index, self.in_shape),)


class SliceBackward0(SelectBackward0):
    pass


class IndexPutBackward0(Op):
    """zeros(shape) with ``g`` added at ``index``: the backward of indexing, itself differentiable.
    ``g`` may be smaller than the indexed part (a scalar spread to several places)."""

    @staticmethod
    def forward(g, index, shape, basic, value_shape=None):
        out = np.zeros(shape, dtype=g.dtype)
        if basic:
            out[index] = g
        else:
            np.add.at(out, index, g)
        return out

    def backward(self, g):
        return (sum_to(g[self.index], self.value_shape),)


def index_add_zeros(g, index, shape, basic=False):
    if isinstance(g, Tensor):
        return apply(IndexPutBackward0, (g,), {"index": index, "shape": shape, "basic": basic,
                                               "value_shape": g.shape})
    return IndexPutBackward0.forward(g, index, shape, basic)


def getitem(x, index):
    index, basic = _normalise_index(index)
    if basic:
        ints = [i for i in index if isinstance(i, numbers.Integral)]
        cls = SelectBackward0 if ints else SliceBackward0
        return _view(cls, x, {"index": index, "in_shape": x.shape}, lambda a: a[index])
    return apply(IndexBackward0, (x,), {"index": index, "in_shape": x.shape})


class CopySlices(Op):
    """x[index] = value recorded: the overwritten part of x gets no gradient, value gets that part."""

    @staticmethod
    def forward(x, value, index, **shapes):
        out = np.array(x)
        out[index] = value
        return out

    def backward(self, g):
        mask = np.ones(self.in_shape, dtype=bool)
        mask[self.index] = False
        gx = D.where(mask, g, 0.0) if self.needs(0) else None
        gv = sum_to(g[self.index], self.value_shape) if self.needs(1) else None
        return gx, gv


class IndexPutBackward0Setitem(CopySlices):
    """x[advanced index] = value (PyTorch's node name: IndexPutBackward0)."""


IndexPutBackward0Setitem.__name__ = "IndexPutBackward0"


def setitem(x, index, value):
    """``x[index] = value`` as an in-place operation recorded in the graph."""
    index, basic = _normalise_index(index)
    value_shape = value.shape if isinstance(value, Tensor) else np.shape(value)
    cls = CopySlices if basic else IndexPutBackward0Setitem
    return _inplace(x, lambda src: apply(cls, (src, value), {
        "index": index, "in_shape": x.shape, "value_shape": value_shape}), leaf_message=VIEW_OF_LEAF_INPLACE_ERROR)


# --- joining ------------------------------------------------------------------------------

class CatBackward0(Op):
    @staticmethod
    def forward(*arrays, dim, sizes):
        return np.concatenate(arrays, axis=dim)

    def backward(self, g):
        out, start = [], 0
        lead = (slice(None),) * (self.dim % g.ndim)
        for n in self.sizes:
            out.append(g[lead + (slice(start, start + n),)])
            start += n
        return tuple(out)


def cat(tensors, dim=0):
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("torch.cat(): expected a non-empty list of Tensors")
    d = check_dim(dim, tensors[0].ndim)
    first = tensors[0].shape
    for number, t in enumerate(tensors[1:], 1):
        if t.ndim != len(first):
            raise RuntimeError(f"Tensors must have same number of dimensions: got {len(first)} and {t.ndim}")
        for axis, (a, b) in enumerate(zip(first, t.shape)):
            if axis != d and a != b:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. Expected size {a} but "
                                   f"got size {b} for tensor number {number} in the list.")
    return apply(CatBackward0, tuple(tensors), {"dim": d, "sizes": [t.shape[d] for t in tensors]})


concatenate = cat


class StackBackward0(Op):
    @staticmethod
    def forward(*arrays, dim):
        return np.stack(arrays, axis=dim)

    def backward(self, g):
        lead = (slice(None),) * self.dim
        return tuple(g[lead + (i,)] for i in range(len(self._next)))


def stack(tensors, dim=0):
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    shapes = {tuple(t.shape) for t in tensors}
    if len(shapes) > 1:
        raise RuntimeError(f"stack expects each tensor to be equal size, but got {[list(t.shape) for t in tensors]}")
    return apply(StackBackward0, tuple(tensors), {"dim": check_dim(dim, tensors[0].ndim + 1)})


# --- comparisons (no gradient) ---------------------------------------------------------------

def _compare(np_func):
    def compare(a, b):
        return Tensor._make(np_func(a._data if isinstance(a, Tensor) else a, b._data if isinstance(b, Tensor) else b))
    return compare


lt, le, gt, ge, eq, ne = (_compare(f) for f in (np.less, np.less_equal, np.greater, np.greater_equal,
                                                 np.equal, np.not_equal))


def argmax(x, dim=None, keepdim=False):
    if dim is None:
        return Tensor._make(np.asarray(np.argmax(x._data)))
    return Tensor._make(np.argmax(x._data, axis=dim, keepdims=keepdim))


def argmin(x, dim=None, keepdim=False):
    if dim is None:
        return Tensor._make(np.asarray(np.argmin(x._data)))
    return Tensor._make(np.argmin(x._data, axis=dim, keepdims=keepdim))


def isnan(x):
    return Tensor._make(np.isnan(x._data))


def isfinite(x):
    return Tensor._make(np.isfinite(x._data))


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    return bool(np.allclose(_arr(a), _arr(b), rtol=rtol, atol=atol, equal_nan=equal_nan))


# --- in-place operations --------------------------------------------------------------------

LEAF_INPLACE_ERROR = "a leaf Variable that requires grad is being used in an in-place operation."
VIEW_OF_LEAF_INPLACE_ERROR = "a view of a leaf Variable that requires grad is being used in an in-place operation."


def _inplace(t, compute, leaf_message=LEAF_INPLACE_ERROR):
    """Overwrite ``t`` with ``compute(t)`` and, when recording, make ``t`` the output of the
    new node. ``compute`` runs on a snapshot of ``t`` so what the new node saves is the
    value before the write; ``t``'s version counter goes up, which is how saved copies of
    the old value notice they are stale."""
    recording = STATE.grad_enabled
    base = t._base
    if recording:
        if t.requires_grad_flag and t.grad_fn is None:
            raise RuntimeError(VIEW_OF_LEAF_INPLACE_ERROR if base is not None else leaf_message)
        if base is not None and base.requires_grad_flag and base.grad_fn is None:
            raise RuntimeError(VIEW_OF_LEAF_INPLACE_ERROR)
    if recording:
        source = Tensor._make(np.array(t._data), t.requires_grad_flag, t.grad_fn)
        source._output_nr = t._output_nr
        source._accum = t._accum
    else:
        source = t
    new = compute(source)
    if new.shape != t.shape:
        raise RuntimeError(f"output with shape {list(t.shape)} doesn't match the broadcast shape {list(new.shape)}")
    if not t._data.flags.writeable:
        raise RuntimeError("unsupported operation: more than one element of the written-to tensor refers to a "
                           "single memory location. Please clone() the tensor before performing the operation.")
    np.copyto(t._data, new._data, casting="unsafe")
    t._bump()
    if recording and new.grad_fn is not None:
        node = new.grad_fn
        for s in node._saved or ():
            if type(s) is SavedTensor and s.is_output:   # the output now lives in t
                s.array, s.counter, s.version = t._data, t._counter(), t._version
        if base is not None:
            _rebase_view(t, base, new)
        else:
            t.grad_fn = node
            t.requires_grad_flag = True
            t._output_nr = new._output_nr
            if t._retains_grad:
                t._retains_grad = False
                t.retain_grad()
    return t


class CopySlicesView(Op):
    """An in-place change through a view: the base's gradient loses the view's part, which
    goes to the new value instead."""

    def backward(self, g):
        mask = np.ones(self.in_shape, dtype=g.dtype)
        self.view_fn(mask)[...] = 0
        return (g * mask if self.needs(0) else None), (self.view_fn(g) if self.needs(1) else None)


CopySlicesView.__name__ = "CopySlices"


def _rebase_view(view, base, new):
    """After ``view`` was overwritten by ``new``, make ``base``'s history include the change."""
    node = object.__new__(CopySlicesView)
    init_node(node, (edge_of(base), edge_of(new)))
    node.in_shape, node.view_fn = base.shape, view._view_fn
    base.grad_fn, base.requires_grad_flag, base._output_nr = node, True, 0
    with_grad = view._view_fn(base)
    view.grad_fn, view.requires_grad_flag = with_grad.grad_fn, True


def _inplace_binary(op):
    def method(self, other):
        return _inplace(self, lambda src: op(src, other))
    return method


def _inplace_unary(op):
    def method(self, *args, **kwargs):
        return _inplace(self, lambda src: op(src, *args, **kwargs))
    return method


def zero_(t):
    return fill_(t, 0)


def fill_(t, value):
    value = value._data if isinstance(value, Tensor) else value
    return _inplace(t, lambda src: Tensor._make(np.full(t.shape, value, dtype=t.dtype)))


def copy_(t, src):
    if isinstance(src, Tensor):
        return _inplace(t, lambda old: apply(CopyBackwards, (old, src), {"shape": t.shape, "src_shape": src.shape, "src_dtype": src.dtype}))
    return _inplace(t, lambda old: Tensor._make(np.broadcast_to(np.asarray(src, dtype=t.dtype), t.shape)))


class CopyBackwards(Op):
    """``t.copy_(src)``: all of the gradient goes to ``src`` (summed back to its shape)."""

    @staticmethod
    def forward(old, src, shape, src_shape, src_dtype):
        return np.array(np.broadcast_to(src, shape), dtype=old.dtype)

    def backward(self, g):
        return None, (D.cast(sum_to(g, self.src_shape), self.src_dtype) if self.needs(1) else None)


# --- the dual namespace: one spelling for arrays and tensors ----------------------------------

class _Dual:
    """Functions that take arrays or tensors and return the same kind: backward rules use
    them so that one formula serves plain and differentiable (create_graph) backward."""

    @staticmethod
    def _pick(np_func, tensor_func):
        def f(*args):
            for a in args:
                if isinstance(a, Tensor):
                    return tensor_func(*args)
            return np_func(*args)
        return f


D = _Dual()
for _name in ("exp", "log", "sqrt", "sin", "cos", "sinh", "cosh", "sigmoid", "abs"):
    setattr(D, _name, D._pick(ELEMENTWISE[_name][0], globals()[_name]))
D.pow = D._pick(np.power, pow)
D.where = D._pick(np.where, where)
D.zeros_like = D._pick(np.zeros_like, lambda t: Tensor._make(np.zeros_like(t._data)))
D.expand = D._pick(np.broadcast_to, expand)
D.unsqueeze = D._pick(np.expand_dims, unsqueeze)
D.permute = D._pick(np.transpose, permute)
D.moveaxis = D._pick(np.moveaxis, moveaxis)
D.cast = D._pick(lambda a, dtype: a.astype(dtype), to)
D.cumsum = D._pick(lambda a, dim: np.cumsum(a, axis=dim), cumsum)
D.prod = D._pick(lambda a, dim: np.prod(a, axis=dim), lambda a, dim: prod(a, dim))
D.mean = D._pick(lambda a, axis, keep: np.mean(a, axis=axis, keepdims=keep),
                 lambda a, axis, keep: mean(a, axis, keep))
