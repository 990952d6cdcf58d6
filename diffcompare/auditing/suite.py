"""Audit suites: the cases a gradient audit checks, read from TOML.

A case is an expression (text) or a Python function ``module:function`` — written with
:mod:`diffcompare.language.functions`, or an ``ag.Function`` subclass with its own backward —
with a domain per variable (a box ``[low, high]``) and/or explicit points, what to
check (gradient, jacobian, hessian), the dtype (float64, float32) and optional
tolerances. A bad case is kept with the reason (``Case.error``): the other cases still run.

>>> suite = parse_suite('''
... [[case]]
... name = "rosenbrock"
... expression = "100*(y - x**2)**2 + (1 - x)**2"
... domain = { x = [-2, 2], y = [-1, 3] }
... at = [{ x = 1, y = 1 }]
...
... [[case]]
... name = "typo"
... expression = "sinn(x)"
... domain = { x = [0, 1] }
... ''')
>>> [(c.name, c.check, c.dtype, c.domain) for c in suite.cases][0]
('rosenbrock', 'gradient', 'float64', {'x': (-2.0, 2.0), 'y': (-1.0, 3.0)})
>>> suite.cases[1].error
"in expression: unknown function 'sinn' — did you mean 'sin'? (column 1)\\n  sinn(x)\\n  ^"
"""

from __future__ import annotations

import inspect
import os
import re
from dataclasses import dataclass, field

import numpy as np

from diffcompare.auditing.collect import toml
from diffcompare.auditing.modules import imported, imported_file
from diffcompare.autograd.function import Function
from diffcompare.language.expression import ExpressionError, nearest, parse
from diffcompare.problem.errors import InputError
from diffcompare.problem.usercode import described, signature_problem
from diffcompare.problem.values import parse_number, parse_value, whole_number

CHECKS = ("gradient", "jacobian", "hessian")
DTYPES = ("float64", "float32")
CASE_KEYS = ("name", "expression", "function", "gradient", "reference", "domain", "shape", "at", "check", "dtype",
             "tolerance", "random")
TOLERANCE_KEYS = ("rtol", "atol")
SUITE_KEYS = ("case", "defaults")
DEFAULT_KEYS = ("check", "dtype", "tolerance", "random")
MAX_EXPLICIT_POINTS = 100_000
MAX_RANDOM = 1_000_000         # random points per case
MAX_ELEMENTS = 100_000          # elements of one array variable
FUNCTION_NAME = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_][\w.]*")   # module:function (an expression may hold x[1:])
FILE_FUNCTION = re.compile(r"[^\n]+\.py:[A-Za-z_][\w.]*")          # path/to/file.py:function


def names_function(text) -> bool:
    """Whether ``text`` names a Python function (``my_ops:swish``, ``path/to/ops.py:swish``)
    rather than being an expression (``sum(x[1:])``).

    >>> [names_function(t) for t in ("my_ops:swish", "lib/my_ops.py:swish", "sum(x[1:])", "x")]
    [True, True, False, False]
    """
    return isinstance(text, str) and any(p.fullmatch(text.strip()) is not None for p in (FUNCTION_NAME, FILE_FUNCTION))


@dataclass
class Case:
    """One function to audit, and how. ``function`` is "module:function" (imported from
    ``search_path`` first) or, from Python, the callable itself."""
    name: str
    expression: str | None = None
    function: object = None
    gradient: object = None                         # the user's own gradient ("module:function" or callable)
    domain: dict = field(default_factory=dict)      # variable -> (low, high), for each element of an array
    shape: dict = field(default_factory=dict)       # array variable -> its shape, when no point gives it
    at: list = field(default_factory=list)          # explicit points: [{variable: number or array}]
    check: str = "gradient"
    dtype: str = "float64"
    tolerance: dict = field(default_factory=dict)   # rtol / atol of autograd against the reference
    reference: str | None = None                    # the exact formula, when f cannot be traced
    random: int | None = None                       # random points in the domain (--points overrides)
    error: str = ""                                 # why the case cannot run (bad input)
    search_path: str | None = None

    @property
    def source(self) -> str:
        if self.expression is not None:
            return self.expression
        if isinstance(self.function, str):
            return self.function
        if self.function is not None:
            return f"{getattr(self.function, '__module__', '?')}:{getattr(self.function, '__qualname__', 'f')}"
        return ""

    @property
    def judged(self) -> str:
        """The gradient on trial: autograd's, or the user's own function's."""
        if self.gradient is None:
            return "autograd"
        if isinstance(self.gradient, str):
            return f"gradient {self.gradient}"
        return f"gradient {getattr(self.gradient, '__name__', 'g')}"

    def shapes(self) -> dict:
        """Each array variable's shape, from ``shape`` or the explicit points (numbers: absent)."""
        found = {name: tuple(s) for name, s in self.shape.items()}
        for point in self.at:
            for name, value in point.items():
                if np.ndim(value):
                    found.setdefault(name, np.shape(value))
        return found

    def centre(self) -> dict:
        """The middle of the domain, each array variable filled to its shape."""
        shapes = self.shapes()
        return {n: np.full(shapes[n], (lo + hi) / 2) if n in shapes else (lo + hi) / 2
                for n, (lo, hi) in self.domain.items()}


