"""A higher-order function is diffed on callables of each class of outcome (#32): where the
tests pass it a lambda (or a function of the test file, by its name), the pool also passes
one that returns None, one that raises StopIteration and one that raises another exception,
so a change in how it handles its callable's end (``iterate`` stopping at StopIteration
instead of a RuntimeError) is flagged, with a witness that shows the callable. Real git
(``check --base``), real workers."""

from __future__ import annotations

from pathlib import Path

import pytest
from diffkit import witness_calls

OLD = """\
def iterate(func, start):
    while True:
        yield start
        start = func(start)


def first_items(func, start, n=3):
    out = []
    for x in iterate(func, start):
        if len(out) == n:
            break
        out.append(x)
    return out
"""
# iterate now stops where its callable raises StopIteration (a RuntimeError before, PEP 479)
NEW = OLD.replace(
    "        start = func(start)\n",
    "        try:\n            start = func(start)\n        except StopIteration:\n            break\n",
)
TESTS = """\
from demo.loops import first_items


def test_first_items():
    assert first_items(lambda x: x * 2, 1) == [1, 2, 4]
"""


# the test's callable is a function of the test file, passed by its name
TESTS_BY_NAME = """\
from demo.loops import first_items


def double(x):
    return x * 2


def test_first_items():
    assert first_items(double, 1) == [1, 2, 4]
"""


@pytest.mark.parametrize("tests", [TESTS, TESTS_BY_NAME], ids=["lambda", "function_by_name"])
def test_a_callable_that_raises_stop_iteration_shows_the_change(
    tests: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls = witness_calls(
        tmp_path,
        {"src/demo/loops.py": OLD, "tests/test_loops.py": tests},
        {"src/demo/loops.py": NEW},
        "demo.loops.first_items",
        capsys,
        monkeypatch,
    )
    assert "first_items(lambda *a, **k: next(iter(())), 1)" in calls, calls
