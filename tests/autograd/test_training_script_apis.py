"""What training scripts use around the gradient: torch.Size and torch.Tensor(*sizes), the
default dtype, bfloat16's name, torch.amp's loss scaler, torch.save/load, and
torch.testing.assert_close — beside PyTorch where it is installed, and on values known by hand."""

from __future__ import annotations

import io
import pickle

import numpy as np
import pytest

from diffcompare import autograd as ag


# -- by hand (no PyTorch needed) ----------------------------------------------------------------

def test_size_and_legacy_constructor():
    s = ag.Size([2, 3])
    assert s == (2, 3) and s.numel() == 6 and repr(s) == "torch.Size([2, 3])" and isinstance(s[:1], ag.Size)
    assert ag.Tensor(3, 4).shape == (3, 4) and ag.Tensor(s).shape == (2, 3) and ag.Tensor(2).shape == (2,)
    assert ag.Tensor([3, 4]).tolist() == [3.0, 4.0] and ag.Tensor().shape == (0,)
    with pytest.raises(TypeError, match=r"data must be a sequence \(got float\)"):
        ag.Tensor(3.5)
    with pytest.raises(TypeError, match="item 1 is 'float'"):
        ag.Size([2, 3.0])


def test_default_dtype_float64_unless_set():
    assert ag.get_default_dtype() == np.float64
    ag.set_default_dtype(ag.float32)          # (put back after the test by tests/conftest.py)
    assert ag.tensor([1.0, 2]).dtype == np.float32 and ag.tensor([1, 2]).dtype == np.int64
    assert ag.tensor(np.array([1.0])).dtype == np.float64         # an array keeps its dtype
    assert ag.zeros(2).dtype == ag.randn(2).dtype == ag.nn.Linear(2, 2).weight.dtype == np.float32
    assert ag.tensor([1j]).dtype == np.complex64 and repr(ag.tensor([0.5])) == "tensor([0.5000])"
    assert (ag.ones(2) * np.float64(2.0)).dtype == np.float32      # a NumPy scalar is a number
    with pytest.raises(TypeError, match="only floating-point types"):
        ag.set_default_dtype(ag.int64)


def test_bfloat16_is_named_and_refused_when_used():
    table = {"float32": ag.float32, "bfloat16": ag.bfloat16}      # as nanoGPT builds its dtype table
    assert repr(table["bfloat16"]) == "torch.bfloat16"
    with pytest.raises(TypeError, match="has no bfloat16"):
        ag.zeros(2, dtype=ag.bfloat16)
    with pytest.raises(TypeError, match="has no bfloat16"):
        ag.ones(2).bfloat16()
    with pytest.raises(TypeError, match="has no bfloat16"):
        ag.nn.Linear(2, 2).bfloat16()


def test_grad_scaler_scales_unscales_skips_and_adapts():
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    opt = ag.optim.SGD([x], lr=0.1)
    scaler = ag.amp.GradScaler("cpu", growth_interval=2)
    for _ in range(2):                                   # two clean steps: the scale doubles after them
        opt.zero_grad()
        loss = (x ** 2).sum()
        scaled = scaler.scale(loss)
        assert scaled.item() == loss.item() * 65536
        scaled.backward()
        scaler.step(opt)
        scaler.update()
    # by hand: x <- x - 0.1 * 2x twice = 0.64 x
    np.testing.assert_allclose(x.detach().numpy(), [0.64, 1.28], rtol=1e-15)
    assert scaler.get_scale() == 131072.0
    x.grad = ag.tensor([np.inf, 1.0])                    # a step with an inf is skipped, the scale halved
    scaler.step(opt)
    scaler.update()
    np.testing.assert_allclose(x.detach().numpy(), [0.64, 1.28], rtol=1e-15)
    assert scaler.get_scale() == 65536.0 and scaler.state_dict()["_growth_tracker"] == 0


