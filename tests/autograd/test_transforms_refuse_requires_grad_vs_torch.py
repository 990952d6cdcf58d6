"""Inside a function that ``torch.func`` transforms, PyTorch refuses ``Tensor.requires_grad_()``
(and so ``torch.autograd.functional``'s APIs) and allows the attribute's setter, factories'
``requires_grad=True`` and ``nn.Parameter``: the engine, compared with PyTorch."""

import pytest

from diffcompare import autograd as ag

torch = pytest.importorskip("torch")

# each body: what the transformed function does besides returning a scalar of x (lib: the library)
BODIES = {
    "requires_grad_() on a clone": lambda lib, x: x.clone().requires_grad_().sum(),
    "requires_grad_(False) on a detached copy": lambda lib, x: x.detach().requires_grad_(False).sum(),
    "requires_grad_() on a new constant": lambda lib, x: (lib.ones(2).requires_grad_() * x).sum(),
    "autograd.functional.jacobian": lambda lib, x: lib.autograd.functional.jacobian(lambda y: y ** 2, x).sum(),
    "the requires_grad setter": lambda lib, x: (setattr(x.detach(), "requires_grad", True), x.sum())[1],
    "a factory's requires_grad=True": lambda lib, x: lib.ones(2, requires_grad=True).sum() * x.sum(),
    "tensor(..., requires_grad=True)": lambda lib, x: lib.tensor([1.0, 2.0], requires_grad=True).sum() * x.sum(),
    "an nn.Parameter": lambda lib, x: (lib.nn.Parameter(lib.ones(2)) * x).sum(),
}
TRANSFORMS = {
    "vmap": lambda lib, f: lib.func.vmap(f)(lib.ones(3, 2)),
    "grad": lambda lib, f: lib.func.grad(f)(lib.ones(2)),
    "jacrev": lambda lib, f: lib.func.jacrev(f)(lib.ones(2)),
    "jacfwd": lambda lib, f: lib.func.jacfwd(f)(lib.ones(2)),
    "vjp": lambda lib, f: lib.func.vjp(f, lib.ones(2))[0],
    "jvp": lambda lib, f: lib.func.jvp(f, (lib.ones(2),), (lib.ones(2),))[1],
}


def _outcome(lib, transform, body):
    try:
        value = TRANSFORMS[transform](lib, lambda x: BODIES[body](lib, x))
    except RuntimeError as error:
        return "RuntimeError", str(error)
    return "ok", value.detach().tolist()


@pytest.mark.parametrize("transform", sorted(TRANSFORMS))
@pytest.mark.parametrize("body", sorted(BODIES))
def test_what_is_refused_inside_a_transform_is_pytorchs(torch_float64, transform, body):
    assert _outcome(ag, transform, body) == _outcome(torch, transform, body)


def test_outside_a_transform_requires_grad_is_allowed_again():
    with pytest.raises(RuntimeError, match="functorch transform"):
        ag.func.grad(lambda x: x.clone().requires_grad_().sum())(ag.ones(2))
    assert ag.ones(2).requires_grad_().requires_grad
