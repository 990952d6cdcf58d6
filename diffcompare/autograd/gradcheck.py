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

from diffcompare.stencil import CENTRAL, combine, sample

from . import forward_ad
from .backward import grad
from .graph import Node, edge_of, init_node
from .tensor import Tensor

FAST_MODE_SEED = 67280421310721


class GradcheckError(RuntimeError):
    """Raised when the analytical and numerical derivatives disagree."""


EPS, ATOL, RTOL = 1e-6, 1e-5, 1e-3      # torch.autograd.gradcheck's defaults: the step and the tolerances


def _as_tuple(x):
    return (x,) if isinstance(x, Tensor) or not isinstance(x, (tuple, list)) else tuple(x)


def _differentiable_inputs(inputs):
    return [i for i, t in enumerate(inputs) if isinstance(t, Tensor) and t.requires_grad]


def _check_inputs(inputs):
    diff = _differentiable_inputs(inputs)
    for i in diff:
        t = inputs[i]
        if t.dtype != np.float64 and t.dtype != np.complex128:
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


def numerical_jacobian(func, inputs, eps=EPS):
    """J[k][o]: shape (inputs[k].numel(), outputs[o].numel()), by central differences
    (:data:`diffcompare.stencil.CENTRAL`), perturbing each element in place: f(x - eps),
    then f(x + eps), then restore; each output's differences in its own dtype.

    >>> from diffcompare import autograd as ag
    >>> x = ag.tensor([1.0, 2.0], requires_grad=True)
    >>> numerical_jacobian(lambda t: t * t, (x,), eps=0.5)[0][0]    # ((x+h)² - (x-h)²) / 2h = 2x, h = 0.5
    array([[2., 0.],
           [0., 4.]])
    """
    diff = _differentiable_inputs(inputs)
    base = _numerical_outputs(func, inputs)
    jac = {}
    for k in diff:
        array = inputs[k]._data
        cols = [np.zeros((array.size, 0 if b is None else b.size)) for b in base]
        for i, idx in enumerate(np.ndindex(array.shape)):
            orig = array[idx]

            def at(step, idx=idx, orig=orig):
                array[idx] = orig + step
                return _numerical_outputs(func, inputs)
            samples = sample(at, eps, CENTRAL)
            array[idx] = orig
            for o, outs in enumerate(zip(*samples)):
                if outs[0] is not None:
                    if any(out.shape != base[o].shape for out in outs):
                        raise AssertionError("the output's shape changed under perturbation")
                    cols[o][i] = combine(outs, eps, CENTRAL).reshape(-1)
        jac[k] = cols
    return jac


def analytical_jacobian(func, inputs, nondet_tol=0.0):
    """J[k][o] by one backward per output element (done twice to check reentrancy)."""
    diff = _differentiable_inputs(inputs)
    outputs = _outputs(func, inputs)
    jac = {k: [] for k in diff}
    for o, out in enumerate(outputs):
        mats = {k: np.zeros((inputs[k].numel(), out.numel() if isinstance(out, Tensor) else 0)) for k in diff}
        if isinstance(out, Tensor) and out.requires_grad:
            for j in range(out.numel()):
                for k, a in zip(diff, _backward_row(out, j, 1, inputs, diff, nondet_tol)):
                    mats[k][:, j] = a
        for k in diff:
            jac[k].append(mats[k])
    return jac, outputs


def _backward_row(out, j, value, inputs, diff, nondet_tol):
    """The gradients (flat arrays, zeros for an unused input) of the differentiable inputs
    ``diff`` for the grad_output ``value`` at element j of ``out``; the backward is run twice
    and must give the same both times (``nondet_tol``), and the right shapes."""
    one_hot = np.zeros(out.numel(), dtype=out.dtype)
    one_hot[j] = value
    seed = Tensor._make(one_hot.reshape(out.shape))
    diff_inputs = [inputs[k] for k in diff]
    first = grad(out, diff_inputs, seed, retain_graph=True, allow_unused=True)
    second = grad(out, diff_inputs, seed, retain_graph=True, allow_unused=True)
    rows = []
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
        rows.append(a)
    return rows


