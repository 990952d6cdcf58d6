"""The expression language: Python-like arithmetic over the function table, parsed by
diffcompare's own parser (never ``eval``, never ``sympify`` on the text).

The parser is iterative (shunting-yard), so no input can exhaust Python's stack, and it
turns text into a postfix program that every world (NumPy, complex, SymPy, mpmath, the
autograd engine) runs with a small stack machine.

>>> f = parse("exp(x) / sqrt(sin(x)^3 + cos(x)**3)")
>>> f.variables
('x',)
>>> round(float(f.evaluate("numpy", {"x": 1.5})), 6)
4.49778
>>> float(parse("-x**2").evaluate("numpy", {"x": 3.0}))
-9.0
>>> parse("sinn(x) + 1")
Traceback (most recent call last):
...
diffcompare.language.expression.ExpressionError: unknown function 'sinn' — did you mean 'sin'? (column 1)
  sinn(x) + 1
  ^
"""

from __future__ import annotations

import difflib
import math
import re
from dataclasses import dataclass
from operator import attrgetter as _attrgetter
from typing import Callable, Mapping

import numpy as _np

from diffcompare.language.table import CALLABLE, CONSTANTS, EXTRA_WORLDS, OPERATORS, ROWS, single_precision_form
from diffcompare.language.worlds import (COLUMN_OF, COMPLEX, FLOAT32, MPMATH, OBJECT_WORLDS, SINGLE_PRECISION, SYMPY,
                                         TORCH)

_ndarray = _np.ndarray

# Hard limits, checked while reading, before anything can grow: far beyond what a person
# types, well within what SymPy's recursive algorithms and Python's own parser (used by
# lambdify) survive.
MAX_LENGTH = 1_000_000      # characters
MAX_NODES = 10_000          # numbers, variables, operators and calls
MAX_NESTING = 100           # open parentheses, pending unary minuses and ** chains
MAX_NUMBER_LENGTH = 100     # characters in one number literal
MAX_INDEX_DIGITS = 18       # digits in one subscript

_TOKEN = re.compile(r"""
    (?P<space>\s+)
  | (?P<number>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)
  | (?P<name>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<op>\*\*|[-+*/^(),@\[\]])
""", re.VERBOSE | re.ASCII)     # ASCII digits only: 𝟏𝟎 and ١ are not numbers here

# a subscript: integers and slices of integer constants, e.g. [0], [1:], [:-1], [::2], [0, 1:]
_INDEX_ITEM = r"\s*(?:-?\d+\s*)?(?::\s*(?:-?\d+\s*)?){0,2}"
_SUBSCRIPT = re.compile(rf"\[({_INDEX_ITEM}(?:,{_INDEX_ITEM})*)\]", re.ASCII)

_HINTS = {
    "=": "'=' cannot appear in an expression; give values with --at (e.g. --at x=1.5)",
    ":": "':' belongs inside a subscript, as in x[1:] or x[:-1]",
    "{": "braces are not part of the expression language; use parentheses",
    "%": "'%' (remainder) is not supported",
    "!": "'!' is not supported; there is no factorial",
    "<": "comparisons are not supported; use min, max, relu, abs or sign",
    ">": "comparisons are not supported; use min, max, relu, abs or sign",
    "&": "logical operators are not supported",
    "|": "logical operators are not supported; for an absolute value write abs(x)",
}

# binary operator -> (precedence, right-associative)
_BINARY = {"+": (1, False), "-": (1, False), "*": (2, False), "/": (2, False), "@": (2, False), "**": (4, True)}
_UNARY_PRECEDENCE = 3    # -x**2 is -(x**2), as in Python


class ExpressionError(ValueError):
    """Text that is not a valid expression: says what is wrong, where (1-based column) and,
    for a misspelt name, the nearest known one."""

    def __init__(self, message: str, text: str = "", column: int | None = None):
        self.message, self.text, self.column = message, text, column
        super().__init__(self._render())

    def _render(self):
        if self.column is None:
            return self.message
        start = max(0, self.column - 1 - 60)
        shown = self.text[start:start + 120].replace("\n", " ").replace("\t", " ")
        prefix = "…" if start else ""
        suffix = "…" if start + 120 < len(self.text) else ""
        caret = " " * (len(prefix) + self.column - 1 - start) + "^"
        return f"{self.message} (column {self.column})\n  {prefix}{shown}{suffix}\n  {caret}"


def nearest(name: str, candidates) -> str | None:
    """The closest spelling among ``candidates``, if any is close.

    >>> nearest("sinn", CALLABLE), nearest("exmp1", CALLABLE), nearest("zzz", CALLABLE)
    ('sin', 'expm1', None)
    """
    found = difflib.get_close_matches(name, list(candidates), n=1, cutoff=0.6)
    return found[0] if found else None


