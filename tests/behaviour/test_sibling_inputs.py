"""A function the tests never call borrows its siblings' test inputs (#32), through the CLI
with real git and real workers on both sides: of a sibling's many rows, those the change
wrote are kept and the rest spread over their shapes, never the first ones in file order;
and a sibling's call whose argument the test builds in a local name is borrowed as the test
builds it. Each fails on the code before it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from diffkit import witness_calls

Witnessed = Callable[[dict[str, str], dict[str, str], str], set[str]]


@pytest.fixture
def witnessed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> Witnessed:
    def run(old: dict[str, str], new: dict[str, str], function_id: str) -> set[str]:
        return witness_calls(tmp_path, old, new, function_id, capsys, monkeypatch)

    return run


# ``shout`` and ``whisper`` share ``_norm``; only a word whose letters' codes add up to 231
# ("ox") is treated apart by the new code. The tests call ``shout`` alone, 80 rows of one
# kind, and the change adds the row ("ox") at the end of the table: ``whisper`` can learn of
# it only from its sibling's tests.
WORDS_OLD = """\
def _norm(word):
    return word.strip()


def shout(word):
    return _norm(word).upper()


def whisper(word):
    return _norm(word).lower()
"""
WORDS_NEW = WORDS_OLD.replace(
    "    return word.strip()",
    "    if sum(map(ord, word)) == 231:\n        return word * 2\n    return word.strip()",
)
NAMES = ("alpha", "bravo", "delta", "gamma", "kilo", "lima", "oscar", "tango", "zulu", "hotel")
ROWS = [f"    ({a + b!r}, {(a + b).upper()!r})," for a in NAMES for b in NAMES][:80]


def _shout_test(extra: str = "") -> str:
    rows = "\n".join([*ROWS, extra] if extra else ROWS)
    return (
        "import pytest\n\nfrom demo.words import shout\n\nTABLE = (\n"
        + rows
        + "\n)\n\n\n@pytest.mark.parametrize('word, expected', TABLE)\n"
        "def test_shout(word, expected):\n    assert shout(word) == expected\n"
    )


def test_a_sibling_row_the_change_adds_is_borrowed(witnessed: Witnessed) -> None:
    assert all(sum(map(ord, r.split("'")[1])) != 231 for r in ROWS)
    old = {"src/demo/words.py": WORDS_OLD, "tests/test_words.py": _shout_test()}
    new = {
        "src/demo/words.py": WORDS_NEW,
        "tests/test_words.py": _shout_test("    ('ox', 'OXOX'),"),
    }
    calls = witnessed(old, new, "demo.words.whisper")
    assert "whisper('ox')" in calls, calls


# ``total`` and ``largest`` share ``_values``, which the new code makes skip what is not a
# number. The only call that passes one is a test of ``total`` that builds its list in a
# local name from another call: ``largest`` gets it as the test builds it.
NUMBERS_OLD = """\
def _values(items):
    return list(items)


def total(items):
    return sum(_values(items))


def largest(items):
    return max(_values(items))
"""
NUMBERS_NEW = NUMBERS_OLD.replace(
    "    return list(items)",
    "    return [i for i in items if isinstance(i, (int, float))]",
)
NUMBERS_TEST = """\
from demo.numbers import total


def test_total_of_mixed():
    items = list(map(int, "123")) + [None]
    try:
        total(items)
    except TypeError:
        pass


def test_total():
    assert total([1, 2]) == 3
"""


def test_a_sibling_call_whose_argument_the_test_builds_is_borrowed(
    witnessed: Witnessed,
) -> None:
    old = {"src/demo/numbers.py": NUMBERS_OLD, "tests/test_numbers.py": NUMBERS_TEST}
    new = {"src/demo/numbers.py": NUMBERS_NEW, "tests/test_numbers.py": NUMBERS_TEST}
    calls = witnessed(old, new, "demo.numbers.largest")
    assert "largest([1, 2, 3, None])" in calls, calls
