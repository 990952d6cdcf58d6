"""Every differentiable operation, by family: its forward on arrays and its vector-Jacobian
product side by side, one class per op named as PyTorch names the node (``MulBackward0``).

A node's ``backward(g, *saved)`` gets the incoming gradient ``g`` and the values named in
``saves`` (input positions, or ``RESULT`` for the output). It runs on NumPy arrays, or on
tensors when the gradient itself is being differentiated (``create_graph=True``); it is
written once for both, with operators, array/tensor methods common to both (``sum(axis=,
keepdims=)``, ``reshape``, ``swapaxes``, indexing) and the dual functions of ``D``
(:mod:`.dual`). It returns one gradient per input (``None`` where the input needs none).

The families: :mod:`.recording` (the ``Op`` base class, ``apply``, ``sum_to``),
:mod:`.arithmetic`, :mod:`.elementwise`, :mod:`.reductions`, :mod:`.linalg` (products),
:mod:`.matrices` (triangles, diagonals), :mod:`.decompositions` (det, inv, solve, cholesky),
:mod:`.einstein` (einsum), :mod:`.selection` (gather, sort, split),
:mod:`.pointwise` (lerp, xlogy, ...: beside the function table), :mod:`.shape`
(views, ``cat``, ``stack``), :mod:`.indexing`, :mod:`.inplace`, :mod:`.comparison`. Each
family names what it exports in its ``__all__``, and its torch-level functions (``ag.sin``,
``ag.cat``) in ``PUBLIC``; this package gathers both, so an op is added in its family alone.

>>> from diffcompare import autograd as ag
>>> x = ag.tensor(0.5, requires_grad=True)
>>> y = ag.sin(x) * x
>>> y.grad_fn.name(), [type(n).__name__ for n, _ in y.grad_fn.next_functions]
('MulBackward0', ['SinBackward0', 'AccumulateGrad'])
"""

from . import (arithmetic, comparison, decompositions, dual, einstein, elementwise, indexing, inplace, linalg, matrices, pointwise,
               recording, reductions, selection, shape)
from .dual import *  # noqa: F401,F403
from .recording import *  # noqa: F401,F403
from .arithmetic import *  # noqa: F401,F403
from .elementwise import *  # noqa: F401,F403
from .shape import *  # noqa: F401,F403
from .inplace import *  # noqa: F401,F403
from .indexing import *  # noqa: F401,F403
from .reductions import *  # noqa: F401,F403
from .linalg import *  # noqa: F401,F403
from .comparison import *  # noqa: F401,F403
from .matrices import *  # noqa: F401,F403
from .decompositions import *  # noqa: F401,F403
from .einstein import *  # noqa: F401,F403
from .selection import *  # noqa: F401,F403
from .pointwise import *  # noqa: F401,F403

# the torch-level functions, `diffcompare.autograd.<name>` as `torch.<name>`
PUBLIC = (*arithmetic.PUBLIC, *elementwise.PUBLIC, *shape.PUBLIC, *reductions.PUBLIC, *linalg.PUBLIC,
          *comparison.PUBLIC, *matrices.PUBLIC, *decompositions.PUBLIC,
          *einstein.PUBLIC, *selection.PUBLIC, *pointwise.PUBLIC)

__all__ = [*dual.__all__, *recording.__all__, *arithmetic.__all__, *elementwise.__all__, *shape.__all__,
           *inplace.__all__, *indexing.__all__, *reductions.__all__, *linalg.__all__, *comparison.__all__,
           *matrices.__all__, *decompositions.__all__, *einstein.__all__, *selection.__all__,
           *pointwise.__all__]
