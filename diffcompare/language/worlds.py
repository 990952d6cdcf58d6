"""The worlds an expression or a function of the table can be evaluated in, by name.

The function table has a column for each of the first five; the single-precision worlds
read another column with single-precision numbers; PyTorch and JAX are worlds registered by
:mod:`diffcompare.language.torch_world` and :mod:`diffcompare.language.jax_world`.

>>> from diffcompare.language.worlds import COLUMN_OF, ENGINE_FLOAT32
>>> COLUMN_OF[ENGINE_FLOAT32]
'engine'
"""

NUMPY = "numpy"                      # float64 NumPy arrays and numbers
COMPLEX = "complex"                  # complex128, analytic forms (the complex step)
SYMPY = "sympy"                      # SymPy expressions
MPMATH = "mpmath"                    # mpmath numbers at any precision (the reference)
ENGINE = "engine"                    # diffcompare.autograd tensors
FLOAT32 = "float32"                  # NumPy in single precision, constants too
ENGINE_FLOAT32 = "engine-float32"    # engine tensors in single precision, constants too
TORCH = "torch"                      # PyTorch tensors (registered when used)
JAX = "jax"                          # JAX arrays, float64 (registered when used)

COLUMNS = (NUMPY, COMPLEX, SYMPY, MPMATH, ENGINE)       # the table's own columns
COLUMN_OF = {FLOAT32: NUMPY, ENGINE_FLOAT32: ENGINE}    # worlds that read another column
OBJECT_WORLDS = (SYMPY, MPMATH)                         # arrays of these hold Python objects
SINGLE_PRECISION = (FLOAT32, ENGINE_FLOAT32)
