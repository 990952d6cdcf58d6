"""``optimizer.state[p]``, differentially against PyTorch: keyed by the parameter, its entries
tensors under PyTorch's names and dtypes (``step`` a 0-d tensor), the same objects that
``state_dict()`` hands out and ``load_state_dict`` keeps, and read and written by training
code between steps; the buffers after one and two steps are also checked by hand."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from diffcompare import autograd as ag  # noqa: E402

W0 = np.array([[1.0, -2.0, 0.5], [0.25, 3.0, -1.5]])
GRADS = [np.array([[0.3, -0.1, 0.2], [1.0, -0.5, 0.05]]), np.array([[-0.2, 0.4, 0.1], [0.5, 0.5, -0.3]])]


pytestmark = pytest.mark.usefixtures("torch_float64")     # PyTorch in float64, as the engine


OPTIMIZERS = [
    ("SGD", {"lr": 0.1, "momentum": 0.9}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True}),
    ("Adam", {"lr": 0.1}),
    ("Adam", {"lr": 0.1, "amsgrad": True}),
    ("AdamW", {"lr": 0.1, "weight_decay": 0.1}),
    ("RMSprop", {"lr": 0.01}),
    ("RMSprop", {"lr": 0.01, "momentum": 0.5, "centered": True}),
    ("Adagrad", {"lr": 0.1}),
    ("Adadelta", {}),
    ("Adamax", {}),
    ("NAdam", {}),
    ("RAdam", {}),
    ("ASGD", {}),
    ("Rprop", {}),
]


def _steps(lib, name, kwargs, n=2):
    w = lib.tensor(W0, requires_grad=True)
    opt = getattr(lib.optim, name)([w], **kwargs)
    for g in GRADS[:n]:
        w.grad = lib.tensor(g)
        opt.step()
    return w, opt


@pytest.mark.parametrize("name, kwargs", OPTIMIZERS)
def test_state_is_keyed_by_the_parameter_and_holds_pytorchs_tensors(name, kwargs):
    w, opt = _steps(ag, name, kwargs)
    tw, topt = _steps(torch, name, kwargs)
    assert list(opt.state) == [w] and w in opt.state
    state, tstate = opt.state[w], topt.state[tw]
    assert list(state) == list(tstate)
    for key, value in tstate.items():
        assert isinstance(state[key], ag.Tensor), key
        assert str(state[key].dtype) == str(value.dtype).replace("torch.", ""), key
        assert tuple(state[key].shape) == tuple(value.shape), key
        np.testing.assert_allclose(state[key].numpy(), value.numpy(), rtol=1e-12, atol=1e-15, err_msg=key)
    np.testing.assert_allclose(w.detach().numpy(), tw.detach().numpy(), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("name, kwargs", OPTIMIZERS)
def test_state_dict_hands_out_the_states_own_tensors(name, kwargs):
    for lib in (ag, torch):
        w, opt = _steps(lib, name, kwargs)
        saved = opt.state_dict()["state"][0]
        assert all(saved[k] is v for k, v in opt.state[w].items())
        other = getattr(lib.optim, name)([w], **kwargs)
        other.load_state_dict(opt.state_dict())
        assert all(other.state[w][k] is v for k, v in saved.items())


def test_state_of_a_parameter_without_one_is_an_empty_dict():
    w = ag.tensor([1.0], requires_grad=True)
    opt = ag.optim.Adam([w])
    assert opt.state[w] == {} and not opt.state_dict()["state"][0]
    opt.step()                                     # no gradient: nothing happens
    assert opt.state[w] == {}


def test_adam_buffers_by_hand():
    w, opt = _steps(ag, "Adam", {"lr": 0.1, "betas": (0.9, 0.999)}, n=1)
    state = opt.state[w]
    assert state["step"].item() == 1.0 and state["step"].dim() == 0
    np.testing.assert_allclose(state["exp_avg"].numpy(), 0.1 * GRADS[0], rtol=1e-15)
    np.testing.assert_allclose(state["exp_avg_sq"].numpy(), 0.001 * GRADS[0] ** 2, rtol=1e-14)
    # the first step moves every coordinate by lr against the gradient's sign (up to eps)
    np.testing.assert_allclose(w.detach().numpy(), W0 - 0.1 * np.sign(GRADS[0]), rtol=1e-6)


def test_sgd_momentum_buffer_by_hand():
    w, opt = _steps(ag, "SGD", {"lr": 0.1, "momentum": 0.9})
    np.testing.assert_allclose(opt.state[w]["momentum_buffer"].numpy(), 0.9 * GRADS[0] + GRADS[1], rtol=1e-15)


def test_writing_the_state_between_steps_acts_as_in_pytorch():
    """Training code that resets or rescales the moments in place, or replaces a buffer."""
    results = {}
    for L in (ag, torch):
        w, opt = _steps(L, "Adam", {"lr": 0.1}, n=1)
        state = opt.state[w]
        state["exp_avg"].zero_()
        state["exp_avg_sq"].mul_(4.0)
        w.grad = L.tensor(GRADS[1])
        opt.step()
        sgd_w, sgd = _steps(L, "SGD", {"lr": 0.1, "momentum": 0.5}, n=1)
        sgd.state[sgd_w]["momentum_buffer"] = L.tensor(np.ones((2, 3)))
        sgd_w.grad = L.tensor(GRADS[1])
        sgd.step()
        results[L] = [w.detach().numpy(), state["exp_avg"].numpy(), state["step"].item(), sgd_w.detach().numpy(),
                      sgd.state[sgd_w]["momentum_buffer"].numpy()]
    for m, t in zip(results[ag], results[torch]):
        np.testing.assert_allclose(m, t, rtol=1e-12, atol=1e-15)
    # by hand: the zeroed first moment holds (1 - beta1) g2 after the second step
    np.testing.assert_allclose(results[ag][1], 0.1 * GRADS[1], rtol=1e-15)


def test_loading_pytorchs_state_gives_engine_tensors_in_pytorchs_dtypes():
    tw, topt = _steps(torch, "Adam", {"lr": 0.1})
    w = ag.tensor(tw.detach().numpy(), requires_grad=True)      # where PyTorch's run is
    opt = ag.optim.Adam([w], lr=0.1)
    opt.load_state_dict(topt.state_dict())
    assert all(isinstance(v, ag.Tensor) for v in opt.state[w].values())
    assert str(opt.state[w]["step"].dtype) == str(topt.state[tw]["step"].dtype).replace("torch.", "")
    w.grad, tw.grad = ag.tensor(GRADS[0]), torch.tensor(GRADS[0])
    opt.step()
    topt.step()
    np.testing.assert_allclose(w.detach().numpy(), tw.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(opt.state[w]["exp_avg_sq"].numpy(), topt.state[tw]["exp_avg_sq"].numpy(), rtol=1e-12)
