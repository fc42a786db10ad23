"""The default ``--jobs`` (#36): on two cores the check verifies in its own process, and a lane
standing by begins only when the calls outweigh judging them (check/standby.py). The real
command in a process of its own, pinned to two cores; the workers that ran are counted by the
files the functions write, and the report is the one ``--jobs 1`` gives."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from codemode.check import standby

pytestmark = pytest.mark.skipif(
    not hasattr(os, "sched_setaffinity") or len(os.sched_getaffinity(0)) < 2,
    reason="pins the run to two cores",
)

PROBE = """\
import os
import time

SEEN = []


def whoami(x: int, pause: float) -> int:
    if not SEEN:  # once per process: the call itself stays cheap
        os.makedirs("pids", exist_ok=True)
        open(os.path.join("pids", str(os.getppid())), "w").close()  # the child's worker
        SEEN.append(1)
    if pause:
        time.sleep(pause)
    return x
"""


def _project(root: Path, pause: float) -> Path:
    """Eight functions of 80 cases each, every call ``pause`` seconds long."""
    (root / "specs").mkdir(parents=True)
    (root / "pyproject.toml").write_text(
        '[project]\nname = "standby"\n\n[tool.codemode.effects]\nwrites = ["pids/**"]\n'
    )
    blocks = []
    for n in range(8):
        (root / f"probe{n}.py").write_text(PROBE)
        rows = "\n".join(
            f"    - case: {{id: c{i}, inputs: [{i}, {pause}], expected: {i}}}" for i in range(80)
        )
        blocks.append(f"probe{n}.whoami:\n  dataset:\n{rows}\n")
    (root / "specs" / "probes.yml").write_text("\n".join(blocks))
    return root


def _check(root: Path, *args: str) -> tuple[int, dict[str, Any], int]:
    """The JSON report of ``check`` on two cores (durations left out), and how many workers ran."""
    two = set(sorted(os.sched_getaffinity(0))[:2])
    where = ["--root", str(root), "--python", sys.executable]
    proc = subprocess.run(
        [sys.executable, "-m", "codemode", "check", "--all", "--format", "json", *args, *where],
        cwd=root,
        capture_output=True,
        text=True,
        env={
            **{k: v for k, v in os.environ.items() if not k.startswith("CODEMODE_")},
            "CODEMODE_WARM": "0",
        },
        preexec_fn=lambda: os.sched_setaffinity(0, two),
    )
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    data.pop("elapsed")
    for f in data["functions"]:
        for c in f["cases"]:
            c.pop("duration_ms", None)
    pids = root / "pids"
    workers = len(list(pids.iterdir()))
    for p in pids.iterdir():
        p.unlink()
    return proc.returncode, data, workers


def test_cheap_calls_keep_one_worker_on_two_cores(tmp_path: Path) -> None:
    root = _project(tmp_path / "proj", 0.0)
    code, data, workers = _check(root)
    # Judging each call costs more than the call: a second lane would only share the cores
    # the first one's worker and this process already use (the old default started two).
    assert workers == 1
    assert _check(root, "--jobs", "1")[:2] == (code, data)


def test_costly_calls_wake_a_lane_standing_by(tmp_path: Path) -> None:
    root = _project(tmp_path / "proj", 0.003)
    code, data, workers = _check(root)
    assert workers == 2  # the calls outweighed judging them: a lane began
    assert _check(root, "--jobs", "1")[:2] == (code, data)


def test_lanes_woken_at_once_are_those_a_lane_cannot_keep_busy() -> None:
    assert [standby.at_once(n) for n in (1, 2, 3, 4, 8)] == [0, 0, 0, 1, 3]
