"""A forked child runs the next block while the last left nothing behind (worker/leaks.py, #20),
across modules too: the worker imports the next module, the live child imports it as well and
brings its snapshot up to date, instead of ending for a fresh fork per module."""

from __future__ import annotations

from pathlib import Path

import pytest

from appkit import PID_WRITER, SAME_CHILD, case, statuses

GROWS = """\
from app import one

one.SEEN = []  # this import changes the first module: watched from then on in the child


def grow(x):
    one.SEEN.append(x)
    return len(one.SEEN)


def read(x):
    return len(one.SEEN)
"""


def test_a_project_importing_random_runs_its_pure_blocks_in_one_child(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # random seeds itself again in every child (an at-fork handler), which the leak check once
    # took for the block's change: every block of such a project paid a fork of its own.
    modules = {"one": "import random\n\n" + PID_WRITER, "two": SAME_CHILD}
    spec = case("one.first", "first", "1", "1") + case("two.same_child", "same", "1", "true")
    assert statuses(tmp_path, modules, spec, capsys) == {"first": "passed", "same": "passed"}


def test_the_next_module_runs_in_the_same_child_and_its_import_is_watched(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    modules = {"one": PID_WRITER, "two": SAME_CHILD + "\n\n" + GROWS}
    spec = (
        case("one.first", "first", "1", "1")
        + case("two.same_child", "same", "1", "true")
        + case("two.grow", "grow", "1", "1")
        + case("two.read", "read", "1", "0")  # grow's change ended its child
    )
    assert set(statuses(tmp_path, modules, spec, capsys).values()) == {"passed"}


def test_a_next_module_whose_state_cannot_be_read_ends_the_child_after_its_block(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # An lru_cache's cache is out of the leak check's sight: the child cannot bring its
    # snapshot up to date, so it runs that block and ends (it crashed on the Opaque before,
    # and took its worker with it: the block ran again in a new worker).
    cached = "import functools\n\n\n@functools.lru_cache\ndef cached(x):\n    return x * 2\n"
    modules = {"one": PID_WRITER, "two": SAME_CHILD + "\n\n" + cached}
    spec = (
        case("one.first", "first", "1", "1")
        + case("two.same_child", "same", "1", "true")
        + case("two.cached", "c1", "2", "4")
    )
    assert set(statuses(tmp_path, modules, spec, capsys).values()) == {"passed"}
