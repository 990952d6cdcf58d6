"""``gradcheck`` and ``gradgradcheck``: compare backward with central differences, as PyTorch does.

Slow mode builds both Jacobians column by column and compares them elementwise,
``|analytical - numerical| <= atol + rtol * |numerical|``. Fast mode compares one random
projection vᵀJu of each. Central differences with eps = 1e-6 are accurate to ~1e-10 in
float64 but only ~0.06 in float32: hence the warning for inputs that are not float64.

>>> from diffcompare import autograd as ag
>>> x = ag.tensor([0.5, -1.0, 2.0], requires_grad=True)
>>> ag.gradcheck(ag.sin, (x,))
True
"""

from __future__ import annotations

import warnings

import numpy as np

from .backward import grad
from .printing import format_array
from .tensor import Tensor

FAST_MODE_SEED = 67280421310721


class GradcheckError(RuntimeError):
    """Raised when the analytical and numerical derivatives disagree."""


def _as_tuple(x):
    return (x,) if isinstance(x, Tensor) or not isinstance(x, (tuple, list)) else tuple(x)


def _differentiable_inputs(inputs):
    return [i for i, t in enumerate(inputs) if isinstance(t, Tensor) and t.requires_grad]


def _check_inputs(inputs):
    diff = _differentiable_inputs(inputs)
    for i in diff:
        t = inputs[i]
        if t.dtype != np.float64:
            warnings.warn(f"Input #{i} requires gradient and is not a double precision floating point or complex. "
                          "This check will likely fail if all the inputs are not of double precision floating "
                          "point or complex. ", UserWarning, stacklevel=3)
        if t.numel() > 1 and 0 in t._data.strides:
            raise RuntimeError(f"The {i}th input has a dimension with stride 0. gradcheck only supports inputs that "
                               "are non-overlapping to be able to compute the numerical gradients correctly. You "
                               "should call .contiguous on the input before passing it to gradcheck.")
    if not diff:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but none of them have "
                         "requires_grad=True.")
    return diff


def _outputs(func, inputs):
    return _as_tuple(func(*inputs))


def _numerical_outputs(func, inputs):
    # Not under no_grad: for gradgradcheck the function itself runs a backward.
    return [np.array(o._data, dtype=o.dtype if o.dtype.kind == "f" else np.float64)
            if isinstance(o, Tensor) else None for o in _outputs(func, inputs)]


def numerical_jacobian(func, inputs, eps=1e-6):
    """J[k][o]: shape (inputs[k].numel(), outputs[o].numel()), by central differences,
    perturbing each element in place: f(x - eps), then f(x + eps), then restore."""
    diff = _differentiable_inputs(inputs)
    base = _numerical_outputs(func, inputs)
    jac = {}
    for k in diff:
        array = inputs[k]._data
        cols = [np.zeros((array.size, 0 if b is None else b.size)) for b in base]
        for i, idx in enumerate(np.ndindex(array.shape)):
            orig = array[idx]
            array[idx] = orig - eps
            outa = _numerical_outputs(func, inputs)
            array[idx] = orig + eps
            outb = _numerical_outputs(func, inputs)
            array[idx] = orig
            for o, (a, b) in enumerate(zip(outa, outb)):
                if a is not None:
                    if a.shape != base[o].shape:
                        raise AssertionError("the output's shape changed under perturbation")
                    cols[o][i] = ((b - a) / (2 * eps)).reshape(-1)
        jac[k] = cols
    return jac


