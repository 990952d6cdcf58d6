"""``nn.utils.prune`` on small tensors whose masks follow by hand: which entries or channels go,
the ``<name>_orig`` / ``<name>_mask`` reparametrization, the gradient through the mask,
iterative and global pruning, ``remove``, and PyTorch's error messages. No PyTorch needed."""

import math

import numpy as np
import pytest

from diffcompare import autograd as ag
from diffcompare.autograd.nn.utils import prune

W = [[1.0, -3.0], [2.0, 0.5]]


def linear(weight, bias=None):
    weight = np.asarray(weight, dtype=float)
    m = ag.nn.Linear(weight.shape[1], weight.shape[0])
    with ag.no_grad():
        m.weight.copy_(ag.tensor(weight))
        m.bias.copy_(ag.tensor(np.zeros(weight.shape[0]) if bias is None else bias))
    return m


def arr(t):
    return np.asarray(t.detach()._data)


def test_l1_unstructured_prunes_the_smallest_magnitudes():
    m = prune.l1_unstructured(linear(W), "weight", amount=0.5)     # |.| = 1, 3, 2, 0.5: 0.5 and 1 go
    assert arr(m.weight_mask).tolist() == [[0.0, 1.0], [1.0, 0.0]]
    assert arr(m.weight).tolist() == [[0.0, -3.0], [2.0, 0.0]]
    assert arr(m.weight_orig).tolist() == W


def test_the_reparametrization_names_and_hook():
    m = prune.l1_unstructured(linear(W), "weight", amount=1)
    assert [n for n, _ in m.named_parameters()] == ["bias", "weight_orig"]
    assert [n for n, _ in m.named_buffers()] == ["weight_mask"]
    assert list(m.state_dict().keys()) == ["bias", "weight_orig", "weight_mask"]
    assert isinstance(m.weight_orig, ag.nn.Parameter) and not isinstance(m.weight, ag.nn.Parameter)
    hooks = list(m._forward_pre_hooks.values())
    assert len(hooks) == 1 and isinstance(hooks[0], prune.L1Unstructured) and hooks[0]._tensor_name == "weight"
    assert m.weight.grad_fn.name() == "MulBackward0"
    assert prune.is_pruned(m) and prune.is_pruned(ag.nn.Sequential(m))
    assert not prune.is_pruned(linear(W))


def test_the_gradient_of_orig_is_the_mask_times_the_upstream_gradient():
    m = prune.l1_unstructured(linear(W), "weight", amount=2)
    x = ag.tensor([[1.0, 2.0]])
    upstream = np.array([[3.0, -5.0]])
    (m(x) * ag.tensor(upstream)).sum().backward()
    # d/dW of sum(u * (W x)) = u^T x, masked
    expected = np.array([[0.0, 1.0], [1.0, 0.0]]) * (upstream.T @ np.array([[1.0, 2.0]]))
    assert np.array_equal(arr(m.weight_orig.grad), expected)
    assert m.weight_mask.grad is None and not m.weight_mask.requires_grad


def test_the_pre_hook_recomputes_the_weight_from_orig():
    m = prune.l1_unstructured(linear(W), "weight", amount=2)
    with ag.no_grad():
        m.weight_orig.mul_(10.0)
    assert arr(m.weight).tolist() == [[0.0, -3.0], [2.0, 0.0]]      # not yet: the hook runs at forward
    y = m(ag.tensor([[1.0, 1.0]]))
    assert arr(m.weight).tolist() == [[0.0, -30.0], [20.0, 0.0]]
    assert arr(y).tolist() == [[-30.0, 20.0]]


@pytest.mark.parametrize("n, dim, mask", [
    (1, 0, [[1.0, 1.0], [0.0, 0.0]]),            # row L1 norms 4, 2.5
    (2, 0, [[1.0, 1.0], [0.0, 0.0]]),            # sqrt(10), sqrt(4.25)
    (1, 1, [[0.0, 1.0], [0.0, 1.0]]),            # column L1 norms 3, 3.5
    (1, -1, [[0.0, 1.0], [0.0, 1.0]]),
    (math.inf, 1, [[0.0, 1.0], [0.0, 1.0]]),     # column max-abs 2, 3
    (-math.inf, 0, [[1.0, 1.0], [0.0, 0.0]]),    # row min-abs 1, 0.5
])
def test_ln_structured_prunes_the_channels_of_smallest_norm(n, dim, mask):
    m = prune.ln_structured(linear(W), "weight", amount=1, n=n, dim=dim)
    assert arr(m.weight_mask).tolist() == mask


def test_compute_norm_along_every_other_dimension():
    t = ag.tensor(np.arange(24.0).reshape(2, 3, 4))
    got = arr(prune._compute_norm(t, 2, 1))
    expected = np.sqrt((np.arange(24.0).reshape(2, 3, 4) ** 2).sum(axis=(0, 2)))
    assert np.allclose(got, expected, rtol=1e-14)


