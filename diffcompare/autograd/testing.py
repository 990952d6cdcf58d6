"""``torch.testing.assert_close``: are two tensors (numbers, or sequences and mappings of them)
close, to tolerances set by their dtype, and if not, where and by how much.

Close means ``|actual - expected| <= atol + rtol * |expected|`` elementwise, with PyTorch's
default tolerances (float64: rtol = atol = 1e-7; float32: rtol 1.3e-6, atol 1e-5; float16:
1e-3 / 1e-5; integers and booleans: equal). The shapes and, unless ``check_dtype=False``,
the dtypes must match first. The failure says what PyTorch's says.

>>> from diffcompare import autograd as ag
>>> ag.testing.assert_close(ag.tensor([1.0, 2.0]), ag.tensor([1.0, 2.0 + 1e-9]))
>>> ag.testing.assert_close(ag.tensor([1.0, 2.0, 3.0]), ag.tensor([1.0, 2.5, 3.0]))
Traceback (most recent call last):
...
AssertionError: Tensor-likes are not close!
<BLANKLINE>
Mismatched elements: 1 / 3 (33.3%)
Greatest absolute difference: 0.5 at index (1,) (up to 1e-07 allowed)
Greatest relative difference: 0.2 at index (1,) (up to 1e-07 allowed)
"""

from __future__ import annotations

import collections.abc
import numbers
import warnings

import numpy as np

from .sample_tensors import make_tensor
from .tensor import Tensor, tensor as tensor_factory

_TOLERANCES = {np.dtype("float16"): (1e-3, 1e-5), np.dtype("float32"): (1.3e-6, 1e-5),
               np.dtype("float64"): (1e-7, 1e-7), np.dtype("complex64"): (1.3e-6, 1e-5),
               np.dtype("complex128"): (1e-7, 1e-7)}


# the deprecated assert_allclose's defaults (rtol, atol)
_ALLCLOSE_TOLERANCES = {np.dtype("float16"): (1e-3, 1e-3), np.dtype("float32"): (1e-4, 1e-5),
                        np.dtype("float64"): (1e-5, 1e-8)}


def _dtype_name(dtype) -> str:
    return f"torch.{np.dtype(dtype).name}" if np.dtype(dtype) != np.bool_ else "torch.bool"


def _shape_name(shape) -> str:
    return f"torch.Size([{', '.join(str(n) for n in shape)}])"


def _tolerances(dtype, rtol, atol):
    if (rtol is None) != (atol is None):
        raise ValueError(f"Both 'rtol' and 'atol' must be either specified or omitted, but got no "
                         f"{'rtol' if rtol is None else 'atol'}.")
    if rtol is not None:
        return float(rtol), float(atol)
    return _TOLERANCES.get(np.dtype(dtype), (0.0, 0.0))


def _fail(msg, default, path):
    if msg is not None:
        raise AssertionError(msg() if callable(msg) else msg)
    where = "".join(f"[{p!r}]" for p in path)
    raise AssertionError(default + (f"\n\nThe failure occurred for item {where}" if path else ""))


def _compare_arrays(actual, expected, rtol, atol, equal_nan, check_dtype, msg, path, scalars, names):
    if actual.shape != expected.shape:
        _fail(msg, f"The values for attribute 'shape' do not match: {_shape_name(actual.shape)} != "
                   f"{_shape_name(expected.shape)}.", path)
    if check_dtype and actual.dtype != expected.dtype:
        _fail(msg, f"The values for attribute 'dtype' do not match: {_dtype_name(actual.dtype)} != "
                   f"{_dtype_name(expected.dtype)}.", path)
    common = np.result_type(actual, expected)
    rtol, atol = _tolerances(common, rtol, atol)
    a, e = actual.astype(common), expected.astype(common)
    if common.kind == "b":
        a, e = a.astype(np.int64), e.astype(np.int64)
    with np.errstate(all="ignore"):
        close = np.isclose(a, e, rtol=rtol, atol=atol, equal_nan=equal_nan) if common.kind in "fc" else a == e
        if common.kind in "fc" and not equal_nan:
            close &= ~(np.isnan(a) | np.isnan(e))
            close |= (a == e) & ~np.isnan(a)
        if np.all(close):
            return
        diff = np.abs(a - e)
        if common.kind in "iub":
            diff = diff.astype(np.int64)
        rel = (diff / np.abs(e)) if common.kind in "fc" else (diff.astype(np.float32) / np.abs(e).astype(np.float32))
    exact = rtol == 0 and atol == 0
    kind = "equal" if exact else "close"
    if scalars:
        text = (f"{names} are not {kind}!\n\nExpected {e.item()} but got {a.item()}.\n"
                f"Absolute difference: {diff.item()}" + ("" if exact else f" (up to {atol} allowed)") + "\n"
                f"Relative difference: {rel.item()}" + ("" if exact else f" (up to {rtol} allowed)"))
    else:
        mismatched = int(np.sum(~close))
        flat_abs = np.where(np.isnan(diff), np.inf, diff).ravel() if diff.dtype.kind == "f" else diff.ravel()
        flat_rel = np.where(np.isnan(rel), np.inf, rel).ravel()
        i_abs = np.unravel_index(int(np.argmax(flat_abs)), a.shape)
        i_rel = np.unravel_index(int(np.argmax(flat_rel)), a.shape)
        text = (f"{names} are not {kind}!\n\nMismatched elements: {mismatched} / {a.size} "
                f"({100 * mismatched / a.size:.1f}%)\n"
                f"Greatest absolute difference: {diff[i_abs].item()} at index {tuple(int(i) for i in i_abs)}"
                + ("" if exact else f" (up to {atol} allowed)") + "\n"
                f"Greatest relative difference: {rel[i_rel].item()} at index {tuple(int(i) for i in i_rel)}"
                + ("" if exact else f" (up to {rtol} allowed)"))
    _fail(msg, text, path)


