"""What meta-learning and hyperoptimisation code does with modules: writes a tensor with history
straight into ``module._parameters`` (gdtuo's and MAML-style functional updates) and
differentiates through it, deletes and replaces table entries, copies and pickles such modules;
``nn.SyncBatchNorm`` in a one-process program; optimizers imported from PyTorch's file names
(``torch.optim.adamw``) — by hand, and beside PyTorch where it is installed."""

from __future__ import annotations

import copy
import importlib
import pickle

import numpy as np
import pytest

from diffcompare import autograd as ag
from engines import each, torch


@each
def test_a_tensor_written_into_the_parameter_table_is_what_forward_reads(T):
    T.manual_seed(0)
    lin = T.nn.Linear(3, 1).double()
    a = T.tensor(0.5, dtype=T.float64, requires_grad=True)
    lin._parameters["weight"] = T.ones(1, 3, dtype=T.float64) - a * T.ones(1, 3, dtype=T.float64)
    assert lin.weight is lin._parameters["weight"] and lin.weight.grad_fn is not None
    out = lin(T.ones(2, 3, dtype=T.float64)).sum()
    (da,) = T.autograd.grad(out, a, retain_graph=True)
    # by hand: out = sum over 2 rows of ((1 - a) * 3 + b), so d out / d a = -6
    assert float(da) == -6.0
    # and through backward(create_graph=True), as a hyperoptimizer's step takes it
    lin(T.ones(2, 3, dtype=T.float64)).sum().backward(create_graph=True)
    assert float(a.grad) == -6.0


@each
def test_deleting_and_replacing_table_entries_as_pytorch(T):
    lin = T.nn.Linear(2, 3)
    del lin._parameters["bias"]
    assert not hasattr(lin, "bias") and [n for n, _ in lin.named_parameters()] == ["weight"]
    del lin.weight
    assert not hasattr(lin, "weight") and "weight" not in lin._parameters
    lin.weight = T.nn.Parameter(T.ones(3, 2))
    assert [n for n, _ in lin.named_parameters()] == ["weight"]
    bn = T.nn.BatchNorm1d(2)
    bn._buffers["running_mean"] = T.full((2,), 7.0)
    assert bn.running_mean.tolist() == [7.0, 7.0]
    net = T.nn.Sequential(T.nn.Linear(2, 2), T.nn.ReLU())
    net._modules["1"] = T.nn.Tanh()
    assert type(net[1]).__name__ == "Tanh" and type(net.__getattr__("1") if T is torch else getattr(net, "1")) \
        .__name__ == "Tanh"
    net._parameters.update({"scale": T.nn.Parameter(T.ones(1))})
    assert net.scale is net._parameters["scale"]
    assert net._parameters.pop("scale") is not None and not hasattr(net, "scale")


@each
def test_copied_and_pickled_modules_keep_their_tables_and_attributes_together(T):
    net = T.nn.Sequential(T.nn.Linear(2, 2))
    for other in (copy.deepcopy(net), pickle.loads(pickle.dumps(net))):
        other[0]._parameters["weight"] = T.zeros(2, 2)
        assert other[0].weight.abs().sum().item() == 0.0
        assert net[0].weight.abs().sum().item() != 0.0             # the original is not touched


@each
def test_sync_batchnorm_in_one_process_is_batch_normalisation(T):
    x = T.tensor(np.arange(12.0).reshape(4, 3) ** 1.5)
    sync, plain = T.nn.SyncBatchNorm(3).double(), T.nn.BatchNorm1d(3).double()
    got, expected = sync(x), plain(x)
    # by hand: each column normalised by its batch mean and biased variance (eps 1e-5)
    columns = np.arange(12.0).reshape(4, 3) ** 1.5
    by_hand = (columns - columns.mean(0)) / np.sqrt(columns.var(0) + 1e-5)
    assert np.allclose(got.detach().numpy(), by_hand, rtol=1e-12) and T.equal(got, expected)
    assert np.allclose(sync.running_var.numpy(), 0.9 + 0.1 * columns.var(0, ddof=1), rtol=1e-12)
    with pytest.raises(ValueError, match=r"expected at least 2D input \(got 1D input\)"):
        sync(T.ones(3))
    with pytest.raises(ValueError, match="SyncBatchNorm number of input channels should be non-zero"):
        T.nn.SyncBatchNorm(0)(T.ones(2, 0))
    net = T.nn.Sequential(T.nn.Linear(2, 3), T.nn.BatchNorm1d(3, momentum=0.3).eval())
    weight = net[1].weight
    converted = T.nn.SyncBatchNorm.convert_sync_batchnorm(net)
    assert converted is net and type(net[1]).__name__ == "SyncBatchNorm"
    assert net[1].weight is weight and net[1].momentum == 0.3 and not net[1].training
    assert [n for n, _ in net.named_parameters()] == ["0.weight", "0.bias", "1.weight", "1.bias"]


@pytest.mark.parametrize("name, cls", [("adadelta", "Adadelta"), ("adagrad", "Adagrad"), ("adam", "Adam"),
                                       ("adamax", "Adamax"), ("adamw", "AdamW"), ("asgd", "ASGD"),
                                       ("nadam", "NAdam"), ("radam", "RAdam"), ("rmsprop", "RMSprop"),
                                       ("rprop", "Rprop"), ("sgd", "SGD")])
def test_optimizers_imported_from_pytorchs_file_names(name, cls):
    module = importlib.import_module(f"diffcompare.autograd.optim.{name}")
    assert getattr(module, cls) is getattr(ag.optim, cls) and module.Optimizer is ag.optim.Optimizer
    if torch is not None:
        assert hasattr(importlib.import_module(f"torch.optim.{name}"), cls)
