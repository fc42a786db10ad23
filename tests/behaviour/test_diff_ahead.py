"""The behaviour diff runs ahead of the check, in a fork of the process, with trees and
workers of its own (#18: what the diff adds to a hook): the report is the one the serial
path gives, and a fork that fails loses nothing."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from diffkit import TIERS as LOYALTY_TIER
from diffkit import check, functions, git, project, write

from codemode.behaviour import ahead

TIERS = (
    LOYALTY_TIER
    + """

def bonus(points: int) -> int:
    return points // 100
"""
)

SPEC = """\
demo.tiers.loyalty_tier:
  dataset:
    - case: {id: gold, inputs: [6000], expected: gold}
    - case: {id: bronze, inputs: [10], expected: bronze}
"""


def _staged_change(tmp_path: Path) -> Path:
    """A change the spec's cases do not reach (4999 becomes gold), and a refactor."""
    repo = project(tmp_path, {"src/demo/tiers.py": TIERS, "specs/tiers.yml": SPEC})
    new = TIERS.replace("points >= 5000", "points >= 4999").replace(
        "return points // 100", "hundreds = points // 100\n    return hundreds"
    )
    write(repo, {"src/demo/tiers.py": new})
    git(repo, "add", "-A")
    return repo


def _comparable(report: dict[str, Any]) -> dict[str, Any]:
    """The report without what changes from run to run (durations, elapsed times)."""
    out = {}
    for fid, f in functions(report).items():
        cases = [(c["id"], c["status"], c.get("observed")) for c in f["cases"]]
        out[fid] = (f["status"], f.get("message"), cases, f["witnesses"], f.get("diff_note"))
    return out


def _beside_xdist() -> bool:
    """pytest-xdist runs a thread of its own (execnet's, started with ``_thread``, idle while a
    test runs), which ``can_fork`` rightly counts: these tests fork beside it, as a run of
    codemode (which starts no thread before the diff's fork) does alone."""
    return hasattr(os, "fork")


def test_no_fork_beside_a_thread_started_outside_threading() -> None:
    """A thread ``threading`` does not know of (``_thread``, a C extension's) still keeps the
    diff out of a fork: it runs after the check instead."""
    import _thread
    import threading

    stop = threading.Event()
    _thread.start_new_thread(stop.wait, (30,))
    try:
        assert not ahead.can_fork()
        assert ahead.Ahead.start(lambda: 1) is None
    finally:
        stop.set()


def test_the_diff_ahead_in_a_fork_gives_the_serial_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = _staged_change(tmp_path)
    forks: list[int] = []
    real_fork = os.fork

    def fork() -> int:
        pid = real_fork()
        if pid:
            forks.append(pid)
        return pid

    with monkeypatch.context() as m:
        m.setattr(os, "fork", fork)
        m.setattr(ahead, "can_fork", _beside_xdist)
        rc, report = check(repo, "--staged", capsys=capsys, monkeypatch=monkeypatch)
    assert len(forks) == 1  # the diff ran ahead, in a fork
    with monkeypatch.context() as m:
        m.setattr(ahead, "can_fork", lambda: False)
        rc_serial, serial = check(repo, "--staged", capsys=capsys, monkeypatch=monkeypatch)
    assert (rc, _comparable(report)) == (rc_serial, _comparable(serial))
    tier = functions(report)["demo.tiers.loyalty_tier"]
    assert tier["status"] == "changed"
    assert "loyalty_tier(4999)" in {w["call"] for w in tier["witnesses"]}
    assert report["diff"]["functions"] == 2


def test_a_fork_that_fails_loses_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fork dies before it sends its diffs: the diff runs after the check instead."""
    repo = _staged_change(tmp_path)

    def dies() -> None:
        os._exit(9)

    real_apart = ahead.Ahead.start.__func__  # type: ignore[attr-defined]

    def start(cls: Any, work: Any, shared: Any = ()) -> Any:
        return real_apart(cls, dies, shared)

    monkeypatch.setattr(ahead.Ahead, "start", classmethod(start))
    monkeypatch.setattr(ahead, "can_fork", _beside_xdist)
    rc, report = check(repo, "--staged", capsys=capsys, monkeypatch=monkeypatch)
    assert rc == 1
    tier = functions(report)["demo.tiers.loyalty_tier"]
    assert "loyalty_tier(4999)" in {w["call"] for w in tier["witnesses"]}


def test_the_fork_sends_its_value_before_it_tidies_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the fork does after its value (``after_reply``: closing the diff's workers,
    removing its old side) runs once the value is sent, not before: here that step waits for
    a byte this process writes only once it has the value, and then leaves a file; the fork
    is reaped at this process's exit, or by ``_reap``."""
    import select

    monkeypatch.setattr(ahead, "can_fork", _beside_xdist)
    go_read, go_write = os.pipe()
    mark = tmp_path / "tidied"

    def tidy() -> None:
        ready, _, _ = select.select([go_read], [], [], 60)
        mark.write_text("after" if ready else "never told")

    def work() -> str:
        ahead.after_reply(tidy)
        return "value"

    started = ahead.Ahead.start(work)
    assert started is not None
    os.close(go_read)
    with started:
        assert started.result() == "value"
        assert not mark.exists()  # the tidying waits for us: the value came first
        os.write(go_write, b"1")
    os.close(go_write)
    ahead._reap(started.pid)
    assert mark.read_text() == "after"
    done: list[str] = []
    ahead.after_reply(lambda: done.append("now"))  # outside a fork: at once
    assert done == ["now"]
