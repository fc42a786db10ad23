"""A doctest file of the tests that loops over a block of values written one a line gives
each value as an input (#32), through the CLI with real git and real workers on both sides:
``week(value)`` changes from the ISO week to the ``%W`` week, which only a date shows, and
the only dates the project holds are the block's. Fails on the code before it."""

from __future__ import annotations

from pathlib import Path

import pytest
from diffkit import check, functions, git, project, write

OLD = """\
import datetime


def week(value):
    return datetime.date.fromisoformat(value).isocalendar()[1]
"""
NEW = """\
import datetime


def week(value):
    return int(datetime.datetime.strptime(value, "%Y-%m-%d").strftime("%W"))
"""
DOCTEST = '''\
The weeks of a few days:

>>> from demo.core import week
>>> DAYS = """
... 2021-06-14
... 2023-01-01
... 2019-12-30
... """
>>> for day in DAYS.split():
...     print(day, week(day))
2021-06-14 24
2023-01-01 52
2019-12-30 1
'''


def test_the_values_of_a_block_a_doctest_loops_over_are_tried(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = project(tmp_path, {"src/demo/core.py": OLD, "tests/weeks.txt": DOCTEST})
    write(repo, {"src/demo/core.py": NEW})
    git(repo, "add", "-A")
    rc, report = check(repo, "--staged", capsys=capsys, monkeypatch=monkeypatch)
    f = functions(report).get("demo.core.week")
    assert f is not None and f["status"] == "changed" and rc == 1, f
    calls = {w["call"]: w for w in f["witnesses"]}
    assert calls["week('2023-01-01')"]["new"] == {"returned": 0}, list(calls)
