"""Verdict quality, against answers from code that shares nothing with the tool.

Random expressions are built here as trees, written out as text for ``compare``, and
differentiated here by forward-mode dual numbers over mpmath at 60 digits (the exact
gradient at exactly the binary64 point). Two corpora:

- well-posed: smooth functions at points away from every singularity, every backward
  rule right. A verdict ``fail`` is a false alarm; so is exit status 1. PyTorch's
  ``gradcheck`` (when installed) is asked the same question on the same functions.
- hostile: the same kind of functions at hostile points (0, ±1e-300, 1e22, 5e-324, just
  beside a pole). A ``pass`` beside a value off by more than half the exact gradient is
  a broken promise; so is a pass whose band is as large as the value. A value equal to the
  correctly rounded binary64 of the exact gradient is right (inf for a gradient beyond
  binary64's range, 0 below it), whatever its band.

Run: python benchmarks/verdict_quality.py [--functions N] [--seed S]
"""

from __future__ import annotations

import argparse
import math
import random

import common  # noqa: F401  (thread pins before NumPy)
import mpmath
from common import load_torch, table

import diffcompare

DPS = 60


class Dual:
    """A value and its gradient (one entry per variable), in mpmath."""

    def __init__(self, value, grad):
        self.value, self.grad = value, grad

    def __add__(self, o):
        return Dual(self.value + o.value, [a + b for a, b in zip(self.grad, o.grad)])

    def __sub__(self, o):
        return Dual(self.value - o.value, [a - b for a, b in zip(self.grad, o.grad)])

    def __mul__(self, o):
        return Dual(self.value * o.value, [a * o.value + self.value * b for a, b in zip(self.grad, o.grad)])

    def __truediv__(self, o):
        return Dual(self.value / o.value,
                    [(a * o.value - self.value * b) / o.value ** 2 for a, b in zip(self.grad, o.grad)])

    def chain(self, value, slope):
        return Dual(value, [slope * g for g in self.grad])


# name -> (value, derivative) on mpmath numbers, and where the function is smooth and tame
UNARY = {
    "sin": (mpmath.sin, mpmath.cos, None), "cos": (mpmath.cos, lambda x: -mpmath.sin(x), None),
    "exp": (mpmath.exp, mpmath.exp, (-20, 20)), "tanh": (mpmath.tanh, lambda x: 1 - mpmath.tanh(x) ** 2, None),
    "atan": (mpmath.atan, lambda x: 1 / (1 + x * x), None),
    "sigmoid": (lambda x: 1 / (1 + mpmath.exp(-x)), lambda x: mpmath.exp(-x) / (1 + mpmath.exp(-x)) ** 2, None),
    "log": (mpmath.log, lambda x: 1 / x, (1e-3, math.inf)), "sqrt": (mpmath.sqrt, lambda x: 1 / (2 * mpmath.sqrt(x)),
                                                                    (1e-3, math.inf)),
    "log1p": (mpmath.log1p, lambda x: 1 / (1 + x), (-0.99, math.inf)),
    "softplus": (lambda x: mpmath.log1p(mpmath.exp(x)), lambda x: 1 / (1 + mpmath.exp(-x)), None),
}


def random_tree(rng, variables, depth):
    """A random expression tree: ("var", name), ("const", value), ("call", name, child) or
    (op, left, right)."""
    if depth == 0 or rng.random() < 0.25:
        if rng.random() < 0.75:
            return ("var", rng.choice(variables))
        return ("const", rng.choice([0.5, 2.0, 3.0, 1.5, 0.25, 10.0]))
    kind = rng.random()
    if kind < 0.45:
        return ("call", rng.choice(sorted(UNARY)), random_tree(rng, variables, depth - 1))
    return (rng.choice(["+", "-", "*", "/"]), random_tree(rng, variables, depth - 1), random_tree(rng, variables, depth - 1))


def names(tree) -> list:
    """The variables a tree uses, in order of first appearance (as the expression language orders them)."""
    if tree[0] == "var":
        return [tree[1]]
    found = []
    for child in tree[1:]:
        if isinstance(child, tuple):
            found += [n for n in names(child) if n not in found]
    return found


