"""How what user code raised is named: its type, its first line, and the user's own line
where it was raised, even when the exception cannot say what it is."""

import sys
import textwrap

from diffcompare.problem.usercode import described, message, shown


def _raised(source: str, tmp_path, name="user_ops"):
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(source))
    sys.path.insert(0, str(tmp_path))
    try:
        module = __import__(name)
        try:
            module.f(1.0)
        except BaseException as error:      # noqa: BLE001
            return error
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop(name, None)
    raise AssertionError("f did not raise")


def test_an_exception_is_named_with_its_first_line_and_the_users_line(tmp_path):
    error = _raised('''
        def f(x):
            table = {}
            return table["missing"]
    ''', tmp_path)
    assert message(error) == "KeyError: 'missing'"
    assert described(error) == "KeyError: 'missing' (user_ops.py line 4, in f)"


def test_an_exception_whose_text_cannot_be_made_is_still_named(tmp_path):
    error = _raised('''
        class Mute(Exception):
            def __str__(self):
                raise ValueError("no text")

        def f(x):
            raise Mute()
    ''', tmp_path, name="mute_ops")
    assert message(error).startswith("Mute: (its message cannot be printed")
    assert described(error).endswith("(mute_ops.py line 7, in f)")


def test_an_empty_memory_error_says_out_of_memory():
    assert message(MemoryError()) == "MemoryError: out of memory"
    assert message(RuntimeError()) == "RuntimeError"


def test_values_are_shown_short_and_never_raise():
    class Unprintable:
        def __repr__(self):
            raise RuntimeError("no repr")

    assert shown("abc") == "'abc'"
    assert shown(list(range(100)), limit=10) == "[0, 1, 2,…"
    assert shown(Unprintable()) == "an object of type Unprintable that cannot be printed"