@dataclass
class Suite:
    path: str
    cases: list


def read_suite(path: str) -> Suite:
    """The suite in the TOML file ``path``; InputError when it cannot be read at all."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as error:
        raise InputError(f"cannot read the suite {path}: {error.strerror}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{path} is not UTF-8 text: an audit suite is a TOML file") from None
    return parse_suite(text, path, os.path.dirname(os.path.abspath(path)))


def parse_suite(text: str, path: str = "<suite>", search_path: str | None = None) -> Suite:
    """The suite in TOML ``text``; ``module:function`` is imported from ``search_path``."""
    tomllib = toml()
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise InputError(f"{path} is not valid TOML: {error}") from None
    except RecursionError:
        raise InputError(f"{path}: arrays or tables nested too deep for a suite") from None
    unknown = [k for k in data if k not in SUITE_KEYS]
    if unknown:
        raise InputError(f"{path}: unknown table {unknown[0]!r}{_hint(unknown[0], SUITE_KEYS)}; a suite has "
                         f"[defaults] and [[case]] tables")
    defaults = data.get("defaults", {})
    if not isinstance(defaults, dict):
        raise InputError(f"{path}: [defaults] must be a table")
    bad = [k for k in defaults if k not in DEFAULT_KEYS]
    if bad:
        raise InputError(f"{path}: [defaults] has {bad[0]!r}{_hint(bad[0], DEFAULT_KEYS)}; it may set "
                         f"{', '.join(DEFAULT_KEYS)}")
    entries = data.get("case", [])
    if not isinstance(entries, list) or not entries:
        raise InputError(f"{path} has no cases: add [[case]] tables, each with an expression or a function")
    cases = []
    for number, entry in enumerate(entries, 1):
        if not isinstance(entry, dict):
            cases.append(Case(f"case {number}", error=f"case {number} is not a table"))
            continue
        cases.append(make_case({**defaults, **entry}, f"case {number}", search_path))
    names = [c.name for c in cases]
    for i, case in enumerate(cases):
        if not case.error and names.count(case.name) > 1:
            case.name = f"{case.name} ({i + 1})"           # JUnit and JSON readers need unique names
    return Suite(path, cases)


def make_case(entry: dict, fallback_name: str = "case", search_path: str | None = None) -> Case:
    """A Case from one suite entry (a mapping); problems become ``Case.error``. A case that
    names user code ("module:function") is checked where it runs, in a worker: reading a
    suite never imports the user's modules (their code may crash, exit or hang)."""
    name = entry.get("name", fallback_name)
    case = Case(str(name), search_path=search_path)
    try:
        _fill(case, entry)
        if not isinstance(case.function, str) and not isinstance(case.gradient, str):
            resolve(case)
    except (InputError, ExpressionError) as error:
        case.error = str(error)
    return case


def _fill(case: Case, entry: dict):
    unknown = [k for k in entry if k not in CASE_KEYS]
    if unknown:
        raise InputError(f"unknown key {unknown[0]!r}{_hint(unknown[0], CASE_KEYS)}; a case may have "
                         f"{', '.join(CASE_KEYS)}")
    expression, function = entry.get("expression"), entry.get("function")
    if (expression is None) == (function is None):
        raise InputError("give exactly one of expression = \"...\" (text) or function = \"module:function\"")
    if expression is not None and not isinstance(expression, str):
        raise InputError("expression must be text, e.g. expression = \"sin(x) * y\"")
    if isinstance(function, str) and not names_function(function):
        raise InputError(f"function = {function!r}: write module:function, e.g. function = \"my_ops:swish\" (an "
                         f"expression goes in expression = {function!r})")
    case.expression, case.function = expression, function
    gradient = entry.get("gradient")
    if gradient is not None and not callable(gradient) and not names_function(gradient):
        raise InputError(f"gradient = {gradient!r}: write module:function, the function giving f's gradient at the "
                         f"same arguments, e.g. gradient = \"my_grads:rosenbrock_gradient\"")
    case.gradient = gradient
    reference = entry.get("reference")
    if reference is not None and not isinstance(reference, str):
        raise InputError("reference must be an expression (text) giving f exactly")
    case.reference = reference
    case.check = _choice(entry.get("check", "gradient"), CHECKS, "check")
    case.dtype = _choice(entry.get("dtype", "float64"), DTYPES, "dtype")
    case.domain = _domain(entry.get("domain", {}))
    case.shape = _shapes(entry.get("shape", {}))
    case.at = _explicit_points(entry.get("at", []))
    case.tolerance = _tolerance(entry.get("tolerance", {}))
    random = entry.get("random")
    if random is not None:
        whole_number(random, "random (the number of random points)", 0, MAX_RANDOM)
    case.random = random


