"""The entries a change writes into a table reach a function that reads it through a package
(#32), through the CLI with real git and real workers on both sides: ``is_known(word)`` (no
annotation: its tests pass text) reads ``tables.WORDS``, which ``tables/__init__.py`` imports
from the data module the release edited, and only the word the release added shows the
change. Fails on the code before it."""

from __future__ import annotations

from pathlib import Path

import pytest
from diffkit import check, functions, git, project, write

CORE = """\
from demo import tables


def is_known(word):
    return word in tables.WORDS
"""
DATA_OLD = 'WORDS = {\n    "alpha": 1,\n    "bravo": 2,\n}\n'
DATA_NEW = 'WORDS = {\n    "alpha": 1,\n    "bravo": 2,\n    "zulu": 26,\n}\n'
TEST = """\
from demo.core import is_known


def test_is_known():
    assert is_known("alpha")
    assert not is_known("omega")
"""


def test_a_word_the_change_adds_to_a_table_a_package_imports_is_tried(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = project(
        tmp_path,
        {
            "src/demo/core.py": CORE,
            "src/demo/tables/__init__.py": "from demo.tables.data import WORDS\n",
            "src/demo/tables/data.py": DATA_OLD,
            "tests/test_core.py": TEST,
        },
    )
    write(repo, {"src/demo/tables/data.py": DATA_NEW})
    git(repo, "add", "-A")
    rc, report = check(repo, "--staged", capsys=capsys, monkeypatch=monkeypatch)
    f = functions(report).get("demo.core.is_known")
    assert f is not None and f["status"] == "changed" and rc == 1, f
    calls = {w["call"]: w for w in f["witnesses"]}
    assert calls["is_known('zulu')"]["new"] == {"returned": True}, list(calls)
