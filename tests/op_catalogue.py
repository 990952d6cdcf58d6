"""Every differentiable operation of the engine, with input shapes and a domain where it is
smooth: the one table the gradcheck tests (and the PyTorch differential tests) walk."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from diffcompare import autograd as ag


@dataclass
class Case:
    name: str
    fn: object                      # takes tensors, returns a tensor
    shapes: list                    # one shape per tensor input
    low: float = -2.0
    high: float = 2.0
    twice: bool = True              # second derivative is meaningful (gradgradcheck)
    extra: dict = field(default_factory=dict)

    def inputs(self, seed=0):
        rng = np.random.default_rng(seed)
        return tuple(ag.tensor(rng.uniform(self.low, self.high, shape), requires_grad=True) for shape in self.shapes)

    def __str__(self):
        return f"{self.name}{self.shapes}"


def _unary(name, low=-2.0, high=2.0, twice=True, shapes=((3,), (2, 3))):
    return [Case(name, getattr(ag, name), [s], low, high, twice) for s in shapes]


BROADCAST_PAIRS = [((3,), (3,)), ((2, 3), (3,)), ((3, 1), (1, 4)), ((), (2, 3)), ((2, 1, 3), (4, 1))]

CASES = []
for op_name, op in [("add", lambda a, b: a + b), ("sub", lambda a, b: a - b), ("mul", lambda a, b: a * b),
                    ("maximum", ag.maximum), ("minimum", ag.minimum)]:
    CASES += [Case(op_name, op, list(p)) for p in BROADCAST_PAIRS]
CASES += [Case("div", lambda a, b: a / b, list(p), 0.5, 2.0) for p in BROADCAST_PAIRS]
CASES += [Case("pow_tensor", lambda a, b: a ** b, list(p), 0.5, 2.0) for p in BROADCAST_PAIRS]
CASES += [Case("atan2", ag.atan2, list(p), 0.5, 2.0) for p in BROADCAST_PAIRS]
CASES += [
    Case("rsub_scalar", lambda a: 1.5 - a, [(3,)]),
    Case("rdiv_scalar", lambda a: 2.0 / a, [(3,)], 0.5, 2.0),
    Case("neg", lambda a: -a, [(2, 3)]),
    Case("pow_scalar", lambda a: a ** 3, [(3,)]),
    Case("pow_fractional", lambda a: a ** 2.5, [(3,)], 0.5, 2.0),
    Case("pow_negative", lambda a: a ** -1.5, [(3,)], 0.5, 2.0),
    Case("rpow", lambda a: 2.0 ** a, [(3,)]),
    Case("square", ag.square, [(3,)]),
]
for name in ["exp", "sin", "cos", "atan", "sinh", "cosh", "tanh", "asinh", "sigmoid", "erf", "expm1"]:
    CASES += _unary(name)
for name in ["log", "sqrt", "log2", "log10", "reciprocal", "rsqrt"]:
    CASES += _unary(name, 0.3, 3.0)
CASES += _unary("log1p", -0.5, 2.0)
CASES += _unary("tan", -1.2, 1.2)
CASES += _unary("asin", -0.9, 0.9) + _unary("acos", -0.9, 0.9) + _unary("atanh", -0.9, 0.9)
CASES += _unary("acosh", 1.2, 3.0)
# kinks away from the sampled values: first derivative only where the second is 0 a.e.
CASES += [Case("abs", ag.abs, [(4,)], 0.2, 2.0), Case("abs_negative", ag.abs, [(4,)], -2.0, -0.2),
          Case("relu", ag.relu, [(4,)], 0.2, 2.0), Case("sign", ag.sign, [(4,)], 0.2, 2.0),
          Case("softplus", ag.softplus, [(2, 3)]),
          Case("softplus_beta", lambda a: ag.softplus(a, beta=2.0, threshold=3.0), [(5,)], -1.0, 1.0),
          Case("clamp", lambda a: a.clamp(-10, 10), [(4,)]),
          Case("clamp_tensor", lambda a, lo, hi: a.clamp(lo, hi), [(5,), (5,), (5,)]),
          Case("where", lambda a, b: ag.where(a > 0, a * b, b.exp()), [(2, 3), (3,)])]
# reductions
for dim, keep in [(None, False), (0, False), (1, True), ((0, 1), False), (-1, False)]:
    CASES += [
        Case(f"sum{dim}{keep}", lambda a, d=dim, k=keep: a.sum(d, keepdim=k) if d is not None else a.sum(), [(2, 3)]),
        Case(f"mean{dim}{keep}", lambda a, d=dim, k=keep: a.mean(d, keepdim=k) if d is not None else a.mean(), [(2, 3)]),
        Case(f"prod{dim}", lambda a, d=dim, k=keep: a.prod(d if not isinstance(d, tuple) else None, keepdim=k)
             if d is not None else a.prod(), [(2, 3)]),
        Case(f"var{dim}{keep}", lambda a, d=dim, k=keep: a.var(d, keepdim=k), [(2, 3)]),
        Case(f"std{dim}{keep}", lambda a, d=dim, k=keep: a.std(d, keepdim=k), [(2, 3)]),
        Case(f"norm{dim}{keep}", lambda a, d=dim, k=keep: a.norm(dim=d, keepdim=k), [(2, 3)]),
        Case(f"amax{dim}{keep}", lambda a, d=dim, k=keep: a.amax(d, keepdim=k), [(2, 3)], twice=False),
        Case(f"amin{dim}{keep}", lambda a, d=dim, k=keep: a.amin(d, keepdim=k), [(2, 3)], twice=False),
        Case(f"logsumexp{dim}{keep}", lambda a, d=dim, k=keep: a.logsumexp(d if d is not None else (0, 1), keepdim=k),
             [(2, 3)]),
    ]
CASES += [
    Case("var_unbiased_false", lambda a: a.var(unbiased=False), [(5,)]),
    Case("norm_p1", lambda a: a.norm(p=1), [(5,)], 0.2, 2.0),
    Case("norm_p3", lambda a: a.norm(p=3), [(5,)], 0.2, 2.0),
    Case("prod_with_zero", lambda a: (a * ag.tensor([1.0, 0.0, 1.0])).prod(), [(3,)]),
    Case("max_all", lambda a: a.max(), [(2, 3)], twice=False),
    Case("min_all", lambda a: a.min(), [(2, 3)], twice=False),
    Case("max_dim", lambda a: a.max(1).values, [(2, 3)], twice=False),
    Case("min_dim_keep", lambda a: a.min(0, keepdim=True)[0], [(2, 3)], twice=False),
    Case("softmax", lambda a: a.softmax(1), [(2, 3)]),
    Case("log_softmax", lambda a: a.log_softmax(0), [(2, 3)]),
    Case("cumsum", lambda a: a.cumsum(1), [(2, 3)]),
    Case("cumsum0", lambda a: a.cumsum(0), [(4,)]),
]
# linear algebra
CASES += [
    Case("matmul_mm", lambda a, b: a @ b, [(2, 3), (3, 4)]),
    Case("matmul_mv", lambda a, b: a @ b, [(2, 3), (3,)]),
    Case("matmul_vm", lambda a, b: a @ b, [(3,), (3, 2)]),
    Case("matmul_dot", lambda a, b: a @ b, [(3,), (3,)]),
    Case("matmul_batched", lambda a, b: a @ b, [(2, 2, 3), (3, 2)]),
    Case("matmul_broadcast_batch", lambda a, b: a @ b, [(2, 1, 2, 3), (3, 3, 2)]),
    Case("mm", ag.mm, [(2, 3), (3, 2)]), Case("mv", ag.mv, [(2, 3), (3,)]), Case("dot", ag.dot, [(4,), (4,)]),
]
# shapes, indexing, joining
CASES += [
    Case("reshape", lambda a: a.reshape(3, 2) * a.reshape(3, 2), [(2, 3)]),
    Case("view", lambda a: a.view(-1), [(2, 3)]),
    Case("flatten", lambda a: a.flatten(), [(2, 3)]),
    Case("transpose", lambda a: a.transpose(0, 1), [(2, 3)]),
    Case("t", lambda a: a.t() @ a, [(2, 3)]),
    Case("T", lambda a: a.T, [(2, 3, 2)]),
    Case("permute", lambda a: a.permute(2, 0, 1), [(2, 3, 2)]),
    Case("squeeze", lambda a: a.squeeze(), [(1, 3, 1)]),
    Case("squeeze_dim", lambda a: a.squeeze(0), [(1, 3)]),
    Case("unsqueeze", lambda a: a.unsqueeze(1), [(2, 3)]),
    Case("expand", lambda a: a.expand(2, 4, 3), [(4, 1)]),
    Case("clone", lambda a: a.clone(), [(3,)]),
    Case("to_double", lambda a: a.double() * a, [(3,)]),
    Case("index_int", lambda a: a[1], [(3, 2)]),
    Case("index_slice", lambda a: a[1:, ::2], [(3, 4)]),
    Case("index_negative_step_none", lambda a: a[None, -1], [(3, 4)]),
    Case("index_bool_mask", lambda a: a[ag.tensor([True, False, True])], [(3, 2)]),
    Case("index_int_array_repeated", lambda a: a[[0, 2, 0, 0]], [(3, 2)]),
    Case("index_mixed", lambda a: a[[0, 1], 1:], [(3, 4)]),
    Case("cat", lambda a, b: ag.cat([a, b, a], dim=1), [(2, 3), (2, 1)]),
    Case("cat0", lambda a, b: ag.cat([a, b]), [(2,), (3,)]),
    Case("stack", lambda a, b: ag.stack([a, b], dim=1), [(2, 3), (2, 3)]),
    Case("setitem", lambda a, b: _setitem(a, b), [(3,), ()]),
]


def _setitem(a, b):
    y = a * 1
    y[1] = b * 2
    return y * y
