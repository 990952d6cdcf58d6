"""A tensor's storage (``untyped_storage``, ``storage``), ``torch.utils.swap_tensors`` and
``torch.__future__``'s conversion switches, against PyTorch."""

import warnings

import numpy as np
import pytest

from diffcompare import autograd as ag

torch = pytest.importorskip("torch")


def test_storages_tell_which_tensors_share_memory_as_pytorchs_do(torch_float64):
    def run(lib):
        x = lib.arange(6.0).reshape(2, 3)
        views = [x, x[1], x.t(), x[:, 1:], x.clone(), x.contiguous(), x.reshape(6), x.detach()]
        base = x.untyped_storage()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            typed = x[1:].storage()
        return ([v.untyped_storage().data_ptr() == base.data_ptr() for v in views],
                [v.untyped_storage().nbytes() for v in views], base.element_size(), len(base),
                typed.size(), typed.element_size(), typed.tolist(), typed[4])
    assert run(ag) == run(torch)


def test_legacy_constructors_given_a_storage_share_its_memory_as_pytorchs(torch_float64):
    """``torch.Tensor(c.storage())`` (a course notebook's lesson on storages): the tensor holds
    every element of the storage from the first, whatever part of it ``c`` shows, and writes
    through it are seen by the other views; a typed storage of another dtype is refused."""
    def run(lib):
        a = lib.arange(6.0)
        b, c = a.view(2, 3), a[2:]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            d = lib.Tensor(c.storage())
            d[0] = 6666
            e = lib.DoubleTensor(c.storage())
            e[1] = 7
            f = a.new(c.untyped_storage())
            f[5] = -1
            try:
                lib.FloatTensor(c.storage())
                refused = None
            except RuntimeError as error:
                refused = str(error)
        return b.tolist(), d.tolist(), d._base is None, lib.Tensor(c.untyped_storage()).shape, refused
    assert run(ag) == run(torch)


def test_the_typed_storage_warns_once_as_pytorchs_does(monkeypatch):
    from diffcompare.autograd.storage import TypedStorage
    monkeypatch.setattr(TypedStorage, "_warned", [False])
    with pytest.warns(UserWarning, match="TypedStorage is deprecated"):
        ag.ones(2).storage()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ag.ones(2).storage()


def test_swap_tensors_exchanges_values_classes_gradients_and_attributes():
    def run(lib):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        (a * 3).sum().backward()
        b = lib.nn.Parameter(lib.tensor([3.0, 4.0, 5.0]))
        a.note = "a's"
        lib.utils.swap_tensors(a, b)
        return (type(a).__name__, a.tolist(), a.grad, type(b).__name__, b.tolist(), b.grad.tolist(),
                getattr(b, "note", None), getattr(a, "note", None), a.requires_grad, b.is_leaf)
    ours, theirs = run(ag), run(torch)
    assert ours == theirs
    assert ours[:3] == ("Parameter", [3.0, 4.0, 5.0], None) and ours[5] == [3.0, 3.0]    # by hand


def test_swap_tensors_refuses_what_is_not_a_tensor():
    with pytest.raises(TypeError, match="Expected t1 and t2 to be tensors but got Tensor and list"):
        ag.utils.swap_tensors(ag.ones(1), [1.0])


def test_future_switches_read_back_and_conversion_keeps_parameters():
    for lib in (ag, torch):
        assert lib.__future__.get_swap_module_params_on_conversion() is False
        lib.__future__.set_swap_module_params_on_conversion(True)
        try:
            model = lib.nn.Linear(2, 2)
            weight = model.weight
            model.to(lib.float32)
            assert model.weight is weight and str(weight.dtype).endswith("float32")
            assert lib.__future__.get_swap_module_params_on_conversion() is True
        finally:
            lib.__future__.set_swap_module_params_on_conversion(False)
    np.testing.assert_equal(ag.__future__.get_overwrite_module_params_on_conversion(), False)
