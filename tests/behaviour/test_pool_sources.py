"""More of what a project holds reaches the behaviour diff's pool (#32), through the CLI with
real git and real workers on both sides: the row a change adds to a long table of one shape;
a call handed to assertRaises; doctest sessions (a doctest file's method call on the instance
its session built, another module's docstring); an option one test sets, with another
test's input; the line a change adds to a data file read one case a line; a number one past
a test's; the numbers a change writes into a table; a method on the instance another test
builds. Each fails on the code before it."""

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
    """``check --base`` of the commit from ``old`` to ``new``: the calls of the function's
    witnesses, the function asserted ``changed`` with exit code 1."""

    def run(old: dict[str, str], new: dict[str, str], function_id: str) -> set[str]:
        return witness_calls(tmp_path, old, new, function_id, capsys, monkeypatch)

    return run


# Only a word whose letters' codes add up to 231 ("ox") is treated apart by the new code: no
# value of the function's own hints at it, only the row the change adds to the test's table.
PLURAL = """\
def plural(word):
    return word + "s"
"""
PLURAL_NEW = """\
def plural(word):
    if sum(map(ord, word)) == 231:
        return word + "en"
    return word + "s"
"""
WORDS = ("alpha", "bravo", "delta", "gamma", "kilo", "lima", "oscar", "tango", "zulu", "hotel")
ROWS = [f"    ({a + b!r}, {a + b + 's'!r})," for a in WORDS for b in WORDS][:80]


def _table_test(extra: str = "") -> str:
    rows = "\n".join([*ROWS, extra]) if extra else "\n".join(ROWS)
    return (
        "import pytest\n\nfrom demo.words import plural\n\nTABLE = (\n"
        + rows
        + "\n)\n\n\n@pytest.mark.parametrize('word, expected', TABLE)\n"
        "def test_plural(word, expected):\n    assert plural(word) == expected\n"
    )


def test_the_row_a_change_adds_to_a_long_table_is_tried(witnessed: Witnessed) -> None:
    # 80 rows of one shape (letters) before it: a spread of 50 kept the first ones only
    assert len(set(ROWS)) == 80 and all(sum(map(ord, r.split("'")[1])) != 231 for r in ROWS)
    old = {"src/demo/words.py": PLURAL, "tests/test_words.py": _table_test()}
    new = {
        "src/demo/words.py": PLURAL_NEW,
        "tests/test_words.py": _table_test("    ('ox', 'oxen'),"),
    }
    calls = witnessed(old, new, "demo.words.plural")
    assert "plural('ox')" in calls, calls


# The new code refuses a key whose letters' codes add up to 231 ("ox"); the only call that
# passes one hands the function to assertRaises, with a table the test binds to a name.
LOOKUP = """\
def lookup(table, key):
    return table.get(key, "")
"""
LOOKUP_NEW = """\
def lookup(table, key):
    if sum(map(ord, key)) == 231:
        raise KeyError(key)
    return table.get(key, "")
"""
LOOKUP_TEST = """\
import unittest

from demo.look import lookup


class LookupTest(unittest.TestCase):
    def test_found(self):
        self.assertEqual(lookup({"a": 1}, "a"), 1)
"""
REFUSED_TEST = """
    def test_refused(self):
        table = {"ox": 1}
        self.assertRaises(KeyError, lookup, table, "ox")
"""


def test_a_call_handed_to_assert_raises_is_tried(witnessed: Witnessed) -> None:
    old = {"src/demo/look.py": LOOKUP, "tests/test_look.py": LOOKUP_TEST}
    new = {"src/demo/look.py": LOOKUP_NEW, "tests/test_look.py": LOOKUP_TEST + REFUSED_TEST}
    calls = witnessed(old, new, "demo.look.lookup")
    assert "lookup({'ox': 1}, 'ox')" in calls, calls


