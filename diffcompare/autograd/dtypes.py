"""dtype names as PyTorch spells them, so ``dtype=ag.float32`` or ``ag.double`` port as is.

The engine's default floating dtype is float64 (PyTorch's is float32): diffcompare compares
derivatives against an exact reference, where float64 is the natural baseline.
"""

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

DEFAULT_DTYPE = float64
