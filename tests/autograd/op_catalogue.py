"""Every differentiable operation of the engine, with input shapes and a domain where it is
smooth: the one table the gradcheck tests (and the PyTorch differential tests) walk."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from diffcompare import autograd as ag


@dataclass
class Case:
    name: str
    fn: object                      # fn(library, *tensors) -> tensor; library: ag, or torch's adapter
    shapes: list                    # one shape per tensor input
    low: float = -2.0
    high: float = 2.0
    twice: bool = True              # second derivative is meaningful (gradgradcheck)
    extra: dict = field(default_factory=dict)

    def inputs(self, seed=0):
        rng = np.random.default_rng(seed)
        return tuple(ag.tensor(rng.uniform(self.low, self.high, shape), requires_grad=True) for shape in self.shapes)

    def bound(self, library=ag):
        return lambda *tensors: self.fn(library, *tensors)

    def __str__(self):
        return f"{self.name}{self.shapes}"


def _unary(name, low=-2.0, high=2.0, twice=True, shapes=((3,), (2, 3))):
    return [Case(name, lambda T, a, n=name: getattr(T, n)(a), [s], low, high, twice) for s in shapes]


BROADCAST_PAIRS = [((3,), (3,)), ((2, 3), (3,)), ((3, 1), (1, 4)), ((), (2, 3)), ((2, 1, 3), (4, 1))]


def _setitem(T, a, b):
    y = a * 1
    y[1] = b * 2
    return y * y


CASES = []
for op_name, op in [("add", lambda T, a, b: a + b), ("sub", lambda T, a, b: a - b), ("mul", lambda T, a, b: a * b),
                    ("maximum", lambda T, a, b: T.maximum(a, b)), ("minimum", lambda T, a, b: T.minimum(a, b))]:
    CASES += [Case(op_name, op, list(p)) for p in BROADCAST_PAIRS]
CASES += [Case("div", lambda T, a, b: a / b, list(p), 0.5, 2.0) for p in BROADCAST_PAIRS]
CASES += [Case("pow_tensor", lambda T, a, b: a ** b, list(p), 0.5, 2.0) for p in BROADCAST_PAIRS]
CASES += [Case("atan2", lambda T, *a: T.atan2(*a), list(p), 0.5, 2.0) for p in BROADCAST_PAIRS]
CASES += [Case("hypot", lambda T, *a: T.hypot(*a), list(p), 0.5, 2.0) for p in BROADCAST_PAIRS]
CASES += [
    Case("rsub_scalar", lambda T, a: 1.5 - a, [(3,)]),
    Case("rdiv_scalar", lambda T, a: 2.0 / a, [(3,)], 0.5, 2.0),
    Case("neg", lambda T, a: -a, [(2, 3)]),
    Case("pow_scalar", lambda T, a: a ** 3, [(3,)]),
    Case("pow_fractional", lambda T, a: a ** 2.5, [(3,)], 0.5, 2.0),
    Case("pow_negative", lambda T, a: a ** -1.5, [(3,)], 0.5, 2.0),
    Case("rpow", lambda T, a: 2.0 ** a, [(3,)]),
    Case("square", lambda T, *a: T.square(*a), [(3,)]),
]
for name in ["exp", "sin", "cos", "atan", "sinh", "cosh", "tanh", "asinh", "sigmoid", "erf", "expm1"]:
    CASES += _unary(name)
for name in ["log", "sqrt", "log2", "log10", "reciprocal", "rsqrt"]:
    CASES += _unary(name, 0.3, 3.0)
CASES += _unary("log1p", -0.5, 2.0)
CASES += _unary("cbrt", 0.3, 3.0) + _unary("cbrt", -3.0, -0.3, shapes=((4,),))
CASES += _unary("tan", -1.2, 1.2)
CASES += _unary("asin", -0.9, 0.9) + _unary("acos", -0.9, 0.9) + _unary("atanh", -0.9, 0.9)
CASES += _unary("acosh", 1.2, 3.0)
# kinks away from the sampled values: first derivative only where the second is 0 a.e.
CASES += [Case("abs", lambda T, *a: T.abs(*a), [(4,)], 0.2, 2.0), Case("abs_negative", lambda T, *a: T.abs(*a), [(4,)], -2.0, -0.2),
          Case("relu", lambda T, *a: T.relu(*a), [(4,)], 0.2, 2.0), Case("sign", lambda T, *a: T.sign(*a), [(4,)], 0.2, 2.0),
          Case("softplus", lambda T, *a: T.softplus(*a), [(2, 3)]),
          Case("softplus_beta", lambda T, a: T.softplus(a, beta=2.0, threshold=3.0), [(5,)], -1.0, 1.0),
          Case("clamp", lambda T, a: a.clamp(-10, 10), [(4,)]),
          Case("clamp_tensor", lambda T, a, lo, hi: a.clamp(lo, hi), [(5,), (5,), (5,)]),
          Case("where", lambda T, a, b: T.where(a > 0, a * b, b.exp()), [(2, 3), (3,)])]
# reductions
for dim, keep in [(None, False), (0, False), (1, True), ((0, 1), False), (-1, False)]:
    CASES += [
        Case(f"sum{dim}{keep}", lambda T, a, d=dim, k=keep: a.sum(d, keepdim=k) if d is not None else a.sum(), [(2, 3)]),
        Case(f"mean{dim}{keep}", lambda T, a, d=dim, k=keep: a.mean(d, keepdim=k) if d is not None else a.mean(), [(2, 3)]),
        Case(f"prod{dim}", lambda T, a, d=dim, k=keep: a.prod(d, keepdim=k)
             if isinstance(d, int) else a.prod(), [(2, 3)]),
        Case(f"var{dim}{keep}", lambda T, a, d=dim, k=keep: a.var(d, keepdim=k), [(2, 3)]),
        Case(f"std{dim}{keep}", lambda T, a, d=dim, k=keep: a.std(d, keepdim=k), [(2, 3)]),
        Case(f"norm{dim}{keep}", lambda T, a, d=dim, k=keep: a.norm(dim=d, keepdim=k), [(2, 3)]),
        Case(f"amax{dim}{keep}", lambda T, a, d=dim, k=keep: a.amax(d, keepdim=k), [(2, 3)], twice=False),
        Case(f"amin{dim}{keep}", lambda T, a, d=dim, k=keep: a.amin(d, keepdim=k), [(2, 3)], twice=False),
        Case(f"logsumexp{dim}{keep}", lambda T, a, d=dim, k=keep: a.logsumexp(d if d is not None else (0, 1), keepdim=k),
             [(2, 3)]),
    ]
CASES += [
    Case("var_unbiased_false", lambda T, a: a.var(unbiased=False), [(5,)]),
    Case("norm_p1", lambda T, a: a.norm(p=1), [(5,)], 0.2, 2.0),
    Case("norm_p3", lambda T, a: a.norm(p=3), [(5,)], 0.2, 2.0),
    Case("prod_with_zero", lambda T, a: (a * T.tensor([1.0, 0.0, 1.0])).prod(), [(3,)]),
    Case("max_all", lambda T, a: a.max(), [(2, 3)], twice=False),
    Case("min_all", lambda T, a: a.min(), [(2, 3)], twice=False),
    Case("max_dim", lambda T, a: a.max(1).values, [(2, 3)], twice=False),
    Case("min_dim_keep", lambda T, a: a.min(0, keepdim=True)[0], [(2, 3)], twice=False),
    Case("softmax", lambda T, a: a.softmax(1), [(2, 3)]),
    Case("log_softmax", lambda T, a: a.log_softmax(0), [(2, 3)]),
    Case("cumsum", lambda T, a: a.cumsum(1), [(2, 3)]),
    Case("cross_entropy", lambda T, a: T.nn.functional.cross_entropy(a, T.tensor([2, 0, 1, 2])), [(4, 3)]),
    Case("cross_entropy_sum", lambda T, a: T.nn.functional.cross_entropy(a, T.tensor([1, 1]), reduction="sum"),
         [(2, 3)]),
    Case("cross_entropy_none", lambda T, a: T.nn.functional.cross_entropy(a, T.tensor([0, 2]), reduction="none"),
         [(2, 3)]),
    Case("cross_entropy_1d", lambda T, a: T.nn.functional.cross_entropy(a, T.tensor(1)), [(3,)]),
    Case("cumsum0", lambda T, a: a.cumsum(0), [(4,)]),
]
# linear algebra
CASES += [
    Case("matmul_mm", lambda T, a, b: a @ b, [(2, 3), (3, 4)]),
    Case("matmul_mv", lambda T, a, b: a @ b, [(2, 3), (3,)]),
    Case("matmul_vm", lambda T, a, b: a @ b, [(3,), (3, 2)]),
    Case("matmul_dot", lambda T, a, b: a @ b, [(3,), (3,)]),
    Case("matmul_batched", lambda T, a, b: a @ b, [(2, 2, 3), (3, 2)]),
    Case("matmul_broadcast_batch", lambda T, a, b: a @ b, [(2, 1, 2, 3), (3, 3, 2)]),
    Case("mm", lambda T, *a: T.mm(*a), [(2, 3), (3, 2)]), Case("mv", lambda T, *a: T.mv(*a), [(2, 3), (3,)]), Case("dot", lambda T, *a: T.dot(*a), [(4,), (4,)]),
]
# shapes, indexing, joining
CASES += [
    Case("reshape", lambda T, a: a.reshape(3, 2) * a.reshape(3, 2), [(2, 3)]),
    Case("view", lambda T, a: a.view(-1), [(2, 3)]),
    Case("flatten", lambda T, a: a.flatten(), [(2, 3)]),
    Case("transpose", lambda T, a: a.transpose(0, 1), [(2, 3)]),
    Case("t", lambda T, a: a.t() @ a, [(2, 3)]),
    Case("T", lambda T, a: a.T, [(2, 3, 2)]),
    Case("permute", lambda T, a: a.permute(2, 0, 1), [(2, 3, 2)]),
    Case("squeeze", lambda T, a: a.squeeze(), [(1, 3, 1)]),
    Case("squeeze_dim", lambda T, a: a.squeeze(0), [(1, 3)]),
    Case("unsqueeze", lambda T, a: a.unsqueeze(1), [(2, 3)]),
    Case("expand", lambda T, a: a.expand(2, 4, 3), [(4, 1)]),
    Case("clone", lambda T, a: a.clone(), [(3,)]),
    Case("to_double", lambda T, a: a.double() * a, [(3,)]),
    Case("index_int", lambda T, a: a[1], [(3, 2)]),
    Case("index_slice", lambda T, a: a[1:, ::2], [(3, 4)]),
    Case("index_negative_step_none", lambda T, a: a[None, -1], [(3, 4)]),
    Case("index_bool_mask", lambda T, a: a[T.tensor([True, False, True])], [(3, 2)]),
    Case("index_int_array_repeated", lambda T, a: a[[0, 2, 0, 0]], [(3, 2)]),
    Case("index_mixed", lambda T, a: a[[0, 1], 1:], [(3, 4)]),
    Case("cat", lambda T, a, b: T.cat([a, b, a], dim=1), [(2, 3), (2, 1)]),
    Case("cat0", lambda T, a, b: T.cat([a, b]), [(2,), (3,)]),
    Case("stack", lambda T, a, b: T.stack([a, b], dim=1), [(2, 3), (2, 3)]),
    Case("setitem", _setitem, [(3,), ()]),
]
