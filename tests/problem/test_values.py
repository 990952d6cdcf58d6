"""The one integer check every option and argument goes through."""

import pytest

from diffcompare.problem.errors import InputError
from diffcompare.problem.values import SEED_LIMIT, whole_number


@pytest.mark.parametrize("value", [1, 7, 256])
def test_integers_in_range_are_returned(value):
    assert whole_number(value, "--jobs", 1, 256) == value


@pytest.mark.parametrize("value", [0, 257, 2.0, True, "3", None, -1])
def test_anything_else_is_bad_input_that_names_the_option_and_the_range(value):
    with pytest.raises(InputError) as raised:
        whole_number(value, "--jobs", 1, 256)
    assert str(raised.value) == f"--jobs must be an integer from 1 to 256, not {value!r}"


def test_the_seed_range_is_said_as_a_power_of_two():
    assert whole_number(2 ** 63 - 1, "the seed", 0, SEED_LIMIT - 1) == 2 ** 63 - 1
    with pytest.raises(InputError, match=r"from 0 to 2\^63 - 1, not 9223372036854775808"):
        whole_number(2 ** 63, "the seed", 0, SEED_LIMIT - 1)


def test_large_bounds_are_written_with_thousands_separators():
    with pytest.raises(InputError, match="from 0 to 1,000,000, not 1000001"):
        whole_number(1_000_001, "--points", 0, 1_000_000)
