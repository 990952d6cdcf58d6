"""The registry of methods: their names, which compute what (gradient, Jacobian, vᵀJ, Jv,
Hessian), and the checking of a user's list of methods.

>>> METHODS_FOR["vjp"][:2]
('autograd', 'autograd-full-J')
"""

from __future__ import annotations

from diffcompare.language.expression import nearest
from diffcompare.methods.finite_differences import FD_METHODS
from diffcompare.problem.errors import InputError
from diffcompare.problem.vocabulary import RENAMED_METHODS, example, renamed_method

METHODS = ("autograd", "symbolic") + FD_METHODS


def parse_methods(methods, allowed=METHODS, default=None, what: str = "") -> tuple:
    """Method names from a comma-separated string or a list, checked against ``allowed``
    (``what`` says what they compute, for the message); None gives ``default``.

    >>> parse_methods("autograd, central-difference")
    ('autograd', 'central-difference')
    >>> parse_methods("autograd,centrl")
    Traceback (most recent call last):
    ...
    diffcompare.problem.errors.InputError: unknown method 'centrl' (did you mean 'central-difference'?); choose from autograd, symbolic, forward-difference, backward-difference, central-difference, five-point, complex-step, richardson
    """
    if methods is None:
        return default or allowed
    names = [m.strip() for m in (methods.split(",") if isinstance(methods, str) else methods)]
    names = [renamed_method(m) for m in names if m]
    if not names:
        raise InputError(f"no method given; choose from {', '.join(allowed)}")
    for name in names:
        if name not in allowed:
            hint = nearest(name, list(allowed) + [old for old, new in RENAMED_METHODS.items() if new in allowed])
            hint = RENAMED_METHODS.get(hint, hint)      # "centrl": central-difference, as "central" is now
            problem = f"method {name!r} does not compute {what}" if what else f"unknown method {name!r}"
            raise InputError(problem + (f" (did you mean {hint!r}?)" if hint else "")
                             + f"; choose from {', '.join(allowed)}")
    return tuple(dict.fromkeys(names))


METHODS_FOR = {
    "gradient": ("autograd", "symbolic") + FD_METHODS,
    "jacobian": ("autograd", "forward-mode", "autograd-functional", "symbolic", "forward-difference", "central-difference", "complex-step"),
    "vjp": ("autograd", "autograd-full-J", "forward-mode", "symbolic", "forward-difference", "central-difference", "complex-step"),
    "jvp": ("autograd", "forward-mode", "autograd-functional", "symbolic", "forward-difference", "central-difference", "complex-step"),
    "hessian": ("autograd", "forward-mode", "autograd-functional", "symbolic", "second-differences", "mixed"),
}
PEERS = ("torch", "jax", "jax-jit")      # other engines: asked for by name (optional packages)
GIVEN = "given"                          # the user's own derivative (compare's gradient=, --gradient)
BY_NAME = ("symbolic-reverse",) + PEERS  # asked for by name, for every task
ALL_METHODS = {"gradient": ("autograd", "forward-mode", "symbolic") + FD_METHODS + BY_NAME + (GIVEN,),
               "jacobian": METHODS_FOR["jacobian"][:4] + FD_METHODS + BY_NAME + (GIVEN,),
               "vjp": METHODS_FOR["vjp"][:4] + ("autograd-functional",) + FD_METHODS + BY_NAME + (GIVEN,),
               "jvp": METHODS_FOR["jvp"][:4] + FD_METHODS + BY_NAME + (GIVEN,),
               "hessian": METHODS_FOR["hessian"] + BY_NAME + (GIVEN,)}


def parse_methods_for(kind: str, methods, given: bool = False) -> tuple:
    """The methods to run for ``kind``: the default set, or the user's list, checked;
    with the user's own derivative (``given``), its method too.

    >>> parse_methods_for("gradient", "autograd", given=True)
    ('autograd', 'given')
    """
    names = parse_methods(methods, ALL_METHODS[kind], METHODS_FOR[kind], f"the {kind}")
    if GIVEN in names and not given:
        raise InputError(f"method 'given' is your own derivative: name its function with "
                         f"{example('gradient', 'module:function', 'your_derivative')}")
    return names + (GIVEN,) * (given and GIVEN not in names)
