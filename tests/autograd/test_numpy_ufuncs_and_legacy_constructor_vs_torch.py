"""Round-trips between NumPy and tensors as PyTorch makes them: NumPy's ufuncs on tensors
(``np.sin(t)`` a tensor; a bool result as uint8; a tensor that requires grad refused), an
array on the left of an operator, ``torch.Tensor(data)`` in the default dtype (an alias of a
tensor), ``nn.Parameter`` and ``nn.Buffer`` keeping their data's dtype, ``unpack_dual``'s
primal (a view with an ``Identity`` node), ``torch.version``; compared with PyTorch 2.13."""

import warnings

import numpy as np
import pytest

from diffcompare import autograd as ag

torch = pytest.importorskip("torch")


def _seen(value, lib):
    if isinstance(value, lib.Tensor):
        return "tensor", str(value.dtype).replace("torch.", ""), tuple(value.shape), value.detach().numpy().tolist()
    return type(value).__name__, np.asarray(value).tolist()


UFUNC_CASES = {
    "np.sin": lambda t, a: np.sin(t),
    "np.exp of float32": lambda t, a: np.exp(t.float()),
    "np.sqrt of int64": lambda t, a: np.sqrt((t * 4).long()),
    "np.greater": lambda t, a: np.greater(t, 0.7),
    "np.isnan": lambda t, a: np.isnan(t),
    "np.maximum": lambda t, a: np.maximum(t, 0.7),
    "np.add of an array and a tensor": lambda t, a: np.add(a, t),
    "np.clip": lambda t, a: np.clip(t, 0, 0.7),
    "np.round": lambda t, a: np.round(t),
    "np.concatenate": lambda t, a: np.concatenate([t, t]),
    "np.dot": lambda t, a: np.dot(a, t),
    "np.zeros_like": lambda t, a: np.zeros_like(t),
    "float of np.sin of an element": lambda t, a: float(np.sin(t[0])),
    "np.sin then a tensor method": lambda t, a: np.sin(t).sum(),
    "an array == a tensor": lambda t, a: a == t,
    "a tensor * an array": lambda t, a: t * a,
    "a NumPy scalar * a tensor": lambda t, a: np.float64(2.0) * t,
}


@pytest.mark.parametrize("case", list(UFUNC_CASES))
def test_numpy_functions_on_tensors_give_what_pytorch_gives(case):
    results = []
    for lib in (torch, ag):
        t = lib.tensor([0.5, 1.0], dtype=lib.float64)
        results.append(_seen(UFUNC_CASES[case](t, np.array([1.0, 2.0])), lib))
    assert results[0] == results[1]


def test_a_ufunc_refuses_a_tensor_that_requires_grad_or_is_meta_as_pytorch_does():
    for lib in (torch, ag):
        with pytest.raises(RuntimeError, match="Can't call numpy\\(\\) on Tensor that requires grad"):
            np.sin(lib.tensor([0.5], dtype=lib.float64, requires_grad=True))
    for lib in (torch, ag):     # a meta tensor has no values
        with pytest.raises(TypeError, match="can't convert meta device type tensor to numpy"):
            np.sin(lib.ones(2, device="meta"))
    with ag.no_grad():      # allowed where nothing is recorded, as numpy() is
        assert np.sin(ag.tensor([0.0], requires_grad=True)).tolist() == [0.0]


def test_an_array_on_the_left_of_an_operator_is_recorded():
    # (PyTorch raises TypeError here; the engine records the tensor's own operator)
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    y = np.array([3.0, 4.0]) * x - np.array([1.0, 1.0])
    y.sum().backward()
    assert y.grad_fn.name() == "SubBackward0" and x.grad.tolist() == [3.0, 4.0]