def forward_jacobian(func, inputs):
    """J[k][o] as :func:`analytical_jacobian` lays it out, by forward-mode AD: one pass per
    element of each differentiable input, its tangent one-hot (the others' zero)."""
    diff = _differentiable_inputs(inputs)
    outputs = _outputs(func, inputs)
    jac = {k: [np.zeros((inputs[k].numel(), o.numel() if isinstance(o, Tensor) else 0)) for o in outputs]
           for k in diff}
    for k in diff:
        for i, tangents in _forward_columns(func, inputs, k):
            for o, tangent in enumerate(tangents):
                if tangent is not None:
                    jac[k][o][i] = tangent
    return jac


def _forward_columns(func, inputs, k, value=1):
    """``(i, tangents)`` for each element i of input k: the outputs' tangents (flat arrays, None
    for an output without one) along the direction ``value`` at i, by one forward-mode pass."""
    n = inputs[k].numel()
    for i in range(n):
        one_hot = np.zeros(n, dtype=inputs[k].dtype)
        one_hot[i] = value
        with forward_ad.dual_level():
            duals = list(inputs)
            duals[k] = forward_ad.make_dual(inputs[k], Tensor._make(one_hot.reshape(inputs[k].shape)))
            tangents = []
            for out in _as_tuple(func(*duals)):
                tangent = forward_ad.split_dual(out).tangent if isinstance(out, Tensor) else None
                tangents.append(None if tangent is None else tangent._data.reshape(-1))
        yield i, tangents


def _forward_compare(func, inputs, eps, atol, rtol):
    numerical = numerical_jacobian(func, inputs, eps)
    forward = forward_jacobian(func, inputs)
    for k in numerical:
        for o, (n, a) in enumerate(zip(numerical[k], forward[k])):
            if not _close(a, n, rtol, atol):
                return (f"Jacobian computed with forward mode mismatch for output {o} with respect to input {k},\n"
                        f"numerical:{_show(n)}\nanalytical:{_show(a)}\n\n{_worst(a, n)}\n")
    return None


def _show(matrix):
    """A Jacobian as PyTorch prints it in gradcheck's message: as a tensor."""
    return repr(Tensor._make(np.asarray(matrix)))


def _worst(a, n):
    diff = np.abs(a - n)
    diff = np.where(np.isnan(diff), np.inf, diff)
    i, j = np.unravel_index(np.argmax(diff), diff.shape)
    value = complex if np.iscomplexobj(a) or np.iscomplexobj(n) else float
    return (f"The worst element: input element {i}, output element {j}: numerical {value(n[i, j])!r}, "
            f"analytical {value(a[i, j])!r}, difference {float(abs(a[i, j] - n[i, j]))!r}.")


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

        def at(step, u=us[k]):          # x moved by step · u
            array[...] = orig + (step * u).reshape(array.shape)
            return _numerical_outputs(func, inputs)
        samples = sample(at, eps, CENTRAL)
        array[...] = orig
        for o, out in enumerate(outputs):
            if vs[o] is None:
                continue
            numerical = float(vs[o] @ combine([s[o] for s in samples], eps, CENTRAL).reshape(-1))
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
                           "in fast mode. See: https://github.com/pytorch/pytorch/issues/53876 for more background \n"
                           "about fast mode. Below, we recompute numerical and analytical jacobians in slow mode:\n\n")
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


class UndefinedGrad(Node):
    """Passes no gradient on: what an output's gradient is when nothing asked for it."""

    def _apply(self, grads, create_graph):
        return (None,)


def _undefined(t):
    """``t`` behind an UndefinedGrad node: whatever gradient it gets, its producer gets none."""
    node = init_node(UndefinedGrad(), [edge_of(t)])
    return Tensor._make(t._data, True, node)


UNDEFINED_GRAD_ERROR = ('Expected backward function to handle undefined output grads. Please look at "Notes about '
                        'undefined output gradients" in "tools/autograd/derivatives.yaml"')