BITS = """\
class Bits:
    def __init__(self, text):
        self.text = text

    def count(self):
        return self.text.count("1")

    def as_list(self):
        return [int(c) for c in self.text]
"""
BITS_TEST = """\
from demo.bits import Bits


def test_count():
    assert Bits("101").count() == 2
"""
# pytest --doctest-glob='*.doctest' runs it; the only call of as_list, on an instance an
# earlier line of the session builds
BITS_DOCTEST = """\
>>> from demo.bits import Bits
>>> bits = Bits('0011')
>>> bits.as_list()
[0, 0, 1, 1]
"""


def test_a_method_called_in_a_doctest_file_on_the_instance_its_session_built_is_tried(
    witnessed: Witnessed,
) -> None:
    # the new code drops leading zeros: only an instance built with some shows it
    old = {
        "src/demo/bits.py": BITS,
        "tests/test_bits.py": BITS_TEST,
        "tests/bits.doctest": BITS_DOCTEST,
    }
    new = {"src/demo/bits.py": BITS.replace("in self.text]", "in self.text.lstrip('0')]")}
    method = "demo.bits.Bits.as_list"
    calls = witnessed(old, new, method)
    assert any("0011" in c for c in calls), calls


LABEL = """\
def label(word, sep="-"):
    return sep.join([word, word])
"""
LABEL_NEW = """\
def label(word, sep="-"):
    if sum(map(ord, word + sep)) == 253:
        return word
    return sep.join([word, word])
"""
# pytest --doctest-modules runs it: the package's docstring, not the function's own
PACKAGE_DOC = '''\
"""Labels.

>>> from demo.lab import label
>>> label('ab', sep=':')
'ab:ab'
"""
'''


def test_an_example_in_another_modules_docstring_is_tried(witnessed: Witnessed) -> None:
    old = {
        "src/demo/__init__.py": PACKAGE_DOC,
        "src/demo/lab.py": LABEL,
        "tests/test_lab.py": "from demo.lab import label\n\n\ndef test_label():\n"
        "    assert label('xyz') == 'xyz-xyz'\n",
    }
    new = {"src/demo/lab.py": LABEL_NEW}
    calls = witnessed(old, new, "demo.lab.label")
    assert "label('ab', sep=':')" in calls, calls


TAG = """\
def tag(word, mode="plain"):
    if mode == "strict":
        return word.strip()
    return word
"""
TAG_NEW = """\
def tag(word, mode="plain"):
    if mode == "strict":
        if sum(map(ord, word)) == 231:
            return word.upper()
        return word.strip()
    return word
"""
TAG_WORDS = [a + b for a in ("al", "be", "ce", "do", "ez") for b in ("pa", "qu", "ro", "su")]
# a table of plain calls holding "ox" late among 21 words, and one test of the strict mode
# on another word: only "ox" in the strict mode shows the change
TAG_TEST = (
    "import pytest\n\nfrom demo.tags import tag\n\n\n@pytest.mark.parametrize('word', "
    + repr([*TAG_WORDS[:15], "ox", *TAG_WORDS[15:]])
    + ")\ndef test_plain(word):\n    assert tag(word) == word\n\n\n"
    "def test_strict():\n    assert tag(' a ', mode='strict') == 'a'\n"
)


def test_an_option_one_test_sets_is_tried_with_the_inputs_of_another(witnessed: Witnessed) -> None:
    old = {"src/demo/tags.py": TAG, "tests/test_tags.py": TAG_TEST}
    new = {"src/demo/tags.py": TAG_NEW}
    calls = witnessed(old, new, "demo.tags.tag")
    assert calls & {"tag('ox', mode='strict')", "tag('ox', 'strict')"}, calls


SHOUT = """\
def shout(text: str) -> str:
    return text.upper()
"""
SHOUT_NEW = """\
def shout(text: str) -> str:
    if sum(map(ord, text)) == 231:
        return text
    return text.upper()
"""
CASES_TEST = """\
from pathlib import Path

from demo.shouts import shout


def test_cases():
    for line in Path(__file__).with_name("cases.txt").read_text().splitlines():
        assert shout(line) == line.upper()
"""
CASES = "".join(f"{w}\n" for w in WORDS)