def analytical_jacobian(func, inputs, nondet_tol=0.0):
    """J[k][o] by one backward per output element (done twice to check reentrancy)."""
    diff = _differentiable_inputs(inputs)
    diff_inputs = [inputs[k] for k in diff]
    outputs = _outputs(func, inputs)
    jac = {k: [] for k in diff}
    for o, out in enumerate(outputs):
        mats = {k: np.zeros((inputs[k].numel(), out.numel() if isinstance(out, Tensor) else 0)) for k in diff}
        if isinstance(out, Tensor) and out.requires_grad:
            for j in range(out.numel()):
                one_hot = np.zeros(out.numel(), dtype=out.dtype)
                one_hot[j] = 1
                seed = Tensor._make(one_hot.reshape(out.shape))
                first = grad(out, diff_inputs, seed, retain_graph=True, allow_unused=True)
                second = grad(out, diff_inputs, seed, retain_graph=True, allow_unused=True)
                for k, g1, g2 in zip(diff, first, second):
                    a = np.zeros(inputs[k].numel()) if g1 is None else g1._data.reshape(-1)
                    b = np.zeros(inputs[k].numel()) if g2 is None else g2._data.reshape(-1)
                    if g1 is not None and g1.shape != inputs[k].shape:
                        raise GradcheckError("Analytical gradient has incorrect size")
                    if np.max(np.abs(a - b), initial=0) > nondet_tol:
                        raise GradcheckError(
                            "Backward is not reentrant, i.e., running backward with same input and grad_output "
                            "multiple times gives different values, although analytical gradient matches "
                            f"numerical gradient.The tolerance for nondeterminism was {nondet_tol}.")
                    mats[k][:, j] = a
        for k in diff:
            jac[k].append(mats[k])
    return jac, outputs


def _show(matrix):
    return format_array(np.asarray(matrix))


def _worst(a, n):
    diff = np.abs(a - n)
    diff = np.where(np.isnan(diff), np.inf, diff)
    i, j = np.unravel_index(np.argmax(diff), diff.shape)
    return (f"The worst element: input element {i}, output element {j}: numerical {float(n[i, j])!r}, "
            f"analytical {float(a[i, j])!r}, difference {float(abs(a[i, j] - n[i, j]))!r}.")


def _close(a, n, rtol, atol):
    return np.allclose(a, n, rtol=rtol, atol=atol, equal_nan=False)


def _slow_compare(func, inputs, eps, atol, rtol, nondet_tol):
    numerical = numerical_jacobian(func, inputs, eps)
    analytical, outputs = analytical_jacobian(func, inputs, nondet_tol)
    if not any(isinstance(o, Tensor) and o.requires_grad for o in outputs):
        for k, mats in numerical.items():
            if any(np.any(m != 0) for m in mats):
                return "Numerical gradient for function expected to be zero"
        return None
    for o in range(len(outputs)):
        for pos, k in enumerate(numerical):
            n, a = numerical[k][o], analytical[k][o]
            if not _close(a, n, rtol, atol):
                return (f"Jacobian mismatch for output {o} with respect to input {k},\n"
                        f"numerical:{_show(n)}\nanalytical:{_show(a)}\n\n{_worst(a, n)}\n")
    return None


def _check_mul_by_grad_output(func, inputs):
    outputs = [o for o in _outputs(func, inputs) if isinstance(o, Tensor) and o.requires_grad]
    if not outputs:
        return None
    diff_inputs = [inputs[k] for k in _differentiable_inputs(inputs)]
    zeros = [Tensor._make(np.zeros(o.shape, dtype=o.dtype)) for o in outputs]
    grads = grad(outputs, diff_inputs, zeros, allow_unused=True)
    for g, t in zip(grads, diff_inputs):
        if g is None:
            continue
        if g.shape != t.shape or g.dtype != t.dtype:
            return "grad is incorrect type/device/size"
        if np.any(g._data != 0):
            return "backward not multiplied by grad_output"
    return None