def _check_undefined_grad(func, inputs):
    """Backward with undefined output gradients (all at once, then one at a time when there are
    several outputs) must not fail and must give None or zeros, as PyTorch's check does."""
    diff_inputs = [inputs[k] for k in _differentiable_inputs(inputs)]

    def differentiable():
        return [o for o in _outputs(func, inputs) if isinstance(o, Tensor) and o.requires_grad]

    outputs = differentiable()
    cases = [[_undefined(o) for o in outputs]]
    if len(outputs) > 1:
        for index in range(len(outputs)):
            cases.append([_undefined(o) if i == index else o for i, o in enumerate(differentiable())])
    for case in cases:
        zeros = [Tensor._make(np.zeros(o.shape, dtype=o.dtype)) for o in case]
        try:
            grads = grad(case, diff_inputs, zeros, allow_unused=True)
        except (RuntimeError, TypeError, ValueError, AttributeError) as error:
            return f"{UNDEFINED_GRAD_ERROR} (backward raised {type(error).__name__}: {error})"
        if any(g is not None and np.any(g._data != 0) for g in grads):
            return ("Expected all input grads to be undefined or zero when all output grads are undefined or zero. "
                    'Please look at "Notes about undefined output gradients" in "tools/autograd/derivatives.yaml"')
    return None


def _check_batched_grad(func, inputs):
    """A batch of two random grad_outputs in one batched backward (``is_grads_batched``) must
    give what one backward per row gives."""
    diff = _differentiable_inputs(inputs)
    diff_inputs = [inputs[k] for k in diff]
    rng = np.random.default_rng(FAST_MODE_SEED)
    for o, out in enumerate(_outputs(func, inputs)):
        if not (isinstance(out, Tensor) and out.requires_grad):
            continue
        seeds = rng.standard_normal((2,) + tuple(out.shape)).astype(out.dtype)
        try:
            batched = grad(out, diff_inputs, Tensor._make(seeds), retain_graph=True, allow_unused=True,
                           is_grads_batched=True)
        except (RuntimeError, TypeError, ValueError) as error:
            return f"While computing batched gradients, got: {error}"
        rows = [grad(out, diff_inputs, Tensor._make(s), retain_graph=True, allow_unused=True) for s in seeds]
        for pos, k in enumerate(diff):
            got = np.zeros((2,) + tuple(inputs[k].shape)) if batched[pos] is None else batched[pos]._data
            want = np.stack([np.zeros(inputs[k].shape) if r[pos] is None else r[pos]._data for r in rows])
            if not np.allclose(got, want, rtol=1e-10, atol=1e-12, equal_nan=True):
                return (f"For output {o} and input {k}:\n\nbatched grad (one backward over the batch):\n"
                        f"{_show(got)}\nexpected (one backward per row):\n{_show(want)}\n")
    return None


def _check_grad_dtypes(func, inputs):
    diff_inputs = [inputs[k] for k in _differentiable_inputs(inputs)]
    outputs = [o for o in _outputs(func, inputs) if isinstance(o, Tensor) and o.requires_grad]
    if not outputs:
        return None
    seeds = [Tensor._make(np.ones(o.shape, dtype=o.dtype)) for o in outputs]
    for g, t in zip(grad(outputs, diff_inputs, seeds, allow_unused=True), diff_inputs):
        if g is not None and g.dtype != t.dtype:
            return "Gradient has dtype mismatch"
    return None


def _refuse_unsupported(forward_option=None, masked=None):
    """Options the engine cannot honour are refused, never accepted and ignored."""
    if forward_option:
        raise NotImplementedError(f"{forward_option}=True: the engine's forward mode carries one tangent at a time "
                                  f"(no batched tangents), so this could not be checked; leave {forward_option} "
                                  f"False (check_forward_ad checks forward mode itself)")
    if masked:
        raise NotImplementedError("masked=True: the engine has no sparse tensors; leave masked unset")


