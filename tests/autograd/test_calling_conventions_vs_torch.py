"""Calling conventions real PyTorch code uses: the deprecated number-first overloads of older
optimizers (``p.data.add_(-lr, grad)``), the top-level in-place functions (``torch.sin_``),
factories writing into ``out=``, and the ``new_*`` factories' ``device=``. Values by hand, and
against PyTorch where it is installed."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from diffcompare import autograd as ag


def test_number_first_overloads_scale_the_tensor_that_follows():
    """add_(a, g) = x + a g; sub_(a, g) = x - a g; addcmul_(v, t1, t2) = x + v t1 t2;
    addcdiv_(v, t1, t2) = x + v t1 / t2 (by hand, with x = 1, g = t1 = 2, t2 = 4)."""
    def fresh():
        return ag.ones(3)
    g, t2 = ag.full((3,), 2.0), ag.full((3,), 4.0)
    with pytest.warns(UserWarning, match=r"This overload of add is deprecated:\n\tadd\(Number alpha, Tensor other\)"):
        assert fresh().add_(-0.5, g).tolist() == [0.0] * 3
    with pytest.warns(UserWarning, match="This overload of sub is deprecated"):
        assert fresh().sub_(0.25, g).tolist() == [0.5] * 3
    with pytest.warns(UserWarning, match=r"addcmul\(Tensor tensor1, Tensor tensor2, \*, Number value = 1\)"):
        assert fresh().addcmul_(0.5, g, g).tolist() == [3.0] * 3
    with pytest.warns(UserWarning, match="This overload of addcdiv is deprecated"):
        assert fresh().addcdiv_(-1.0, g, t2).tolist() == [0.5] * 3
    with pytest.warns(UserWarning):
        assert ag.add(fresh(), 3, g).tolist() == [7.0] * 3


def test_number_first_overload_keeps_the_gradient_of_both_tensors():
    """y = x.add(a, w) = x + a w: dy/dx = 1, dy/dw = a."""
    x, w = ag.ones(2, requires_grad=True), ag.ones(2, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        x.add(3.0, w).sum().backward()
    assert x.grad.tolist() == [1.0, 1.0] and w.grad.tolist() == [3.0, 3.0]


def test_a_wrong_mix_of_numbers_and_tensors_is_a_type_error():
    with pytest.raises(TypeError, match=r"add\(\) received an invalid combination of arguments - got \(Tensor, "
                                        r"!Tensor!, !Tensor!\), but expected \(Tensor other, \*, Number alpha = 1\)"):
        ag.ones(2).add(ag.ones(2), ag.ones(2), ag.ones(2))
    with pytest.raises(TypeError, match=r"^add\(\) takes 1 positional argument but 2 were given$"):
        ag.ones(2).add("a", ag.ones(2))


def test_a_learning_rate_that_became_a_0_d_tensor_is_a_number():
    """Hypergradient descent makes ``group['lr']`` a 0-d tensor, then steps with
    ``p.data.add_(-group['lr'], grad)``: PyTorch takes a 0-d tensor that does not require grad
    wherever a Number goes. By hand, with x = 1, g = t1 = 2, t2 = 4."""
    g, t2 = ag.full((3,), 2.0), ag.full((3,), 4.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert ag.ones(3).add_(-ag.tensor(0.5), g).tolist() == [0.0] * 3
        assert ag.ones(3).sub(ag.tensor(0.25), g).tolist() == [0.5] * 3
        assert ag.ones(3).addcmul_(ag.tensor(0.5), g, g).tolist() == [3.0] * 3
        assert ag.ones(3).addcdiv_(-ag.tensor(1.0), g, t2).tolist() == [0.5] * 3
    assert ag.ones(3).add(g, alpha=ag.tensor(2.0)).tolist() == [5.0] * 3
    assert ag.ones(3).addcdiv(g, t2, value=ag.tensor(-1.0)).tolist() == [0.5] * 3


@pytest.mark.parametrize("call, error, message", [
    (lambda t: t.ones(3).add(t.ones(3), alpha=t.tensor(2.0, requires_grad=True)), TypeError,
     "add(): argument 'alpha' must be Number, not Tensor"),
    (lambda t: t.ones(3).sub(t.ones(3), alpha=t.ones(1)), TypeError, "sub(): argument 'alpha' must be Number, not Tensor"),
    (lambda t: t.ones(3).add(t.ones(3), alpha=t.ones(2)), TypeError, "add(): argument 'alpha' must be Number, not Tensor"),
    (lambda t: t.ones(3).add(t.ones(3), alpha="x"), TypeError, "add(): argument 'alpha' must be Number, not str"),
    (lambda t: t.ones(3).addcmul(t.ones(3), t.ones(3), value=t.tensor(2.0, requires_grad=True)), TypeError,
     "addcmul(): argument 'value' must be Number, not Tensor"),
    (lambda t: t.ones(3).add(t.ones(3), alpha=True), RuntimeError, "Boolean alpha only supported for Boolean results."),
    (lambda t: t.ones(3).add(t.ones(3), alpha=t.tensor(True)), RuntimeError,
     "Boolean alpha only supported for Boolean results."),
    (lambda t: t.ones(3).add(t.tensor(1.0, requires_grad=True), t.ones(3)), TypeError,
     "add() takes 1 positional argument but 2 were given"),
])
def test_what_is_not_a_number_is_refused_in_pytorch_s_words(call, error, message):
    modules = [ag]
    try:
        import torch
        modules.append(torch)
    except ImportError:
        pass
    for module in modules:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(error) as raised:
                call(module)
        assert str(raised.value) == message, module.__name__


def test_a_0_d_tensor_number_gives_pytorch_s_values():
    torch = pytest.importorskip("torch")
    x, g, t2 = np.array([1.0, -2.0, 3.0]), np.array([0.5, 2.0, -1.5]), np.array([4.0, 0.5, 2.0])
    for t in (ag, torch):
        def number(v, t=t):
            return t.tensor(v, dtype=t.float64)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = [t.tensor(x).add_(-number(0.3), t.tensor(g)), t.tensor(x).addcdiv_(-number(0.7), t.tensor(g),
                                                                                      t.tensor(t2)),
                   t.tensor(x).addcmul(t.tensor(g), t.tensor(t2), value=number(1.5))]
        if t is ag:
            ours = [v.numpy() for v in got]
        else:
            theirs = [v.numpy() for v in got]
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-15)


def test_top_level_in_place_functions_write_into_their_input():
    x = ag.tensor([0.0, np.pi / 2])
    assert ag.sin_(x) is x
    assert np.allclose(x.numpy(), [0.0, 1.0])
    y = ag.tensor([-1.0, 3.0])
    ag.clamp_(y, min=0.0, max=2.0)
    assert y.tolist() == [0.0, 2.0]
    ag.zero_(y)
    assert y.tolist() == [0.0, 0.0]


@pytest.mark.parametrize("name, args, shape", [
    ("zeros", (2, 3), (2, 3)), ("ones", ((4,),), (4,)), ("full", ((2, 2), 1.5), (2, 2)), ("rand", (3,), (3,)),
    ("randn", (1, 2), (1, 2)), ("randint", (0, 5, (2, 2)), (2, 2)), ("eye", (3,), (3, 3)), ("randperm", (5,), (5,)),
    ("empty", (2,), (2,)),
])
def test_factories_write_into_out_resized_in_its_dtype(name, args, shape):
    out = ag.zeros(7, dtype=ag.float32)
    result = getattr(ag, name)(*args, out=out)
    assert result is out and tuple(out.shape) == shape and out.dtype == np.float32


def test_a_range_into_out_of_its_size_keeps_out_s_shape():
    """PyTorch resizes a range's out only when the number of elements differs."""
    out = ag.zeros(2, 3)
    ag.arange(6, out=out)
    assert out.tolist() == [[0, 1, 2], [3, 4, 5]]
    ag.linspace(0, 1, 3, out=out)
    assert out.tolist() == [0.0, 0.5, 1.0]