# Postfix instructions, each ending with its column: (VAR, name, column), (CONST, float value,
# literal text, column), (KEY, subscript, text, column) and (CALL, row, nargs, column)
VAR, CONST, KEY, CALL = "var", "const", "key", "call"


@dataclass(frozen=True)
class Expression:
    """A parsed expression: the text, its postfix ``program``, its variables in order of
    first appearance, and the table rows it uses (the named functions and constants, and
    the rows that act on whole arrays: ``@``, subscripts, vectors)."""

    @property
    def elementwise(self) -> bool:
        """True when every operation acts element by element, so that arrays of points
        can be evaluated at once."""
        return not any(ROWS[name].structural for name in self.functions if name in ROWS)
    text: str
    program: tuple
    variables: tuple
    functions: frozenset

    def evaluate(self, world: str, values: Mapping[str, object], observe: Callable | None = None):
        """Run the program in ``world`` (a column of the function table) with ``values``
        for the variables. ``observe(row, args, result, column)`` sees every call.

        >>> parse("max(x, 2) * pi").evaluate("mpmath", {"x": 1})
        mpf('6.2831853071795862')
        """
        stack = []
        push = stack.append
        column_of = COLUMN_OF.get(world, world)
        lookup = (single_precision_form if world == FLOAT32 else
                  EXTRA_WORLDS.get(column_of) or _attrgetter(column_of))
        for instruction in self.program:
            kind = instruction[0]
            if kind == VAR:
                push(values[instruction[1]])
            elif kind == CONST:
                push(constant(world, instruction[1]))
            elif kind == KEY:
                push(instruction[1])
            else:
                row, nargs, column = instruction[1], instruction[2], instruction[3]
                args = stack[len(stack) - nargs:] if nargs else []
                del stack[len(stack) - nargs:]
                function = lookup(row)
                if function is None:
                    raise NotInWorld(row, world)
                if world in OBJECT_WORLDS and not row.structural and any(isinstance(a, _ndarray) for a in args):
                    result = _np.frompyfunc(function, nargs, 1)(*args)
                else:
                    result = function(*args)
                if observe is not None:
                    observe(row, args, result, column)
                push(result)
        return stack[0]

    def __str__(self):
        return self.text


class NotInWorld(Exception):
    """A row has no meaning in a world (abs has no analytic complex extension)."""

    def __init__(self, row, world):
        self.row, self.world = row, world
        super().__init__(row.not_complex_safe or f"{row.name} has no {world} form")


def constant(world: str, value: float):
    """A number literal in ``world``: exactly the binary64 value the other worlds use."""
    if world == SYMPY:
        import sympy
        if value.is_integer() and abs(value) < 2 ** 53:
            return sympy.Integer(int(value))
        if math.isfinite(value):
            # the exact binary64 value as a rational: SymPy folds nothing into a rounded
            # float (exp(x - 1.5) stays exp(x - 3/2), not 0.2231301601484*exp(x)); formulas
            # print it short (language.printing)
            return sympy.Rational(*value.as_integer_ratio())
        return sympy.Float(value)
    if world == MPMATH:
        import mpmath
        return mpmath.mpf(value)
    if world == COMPLEX:
        return complex(value)
    if world == TORCH:
        return value            # a Python float: PyTorch keeps the tensors' dtype
    if world in SINGLE_PRECISION:
        import numpy
        return numpy.float32(value)
    import numpy
    # the engine takes NumPy scalars as constants (x ** 3 records PowBackward0, as in
    # PyTorch); NumPy's rules keep 1/0 = inf and (-8) ** (1/3) = nan, as in every world
    return numpy.float64(value)


def _describe(kind, text):
    return {"number": f"the number {text}", "name": f"'{text}'", "op": f"'{text}'"}.get(kind, repr(text))


def parse(text: str) -> Expression:
    """Parse ``text`` into an :class:`Expression`, or raise :class:`ExpressionError`.

    >>> parse("2^x + log1p(y)").variables
    ('x', 'y')
    >>> parse("2x")
    Traceback (most recent call last):
    ...
    diffcompare.language.expression.ExpressionError: missing operator between the number 2 and 'x' — write 2*x? (column 2)
      2x
       ^
    """
    if not isinstance(text, str):
        raise ExpressionError(f"an expression must be text, not {type(text).__name__}")
    if len(text) > MAX_LENGTH:
        raise ExpressionError(f"expression too long: {len(text):,} characters (the limit is {MAX_LENGTH:,})")
    if not text.strip():
        raise ExpressionError("empty expression: write one such as sin(x)*exp(y)")
    return _Parser(text).run()


