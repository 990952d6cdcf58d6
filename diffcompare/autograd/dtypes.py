"""dtype names as PyTorch spells them, so ``dtype=ag.float32`` or ``ag.double`` port as is.

The engine's default floating dtype is float64 (PyTorch's is float32): diffcompare compares
derivatives against an exact reference, where float64 is the natural baseline.
``set_default_dtype`` changes it, as in PyTorch (``default_dtype()`` is the one place it is read).
"""

import builtins

import numpy as np

float64 = double = np.dtype("float64")
float32 = float = np.dtype("float32")  # noqa: A001 - PyTorch's name
float16 = half = np.dtype("float16")
int64 = long = np.dtype("int64")
int32 = int = np.dtype("int32")  # noqa: A001 - PyTorch's name
int16 = short = np.dtype("int16")
int8 = np.dtype("int8")
uint8 = np.dtype("uint8")
uint16, uint32, uint64 = np.dtype("uint16"), np.dtype("uint32"), np.dtype("uint64")
bool = np.dtype("bool")  # noqa: A001 - PyTorch's name
complex128 = cdouble = np.dtype("complex128")
complex64 = cfloat = np.dtype("complex64")




def round_to_bfloat16(values):
    """``values`` rounded as PyTorch rounds them to bfloat16 (to float32 first, then to the
    nearest 8-bit mantissa, ties to even; NaN kept), held in float32, for code PyTorch runs in
    bfloat16 (Muon's orthogonalisation) that the engine emulates.

    >>> round_to_bfloat16(np.array([1.0 + 2 ** -8, 1.0 + 3 * 2 ** -8, 3.14159])).tolist()
    [1.0, 1.015625, 3.140625]
    """
    f = np.ascontiguousarray(values, dtype=np.float32)
    bits = f.view(np.uint32)
    rounded = ((bits + (((bits >> 16) & np.uint32(1)) + np.uint32(0x7FFF))) & np.uint32(0xFFFF0000)).view(np.float32)
    return np.where(np.isnan(f), f, rounded)


class UnsupportedDtype:
    """A PyTorch dtype NumPy has no counterpart of (``torch.bfloat16``): the name exists, so code
    that only mentions it (a table of dtypes by name) runs; making a tensor of it says why not.

    >>> import numpy as np
    >>> from diffcompare import autograd as ag
    >>> np.zeros(2, dtype=ag.bfloat16)
    Traceback (most recent call last):
    ...
    TypeError: torch.bfloat16 is not supported: NumPy, which holds the engine's tensors, has no bfloat16 (use torch.float32 or torch.float64)
    """

    def __init__(self, name, itemsize, is_floating_point):
        self.name, self.itemsize, self.is_floating_point = name, itemsize, is_floating_point

    def __repr__(self):
        return f"torch.{self.name}"

    @property
    def dtype(self):                # what np.dtype(...) reads: the one place a use of it lands
        raise TypeError(f"torch.{self.name} is not supported: NumPy, which holds the engine's tensors, has no "
                        f"{self.name} (use torch.float32 or torch.float64)")


bfloat16 = UnsupportedDtype("bfloat16", 2, True)


