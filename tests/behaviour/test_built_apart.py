"""A test's call whose arguments the test builds with the changed code gives each version
another input: its difference is the input's, never a witness of the function (#32). toml
0.10.1's tests do ``o = loads(dumps(d)); dumps(o)``, and dumps was flagged with the witness
``dumps({'a': 0.1})`` whose old outcome was really that of ``dumps({'a': "Decimal('0.1')"})``.
Such calls are not compared, and the note says so. Real git, real workers."""

from __future__ import annotations

from pathlib import Path

import pytest
from diffkit import check, functions, git, project, write

CLEAN = "def clean(text: str) -> str:\n    return text.strip()\n"
CLEAN_TESTS = """\
from demo.words import clean


def test_clean_twice():
    once = clean("  Hello ")
    assert clean(once) == once
"""


def test_a_call_on_arguments_each_version_built_otherwise_is_no_witness(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = project(tmp_path, {"src/demo/words.py": CLEAN, "tests/test_words.py": CLEAN_TESTS})
    write(repo, {"src/demo/words.py": CLEAN.replace("text.strip()", "text.strip().lower()")})
    git(repo, "add", "-A")
    rc, report = check(repo, "--staged", capsys=capsys, monkeypatch=monkeypatch)
    f = functions(report)["demo.words.clean"]
    assert f["status"] == "changed" and rc == 1
    # every witness's old outcome is the old code's on the call it shows: not clean('hello'),
    # whose old side ran on 'Hello', the old code's `once`
    for w in f["witnesses"]:
        assert w["old"] == {"returned": w["args"][0].strip()}, w
    assert "clean('  Hello ')" in [w["call"] for w in f["witnesses"]]
    assert "not compared on 1 of " in f["diff_note"], f
    assert "build their arguments with the changed code" in f["diff_note"]


WORDS = """\
class Word:
    def __init__(self, text: str) -> None:
        self.text = text


def make(text: str) -> Word:
    return Word(text.strip())


def shout(word: Word) -> str:
    return word.text + "!"
"""
# make changes; shout is only refactored
WORDS_NEW = WORDS.replace("Word(text.strip())", "Word(text.strip().lower())").replace(
    '    return word.text + "!"', '    said = word.text\n    return f"{said}!"'
)
WORDS_TESTS = """\
from demo.words import make, shout


def test_shout():
    w = make("  Hi ")
    assert shout(w) == "Hi!"
"""


def test_an_object_each_version_built_otherwise_is_no_witness(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The argument has no YAML form (a Word): each side sends a digest of its canonical
    data, and the two differ. Before, shout(make('  Hi ')) was its witness, 'Hi!' -> 'hi!'."""
    repo = project(tmp_path, {"src/demo/words.py": WORDS, "tests/test_words.py": WORDS_TESTS})
    write(repo, {"src/demo/words.py": WORDS_NEW})
    git(repo, "add", "-A")
    rc, report = check(repo, "--staged", capsys=capsys, monkeypatch=monkeypatch)
    got = functions(report)
    assert got["demo.words.make"]["status"] == "changed"
    shout = got["demo.words.shout"]
    assert shout["status"] != "changed" and not shout["witnesses"], shout
    assert "not compared on 1 of " in shout["diff_note"], shout
    assert rc == 1  # make's change