class _Parser:
    """Operator precedence (shunting-yard) into a postfix program: tokens are read one by one,
    an operand where one is expected (:meth:`operand`), else an operator, a subscript or a
    closing bracket (:meth:`after_operand`)."""

    def __init__(self, text: str):
        self.text = text
        self.output = []            # the postfix program
        self.operators = []         # (kind, payload, column): "binary"/"unary" with the symbol, or "(" / "["
                                    # with the called row (None for plain parentheses)
        self.arg_counts = []        # one per open call or vector
        self.variables = {}
        self.functions = set()
        self.expect_operand = True
        self.previous = None        # (kind, text, column) of the last token
        self.position = 0

    def fail(self, message, column):
        raise ExpressionError(message, self.text, column)

    def emit(self, item):
        self.output.append(item)
        if len(self.output) > MAX_NODES:
            self.fail(f"expression too large: more than {MAX_NODES:,} numbers, names and operators", item[-1])

    def open(self, entry):
        self.operators.append(entry)
        _check_nesting(self.operators, self.fail, entry[2])

    def pop_operator(self):
        kind, payload, column = self.operators.pop()
        if kind == "binary":
            self.emit((CALL, OPERATORS[payload], 2, column))
        else:
            self.emit((CALL, ROWS["neg"], 1, column))

    def run(self) -> Expression:
        text, length = self.text, len(self.text)
        while self.position < length:
            match = _TOKEN.match(text, self.position)
            column = self.position + 1
            if match is None:
                char = text[self.position]
                self.fail(_HINTS.get(char) or f"unexpected character {char!r}", column)
            self.position = match.end()
            kind, token = match.lastgroup, match.group()
            if kind == "space":
                continue
            token = "**" if token == "^" else token
            if self.expect_operand:
                token = self.operand(kind, token, column)
            else:
                token = self.after_operand(kind, token, column, match)
            if token is not None:
                self.previous = (kind, token, column)
        return self.finish()

    def operand(self, kind, token, column):
        """A number, a name, an opening bracket or a sign, where an operand is expected; the
        token to remember as the previous one (None: already remembered)."""
        if kind == "number":
            if len(token) > MAX_NUMBER_LENGTH:
                self.fail(f"number too long: {len(token)} characters (the limit is {MAX_NUMBER_LENGTH})", column)
            value = float(token)
            if value == float("inf"):
                self.fail(f"the number {token} is beyond the largest float64 (about 1.8e308)", column)
            self.emit((CONST, value, token, column))
            self.expect_operand = False
        elif kind == "name":
            return self.name(token, column)
        elif token == "(":
            self.open(("(", None, column))
        elif token == "[":                                 # a vector [a, b, ...]
            self.open(("[", ROWS["vector"], column))
            self.arg_counts.append(1)
        elif token == "-":
            self.open(("unary", "-", column))
        elif token == "+":
            pass                                           # unary plus changes nothing
        elif token == ")" and self.previous is not None and self.previous[1] == "(" and \
                self.operators[-1][1] is not None:
            row = self.operators[-1][1]
            self.fail(f"{row.name} takes {row.arity} argument{'s' * (row.arity != 1)}, got none", column)
        elif token == "]" and self.previous is not None and self.previous[1] == "[":
            self.fail("an empty vector []: write its elements, e.g. [x, y]", column)
        else:
            after = f"after {_describe(*self.previous[:2])}" if self.previous else "at the start"
            self.fail(f"expected a number, a variable, a function call or '(' {after}, found "
                      f"{_describe(kind, token)}", column)
        return token

    def name(self, token, column):
        """A function call's name (with its parenthesis), a constant or a variable."""
        following = _TOKEN.match(self.text, self.position)
        while following is not None and following.lastgroup == "space":
            following = _TOKEN.match(self.text, following.end())
        if following is not None and following.group() == "(":
            row = CALLABLE.get(token)
            if row is None:
                if token in CONSTANTS:
                    self.fail(f"'{token}' is a constant, not a function", column)
                suggestion = nearest(token, CALLABLE)
                self.fail(f"unknown function '{token}'" + (f" — did you mean '{suggestion}'?" if suggestion
                          else f"; known functions: {', '.join(sorted(CALLABLE))}"), column)
            self.functions.add(row.name)
            self.open(("(", row, column))                  # a call's parenthesis carries its row
            self.arg_counts.append(1)
            self.position = following.end()
            self.previous = ("op", "(", following.start() + 1)
            return None
        if token in CONSTANTS:
            self.functions.add(token)
            self.emit((CALL, CONSTANTS[token], 0, column))
        elif token in CALLABLE:
            arity = CALLABLE[token].arity
            self.fail(f"'{token}' is a function: call it as {token}({', '.join('xy'[:arity])})", column)
        else:
            self.variables.setdefault(token, column)
            self.emit((VAR, token, column))
        self.expect_operand = False
        return token

    def after_operand(self, kind, token, column, match):
        """A binary operator, a subscript or a closing bracket or comma, after an operand."""
        if token in _BINARY:
            self.binary(token, column)
        elif token == "[":                                 # a subscript of what came before
            match = _SUBSCRIPT.match(self.text, match.start())
            if match is None:
                self.fail("a subscript holds integer constants and slices, e.g. x[0], x[1:], x[:-1], A[0, 1]",
                          column)
            self.position = match.end()
            self.emit((KEY, _subscript(match.group(1), self.fail, column), match.group(), column))
            self.emit((CALL, ROWS["index"], 2, column))
            token = match.group()
        elif token in (")", ",", "]"):
            self.close(token, column)
        else:
            before = _describe(*self.previous[:2])
            suggestion = f" — write {self.previous[1]}*{token}?" if kind in ("name", "number") else ""
            self.fail(f"missing operator between {before} and {_describe(kind, token)}{suggestion}", column)
        return token

    def binary(self, token, column):
        precedence, right = _BINARY[token]
        while self.operators:
            top_kind, top_payload, _ = self.operators[-1]
            if top_kind == "binary":
                top_precedence = _BINARY[top_payload][0]
            elif top_kind == "unary":
                top_precedence = _UNARY_PRECEDENCE
            else:
                break
            if top_precedence > precedence or (top_precedence == precedence and not right):
                self.pop_operator()
            else:
                break
        self.open(("binary", token, column))
        self.expect_operand = True

    def close(self, token, column):
        """``)``, ``]`` or ``,``: the operators inside go out; a call or a vector is complete."""
        while self.operators and self.operators[-1][0] not in ("(", "["):
            self.pop_operator()
        if not self.operators:
            self.fail({")": "unmatched ')'", "]": "unmatched ']'"}.get(
                token, "',' outside a function call's arguments or a vector"), column)
        opener, _, open_column = self.operators[-1]
        if token != "," and opener != {")": "(", "]": "["}[token]:
            self.fail(f"'{opener}' at column {open_column} is closed by '{token}'", column)
        if token == ",":
            if self.operators[-1][1] is None:
                self.fail("',' inside parentheses that are not a function call", column)
            self.arg_counts[-1] += 1
            self.expect_operand = True
        elif token == "]":
            _, row, open_column = self.operators.pop()
            self.emit((CALL, row, self.arg_counts.pop(), open_column))
        else:
            _, row, call_column = self.operators.pop()
            if row is not None:
                count = self.arg_counts.pop()
                if count != row.arity:
                    self.fail(f"{row.name} takes {row.arity} argument{'s' * (row.arity != 1)}, got {count}",
                              call_column)
                self.emit((CALL, row, count, call_column))

    def finish(self) -> Expression:
        if self.expect_operand:
            after = _describe(*self.previous[:2]) if self.previous else "the start"
            self.fail(f"expression ends after {after}: expected a number, a variable or '('",
                      len(self.text.rstrip()) + 1)
        while self.operators:
            kind, _, column = self.operators[-1]
            if kind in ("(", "["):
                self.fail(f"'{kind}' is never closed", column)
            self.pop_operator()
        self.functions.update(item[1].name for item in self.output if item[0] == CALL and item[1].structural)
        return Expression(self.text, tuple(self.output), tuple(self.variables), frozenset(self.functions))


def _subscript(text, fail, column):
    """The key of a subscript's text (between the brackets): an int, a slice, or a tuple."""
    items = []
    if text.count(",") >= 2:
        fail("a subscript has one or two items: variables are numbers, vectors and matrices", column)
    for item in text.split(","):
        parts = [p.strip() for p in item.split(":")]
        if any(len(p.lstrip("-")) > MAX_INDEX_DIGITS for p in parts):
            fail(f"a subscript of more than {MAX_INDEX_DIGITS} digits: no array is that large", column)
        if len(parts) == 1:
            if not parts[0]:
                fail("an empty subscript item: write an integer, e.g. x[0]", column)
            items.append(int(parts[0]))
        else:
            bounds = [int(p) if p else None for p in parts]
            if len(bounds) == 3 and bounds[2] == 0:
                fail("a slice step cannot be zero", column)
            items.append(slice(*bounds))
    return items[0] if len(items) == 1 else tuple(items)


def _check_nesting(operators, fail, column):
    if len(operators) > MAX_NESTING:
        fail(f"expression nested too deeply: more than {MAX_NESTING} open parentheses, unary minuses or "
             f"chained powers", column)

