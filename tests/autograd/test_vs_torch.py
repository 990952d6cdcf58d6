"""Differential tests against PyTorch itself, live (skipped cleanly when torch is absent):
every scenario of differential.py must give the same record on both engines."""

import warnings

import pytest

from diffcompare import autograd as ag

import differential

torch = pytest.importorskip("torch")
_, TORCH_SPELLING = differential.torch_namespace()


@pytest.mark.parametrize("scenario", differential.scenario_ids())
def test_same_as_pytorch(scenario):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")      # torch's deprecation notes (x.T on 3-d) are not ours
        theirs = differential.run_scenario(scenario, torch, TORCH_SPELLING)
    ours = differential.run_scenario(scenario, ag, ag)
    differential.assert_records_match(ours, theirs)


def test_inplace_error_names_the_same_producer():
    code = "x = T.tensor([1., 2.], requires_grad=True); y = x.exp(); y.add_(1); y.sum().backward()"
    theirs, ours = differential.error_record(torch, code), differential.error_record(ag, code)
    prefix = "one of the variables needed for gradient computation has been modified by an inplace operation"
    assert theirs["message"].startswith(prefix) and ours["message"].startswith(prefix)
    assert "is at version 1; expected version 0 instead" in ours["message"]


@pytest.mark.filterwarnings("ignore::FutureWarning")
def test_gradcheck_numerical_jacobian_matches_torch():
    import numpy as np
    from torch.autograd.gradcheck import get_numerical_jacobian

    from diffcompare.autograd.gradcheck import numerical_jacobian

    xv = np.array([[0.3, -1.2], [0.7, 2.0], [1.1, -0.4]])
    x, tx = ag.tensor(xv, requires_grad=True), torch.tensor(xv, requires_grad=True)
    ours = numerical_jacobian(lambda t: (t.sin() * t.sum()).reshape(3, 2) ** 2, (x,))[0][0]
    theirs = get_numerical_jacobian(lambda inp: (inp[0].sin() * inp[0].sum()).reshape(3, 2) ** 2, (tx,),
                                    eps=1e-6)[0].numpy()
    np.testing.assert_allclose(ours, theirs, atol=1e-8)
