"""A test's call reaches the behaviour diff's pool with what its file builds the arguments
with (#32), through the CLI with real git and real workers on both sides: a plain function
of the test file the arguments call (``header("utf-8")``) comes along as its definition; and
a helper of a test class (``self.check(word, ...)``) passes on the value the calling test
bound to a name (``word = "o" + "x"``), not the name. Each fails on the code before it."""

from __future__ import annotations

from pathlib import Path

import pytest
from diffkit import check, functions, git, project, write

# Only a word whose letters' codes add up to 231 ("ox") is treated apart by the new code.
WORDS_OLD = """\
def shout(word):
    return word.upper()
"""
WORDS_NEW = """\
def shout(word):
    if sum(map(ord, word)) == 231:
        return word.upper() * 2
    return word.upper()
"""
FILE_FUNCTION = """\
from demo.words import shout


def lower(word):
    return word.lower()


def test_shout():
    assert shout(lower("OX")) == "OX"
"""
CLASS_HELPER = """\
import unittest

from demo.words import shout


class TestShout(unittest.TestCase):
    def check(self, word, expected):
        self.assertEqual(shout(word), expected)

    def test_ox(self):
        word = "o" + "x"
        self.check(word, "OX")
"""


@pytest.mark.parametrize("test", [FILE_FUNCTION, CLASS_HELPER], ids=["file-function", "helper"])
def test_what_a_test_file_builds_an_argument_with_comes_along(
    test: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    repo = project(tmp_path, {"src/demo/words.py": WORDS_OLD, "tests/test_words.py": test})
    write(repo, {"src/demo/words.py": WORDS_NEW})
    git(repo, "add", "-A")
    rc, report = check(repo, "--staged", capsys=capsys, monkeypatch=monkeypatch)
    f = functions(report).get("demo.words.shout")
    assert f is not None and f["status"] == "changed" and rc == 1, f
    news = [w["new"] for w in f["witnesses"]]
    assert {"returned": "OXOX"} in news, [w["call"] for w in f["witnesses"]]