def test_new_factories_take_a_device():
    x = ag.ones(2, dtype=ag.float32)
    assert x.new_zeros(3, device=x.device).dtype == np.float32
    assert x.new_tensor([1, 2], device="cpu").dtype == np.float32
    assert tuple(x.new_empty_strided((2, 3), (3, 1)).shape) == (2, 3)
    assert tuple(ag.empty_strided((2, 2), (1, 2)).shape) == (2, 2)


def test_as_pytorch():
    torch = pytest.importorskip("torch")
    for lib in (torch, ag):
        x = lib.tensor([0.5, -1.5, 2.0], dtype=lib.float64)
        g = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            x.mul_(0.9).add_(0.1, g).addcmul_(0.01, g, g).addcdiv_(-0.5, g, g + 1).sub_(2, g)
            lib.exp_(x)
        if lib is torch:
            expected = x.numpy()
        else:
            assert np.allclose(x.numpy(), expected, rtol=1e-15)


def test_plain_attributes_before_module_init_and_registered_ones_refused():
    class Regularizer(ag.nn.Module):
        def __init__(self, n):
            self.n = n                      # before super().__init__(), as PyTorch allows
            super().__init__()

    assert Regularizer(3).n == 3

    class Early(ag.nn.Module):
        def __init__(self):
            self.w = ag.nn.Parameter(ag.ones(1))

    with pytest.raises(AttributeError, match=r"cannot assign parameters before Module.__init__\(\) call"):
        Early()