def test_grad_scaler_for_cuda_disables_itself():
    with pytest.warns(UserWarning, match="CUDA is not available"):
        scaler = ag.amp.GradScaler()
    x = ag.tensor([3.0], requires_grad=True)
    assert not scaler.is_enabled() and scaler.scale(x) is x and scaler.get_scale() == 1.0


def test_save_and_load_a_checkpoint(tmp_path):
    model = ag.nn.Linear(2, 1)
    opt = ag.optim.Adam(model.parameters(), lr=0.1)
    model(ag.ones(3, 2)).sum().backward()
    opt.step()
    path = tmp_path / "checkpoint.pt"
    ag.save({"model": model.state_dict(), "optimizer": opt.state_dict(), "epoch": 1}, path)
    loaded = ag.load(path)
    other = ag.nn.Linear(2, 1)
    other.load_state_dict(loaded["model"])
    np.testing.assert_array_equal(other.weight.detach().numpy(), model.weight.detach().numpy())
    assert loaded["epoch"] == 1 and loaded["optimizer"]["state"][0]["step"].item() == 1.0


def test_load_refuses_code_unless_asked_and_pytorch_files(tmp_path):
    buffer = io.BytesIO()
    ag.save(ag.nn.Linear(2, 1), buffer)                  # a whole module: classes of the program
    buffer.seek(0)
    with pytest.raises(pickle.UnpicklingError, match="Unsupported global: GLOBAL .*Linear"):
        ag.load(buffer)
    buffer.seek(0)
    assert isinstance(ag.load(buffer, weights_only=False), ag.nn.Linear)
    zip_like = tmp_path / "torch.pt"
    zip_like.write_bytes(b"PK\x03\x04rest")
    with pytest.raises(RuntimeError, match="written by PyTorch's torch.save"):
        ag.load(zip_like)


def test_assert_close_by_hand():
    ag.testing.assert_close(ag.tensor([1.0]), ag.tensor([1.0 + 5e-8]))      # within 1e-7 + 1e-7
    with pytest.raises(AssertionError, match=r"Mismatched elements: 1 / 2 \(50.0%\)"):
        ag.testing.assert_close(ag.tensor([1.0, 2.0]), ag.tensor([1.0, 2.0 + 1e-6]))


# -- beside PyTorch -------------------------------------------------------------------------------

CLOSE_CASES = [
    lambda L: ([L.tensor([1., 2., 3.], dtype=L.float64)], [L.tensor([1., 2.5, 3.], dtype=L.float64)]),
    lambda L: ([L.tensor([[1., 2.], [3, 4]], dtype=L.float32)], [L.tensor([[1., 2.], [3, 4.1]], dtype=L.float32)]),
    lambda L: (L.tensor([1., 2.], dtype=L.float32), L.tensor([1., 2.], dtype=L.float64)),
    lambda L: (L.tensor([1., 2.], dtype=L.float64), L.tensor([1., 2., 3.], dtype=L.float64)),
    lambda L: (1.0, 1.5),
    lambda L: (1, 2),
    lambda L: ({"a": L.tensor(1., dtype=L.float64)}, {"a": L.tensor(1.2, dtype=L.float64)}),
    lambda L: (L.tensor([float("nan")], dtype=L.float64), L.tensor([float("nan")], dtype=L.float64)),
    lambda L: (L.tensor([1, 2]), L.tensor([1, 3])),
    lambda L: (L.tensor([1., float("inf")], dtype=L.float64), L.tensor([1., -float("inf")], dtype=L.float64)),
    lambda L: ([1.0, 2.0], [1.0, 2.0, 3.0]),
]


@pytest.mark.parametrize("case", range(len(CLOSE_CASES)))
def test_assert_close_says_what_pytorch_says(case):
    torch = pytest.importorskip("torch")

    def outcome(L):
        try:
            L.testing.assert_close(*CLOSE_CASES[case](L))
        except AssertionError as error:
            return str(error)
        return "close"

    assert outcome(ag) == outcome(torch)


