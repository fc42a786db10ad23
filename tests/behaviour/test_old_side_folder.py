"""What the behaviour diff's old side writes (#33): the changed files, not the tree (a one-line
change beside a large tracked file writes well under a megabyte), and nothing of it is left
after Ctrl-C or SIGTERM mid-diff; what a SIGKILL left, the next run removes. The real CLI in
a process of its own, a real repository, signals sent while a slow function is diffed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from diffkit import git, project, write

SLOW = '''\
import time


def slow_label(n: int) -> str:
    """A label, slowly."""
    time.sleep(0.2)
    return "#" + str(n)
'''
BIG_MB = 24  # tracked beside the change; the old tree written whole would hold it


def _repo(tmp_path: Path) -> Path:
    repo = project(tmp_path, {"src/demo/slow.py": SLOW})
    (repo / "data").mkdir()
    (repo / "data" / "blob.bin").write_bytes(os.urandom(BIG_MB << 20))
    git(repo, "-c", "core.compression=0", "add", "-A")
    git(repo, "commit", "-qm", "data")
    write(repo, {"src/demo/slow.py": SLOW.replace('"#"', '"No. "')})
    git(repo, "add", "-A")
    return repo


def _run(repo: Path, tmp: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "TMPDIR": str(tmp), "CODEMODE_WARM": "0", "NO_COLOR": "1"}
    return subprocess.Popen(
        [sys.executable, "-m", "codemode", "check", "--staged"],
        cwd=repo,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # its own group: a Ctrl-C reaches the group, as a terminal's
    )


def _started(tmp_path: Path) -> tuple[Path, Path, subprocess.Popen[bytes]]:
    """The repository, the run's TMPDIR, and the run, started."""
    repo = _repo(tmp_path)
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    return repo, tmp, _run(repo, tmp)


def _home(tmp: Path) -> Path:
    return tmp / f"codemode-{os.getuid()}"


def _mid_diff(proc: subprocess.Popen[bytes], tmp: Path) -> Path:
    """The old side's folder, once it is written (the diff is then running its calls)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        # (codemode-old-*: where the whole old tree was written before #33)
        folders = [*_home(tmp).glob("old-*"), *tmp.glob("codemode-old-*")]
        found = [p for p in folders if (p / "src" / "demo" / "slow.py").exists()]
        if found:
            time.sleep(0.5)  # into the calls: the workers have started
            return found[0]
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.02)
    raise AssertionError("the diff never wrote its old side")


def _size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink())


def _left(tmp: Path) -> list[str]:
    mine = list(_home(tmp).iterdir()) if _home(tmp).exists() else []
    loose = [p for p in tmp.iterdir() if p.name.startswith(("codemode-old", "codemode-staged"))]
    return sorted(p.name for p in mine + loose)


@pytest.mark.parametrize(
    ("sig", "group", "code"),
    [(signal.SIGINT, True, 130), (signal.SIGTERM, False, 128 + signal.SIGTERM)],
    ids=["ctrl-c", "sigterm"],
)
def test_a_signal_mid_diff_leaves_no_folder_and_the_diff_wrote_under_a_megabyte(
    tmp_path: Path, sig: signal.Signals, group: bool, code: int
) -> None:
    _, tmp, proc = _started(tmp_path)
    try:
        old = _mid_diff(proc, tmp)
        assert _size(tmp) < 1 << 20  # everything the run wrote to TMPDIR so far
        assert (old / "src" / "demo" / "slow.py").read_text() == SLOW
        if group:
            os.killpg(proc.pid, sig)
        else:
            os.kill(proc.pid, sig)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == code, err
    assert _left(tmp) == []


def test_what_a_killed_run_left_the_next_run_removes(tmp_path: Path) -> None:
    repo, tmp, proc = _started(tmp_path)
    try:
        old = _mid_diff(proc, tmp)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # no code of its own runs: the folder stays
        proc.wait()
    assert old.is_dir()
    write(repo, {"src/demo/slow.py": SLOW.replace("time.sleep(0.2)", "pass")})
    git(repo, "add", "-A")
    again = _run(repo, tmp)
    out, err = again.communicate(timeout=120)
    assert b"slow_label" in out, err
    assert not old.exists()
    assert _left(tmp) == []
