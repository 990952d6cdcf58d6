"""dtype names as PyTorch spells them, so ``dtype=ag.float32`` or ``ag.double`` port as is.

The engine's default floating dtype is float64 (PyTorch's is float32): diffcompare compares
derivatives against an exact reference, where float64 is the natural baseline.
"""

import builtins

import numpy as np

float64 = double = np.dtype("float64")
float32 = float = np.dtype("float32")  # noqa: A001 - PyTorch's name
float16 = half = np.dtype("float16")
int64 = long = np.dtype("int64")
int32 = int = np.dtype("int32")  # noqa: A001 - PyTorch's name
bool = np.dtype("bool")  # noqa: A001 - PyTorch's name
complex128 = cdouble = np.dtype("complex128")
complex64 = cfloat = np.dtype("complex64")

DEFAULT_DTYPE = float64


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


def get_default_dtype():
    """The dtype factories give floating tensors: float64 (``torch.get_default_dtype``).

    >>> from diffcompare import autograd as ag
    >>> ag.get_default_dtype()
    dtype('float64')
    """
    return DEFAULT_DTYPE


def set_default_dtype(d):
    """``torch.set_default_dtype``: the engine computes in float64 by default and that default
    is fixed, so float64 is accepted (scientific code sets it) and any other floating dtype is
    refused with the way to get it (``dtype=`` on the factories, ``.float()``).

    >>> from diffcompare import autograd as ag
    >>> ag.set_default_dtype(ag.float64)
    >>> ag.set_default_dtype(ag.float32)
    Traceback (most recent call last):
    ...
    NotImplementedError: the engine's default dtype is float64 and cannot be changed to float32: pass dtype=torch.float32 to the factories, or convert with .float()
    """
    if isinstance(d, UnsupportedDtype):
        d.dtype
    if not isinstance(d, (np.dtype, type)) or d is builtins.bool:
        raise TypeError("invalid dtype object: only floating-point types are supported as the default type")
    d = np.dtype(d)
    if d.kind != "f":
        raise TypeError("only floating-point types are supported as the default type")
    if d != DEFAULT_DTYPE:
        raise NotImplementedError(
            f"the engine's default dtype is float64 and cannot be changed to {d}: pass dtype=torch.{d} to the "
            f"factories, or convert with .{'float' if d == float32 else 'to(torch.' + str(d) + ')'}()")