def _choice(value, allowed, what):
    if value not in allowed:
        raise InputError(f"{what} = {value!r}{_hint(str(value), allowed)}; choose from {', '.join(allowed)}")
    return value


def _domain(domain) -> dict:
    if not isinstance(domain, dict):
        raise InputError("domain must be a table of bounds, e.g. domain = { x = [-2, 2], y = [0.1, 3] }")
    box = {}
    for name, bounds in domain.items():
        if not (isinstance(bounds, list) and len(bounds) == 2):
            raise InputError(f"domain {name} = {bounds!r}: give [low, high], e.g. {name} = [-2, 2]")
        low, high = (parse_number(name, b) for b in bounds)
        if not low < high:
            raise InputError(f"domain {name} = [{low:g}, {high:g}]: the low bound must be below the high one")
        box[name] = (low, high)
    return box


def _explicit_points(points) -> list:
    if isinstance(points, dict):
        points = [points]
    if not isinstance(points, list) or len(points) > MAX_EXPLICIT_POINTS:
        raise InputError("at must be a list of points, e.g. at = [{ x = 1, y = 2 }, { x = -1, y = 0.5 }]")
    out = []
    for k, point in enumerate(points, 1):
        if not isinstance(point, dict) or not point:
            raise InputError(f"at: point {k} must be a table of values, e.g. {{ x = 1, y = 2 }}")
        out.append({name: parse_value(name, value) for name, value in point.items()})
    return out


def _shapes(shapes) -> dict:
    """``{ x = [3], A = [2, 2] }``: the shapes of array variables whose values the domain gives."""
    if not isinstance(shapes, dict):
        raise InputError("shape must be a table of array shapes, e.g. shape = { x = [3], A = [2, 2] }")
    out = {}
    for name, shape in shapes.items():
        if isinstance(shape, int) and not isinstance(shape, bool):
            shape = [shape]
        if not (isinstance(shape, list) and 1 <= len(shape) <= 2
                and all(isinstance(k, int) and not isinstance(k, bool) and k >= 1 for k in shape)):
            raise InputError(f"shape {name} = {shape!r}: give a vector's length [n] or a matrix's [rows, columns], "
                             f"e.g. {name} = [3]")
        if int(np.prod(shape)) > MAX_ELEMENTS:
            raise InputError(f"shape {name} = {shape!r}: at most {MAX_ELEMENTS:,} elements per variable")
        out[name] = tuple(shape)
    return out


def _tolerance(tolerance) -> dict:
    if not isinstance(tolerance, dict):
        raise InputError("tolerance must be a table, e.g. tolerance = { rtol = 1e-10, atol = 1e-12 }")
    out = {}
    for key, value in tolerance.items():
        if key not in TOLERANCE_KEYS:
            raise InputError(f"tolerance has {key!r}{_hint(key, TOLERANCE_KEYS)}; it may set rtol and atol")
        number = parse_number(f"tolerance {key}", value)
        if number < 0:
            raise InputError(f"tolerance {key} = {value!r} must not be negative")
        out[key] = number
    return out


def _shape_text(shape) -> str:
    return "as a number" if not shape else f"the shape {list(shape)}"


def _hint(name, candidates) -> str:
    found = nearest(name, candidates)
    return f" (did you mean {found!r}?)" if found else ""


def resolve(case: Case):
    """(f, variables): the expression text or the callable, and its variables in order.
    Checks that every variable has a domain or explicit values; raises InputError."""
    if case.expression is not None:
        f = case.expression
        try:
            variables = parse(f).variables
        except ExpressionError as error:
            raise InputError(f"in expression: {error}") from None
        if not variables:
            raise InputError(f"{f!r} has no variables: there is nothing to differentiate")
    else:
        f = load_function(case.function, case.search_path)
        variables = _parameters(f, case.function)
    if case.reference is not None:
        try:
            ref_variables = parse(case.reference).variables
        except ExpressionError as error:
            raise InputError(f"in reference: {error}") from None
        extra = [v for v in ref_variables if v not in variables]
        if extra:
            raise InputError(f"reference uses {extra[0]!r}, which is not a variable of f ({', '.join(variables)})")
    for name in list(case.domain) + list(case.shape) + [n for p in case.at for n in p]:
        if name not in variables:
            raise InputError(f"{name!r} is not a variable of f{_hint(name, variables)}; its variables: "
                             f"{', '.join(variables)}")
    for k, point in enumerate(case.at, 1):
        missing = [v for v in variables if v not in point and v not in case.domain]
        if missing:
            raise InputError(f"at: point {k} has no value for {missing[0]!r} and it has no domain")
    shapes = case.shapes()
    for k, point in enumerate(case.at, 1):
        for name, value in point.items():
            if np.shape(value) != shapes.get(name, ()):
                raise InputError(f"at: point {k} gives {name} {_shape_text(np.shape(value))}, but "
                                 f"{'shape' if name in case.shape else 'an earlier point'} gives it "
                                 f"{_shape_text(shapes.get(name, ()))}")
    if case.gradient is not None:
        problem = signature_problem(load_function(case.gradient, case.search_path), variables)
        if problem:
            raise InputError(f"gradient {_spec_text(case.gradient)} {problem}")
    if not case.at:
        missing = [v for v in variables if v not in case.domain]
        if missing:
            raise InputError(f"variable {missing[0]!r} has no domain: add domain = {{ {missing[0]} = [low, high] }} "
                             f"or explicit points at = [{{ {missing[0]} = ... }}]")
    return f, variables


