"""Vectors and matrices typed at --at are Python literals of numbers: read by
ast.literal_eval, checked, and every mistake told in one line naming the value."""

import numpy as np
import pytest

from diffcompare.problem.errors import InputError
from diffcompare.problem.values import parse_point, parse_value


@pytest.mark.parametrize("text, expected", [
    ("[2,3,4]", [2.0, 3.0, 4.0]),
    ("[[1,2],[3,4]]", [[1.0, 2.0], [3.0, 4.0]]),
    (" [ -1.5e-3 , +2 ] ", [-0.0015, 2.0]),
    ("[0.1, 1_000]", [0.1, 1000.0]),
])
def test_literals_are_read_as_binary64_arrays(text, expected):
    value = parse_value("x", text)
    assert value.dtype == np.float64 and value.tolist() == expected


@pytest.mark.parametrize("text, words", [
    ("[1,2", "'[' is never closed"),
    ("[1,2]]", "unmatched ']'"),
    ("[1 2]", "at column"),
    ("[x, 1]", "only numbers in brackets"),
    ("[__import__('os')]", "only numbers in brackets"),
    ("[True, 1]", "not a real number"),
    ("[1+2j]", "not a real number"),
    ("['1']", "not a real number"),
    ("[(1, 2)]", "a tuple"),
    ("[1,2],[3]", "write one vector"),
    ("[1,[2]]", "different lengths or depths"),
    ("[]", "empty vector"),
    ("[[[1]]]", "at most 2 dimensions"),
    ("[1e400]", "finite"),
])
def test_bad_literals_say_what_is_wrong_in_one_line(text, words):
    with pytest.raises(InputError) as caught:
        parse_value("x", text)
    message = str(caught.value)
    assert words in message and "\n" not in message and message.startswith("x=")


def test_a_point_holds_vectors_and_numbers():
    point = parse_point("A=[[1,0],[0,2]], s=3, v=[1,2]")
    assert point["A"].shape == (2, 2) and point["s"] == 3.0 and point["v"].tolist() == [1.0, 2.0]
