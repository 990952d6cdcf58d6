"""The public names of ``diffcompare.autograd``, of ``diffcompare.autograd.ops`` and of
``Tensor`` include every name they had before the export lists were derived from the op
families (the literals below were read from the package before that change: names are
added, never lost), and the derived lists hold together: every family's ``__all__`` names
something it defines, ``ops.__all__`` is their union with no name twice, and ``ops.PUBLIC``
is what ``diffcompare.autograd`` exports from ops.
"""

from __future__ import annotations

import inspect
import types

import pytest

from diffcompare import autograd as ag
from diffcompare.autograd import ops

FAMILIES = ops.FAMILIES

# the non-module public names of diffcompare.autograd
AUTOGRAD = frozenset("""
    AccumulateGrad Function FunctionCtx GradcheckError Node Tensor abs acos acosh allclose amax amin
    arange argmax argmin as_tensor asin asinh atan atan2 atanh backward bool cat cbrt cdouble ceil
    cfloat clamp clip clone complex128 complex64 concatenate conj cos cosh cumsum detect_anomaly dot
    double enable_grad erf exp expm1 eye flatten float float16 float32 float64 floor from_numpy full
    full_like grad gradcheck gradgradcheck half hypot imag int int32 int64 is_anomaly_check_nan_enabled
    is_anomaly_enabled is_grad_enabled is_tensor isfinite isnan linspace log log10 log1p log2
    log_softmax logsumexp long manual_seed matmul max maximum mean min minimum mm moveaxis mv no_grad
    norm ones ones_like permute pow prod rand randint randn real reciprocal relu reshape round rsqrt
    set_detect_anomaly set_grad_enabled sigmoid sign sin sinh softmax softplus sqrt square squeeze stack
    std sum t tan tanh tensor transpose unsqueeze var vmap where zeros zeros_like
""".split())

# ops.__all__
OPS = frozenset("""
    AbsBackward0 AcosBackward0 AcoshBackward0 AddBackward0 AmaxBackward0 AminBackward0 AsinBackward0
    AsinhBackward0 Atan2Backward0 AtanBackward0 AtanhBackward0 CatBackward0 CbrtBackward0 CeilBackward0
    ClampBackward0 ClampBackward1 CloneBackward0 ConjBackward0 CopyBackwards CopySlices CopySlicesView
    FillBackward2 FillBackward3 ZeroBackward0
    CosBackward0 CoshBackward0 CumsumBackward0 D DivBackward0 DotBackward0 ELEMENTWISE ErfBackward0
    ExpBackward0 ExpandBackward0 Expm1Backward0 FloorBackward0 HypotBackward0 ImagBackward0
    IndexBackward0 IndexPutBackward0 IndexPutBackward0Setitem LEAF_INPLACE_ERROR
    LinalgVectorNormBackward0 Log10Backward0 Log1PBackward0 Log2Backward0 LogBackward0
    LogSoftmaxBackward0 LogsumexpBackward0 MatmulBackward0 MaxBackward0 MaxBackward1 MaxResult
    MaximumBackward0 MeanBackward0 MeanBackward1 MinBackward0 MinBackward1 MinimumBackward0 MmBackward0
    MulBackward0 MulScalarBackward MvBackward0 NegBackward0 NllLossBackward0 OP_CLASSES Op
    PermuteBackward0 PowBackward0 PowBackward1 PowBackward2 ProdBackward0 ProdBackward1 R RESULT
    RealBackward0 ReciprocalBackward0 ReluBackward0 RoundBackward0 RsqrtBackward0 RsubBackward1
    SelectBackward0 SigmoidBackward0 SignBackward0 SinBackward0 SinhBackward0 SliceBackward0
    SoftmaxBackward0 SoftplusBackward0 SqrtBackward0 SqueezeBackward0 SqueezeBackward1 SqueezeBackward4
    StackBackward0 StdBackward0 SubBackward0 SumBackward0 SumBackward1 TBackward0 TanBackward0
    TanhBackward0 ToCopyBackward0 TransposeBackward0 UnsqueezeBackward0 VIEW_OF_LEAF_INPLACE_ERROR
    VarBackward0 ViewBackward0 WhereBackward0 X abs acos acosh allclose amax amin apply argmax argmin
    array_of asin asinh atan atan2 atanh cat cbrt ceil check_dim clamp clip clone concatenate conj
    contiguous copy_ cos cosh cumsum dot eq erf exp expand expand_as expm1 fill_ flatten floor ge
    getitem gt hypot imag index_add_zeros inplace_binary inplace_unary isfinite isnan le log log10 log1p
    log2 log_softmax logsumexp lt matmul max maximum mean min minimum mm moveaxis mv ne nll_loss norm
    permute pow prod real reciprocal record_view relu reshape round rsqrt setitem sigmoid sign sin sinh
    softmax softplus sqrt square squeeze stack std sum sum_to swapaxes t tan tanh to transpose unsqueeze
    var view where write_in_place zero_
""".split())

