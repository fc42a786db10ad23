"""A ``parametrize`` table the test builds in the source (lists added together, each a
comprehension over a written table, as packaging's specifier tests do) gives its rows
(#32), through the CLI with real git and real workers on both sides: ``epoch`` changes
only for a version with two ``!``, a row of the table. Fails on the code before it."""

from __future__ import annotations

from pathlib import Path

import pytest
from diffkit import check, functions, git, project, write

OLD = """\
def epoch(version):
    head, sep, tail = version.partition("!")
    return head if sep else "0"
"""
TEST = """\
import pytest

from demo.core import epoch


@pytest.mark.parametrize(
    ("version", "expected"),
    [(v, e) for v, e in [("1.0", "0"), ("2!1.0", "2"), ("1!2!3", "1")]]
    + [(v, "0") for v in ["3.0", "4.0"]],
)
def test_epoch(version, expected):
    assert epoch(version) == expected
"""


def test_the_rows_of_a_table_built_by_comprehensions_are_tried(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = project(tmp_path, {"src/demo/core.py": OLD, "tests/test_core.py": TEST})
    write(repo, {"src/demo/core.py": OLD.replace(".partition(", ".rpartition(")})
    git(repo, "add", "-A")
    rc, report = check(repo, "--staged", capsys=capsys, monkeypatch=monkeypatch)
    f = functions(report).get("demo.core.epoch")
    assert f is not None and f["status"] == "changed" and rc == 1, f
    calls = {w["call"]: w for w in f["witnesses"]}
    assert calls["epoch('1!2!3')"]["new"] == {"returned": "1!2"}, list(calls)
