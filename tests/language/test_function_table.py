"""Walk the whole function table: at each row's sample points, every world computes the
same value, and every world's derivative agrees with SymPy's exact one."""

import math

import mpmath
import numpy as np
import pytest
import sympy

from diffcompare import autograd as ag
from diffcompare.language.expression import parse
from diffcompare.language.table import CALLABLE, CONSTANTS, KNOWN_NAMES, ROWS

REQUIRED = ("sin cos tan asin acos atan atan2 sinh cosh tanh asinh acosh atanh exp expm1 log log1p log2 log10 "
            "sqrt cbrt abs sign sigmoid softplus relu erf hypot min max pow").split()

CASES = [(row, args) for row in ROWS.values() if not row.structural for args in row.samples]
ARRAY_CASES = [(row, args) for row in ROWS.values() if row.structural for args in row.samples]
ARRAY_IDS = [f"{row.name}{tuple(np.shape(a) for a in args)}" for row, args in ARRAY_CASES]
IDS = [f"{row.name}{args}" for row, args in CASES]


def test_the_table_has_every_required_function_and_the_constants():
    assert set(REQUIRED) <= set(CALLABLE)
    assert set(CONSTANTS) == {"pi", "e"}
    assert sorted(KNOWN_NAMES) == sorted(set(CALLABLE) | set(CONSTANTS))


@pytest.mark.parametrize("name", sorted(CALLABLE))
def test_the_parser_accepts_exactly_the_table_names(name):
    row = CALLABLE[name]
    expression = parse(f"{name}({', '.join('xyz'[:row.arity])})")
    assert name in expression.functions


def _mp(args):
    return [mpmath.mpf(a) for a in args]


@pytest.mark.parametrize("row, args", CASES, ids=IDS)
def test_the_worlds_agree_on_the_value(row, args):
    with mpmath.workdps(40):
        exact = row.mpmath(*_mp(args))
        symbols = sympy.symbols(f"a0:{row.arity}", real=True) if row.arity else ()
        symbolic = row.sympy(*symbols).evalf(40, subs={s: sympy.Rational(a) for s, a in zip(symbols, args)})
        assert abs(mpmath.mpf(sympy.Float(symbolic, 40)._mpf_) - exact) <= 1e-30 * max(1, abs(exact))
        expected = float(exact)
    tolerance = 4 * math.ulp(expected) + 1e-300
    assert abs(float(row.numpy(*map(np.float64, args))) - expected) <= tolerance
    engine = row.engine(*[ag.tensor(a) for a in args])
    assert abs(float(engine.item() if isinstance(engine, ag.Tensor) else engine) - expected) <= tolerance
    if row.complex is not None:
        value = complex(np.asarray(row.complex(*[complex(a) for a in args])).reshape(-1)[0])
        assert abs(value.real - expected) <= tolerance and abs(value.imag) <= 1e-300


@pytest.mark.parametrize("row, args", [c for c in CASES if c[0].arity], ids=[i for c, i in zip(CASES, IDS)
                                                                            if c[0].arity])
def test_each_world_differentiates_like_sympy(row, args):
    symbols = sympy.symbols(f"a0:{row.arity}", real=True)
    subs = {s: sympy.Rational(a) for s, a in zip(symbols, args)}
    for i, symbol in enumerate(symbols):
        exact = float(sympy.diff(row.sympy(*symbols), symbol).evalf(30, subs=subs))
        tolerance = 1e-13 * max(1.0, abs(exact))

        # the engine's backward rule
        leaves = [ag.tensor(a, requires_grad=True) for a in args]
        row.engine(*leaves).backward()
        assert abs(leaves[i].grad.item() - exact) <= tolerance, "engine"

        # mpmath: a high-precision numerical derivative of the mpmath form
        with mpmath.workdps(30):
            point = _mp(args)

            def along(t):
                moved = list(point)
                moved[i] = t
                return row.mpmath(*moved)
            assert abs(float(mpmath.diff(along, point[i])) - exact) <= tolerance, "mpmath"

        # the complex form: a complex step along this argument
        if row.complex is not None:
            h = 1e-20
            moved = [complex(a) for a in args]
            moved[i] = complex(args[i], h)
            value = complex(np.asarray(row.complex(*moved)).reshape(-1)[0])
            assert abs(value.imag / h - exact) <= tolerance, "complex step"


def test_rows_without_a_complex_form_say_why():
    for row in ROWS.values():
        if row.complex is None:
            assert "not analytic" in row.not_complex_safe


