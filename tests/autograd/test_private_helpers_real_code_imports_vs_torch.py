"""PyTorch's private helpers that published code imports all the same (SIREN's initialiser
takes ``torch.nn.init._calculate_correct_fan``; timm's took ``_no_grad_trunc_normal_``): the
same values and errors as PyTorch's, by hand and beside PyTorch where it is installed."""

from __future__ import annotations

import importlib
import math

import pytest

from engines import each


@each
def test_the_fan_of_a_weight_by_mode(T):
    init = importlib.import_module(T.__name__ + ".nn.init")
    conv = T.empty(4, 3, 5, 2)                   # out 4, in 3, a 5 x 2 kernel: fans 3·10 and 4·10
    assert init._calculate_correct_fan(conv, "fan_in") == 30
    assert init._calculate_correct_fan(conv, "FAN_OUT") == 40                  # lower-cased first
    assert init._calculate_fan_in_and_fan_out(T.empty(7, 2)) == (2, 7)
    with pytest.raises(ValueError, match=r"Mode fan not supported, please use one of \['fan_in', 'fan_out'\]"):
        init._calculate_correct_fan(conv, "fan")
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        init._calculate_correct_fan(T.empty(3), "fan_in")


@each
def test_siren_initialiser_bounds_from_the_private_fan(T):
    """SIREN's ``siren_uniform_``: uniform on ±sqrt(c / fan), here c = 6 and fan_in = 16."""
    init = importlib.import_module(T.__name__ + ".nn.init")
    w = T.empty(8, 16)
    bound = math.sqrt(6 / init._calculate_correct_fan(w, "fan_in"))
    T.manual_seed(0)
    with T.no_grad():
        w.uniform_(-bound, bound)
    assert float(w.abs().max()) <= bound == pytest.approx(math.sqrt(6 / 16))


@each
def test_the_no_grad_initialisers_are_the_public_ones(T):
    init = importlib.import_module(T.__name__ + ".nn.init")
    w = T.ones(3, requires_grad=True)
    draws = {}
    for name, call in {"_no_grad_uniform_": lambda f: f(T.empty(5), -2.0, 3.0),
                       "uniform_": lambda f: f(T.empty(5), -2.0, 3.0),
                       "_no_grad_normal_": lambda f: f(T.empty(5), 1.0, 0.5),
                       "normal_": lambda f: f(T.empty(5), 1.0, 0.5),
                       "_no_grad_trunc_normal_": lambda f: f(T.empty(5), 0.0, 1.0, -0.5, 0.5),
                       "trunc_normal_": lambda f: f(T.empty(5), 0.0, 1.0, -0.5, 0.5)}.items():
        T.manual_seed(3)
        draws[name] = call(getattr(init, name)).tolist()
    for public in ("uniform_", "normal_", "trunc_normal_"):
        assert draws["_no_grad_" + public] == draws[public]
    assert all(-2.0 <= v <= 3.0 for v in draws["uniform_"]) and all(abs(v) <= 0.5 for v in draws["trunc_normal_"])
    assert init._no_grad_fill_(w, 2.5) is w and w.tolist() == [2.5] * 3 and w.grad_fn is None
    assert init._no_grad_zero_(w).tolist() == [0.0] * 3 and w.grad_fn is None
