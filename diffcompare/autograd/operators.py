"""``TensorOperators``: Tensor's operators and methods (``x + y``, ``x.sin()``, ``x.sum()``,
``x.add_(y)``), each the function of :mod:`.ops` that records it.

The ops build on ``Tensor`` (they make and read tensors), so the class that holds the
methods comes after them: ``Tensor`` is defined with an empty base,
:class:`.tensor.Operators`, and this class takes that base's place once, below, when the
package is imported. Every method is an ordinary attribute of this class, so ``help`` and
introspection find it where Python looks for it.

>>> from diffcompare import autograd as ag
>>> ag.Tensor.__mro__[1].__name__
'TensorOperators'
>>> x = ag.tensor([1.0, 2.0], requires_grad=True)
>>> (2 * x + 1).sin().sum().grad_fn
<SumBackward0 object at ...>
>>> ag.Tensor.sin is ag.ops.sin
True
"""

from __future__ import annotations

import mmap
import numbers

import numpy as np

from . import ops
from .backward import backward as backpropagate
from .dtypes import LEGACY_TYPE_DTYPES, bfloat16, default_dtype, legacy_type_name, strided
from .device import CPU, META, MetaArray, refuse_meta, resolve as resolve_device
from .tensor import Operators, Tensor, full, ones, tensor as tensor_factory, zeros
from .storage import UntypedStorage, elements_of


def operand(other):
    """An operand as the ops take it: tensors stay, Python numbers stay (they never change
    the dtype), anything else (a list, an array) becomes a tensor.

    >>> operand(2.0), operand([1.0, 2.0])
    (2.0, tensor([1., 2.]))
    """
    if type(other) is float or type(other) is int or isinstance(other, Tensor):
        return other
    if isinstance(other, np.generic) and other.ndim == 0:
        return other.item()         # a NumPy scalar is a Python number to PyTorch: it never changes the dtype
    if isinstance(other, numbers.Number):
        return other
    return Tensor._make(np.asarray(other))


# NumPy's arithmetic ufuncs called with a tensor among two operands (``array * tensor`` comes
# here as ``np.multiply(array, tensor)``): the tensor's own operator (left, reflected), recorded
_TENSOR_OPERATORS = {np.add: ("__add__", "__radd__"), np.subtract: ("__sub__", "__rsub__"),
                     np.multiply: ("__mul__", "__rmul__"), np.true_divide: ("__truediv__", "__rtruediv__"),
                     np.floor_divide: ("__floordiv__", "__rfloordiv__"), np.remainder: ("__mod__", "__rmod__"),
                     np.power: ("__pow__", "__rpow__"), np.matmul: ("__matmul__", "__rmatmul__"),
                     np.equal: ("__eq__", "__eq__"), np.not_equal: ("__ne__", "__ne__")}


def _array_of(tensor):
    """A ufunc's operand: the tensor's array, refused as ``numpy()`` refuses it (a tensor that
    requires grad, in grad mode: ``__array__``; one on the meta device: it has no values)."""
    refuse_meta(tensor._data, "numpy")
    return np.asarray(tensor)


def _as_tensor(array):
    """A ufunc's result on tensors' arrays as PyTorch's ``Tensor.__array_wrap__`` gives it: a
    tensor sharing it, a bool one as uint8 (PyTorch's workaround, kept by ``np.greater(t, 0)``)."""
    array = np.asarray(array)
    return Tensor._make(array.astype(np.uint8) if array.dtype == np.bool_ else array)


def _sparse_only(name, layout):
    """A sparse tensor's method, refused on a dense tensor in PyTorch's words (code may read the
    attribute without calling it, as ``torch.mean(x, dim=0).values`` does)."""
    def method(self, *args, **kwargs):
        raise RuntimeError(f"{name} expected {layout} layout but got Strided")
    method.__name__ = method.__qualname__ = name
    return method


def in_shared_memory(array):
    """Whether a NumPy array's memory is a shared mapping that ``share_memory_`` made."""
    while isinstance(array, np.ndarray):
        array = array.base
    return isinstance(array, memoryview) and isinstance(array.obj, mmap.mmap)


