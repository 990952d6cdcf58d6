"""What to compute: the gradient of a scalar f, the Jacobian of a vector f, a
vector-Jacobian product vᵀJ, a Jacobian-vector product Jv (a directional derivative),
or the Hessian — each a flat array of entries with a label per entry.

>>> from diffcompare.problem.problem import make_problem
>>> p = make_problem("[x*y, sin(x)*z, exp(y)]", {"x": 1, "y": 2, "z": 3})
>>> t = make_task(p, "vjp", "0.1, 1.0, 0.0001")
>>> t.kind, t.m, t.n, t.entry_shape
('vjp', 3, 3, (3,))
>>> t.entry_labels()
['(vᵀJ)[x]', '(vᵀJ)[y]', '(vᵀJ)[z]']
>>> make_task(p, "hessian", None)
Traceback (most recent call last):
...
diffcompare.problem.errors.InputError: a Hessian needs a scalar f, but f has 3 outputs; compare its Jacobian (the default), or the Hessian of one output such as [x*y, sin(x)*z, exp(y)][0]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from diffcompare.autograd.quiet import quietly
from diffcompare.language.expression import nearest
from diffcompare.language.worlds import NUMPY
from diffcompare.problem.errors import FailsAtPoint, InputError
from diffcompare.problem.problem import Problem
from diffcompare.problem.usercode import described, shown
from diffcompare.problem.values import parse_value
from diffcompare.problem.vocabulary import example, option

KINDS = ("gradient", "jacobian", "vjp", "jvp", "hessian")
DESCRIPTIONS = {
    "gradient": "the gradient ∇f of a scalar f",
    "jacobian": "the Jacobian J = ∂f/∂x of a vector f (one row per output)",
    "vjp": "the vector-Jacobian product vᵀJ (what backward(v) computes, without forming J)",
    "jvp": "the Jacobian-vector product Jv: the derivative of f along v",
    "hessian": "the Hessian ∂²f/∂x∂x of a scalar f (by second derivatives)",
}


@dataclass
class Task:
    """The quantity to compute for one Problem: its kind, the vector v (for vjp and jvp),
    and the sizes: n scalar inputs, m scalar outputs."""
    kind: str
    n: int
    m: int
    output_shape: tuple
    input_labels: list
    vector: np.ndarray | None = None

    @property
    def entry_shape(self) -> tuple:
        return {"gradient": (self.n,), "jacobian": (self.m, self.n), "vjp": (self.n,), "jvp": (self.m,),
                "hessian": (self.n, self.n)}[self.kind]

    @property
    def size(self) -> int:
        return int(np.prod(self.entry_shape))

    def output_labels(self) -> list:
        if not self.output_shape:
            return ["f"]
        return [f"f[{','.join(map(str, i))}]" for i in np.ndindex(*self.output_shape)]

    def entry_labels(self) -> list:
        """One label per entry, in the flat (row-major) order of the entries."""
        inputs, outputs = self.input_labels, self.output_labels()
        if self.kind == "gradient":
            return [f"∂f/∂{x}" for x in inputs]
        if self.kind == "jacobian":
            return [f"∂{f}/∂{x}" for f in outputs for x in inputs]
        if self.kind == "vjp":
            return [f"(vᵀJ)[{x}]" for x in inputs]
        if self.kind == "jvp":
            return [f"(Jv)[{f}]" for f in outputs]
        return [f"∂²f/∂{a}∂{b}" for a in inputs for b in inputs]

    def symbolic_entries(self, outputs: list, symbols: tuple) -> list:
        """The entries as SymPy expressions (flat), from f's outputs and the symbols.
        v enters as its exact binary64 values."""
        import sympy
        if self.kind == "gradient":
            return [sympy.diff(outputs[0], s) for s in symbols]
        if self.kind == "hessian":
            return list(sympy.hessian(outputs[0], symbols))
        jacobian = sympy.Matrix(outputs).jacobian(symbols)
        if self.kind == "jacobian":
            return list(jacobian)
        v = sympy.Matrix([sympy.Float(float(c), 17) for c in self.vector])
        return list(v.T * jacobian) if self.kind == "vjp" else list(jacobian * v)

    def describe(self) -> str:
        text = DESCRIPTIONS[self.kind]
        if self.vector is not None:
            text += f", v = [{', '.join(f'{c:.6g}' for c in self.vector)}]"
        return text


def output_shape(problem: Problem) -> tuple:
    """The shape of f's value at the point (evaluated once in binary64)."""
    try:
        value = quietly(problem.evaluate, NUMPY, problem.point)
    except Exception as error:
        raise FailsAtPoint(f"{problem.label} cannot be evaluated at the point: {described(error)}") from None
    shape = np.shape(value)
    try:
        numbers = np.asarray(value)
        if numbers.dtype.kind not in "biufc":
            if any(v is None for v in np.ravel(numbers)):
                raise TypeError("None")
            numbers = numbers.astype(np.float64)
    except Exception:       # noqa: BLE001  (a user's object whose __float__ or __array__ raises)
        numbers = None
    if numbers is None or numbers.dtype.kind == "b":
        kind = type(value).__name__ if numbers is None or not hasattr(value, "dtype") else str(value.dtype)
        raise InputError(f"{problem.label} returns {kind} ({shown(value)}) at the point, not a number: f must "
                         f"return a number, or a vector or matrix of numbers")
    if np.iscomplexobj(value) and np.any(np.imag(np.asarray(value, dtype=complex)) != 0):
        raise InputError(f"{problem.label} returns a complex value at the point ({complex(np.ravel(value)[0])}): "
                         f"the methods here differentiate real functions; return the real part, or split f into "
                         f"its real and imaginary parts as two outputs")
    if len(shape) > 2:
        raise InputError(f"f's value has {len(shape)} dimensions; vectors and matrices only")
    return shape