# -- complex inputs and outputs ---------------------------------------------------------------
#
# A complex number is checked as its two real coordinates, as PyTorch's gradcheck does: the
# Jacobian of (Re f, Im f) with respect to (Re z, Im z). Numerically, each element of z moves by
# ±eps and by ±eps·i. Analytically, for a real loss L the gradient PyTorch gives z is
# ∂L/∂Re z + i ∂L/∂Im z, and the grad_output of L = Re f_j is 1 at j, of L = Im f_j is i at j:
# so one backward per output element and part gives a row of each real block. In forward
# mode the tangent along eps (eps·i) gives the derivatives with respect to Re z (Im z).

_PARTS = {"real": 1, "imag": 1j}


def _parts(t):
    """The real coordinates of a tensor: ("real",) or ("real", "imag") for a complex one."""
    return ("real", "imag") if isinstance(t, Tensor) and t.dtype.kind == "c" else ("real",)


def _take(values, part):
    return np.imag(values) if part == "imag" else np.real(values)


def _has_complex(func, inputs):
    diff = _differentiable_inputs(inputs)
    return any(inputs[k].dtype.kind == "c" for k in diff) or \
        any(isinstance(o, Tensor) and o.dtype.kind == "c" for o in _outputs(func, inputs))


def _complex_outputs(func, inputs):
    return [np.array(o._data) if isinstance(o, Tensor) else None for o in _outputs(func, inputs)]


def complex_numerical_jacobian(func, inputs, eps=EPS):
    """J[k][o][(input part, output part)]: shape (inputs[k].numel(), outputs[o].numel()), the
    derivatives of an output's real (imaginary) part with respect to an input's real
    (imaginary) parts, by central differences.

    >>> from diffcompare import autograd as ag
    >>> z = ag.tensor([1 + 2j], requires_grad=True)
    >>> J = complex_numerical_jacobian(lambda t: t * t, (z,), eps=0.5)[0][0]   # z² = x² - y² + 2ixy
    >>> [J[part].tolist() for part in [("real", "real"), ("real", "imag"), ("imag", "real"), ("imag", "imag")]]
    [[[2.0]], [[4.0]], [[-4.0]], [[2.0]]]
    """
    diff = _differentiable_inputs(inputs)
    base = _complex_outputs(func, inputs)
    outputs = _outputs(func, inputs)
    jac = {}
    for k in diff:
        array = inputs[k]._data
        blocks = [{(p, q): np.zeros((array.size, 0 if b is None else b.size)) for p in _parts(inputs[k])
                   for q in _parts(out)} for b, out in zip(base, outputs)]
        for p in _parts(inputs[k]):
            direction = _PARTS[p]
            for i, idx in enumerate(np.ndindex(array.shape)):
                orig = array[idx]

                def at(step, idx=idx, orig=orig):
                    array[idx] = orig + step * direction
                    return _complex_outputs(func, inputs)
                samples = sample(at, eps, CENTRAL)
                array[idx] = orig
                for o, outs in enumerate(zip(*samples)):
                    if outs[0] is None:
                        continue
                    if any(out.shape != base[o].shape for out in outs):
                        raise AssertionError("the output's shape changed under perturbation")
                    derivative = combine([np.asarray(out, dtype=np.result_type(out.dtype, np.float64)) for out in outs],
                                         eps, CENTRAL).reshape(-1)
                    for q in _parts(outputs[o]):
                        blocks[o][p, q][i] = _take(derivative, q)
        jac[k] = blocks
    return jac


def complex_analytical_jacobian(func, inputs, nondet_tol=0.0):
    """J laid out as :func:`complex_numerical_jacobian`'s, by one backward per output element
    and part (grad_output 1, or i for the imaginary part), done twice to check reentrancy."""
    diff = _differentiable_inputs(inputs)
    outputs = _outputs(func, inputs)
    jac = {k: [] for k in diff}
    for out in outputs:
        size = out.numel() if isinstance(out, Tensor) else 0
        mats = {k: {(p, q): np.zeros((inputs[k].numel(), size)) for p in _parts(inputs[k]) for q in _parts(out)}
                for k in diff}
        if isinstance(out, Tensor) and out.requires_grad:
            for q in _parts(out):
                for j in range(size):
                    for k, a in zip(diff, _backward_row(out, j, _PARTS[q], inputs, diff, nondet_tol)):
                        for p in _parts(inputs[k]):
                            mats[k][p, q][:, j] = _take(a, p)
        for k in diff:
            jac[k].append(mats[k])
    return jac, outputs