def load_function(spec, search_path: str | None = None):
    """The callable named by ``"module:function"`` (or a callable as it is). An
    ``ag.Function`` subclass stands for its ``apply``."""
    if isinstance(spec, type) and issubclass(spec, Function):
        return spec.apply
    if callable(spec):
        return spec
    module_name, _, attribute = str(spec).strip().rpartition(":")
    if not module_name or not attribute:
        raise InputError(f"function = {spec!r}: write module:function or path/to/file.py:function, e.g. "
                         f"function = \"my_ops:swish\"")
    module = _module(module_name, search_path)
    found = module
    for part in attribute.split("."):
        if not hasattr(found, part):
            what = "file" if module_name.endswith(".py") else "module"
            raise InputError(f"{what} {module_name!r} has no {attribute!r}{_callables_hint(part, found)}")
        found = getattr(found, part)
    if isinstance(found, type) and issubclass(found, Function):
        return found.apply
    if not callable(found):
        raise InputError(f"{spec} is a {type(found).__name__}, not a function")
    return found


def _module(name: str, search_path: str | None):
    """The module ``name`` ("ops", "pkg.ops") or the file ``name`` ("lib/ops.py", relative to
    ``search_path``, else the current folder); InputError says why it cannot be imported."""
    try:
        if name.endswith(".py"):
            path = os.path.join(search_path or os.getcwd(), os.path.expanduser(name))
            if not os.path.isfile(path):
                raise InputError(f"cannot import {name!r}: there is no such file (looked for {os.path.abspath(path)})")
            return imported_file(path)
        return imported(name, search_path)
    except (KeyboardInterrupt, InputError):
        raise
    except BaseException as error:  # noqa: BLE001  (a module may raise anything while importing, sys.exit too)
        where = f" (looked in {search_path} and the Python path)" if search_path and not name.endswith(".py") else ""
        what = f"it called sys.exit({error.code!r})" if isinstance(error, SystemExit) else \
            described(error)
        raise InputError(f"cannot import module {name!r}{where}: {what}") from None


def _spec_text(spec) -> str:
    return spec if isinstance(spec, str) else getattr(spec, "__name__", "g")


def _callables_hint(name: str, owner) -> str:
    """" (did you mean 'relu'?)", or the functions ``owner`` defines when none is close: its
    callables are what a function = "module:name" can name, not its imported modules or numbers."""
    names = sorted(n for n in dir(owner) if not n.startswith("_") and callable(getattr(owner, n, None)))
    near = nearest(name, names)
    if near:
        return f" (did you mean {near!r}?)"
    own = [n for n in names if getattr(getattr(owner, n), "__module__", None) == getattr(owner, "__name__", "")]
    listed = own or names
    if not listed:
        return "; it defines no functions"
    return f"; its functions: {', '.join(listed[:8])}{', ...' if len(listed) > 8 else ''}"


def _parameters(f, spec) -> tuple:
    """The variables of a callable: its positional parameters (of forward, after ctx,
    for an ag.Function)."""
    owner = getattr(f, "__self__", None)
    target = owner.forward if isinstance(owner, type) and getattr(f, "__name__", "") == "apply" else f
    try:
        parameters = list(inspect.signature(target).parameters.values())
    except (TypeError, ValueError):
        raise InputError(f"{spec}: cannot read its parameters; define it with def") from None
    if target is not f:
        parameters = parameters[1:]                         # ctx
    names = [p.name for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
             and p.default is p.empty]
    if not names:
        raise InputError(f"{spec} takes no positional parameters: nothing to differentiate")
    if any(p.kind == p.VAR_POSITIONAL for p in parameters):
        raise InputError(f"{spec} takes *args: name its parameters so the suite can give their domains")
    return tuple(names)