def test_random_unstructured_prunes_the_asked_number_of_entries():
    ag.manual_seed(0)
    m = prune.random_unstructured(ag.nn.Linear(10, 7), "weight", amount=0.3)
    assert int((m.weight_mask == 0).sum()) == round(0.3 * 70)
    m = prune.random_unstructured(m, "weight", amount=5)           # 5 more among the 49 left
    assert int((m.weight_mask == 0).sum()) == 26


def test_random_structured_prunes_whole_channels():
    ag.manual_seed(1)
    m = prune.random_structured(ag.nn.Linear(6, 4), "weight", amount=2, dim=1)
    column_zero = (arr(m.weight_mask) == 0).all(axis=0)
    assert column_zero.sum() == 2
    assert (arr(m.weight_mask)[:, ~column_zero] == 1).all()


def test_iterative_pruning_keeps_earlier_zeros_in_a_container():
    m = prune.l1_unstructured(linear(W), "weight", amount=1)      # 0.5 goes
    m = prune.l1_unstructured(m, "weight", amount=1)              # then 1, the smallest left
    assert arr(m.weight_mask).tolist() == [[0.0, 1.0], [1.0, 0.0]]
    (container,) = m._forward_pre_hooks.values()
    assert isinstance(container, prune.PruningContainer) and len(container) == 2
    assert [type(p).__name__ for p in container] == ["L1Unstructured", "L1Unstructured"]
    m = prune.ln_structured(m, "weight", amount=1, n=1, dim=0)    # pruned rows 3, 2: the second goes
    assert arr(m.weight_mask).tolist() == [[0.0, 1.0], [0.0, 0.0]]
    assert len(container) == 3 and [n for n, _ in m.named_parameters()] == ["bias", "weight_orig"]


def test_remove_makes_the_pruned_weight_a_parameter_again():
    m = prune.l1_unstructured(linear(W), "weight", amount=2)
    out = prune.remove(m, "weight")
    assert out is m
    assert [n for n, _ in m.named_parameters()] == ["bias", "weight"]
    assert list(m.named_buffers()) == [] and not m._forward_pre_hooks
    assert isinstance(m.weight, ag.nn.Parameter) and m.weight.is_leaf and m.weight.requires_grad
    assert arr(m.weight).tolist() == [[0.0, -3.0], [2.0, 0.0]]
    assert not hasattr(m, "weight_orig") and not hasattr(m, "weight_mask")
    assert not prune.is_pruned(m)


def test_the_parameter_order_after_pruning_and_removing_two_tensors():
    m = prune.identity(linear(W), "weight")
    m = prune.identity(m, "bias")
    assert list(m.state_dict().keys()) == ["weight_orig", "bias_orig", "weight_mask", "bias_mask"]
    prune.remove(m, "weight")
    assert [n for n, _ in m.named_parameters()] == ["bias_orig", "weight"]
    assert [n for n, _ in m.named_buffers()] == ["bias_mask"]


def test_a_mask_re_registered_keeps_its_place():
    m = prune.identity(linear(W), "weight")
    m = prune.identity(m, "bias")
    m = prune.l1_unstructured(m, "weight", amount=1)
    assert [n for n, _ in m.named_buffers()] == ["weight_mask", "bias_mask"]