@pytest.mark.parametrize("name", ["relu", "abs", "sign", "min", "max", "clamp", "hypot", "sqrt", "cbrt"])
def test_kinks_are_recognised_and_explained(name):
    row = ROWS[name]
    args = (0.0,) * row.arity
    assert bool(row.kink(*args)) and row.kink_note
    away = tuple(0.5 + i for i in range(row.arity))
    assert not bool(row.kink(*away))


def _symbol_arrays(args):
    """One SymPy symbol per element of each argument, and their values as exact rationals."""
    arrays, subs = [], {}
    for k, a in enumerate(args):
        symbols = np.array([sympy.Symbol(f"a{k}_{i}", real=True) for i in range(a.size)], dtype=object)
        subs.update({s: sympy.Rational(float(v)) for s, v in zip(symbols, a.ravel())})
        arrays.append(symbols.reshape(a.shape))
    return arrays, subs


def test_the_array_rows_are_in_the_table_and_parse():
    assert {"sum", "prod", "mean", "norm", "dot", "matmul"} <= {r.name for r, _ in ARRAY_CASES}
    assert parse("x @ A").functions == {"matmul"} and "index" in parse("x[1:]").functions


@pytest.mark.parametrize("row, args", ARRAY_CASES, ids=ARRAY_IDS)
def test_the_array_rows_agree_in_every_world(row, args):
    symbols, subs = _symbol_arrays(args)
    symbolic = np.ravel(np.asarray(row.sympy(*symbols), dtype=object))
    with mpmath.workdps(40):
        objects = [np.array([mpmath.mpf(float(v)) for v in a.ravel()], dtype=object).reshape(a.shape) for a in args]
        exact = [row.mpmath(*objects)]
        exact = list(np.ravel(np.asarray(exact[0], dtype=object)))
        for e, s in zip(exact, symbolic):
            assert abs(mpmath.mpf(sympy.Float(s.evalf(40, subs=subs), 40)._mpf_) - e) <= 1e-30 * max(1, abs(e))
        expected = np.array([float(e) for e in exact])
    tolerance = 8 * np.spacing(np.abs(expected)) + 1e-300
    assert np.all(np.abs(np.ravel(row.numpy(*args)) - expected) <= tolerance)
    engine = row.engine(*[ag.tensor(a) for a in args])
    assert np.all(np.abs(np.ravel(engine.numpy()) - expected) <= tolerance)
    value = np.ravel(row.complex(*[a.astype(complex) for a in args]))
    assert np.all(np.abs(value.real - expected) <= tolerance) and np.all(value.imag == 0)


@pytest.mark.parametrize("row, args", ARRAY_CASES, ids=ARRAY_IDS)
def test_the_engine_differentiates_the_array_rows_like_sympy(row, args):
    symbols, subs = _symbol_arrays(args)
    total = sympy.Add(*np.ravel(np.asarray(row.sympy(*symbols), dtype=object)))
    leaves = [ag.tensor(a, requires_grad=True) for a in args]
    row.engine(*leaves).sum().backward()
    for leaf, array in zip(leaves, symbols):
        exact = np.array([float(sympy.diff(total, s).evalf(30, subs=subs)) for s in array.ravel()])
        assert np.allclose(leaf.grad.numpy().ravel(), exact, rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("row, args", CASES, ids=IDS)
def test_the_jax_world_agrees_and_differentiates_like_sympy(row, args):
    """Every row's JAX form (its jax column, or jax.numpy's function of its name): the value,
    and jax.grad against SymPy's derivative."""
    pytest.importorskip("jax")
    from diffcompare.language.jax_world import jax_form, load
    jnp = load().numpy
    form = jax_form(row)
    with mpmath.workdps(40):
        expected = float(row.mpmath(*_mp(args)))
    value = float(form(*[jnp.float64(a) for a in args]))
    # XLA's CPU kernels are not all correctly rounded (log1p(-0.4) is 50 ulp off): 1e-13 relative
    assert abs(value - expected) <= 1e-13 * max(1.0, abs(expected))
    symbols = sympy.symbols(f"a0:{row.arity}", real=True) if row.arity else ()
    subs = {s: sympy.Rational(a) for s, a in zip(symbols, args)}
    for i, symbol in enumerate(symbols):
        exact = float(sympy.diff(row.sympy(*symbols), symbol).evalf(30, subs=subs))
        grad = load().grad(lambda *xs: form(*xs), argnums=i)(*[jnp.float64(a) for a in args])
        assert abs(float(grad) - exact) <= 1e-13 * max(1.0, abs(exact)), row.name