def complex_forward_jacobian(func, inputs):
    """J laid out as :func:`complex_numerical_jacobian`'s, by forward mode: one pass per input
    element and part, its tangent 1 (or i) there."""
    diff = _differentiable_inputs(inputs)
    outputs = _outputs(func, inputs)
    jac = {k: [{(p, q): np.zeros((inputs[k].numel(), o.numel() if isinstance(o, Tensor) else 0))
                for p in _parts(inputs[k]) for q in _parts(o)} for o in outputs] for k in diff}
    for k in diff:
        for p in _parts(inputs[k]):
            for i, tangents in _forward_columns(func, inputs, k, _PARTS[p]):
                for o, tangent in enumerate(tangents):
                    if tangent is not None:
                        for q in _parts(outputs[o]):
                            jac[k][o][p, q][i] = _take(tangent, q)
    return jac


def _complex_compare(func, inputs, eps, atol, rtol, nondet_tol, forward=False):
    """The Jacobians compared as PyTorch's gradcheck compares them for complex values: backward
    mode takes the imaginary, then the real part of complex outputs, each against inputs in
    PyTorch's convention (a complex input's row is d/dRe + i d/dIm); forward mode takes the
    imaginary, then the real part of complex inputs, each against whole (complex) outputs."""
    numerical = complex_numerical_jacobian(func, inputs, eps)
    outputs = _outputs(func, inputs)
    if forward:
        other = complex_forward_jacobian(func, inputs)
    else:
        other, outputs = complex_analytical_jacobian(func, inputs, nondet_tol)
        if not any(isinstance(o, Tensor) and o.requires_grad for o in outputs):
            for k, blocks in numerical.items():
                if any(np.any(m != 0) for b in blocks for m in b.values()):
                    return "Numerical gradient for function expected to be zero"
            return None
    diff = list(numerical)
    split = [inputs[k] for k in diff] if forward else [o for o in outputs if isinstance(o, Tensor)]
    for part in (("imag", "real") if any(t.dtype.kind == "c" for t in split) else ("real",)):
        for k in diff:
            for o, out in enumerate(outputs):
                if not isinstance(out, Tensor):
                    continue
                if forward:     # the input's part, the output whole
                    if part not in _parts(inputs[k]):
                        continue
                    n, a = (_joined({q: J[k][o][part, q] for q in _parts(out)}) for J in (numerical, other))
                    complex_ = inputs[k].dtype.kind == "c"
                else:           # the output's part, the input whole
                    if part not in _parts(out):
                        continue
                    n, a = (_joined({p: J[k][o][p, part] for p in _parts(inputs[k])}) for J in (numerical, other))
                    complex_ = out.dtype.kind == "c"
                if not _close(a, n, rtol, atol):
                    name = "imaginary" if part == "imag" else "real"
                    prefix = (f"While considering the {name} part of complex {'inputs' if forward else 'outputs'} "
                              "only, ") if complex_ else ""
                    mode = "computed with forward mode " if forward else ""
                    return (f"{prefix}Jacobian {mode}mismatch for output {o} with respect to input {k},\n"
                            f"numerical:{_show(n)}\nanalytical:{_show(a)}\n\n{_worst(a, n)}\n")
    return None


def _joined(blocks):
    """A real block, or a complex matrix from its real and imaginary blocks."""
    return blocks["real"] if "imag" not in blocks else blocks["real"] + 1j * blocks["imag"]