def parse_vector(text, length: int, what: str) -> np.ndarray:
    """v from "0.1,1.0,0.0001", "[0.1, 1, 1e-4]" or a list; its length checked.

    >>> parse_vector("0.1, 1.0, 0.0001", 3, "--vjp")
    array([1.e-01, 1.e+00, 1.e-04])
    """
    if isinstance(text, str) and not text.strip().startswith("["):
        text = [part for part in text.split(",") if part.strip()]
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        text = [text]
    vector = np.ravel(np.asarray(parse_value(what, text), dtype=np.float64))
    if vector.size != length:
        raise InputError(f"{what} has {vector.size} element{'s' * (vector.size != 1)}, but it needs {length}")
    return vector


def make_task(problem: Problem, kind: str | None, vector=None, shape: tuple | None = None) -> Task:
    """The Task for ``problem``: ``kind`` None picks the gradient for a scalar f and the
    Jacobian for a vector f. ``shape``: f's output shape when known (else f is evaluated)."""
    shape = output_shape(problem) if shape is None else shape
    m = int(np.prod(shape)) if shape else 1
    n = len(problem.input_labels)
    if kind is None:
        kind = "jacobian" if shape else "gradient"
    if kind not in KINDS:
        hint = nearest(str(kind), KINDS)
        raise InputError(f"unknown kind {kind!r}" + (f" (did you mean {hint!r}?)" if hint else "")
                         + f"; choose from {', '.join(KINDS)}")
    if kind in ("gradient", "hessian") and m != 1:
        name = "a gradient" if kind == "gradient" else "a Hessian"
        text = getattr(problem.function, "text", problem.label)
        raise InputError(f"{name} needs a scalar f, but f has {m} outputs; compare its Jacobian (the default), "
                         f"or the {name[2:]} of one output such as {text}[0]")
    if kind in ("vjp", "jvp"):
        if vector is None:
            size = m if kind == "vjp" else n
            raise InputError(f"{kind} needs a vector v of {size} numbers, e.g. "
                             f"{example(kind, ','.join(['1'] * size), repr([1.0] * size))}")
        vector = parse_vector(vector, m if kind == "vjp" else n, option(kind))
    elif vector is not None:
        raise InputError(f"a vector v is used by vjp and jvp only, not by the {kind}")
    return Task(kind, n, m, shape, problem.input_labels, vector)
