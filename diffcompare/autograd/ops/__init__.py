"""Every differentiable operation, by family: its forward on arrays and its vector-Jacobian
product side by side, one class per op named as PyTorch names the node (``MulBackward0``).

A node's ``backward(g, *saved)`` gets the incoming gradient ``g`` and the values named in
``saves`` (input positions, or ``RESULT`` for the output). It runs on NumPy arrays, or on
tensors when the gradient itself is being differentiated (``create_graph=True``); it is
written once for both, with operators, array/tensor methods common to both (``sum(axis=,
keepdims=)``, ``reshape``, ``swapaxes``, indexing) and the dual functions of ``D``
(:mod:`.dual`). It returns one gradient per input (``None`` where the input needs none).

The families: :mod:`.recording` (the ``Op`` base class, ``apply``, ``sum_to``),
:mod:`.arithmetic`, :mod:`.elementwise`, :mod:`.reductions`, :mod:`.linalg`, :mod:`.shape`
(views, ``cat``, ``stack``), :mod:`.indexing`, :mod:`.inplace`, :mod:`.comparison`.

>>> from diffcompare import autograd as ag
>>> x = ag.tensor(0.5, requires_grad=True)
>>> y = ag.sin(x) * x
>>> y.grad_fn.name(), [type(n).__name__ for n, _ in y.grad_fn.next_functions]
('MulBackward0', ['SinBackward0', 'AccumulateGrad'])
"""

from .dual import (D)  # noqa: F401
from .recording import (Op, RESULT, apply, array_of, check_dim, sum_to)  # noqa: F401
from .arithmetic import (AddBackward0, DivBackward0, MulBackward0, MulScalarBackward, NegBackward0,
                         PowBackward0, PowBackward1, PowBackward2, RsubBackward1, SubBackward0, pow, square)  # noqa: F401
from .elementwise import (AbsBackward0, AcosBackward0, AcoshBackward0, AsinBackward0, AsinhBackward0,
                          Atan2Backward0, AtanBackward0, AtanhBackward0, CbrtBackward0, CeilBackward0,
                          ClampBackward0, ClampBackward1, ConjBackward0, CosBackward0, CoshBackward0, ELEMENTWISE,
                          ImagBackward0, RealBackward0, conj, imag, real,
                          ErfBackward0, ExpBackward0, Expm1Backward0, FloorBackward0, HypotBackward0,
                          Log10Backward0, Log1PBackward0, Log2Backward0, LogBackward0, MaximumBackward0,
                          MinimumBackward0, OP_CLASSES, R, ReciprocalBackward0, ReluBackward0, RoundBackward0,
                          RsqrtBackward0, SigmoidBackward0, SignBackward0, SinBackward0, SinhBackward0,
                          SoftplusBackward0, SqrtBackward0, TanBackward0, TanhBackward0, WhereBackward0, X, abs,
                          acos, acosh, asin, asinh, atan, atan2, atanh, cbrt, ceil, clamp, clip, cos, cosh, erf,
                          exp, expm1, floor, hypot, log, log10, log1p, log2, maximum, minimum, reciprocal, relu,
                          round, rsqrt, sigmoid, sign, sin, sinh, softplus, sqrt, tan, tanh, where)  # noqa: F401
from .shape import (CatBackward0, CloneBackward0, ExpandBackward0, PermuteBackward0, SqueezeBackward0,
                    SqueezeBackward1, StackBackward0, TBackward0, ToCopyBackward0, TransposeBackward0,
                    UnsqueezeBackward0, ViewBackward0, cat, clone, concatenate, contiguous, expand, expand_as,
                    flatten, moveaxis, permute, record_view, reshape, squeeze, stack, swapaxes, t, to,
                    transpose, unsqueeze, view)  # noqa: F401
from .inplace import (CopyBackwards, CopySlicesView, LEAF_INPLACE_ERROR, VIEW_OF_LEAF_INPLACE_ERROR, copy_,
                      fill_, inplace_binary, inplace_unary, write_in_place, zero_)  # noqa: F401
from .indexing import (CopySlices, IndexBackward0, IndexPutBackward0, IndexPutBackward0Setitem, SelectBackward0,
                       SliceBackward0, getitem, index_add_zeros, setitem)  # noqa: F401
from .reductions import (AmaxBackward0, AminBackward0, CumsumBackward0, LinalgVectorNormBackward0,
                         LogSoftmaxBackward0, LogsumexpBackward0, MaxBackward0, MaxBackward1, MaxResult,
                         MeanBackward0, MeanBackward1, MinBackward0, MinBackward1, NllLossBackward0,
                         ProdBackward0, ProdBackward1, SoftmaxBackward0, StdBackward0, SumBackward0,
                         SumBackward1, VarBackward0, amax, amin, cumsum, log_softmax, logsumexp, max, mean, min,
                         nll_loss, norm, prod, softmax, std, sum, var)  # noqa: F401