def test_grad_scaler_as_pytorchs():
    torch = pytest.importorskip("torch")
    runs = {}
    for L in (ag, torch):
        x = L.tensor([1.0, -2.0, 0.5], dtype=L.float64, requires_grad=True)
        opt = L.optim.SGD([x], lr=0.05, momentum=0.9)
        scaler = L.amp.GradScaler("cpu", init_scale=1024.0, growth_interval=3)
        scales = []
        for step in range(7):
            opt.zero_grad()
            loss = (x ** 4).sum() * (1e300 if step == 4 else 1.0)    # step 4 overflows: skipped
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
            scales.append(scaler.get_scale())
        runs[L] = (x.detach().numpy().copy(), scales, scaler.state_dict())
    np.testing.assert_allclose(runs[ag][0], runs[torch][0], rtol=1e-14)
    assert runs[ag][1] == runs[torch][1] and runs[ag][2] == runs[torch][2]


def test_default_dtype_as_pytorchs():
    torch = pytest.importorskip("torch")
    import numpy

    def dtypes(L):
        L.set_default_dtype(L.float32)
        made = [L.tensor([1.0]), L.tensor([numpy.float64(1.0)]), L.tensor(numpy.array([1.0])), L.arange(0.0, 3),
                L.linspace(0, 1, 3), L.full((2,), 1.5), L.ones(2) * numpy.float64(2.0), L.tensor([1j]),
                L.nn.Linear(2, 2).weight, L.nn.LSTM(2, 3).weight_ih_l0, L.Tensor(2)]
        L.set_default_dtype(L.float64)
        return [str(t.dtype).rpartition(".")[2] for t in made]

    assert dtypes(ag) == dtypes(torch)


def test_size_and_tensor_sizes_as_pytorchs():
    torch = pytest.importorskip("torch")
    for args in [(3, 4), (2,), ()]:
        assert ag.Tensor(*args).shape == tuple(torch.Tensor(*args).shape)
    assert repr(ag.Size([2, 3])) == repr(torch.Size([2, 3])) and ag.Size([4, 5]).numel() == torch.Size([4, 5]).numel()


def test_rng_state_round_trip_and_fork():
    ag.manual_seed(11)
    assert ag.initial_seed() == 11 and ag.random.initial_seed() == 11
    state = ag.get_rng_state()
    first = ag.randn(4).numpy()
    ag.set_rng_state(state)
    np.testing.assert_array_equal(ag.randn(4).numpy(), first)
    with ag.random.fork_rng():
        ag.rand(10)
    after_fork = ag.rand(2).numpy()
    ag.set_rng_state(state)
    ag.randn(4)
    np.testing.assert_array_equal(ag.rand(2).numpy(), after_fork)     # the fork's draws left no trace
    with pytest.raises(TypeError, match="ByteTensor"):
        ag.set_rng_state(ag.tensor([1.0]))


def test_a_replaced_child_keeps_its_place_and_repr_shows_extra_lines():
    class Net(ag.nn.Module):
        def __init__(self):
            super().__init__()
            self.features = ag.nn.Linear(2, 3)
            self.fc = ag.nn.Linear(3, 2)
            self.out = ag.nn.Linear(2, 1)

        def extra_repr(self):
            return "note"

    net = Net()
    net.fc = ag.nn.Linear(3, 2)                        # fine-tuning replaces a head: its place stays
    net.features.weight = ag.nn.Parameter(ag.zeros(3, 2))
    assert [n for n, _ in net.named_parameters()] == ["features.weight", "features.bias", "fc.weight", "fc.bias",
                                                      "out.weight", "out.bias"]
    assert repr(net).splitlines()[:3] == ["Net(", "  note", "  (features): Linear(in_features=2, out_features=3, bias=True)"]


