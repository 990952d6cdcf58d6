"""diffcompare: differentiate a function three ways (reverse-mode AD, SymPy, finite
differences) and compare each against an exact high-precision reference.

>>> import diffcompare
>>> c = diffcompare.compare("x**2 * y", at={"x": 3, "y": 2}, methods="autograd,symbolic", repeat=1)
>>> c.method("autograd").estimate.values, c.exit_status
({'x': 12.0, 'y': 9.0}, 0)
"""

__version__ = "0.1.0"


def compare(f, at=None, **options):
    """Differentiate ``f`` at ``at`` by every method and compare with the exact reference:
    the gradient, or with ``kind=`` the Jacobian, vᵀJ, Jv or Hessian, at one point or at
    ``points=`` many (see :func:`diffcompare.pipeline.compare`, imported lazily to keep
    start-up quick)."""
    from .pipeline import compare as run
    return run(f, at, **options)


def explain(f, at, vector=None, check=False, label=None):
    """The backward pass of ``f`` at ``at`` node by node; with ``check=True``, the first
    node whose backward rule is wrong (see :func:`diffcompare.backward_pass.explain`)."""
    from .backward_pass import explain as run
    return run(f, at, vector=vector, check=check, label=label)


def step_sweep(f, at, variable=None, per_decade=1):
    """Finite-difference error against the step size (see :mod:`diffcompare.step_errors`)."""
    from .step_errors import step_sweep as run
    return run(f, at, variable=variable, per_decade=per_decade)


def swell(family, ns, template=None, timeout=10.0):
    """Expression swell of a family of functions (see :mod:`diffcompare.expression_swell`)."""
    from .expression_swell import swell as run
    return run(family, ns, template=template, timeout=timeout)


def audit(fn, domain=None, points=None, **options):
    """Audit autograd's gradient (Jacobian, Hessian) of ``fn`` over ``domain`` and at
    ``points`` against the exact reference (see :func:`diffcompare.gradient_audit.audit`)."""
    from .gradient_audit import audit as run
    return run(fn, domain=domain, points=points, **options)


def __getattr__(name):
    # submodules on first use: diffcompare.functions, diffcompare.autograd, ...
    import importlib
    if name in ("functions", "autograd", "expression", "function_table", "testing"):
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'diffcompare' has no attribute {name!r}")