from .linalg import (DotBackward0, MatmulBackward0, MmBackward0, MvBackward0, SqueezeBackward4, dot, matmul, mm,
                     mv)  # noqa: F401
from .comparison import (allclose, argmax, argmin, eq, ge, gt, isfinite, isnan, le, lt, ne)  # noqa: F401

__all__ = ['AbsBackward0', 'AcosBackward0', 'AcoshBackward0', 'AddBackward0', 'AmaxBackward0', 'AminBackward0',
           'AsinBackward0', 'AsinhBackward0', 'Atan2Backward0', 'AtanBackward0', 'AtanhBackward0',
           'CatBackward0', 'CbrtBackward0', 'CeilBackward0', 'ClampBackward0', 'ClampBackward1', 'ConjBackward0', 'ImagBackward0', 'RealBackward0', 'conj', 'imag', 'real',
           'CloneBackward0', 'CopyBackwards', 'CopySlices', 'CopySlicesView', 'CosBackward0', 'CoshBackward0',
           'CumsumBackward0', 'D', 'DivBackward0', 'DotBackward0', 'ELEMENTWISE', 'ErfBackward0',
           'ExpBackward0', 'ExpandBackward0', 'Expm1Backward0', 'FloorBackward0', 'HypotBackward0',
           'IndexBackward0', 'IndexPutBackward0', 'IndexPutBackward0Setitem', 'LEAF_INPLACE_ERROR',
           'LinalgVectorNormBackward0', 'Log10Backward0', 'Log1PBackward0', 'Log2Backward0', 'LogBackward0',
           'LogSoftmaxBackward0', 'LogsumexpBackward0', 'MatmulBackward0', 'MaxBackward0', 'MaxBackward1',
           'MaxResult', 'MaximumBackward0', 'MeanBackward0', 'MeanBackward1', 'MinBackward0', 'MinBackward1',
           'MinimumBackward0', 'MmBackward0', 'MulBackward0', 'MulScalarBackward', 'MvBackward0',
           'NegBackward0', 'NllLossBackward0', 'OP_CLASSES', 'Op', 'PermuteBackward0', 'PowBackward0',
           'PowBackward1', 'PowBackward2', 'ProdBackward0', 'ProdBackward1', 'R', 'RESULT',
           'ReciprocalBackward0', 'ReluBackward0', 'RoundBackward0', 'RsqrtBackward0', 'RsubBackward1',
           'SelectBackward0', 'SigmoidBackward0', 'SignBackward0', 'SinBackward0', 'SinhBackward0',
           'SliceBackward0', 'SoftmaxBackward0', 'SoftplusBackward0', 'SqrtBackward0', 'SqueezeBackward0',
           'SqueezeBackward1', 'SqueezeBackward4', 'StackBackward0', 'StdBackward0', 'SubBackward0',
           'SumBackward0', 'SumBackward1', 'TBackward0', 'TanBackward0', 'TanhBackward0', 'ToCopyBackward0',
           'TransposeBackward0', 'UnsqueezeBackward0', 'VIEW_OF_LEAF_INPLACE_ERROR', 'VarBackward0',
           'ViewBackward0', 'WhereBackward0', 'X', 'abs', 'acos', 'acosh', 'allclose', 'amax', 'amin', 'apply',
           'argmax', 'argmin', 'array_of', 'asin', 'asinh', 'atan', 'atan2', 'atanh', 'cat', 'cbrt', 'ceil',
           'check_dim', 'clamp', 'clip', 'clone', 'concatenate', 'contiguous', 'copy_', 'cos', 'cosh', 'cumsum',
           'dot', 'eq', 'erf', 'exp', 'expand', 'expand_as', 'expm1', 'fill_', 'flatten', 'floor', 'ge',
           'getitem', 'gt', 'hypot', 'index_add_zeros', 'inplace_binary', 'inplace_unary', 'isfinite', 'isnan',
           'le', 'log', 'log10', 'log1p', 'log2', 'log_softmax', 'logsumexp', 'lt', 'matmul', 'max', 'maximum',
           'mean', 'min', 'minimum', 'mm', 'moveaxis', 'mv', 'ne', 'nll_loss', 'norm', 'permute', 'pow', 'prod',
           'reciprocal', 'record_view', 'relu', 'reshape', 'round', 'rsqrt', 'setitem', 'sigmoid', 'sign',
           'sin', 'sinh', 'softmax', 'softplus', 'sqrt', 'square', 'squeeze', 'stack', 'std', 'sum', 'sum_to',
           'swapaxes', 't', 'tan', 'tanh', 'to', 'transpose', 'unsqueeze', 'var', 'view', 'where',
           'write_in_place', 'zero_']
