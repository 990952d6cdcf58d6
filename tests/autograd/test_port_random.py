"""Random draws as PyTorch structures them: ``torch.Generator`` objects apart from the global
one, ``generator=`` on the random functions, the in-place draws (``uniform_``, ``normal_``,
``random_``) with their grad_fn names and errors, and how many global draws a shuffling
``DataLoader`` pass consumes (PyTorch's and the engine's numbers differ, the structure must not)."""

import numpy as np
import pytest

from diffcompare import autograd as ag
from diffcompare.autograd.utils.data import DataLoader, RandomSampler, TensorDataset

from differential import assert_same

torch = pytest.importorskip("torch")


def _name(t):
    return None if t.grad_fn is None else type(t.grad_fn).__name__


def test_a_generator_repeats_its_draws_and_leaves_the_global_one_alone():
    def program(lib):
        lib.manual_seed(0)
        g = lib.Generator().manual_seed(5)
        fresh = lib.Generator().initial_seed()
        a = lib.rand(4, generator=g)
        after_a = lib.rand(2)                 # the global draw, as if g had not been used
        lib.manual_seed(0)
        plain = lib.rand(2)
        g.manual_seed(5)
        again = lib.rand(4, generator=g)
        return [fresh, g.initial_seed(), bool((a == again).all()), bool((after_a == plain).all()),
                list(lib.randperm(5, generator=g).sort().values.tolist())]
    assert program(ag) == program(torch)


def test_in_place_draws_grad_fn_names_ranges_and_errors():
    def program(lib):
        x = lib.ones(400, dtype=lib.float64, requires_grad=True)
        y = x * 2
        names = [_name(y.uniform_(-2, 3)), _name((x * 1).normal_(1.0, 0.5)), _name((x * 1).random_(2, 5)),
                 _name((x * 1).random_(5)), _name((x * 1).random_())]
        u = lib.empty(2000, dtype=lib.float64).uniform_(-2, 3)
        r = lib.empty(2000, dtype=lib.int64).random_(2, 5)
        i = lib.empty(2000, dtype=lib.int64).random_()
        y.sum().backward()
        return names + [bool(u.min() >= -2), bool(u.max() < 3), sorted(set(r.tolist())),
                        bool(i.min() >= 0), x.grad]
    assert_same(program(ag), program(torch))


@pytest.mark.parametrize("code", [
    "lib.ones(2, dtype=lib.float64, requires_grad=True).uniform_()",
    "lib.ones(2, dtype=lib.float64).uniform_(3, 1)",
    "lib.ones(2, dtype=lib.float64).normal_(0, -1)",
    "lib.ones(2, dtype=lib.float64).random_(5, 2)",
    "lib.ones(2, dtype=lib.int64).uniform_()",
])
def test_in_place_draw_errors_as_pytorch(code):
    errors = []
    for lib in (ag, torch):
        with pytest.raises(Exception) as info:
            eval(code, {"lib": lib})
        errors.append((type(info.value).__name__, str(info.value).split("\n")[0]))
    assert errors[0][0] == errors[1][0]
    assert errors[0][1].split(",")[0].split(" but")[0] == errors[1][1].split(",")[0].split(" but")[0]


def _draws_after(lib, run):
    """The next global draw after ``run()`` from seed 3."""
    lib.manual_seed(3)
    run()
    return lib.rand(1).item()


def _after_int64_draws(lib, n):
    lib.manual_seed(3)
    for _ in range(n):
        lib.empty((), dtype=lib.int64).random_()
    return lib.rand(1).item()


@pytest.mark.parametrize("shuffle", [False, True])
def test_a_dataloader_pass_consumes_the_global_draws_pytorch_does(shuffle):
    # PyTorch: one int64 draw per pass (its workers' base seed), one more when the sampler
    # shuffles without a generator of its own (the seed of the Generator its order comes from)
    def consumed(lib, loader):
        after = _draws_after(lib, lambda: list(loader))
        return next(n for n in range(4) if _after_int64_draws(lib, n) == after)

    ours = DataLoader(TensorDataset(ag.arange(6.0)), batch_size=4, shuffle=shuffle)
    theirs = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.arange(6.0)), batch_size=4,
                                         shuffle=shuffle)
    assert consumed(ag, ours) == consumed(torch, theirs) == (2 if shuffle else 1)


def test_the_shuffled_order_comes_from_a_generator_seeded_by_a_global_draw():
    ag.manual_seed(3)
    ag.empty((), dtype=ag.int64).random_()            # the pass's base seed
    seed = ag.empty((), dtype=ag.int64).random_().item()
    expected = ag.randperm(6, generator=ag.Generator().manual_seed(seed)).tolist()
    ag.manual_seed(3)
    (batch,) = DataLoader(TensorDataset(ag.arange(6)), batch_size=6, shuffle=True)
    assert batch[0].tolist() == expected
    g = ag.Generator().manual_seed(11)
    sampler_order = list(RandomSampler(range(6), generator=g))
    assert sampler_order == ag.randperm(6, generator=ag.Generator().manual_seed(11)).tolist()
    assert sorted(sampler_order) == list(range(6))


@pytest.mark.parametrize("call", ["lib.randint(low=2, high=5, size=(400,))", "lib.randint(high=3, size=(400,))",
                                  "lib.randint(1, high=4, size=(400,))", "lib.randint(2, 5, (400,))"])
def test_randint_by_keyword_as_pytorch(call):
    def program(lib):
        drawn = eval(call, {"lib": lib})
        return [str(drawn.dtype).replace("torch.", ""), sorted(set(drawn.tolist())), list(drawn.shape)]
    assert program(ag) == program(torch)
