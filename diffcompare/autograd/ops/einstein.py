"""``einsum``: Einstein summation over any number of operands, with ``...`` broadcasting.

Its VJP for operand k is itself an einsum: the gradient with the other operands, written
to operand k's subscripts. A subscript repeated in operand k (a diagonal) is put back on
the diagonal with identity matrices, and one summed in operand k alone is spread with a
vector of ones, both as constant operands, so the backward is one einsum that is
differentiable again (create_graph). PyTorch runs einsum as permutes, sums and batched
products; the node recorded here is one, named as PyTorch's last step is named
(PermuteBackward0 or SumBackward1 for one operand, MulBackward0 or ViewBackward0 for several,
as a subscript is summed or not).

>>> from diffcompare import autograd as ag
>>> a = ag.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
>>> t = ag.einsum("ii->", a)
>>> t, t.grad_fn.name()
(tensor(5., grad_fn=<SumBackward1>), 'SumBackward1')
>>> t.backward()
>>> a.grad
tensor([[1., 0.],
        [0., 1.]])
"""

from __future__ import annotations

import string

import numpy as np

from ..tensor import Tensor
from .recording import Op, apply, array_of

_LETTERS = string.ascii_letters


class EinsumOp(Op):
    """One einsum: ``subscripts`` (one string per operand, no ellipsis) -> ``output``."""

    @staticmethod
    def forward(*operands, subscripts, output, sizes=None):
        return np.asarray(np.einsum(",".join(subscripts) + "->" + output, *operands))

    def backward(self, g, *operands):
        return tuple(_operand_gradient(self, k, g, operands) if self.needs(k) else None
                     for k in range(len(operands)))


def _operand_gradient(node, k, g, operands):
    subs, out, sizes = node.subscripts, node.output, node.sizes
    mine = subs[k]
    inputs, terms = [g], [out]
    for j, (s, a) in enumerate(zip(subs, operands)):
        if j != k:
            inputs.append(a)
            terms.append(s)
    available = set(out).union(*terms[1:])
    unused = iter(c for c in _LETTERS if c not in set("".join(subs) + out))
    positions = []
    dtype = array_of(g).dtype
    for c in mine:
        if c not in available:               # summed in this operand alone: spread with ones
            inputs.append(np.ones(sizes[c], dtype=dtype))
            terms.append(c)
            available.add(c)
        if c in positions:                   # a repeated subscript: back on the diagonal
            fresh = next(unused)
            inputs.append(np.eye(sizes[c], dtype=dtype))
            terms.append(c + fresh)
            positions.append(fresh)
        else:
            positions.append(c)
    equation = ",".join(terms) + "->" + "".join(positions)
    if any(isinstance(t, Tensor) for t in inputs):
        return apply(_node_class(len(inputs), equation), tuple(inputs),
                     _params(terms, "".join(positions), inputs))
    return np.einsum(equation, *inputs)


def _params(subscripts, output, operands):
    sizes = {}
    for s, a in zip(subscripts, operands):
        for c, n in zip(s, np.shape(array_of(a))):
            sizes[c] = max(sizes.get(c, 1), n)
    return {"subscripts": tuple(subscripts), "output": output, "sizes": sizes}


def _einsum_tangent(node, tangents, arrays, out):
    """Linear in each operand: the sum of the einsums with one operand replaced by its tangent."""
    equation = ",".join(node.subscripts) + "->" + node.output
    total = None
    for k, t in enumerate(tangents):
        if t is not None:
            part = np.einsum(equation, *arrays[:k], t, *arrays[k + 1:])
            total = part if total is None else total + part
    return total


_CLASSES = {}


def _node_class(n, equation_or_name):
    """The node class for ``n`` operands, named as PyTorch names einsum's last step."""
    subs, _, output = equation_or_name.partition("->")
    subs = subs.split(",")
    summed = bool(set("".join(subs)) - set(output))
    name = ("SumBackward1" if summed else "PermuteBackward0") if n == 1 else \
        ("ViewBackward0" if summed else "MulBackward0")
    key = (n, name)
    cls = _CLASSES.get(key)
    if cls is None:
        cls = _CLASSES[key] = type(name, (EinsumOp,), {"saves": tuple(range(n)), "__module__": __name__,
                                                       "tangent": staticmethod(_einsum_tangent)})
    return cls