def test_global_unstructured_chooses_over_all_the_tensors():
    a = linear([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    b = linear([[0.5, 7.0]])
    prune.global_unstructured([(a, "weight"), (b, "weight")], pruning_method=prune.L1Unstructured, amount=0.375)
    # 8 entries, round(3.0) = 3 smallest magnitudes overall: 0.5, 1, 2
    assert arr(a.weight_mask).tolist() == [[0.0, 0.0, 1.0], [1.0, 1.0, 1.0]]
    assert arr(b.weight_mask).tolist() == [[0.0, 1.0]]
    assert all(isinstance(h, prune.CustomFromMask) for h in a._forward_pre_hooks.values())
    # again: 2 more among the 5 left (3 and 4), on top of the masks already there
    prune.global_unstructured([(a, "weight"), (b, "weight")], pruning_method=prune.L1Unstructured, amount=2)
    assert arr(a.weight_mask).tolist() == [[0.0, 0.0, 0.0], [0.0, 1.0, 1.0]]
    assert arr(b.weight_mask).tolist() == [[0.0, 1.0]]


def test_global_unstructured_with_importance_scores():
    a, b = linear([[1.0, 2.0]]), linear([[3.0, 4.0]])
    scores = {(b, "weight"): ag.tensor([[0.0, 9.0]])}
    prune.global_unstructured([(a, "weight"), (b, "weight")], prune.L1Unstructured, importance_scores=scores,
                              amount=2)
    assert arr(a.weight_mask).tolist() == [[0.0, 1.0]] and arr(b.weight_mask).tolist() == [[0.0, 1.0]]


def test_l1_unstructured_with_importance_scores():
    m = prune.l1_unstructured(linear(W), "weight", amount=1, importance_scores=ag.tensor([[5.0, 0.1], [5.0, 5.0]]))
    assert arr(m.weight_mask).tolist() == [[1.0, 0.0], [1.0, 1.0]]


def test_custom_from_mask_and_a_custom_method():
    m = prune.custom_from_mask(linear(W, bias=[1.0, 2.0]), "bias", mask=ag.tensor([0, 1]))
    assert arr(m.bias_mask).tolist() == [0.0, 1.0] and arr(m.bias).tolist() == [0.0, 2.0]

    class EveryOther(prune.BasePruningMethod):
        PRUNING_TYPE = "unstructured"

        def compute_mask(self, t, default_mask):
            mask = default_mask.clone()
            mask.flatten()[::2] = 0
            return mask

    m = linear(W)
    EveryOther.apply(m, "weight")
    assert arr(m.weight_mask).tolist() == [[0.0, 1.0], [0.0, 1.0]]


def test_prune_a_tensor_without_a_module():
    t = ag.tensor([3.0, 1.0, -2.0, 0.5])
    assert arr(prune.L1Unstructured(amount=2).prune(t)).tolist() == [3.0, 0.0, -2.0, 0.0]
    # a single method does not skip entries the default mask zeroes (a container does): 0.5 is picked again
    assert arr(prune.L1Unstructured(amount=1).prune(t, default_mask=ag.tensor([1.0, 1.0, 1.0, 0.0]))).tolist() == [
        3.0, 1.0, -2.0, 0.0]


def test_topk_ties_pick_as_pytorch():
    # PyTorch 2.13's CPU topk on these rows (libstdc++'s nth_element order, not the first indices)
    assert ag.topk(ag.zeros(5), 2).indices.tolist() == [2, 4]
    assert ag.topk(ag.tensor([1.0, 1.0, 1.0, 0.0]), 3).indices.tolist() == [1, 2, 0]
    assert ag.topk(ag.tensor([1.0, 0.0, 1.0, 0.0, 1.0, 0.0]), 3, largest=False).indices.tolist() == [3, 5, 1]


def test_compute_nparams_toprune_rounds_halves_to_even():
    assert [prune._compute_nparams_toprune(0.5, n) for n in (1, 3, 5, 7)] == [0, 2, 2, 4]
    assert prune._compute_nparams_toprune(4, 10) == 4


@pytest.mark.parametrize("amount, error, message", [
    (-1, ValueError, "amount=-1 should either be a float in the range [0, 1] or a non-negative integer"),
    (1.5, ValueError, "amount=1.5 should either be a float in the range [0, 1] or a non-negative integer"),
    ("a", TypeError, "Invalid type for amount: a. Must be int or float."),
])
def test_bad_amounts_raise_pytorchs_errors(amount, error, message):
    with pytest.raises(error) as info:
        prune.l1_unstructured(linear(W), "weight", amount=amount)
    assert str(info.value) == message


def test_too_large_an_amount_raises_and_leaves_the_module_as_it_was():
    m = linear(W)
    with pytest.raises(ValueError) as info:
        prune.l1_unstructured(m, "weight", amount=5)
    assert str(info.value) == "amount=5 should be smaller than the number of parameters to prune=4"
    assert [n for n, _ in m.named_parameters()] == ["bias", "weight"] and not m._forward_pre_hooks
    assert isinstance(m.weight, ag.nn.Parameter) and not hasattr(m, "weight_orig")


def test_structured_errors():
    with pytest.raises(ValueError) as info:
        prune.ln_structured(linear(W), "bias", amount=1, n=2, dim=0)
    assert str(info.value) == ("Structured pruning can only be applied to multidimensional tensors. Found tensor "
                               "of shape torch.Size([2]) with 1 dims")
    with pytest.raises(IndexError) as info:
        prune.random_structured(linear(W), "weight", amount=1, dim=2)
    assert str(info.value) == "Invalid index 2 for tensor of size torch.Size([2, 2])"


def test_remove_of_an_unpruned_tensor_raises():
    with pytest.raises(ValueError, match=r"Parameter 'weight' of module Linear\(.*\) has to be pruned before pruning"
                                         r" can be removed"):
        prune.remove(linear(W), "weight")


def test_global_unstructured_refuses_a_structured_method():
    with pytest.raises(TypeError, match='Only "unstructured" PRUNING_TYPE supported'):
        prune.global_unstructured([(linear(W), "weight")], prune.RandomStructured, amount=1)
    with pytest.raises(TypeError, match="parameters is not an Iterable"):
        prune.global_unstructured(3, prune.L1Unstructured, amount=1)
