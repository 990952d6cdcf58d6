"""Grad modes, hooks and anomaly detection (spec sections 3, 4 and 7)."""

import warnings

import numpy as np
import pytest

from diffcompare import autograd as ag


def vec(*values):
    return ag.tensor(list(values), requires_grad=True)


def test_no_grad_and_friends():
    x = vec(1.0, 2.0)
    with ag.no_grad():
        y = x * 2
        assert not ag.is_grad_enabled()
        with ag.enable_grad():
            z = x * 2
        ones = ag.ones(2, requires_grad=True)
    assert ag.is_grad_enabled()
    assert (y.requires_grad, y.is_leaf, y.grad_fn) == (False, True, None) and z.requires_grad
    assert ones.requires_grad and ones.is_leaf

    @ag.no_grad()
    def frozen(t):
        return t * 2
    assert not frozen(x).requires_grad and ag.is_grad_enabled()
    ag.set_grad_enabled(False)
    assert not (x * 2).requires_grad
    ag.set_grad_enabled(True)
    with ag.set_grad_enabled(False):
        assert not ag.is_grad_enabled()
    assert ag.is_grad_enabled()

    @ag.set_grad_enabled(False)
    def also_frozen(t):
        return t * 2
    assert ag.is_grad_enabled() and not also_frozen(x).requires_grad

    @ag.no_grad
    def without_parentheses(t):
        return t * 2
    assert not without_parentheses(x).requires_grad and ag.is_grad_enabled()


def test_no_grad_intermediate_is_a_constant():
    x = vec(1.0, 2.0)
    with ag.no_grad():
        y = x * 2
    (y * x).sum().backward()
    assert x.grad.tolist() == [2.0, 4.0]


def test_requires_grad_propagation():
    w, c = vec(1.0, 2.0), ag.tensor([1.0, 2.0])
    assert (w * c).requires_grad and not (c * c).requires_grad and not (w.detach() * c).requires_grad
    assert (w.sum() * 0).requires_grad and not ag.zeros_like(w).requires_grad and w.clone().requires_grad
    assert not (w > 1).requires_grad
    (w.sign() + w.floor()).sum().backward()
    assert w.grad.tolist() == [0.0, 0.0]
    with pytest.raises(RuntimeError, match="does not require grad"):
        (w > 1).double().sum().backward()


def test_hooks():
    x = vec(1.0, 2.0)
    y = x * 2
    y.register_hook(lambda g: g * 10)
    (y * y).sum().backward()
    assert x.grad.tolist() == [80.0, 160.0]       # 2y * 10 * 2
    x = vec(1.0, 2.0)
    x.register_hook(lambda g: g * 0 + 7)
    (x * x).sum().backward()
    assert x.grad.tolist() == [7.0, 7.0]
    seen = []
    x = vec(1.0, 2.0)
    y = x * 1
    y.register_hook(lambda g: seen.append(g.tolist()))
    (y * y + y * 3).sum().backward()
    assert seen == [[5.0, 7.0]]                   # once, with the sum 2y + 3
    x = vec(1.0, 2.0)
    y = x * 1
    y.register_hook(lambda g: g * 2)
    handle = y.register_hook(lambda g: g + 1)
    y.sum().backward(retain_graph=True)
    assert x.grad.tolist() == [3.0, 3.0]
    handle.remove()
    x.grad = None
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]


def test_hook_errors_and_retain_grad_order():
    y = vec(1.0, 2.0) * 1
    y.register_hook(lambda g: ag.ones(3))
    with pytest.raises(RuntimeError, match="hook '<lambda>' has changed the size of value"):
        y.sum().backward()
    with pytest.raises(RuntimeError, match="cannot register a hook on a tensor that doesn't require gradient"):
        ag.tensor([1.0]).register_hook(lambda g: g)
    x = vec(1.0, 2.0)
    y = x * 2
    y.retain_grad()
    y.register_hook(lambda g: g * 10)
    (y * y).sum().backward()
    assert y.grad.tolist() == [40.0, 80.0]
    with pytest.raises(RuntimeError, match="post accumulate grad hooks cannot be registered on non-leaf tensors"):
        y.register_post_accumulate_grad_hook(lambda t: None)
    x = vec(1.0, 2.0)
    seen = []
    x.register_post_accumulate_grad_hook(lambda t: seen.append(t.grad.tolist()))
    (x * 3).sum().backward()
    assert seen == [[3.0, 3.0]]


