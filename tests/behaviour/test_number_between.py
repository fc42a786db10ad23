"""A whole number the tests pass is tried half past itself where nothing says it must be whole
(#32), through the CLI with real git and real workers on both sides: a count its tests only
pass as 1 and 2 is floored by the old code and compared exactly by the new, and only 1.5
tells them apart. An ``int`` annotation keeps it whole. Fails on the code before it."""

from __future__ import annotations

from pathlib import Path

import pytest
from diffkit import check, functions, git, project, write

PLURAL_OLD = """\
import math


def plural(count, word):
    return f"{count} {word if math.floor(count) == 1 else word + 's'}"


def plural_whole(count: int, word: str) -> str:
    return f"{count} {word if math.floor(count) == 1 else word + 's'}"
"""
PLURAL_NEW = PLURAL_OLD.replace("math.floor(count) == 1", "count == 1")
TEST = """\
from demo.words import plural, plural_whole


def test_plural():
    assert plural(1, "cat") == "1 cat"
    assert plural(2, "cat") == "2 cats"


def test_plural_whole():
    assert plural_whole(1, "cat") == "1 cat"
    assert plural_whole(2, "cat") == "2 cats"
"""


def test_a_whole_count_is_tried_half_past_itself(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = project(tmp_path, {"src/demo/words.py": PLURAL_OLD, "tests/test_words.py": TEST})
    write(repo, {"src/demo/words.py": PLURAL_NEW})
    git(repo, "add", "-A")
    rc, report = check(repo, "--staged", capsys=capsys, monkeypatch=monkeypatch)
    found = functions(report)
    f = found.get("demo.words.plural")
    assert f is not None and f["status"] == "changed" and rc == 1, f
    calls = {w["call"]: w for w in f["witnesses"]}
    assert calls["plural(1.5, 'cat')"]["new"] == {"returned": "1.5 cats"}, list(calls)
    # annotated int: no call passes it a float, so no difference shows
    whole = found.get("demo.words.plural_whole")
    assert whole is None or whole["status"] != "changed", whole
