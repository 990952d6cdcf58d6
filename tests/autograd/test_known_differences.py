"""Corners where the engine once gave other gradients than PyTorch 2.13, run on both and
compared: in-place fill_/zero_/copy_ cutting a non-leaf's history, and gradients (reverse
and forward mode) through NaN and infinities."""

from __future__ import annotations

import math

import numpy as np
import pytest

from diffcompare import autograd as ag

torch = pytest.importorskip("torch")
from differential import assert_same, leaf, on_both, tensor_array  # noqa: E402,F401

NAN, INF = math.nan, math.inf


def _both(program):
    """Run ``program(lib)`` on the engine and on PyTorch; compare every result it returns."""
    on_both(program, ag, torch, atol=0)


_leaf = leaf


# --- in-place writes cut the old history -------------------------------------------------

def _inplace(write):
    def program(lib):
        x = _leaf(lib, [1.0, 2.0])
        v = _leaf(lib, 3.0)
        z = _leaf(lib, [5.0, 6.0])
        y = x * 2
        write(lib, y, v, z)
        (y * x).sum().backward()
        return [x.grad, v.grad, z.grad, y.detach()]
    return program


@pytest.mark.parametrize("write", [
    lambda lib, y, v, z: y.fill_(3.0),
    lambda lib, y, v, z: y.zero_(),
    lambda lib, y, v, z: y.fill_(v),
    lambda lib, y, v, z: y.copy_(lib.tensor([5.0, 6.0], dtype=lib.float64)),
    lambda lib, y, v, z: y.copy_(z * z),
    lambda lib, y, v, z: y[0].fill_(7.0),
    lambda lib, y, v, z: y[1:].zero_(),
], ids=["fill", "zero", "fill_tensor", "copy_constant", "copy_graph", "fill_view", "zero_view"])
def test_inplace_write_cuts_history_as_in_torch(write):
    _both(_inplace(write))


@pytest.mark.parametrize("write, name", [
    (lambda y, v: y.fill_(3.0), "FillBackward2"),
    (lambda y, v: y.fill_(v), "FillBackward3"),
    (lambda y, v: y.zero_(), "ZeroBackward0"),
    (lambda y, v: y.copy_(v.expand(2)), "CopyBackwards"),
])
def test_inplace_write_node_names(write, name):
    for lib in (ag, torch):
        x, v = _leaf(lib, [1.0, 2.0]), _leaf(lib, 3.0)
        y = x * 2
        write(y, v)
        assert type(y.grad_fn).__name__ == name
        assert [type(n).__name__ for n, _ in y.grad_fn.next_functions][0] == "MulBackward0"


def test_fill_alone_gives_zero_gradient_not_none():
    def program(lib):
        x = _leaf(lib, [1.0, 2.0])
        y = x * 2
        y.fill_(3.0)
        y.sum().backward()
        return [x.grad]
    _both(program)


def test_fill_of_a_tensor_without_grad_records_nothing():
    for lib in (ag, torch):
        a = lib.zeros(2)
        a.fill_(1.0)
        assert a.grad_fn is None and not a.requires_grad


def test_fill_forward_mode_tangent():
    def program(lib):
        fw = lib.autograd.forward_ad
        with fw.dual_level():
            x = fw.make_dual(lib.tensor([1.0, 2.0], dtype=lib.float64), lib.tensor([1.0, 1.0], dtype=lib.float64))
            y = x * 2
            y.fill_(3.0)
            t1 = fw.unpack_dual(y * x).tangent
            v = fw.make_dual(lib.tensor(2.0, dtype=lib.float64), lib.tensor(5.0, dtype=lib.float64))
            w = x * 1
            w.fill_(v)
            t2 = fw.unpack_dual(w).tangent
        return [t1, t2]
    _both(program)


# --- gradients through NaN and infinities --------------------------------------------------

VALUES = [NAN, 0.0, -0.0, INF, -INF, 1.0, -1.0]


