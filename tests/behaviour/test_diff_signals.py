"""codemode outlives the code it runs (#33, acceptance 4): a function that signals its parent
leaves the verdicts and their exit code, and a stop that does reach codemode is named in one
line on the way out, never rc 143 and not a word.

Both run the real CLI in a process of its own: a signal to codemode must not reach pytest."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from diffkit import git, project, write

KILLER = """\
import os
import signal


def label(n: int) -> str:
    if n == 3:
        os.kill(os.getppid(), signal.SIGTERM)
    return {prefix!r} + str(n)
"""
SLOW = """\
import time


def slow(n: int) -> int:
    time.sleep(0.5)
    return n + {step}
"""


def _staged(tmp_path: Path, source: str, old: dict[str, object], new: dict[str, object]) -> Path:
    repo = project(tmp_path, {"src/demo/mod.py": source.format(**old)})
    write(repo, {"src/demo/mod.py": source.format(**new)})
    git(repo, "add", "-A")
    return repo


def _codemode(repo: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "codemode", "check", "--staged", *args],
        cwd=repo,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own group: nothing it or its workers send reaches us
    )


def test_a_function_that_signals_its_parent_leaves_the_verdicts(tmp_path: Path) -> None:
    repo = _staged(tmp_path, KILLER, {"prefix": "#"}, {"prefix": "No. "})
    proc = _codemode(repo, "--format", "json")
    out, err = proc.communicate(timeout=120)
    assert proc.returncode in (0, 1), (proc.returncode, err)
    report = json.loads(out)
    statuses = {f["status"] for f in report["functions"]}
    assert proc.returncode == (1 if statuses & {"drifted", "error", "changed"} else 0)
    # the signal is told: ignored by codemode's diff process (or stopped in the worker)
    said = json.dumps(report).lower()
    assert "signal" in said or "blocked" in said, report


def test_a_stop_that_reaches_codemode_is_named_in_one_line(tmp_path: Path) -> None:
    repo = _staged(tmp_path, SLOW, {"step": 1}, {"step": 2})
    proc = _codemode(repo)
    time.sleep(1.5)  # into the behaviour diff: each call takes 0.5 s
    os.kill(proc.pid, signal.SIGTERM)  # as a cancelled CI job does
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signal.SIGTERM, (out, err)
    assert "Traceback" not in err, err
    assert err.strip().splitlines()[-1].startswith("codemode: stopped by SIGTERM (sent by "), err
