"""PyTorch's ``torch._foreach_*`` functions: one op over a list of tensors at once, as
optimizers written for PyTorch's "foreach" implementations call them (``_foreach_mul_(params,
1 - lr * wd)``, ``_foreach_lerp_(exp_avgs, grads, 1 - beta1)``). Each applies the tensor op of
the same name to every tensor of the list; a second operand is a list of the same length (one
per tensor) or one number or tensor for all. The in-place forms (``_foreach_add_``) change the
tensors (and return their list, as PyTorch's); the others return the list of results, recorded
as the ops are.

>>> from diffcompare import autograd as ag
>>> xs = [ag.ones(2), ag.ones(3)]
>>> ag._foreach_add_(xs, [ag.ones(2), ag.full((3,), 2.0)], alpha=2) == xs
True
>>> xs
[tensor([3., 3.]), tensor([5., 5., 5.])]
>>> ag._foreach_mul(xs, 0.5), ag._foreach_norm(xs)
([tensor([1.5000, 1.5000]), tensor([2.5000, 2.5000, 2.5000])], [tensor(4.2426), tensor(8.6603)])
"""

from __future__ import annotations

# the tensor methods PyTorch offers a foreach form of: one operand, a second one, two more
UNARY = ("abs", "acos", "asin", "atan", "ceil", "cos", "cosh", "erf", "erfc", "exp", "expm1", "floor", "frac",
         "lgamma", "log", "log10", "log1p", "log2", "neg", "reciprocal", "round", "rsqrt", "sigmoid", "sign", "sin",
         "sinh", "sqrt", "tan", "tanh", "trunc")
BINARY = ("add", "sub", "mul", "div", "maximum", "minimum", "clamp_min", "clamp_max", "pow")
TERNARY = ("lerp", "addcmul", "addcdiv")


def _each(operand, n):
    """A second operand per tensor: the list itself, or one value repeated."""
    if isinstance(operand, (list, tuple)):
        if len(operand) != n:
            raise RuntimeError(f"Tensor lists must have the same number of tensors, got {n} and {len(operand)}")
        return list(operand)
    return [operand] * n


def _foreach(method, arity, in_place):
    """The foreach function of the tensor method ``method`` taking ``arity`` operands."""
    name = method + ("_" if in_place else "")

    def run(self, *operands, **kwargs):
        tensors = list(self)
        if len(operands) != arity - 1:
            raise TypeError(f"_foreach_{name}() takes {arity} operands, got {1 + len(operands)}")
        columns = [_each(op, len(tensors)) for op in operands]
        results = [getattr(t, name)(*args, **kwargs) for t, *args in zip(tensors, *columns)]
        return tensors if in_place else results

    run.__name__ = run.__qualname__ = f"_foreach_{name}"
    run.__doc__ = f"``Tensor.{name}`` on each tensor of a list ({'in place' if in_place else 'the list of results'})."
    return run


_FUNCTIONS = {}
for _arity, _names in ((1, UNARY), (2, BINARY), (3, TERNARY)):
    for _name in _names:
        for _in_place in (False, True):
            _function = _foreach(_name, _arity, _in_place)
            _FUNCTIONS[_function.__name__] = _function
for _name, _arity, _in_place in (("zero", 1, True), ("max", 1, False), ("clone", 1, False), ("copy", 2, True)):
    _function = _foreach(_name, _arity, _in_place)
    _FUNCTIONS[_function.__name__] = _function


def _foreach_norm(self, ord=2, dtype=None):  # noqa: A002 - PyTorch's name
    """The vector norm of each tensor of a list, as 0-d tensors."""
    return [t.norm(ord, dtype=dtype) if dtype is not None else t.norm(ord) for t in self]


_FUNCTIONS["_foreach_norm"] = _foreach_norm
globals().update(_FUNCTIONS)

# the torch-level functions of this family (`ag._foreach_mul_`, as `torch._foreach_mul_`)
PUBLIC = tuple(sorted(_FUNCTIONS))
# what the family exports to `ops`
__all__ = [*PUBLIC]