def text(tree) -> str:
    kind = tree[0]
    if kind == "var":
        return tree[1]
    if kind == "const":
        return repr(tree[1])
    if kind == "call":
        return f"{tree[1]}({text(tree[2])})"
    return f"({text(tree[1])} {kind} {text(tree[2])})"


def evaluate(tree, point: dict, variables: list, guard=None) -> Dual:
    """f and its exact gradient at ``point`` (binary64 values, taken exactly). ``guard``:
    called with each function's argument and its tame interval (raise to refuse)."""
    kind = tree[0]
    if kind == "var":
        return Dual(mpmath.mpf(point[tree[1]]), [mpmath.mpf(v == tree[1]) for v in variables])
    if kind == "const":
        return Dual(mpmath.mpf(tree[1]), [mpmath.mpf(0)] * len(variables))
    if kind == "call":
        inner = evaluate(tree[2], point, variables, guard)
        value, slope, tame = UNARY[tree[1]]
        if guard is not None:
            guard(inner.value, tame)
        return inner.chain(value(inner.value), slope(inner.value))
    left, right = evaluate(tree[1], point, variables, guard), evaluate(tree[2], point, variables, guard)
    if kind == "/" and guard is not None:
        guard(right.value, "denominator")
    return {"+": left.__add__, "-": left.__sub__, "*": left.__mul__, "/": left.__truediv__}[kind](right)


class Untame(Exception):
    pass


def well_posed_guard(value, tame):
    """Refuse points near a singularity or where a value is extreme (the function must be
    well-posed there for the false-alarm count to mean anything)."""
    if tame == "denominator":
        if abs(value) < 0.05:
            raise Untame
        return
    if not mpmath.isfinite(value) or abs(value) > 50:
        raise Untame
    if tame is not None and not (tame[0] <= value <= tame[1]):
        raise Untame


def well_posed_corpus(rng, count):
    found = []
    while len(found) < count:
        tree = random_tree(rng, ["x", "y", "z"][:rng.randint(1, 3)], rng.randint(1, 4))
        variables = names(tree)
        if not variables:
            continue
        point = {v: round(rng.uniform(-2, 2), 6) for v in variables}
        try:
            with mpmath.workdps(DPS):
                exact = evaluate(tree, point, variables, well_posed_guard)
        except (Untame, ZeroDivisionError, ValueError):
            continue
        found.append((tree, variables, point, exact))
    return found


HOSTILE_VALUES = [0.0, 1e-300, -1e-300, 1e22, -1e22, 5e-324, 1.0, -1.0, 1e-8, 1e8]


def hostile_guard(value, tame):
    """Hostile points are kept unless the reference itself becomes impractical: a trig
    argument beyond 1e100 would need mpmath to compute pi to hundreds of digits."""
    if tame == "denominator":
        return
    if not mpmath.isfinite(value) or abs(value) > 1e100:
        raise Untame


def hostile_corpus(rng, count):
    found = []
    while len(found) < count:
        tree = random_tree(rng, ["x", "y"][:rng.randint(1, 2)], rng.randint(1, 3))
        variables = names(tree)
        if not variables:
            continue
        point = {v: rng.choice(HOSTILE_VALUES) for v in variables}
        try:
            with mpmath.workdps(DPS):
                exact = evaluate(tree, point, variables, hostile_guard)
        except (Untame, ZeroDivisionError, ValueError, OverflowError):
            continue
        if not all(mpmath.isfinite(g) and mpmath.im(g) == 0 for g in exact.grad) or not mpmath.isfinite(exact.value):
            continue
        found.append((tree, variables, point, exact))
    return found


def run_compare(tree, point):
    return diffcompare.compare(text(tree), at=point, repeat=1, symbolic_timeout=5)


def torch_gradcheck(torch, tree, variables, point):
    """PyTorch's gradcheck on the same function (float64, default tolerances): True if it passes."""
    functions = {"sin": torch.sin, "cos": torch.cos, "exp": torch.exp, "tanh": torch.tanh, "atan": torch.atan,
                 "sigmoid": torch.sigmoid, "log": torch.log, "sqrt": torch.sqrt, "log1p": torch.log1p,
                 "softplus": lambda t: torch.nn.functional.softplus(t, threshold=1e9)}

    def build(node, args):
        kind = node[0]
        if kind == "var":
            return args[variables.index(node[1])]
        if kind == "const":
            return torch.tensor(node[1], dtype=torch.float64)
        if kind == "call":
            return functions[node[1]](build(node[2], args))
        a, b = build(node[1], args), build(node[2], args)
        return {"+": a + b, "-": a - b, "*": a * b, "/": a / b}[kind]
    inputs = tuple(torch.tensor(point[v], dtype=torch.float64, requires_grad=True) for v in variables)
    try:
        return bool(torch.autograd.gradcheck(lambda *args: build(tree, args), inputs, raise_exception=False))
    except Exception:
        return False