def test_old_import_paths():
    from diffcompare.autograd.optim.optimizer import Optimizer, required
    assert Optimizer is ag.optim.Optimizer and repr(required) == "<required parameter>"
    ag.utils.backcompat.broadcast_warning.enabled = True
    assert ag.utils.backcompat.broadcast_warning.enabled and not ag.utils.backcompat.keepdim_warning.enabled
    ag.utils.backcompat.broadcast_warning.enabled = False


@pytest.mark.parametrize("expression, message", [
    (lambda b: 1 - b, "Subtraction, the `-` operator, with a bool tensor is not supported"),
    (lambda b: b - 1, "Subtraction, the `-` operator, with a bool tensor is not supported"),
    (lambda b: b - b, "Subtraction, the `-` operator, with two bool tensors is not supported"),
    (lambda b: -b, "Negation, the `-` operator, on a bool tensor is not supported"),
])
def test_subtracting_booleans_is_refused_as_pytorch_refuses_it(expression, message):
    with pytest.raises(RuntimeError, match=message):
        expression(ag.tensor([True, False]))
    assert (ag.tensor([True, False]) + 1).tolist() == [2, 1]


def test_a_linear_weight_gradient_is_contiguous_with_or_without_a_graph():
    """PyTorch computes the gradient of ``weight.t()`` transposed (its ``mm_mat2_backward``), so
    the weight's gradient is contiguous and ``grad.view(-1)`` works (TRPO's flat gradients)."""
    net = ag.nn.Linear(3, 4)
    x = ag.randn(5, 3)
    grads = ag.autograd.grad(net(x).pow(2).sum(), list(net.parameters()), create_graph=True)
    assert all(g.is_contiguous() for g in grads)
    flat = ag.cat([g.view(-1) for g in grads])
    assert tuple(flat.shape) == (16,)
    net(x).pow(2).sum().backward()
    assert net.weight.grad.is_contiguous()
    assert np.allclose(net.weight.grad.numpy(), grads[0].detach().numpy(), rtol=1e-14)


def test_out_on_torch_functions_that_have_none_of_their_own():
    a, b = ag.tensor([1.0, 5.0]), ag.tensor([3.0, 2.0])
    out = ag.zeros(2)
    assert ag.maximum(a, b, out=out) is out and out.tolist() == [3.0, 5.0]
    assert ag.cumsum(a, 0, out=out) is out and out.tolist() == [1.0, 6.0]
    total = ag.zeros(())
    assert ag.sum(a, dim=0, out=total) is total and total.item() == 6.0
    with pytest.raises(RuntimeError, match="functions with out=... arguments don't support automatic differentiation"):
        ag.minimum(ag.ones(2, requires_grad=True), b, out=out)