class _TorchName:
    """A value PyTorch names ``torch.<name>`` (a memory format, a layout): its name, printed so."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"torch.{self.name}"


class memory_format(_TorchName):
    """``torch.memory_format``: a layout name a ``memory_format=`` argument takes. The engine's
    arrays are row-major (``contiguous_format``); the names exist so that code passing them runs.

    >>> from diffcompare import autograd as ag
    >>> ag.contiguous_format, ag.ones(2).clone(memory_format=ag.contiguous_format)
    (torch.contiguous_format, tensor([1., 1.]))
    """


class layout(_TorchName):
    """``torch.layout``: how a tensor's elements are stored. The engine's tensors are dense
    (``strided``); the sparse layouts are named so that code can compare against them.

    >>> from diffcompare import autograd as ag
    >>> ag.zeros(2, layout=ag.strided).layout
    torch.strided
    """


strided = layout("strided")
sparse_coo = layout("sparse_coo")
sparse_csr = layout("sparse_csr")

contiguous_format = memory_format("contiguous_format")
preserve_format = memory_format("preserve_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")


_DEFAULT = [float64]      # the default floating dtype (set_default_dtype changes it)
DEFAULT_DTYPE = _DEFAULT    # the list the default lives in, for hot paths that test it without a call


# PyTorch's categories of dtypes, lowest first: a dtype of a higher one wins a promotion as it is
CATEGORY = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}


def promote_types(type1, type2):
    """The smallest dtype both promote to, as PyTorch promotes: a dtype of a higher category
    (bool, integer, floating, complex) wins as it is (int64 and float32 give float32, where
    NumPy gives float64); complex and floating give the complex of the wider precision.

    >>> promote_types(np.int64, np.float32), promote_types(np.complex64, np.float64)
    (dtype('float32'), dtype('complex128'))
    """
    a, b = np.dtype(type1), np.dtype(type2)
    if CATEGORY[a.kind] != CATEGORY[b.kind]:
        high, low = (a, b) if CATEGORY[a.kind] > CATEGORY[b.kind] else (b, a)
        if high.kind == "c" and low.kind == "f":
            return np.promote_types(high, low)
        return high
    return np.promote_types(a, b)


def default_dtype():
    """The dtype floating tensors get when none is asked for: float64 unless
    :func:`set_default_dtype` changed it."""
    return _DEFAULT[0]


def default_complex():
    """The dtype complex tensors get when none is asked for: complex128 with a float64 default,
    complex64 with float32 or float16 (as PyTorch pairs them)."""
    return complex128 if _DEFAULT[0] == float64 else complex64


def get_default_dtype():
    """The dtype factories give floating tensors (``torch.get_default_dtype``): float64 unless
    :func:`set_default_dtype` changed it (PyTorch's own default is float32).

    >>> from diffcompare import autograd as ag
    >>> ag.get_default_dtype()
    dtype('float64')
    """
    return _DEFAULT[0]


def set_default_dtype(d):
    """``torch.set_default_dtype``: the dtype of floating tensors made without one — from Python
    numbers, by the factories, a module's parameters — and, paired with it, of complex ones.
    Arrays keep their own dtype (``tensor(np.array(...))``), as in PyTorch.

    >>> from diffcompare import autograd as ag
    >>> ag.set_default_dtype(ag.float32)
    >>> ag.tensor([1.0, 2.0]).dtype, ag.zeros(2).dtype, ag.tensor([1, 2]).dtype
    (dtype('float32'), dtype('float32'), dtype('int64'))
    >>> ag.set_default_dtype(ag.float64)
    """
    if isinstance(d, UnsupportedDtype):
        d.dtype
    if not isinstance(d, (np.dtype, type)) or d is builtins.bool:
        raise TypeError("invalid dtype object: only floating-point types are supported as the default type")
    d = np.dtype(d)
    if d.kind != "f":
        raise TypeError("only floating-point types are supported as the default type")
    _DEFAULT[0] = d


# PyTorch's two spellings of a dtype in its error messages: the ScalarType's ("Double",
# "expected scalar type Float but found Double") and the C++ type's ("double", "long int":
# "expected m1 and m2 to have the same dtype, but got: float != long int")
_SCALAR_TYPE_NAMES = {"float64": "Double", "float32": "Float", "float16": "Half", "int64": "Long", "int32": "Int",
                      "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool",
                      "complex128": "ComplexDouble", "complex64": "ComplexFloat"}
_CPP_TYPE_NAMES = {"float64": "double", "float32": "float", "float16": "c10::Half", "int64": "long int",
                   "int32": "int", "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
                   "bool": "bool", "complex128": "c10::complex<double>", "complex64": "c10::complex<float>"}


def scalar_type_name(dtype):
    """PyTorch's ScalarType name of ``dtype`` ('Double', 'Long', 'ComplexFloat').

    >>> scalar_type_name(np.float32), cpp_type_name(np.int64)
    ('Float', 'long int')
    """
    name = np.dtype(dtype).name
    return _SCALAR_TYPE_NAMES.get(name, name)


def legacy_type_name(dtype):
    """PyTorch's legacy name of a tensor type of ``dtype``, as ``Tensor.type()`` and its
    error messages print it ('torch.DoubleTensor', 'torch.LongTensor').

    >>> legacy_type_name(np.float64), legacy_type_name(np.bool_)
    ('torch.DoubleTensor', 'torch.BoolTensor')
    """
    name = np.dtype(dtype).name
    return f"torch.{_SCALAR_TYPE_NAMES[name]}Tensor" if name in _SCALAR_TYPE_NAMES else "torch.Tensor"


# the dtype of each legacy type name ("torch.DoubleTensor" -> float64), for Tensor.type(name)
LEGACY_TYPE_DTYPES = {f"torch.{name}Tensor": np.dtype(kind) for kind, name in _SCALAR_TYPE_NAMES.items()}


def cpp_type_name(dtype):
    """The C++ type's name PyTorch prints for ``dtype`` ('double', 'long int', 'c10::Half')."""
    name = np.dtype(dtype).name
    return _CPP_TYPE_NAMES.get(name, name)