def test_numpy_code_over_tensor_rows_as_in_a_physics_notebook():
    # d = np.zeros_like(x); d[:, :2] = x[:, 2:]; d[:, 2:] = f(x[:, :2]) with tensor rows
    results = []
    for lib in (torch, ag):
        x = lib.tensor([[0.1, 0.2, 0.3, 0.4], [0.5, 0.6, 0.7, 0.8]], dtype=lib.float64)
        d = np.zeros_like(x)
        d[:, :2] = x[:, 2:]
        d[:, 2:] = np.sin(x[:, :2]) * 2 - x[:, :2] ** 2
        results.append((type(d).__name__, d.tolist()))
    assert results[0] == results[1]


@pytest.mark.parametrize("data", ["float64 array", "float32 array", "int64 array", "float list", "int list",
                                  "float64 tensor", "float32 tensor"])
@pytest.mark.parametrize("default", ["float32", "float64"])
def test_the_legacy_constructor_gives_pytorchs_dtype(data, default):
    seen = []
    for lib in (torch, ag):
        before = lib.get_default_dtype()
        lib.set_default_dtype(getattr(lib, default))
        try:
            values = {"float64 array": np.array([1.5, 2.5]), "float32 array": np.array([1.5, 2.5], np.float32),
                      "int64 array": np.array([1, 2]), "float list": [1.5, 2.5], "int list": [1, 2],
                      "float64 tensor": lib.tensor([1.5, 2.5], dtype=lib.float64),
                      "float32 tensor": lib.tensor([1.5, 2.5], dtype=lib.float32)}
            source = values[data]
            made = lib.Tensor(source)
            shares = isinstance(source, lib.Tensor) and np.shares_memory(made.numpy(), source.numpy())
            seen.append((str(made.dtype).replace("torch.", ""), made.tolist(), shares))
        finally:
            lib.set_default_dtype(before)
    assert seen[0] == seen[1]


def test_the_legacy_constructor_on_complex_data():
    for lib in (torch, ag):
        with pytest.raises(TypeError, match="must be real number, not complex"):
            lib.Tensor([1 + 2j])
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert lib.Tensor(np.array([1 + 2j])).tolist() == [1.0]
        assert any("discards the imaginary part" in str(w.message) for w in caught)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_parameter_and_buffer_keep_their_datas_dtype(dtype):
    seen = []
    for lib in (torch, ag):
        data = lib.ones(2, dtype=getattr(lib, dtype))
        buffer = lib.nn.Buffer(data)
        parameter = lib.nn.Parameter(data) if dtype != "int64" else None
        seen.append(tuple(None if t is None else str(t.dtype).replace("torch.", "") for t in (buffer, parameter)))
    assert seen[0] == seen[1] == (dtype, None if dtype == "int64" else dtype)


def test_unpack_duals_primal_is_a_view_with_an_identity_node():
    import torch.autograd.forward_ad as torch_fw

    import diffcompare.autograd.forward_ad as ag_fw
    seen = []
    for lib, fw in ((torch, torch_fw), (ag, ag_fw)):
        w = lib.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=lib.float64, requires_grad=True)
        x = lib.tensor([0.5, -1.0], dtype=lib.float64)
        with fw.dual_level():
            y = fw.make_dual(x, lib.ones(2, dtype=lib.float64)) @ w
            primal, tangent = fw.unpack_dual(y)
            plain, no_tangent = fw.unpack_dual(x)
            record = (primal.grad_fn.name(), primal.grad_fn.next_functions[0][0].name(), primal._base is y,
                      primal.requires_grad, tangent.tolist(), plain.requires_grad, plain.grad_fn, plain._base is x,
                      no_tangent)
        primal.sum().backward()
        seen.append(record + (w.grad.tolist(), fw.unpack_dual(y).primal is y))
    assert seen[0] == seen[1]


def test_torch_version():
    assert ag.version.__version__ == ag.__version__ and ag.version.__version__.startswith("2.13")
    assert ag.version.cuda is None and ag.version.hip is None and ag.version.debug is False   # a CPU build
    assert set(torch.version.__all__) <= set(ag.version.__all__)