def test_anomaly_detection():
    x = ag.tensor([0.0, 1.0], requires_grad=True)
    (x.sqrt() * 0).sum().backward()
    assert np.isnan(x.grad.numpy()[0]) and x.grad.numpy()[1] == 0.0      # 0 * inf
    x = ag.tensor([0.0, 1.0], requires_grad=True)
    with pytest.warns(UserWarning, match="Anomaly Detection has been enabled"):
        with ag.detect_anomaly():
            y = (x.sqrt() * 0).sum()   # the line the warning must show
            with pytest.warns(UserWarning, match="Error detected in SqrtBackward0") as record:
                with pytest.raises(RuntimeError, match="^Function 'SqrtBackward0' returned nan values in its 0th output.$"):
                    y.backward()
    assert any("x.sqrt() * 0" in str(w.message) for w in record)
    assert not ag.is_anomaly_enabled()
    x, w = ag.tensor([float("nan"), 1.0], requires_grad=True), ag.tensor([1.0, 1.0], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with ag.detect_anomaly():
            with pytest.raises(RuntimeError, match="'MulBackward0' returned nan values in its 1th output"):
                (x * w).sum().backward()
        with ag.detect_anomaly(check_nan=False):
            x = ag.tensor([0.0, 1.0], requires_grad=True)
            (x.sqrt() * 0).sum().backward()
        with ag.detect_anomaly():
            x = ag.tensor([-1.0, 1.0], requires_grad=True)
            x.log().sum().backward()      # nan in the forward only: not an anomaly
            assert x.grad.tolist() == [-1.0, 1.0]


def test_set_detect_anomaly_and_inplace_hint():
    ag.set_detect_anomaly(True)
    try:
        assert ag.is_anomaly_enabled() and ag.is_anomaly_check_nan_enabled()
        x = ag.tensor([0.0, 1.0], requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(RuntimeError, match="LogBackward0"):
                ag.where(x > 0, x.log(), ag.zeros(2)).sum().backward()
            x = ag.tensor([1.0, 2.0], requires_grad=True)
            y = x.exp()
            z = y * 2
            y.add_(1)
            with pytest.raises(RuntimeError, match="Good luck!"):
                with pytest.warns(UserWarning, match="Error detected in ExpBackward0. Traceback of forward call") as w:
                    (z * y).sum().backward()
            assert any("y = x.exp()" in str(m.message) for m in w)
    finally:
        ag.set_detect_anomaly(False)
    assert not ag.is_anomaly_enabled()
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()                      # recorded outside anomaly mode: no forward trace
    y.add_(1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        with ag.detect_anomaly():
            pass
    ag.set_detect_anomaly(True)
    try:
        with pytest.warns(UserWarning, match="Error detected in ExpBackward0. No forward pass information available"):
            with pytest.raises(RuntimeError, match="modified by an inplace operation"):
                y.sum().backward()
    finally:
        ag.set_detect_anomaly(False)


def test_grad_fn_hooks_see_and_replace_what_pytorch_shows():
    # PyTorch 2.13, by hand: y = x * 3 records MulBackward0 with inputs (x, the 3); its
    # prehook sees grad_outputs (ones), its hook grad_inputs (3·ones, None)
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    seen = []
    y.grad_fn.register_prehook(lambda go: seen.append(("pre", [g.tolist() for g in go])))
    handle = y.grad_fn.register_hook(lambda gi, go: seen.append(("post", [None if g is None else g.tolist()
                                                                          for g in gi])))
    y.sum().backward(retain_graph=True)
    assert seen == [("pre", [[1.0, 1.0]]), ("post", [[3.0, 3.0], None])]
    handle.remove()
    y.grad_fn.register_hook(lambda gi, go: (gi[0] * 0 + 7, None))
    x.grad = None
    y.sum().backward(retain_graph=True)
    assert x.grad.tolist() == [7.0, 7.0]
    y.grad_fn.register_hook(lambda gi, go: (gi[0],))
    with pytest.raises(RuntimeError, match=r"has returned an incorrect number of values \(got 1, but expected 2\)"):
        y.sum().backward()