def test_aten_operator_names():
    """torch.ops.aten.<name>.<overload>: one object per name, calling the engine's function."""
    aten = ag.ops.aten
    assert aten.mm.default is aten.mm.default and aten.mm.default in [aten.mm.default]
    assert repr(aten.add.Tensor) == "aten.add.Tensor" and aten.add.Tensor.name() == "aten::add.Tensor"
    assert aten.add.Tensor(ag.ones(2), ag.ones(2)).tolist() == [2.0, 2.0]
    assert aten.sin(ag.zeros(1)).tolist() == [0.0]
    with pytest.raises(NotImplementedError, match="aten::_no_such_op has no counterpart"):
        aten._no_such_op.default(ag.ones(1))


def test_complex_and_polar_by_hand():
    """complex(a, b) = a + i b: d Re/da = 1, d Im/db = 1; polar(r, t) = r e^{it}: d Re/dr = cos t,
    d Im/dt = r cos t."""
    a, b = ag.tensor([2.0], requires_grad=True), ag.tensor([0.5], requires_grad=True)
    w = ag.complex(a, b)
    assert w.grad_fn.name() == "ComplexBackward0" and w.tolist() == [2 + 0.5j]
    (w.real.sum() + 3 * w.imag.sum()).backward()
    assert a.grad.tolist() == [1.0] and b.grad.tolist() == [3.0]
    r, t = ag.tensor([2.0], requires_grad=True), ag.tensor([0.5], requires_grad=True)
    z = ag.polar(r, t)
    assert z.grad_fn.name() == "PolarBackward0"
    z.real.sum().backward()
    assert np.allclose(r.grad.numpy(), [np.cos(0.5)]) and np.allclose(t.grad.numpy(), [-2 * np.sin(0.5)])


def test_small_top_level_names():
    a = ag.tensor([1.0, 2.0], requires_grad=True)
    assert ag.rsub(a, ag.tensor([0.5, -1.0]), alpha=2).tolist() == [-1.5, -5.0]
    assert ag.fill(a, 3.0).grad_fn.name() == "FillBackward0"
    assert ag.absolute(a).grad_fn.name() == "AbsBackward0" and ag.subtract(a, a).grad_fn.name() == "SubBackward0"
    assert ag.typename(a) == "torch.DoubleTensor" and ag.typename(3) == "int"
    assert isinstance(a.dtype, ag.dtype) and not ag.detach(a).requires_grad
    assert ag.ShortTensor([1]).dtype == np.int16 and ag.CharTensor([1]).dtype == np.int8


def test_complex_polar_rsub_as_pytorch():
    torch = pytest.importorskip("torch")
    seen = {}
    for lib in (torch, ag):
        a = lib.tensor([1.0, 2.0, 0.0], requires_grad=True, dtype=lib.float64)
        b = lib.tensor([0.5, -1.0, 0.3], requires_grad=True, dtype=lib.float64)
        z, w = lib.polar(a, b), lib.complex(a, b)
        out = z.real.sum() + 2 * z.imag.sum() + (w * w).real.sum() + lib.rsub(a, b, alpha=0.5).pow(2).sum()
        out.backward()
        seen[lib] = (a.grad.numpy(), b.grad.numpy())
    assert np.allclose(seen[ag][0], seen[torch][0], rtol=1e-14) and np.allclose(seen[ag][1], seen[torch][1], rtol=1e-14)