# Tensor's attributes: public ones and special methods
TENSOR = frozenset("""
    T __abs__ __add__ __array__ __array_ufunc__ __bool__ __class__ __delattr__ __dir__ __doc__ __eq__
    __float__ __format__ __ge__ __getattribute__ __getitem__ __getstate__ __gt__ __hash__ __iadd__
    __imul__ __index__ __init__ __init_subclass__ __int__ __ipow__ __isub__ __iter__ __itruediv__ __le__
    __len__ __lt__ __matmul__ __module__ __mul__ __ne__ __neg__ __new__ __pos__ __pow__ __radd__
    __reduce__ __reduce_ex__ __repr__ __rmatmul__ __rmul__ __rpow__ __rsub__ __rtruediv__ __setattr__
    __setitem__ __sizeof__ __slots__ __str__ __sub__ __subclasshook__ __truediv__ __weakref__ abs abs_
    absolute acos acosh add add_ amax amin arctan2 argmax argmin asin asinh atan atan2 atanh backward
    cbrt ceil clamp clamp_ clip clone conj contiguous copy_ cos cos_ cosh cpu cumsum data detach detach_
    dim div div_ dot double dtype eq erf exp exp_ expand expand_as expm1 fill_ flatten float floor ge
    grad grad_fn gt hypot imag is_leaf isfinite isnan item le log log10 log1p log2 log_ log_softmax
    logsumexp lt mT matmul max maximum mean min minimum mm moveaxis mul mul_ mv ndim ne neg neg_ norm
    numel numpy permute pow pow_ prod real reciprocal register_hook register_post_accumulate_grad_hook
    relu relu_ requires_grad requires_grad_ requires_grad_flag reshape reshape_as retain_grad
    retains_grad round rsqrt shape sigmoid sigmoid_ sign sin sin_ sinh size softmax softplus sqrt sqrt_
    square squeeze std sub sub_ sum swapaxes t tan tanh tanh_ to tolist transpose type_as unsqueeze var
    view view_as zero_
""".split())



def _public(module):
    """A module's public names: without a leading underscore, except PyTorch's own
    ``torch._foreach_*`` functions, which are public there under that name."""
    return {name for name in dir(module) if (not name.startswith("_") or name.startswith("_foreach_"))
            and not isinstance(getattr(module, name), types.ModuleType)}


def test_autograd_keeps_its_names():
    assert AUTOGRAD <= _public(ag)


def test_ops_keeps_its_names_each_exported_once():
    assert OPS <= set(ops.__all__)
    assert len(ops.__all__) == len(set(ops.__all__))          # no family exports a name another one does
    assert {name for name in _public(ops) if name not in ("PUBLIC", "FAMILIES")} == set(ops.__all__)


def test_tensor_keeps_its_attributes():
    mine = {n for n in dir(ag.Tensor) if not n.startswith("_") or (n.startswith("__") and n.endswith("__"))}
    assert TENSOR <= mine


@pytest.mark.parametrize("family", FAMILIES, ids=lambda m: m.__name__.rpartition(".")[2])
def test_a_family_exports_what_it_defines(family):
    for name in family.__all__:
        assert getattr(ops, name) is getattr(family, name)
    for name in getattr(family, "PUBLIC", ()):
        assert name in family.__all__ and callable(getattr(family, name))


def test_the_torch_level_functions_are_the_families_public_ones():
    public = [name for family in FAMILIES for name in getattr(family, "PUBLIC", ())]
    assert sorted(ops.PUBLIC) == sorted(public) and len(set(public)) == len(public)
    for name in ops.PUBLIC:     # the same function (wrapped to take NumPy's keyword names)
        assert inspect.unwrap(getattr(ag, name)) is getattr(ops, name)
    # the rest of the package's names come from its other modules, none from ops
    names = _public(ag)
    assert names - set(ops.PUBLIC) == {name for name in names if not hasattr(ops, name) or
                                       inspect.unwrap(getattr(ag, name)) is not getattr(ops, name)}