def gradcheck(func, inputs, *, eps=EPS, atol=ATOL, rtol=RTOL, raise_exception=True, nondet_tol=0.0,
              check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
              check_batched_forward_grad=False, check_forward_ad=False, check_backward_ad=True,
              fast_mode=False, masked=None) -> bool:
    """Check the gradients of ``func`` at ``inputs`` against central differences.

    Returns True, or raises :class:`GradcheckError` (returns False with
    ``raise_exception=False``) with both Jacobians and the worst element.

    The signature and checks are PyTorch's: the Jacobians (slow mode, or one random
    projection in ``fast_mode``), backward multiplied by grad_output, undefined output
    gradients (``check_undefined_grad``), a batched backward against one backward per row
    (``check_batched_grad``) and the gradients' dtypes (``check_grad_dtypes``).
    ``check_forward_ad`` checks the Jacobian by forward-mode AD (one pass per input element)
    against the same differences; with ``check_backward_ad=False`` it is the only check.
    ``check_batched_forward_grad`` and ``masked`` are refused (NotImplementedError): the
    engine has no batched tangents and no sparse tensors, and an option it accepts is one
    it honours.

    >>> from diffcompare import autograd as ag
    >>> x = ag.tensor([0.5, -1.0, 2.0], requires_grad=True)
    >>> ag.gradcheck(lambda t: t.exp() * t, (x,), check_batched_grad=True)
    True
    """
    _refuse_unsupported("check_batched_forward_grad" if check_batched_forward_grad else None, masked)
    if not (check_backward_ad or check_forward_ad):
        raise ValueError("nothing to check: Expected at least one of check_forward_ad or check_backward_ad to be True")
    inputs = _as_tuple(inputs)
    _check_inputs(inputs)
    complex_ = _has_complex(func, inputs)
    failure = None
    if check_forward_ad:
        failure = _complex_compare(func, inputs, eps, atol, rtol, nondet_tol, forward=True) if complex_ else \
            _forward_compare(func, inputs, eps, atol, rtol)
    if failure is None and not check_backward_ad:
        return _finish(failure, raise_exception)
    if failure is None:
        if complex_:        # (fast mode too: every real block, which is the slower, stricter check)
            failure = _complex_compare(func, inputs, eps, atol, rtol, nondet_tol)
        else:
            failure = (_fast_compare if fast_mode else _slow_compare)(func, inputs, eps, atol, rtol, nondet_tol)
    checks = [_check_mul_by_grad_output]
    if check_grad_dtypes:
        checks.append(_check_grad_dtypes)
    if check_batched_grad:
        checks.append(_check_batched_grad)
    if check_undefined_grad:
        checks.append(_check_undefined_grad)
    for check in checks:
        if failure is not None:
            break
        failure = check(func, inputs)
    return _finish(failure, raise_exception)


def _finish(failure, raise_exception) -> bool:
    if failure is None:
        return True
    if raise_exception:
        raise GradcheckError(failure)
    return False


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=EPS, atol=ATOL, rtol=RTOL,
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
    _refuse_unsupported(None, masked)
    if not (check_rev_over_rev or check_fwd_over_rev):
        raise ValueError("nothing to check: Expected at least one of check_fwd_over_rev or check_rev_over_rev to be "
                         "True")
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
    if gen_non_contig_grad_outputs:
        grad_outputs = tuple(_non_contiguous(v) for v in grad_outputs)
    n_inputs = len(inputs)

    def new_func(*args):
        xs, vs = args[:n_inputs], args[n_inputs:]
        outs = [o for o in _as_tuple(func(*xs)) if isinstance(o, Tensor) and o.requires_grad]
        diff_xs = [xs[k] for k in diff]
        grads = grad(outs, diff_xs, vs, create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(new_func, inputs + tuple(grad_outputs), eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, nondet_tol=nondet_tol, fast_mode=fast_mode,
                     check_undefined_grad=check_undefined_grad, check_grad_dtypes=check_grad_dtypes,
                     check_batched_grad=check_batched_grad, check_forward_ad=check_fwd_over_rev,
                     check_backward_ad=check_rev_over_rev)


def _non_contiguous(v):
    """The same values in memory that is not contiguous (every other element of a larger array)."""
    if v.numel() <= 1:
        return v
    wide = np.zeros(tuple(v.shape) + (2,), dtype=v.dtype)
    wide[..., 0] = v._data
    return Tensor._make(wide[..., 0], v.requires_grad)