def _parse(equation, shapes):
    """The equation with each ``...`` written out as letters (right-aligned, broadcast), and
    its output (implicit: the subscripts seen once, in alphabetical order, after the ``...``)."""
    equation = equation.replace(" ", "")
    lhs, arrow, rhs = equation.partition("->")
    terms = lhs.split(",")
    if len(terms) > len(shapes):
        raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
    if len(terms) < len(shapes):
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    used = set(c for c in equation if c.isalpha())
    spare = [c for c in _LETTERS if c not in used]
    ell_ndim = 0
    for k, (term, shape) in enumerate(zip(terms, shapes)):
        for c in term.replace("...", ""):
            if not c.isalpha():
                raise RuntimeError(f"einsum(): invalid subscript given at index {equation.index(c)} in the equation "
                                   f"string, subscripts must be in [a-zA-Z]")
        explicit = len(term.replace("...", ""))
        if "..." in term:
            ell_ndim = max(ell_ndim, len(shape) - explicit)
        elif explicit != len(shape):
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({explicit}) does not match the "
                               f"number of dimensions ({len(shape)}) for operand {k} and no ellipsis was given")
    ell = "".join(spare[:ell_ndim])
    spare = spare[ell_ndim:]
    written = []
    for term, shape in zip(terms, shapes):
        if "..." in term:
            n = len(shape) - len(term.replace("...", ""))
            term = term.replace("...", ell[ell_ndim - n:] if n else "")
        written.append(term)
    if arrow:
        output = rhs.replace("...", ell)
        for c in output:
            if output.count(c) > 1:
                raise RuntimeError(f"einsum(): output subscript {c} appears more than once in the output")
            if c not in "".join(written):
                raise RuntimeError(f"einsum(): output subscript {c} does not appear in the equation for any input "
                                   f"operand")
    else:
        letters = "".join(t.replace("...", "") for t in terms)
        output = ell + "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    # a broadcast (size-1) dimension under the ellipsis is a subscript of its operand alone
    sizes = {}
    for k, (term, shape) in enumerate(zip(written, shapes)):
        for c, n in zip(term, shape):
            seen = sizes.get(c)
            if seen is not None and seen != n and n != 1 and seen != 1 and c not in ell:
                raise RuntimeError(f"einsum(): subscript {c} has size {n} for operand {k} which does not broadcast "
                                   f"with previously seen size {seen}")
            if seen is not None and seen != n and n != 1 and seen != 1:
                raise RuntimeError(f"einsum(): operands do not broadcast with remapped shapes (original->remapped): "
                                   f"{[tuple(s) for s in shapes]}")
            sizes[c] = n if seen in (None, 1) else seen
    final = []
    for term, shape in zip(written, shapes):
        chars = list(term)
        for i, (c, n) in enumerate(zip(term, shape)):
            if c in ell and n == 1 and sizes[c] != 1:
                chars[i] = spare.pop(0)
        final.append("".join(chars))
    return final, output


_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _sublist_equation(args):
    """The equation and operands of einsum's sublist form, ``einsum(a, [0, 1], b, [1, 2], [0, 2])``
    (subscripts as integers 0-51, ``...`` as Ellipsis, the output's list last and optional).

    >>> _sublist_equation(("a", [0, 1], "b", [1, 2], [0, 2]))
    ('ab,bc->ac', ('a', 'b'))
    >>> _sublist_equation(("a", [..., 0], [..., 0]))[0]
    '...a->...a'
    """
    def letters(sublist):
        out = []
        for s in sublist:
            if s is Ellipsis:
                out.append("...")
            elif isinstance(s, int) and 0 <= s < len(_LETTERS):
                out.append(_LETTERS[s])
            else:
                raise ValueError("einsum(): expected subscript to be within the range [0, 52) or ..., but got "
                                 f"{s}")
        return "".join(out)
    operands, inputs = args[0::2], args[1::2]
    output = None
    if len(args) % 2:
        operands, inputs = args[:-1][0::2], args[:-1][1::2]
        output = args[-1]
    equation = ",".join(letters(s) for s in inputs)
    if output is not None:
        equation += "->" + letters(output)
    return equation, tuple(operands)


def einsum(equation, *operands):
    """Einstein summation: ``einsum("ij,jk->ik", a, b)`` is ``a @ b``; ``...`` stands for
    broadcast leading dimensions; without ``->`` the output is the subscripts seen once. The
    sublist form, ``einsum(a, [0, 1], b, [1, 2], [0, 2])``, is the same with integers for letters.

    >>> from diffcompare import autograd as ag
    >>> a, b = ag.tensor([[1.0, 2.0]]), ag.tensor([[3.0], [4.0]])
    >>> ag.einsum("ij,jk->ik", a, b), ag.einsum("ij->j", a)
    (tensor([[11.]]), tensor([1., 2.]))
    """
    if not isinstance(equation, str):
        equation, operands = _sublist_equation((equation,) + operands)
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    shapes = [tuple(np.shape(array_of(a))) for a in operands]
    subscripts, output = _parse(equation, shapes)
    cls = _node_class(len(operands), ",".join(subscripts) + "->" + output)
    return apply(cls, tuple(operands), _params(subscripts, output, operands))


# the torch-level functions of this family (`ag.<name>`, as `torch.<name>`)
PUBLIC = ('einsum',)
# what the family exports to `ops`
__all__ = ['EinsumOp', 'einsum']
