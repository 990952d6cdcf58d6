"""``load``'s default, ``weights_only=True``, as PyTorch 2.13's: a checkpoint of tensors, numbers
and containers loads; one holding a NumPy value of the program's (an accuracy as
``np.float64``, an array) is refused in PyTorch's words, although the engine's own tensors
pickle as NumPy arrays; ``safe_globals`` and ``add_safe_globals`` allow it. Each side reads
what it wrote itself (the file formats differ)."""

from __future__ import annotations

import collections
import io
import pickle
import re

import numpy as np
import pytest

from diffcompare import autograd as ag

SCALAR = "numpy._core.multiarray.scalar"
ARRAY = "numpy._core.multiarray._reconstruct"


def _round_trip(t, make, **load_options):
    buffer = io.BytesIO()
    t.save(make(t), buffer)
    buffer.seek(0)
    return t.load(buffer, **load_options)


def _sides():
    sides = [ag]
    try:
        import torch
        sides.append(torch)
    except ImportError:
        pass
    return sides


@pytest.mark.parametrize("make, refused", [
    (lambda t: {"accuracy": np.float64(0.5)}, SCALAR),
    (lambda t: {"epoch": 3, "best": np.int64(7)}, SCALAR),
    (lambda t: {"weights": t.ones(2), "mean": np.ones(3)}, ARRAY),
    (lambda t: [np.zeros((2, 2))], ARRAY),
])
def test_a_numpy_value_of_the_program_is_refused(make, refused):
    for t in _sides():
        with pytest.raises(pickle.UnpicklingError) as raised:
            _round_trip(t, make)
        text = re.sub(r"\x1b\[[0-9;]*m", "", str(raised.value))     # PyTorch's bold, a terminal's
        assert f"Unsupported global: GLOBAL {refused} was not an allowed global by default" in text, t.__name__
        assert f"torch.serialization.safe_globals([{refused}])" in text
        assert text.startswith("Weights only load failed.") and text.endswith(
            "https://pytorch.org/docs/stable/generated/torch.load.html.")


def test_tensors_numbers_and_containers_load_as_they_were_saved():
    def checkpoint(t):
        return {"state": collections.OrderedDict(w=t.tensor([[1.5, -2.0]]), b=t.tensor(0.25)), "epoch": 4,
                "losses": [0.5, 0.25], "lr": 1e-3, "name": "run", "flags": (True, None),
                "leaf": t.tensor([3.0], requires_grad=True)}
    for t in _sides():
        loaded = _round_trip(t, checkpoint)
        assert list(loaded) == ["state", "epoch", "losses", "lr", "name", "flags", "leaf"]
        assert isinstance(loaded["state"], collections.OrderedDict)
        assert loaded["state"]["w"].tolist() == [[1.5, -2.0]] and loaded["state"]["b"].item() == 0.25
        assert (loaded["epoch"], loaded["losses"], loaded["lr"], loaded["name"], loaded["flags"]) == (
            4, [0.5, 0.25], 1e-3, "run", (True, None))
        assert loaded["leaf"].requires_grad and loaded["leaf"].tolist() == [3.0]


def test_allowed_in_a_block_or_for_good_or_without_weights_only():
    def accuracy(t):
        return {"accuracy": np.float64(0.75)}
    # (PyTorch asks for the scalar's dtype and its class as well)
    allowed = [np._core.multiarray.scalar, np.dtype, type(np.dtype("float64"))]
    for t in _sides():
        serialization = t.serialization
        with serialization.safe_globals(allowed):
            assert _round_trip(t, accuracy) == {"accuracy": 0.75}
        with pytest.raises(pickle.UnpicklingError):
            _round_trip(t, accuracy)                # only within the block
        assert _round_trip(t, accuracy, weights_only=False) == {"accuracy": 0.75}
        serialization.add_safe_globals(allowed)
        try:
            assert _round_trip(t, accuracy) == {"accuracy": 0.75}
        finally:
            serialization.clear_safe_globals()
        with pytest.raises(pickle.UnpicklingError):
            _round_trip(t, accuracy)


def test_a_pickle_module_given_loads_whole_objects_unless_weights_only_is_asked():
    """Left unset, ``weights_only`` is True only when no ``pickle_module`` is given: a model's
    own ``load(f, map_location=None, pickle_module=pickle)`` (N-BEATS's) loads the whole model;
    asking for both is refused, and load arguments warn under weights_only."""
    def model(t):
        return [t.nn.Linear(2, 1)]
    for t in _sides():
        assert type(_round_trip(t, model, pickle_module=pickle)[0]).__name__ == "Linear"
        with pytest.raises(RuntimeError, match="Can not safely load weights when explicit pickle_module"):
            _round_trip(t, model, pickle_module=pickle, weights_only=True)
        with pytest.warns(UserWarning, match="pickle_load_args only works if `weights_only=False`"):
            assert _round_trip(t, lambda t: [1.5], encoding="ascii") == [1.5]
