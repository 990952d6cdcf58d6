"""What scripts call at the top or in passing: ``set_float32_matmul_precision``,
``set_warn_always``, ``compile`` (run eagerly here), ``default_generator``, ``newaxis``, the
top-level dropouts, ``is_signed``/``is_same_size``/``scalar_tensor``/``is_inference``/``is_conj``/
``resolve_conj``/``resolve_neg``/``conj_physical``, and the bit shifts (``<<``, ``>>``,
``bitwise_left_shift``, ...): the engine's answers compared with PyTorch's."""

import warnings

import numpy as np
import pytest

from diffcompare import autograd as ag

torch = pytest.importorskip("torch")


def _answers(lib):
    seen = []
    seen.append(lib.get_float32_matmul_precision())
    lib.set_float32_matmul_precision("high")
    seen.append(lib.get_float32_matmul_precision())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lib.set_float32_matmul_precision("bad")
    seen += [lib.get_float32_matmul_precision(), len(caught)]
    lib.set_float32_matmul_precision("highest")
    seen += [lib.is_warn_always_enabled(), lib.newaxis]
    seen += [lib.is_signed(lib.tensor([1])), lib.is_signed(lib.tensor([1], dtype=lib.uint8)),
             lib.is_signed(lib.tensor(1.0)), lib.is_same_size(lib.ones(2), lib.ones(2)),
             lib.is_same_size(lib.ones(2), lib.ones(3))]
    seen += [lib.scalar_tensor(3).tolist(), str(lib.scalar_tensor(3).dtype).replace("torch.", ""),
             lib.scalar_tensor(3, dtype=lib.int64).tolist()]
    lib.default_generator.manual_seed(5)
    first = lib.rand(2).tolist()
    lib.manual_seed(5)
    seen += [first == lib.rand(2).tolist(), lib.default_generator.initial_seed()]
    x = lib.ones(3, requires_grad=True)
    seen += [lib.dropout(x, 0.0, True).tolist(), lib.dropout(x, 0.5, False).tolist(),
             lib.alpha_dropout(x, 0.5, False).tolist(), lib.feature_alpha_dropout(x, 0.5, False).tolist()]
    seen += [lib.bitwise_left_shift(lib.tensor([1, 2]), 2).tolist(), lib.bitwise_right_shift(lib.tensor([9]), 2).tolist(),
             (lib.tensor([8]) >> 1).tolist(), (lib.tensor([1]) << 3).tolist(), (2 << lib.tensor([1, 2])).tolist(),
             (64 >> lib.tensor([1, 2])).tolist()]
    t = lib.tensor([1, 2])
    t.bitwise_left_shift_(1)
    seen.append(t.tolist())
    seen += [lib.is_inference(x), lib.is_conj(x), lib.resolve_conj(x) is x, lib.resolve_neg(x) is x,
             lib.conj_physical(lib.tensor([1 + 2j])).tolist()]
    return seen


def test_the_answers_are_pytorchs(torch_float64):
    assert _answers(ag) == _answers(torch)


def test_compile_runs_the_model_eagerly(torch_float64):
    def outputs(lib):
        model = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.Tanh(), lib.nn.Linear(4, 1))
        with lib.no_grad():
            for k, p in enumerate(model.parameters()):
                p.copy_(lib.linspace(-0.5, 0.7, p.numel()).reshape(p.shape) * (k + 1))
        compiled = lib.compile(model)
        x = lib.linspace(-1, 1, 6).reshape(2, 3)
        compiled(x).sum().backward()

        @lib.compile(mode="reduce-overhead")
        def f(t):
            return (t.sin() * t).sum()
        return (compiled(x).detach().numpy(), model[0].weight.grad.numpy(), f(x).item(),
                isinstance(compiled, lib.nn.Module))
    ours, theirs = outputs(ag), outputs(torch)
    for a, b in zip(ours, theirs):
        assert np.allclose(a, b, rtol=1e-12, atol=0)


def test_compile_refuses_mode_and_options_together():
    with pytest.raises(RuntimeError, match="Either mode or options"):
        ag.compile(lambda t: t, mode="default", options={})