def _fast_compare(func, inputs, eps, atol, rtol, nondet_tol):
    rng = np.random.default_rng(FAST_MODE_SEED)
    diff = _differentiable_inputs(inputs)
    outputs = [o for o in _outputs(func, inputs)]
    us = {k: rng.random(inputs[k].numel()) for k in diff}
    us = {k: u / np.linalg.norm(u) for k, u in us.items()}
    vs = []
    for o in outputs:
        v = rng.random(o.numel()) if isinstance(o, Tensor) else None
        vs.append(None if v is None else v / np.linalg.norm(v))
    for k in diff:
        array = inputs[k]._data
        orig = array.copy()
        step = (eps * us[k]).reshape(array.shape)
        array[...] = orig - step
        outa = _numerical_outputs(func, inputs)
        array[...] = orig + step
        outb = _numerical_outputs(func, inputs)
        array[...] = orig
        for o, out in enumerate(outputs):
            if vs[o] is None:
                continue
            numerical = float(vs[o] @ ((outb[o] - outa[o]) / (2 * eps)).reshape(-1))
            if isinstance(out, Tensor) and out.requires_grad:
                seed = Tensor._make(vs[o].reshape(out.shape).astype(out.dtype))
                (g,) = grad(out, inputs[k], seed, retain_graph=True, allow_unused=True)
                analytical = 0.0 if g is None else float(g._data.reshape(-1) @ us[k])
            else:
                analytical = 0.0
            adjusted_atol = atol * float(us[k].sum()) * float(vs[o].sum())
            if not np.isclose(analytical, numerical, rtol=rtol, atol=adjusted_atol):
                message = (f"Jacobian mismatch for output {o} with respect to input {k},\n"
                           f"numerical:{numerical!r}\nanalytical:{analytical!r}\n\n"
                           "The above quantities relating the numerical and analytical jacobians are computed \n"
                           "in fast mode (one random projection v^T J u of each). Below, we recompute numerical "
                           "and analytical jacobians in slow mode:\n\n")
                n = numerical_jacobian(func, inputs, eps)[k][o]
                a = analytical_jacobian(func, inputs, nondet_tol)[0][k][o]
                message += (f"Numerical:\n {_show(n)}\nAnalytical:\n{_show(a)}\n\n"
                            f"The max per-element difference (slow mode) is: {float(np.max(np.abs(a - n)))}.\n"
                            f"{_worst(a, n)}\n")
                if _close(a, n, rtol, atol):
                    message += ("\nFast gradcheck failed but element-wise differences are small. This means that the "
                                "test might've passed in slow_mode!\n")
                return message
    return None


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True, nondet_tol=0.0,
              check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
              check_batched_forward_grad=False, check_forward_ad=False, check_backward_ad=True,
              fast_mode=False, masked=None) -> bool:
    """Check the gradients of ``func`` at ``inputs`` against central differences.

    Returns True, or raises :class:`GradcheckError` (returns False with
    ``raise_exception=False``) with both Jacobians and the worst element.

    The signature is PyTorch's; the options about batched, forward-mode, sparse and
    undefined gradients are accepted and have no effect (the engine has none of those).
    """
    inputs = _as_tuple(inputs)
    _check_inputs(inputs)
    failure = (_fast_compare if fast_mode else _slow_compare)(func, inputs, eps, atol, rtol, nondet_tol)
    if failure is None and check_backward_ad:
        failure = _check_mul_by_grad_output(func, inputs)
    if failure is None:
        return True
    if raise_exception:
        raise GradcheckError(failure)
    return False


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
                  check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False, masked=False) -> bool:
    """Check second derivatives: ``gradcheck`` of the function (inputs, v) ↦ vᵀJ(inputs).

    Without ``grad_outputs``, v is drawn uniformly from [-1, 1] (seeded, so runs repeat).

    >>> from diffcompare import autograd as ag
    >>> x = ag.tensor([0.5, -1.0, 2.0], requires_grad=True)
    >>> ag.gradgradcheck(lambda t: t.sin() * t, (x,))
    True
    """
    inputs = _as_tuple(inputs)
    diff = _differentiable_inputs(inputs)
    outputs = _as_tuple(func(*inputs))
    if grad_outputs is None:
        rng = np.random.default_rng(FAST_MODE_SEED)
        grad_outputs = tuple(
            Tensor._make(rng.uniform(-1, 1, o.shape).astype(o.dtype), True)
            for o in outputs if isinstance(o, Tensor) and o.requires_grad)
    else:
        grad_outputs = _as_tuple(grad_outputs)
    n_inputs = len(inputs)

    def new_func(*args):
        xs, vs = args[:n_inputs], args[n_inputs:]
        outs = [o for o in _as_tuple(func(*xs)) if isinstance(o, Tensor) and o.requires_grad]
        diff_xs = [xs[k] for k in diff]
        grads = grad(outs, diff_xs, vs, create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(new_func, inputs + tuple(grad_outputs), eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, nondet_tol=nondet_tol, fast_mode=fast_mode)
