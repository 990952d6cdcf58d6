"""The ``functorch`` names of the function transforms (PyTorch's former package, now
``torch.func``): ``from functorch import grad`` ports as
``from diffcompare.autograd.functorch import grad``.

>>> from diffcompare import autograd as ag
>>> from diffcompare.autograd.functorch import grad
>>> grad(lambda x: x * x)(ag.tensor(3.0))
tensor(6.)
"""

from .func import (functional_call, functionalize, grad, grad_and_value, hessian, jacfwd, jacrev, jvp, linearize, vjp,
                   vmap)
from .make_functional import (FunctionalModule, FunctionalModuleWithBuffers, combine_state_for_ensemble, make_functional,
                              make_functional_with_buffers)

__all__ = ["FunctionalModule", "FunctionalModuleWithBuffers", "combine_state_for_ensemble", "functional_call",
           "functionalize", "grad", "grad_and_value", "hessian", "jacfwd", "jacrev", "jvp", "linearize",
           "make_functional", "make_functional_with_buffers", "vjp", "vmap"]