class TensorOperators(Operators):
    """Tensor's arithmetic operators and its methods, as in PyTorch.

    >>> from diffcompare import autograd as ag
    >>> x = ag.tensor([1.0, 4.0], requires_grad=True)
    >>> y = (1 - x) / x ** 0.5
    >>> y.grad_fn.name()
    'DivBackward0'
    >>> x.sqrt().log().exp()
    tensor([1., 2.], grad_fn=<ExpBackward0>)
    """

    __slots__ = ()
    __array_priority__ = 1000       # as PyTorch's: NumPy wraps a result in the tensor's type

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        """NumPy's ufuncs on tensors, as on PyTorch's: ``np.sin(t)`` and ``np.maximum(t, 0)``
        are computed by NumPy on the tensors' arrays and give a tensor (``__array_wrap__``; a
        tensor that requires grad is refused, as ``numpy()`` refuses it); an arithmetic
        operator with an array on its left (``array * t``, ``array == t``) is the tensor's own,
        recorded.

        >>> import numpy as np
        >>> from diffcompare import autograd as ag
        >>> x = ag.tensor([0.0, 2.0], requires_grad=True)
        >>> np.array([1.0, 3.0]) * x, np.sin(ag.tensor([0.0])), np.greater(ag.tensor([1.0]), 0)
        (tensor([0., 6.], grad_fn=<MulBackward0>), tensor([0.]), tensor([1], dtype=uint8))
        """
        names = _TENSOR_OPERATORS.get(ufunc) if method == "__call__" and not kwargs and len(inputs) == 2 else None
        if names is not None:
            a, b = inputs
            return getattr(a, names[0])(b) if isinstance(a, Tensor) else getattr(b, names[1])(a)
        out = kwargs.get("out")
        if out is not None and any(isinstance(o, Tensor) for o in (out if isinstance(out, tuple) else (out,))):
            return NotImplemented       # NumPy's TypeError: a ufunc does not write into a tensor
        arrays = [_array_of(x) if isinstance(x, Tensor) else x for x in inputs]
        result = getattr(ufunc, method)(*arrays, **kwargs)
        if out is not None or method != "__call__":
            return result
        return tuple(_as_tensor(r) for r in result) if isinstance(result, tuple) else _as_tensor(result)

    def __array_wrap__(self, array, context=None, return_scalar=False):
        """NumPy's result of a function that worked on this tensor's array (``np.clip(t, 0, 1)``)
        as a tensor, as PyTorch's ``__array_wrap__`` gives it."""
        return _as_tensor(array)

    @property
    def grad_fn(self):
        """The node that made this tensor (None for a leaf). A view whose base, or another view
        of it, was written in place since gets its history again first, as PyTorch's
        ``AsStridedBackward0`` from the base's current history (``ops.refresh_view``)."""
        if self._base is not None and self._vc[0] != self._view_meta[0]:
            return ops.refresh_view(self)
        return self._grad_fn

    @grad_fn.setter
    def grad_fn(self, node):
        self._grad_fn = node

    def __format__(self, format_spec):
        """A 0-d tensor formats as its value (``f"{loss:.4f}"``), as PyTorch's."""
        if self._data.ndim == 0 and not isinstance(self._data, MetaArray):
            return self.item().__format__(format_spec)
        return object.__format__(self, format_spec)

    # -- arithmetic (a reflected operator records what PyTorch records) -----------------------
    def __add__(self, other):
        """``self + other``, recorded as AddBackward0."""
        return ops.apply(ops.AddBackward0, (self, other if isinstance(other, Tensor) else operand(other)))

    def __sub__(self, other):
        """``self - other``, recorded as SubBackward0."""
        return ops.apply(ops.SubBackward0, (self, other if isinstance(other, Tensor) else operand(other)))

    def __rsub__(self, other):
        """``other - self``: SubBackward0 for a tensor ``other``, RsubBackward1 for a number."""
        other = operand(other)
        if isinstance(other, Tensor):
            return ops.apply(ops.SubBackward0, (other, self))
        return ops.apply(ops.RsubBackward1, (self, other))

    def __mul__(self, other):
        """``self * other``: MulBackward0, or MulScalarBackward for a Python number."""
        if type(other) is float or type(other) is int:
            return ops.apply(ops.MulScalarBackward, (self, other))
        return ops.apply(ops.MulBackward0, (self, other if isinstance(other, Tensor) else operand(other)))

    def __truediv__(self, other):
        """``self / other``, recorded as DivBackward0."""
        return ops.apply(ops.DivBackward0, (self, other if isinstance(other, Tensor) else operand(other)))

    def __rtruediv__(self, other):
        """``other / self``: DivBackward0 for a tensor ``other``; for a number, as PyTorch
        records it, ``reciprocal(self) * other``."""
        other = operand(other)
        if isinstance(other, Tensor):
            return ops.apply(ops.DivBackward0, (other, self))
        return TensorOperators.__mul__(ops.reciprocal(self), other)

    def __pow__(self, exponent):
        """``self ** exponent``: see :func:`.ops.pow`."""
        return ops.pow(self, operand(exponent))

    def __rpow__(self, base):
        """``base ** self``: see :func:`.ops.pow`."""
        return ops.pow(operand(base), self)

    def __matmul__(self, other):
        """``self @ other``: see :func:`.ops.matmul`."""
        return ops.matmul(self, operand(other))

    def __rmatmul__(self, other):
        """``other @ self``: see :func:`.ops.matmul`."""
        return ops.matmul(operand(other), self)

    def __neg__(self):
        """``-self``, recorded as NegBackward0."""
        return ops.apply(ops.NegBackward0, (self,))

    def __pos__(self):
        """``+self``: the tensor itself."""
        return self

    __radd__ = __add__
    add = ops.add          # x.add(y, alpha=...)
    sub = ops.sub
    __rmul__ = mul = __mul__
    div = divide = true_divide = ops.div     # x.div(y, rounding_mode=...)
    multiply = mul
    negative = neg = __neg__
    remainder = __mod__ = ops.remainder
    fmod = ops.fmod

    def __rmod__(self, other):
        """``other % self``."""
        return ops.remainder(operand(other), self)

    def __floordiv__(self, other):
        """``self // other``: the quotient rounded down (DivBackward2)."""
        return ops.div(self, operand(other), rounding_mode="floor")

    def __rfloordiv__(self, other):
        """``other // self``."""
        return ops.div(operand(other), self, rounding_mode="floor")

    __and__ = __rand__ = bitwise_and = ops.bitwise_and
    __or__ = __ror__ = bitwise_or = ops.bitwise_or
    __xor__ = __rxor__ = bitwise_xor = ops.bitwise_xor
    __invert__ = bitwise_not = ops.bitwise_not
    __lshift__ = bitwise_left_shift = ops.bitwise_left_shift
    __rshift__ = bitwise_right_shift = ops.bitwise_right_shift

    def __rlshift__(self, other):
        """``other << self``."""
        return ops.bitwise_left_shift(operand(other), self)

    def __rrshift__(self, other):
        """``other >> self``."""
        return ops.bitwise_right_shift(operand(other), self)

    logical_and = ops.logical_and
    logical_or = ops.logical_or
    logical_xor = ops.logical_xor
    logical_not = ops.logical_not
    greater, greater_equal, less, less_equal, not_equal = ops.gt, ops.ge, ops.lt, ops.le, ops.ne
    isclose = ops.isclose
    isinf = ops.isinf
    isposinf = ops.isposinf
    isneginf = ops.isneginf
    addmv = ops.addmv
    addr = ops.addr
    addbmm = ops.addbmm
    inner = ops.inner
    dist = ops.dist
    diff = ops.diff
    tensor_split = ops.tensor_split
    narrow = ops.narrow
    unflatten = ops.unflatten
    repeat_interleave = ops.repeat_interleave
    broadcast_to = ops.broadcast_to
    nonzero = ops.nonzero
    argwhere = ops.argwhere
    unique = ops.unique
    unique_consecutive = ops.unique_consecutive
    histc = ops.histc
    median = ops.median
    nanmedian = ops.nanmedian
    cummax = ops.cummax
    cummin = ops.cummin
    masked_select = ops.masked_select
    take = ops.take
    pow = __pow__
    __abs__ = absolute = ops.abs

    # -- comparisons (elementwise, boolean tensors; Tensor hashes by identity) -----------------
    __lt__ = lt = ops.lt
    __le__ = le = ops.le
    __gt__ = gt = ops.gt
    __ge__ = ge = ops.ge
    __eq__ = eq = ops.eq
    __ne__ = ne = ops.ne
    isnan = ops.isnan
    isfinite = ops.isfinite
    argmax = ops.argmax
    argmin = ops.argmin

    # -- two-input functions ----------------------------------------------------------------
    maximum = ops.maximum
    minimum = ops.minimum
    atan2 = arctan2 = ops.atan2
    hypot = ops.hypot
    matmul = ops.matmul
    mm = ops.mm
    mv = ops.mv
    dot = ops.dot
    bmm = ops.bmm
    addmm = ops.addmm
    baddbmm = ops.baddbmm
    outer = ger = ops.outer
    kron = ops.kron
    cross = ops.cross
    lerp = ops.lerp
    addcmul = ops.addcmul
    addcdiv = ops.addcdiv
    logaddexp = ops.logaddexp
    xlogy = ops.xlogy
    equal = ops.equal

    # -- matrices ---------------------------------------------------------------------------
    tril = ops.tril
    triu = ops.triu
    diag = ops.diag
    diag_embed = ops.diag_embed
    trace = ops.trace
    det = ops.det
    logdet = ops.logdet
    slogdet = ops.slogdet
    inverse = ops.inverse
    svd = ops.svd
    qr = ops.qr
    lu = ops.lu
    lu_solve = ops.lu_solve
    pinverse = ops.pinverse
    matrix_exp = ops.matrix_exp
    matrix_power = ops.matrix_power
    triangular_solve = ops.triangular_solve
    cholesky_solve = ops.cholesky_solve
    cholesky = ops.torch_cholesky
    geqrf = ops.geqrf
    orgqr = ops.orgqr
    ormqr = ops.ormqr
    cholesky_inverse = ops.cholesky_inverse

    def diagonal(self, offset=0, dim1=0, dim2=1):
        """The ``offset`` diagonal of dimensions ``dim1`` and ``dim2``: see :func:`.ops.diagonal`."""
        return ops.diagonal(self, offset, dim1, dim2)

    as_strided = ops.as_strided

    # -- the one-input functions of the elementwise table (ops.ELEMENTWISE) ---------------------
    exp = ops.exp
    log = ops.log
    log1p = ops.log1p
    expm1 = ops.expm1
    log2 = ops.log2
    log10 = ops.log10
    sqrt = ops.sqrt
    cbrt = ops.cbrt
    rsqrt = ops.rsqrt
    sin = ops.sin
    cos = ops.cos
    tan = ops.tan
    asin = ops.asin
    acos = ops.acos
    atan = ops.atan
    sinh = ops.sinh
    cosh = ops.cosh
    tanh = ops.tanh
    asinh = ops.asinh
    acosh = ops.acosh
    atanh = ops.atanh
    sigmoid = ops.sigmoid
    relu = ops.relu
    abs = ops.abs
    sign = ops.sign
    floor = ops.floor
    ceil = ops.ceil
    round = ops.round
    erf = ops.erf
    lgamma = ops.lgamma
    digamma = ops.digamma
    erfinv = ops.erfinv
    mvlgamma = ops.mvlgamma

    def polygamma(self, n):
        """The n-th derivative of digamma at this tensor (``torch.polygamma(n, self)``)."""
        return ops.polygamma(n, self)
    reciprocal = ops.reciprocal
    conj = ops.conj
    def _set_real(self, value):
        """``z.real = value``: written into the real part in place (``copy_``, recorded as PyTorch's
        setter records it); on a real tensor, into the tensor itself."""
        ops.real(self).copy_(value)

    def _set_imag(self, value):
        """``z.imag = value`` (``z.imag *= -1`` ends in it): written into the imaginary part in
        place; a real tensor has none, as PyTorch says."""
        ops.imag(self).copy_(value)     # (PyTorch's error for a real tensor)

    real = property(ops.real, _set_real, doc="The real part (a tensor, as in PyTorch; differentiable); settable.")
    imag = property(ops.imag, _set_imag, doc="The imaginary part (a tensor, as in PyTorch; differentiable); settable.")

    # -- other elementwise functions --------------------------------------------------------
    square = ops.square
    softplus = ops.softplus
    clamp = ops.clamp
    clip = ops.clip
    clamp_min = ops.clamp_min
    clamp_max = ops.clamp_max
    logit = ops.logit
    nan_to_num = ops.nan_to_num

    # -- reductions -------------------------------------------------------------------------
    def max(self, dim=None, keepdim=False, *, other=None):
        """The largest element, or with ``dim`` the (values, indices) along it: see :func:`.ops.max`."""
        return ops.max(self, dim, keepdim, other=other)

    def min(self, dim=None, keepdim=False, *, other=None):
        """The smallest element, or with ``dim`` the (values, indices) along it: see :func:`.ops.min`."""
        return ops.min(self, dim, keepdim, other=other)

    sum = ops.sum
    mean = ops.mean
    prod = ops.prod
    amax = ops.amax
    amin = ops.amin
    var = ops.var
    std = ops.std
    norm = ops.norm
    logsumexp = ops.logsumexp
    softmax = ops.softmax
    log_softmax = ops.log_softmax
    cumsum = ops.cumsum
    cumprod = ops.cumprod
    all = ops.all
    any = ops.any

    # -- shape, views and copies ------------------------------------------------------------
    reshape = ops.reshape
    view = ops.view
    flatten = ops.flatten
    transpose = ops.transpose
    swapaxes = ops.swapaxes
    t = ops.t
    permute = ops.permute
    moveaxis = movedim = ops.moveaxis
    repeat = ops.repeat
    tile = ops.tile
    roll = ops.roll
    flip = ops.flip
    split = ops.split
    chunk = ops.chunk
    unbind = ops.unbind
    squeeze = ops.squeeze
    unsqueeze = ops.unsqueeze
    expand = ops.expand
    expand_as = ops.expand_as
    clone = ops.clone
    contiguous = ops.contiguous
    to = ops.to

    @property
    def mH(self):
        """The conjugate transpose of the last two dimensions."""
        return ops.transpose(self, -2, -1).conj() if self.dtype.kind == "c" else ops.transpose(self, -2, -1)

    @property
    def H(self):
        """The conjugate transpose of a matrix."""
        if self.ndim != 2:
            raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {self.ndim}-D tensor.")
        return self.mH

    def adjoint(self):
        """The conjugate transpose of the last two dimensions (``mH``)."""
        return self.mH

    def view_as(self, other):
        """This tensor viewed with ``other``'s shape."""
        return ops.reshape(self, other.shape)

    def reshape_as(self, other):
        """This tensor reshaped to ``other``'s shape."""
        return ops.reshape(self, other.shape)

    def type_as(self, other):
        """This tensor in ``other``'s dtype."""
        return ops.to(self, other.dtype)

    def type(self, dtype=None, non_blocking=False):
        """With no dtype, PyTorch's name of this tensor's type ("torch.DoubleTensor"); else this
        tensor in ``dtype`` (a dtype, or such a name), itself when it already is.

        >>> from diffcompare import autograd as ag
        >>> ag.ones(2).type(), ag.ones(2).type(ag.float32).dtype, ag.arange(2).type(ag.Tensor).dtype
        ('torch.DoubleTensor', dtype('float32'), dtype('float64'))
        """
        if dtype is None:
            return legacy_type_name(self.dtype)
        if isinstance(dtype, str):
            if dtype not in LEGACY_TYPE_DTYPES:
                raise ValueError(f"invalid type: '{dtype}'")
            dtype = LEGACY_TYPE_DTYPES[dtype]
        elif dtype is Tensor:                   # torch.Tensor: the default type
            dtype = default_dtype()
        elif isinstance(dtype, type) and isinstance(getattr(dtype, "dtype", None), np.dtype):
            dtype = dtype.dtype                 # a legacy type: torch.FloatTensor, torch.LongTensor, ...
        if np.dtype(dtype) == self.dtype:
            return self
        return ops.to(self, dtype)

    def double(self, memory_format=None):
        """This tensor as float64."""
        return ops.to(self, np.float64)

    def float(self, memory_format=None):
        """This tensor as float32."""
        return ops.to(self, np.float32)

    def half(self, memory_format=None):
        """This tensor as float16."""
        return ops.to(self, np.float16)

    def bfloat16(self, memory_format=None):
        """Refused: NumPy has no bfloat16 (the error names what to use instead)."""
        return self.to(bfloat16)

    def long(self, memory_format=None):
        """This tensor as int64 (outside the graph: integers carry no gradient)."""
        return ops.to(self.detach() if self.requires_grad_flag else self, np.int64)

    def int(self, memory_format=None):
        """This tensor as int32."""
        return ops.to(self.detach() if self.requires_grad_flag else self, np.int32)

    def byte(self, memory_format=None):
        """This tensor as uint8 (values wrap around, as in PyTorch)."""
        return self._integer(np.uint8)

    def char(self, memory_format=None):
        """This tensor as int8."""
        return self._integer(np.int8)

    def short(self, memory_format=None):
        """This tensor as int16."""
        return self._integer(np.int16)

    def _integer(self, dtype):
        data = self._data
        if data.dtype.kind in "fc":     # through int64, as C casts do: uint8(-2.3) is 254
            data = np.trunc(data.real if data.dtype.kind == "c" else data).astype(np.int64)
        return Tensor._make(data.astype(dtype))

    def bool(self, memory_format=None):
        """This tensor as bool."""
        return ops.to(self.detach() if self.requires_grad_flag else self, np.bool_)

    # -- new tensors like this one (its dtype) ------------------------------------------------
    def new_tensor(self, data, dtype=None, device=None, requires_grad=False):
        """A new leaf holding ``data``, in this tensor's dtype unless ``dtype`` is given."""
        return tensor_factory(data._data if isinstance(data, Tensor) else data, dtype=dtype or self.dtype,
                              requires_grad=requires_grad)

    # the new_* factories: in this tensor's dtype unless given one; the device (the CPU),
    # layout and pinning are taken and mean nothing more here
    def new_zeros(self, *size, dtype=None, device=None, layout=None, pin_memory=False, requires_grad=False):
        """Zeros of ``size`` in this tensor's dtype."""
        return zeros(*size, dtype=dtype or self.dtype, device=device, requires_grad=requires_grad)

    def new_ones(self, *size, dtype=None, device=None, layout=None, pin_memory=False, requires_grad=False):
        """Ones of ``size`` in this tensor's dtype."""
        return ones(*size, dtype=dtype or self.dtype, device=device, requires_grad=requires_grad)

    def new_empty(self, *size, dtype=None, device=None, layout=None, pin_memory=False, requires_grad=False):
        """A tensor of ``size`` in this tensor's dtype (values unset: zeros here)."""
        return zeros(*size, dtype=dtype or self.dtype, device=device, requires_grad=requires_grad)

    def new_empty_strided(self, size, stride, dtype=None, device=None, layout=None, pin_memory=False,
                          requires_grad=False):
        """A tensor of ``size`` in this tensor's dtype (values unset: zeros here; the engine's
        tensors are laid out contiguously, so ``stride`` is taken and not kept)."""
        return zeros(*size, dtype=dtype or self.dtype, device=device, requires_grad=requires_grad)

    def new_full(self, size, fill_value, dtype=None, device=None, layout=None, pin_memory=False, requires_grad=False):
        """``fill_value`` in ``size``, in this tensor's dtype."""
        return full(size, fill_value, dtype=dtype or self.dtype, device=device, requires_grad=requires_grad)

    def cpu(self, memory_format=None):
        """The tensor itself (CPU only: a ported ``x.detach().cpu().numpy()`` keeps working);
        a meta tensor has no values to copy, as in PyTorch."""
        refuse_meta(self._data, "cpu")
        return self

    def cuda(self, device=None, non_blocking=False):
        """PyTorch's error of a CPU-only build: the engine has no CUDA device."""
        resolve_device("cuda")

    @property
    def device(self):
        """Where the tensor lives: always the CPU.

        >>> from diffcompare import autograd as ag
        >>> ag.ones(2).device
        device(type='cpu')
        """
        return META if type(self._data) is MetaArray else CPU

    is_cuda = False
    is_sparse = is_sparse_csr = False
    layout = strided        # dense tensors only

    def to_dense(self, dtype=None, *, masked_grad=None):
        """The tensor itself (it is dense), or a copy in ``dtype``."""
        return self if dtype is None else self.to(dtype)

    def sparse_dim(self):
        return 0

    def dense_dim(self):
        return self.ndim

    # a sparse tensor's parts: PyTorch's error on a dense tensor (sparse tensors are out of scope)
    values = _sparse_only("values", "sparse tensor")
    indices = _sparse_only("indices", "sparse coordinate tensor")
    coalesce = _sparse_only("coalesce", "sparse coordinate tensor")
    is_coalesced = _sparse_only("is_coalesced", "sparse coordinate tensor")
    crow_indices = _sparse_only("crow_indices", "sparse row compressed tensor")
    col_indices = _sparse_only("col_indices", "sparse row compressed tensor")
    ccol_indices = _sparse_only("ccol_indices", "sparse column compressed tensor")
    row_indices = _sparse_only("row_indices", "sparse column compressed tensor")

    @property
    def is_cpu(self):
        return type(self._data) is not MetaArray

    @property
    def is_meta(self):
        """Whether it is a shape-only placeholder (``device="meta"``, see :class:`.device.MetaArray`)."""
        return type(self._data) is MetaArray

    # -- indexing ---------------------------------------------------------------------------
    __getitem__ = ops.getitem
    __setitem__ = ops.setitem
    gather = ops.gather
    scatter_add = ops.scatter_add
    index_select = ops.index_select
    masked_fill = ops.masked_fill
    sort = ops.sort
    argsort = ops.argsort
    topk = ops.topk

    # -- in place: the op on the current value, written back (see :mod:`.ops.inplace`) ---------
    zero_ = ops.zero_
    fill_ = ops.fill_
    copy_ = ops.copy_
    uniform_ = ops.uniform_
    normal_ = ops.normal_
    random_ = ops.random_
    bernoulli_ = ops.bernoulli_
    scatter = ops.scatter
    scatter_ = ops.inplace_unary(ops.scatter)
    scatter_add_ = ops.inplace_unary(ops.scatter_add)
    index_add = ops.index_add
    index_add_ = ops.inplace_unary(ops.index_add)
    index_fill = ops.index_fill
    index_fill_ = ops.inplace_unary(ops.index_fill)
    scatter_reduce = ops.scatter_reduce
    scatter_reduce_ = ops.inplace_unary(ops.scatter_reduce)
    masked_scatter = ops.masked_scatter
    masked_scatter_ = ops.inplace_unary(ops.masked_scatter)
    put = ops.put
    put_ = ops.inplace_unary(ops.put)
    index_put = ops.index_put
    index_put_ = ops.inplace_unary(ops.index_put)
    index_copy = ops.index_copy
    index_copy_ = ops.inplace_unary(ops.index_copy)
    index_reduce = ops.index_reduce
    index_reduce_ = ops.inplace_unary(ops.index_reduce)
    fill_diagonal_ = ops.fill_diagonal_
    unfold = ops.unfold
    stft = ops.stft
    istft = ops.istft
    is_contiguous = ops.is_contiguous
    is_xpu = False

    def resize_(self, *sizes, memory_format=None):
        """This tensor with shape ``sizes``, in place: its elements in row-major order, cut
        short or continued (with zeros here, where PyTorch leaves memory unset).

        >>> from diffcompare import autograd as ag
        >>> ag.tensor([[1, 2], [3, 4], [5, 6]]).resize_(2, 2)
        tensor([[1, 2],
                [3, 4]])
        """
        shape = tuple(sizes[0]) if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)) else tuple(sizes)
        if self.requires_grad_flag:
            raise RuntimeError("cannot resize variables that require grad")
        if any(n < 0 for n in shape):
            raise RuntimeError(f"Trying to create tensor with negative dimension {min(shape)}: {list(shape)}")
        if shape == self._data.shape:
            return self
        flat = self._data.reshape(-1)
        size = int(np.prod(shape))
        data = np.zeros(size, dtype=flat.dtype)
        data[:min(size, flat.size)] = flat[:size]
        self._data = data.reshape(shape)
        self._bump()
        return self

    def resize_as_(self, other, memory_format=None):
        """This tensor resized in place to ``other``'s shape (see :meth:`resize_`)."""
        return self.resize_(other.shape)

    def element_size(self):
        """The size of one element in bytes."""
        return self.dtype.itemsize

    @property
    def itemsize(self):
        return self.dtype.itemsize

    @property
    def nbytes(self):
        return self.dtype.itemsize * self.numel()
    exponential_ = ops.exponential_
    cauchy_, geometric_, log_normal_ = ops.cauchy_, ops.geometric_, ops.log_normal_
    bernoulli = ops.bernoulli
    multinomial = ops.multinomial
    __iadd__ = ops.inplace_binary(__add__)
    __isub__ = ops.inplace_binary(__sub__)
    add_ = ops.inplace_unary(ops.add)      # x.add_(y, alpha=...)
    sub_ = ops.inplace_unary(ops.sub)
    __imul__ = mul_ = ops.inplace_binary(__mul__)
    __itruediv__ = ops.inplace_binary(__truediv__)
    div_ = ops.inplace_unary(ops.div)       # x.div_(y, rounding_mode=...)
    __ipow__ = pow_ = ops.inplace_binary(__pow__)
    exp_ = ops.inplace_unary(ops.exp)
    log_ = ops.inplace_unary(ops.log)
    sqrt_ = ops.inplace_unary(ops.sqrt)
    sin_ = ops.inplace_unary(ops.sin)
    cos_ = ops.inplace_unary(ops.cos)
    tanh_ = ops.inplace_unary(ops.tanh)
    sigmoid_ = ops.inplace_unary(ops.sigmoid)
    relu_ = ops.inplace_unary(ops.relu)
    abs_ = ops.inplace_unary(ops.abs)
    clamp_ = ops.inplace_unary(ops.clamp)
    masked_fill_ = ops.inplace_unary(ops.masked_fill)
    neg_ = ops.inplace_unary(__neg__)

    digamma_ = ops.inplace_unary(ops.digamma)
    lgamma_ = ops.inplace_unary(ops.lgamma)
    erfinv_ = ops.inplace_unary(ops.erfinv)
    polygamma_ = ops.inplace_unary(lambda self, n: ops.polygamma(n, self))
    mvlgamma_ = ops.inplace_unary(ops.mvlgamma)
    ldexp_ = ops.inplace_unary(ops.ldexp)

    # -- order statistics, integration, scatters into copies, and more as methods ---------------
    quantile = ops.quantile
    nanquantile = ops.nanquantile
    mode = ops.mode
    sum_to_size = ops.sum_to_size
    select_scatter = ops.select_scatter
    slice_scatter = ops.slice_scatter
    diagonal_scatter = ops.diagonal_scatter
    angle = ops.angle
    frexp = ops.frexp
    ldexp = ops.ldexp
    heaviside = ops.heaviside
    gcd = ops.gcd
    lcm = ops.lcm
    hardshrink = ops.hardshrink
    prelu = ops.prelu
    bincount = ops.bincount
    histogram = ops.histogram

    def cdouble(self):
        """This tensor as complex128 (ToCopyBackward0 when it requires grad)."""
        return ops.to(self, dtype=np.dtype(np.complex128))

    def cfloat(self):
        """This tensor as complex64."""
        return ops.to(self, dtype=np.dtype(np.complex64))

    isreal = ops.isreal
    renorm = ops.renorm
    renorm_ = ops.inplace_unary(ops.renorm)

    def is_conj(self):
        """False: the engine's conjugates are values, never a lazy flag."""
        return False

    def is_neg(self):
        """False: the engine never keeps a lazy negation."""
        return False

    def resolve_conj(self):
        """This tensor (its conjugate is never lazy here)."""
        return self

    def resolve_neg(self):
        """This tensor (its negation is never lazy here)."""
        return self

    def conj_physical(self):
        """The conjugate, as values (as ``conj`` is here)."""
        return ops.conj(self)

    def is_pinned(self, device=None):
        """False: there is no accelerator memory to pin for."""
        return False

    def pin_memory(self, device=None):
        """Refused as PyTorch refuses it on a machine without an accelerator."""
        raise RuntimeError("Cannot access accelerator device when none is available.")

    def is_shared(self):
        """Whether the values are in shared memory (``share_memory_``)."""
        return in_shared_memory(self._data)

    def share_memory_(self):
        """The values moved into an anonymous shared mapping, in place: processes forked after
        this (``torch.multiprocessing`` with the ``fork`` start method) read and write the same
        numbers, as PyTorch's shared tensors (Hogwild training). This tensor is returned."""
        if not in_shared_memory(self._data):
            if self._base is not None:
                raise NotImplementedError("share_memory_() of a view: share the tensor it is a view of first")
            values = self._data
            shared = np.frombuffer(mmap.mmap(-1, max(values.nbytes, 1)), dtype=values.dtype,
                                   count=values.size).reshape(values.shape)
            shared[...] = values
            self._data = shared
        return self

    narrow_copy = ops.narrow_copy
    nextafter = ops.nextafter

    def unsafe_chunk(self, chunks, dim=0):
        """``chunk``, as copies that are not views (UnsafeSplitBackward0)."""
        return tuple(ops.rename_node_of(ops.clone(piece), "UnsafeSplitBackward0") for piece in ops.chunk(self, chunks, dim))

    def unsafe_split(self, split_size, dim=0):
        """``split``, as copies that are not views (UnsafeSplitBackward0)."""
        return tuple(ops.rename_node_of(ops.clone(piece), "UnsafeSplitBackward0") for piece in ops.split(self, split_size, dim))

    def new(self, *args):
        """The legacy constructor in this tensor's dtype: ``x.new(2, 3)`` (zeros here, unset
        memory in PyTorch), ``x.new([1, 2])`` (that data), ``x.new()`` (empty)."""
        if args and all(isinstance(a, numbers.Integral) and not isinstance(a, bool) for a in args):
            return zeros(*args, dtype=self.dtype)
        if len(args) == 1 and isinstance(args[0], tuple) and all(isinstance(a, numbers.Integral) for a in args[0]):
            return zeros(*args[0], dtype=self.dtype)
        if len(args) > 1:
            raise TypeError("new() received an invalid combination of arguments")
        if args and isinstance(args[0], UntypedStorage):
            return Tensor._make(elements_of(args[0], self.dtype))      # sharing the storage's memory
        return tensor_factory(args[0] if args else [], dtype=self.dtype)

    set_ = ops.inplace.set_

    # -- more functions as methods (ops.numeric, ops.composites, ops.comparison) ----------------
    arccos, arccosh, arcsin, arcsinh = ops.acos, ops.acosh, ops.asin, ops.asinh
    arctan, arctanh = ops.atan, ops.atanh
    trunc = fix = ops.trunc
    frac = ops.frac
    exp2 = ops.exp2
    sgn = ops.sgn
    signbit = ops.signbit
    deg2rad = ops.deg2rad
    rad2deg = ops.rad2deg
    erfc = ops.erfc
    sinc = ops.sinc
    i0 = ops.i0
    igamma = ops.igamma
    igammac = ops.igammac
    logaddexp2 = ops.logaddexp2
    fmax = ops.fmax
    fmin = ops.fmin
    copysign = ops.copysign
    float_power = ops.float_power
    floor_divide = ops.floor_divide
    nansum = ops.nansum
    nanmean = ops.nanmean
    kthvalue = ops.kthvalue
    aminmax = ops.aminmax
    logcumsumexp = ops.logcumsumexp
    cov = ops.cov
    corrcoef = ops.corrcoef
    vdot = ops.vdot
    rot90 = ops.rot90
    take_along_dim = ops.take_along_dim
    fliplr = ops.fliplr
    flipud = ops.flipud
    hsplit = ops.hsplit
    vsplit = ops.vsplit
    dsplit = ops.dsplit
    split_with_sizes = ops.split_with_sizes
    msort = ops.msort
    select = ops.select
    swapdims = ops.swapdims
    ravel = ops.ravel
    positive = ops.positive
    diagflat = ops.diagflat
    count_nonzero = ops.count_nonzero
    subtract = ops.sub
    allclose = ops.allclose

    def where(self, condition, other):
        """``self`` where ``condition`` holds, else ``other`` (``torch.where(condition, self, other)``)."""
        return ops.where(condition, self, other)

    def is_floating_point(self):
        return self.dtype.kind == "f"

    def is_complex(self):
        return self.dtype.kind == "c"

    def is_signed(self):
        return self.dtype.kind in "fic"

    def is_nonzero(self):
        """The truth of a one-element tensor."""
        if self.numel() != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous" if self.numel() else
                               "Boolean value of Tensor with no values is ambiguous")
        return bool(self._data.reshape(()))

    def is_same_size(self, other):
        return tuple(self.shape) == tuple(other.shape)

    def nelement(self):
        return self.numel()

    def ndimension(self):
        return self.ndim

    def get_device(self):
        """-1: the CPU."""
        return -1

    @property
    def output_nr(self):
        return self._output_nr

    def is_inference(self):
        return False

    # -- in place: the op on the current value, written back ------------------------------------
    absolute_ = ops.inplace_unary(ops.abs)
    acos_ = arccos_ = ops.inplace_unary(ops.acos)
    acosh_ = arccosh_ = ops.inplace_unary(ops.acosh)
    asin_ = arcsin_ = ops.inplace_unary(ops.asin)
    asinh_ = arcsinh_ = ops.inplace_unary(ops.asinh)
    atan_ = arctan_ = ops.inplace_unary(ops.atan)
    atanh_ = arctanh_ = ops.inplace_unary(ops.atanh)
    atan2_ = arctan2_ = ops.inplace_unary(ops.atan2)
    cosh_ = ops.inplace_unary(ops.cosh)
    sinh_ = ops.inplace_unary(ops.sinh)
    tan_ = ops.inplace_unary(ops.tan)
    ceil_ = ops.inplace_unary(ops.ceil)
    floor_ = ops.inplace_unary(ops.floor)
    round_ = ops.inplace_unary(ops.round)
    trunc_ = fix_ = ops.inplace_unary(ops.trunc)
    frac_ = ops.inplace_unary(ops.frac)
    sign_ = ops.inplace_unary(ops.sign)
    sgn_ = ops.inplace_unary(ops.sgn)
    erf_ = ops.inplace_unary(ops.erf)
    erfc_ = ops.inplace_unary(ops.erfc)
    i0_ = ops.inplace_unary(ops.i0)
    igamma_ = ops.inplace_unary(ops.igamma)
    igammac_ = ops.inplace_unary(ops.igammac)
    exp2_ = ops.inplace_unary(ops.exp2)
    expm1_ = ops.inplace_unary(ops.expm1)
    log1p_ = ops.inplace_unary(ops.log1p)
    log2_ = ops.inplace_unary(ops.log2)
    log10_ = ops.inplace_unary(ops.log10)
    rsqrt_ = ops.inplace_unary(ops.rsqrt)
    reciprocal_ = ops.inplace_unary(ops.reciprocal)
    square_ = ops.inplace_unary(ops.square)
    negative_ = ops.inplace_unary(__neg__)
    logit_ = ops.inplace_unary(ops.logit)
    nan_to_num_ = ops.inplace_unary(ops.nan_to_num)
    deg2rad_ = ops.inplace_unary(ops.deg2rad)
    rad2deg_ = ops.inplace_unary(ops.rad2deg)
    sinc_ = ops.inplace_unary(ops.sinc)
    clamp_min_ = ops.inplace_unary(ops.clamp_min)
    clamp_max_ = ops.inplace_unary(ops.clamp_max)
    clip_ = ops.inplace_unary(ops.clip)
    tril_ = ops.inplace_unary(ops.tril)
    triu_ = ops.inplace_unary(ops.triu)
    cumsum_ = ops.inplace_unary(ops.cumsum)
    cumprod_ = ops.inplace_unary(ops.cumprod)
    multiply_ = ops.inplace_unary(ops.mul)
    divide_ = true_divide_ = ops.inplace_unary(ops.div)
    subtract_ = ops.inplace_unary(ops.sub)
    remainder_ = ops.inplace_unary(ops.remainder)
    fmod_ = ops.inplace_unary(ops.fmod)
    hypot_ = ops.inplace_unary(ops.hypot)
    lerp_ = ops.inplace_unary(ops.lerp)
    xlogy_ = ops.inplace_unary(ops.xlogy)
    copysign_ = ops.inplace_unary(ops.copysign)
    float_power_ = ops.inplace_unary(ops.float_power)
    floor_divide_ = ops.inplace_unary(ops.floor_divide)
    addcmul_ = ops.inplace_unary(ops.addcmul)
    addcdiv_ = ops.inplace_unary(ops.addcdiv)
    addmm_ = ops.inplace_unary(ops.addmm)
    addmv_ = ops.inplace_unary(ops.addmv)
    addr_ = ops.inplace_unary(ops.addr)
    addbmm_ = ops.inplace_unary(ops.addbmm)
    baddbmm_ = ops.inplace_unary(ops.baddbmm)
    eq_ = ops.inplace_unary(ops.eq)
    ne_ = not_equal_ = ops.inplace_unary(ops.ne)
    lt_ = less_ = ops.inplace_unary(ops.lt)
    le_ = less_equal_ = ops.inplace_unary(ops.le)
    gt_ = greater_ = ops.inplace_unary(ops.gt)
    ge_ = greater_equal_ = ops.inplace_unary(ops.ge)
    logical_and_ = ops.inplace_unary(ops.logical_and)
    logical_or_ = ops.inplace_unary(ops.logical_or)
    logical_xor_ = ops.inplace_unary(ops.logical_xor)
    logical_not_ = ops.inplace_unary(ops.logical_not)
    bitwise_and_ = ops.inplace_unary(ops.bitwise_and)
    bitwise_or_ = ops.inplace_unary(ops.bitwise_or)
    bitwise_xor_ = ops.inplace_unary(ops.bitwise_xor)
    bitwise_not_ = ops.inplace_unary(ops.bitwise_not)
    bitwise_left_shift_ = ops.inplace_unary(ops.bitwise_left_shift)
    bitwise_right_shift_ = ops.inplace_unary(ops.bitwise_right_shift)
    transpose_ = swapaxes_ = swapdims_ = ops.inplace_view(ops.transpose, "TransposeBackward1")
    t_ = ops.inplace_view(ops.t, "TBackward1")
    unsqueeze_ = ops.inplace_view(ops.unsqueeze, "UnsqueezeBackward1")

    def squeeze_(self, dim=None):
        """``squeeze`` in place (SqueezeBackward3, or SqueezeBackward4 with ``dim``)."""
        if dim is None:
            return _SQUEEZE_ALL_(self)
        return _SQUEEZE_DIM_(self, dim)

    # -- reverse mode -----------------------------------------------------------------------
    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Compute the gradient of this tensor w.r.t. the graph leaves and add it to their ``.grad``.

        ``gradient`` is the vector v of the vector-Jacobian product vᵀJ; it may be omitted only
        for a one-element tensor (v = 1). See :func:`diffcompare.autograd.backward`.

        >>> from diffcompare import autograd as ag
        >>> x = ag.tensor([2.0, 3.0, 4.0], requires_grad=True)
        >>> (x ** 2).backward(ag.tensor([1.0, 0.1, 0.01]))
        >>> x.grad
        tensor([4.0000, 0.6000, 0.0800])
        """
        backpropagate(self, gradient, retain_graph, create_graph, inputs=inputs)


_SQUEEZE_ALL_ = ops.inplace_view(ops.squeeze, "SqueezeBackward3")
_SQUEEZE_DIM_ = ops.inplace_view(ops.squeeze, "SqueezeBackward4")

Tensor.__bases__ = (TensorOperators,)      # the operators take the place of Tensor's empty base
