"""PyTorch's deprecated overloads that put a number before the tensors it scales, still
common in older training code: ``p.data.add_(-lr, grad)``, ``exp_avg.add_(1 - beta1, grad)``,
``exp_avg_sq.addcmul_(1 - beta2, grad, grad)``, ``p.data.addcdiv_(-step, exp_avg, denom)``.
PyTorch runs them with a warning; so does the engine.

>>> import warnings
>>> from diffcompare import autograd as ag
>>> with warnings.catch_warnings():
...     warnings.simplefilter("ignore")
...     ag.zeros(2).add_(-0.5, ag.ones(2))
tensor([-0.5000, -0.5000])
"""

from __future__ import annotations

import numbers
import warnings

from ..tensor import Tensor


def scalar_argument(name, parameter, value):
    """``value`` as the Number that PyTorch's argument parser takes for ``parameter`` of
    ``name``: a Python or NumPy number, or a 0-d tensor that does not require grad (its value);
    anything else is PyTorch's TypeError.

    >>> from diffcompare import autograd as ag
    >>> scalar_argument("add", "alpha", ag.tensor(0.5)), scalar_argument("add", "alpha", 2)
    (0.5, 2)
    >>> scalar_argument("add", "alpha", ag.ones(1))
    Traceback (most recent call last):
    TypeError: add(): argument 'alpha' must be Number, not Tensor
    """
    value = _number(value)
    if isinstance(value, numbers.Number):
        return value
    raise TypeError(f"{name}(): argument '{parameter}' must be Number, not {type(value).__name__}")


def _number(value):
    """A 0-d tensor that does not require grad as its value (PyTorch's parser takes it for a
    Number); anything else as it is."""
    if isinstance(value, Tensor) and value.ndim == 0 and not value.requires_grad:
        return value.item()
    return value


def _type_name(value):
    return "Tensor" if isinstance(value, Tensor) else type(value).__name__


def number_first(name, number, tensors, rest, scalar_name, tensor_names):
    """``(number, tensors)`` of a call of ``name`` in its deprecated order (Number scalar,
    Tensor, ...): ``number`` and ``tensors`` are what arrived in the places of the current
    order's tensors, ``rest`` the extra positional arguments after them. A 0-d tensor that
    does not require grad is a Number here too (a learning rate that became one)."""
    given = [number, *tensors, *rest]
    number = _number(number)
    count = len(tensor_names)
    if len(given) != count + 1:
        got = ", ".join(_type_name(v) if i < count and isinstance(v, Tensor) else f"!{_type_name(v)}!"
                        for i, v in enumerate(given))
        expected = ", ".join([f"Tensor {t}" for t in tensor_names] + [f"*, Number {scalar_name} = 1"])
        raise TypeError(f"{name}() received an invalid combination of arguments - got ({got}), but expected "
                        f"({expected})")
    if not isinstance(number, numbers.Number) or not all(isinstance(t, Tensor) for t in given[1:]):
        raise TypeError(f"{name}() takes {count} positional argument{'s' if count > 1 else ''} but {len(given)} "
                        f"were given")
    old = ", ".join([f"Number {scalar_name}"] + [f"Tensor {t}" for t in tensor_names])
    new = ", ".join([f"Tensor {t}" for t in tensor_names] + [f"*, Number {scalar_name} = 1"])
    _warn_deprecated(name, old, new, stacklevel=5)
    return number, given[1:]


def _warn_deprecated(name, old, new, stacklevel):
    """PyTorch's warning for a call of ``name`` in a deprecated overload (``old``'s signature)."""
    warnings.warn(f"This overload of {name} is deprecated:\n\t{name}({old})\nConsider using one of the following "
                  f"signatures instead:\n\t{name}({new})", UserWarning, stacklevel=stacklevel)


def scales_first(name, tensor_names):
    """Decorate ``name(input, t1, t2, *, beta=1, alpha=1)`` to take also PyTorch's deprecated
    orders, with its warning: the method's ``x.addmm_(beta, alpha, mat1, mat2)`` and
    ``x.addmm(beta, mat1, mat2)`` (CenterLoss's ``distmat.addmm_(1, -2, x, centers.t())``),
    and the function's ``torch.addmm(beta, input, alpha, mat1, mat2)`` and
    ``torch.addmm(beta, input, mat1, mat2)``.

    >>> import warnings
    >>> from diffcompare import autograd as ag
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     ag.ones(1, 1).addmm(1, -2, ag.ones(1, 2), ag.ones(2, 1))
    tensor([[-3.]])
    >>> str(caught[0].message).splitlines()[1].strip()
    'addmm(Number beta, Number alpha, Tensor mat1, Tensor mat2)'
    """
    first, second = tensor_names

    def decorate(function):
        def call(input, tensor1, tensor2, *rest, **kwargs):
            if not rest:        # the current order (each deprecated one has four or five arguments)
                return function(input, tensor1, tensor2, **kwargs)
            given = (input, tensor1, tensor2, *rest)
            if not any(isinstance(a, numbers.Number) for a in given[:3]):
                return function(*given, **kwargs)
            method = isinstance(given[0], Tensor)    # x.addmm(beta, ...), else torch.addmm(beta, input, ...)
            input, beta, rest = (given[0], given[1], given[2:]) if method else (given[1], given[0], given[2:])
            form = ["Number beta"] if method else ["Number beta", "Tensor input"]
            if len(rest) == 3:
                kwargs["alpha"] = scalar_argument(name, "alpha", rest[0])
                form.append("Number alpha")
                rest = rest[1:]
            if len(rest) != 2 or not all(isinstance(t, Tensor) for t in rest):
                raise TypeError(f"{name}() received an invalid combination of arguments - got "
                                f"({', '.join(_type_name(a) for a in given)}), but expected "
                                f"(Tensor {first}, Tensor {second}, *, Number beta = 1, Number alpha = 1)")
            kwargs["beta"] = scalar_argument(name, "beta", beta)
            current = f"Tensor {first}, Tensor {second}, *, Number beta = 1, Number alpha = 1"
            old = ", ".join(form + [f"Tensor {first}", f"Tensor {second}"])
            if not method:
                current, old = f"Tensor input, {current}, Tensor out = None", f"{old}, *, Tensor out = None"
            _warn_deprecated(name, old, current, stacklevel=3)
            return function(input, *rest, **kwargs)

        call.__name__, call.__qualname__, call.__doc__ = function.__name__, function.__qualname__, function.__doc__
        return call

    return decorate


__all__ = ['number_first', 'scalar_argument', 'scales_first']