def main(argv=None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--functions", type=int, default=300, help="functions in each corpus (default 300)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    torch = load_torch()

    exits, method_fails, method_runs, gradcheck_fails = {0: 0, 1: 0, 4: 0}, 0, 0, 0
    for tree, variables, point, exact in well_posed_corpus(rng, args.functions):
        c = run_compare(tree, point)
        exits[c.exit_status] = exits.get(c.exit_status, 0) + 1
        for m in c.methods:
            if m.verdict not in ("not applicable",):
                method_runs += 1
                method_fails += m.verdict in ("fail", "failed")
        if torch is not None:
            gradcheck_fails += not torch_gradcheck(torch, tree, variables, point)
    n = args.functions
    rows = [("compare: exit 1 (a method failed)", f"{exits.get(1, 0)} of {n}", f"{100 * exits.get(1, 0) / n:.1f} %"),
            ("compare: exit 4 (something undecided)", f"{exits.get(4, 0)} of {n}", f"{100 * exits.get(4, 0) / n:.1f} %"),
            ("compare: method verdicts 'fail'", f"{method_fails} of {method_runs}",
             f"{100 * method_fails / max(method_runs, 1):.2f} %")]
    if torch is not None:
        rows.append(("torch.autograd.gradcheck fails", f"{gradcheck_fails} of {n}", f"{100 * gradcheck_fails / n:.1f} %"))
    text_out = table(f"Verdict quality: false alarms on {n} well-posed random functions (every rule right)",
                     ("what", "count", "rate"), rows,
                     ["goal: compare exit 1 on at most 0.5 %",
                      "exact gradients by forward-mode dual numbers in mpmath at 60 digits, written here"])

    broken, broken_zero, hollow, judged_entries, entries = 0, 0, 0, 0, 0
    examples = []
    for tree, variables, point, exact in hostile_corpus(rng, args.functions):
        try:
            c = run_compare(tree, point)
        except Exception as error:                     # a crash is its own finding
            examples.append(f"{text(tree)} at {point}: {type(error).__name__}")
            continue
        for m in c.methods:
            for k, v in enumerate(variables):
                value = m.values().get(v)
                if value is None or isinstance(value, (list, tuple)):
                    continue
                entries += 1
                if m.verdict != "pass":
                    continue
                judged_entries += 1
                true = exact.grad[k]
                # the correctly rounded binary64 of the true value is right, whatever it is (inf for
                # 2e323, 0 for 1e-400); otherwise off by more than half, beyond the smallest binary64
                with mpmath.workdps(DPS):
                    rounded = float(true)
                off = value != rounded and (not math.isfinite(value) or
                                            abs(mpmath.mpf(value) - true) > max(abs(true) / 2, 2.0 ** -1074))
                band = m.entry(v).tolerance if m.tolerance is not None else None
                if value == rounded:
                    continue
                if off and true == 0:
                    broken_zero += 1             # a nonzero beside an exact 0: rounding of cancelling terms?
                elif off:
                    broken += 1
                    if len(examples) < 5:
                        examples.append(f"{m.name} on {text(tree)} at {point}: {value!r} vs {mpmath.nstr(true, 6)}")
                elif band is not None and true != 0 and band >= abs(true):
                    hollow += 1
    text_out += "\n" + table(f"Verdict quality: {args.functions} random functions at hostile points",
                             ("what", "count"),
                             [("entries with a value", entries), ("entries in a method judged 'pass'", judged_entries),
                              ("passes off by more than half the exact gradient", broken),
                              ("passes of a nonzero value where the exact gradient is 0", broken_zero),
                              ("passes with a band as large as the exact value", hollow)],
                             ["goal: no pass on a wrong value, no pass that says nothing"] +
                             [f"e.g. {e}" for e in examples])
    return text_out


if __name__ == "__main__":
    main()