def test_random_sampler_with_replacement_and_the_data_submodules():
    from diffcompare.autograd.utils.data.dataloader import DataLoader    # as scripts import it
    from diffcompare.autograd.utils.data.sampler import RandomSampler

    draws = [list(RandomSampler(range(10), replacement=True, num_samples=45,
                                generator=ag.Generator().manual_seed(3))) for _ in range(2)]
    assert draws[0] == draws[1] and len(draws[0]) == 45 and all(0 <= i < 10 for i in draws[0])
    assert len(set(draws[0])) < 45                       # with replacement: repeats among 45 draws of 10
    loader = DataLoader(ag.utils.data.TensorDataset(ag.arange(10.0)), batch_size=4,
                        sampler=RandomSampler(range(10), replacement=True, num_samples=8))
    assert [len(b[0]) for b in loader] == [4, 4]
    with pytest.raises(ValueError, match="num_samples should be a positive integer"):
        RandomSampler(range(3), num_samples=0)


def test_parameter_is_importable_from_nn_parameter():
    from diffcompare.autograd.nn.parameter import Parameter      # as `from torch.nn.parameter import Parameter`

    p = Parameter(ag.tensor([1.0, 2.0]))
    assert isinstance(p, ag.nn.Parameter) and p.requires_grad and p.tolist() == [1.0, 2.0]


def test_record_function_marks_a_region_and_runs_it():
    """``torch.profiler.record_function`` / ``torch.autograd.profiler.record_function``: as a
    context manager and as a decorator the region runs unchanged (the engine has no profiler
    to label it for); a name that is not a string is refused on entry, as PyTorch refuses it."""
    import importlib
    for name in ("diffcompare.autograd.profiler", "diffcompare.autograd.autograd.profiler"):
        assert importlib.import_module(name).record_function is ag.profiler.record_function
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    with ag.autograd.profiler.record_function("loss") as region:
        loss = (x * x).sum()
    assert region.name == "loss"
    ag.profiler.record_function("backward")(loss.backward)()
    assert x.grad.tolist() == [2.0, 4.0]
    region = ag.profiler.record_function(3)
    with pytest.raises(RuntimeError, match="Expected a value of type 'str' for argument 'name' but instead found "
                                           "type 'int'"):
        region.__enter__()
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError, match="Expected a value of type 'str' for argument 'name' but instead found "
                                           "type 'int'"):
        torch.autograd.profiler.record_function(3).__enter__()


def test_type_takes_the_legacy_type_classes():
    """``torch.from_numpy(a).type(torch.Tensor)`` (old course code): the default dtype;
    ``.type(torch.FloatTensor)``: that type's dtype; the tensor itself when it already is."""
    x = ag.from_numpy(np.arange(3))
    assert x.type(ag.Tensor).dtype == np.float64 and x.type(ag.Tensor).tolist() == [0.0, 1.0, 2.0]
    assert x.type(ag.FloatTensor).dtype == np.float32 and x.type(ag.LongTensor) is x
    ag.set_default_dtype(ag.float32)
    try:
        assert x.type(ag.Tensor).dtype == np.float32
    finally:
        ag.set_default_dtype(ag.float64)


LOSSES_BY_NAME = {
    "mse_loss": lambda F, x, y, r: F.mse_loss(x, y, reduction=r),
    "l1_loss": lambda F, x, y, r: F.l1_loss(x, y, reduction=r),
    "smooth_l1_loss": lambda F, x, y, r: F.smooth_l1_loss(x, y, reduction=r),
    "huber_loss": lambda F, x, y, r: F.huber_loss(x, y, reduction=r),
    "soft_margin_loss": lambda F, x, y, r: F.soft_margin_loss(x, y, reduction=r),
    "binary_cross_entropy_with_logits":
        lambda F, x, y, r: F.binary_cross_entropy_with_logits(x, y.abs(), reduction=r),
    "cross_entropy": lambda F, x, y, r: F.cross_entropy(x, (y > 0).long().sum(1), reduction=r),
    "poisson_nll_loss": lambda F, x, y, r: F.poisson_nll_loss(x, y.abs(), reduction=r),
    "multilabel_soft_margin_loss": lambda F, x, y, r: F.multilabel_soft_margin_loss(x, (y > 0).double(), reduction=r),
}