def _is_tensor_like(x) -> bool:
    return isinstance(x, (Tensor, np.ndarray))


def _walk(actual, expected, path, kw):
    if _is_tensor_like(actual) or _is_tensor_like(expected):
        if type(actual) is not type(expected) and not (isinstance(actual, Tensor) and isinstance(expected, Tensor)):
            raise TypeError(f"No comparison pair was able to handle inputs of type {type(actual)} and "
                            f"{type(expected)}.")
        a = actual.detach()._data if isinstance(actual, Tensor) else actual
        e = expected.detach()._data if isinstance(expected, Tensor) else expected
        scalars = a.ndim == 0 and e.ndim == 0
        _compare_arrays(np.asarray(a), np.asarray(e), names="Scalars" if scalars else "Tensor-likes",
                        scalars=scalars, path=path, **kw)
        return
    if isinstance(actual, numbers.Number) and isinstance(expected, numbers.Number):
        if type(actual) is not type(expected) and kw["check_dtype"]:
            _fail(kw["msg"], f"The values for attribute 'type' do not match: {type(actual)} != {type(expected)}.",
                  path)
        _compare_arrays(np.asarray(actual), np.asarray(expected), names="Scalars", scalars=True, path=path,
                        **dict(kw, check_dtype=False))
        return
    if isinstance(actual, collections.abc.Mapping) and isinstance(expected, collections.abc.Mapping):
        if set(actual) != set(expected):
            _fail(kw["msg"], f"The keys of the mappings do not match:\nMissing keys in the actual mapping: "
                             f"{sorted(set(expected) - set(actual), key=str)}\nAdditional keys in the actual mapping: "
                             f"{sorted(set(actual) - set(expected), key=str)}", path)
        for key in expected:
            _walk(actual[key], expected[key], path + [key], kw)
        return
    if isinstance(actual, collections.abc.Sequence) and isinstance(expected, collections.abc.Sequence) \
            and not isinstance(actual, str) and not isinstance(expected, str):
        if len(actual) != len(expected):
            _fail(kw["msg"], f"The length of the sequences mismatch: {len(actual)} != {len(expected)}", path)
        for i, (a, e) in enumerate(zip(actual, expected)):
            _walk(a, e, path + [i], kw)
        return
    raise TypeError(f"No comparison pair was able to handle inputs of type {type(actual)} and {type(expected)}.")


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None, equal_nan=False,
                 check_device=True, check_dtype=True, check_layout=True, check_stride=False, msg=None):
    """Raise ``AssertionError`` unless ``actual`` and ``expected`` are close (see the module)."""
    _walk(actual, expected, [], dict(rtol=rtol, atol=atol, equal_nan=equal_nan, check_dtype=check_dtype, msg=msg))


def assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg=""):
    """PyTorch's deprecated ``assert_allclose``: ``assert_close`` without the dtype check, NaNs
    equal by default, and the looser of the two inputs' default tolerances, its own
    (float64: rtol 1e-5, atol 1e-8; float32: 1e-4 and 1e-5; float16: 1e-3 and 1e-3).

    >>> import warnings
    >>> from diffcompare import autograd as ag
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     ag.testing.assert_allclose(ag.tensor([1.0], dtype=ag.float32), [1.0 + 1e-7])
    """
    warnings.warn("`torch.testing.assert_allclose()` is deprecated since 1.12 and will be removed in a future release. "
                  "Please use `torch.testing.assert_close()` instead. You can find detailed upgrade instructions in "
                  "https://github.com/pytorch/pytorch/issues/61844.", FutureWarning, stacklevel=2)
    if not isinstance(actual, Tensor):
        actual = tensor_factory(actual)
    if not isinstance(expected, Tensor):
        expected = tensor_factory(expected, dtype=actual.dtype)
    if rtol is None and atol is None:     # (its own defaults, looser than assert_close's)
        (rtol_a, atol_a), (rtol_e, atol_e) = (_ALLCLOSE_TOLERANCES.get(np.dtype(t.dtype), (0.0, 0.0))
                                              for t in (actual, expected))
        rtol, atol = max(rtol_a, rtol_e), max(atol_a, atol_e)
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan, check_dtype=False, msg=msg or None)


__all__ = ["assert_allclose", "assert_close", "make_tensor"]
