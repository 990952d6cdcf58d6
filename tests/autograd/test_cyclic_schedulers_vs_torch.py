"""``OneCycleLR`` and ``CyclicLR`` against PyTorch's: every step's rates and momenta (SGD's
momentum, Adam's first beta), per parameter group, and their refusals."""

import math
import warnings

import pytest

from diffcompare import autograd as ag

torch = pytest.importorskip("torch")

SCHEDULES = {
    "one cycle, cos": lambda lib, o: lib.optim.lr_scheduler.OneCycleLR(o, max_lr=0.1, total_steps=20),
    "one cycle, three phases, linear": lambda lib, o: lib.optim.lr_scheduler.OneCycleLR(
        o, max_lr=[0.1, 0.2], epochs=3, steps_per_epoch=4, three_phase=True, anneal_strategy="linear"),
    "cyclic, triangular2": lambda lib, o: lib.optim.lr_scheduler.CyclicLR(
        o, base_lr=0.01, max_lr=0.1, step_size_up=3, mode="triangular2"),
    "cyclic, exp_range": lambda lib, o: lib.optim.lr_scheduler.CyclicLR(
        o, base_lr=[0.01, 0.02], max_lr=0.1, step_size_up=3, step_size_down=5, mode="exp_range", gamma=0.9),
    "cyclic, scale_fn": lambda lib, o: lib.optim.lr_scheduler.CyclicLR(
        o, base_lr=0.01, max_lr=0.1, step_size_up=2, scale_fn=lambda x: 0.5 ** x, scale_mode="iterations"),
}


def _trace(lib, schedule, optimizer, steps=12):
    w, v = lib.zeros(2, requires_grad=True), lib.zeros(1, requires_grad=True)
    groups = [{"params": [w]}, {"params": [v]}]
    opt = lib.optim.SGD(groups, lr=0.05, momentum=0.9) if optimizer == "sgd" else lib.optim.Adam(groups, lr=0.05)
    scheduler = SCHEDULES[schedule](lib, opt)
    seen = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(steps):
            opt.step()
            scheduler.step()
            seen.append((scheduler.get_last_lr(),
                         [g["momentum"] if optimizer == "sgd" else g["betas"][0] for g in opt.param_groups]))
    return seen


@pytest.mark.parametrize("optimizer", ["sgd", "adam"])
@pytest.mark.parametrize("schedule", list(SCHEDULES))
def test_rates_and_momenta_are_pytorchs_to_the_bit(schedule, optimizer):
    assert _trace(ag, schedule, optimizer) == _trace(torch, schedule, optimizer)


def test_one_cycle_peaks_at_max_lr_and_ends_at_its_floor():
    # by hand: warm-up ends at step pct_start * total - 1 = 5 with max_lr; the last step
    # (19) is max_lr / div_factor / final_div_factor
    rates = [lr[0] for lr, _ in _trace(ag, "one cycle, cos", "sgd", steps=19)]
    assert rates[4] == pytest.approx(0.1)
    assert rates[-1] == pytest.approx(0.1 / 25 / 1e4)
    assert max(rates) == pytest.approx(0.1)
    assert rates[1] == pytest.approx(0.1 + (0.004 - 0.1) / 2 * (math.cos(math.pi * 2 / 5) + 1))


@pytest.mark.parametrize("kwargs", [dict(max_lr=0.1), dict(max_lr=0.1, total_steps=0),
                                    dict(max_lr=0.1, total_steps=10, pct_start=1),
                                    dict(max_lr=0.1, total_steps=10, anneal_strategy="step")], ids=repr)
def test_one_cycle_refuses_what_pytorch_refuses(kwargs):
    messages = []
    for lib in (ag, torch):
        opt = lib.optim.SGD([lib.zeros(1, requires_grad=True)], lr=0.1, momentum=0.9)
        with pytest.raises(ValueError) as error:
            lib.optim.lr_scheduler.OneCycleLR(opt, **kwargs)
        messages.append(str(error.value))
    assert messages[0] == messages[1]


def test_cycling_momentum_needs_an_optimizer_with_momentum():
    for lib in (ag, torch):
        opt = lib.optim.Adagrad([lib.zeros(1, requires_grad=True)], lr=0.1)
        with pytest.raises(ValueError, match="optimizer must support momentum or beta1"):
            lib.optim.lr_scheduler.CyclicLR(opt, base_lr=0.01, max_lr=0.1)
