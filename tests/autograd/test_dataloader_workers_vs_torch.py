"""``DataLoader(num_workers=...)`` reads what PyTorch's worker processes read: batch k is
fetched by worker k mod num_workers, and a worker's draws in ``__getitem__`` (``random``,
NumPy's global generator, the global generator) come from generators seeded as PyTorch seeds
its workers, and leave the main process's generators alone. Each property is checked on the
engine and on PyTorch itself (real worker processes) where it is installed; the expected
draws are made here from the seeds alone, by Python's, NumPy's and each library's own
generators."""

from __future__ import annotations

import importlib
import random
import sys

import numpy as np
import pytest

from engines import each

fork_only = pytest.mark.skipif(sys.platform != "linux", reason="PyTorch's workers by fork here")


def _data(T):
    return importlib.import_module(T.__name__ + ".utils.data")


def _recording_dataset(T):
    data = _data(T)

    class Draws(data.Dataset):
        """Each item: which worker read it, the worker's seed, and one draw of each generator."""

        def __len__(self):
            return 6

        def __getitem__(self, i):
            info = data.get_worker_info()
            return (i, -1 if info is None else info.id, -1 if info is None else info.seed,
                    random.random(), float(np.random.rand()), float(T.rand(())))

    return Draws()


def _expected_draws(T, worker, seed, n):
    """The first n draws of worker ``worker`` whose seed is ``seed``, as PyTorch seeds it."""
    base = seed - worker
    python = random.Random(seed)
    numpy = np.random.RandomState(np.random.SeedSequence([worker, base & 0xFFFFFFFF, base >> 32, 0])
                                  .generate_state(4))
    torch = T.Generator().manual_seed(seed)
    return [(python.random(), float(numpy.rand()), float(T.rand((), generator=torch))) for _ in range(n)]


@fork_only
@each
def test_each_worker_draws_from_its_own_seeded_generators(T):
    data = _data(T)
    T.manual_seed(7)
    random.seed(1)
    np.random.seed(2)
    main = (random.getstate(), np.random.get_state()[1].copy())
    rows = [row for batch in data.DataLoader(_recording_dataset(T), batch_size=2, num_workers=2,
                                              collate_fn=lambda items: items)
            for row in batch]
    assert [r[0] for r in rows] == [0, 1, 2, 3, 4, 5]
    assert [r[1] for r in rows] == [0, 0, 1, 1, 0, 0]            # batch k by worker k mod 2
    seeds = {r[1]: r[2] for r in rows}
    assert seeds[1] == seeds[0] + 1                               # base seed + worker id
    for worker in (0, 1):
        mine = [r[3:] for r in rows if r[1] == worker]
        expected = _expected_draws(T, worker, seeds[worker], len(mine))
        assert np.allclose(mine, expected, rtol=0, atol=0), worker
    # the main process's random and NumPy generators did not move
    assert random.getstate() == main[0] and np.array_equal(np.random.get_state()[1], main[1])


@fork_only
@each
def test_persistent_workers_keep_their_generators_across_passes(T):
    data = _data(T)
    T.manual_seed(3)
    for persistent in (False, True):
        loader = data.DataLoader(_recording_dataset(T), batch_size=3, num_workers=2,
                                 persistent_workers=persistent, collate_fn=lambda items: items)
        first, second = ([row for batch in loader for row in batch] for _ in range(2))
        seeds = [{r[1]: r[2] for r in rows} for rows in (first, second)]
        if persistent:      # one base seed; each worker's draws go on where they stopped
            assert seeds[0] == seeds[1]
            for worker in (0, 1):
                both = [r[3:] for r in first + second if r[1] == worker]
                assert np.allclose(both, _expected_draws(T, worker, seeds[0][worker], 6), rtol=0, atol=0)
        else:               # a new base seed each pass, the workers started again from it
            assert seeds[0] != seeds[1]
            assert [r[3:] for r in second if r[1] == 0] == _expected_draws(T, 0, seeds[1][0], 3)


@each
def test_worker_options_refused_as_pytorch_refuses_them(T):
    data = _data(T)
    dataset = _recording_dataset(T)
    for kwargs, message in (({"num_workers": -1}, "num_workers option should be non-negative"),
                            ({"prefetch_factor": 2}, "prefetch_factor option could only be specified"),
                            ({"persistent_workers": True}, "persistent_workers option needs num_workers > 0")):
        with pytest.raises(ValueError, match=message):
            data.DataLoader(dataset, **kwargs)


@each
def test_set_rng_state_puts_back_the_seed(T):
    T.manual_seed(5)
    state = T.get_rng_state()
    T.manual_seed(7)
    T.set_rng_state(state)
    assert T.initial_seed() == 5


@each
def test_negative_and_large_seeds_are_taken_modulo_two_to_the_64(T):
    T.manual_seed(-64674408)
    assert T.initial_seed() == 2**64 - 64674408
    a = T.rand(3)
    T.manual_seed(2**64 - 64674408)
    assert T.equal(T.rand(3), a)
    with pytest.raises(ValueError, match="Overflow when unpacking long long"):
        T.manual_seed(2**64)