def test_iterable_and_stacked_datasets_and_samplers():
    from diffcompare.autograd.utils.data import (DataLoader, IterableDataset, Sampler, StackDataset,
                                                 SubsetRandomSampler, WeightedRandomSampler, get_worker_info)

    class Stream(IterableDataset):
        def __iter__(self):
            return iter(ag.arange(5.0))

    assert [b.tolist() for b in DataLoader(Stream(), batch_size=2)] == [[0.0, 1.0], [2.0, 3.0], [4.0]]
    assert StackDataset(a=[1, 2], b=[3, 4])[1] == {"a": 2, "b": 4} and StackDataset([1, 2], [3, 4])[0] == (1, 3)
    assert Sampler[int] is not None and get_worker_info() is None
    assert sorted(SubsetRandomSampler([5, 6, 7])) == [5, 6, 7]
    assert set(WeightedRandomSampler([0.0, 1.0, 0.0], 4)) == {1}      # all the weight on index 1
    with pytest.raises(ValueError, match="expected unspecified shuffle option"):
        DataLoader(Stream(), shuffle=True)


def test_load_state_dict_with_assign_into_a_meta_module():
    source = ag.nn.Linear(3, 2)
    with ag.device("meta"):
        target = ag.nn.Linear(3, 2)
    target.load_state_dict(source.state_dict(), assign=True)
    assert isinstance(target.weight, ag.nn.Parameter) and target.weight.requires_grad
    assert np.array_equal(target.weight.detach().numpy(), source.weight.detach().numpy())
    assert ag.nn.Sequential(source).get_submodule("0") is source
    ag.use_deterministic_algorithms(True)
    assert ag.are_deterministic_algorithms_enabled()
    ag.use_deterministic_algorithms(False)


def test_an_iterable_dataset_read_by_workers_as_pytorch_reads_it():
    """Each worker iterates the dataset itself and the loader takes a batch from each in turn:
    a dataset that splits its range by get_worker_info() gives 3, 5, 4, 6 with two workers,
    one that does not repeats each value once per worker (PyTorch's documented behaviour)."""
    from diffcompare.autograd.utils.data import DataLoader, IterableDataset, get_worker_info

    class Split(IterableDataset):
        def __iter__(self):
            info = get_worker_info()
            if info is None:
                return iter(range(3, 7))
            return iter(range(3 + 2 * info.id, 5 + 2 * info.id))

    class Whole(IterableDataset):
        def __iter__(self):
            return iter(range(3, 5))

    assert [int(b) for b in DataLoader(Split(), num_workers=2)] == [3, 5, 4, 6]
    assert [int(b) for b in DataLoader(Split())] == [3, 4, 5, 6]
    assert [int(b) for b in DataLoader(Whole(), num_workers=3)] == [3, 3, 3, 4, 4, 4]
    assert get_worker_info() is None


def test_worker_init_fn_configures_each_worker_s_copy_of_the_dataset():
    """PyTorch's documented pattern: worker_init_fn splits the range on the worker's own copy."""
    from diffcompare.autograd.utils.data import DataLoader, IterableDataset, get_worker_info

    class Range(IterableDataset):
        def __init__(self, start, end):
            self.start, self.end = start, end

        def __iter__(self):
            return iter(range(self.start, self.end))

    def split(worker_id):
        info = get_worker_info()
        data = info.dataset
        size = (data.end - data.start) // info.num_workers
        data.start, data.end = data.start + worker_id * size, data.start + (worker_id + 1) * size

    dataset = Range(3, 7)
    assert [int(b) for b in DataLoader(dataset, num_workers=2, worker_init_fn=split)] == [3, 5, 4, 6]
    assert (dataset.start, dataset.end) == (3, 7)       # the loader's own dataset is untouched


def test_arange_with_end_alone_as_a_keyword():
    assert ag.arange(end=3).tolist() == [0, 1, 2] and ag.arange(start=1, end=3).tolist() == [1, 2]
    with pytest.raises(TypeError, match="arange\\(\\) received an invalid combination of arguments"):
        ag.arange()


def test_out_of_place_fill_of_infinite_and_nan_values():
    """torch.fill replaces every value, inf and nan included (0 * inf would be nan); the input's
    gradient is zero."""
    a = ag.tensor([1.0, float("inf"), float("nan")], requires_grad=True)
    f = ag.fill(a, 3.0)
    assert f.tolist() == [3.0, 3.0, 3.0] and f.grad_fn.name() == "FillBackward0"
    f.sum().backward()
    assert a.grad.tolist() == [0.0, 0.0, 0.0]