@pytest.mark.parametrize("fn", [
    lambda lib, x: lib.abs(x),
    lambda lib, x: lib.relu(x),
    lambda lib, x: lib.sign(x),
    lambda lib, x: lib.clamp(x, -0.5, 0.5),
    lambda lib, x: lib.clamp(x, min=0.0),
    lambda lib, x: lib.clamp(x, max=0.0),
    lambda lib, x: lib.clamp(x, min=NAN),
    lambda lib, x: lib.where(x > 0, x, 0 * x),
    lambda lib, x: lib.sqrt(x),
    lambda lib, x: x ** 0.5,
    lambda lib, x: x.max().reshape(1),
    lambda lib, x: x.min().reshape(1),
    lambda lib, x: x.amax().reshape(1),
    lambda lib, x: lib.nn.functional.softplus(x),
], ids=["abs", "relu", "sign", "clamp", "clamp_min", "clamp_max", "clamp_nan_bound", "where", "sqrt", "pow_half",
        "max", "min", "amax", "softplus"])
def test_unary_gradients_at_nan_and_inf(fn):
    def program(lib):
        x = _leaf(lib, VALUES)
        y = fn(lib, x)
        y.sum().backward()
        return [y.detach(), x.grad]
    _both(program)


@pytest.mark.parametrize("values", [[1.0, NAN, 2.0], [NAN, NAN, 2.0], [INF, INF, 1.0], [1.0, 3.0, 3.0]])
@pytest.mark.parametrize("which", ["max", "min", "amax", "amin"])
def test_full_reductions_share_among_nans(values, which):
    def program(lib):
        x = _leaf(lib, values)
        getattr(x, which)().backward()
        return [x.grad]
    _both(program)


A = [NAN, 1.0, NAN, INF, -INF, INF, 1.0, 2.0, 0.0]
B = [1.0, NAN, NAN, INF, -INF, 1.0, -INF, 2.0, -0.0]


@pytest.mark.parametrize("which", ["maximum", "minimum"])
def test_maximum_minimum_at_nan_and_inf(which):
    def program(lib):
        a, b = _leaf(lib, A), _leaf(lib, B)
        y = getattr(lib, which)(a, b)
        y.sum().backward()
        grads = [y.detach(), a.grad, b.grad]
        a2 = _leaf(lib, A)     # one side only
        getattr(lib, which)(a2, lib.tensor(B, dtype=lib.float64)).sum().backward()
        return grads + [a2.grad]
    _both(program)


def test_clamp_tensor_bounds_with_nans():
    x = [NAN, 0.0, 1.0, 5.0, NAN, 2.0, -1.0, NAN]
    lo = [0.0, NAN, 0.0, 0.0, NAN, 3.0, 0.0, INF]
    hi = [1.0, 1.0, NAN, 1.0, 1.0, 1.0, NAN, -INF]

    def program(lib):
        ts = [_leaf(lib, v) for v in (x, lo, hi)]
        y = lib.clamp(*ts)
        y.sum().backward()
        one = [_leaf(lib, v) for v in (x, lo)]
        lib.clamp(one[0], min=one[1]).sum().backward()
        two = [_leaf(lib, v) for v in (x, hi)]
        lib.clamp(two[0], max=two[1]).sum().backward()
        return [y.detach()] + [t.grad for t in ts + one + two]
    _both(program)


def test_forward_mode_at_nan():
    a_values, b_values = [NAN, 1.0, NAN, 2.0, 1.0], [1.0, NAN, NAN, 2.0, 3.0]

    def program(lib):
        fw = lib.autograd.forward_ad
        out = []
        with fw.dual_level():
            def dual(values, t):
                return fw.make_dual(lib.tensor(values, dtype=lib.float64), lib.full((5,), t, dtype=lib.float64))
            a, b = dual(a_values, 1.0), dual(b_values, 10.0)
            for f in (lib.maximum, lib.minimum):
                out.append(fw.unpack_dual(f(a, b)).tangent)
                out.append(fw.unpack_dual(f(a, lib.tensor(b_values, dtype=lib.float64))).tangent)
            for f in (lib.relu, lib.abs, lambda v: v.max().reshape(1), lambda v: v.amax().reshape(1)):
                out.append(fw.unpack_dual(f(a)).tangent)
        return out
    _both(program)
