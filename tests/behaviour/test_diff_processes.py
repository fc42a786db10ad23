"""The behaviour diff of many functions over two processes (#18, acceptance 2): the same
witnesses as one process gives, in the order of the functions, and nothing lost when the
second process cannot run."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from diffkit import check, functions, git, project, write

from codemode.behaviour.parallel import SPLIT_AT

MODULE = """\
def grade_{i}(points: int) -> str:
    if points >= {limit}:
        return "high"
    return "low"
"""
REFACTOR = """\
def grade_{i}(points: int) -> str:
    high = points >= {limit}
    return "high" if high else "low"
"""


# Changed in behaviour: m0, m1, m4, m5 (the others refactored), so each process's share of
# the targets, dealt alternately, holds changes and refactors alike.
CHANGED = [i for i in range(SPLIT_AT) if i % 4 < 2]


def _module(i: int, new: bool) -> str:
    limit = 10 * (i + 1)
    if new and i in CHANGED:
        limit += 1  # behaviour: the threshold moves, points == old limit now "low"
    return (REFACTOR if new and i not in CHANGED else MODULE).format(i=i, limit=limit)


def _pull_request(tmp_path: Path) -> Path:
    n = SPLIT_AT  # just enough targets for a second process
    repo = project(tmp_path, {f"src/demo/m{i}.py": _module(i, False) for i in range(n)})
    git(repo, "checkout", "-qb", "feature")
    write(repo, {f"src/demo/m{i}.py": _module(i, True) for i in range(n)})
    git(repo, "commit", "-qam", "new")
    return repo


def _witnesses(report: dict[str, object]) -> dict[str, list[str]]:
    return {
        fid: sorted(w["call"] for w in f.get("witnesses") or [])
        for fid, f in functions(report).items()  # type: ignore[arg-type]
    }


def test_two_processes_find_the_witnesses_one_finds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = _pull_request(tmp_path)
    monkeypatch.setenv("CODEMODE_DIFF_PROCESSES", "2")
    rc, two = check(repo, "--base", "main", capsys=capsys, monkeypatch=monkeypatch)
    assert rc == 1
    assert (two["diff"]["functions"], two["diff"]["processes"]) == (SPLIT_AT, 2)
    monkeypatch.setenv("CODEMODE_DIFF_PROCESSES", "1")
    _, one = check(repo, "--base", "main", capsys=capsys, monkeypatch=monkeypatch)
    assert one["diff"]["processes"] == 1
    assert _witnesses(two) == _witnesses(one)
    flagged = {fid for fid, calls in _witnesses(two).items() if calls}
    assert flagged == {f"demo.m{i}.grade_{i}" for i in CHANGED}
    for i in CHANGED:  # each with the call at the moved threshold
        assert f"grade_{i}({10 * (i + 1)})" in _witnesses(two)[f"demo.m{i}.grade_{i}"]


def test_the_second_processs_share_runs_here_when_it_cannot_start(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = _pull_request(tmp_path)
    monkeypatch.setenv("CODEMODE_DIFF_PROCESSES", "2")
    # The second process is codemode's own interpreter: one that exits at once, with nothing
    # (the workers keep the real one: the project's interpreter, here the host's).
    monkeypatch.setenv("CODEMODE_HOST_PYTHON", sys.executable)
    monkeypatch.setattr(sys, "executable", "/bin/false")
    rc, report = check(repo, "--base", "main", capsys=capsys, monkeypatch=monkeypatch)
    assert rc == 1
    flagged = {fid for fid, calls in _witnesses(report).items() if calls}
    assert flagged == {f"demo.m{i}.grade_{i}" for i in CHANGED}
