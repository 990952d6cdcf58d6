"""``-k EXPR``: which cases an audit runs, chosen by name as pytest's ``-k`` chooses tests.

A name in EXPR selects the cases whose name -- or whose suite file's name -- contains it,
in any case (upper or lower); ``and``, ``or``, ``not`` and parentheses combine them, with
pytest's grammar and precedence (not, then and, then or)::

    expr:     and_expr ('or' and_expr)*
    and_expr: not_expr ('and' not_expr)*
    not_expr: 'not' not_expr | '(' expr ')' | name
    name:     letters, digits and _ : + - . [ ] \\ /

EXPR is parsed here, never handed to ``eval``.

>>> selects = compile_keywords("rosen or (swish and not float32)")
>>> [selects([name]) for name in ("Rosenbrock", "swish float32", "swish, wrong backward", "kinks")]
[True, False, True, False]
>>> compile_keywords("")(["anything"])
True
"""

from __future__ import annotations

import re

from diffcompare.problem.errors import InputError

_TOKEN = re.compile(r"\s*(?:(\()|(\))|([\w:+\-.\[\]\\/]+)|(\S))")
MAX_DEPTH = 100                 # nested parentheses and nots
_SAID = {"end": "the end", "name": "a name", "and": "and", "or": "or", "not": "not"}


def _tokens(text: str) -> list:
    """(kind, text, column): kinds "(", ")", "and", "or", "not", "name"; "end" last."""
    out, at = [], 0
    while text[at:].strip():
        match = _TOKEN.match(text, at)
        left, right, word, other = match.groups()
        column = match.start(match.lastindex) + 1
        if other is not None:
            raise InputError(f"-k {text!r}: {other!r} at column {column} cannot be part of a name; names hold letters, "
                             f"digits and _ : + - . [ ] \\ /, joined by and, or, not and parentheses")
        kind = "(" if left else ")" if right else word if word in ("and", "or", "not") else "name"
        out.append((kind, left or right or word, column))
        at = match.end()
    out.append(("end", "", len(text) + 1))
    return out


class _Reader:
    def __init__(self, text: str):
        self.text, self.tokens, self.at, self.depth = text, _tokens(text), 0, 0

    def peek(self) -> str:
        return self.tokens[self.at][0]

    def take(self, *kinds):
        kind, word, column = self.tokens[self.at]
        if kind not in kinds:
            got = "the end" if kind == "end" else repr(word)
            wanted = [_SAID.get(k, repr(k)) for k in kinds]
            raise InputError(f"-k {self.text!r}: at column {column} expected {', '.join(wanted[:-1])}"
                             f"{' or ' if len(wanted) > 1 else ''}{wanted[-1]}, found {got}")
        self.at += 1
        return word

    def expression(self):
        node = self.conjunction()
        while self.peek() == "or":
            self.take("or")
            node = ("or", node, self.conjunction())
        return node

    def conjunction(self):
        node = self.negation()
        while self.peek() == "and":
            self.take("and")
            node = ("and", node, self.negation())
        return node

    def negation(self):
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise InputError(f"-k: more than {MAX_DEPTH} nested parentheses and nots")
        try:
            if self.peek() == "not":
                self.take("not")
                return ("not", self.negation())
            if self.peek() == "(":
                self.take("(")
                node = self.expression()
                self.take(")")
                return node
            return ("name", self.take("not", "(", "name").lower())
        finally:
            self.depth -= 1


def parse_keywords(text: str):
    """The tree of ``-k`` EXPR: ("name", lower-case text), ("not", x), ("and", x, y),
    ("or", x, y); None for an empty EXPR (every case). InputError says what is wrong where."""
    if not text.strip():
        return None
    reader = _Reader(text)
    tree = reader.expression()
    reader.take("and", "or", "end")
    return tree


def matches(tree, names) -> bool:
    """Whether a case known by ``names`` (its name, its suite file's name) is selected."""
    if tree is None:
        return True
    kind = tree[0]
    if kind == "name":
        return any(tree[1] in name.lower() for name in names)
    if kind == "not":
        return not matches(tree[1], names)
    if kind == "and":
        return matches(tree[1], names) and matches(tree[2], names)
    return matches(tree[1], names) or matches(tree[2], names)


def compile_keywords(text: str):
    """``-k`` EXPR as a test of a case's names: ``selects(names) -> bool``."""
    tree = parse_keywords(text)
    return lambda names: matches(tree, names)
