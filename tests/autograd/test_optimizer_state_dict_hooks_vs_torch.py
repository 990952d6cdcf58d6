"""``Optimizer.register_state_dict_pre_hook``/``post_hook`` and
``register_load_state_dict_pre_hook``/``post_hook``: when they run, in which order
(``prepend``), with what, and what a returned dict replaces; the state dict PyTorch's optim page
adapts to renamed parameters loads as in PyTorch."""

from copy import deepcopy

import pytest

from diffcompare import autograd as ag

torch = pytest.importorskip("torch")


def _trace(lib):
    seen = []
    model = lib.nn.Linear(2, 1)
    with lib.no_grad():
        model.weight.copy_(lib.tensor([[0.5, -0.25]]))
        model.bias.fill_(0.1)
    optimizer = lib.optim.SGD(model.named_parameters(), lr=0.1, momentum=0.9)
    model(lib.ones(1, 2)).sum().backward()
    optimizer.step()
    optimizer.register_state_dict_pre_hook(lambda opt: seen.append(("pre", type(opt).__name__)))
    optimizer.register_state_dict_post_hook(lambda opt, sd: seen.append(("post", sorted(sd))))
    optimizer.register_state_dict_post_hook(lambda opt, sd: {**sd, "extra": 1}, prepend=True)
    state = optimizer.state_dict()
    seen.append(("keys", sorted(state)))

    def rename(opt, sd):
        seen.append(("load pre", sd["param_groups"][0]["param_names"]))
        adapted = deepcopy(sd)
        adapted["param_groups"][0]["lr"] = 0.5
        return adapted
    handle = optimizer.register_load_state_dict_pre_hook(rename)
    optimizer.register_load_state_dict_post_hook(lambda opt: seen.append(("load post", opt.param_groups[0]["lr"])))
    optimizer.load_state_dict(state)
    handle.remove()
    optimizer.load_state_dict(state)
    seen.append(("after", optimizer.param_groups[0]["lr"],
                 [v.tolist() for v in optimizer.state_dict()["state"][0].values()]))
    return seen


def test_state_dict_hooks_run_as_in_pytorch(torch_float64):
    assert _trace(ag) == _trace(torch)