@pytest.mark.parametrize("loss", sorted(LOSSES_BY_NAME))
@pytest.mark.parametrize("reduction", ["elementwise_mean", "average"])
def test_old_and_wrong_reduction_names_as_pytorch(loss, reduction):
    """``reduction='elementwise_mean'`` (PyTorch before 1.0, still taken by 2.13 with a warning)
    is the mean; a name PyTorch does not know is its ValueError. Two losses keep PyTorch's own
    checks (poisson_nll_loss and multilabel_soft_margin_loss refuse the old name)."""
    import warnings

    def outcome(L):
        x = L.tensor([[0.2, -1.0, 0.5], [1.5, 0.3, -0.2]], dtype=L.float64)
        y = L.tensor([[0.1, -0.3, 0.4], [1.0, 0.5, -2.0]], dtype=L.float64)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                value = round(float(LOSSES_BY_NAME[loss](L.nn.functional, x, y, reduction)), 12)
            except ValueError as error:
                value = str(error)
        return value, sorted({str(w.message) for w in caught if "reduction" in str(w.message)})

    mine = outcome(ag)
    if reduction == "average" and loss != "multilabel_soft_margin_loss":
        assert mine == ("average is not a valid value for reduction", [])
    if reduction == "elementwise_mean" and loss == "mse_loss":       # by hand: the mean of the squares
        squares = (np.array([[0.1, -0.7, 0.1], [0.5, -0.2, 1.8]])) ** 2
        assert mine == (round(float(squares.mean()), 12),
                        ["reduction='elementwise_mean' is deprecated. Please use reduction='mean' instead."])
    try:
        import torch
    except ImportError:
        return
    assert mine == outcome(torch)


def test_pretrained_weights_are_read_from_the_hubs_cache_and_never_downloaded(tmp_path):
    from diffcompare.autograd.utils import model_zoo
    (tmp_path / "checkpoints").mkdir()
    ag.save({"w": ag.arange(3.0)}, tmp_path / "checkpoints" / "net-1a2b.pth")
    ag.hub.set_dir(str(tmp_path))
    try:
        assert ag.hub.get_dir() == str(tmp_path)
        assert model_zoo.load_url("https://example.org/models/net-1a2b.pth")["w"].tolist() == [0.0, 1.0, 2.0]
        with pytest.raises(RuntimeError, match="not in the hub's cache, and this engine does not download"):
            ag.hub.load_state_dict_from_url("https://example.org/models/other.pth")
    finally:
        ag.hub.set_dir(None)


def _conv_dtype_errors(L):
    F = L.nn.functional
    single, double = L.float32, L.float64
    messages = []
    for x, w, b, f in ((L.ones(1, 3, 5, 5, dtype=single), L.ones(2, 3, 3, 3, dtype=double), None, F.conv2d),
                       (L.ones(1, 3, 5, 5, dtype=double), L.ones(2, 3, 3, 3, dtype=single), None, F.conv2d),
                       (L.ones(1, 3, 5, 5, dtype=double), L.ones(2, 3, 3, 3, dtype=double), L.ones(2, dtype=single),
                        F.conv2d),
                       (L.ones(1, 3, 5, dtype=single), L.ones(3, 2, 3, dtype=double), None, F.conv_transpose1d)):
        with pytest.raises(RuntimeError) as error:
            f(x, w, b)
        messages.append(str(error.value))
    return messages


def test_convolutions_refuse_operands_of_two_dtypes_as_pytorch():
    assert _conv_dtype_errors(ag) == ["expected scalar type Float but found Double",
                                      "expected scalar type Double but found Float",
                                      "Input type (double) and bias type (float) should be the same",
                                      "expected scalar type Float but found Double"]
    try:
        import torch
    except ImportError:
        return
    assert _conv_dtype_errors(torch) == _conv_dtype_errors(ag)