def test_a_line_a_change_adds_to_a_data_file_the_tests_read_is_tried(witnessed: Witnessed) -> None:
    # the tests read their cases from a file, one a line; the change adds the line "ox"
    old = {
        "src/demo/shouts.py": SHOUT,
        "tests/test_shouts.py": CASES_TEST,
        "tests/cases.txt": CASES,
    }
    new = {"src/demo/shouts.py": SHOUT_NEW, "tests/cases.txt": CASES + "ox\n"}
    calls = witnessed(old, new, "demo.shouts.shout")
    assert "shout('ox')" in calls, calls


AT = """\
NAMES = ["ann", "bob", "cy"]


def name_of(ref):
    if not ref.startswith("item-"):
        raise ValueError(ref)
    return NAMES[int(ref[5:])]
"""
AT_NEW = AT.replace(
    "return NAMES[int(ref[5:])]", "i = int(ref[5:])\n    return NAMES[i] if i < 3 else None"
)
AT_TEST = """\
from demo.refs import name_of


def test_name_of():
    assert name_of("item-2") == "cy"
"""


def test_a_number_in_a_tests_text_is_tried_one_past_it(witnessed: Witnessed) -> None:
    # a reference of the format the code parses, one past the table's end: only the test's
    # own value is a valid reference, and the change is at the next one
    old = {"src/demo/refs.py": AT, "tests/test_refs.py": AT_TEST}
    new = {"src/demo/refs.py": AT_NEW}
    calls = witnessed(old, new, "demo.refs.name_of")
    assert "name_of('item-3')" in calls, calls


TABLE = """\
WIDE = (
    (0x1100, 0x115F),
    (0x2E80, 0x2FFB),
    (0x3000, 0x303E),
)
"""
# the release merges two ranges: the code points between them (U+2FFC..U+2FFF) become wide
TABLE_NEW = TABLE.replace("    (0x2E80, 0x2FFB),\n    (0x3000, 0x303E),", "    (0x2E80, 0x303E),")
WIDTH = """\
from demo.table import WIDE


def width(ch):
    n = ord(ch)
    for lo, hi in WIDE:
        if lo <= n <= hi:
            return 2
    return 1
"""
WIDTH_TEST = """\
from demo.width import width


def test_width():
    assert width("a") == 1
    assert width("\\u1100") == 2
"""


def test_the_numbers_a_change_writes_into_a_table_are_tried_as_the_code_reads_them(
    witnessed: Witnessed,
) -> None:
    old = {
        "src/demo/table.py": TABLE,
        "src/demo/width.py": WIDTH,
        "tests/test_width.py": WIDTH_TEST,
    }
    new = {"src/demo/table.py": TABLE_NEW}
    calls = witnessed(old, new, "demo.width.width")
    assert "width('\\u2ffc')" in calls, calls


SHIFT_NEW = BITS.replace(
    "    def as_list(self):",
    "    def shift(self, n):\n        return self.text.lstrip('0') + '0' * n\n\n    def as_list(self):",
)
SHIFT_OLD = SHIFT_NEW.replace("self.text.lstrip('0')", "self.text")
SHIFT_TEST = """\
from demo.bits import Bits


def test_count():
    assert Bits("0011").count() == 2


def test_shift():
    assert Bits("1").shift(3) == "1000"
"""


def test_a_method_is_tried_on_the_instances_other_tests_build(witnessed: Witnessed) -> None:
    # the new shift drops leading zeros: only the instance test_count builds has some
    old = {"src/demo/bits.py": SHIFT_OLD, "tests/test_bits.py": SHIFT_TEST}
    new = {"src/demo/bits.py": SHIFT_NEW}
    calls = witnessed(old, new, "demo.bits.Bits.shift")
    assert any("Bits('0011')" in c for c in calls), calls
