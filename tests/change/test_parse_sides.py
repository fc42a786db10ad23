"""The base side parsed in a forked child: the same analysis as parsing it in-process, and a
child that fails or cannot answer is replaced by the in-process parsing."""

from __future__ import annotations

import os
import select

import pytest

import codemode.change.diff
import codemode.change.parse_sides
from codemode.change.functions import SourceFile
from codemode.scope import Scope

MODULE = '''
"""A module."""

from typing import overload

LIMIT = {limit}


@overload
def pick(x: int) -> int: ...
@overload
def pick(x: str) -> str: ...
def pick(x):
    return x


class Shape:
    """Docs."""

    def area(self):
        return LIMIT * {k}

    @property
    def size(self):
        return 1


def helper(x):
    return pick(x) + {k}
'''


def _change(repo):
    """Modified, added, removed, renamed and unreadable files, and a whole-file parse."""
    for i in range(8):
        repo.write(f"src/pkg/m{i}.py", MODULE.format(limit=3, k=i))
    repo.write("src/pkg/gone.py", "def gone():\n    return 1\n")
    repo.write("src/pkg/broken.py", "def fine():\n    return 1\n")
    repo.write("src/pkg/moved.py", "def moved(x):\n    return x * 7\n")
    base = repo.commit("base")
    for i in range(0, 8, 2):
        repo.write(f"src/pkg/m{i}.py", MODULE.format(limit=3 + i, k=i + 1))
    repo.write("src/pkg/m1.py", MODULE.format(limit=3, k=1).replace("def size", "def volume"))
    repo.write("src/pkg/new.py", "def new():\n    return 2\n")
    (repo.root / "src/pkg/gone.py").unlink()
    repo.write("src/pkg/broken.py", "def fine(:\n    return 1\n")
    (repo.root / "src/pkg/moved.py").rename(repo.root / "src/pkg/other.py")
    repo.commit("change")
    return Scope("range", base=base, head="HEAD")


def _force(monkeypatch, on: bool) -> None:
    monkeypatch.setattr(codemode.change.diff, "_HELPER_MIN_CHANGES", 0 if on else 10**9)
    monkeypatch.setattr(codemode.change.parse_sides, "_cores", lambda: 2)


def _analyze(repo, scope):
    result = codemode.change.diff.analyze(repo.config(), scope, cache=False)
    return result.functions, result.problems, dict(result.renames)


def test_the_child_parses_the_old_side_as_this_process_does(repo, monkeypatch):
    scope = _change(repo)
    _force(monkeypatch, False)
    expected = _analyze(repo, scope)
    asked = []
    ask = codemode.change.parse_sides.OldSides.ask
    monkeypatch.setattr(
        codemode.change.parse_sides.OldSides, "ask", lambda s, f: asked.append(f) or ask(s, f)
    )
    _force(monkeypatch, True)
    assert _analyze(repo, scope) == expected
    assert asked and len(asked[0]) >= 8  # the child was asked for the old sides
    statuses = {f.id: f.status for f in expected[0]}
    assert statuses["pkg.m0.helper"] == "modified" and statuses["pkg.gone.gone"] == "removed"
    assert statuses["pkg.other.moved"] == "renamed" and any("broken" in p for p in expected[1])


def test_a_child_that_fails_is_replaced(repo, monkeypatch):
    scope = _change(repo)
    _force(monkeypatch, False)
    expected = _analyze(repo, scope)

    def broken(*args: object) -> None:
        raise RuntimeError("the child fails")

    _force(monkeypatch, True)
    monkeypatch.setattr(codemode.change.parse_sides, "_serve", broken)
    assert _analyze(repo, scope) == expected


def test_one_core_starts_no_child(repo, monkeypatch):
    monkeypatch.setattr(codemode.change.parse_sides, "_cores", lambda: 1)
    assert codemode.change.parse_sides.OldSides.start(repo.root, lambda *a: None) is None


@pytest.mark.parametrize("lines", [None, {5}, {20, 21}])
def test_a_file_as_plain_data_is_the_same_file(lines):
    text = MODULE.format(limit=3, k=2)
    src = codemode.change.parse_sides.load("src/pkg/m.py", "pkg.m", text.encode(), lines)
    assert isinstance(src, SourceFile)
    back = SourceFile.from_parts(src.to_parts())
    for name in ("parsed_functions", "functions", "constants", "classes", "imports", "top_names"):
        assert getattr(back, name)() == getattr(src, name)(), name
    assert [(c.start, c.end, c.is_def, c.name, c.info) for c in back.chunks] == [
        (c.start, c.end, c.is_def, c.name, c.info) for c in src.chunks
    ]
    back.parse_all()
    src.parse_all()
    assert back.functions() == src.functions()


def test_the_child_holds_no_pipe_of_the_identifiers_helper(repo, monkeypatch):
    """Else the identifiers helper would not see its input end until this child exits."""
    monkeypatch.setattr(codemode.change.parse_sides, "_cores", lambda: 2)
    read, write = os.pipe()
    helper = codemode.change.parse_sides.OldSides.start(repo.root, lambda *a: None, (write,))
    assert helper is not None
    try:
        os.close(write)  # the child waits for its request meanwhile, holding what it holds
        assert select.select([read], [], [], 10)[0] == [read]
        assert os.read(read, 1) == b""  # every write end is closed: end of input
    finally:
        helper.close()
        os.close(read)
