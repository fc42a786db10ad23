"""A ``check --staged`` that diffs computes the change once (#34): the real CLI, with
``CODEMODE_PROBE`` counting each materialization of the new side, each ``analyze`` and each
read of a spec file, in whichever process of the run does it (the diff's fork too).

Before, the check and the diff's fork each materialized the new side, analyzed the change and
read every spec file (twice: once for its ids, once to parse it)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from diffkit import TIERS, git, project, write

SPEC = """\
demo.tiers.loyalty_tier:
  dataset:
    - case: {id: some, input: 10, expected: bronze}
"""
OTHER_SPEC = """\
demo.other.twice:
  dataset:
    - case: {id: two, input: 1, expected: 2}
"""


def _staged_change(tmp_path: Path) -> Path:
    repo = project(
        tmp_path,
        {
            "src/demo/tiers.py": TIERS,
            "src/demo/other.py": "def twice(x):\n    return x * 2\n",
            "specs/tiers.yml": SPEC,
            "specs/other.yml": OTHER_SPEC,
        },
    )
    write(repo, {"src/demo/tiers.py": TIERS.replace("points >= 5000", "points > 5000")})
    git(repo, "add", "-A")
    return repo


def _check_staged(repo: Path, tmp_path: Path) -> tuple[Counter[str], Counter[str], dict]:
    log = tmp_path / "probe.log"
    log.unlink(missing_ok=True)
    env = {**os.environ, "CODEMODE_PROBE": str(log)}
    done = subprocess.run(
        [str(Path(sys.executable).parent / "codemode"), "check", "--staged", "--format", "json"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode in (0, 1), done.stderr
    report = json.loads(done.stdout)
    lines = [ln.split("\t", 1) for ln in log.read_text().splitlines()]
    steps = Counter(step for step, _ in lines)
    reads = Counter(detail for step, detail in lines if step == "spec-read")
    return steps, reads, report


@pytest.mark.parametrize("unstaged", [False, True], ids=["clean-index", "unstaged-edit"])
def test_check_staged_with_the_diff_computes_the_change_once(
    tmp_path: Path, unstaged: bool
) -> None:
    repo = _staged_change(tmp_path)
    if unstaged:  # the work tree is not the new side: the index is written out
        with (repo / "src/demo/other.py").open("a") as f:
            f.write("\n# an unstaged edit\n")
    steps, reads, report = _check_staged(repo, tmp_path)
    # the diff ran and found the change
    tier = next(f for f in report["functions"] if f["id"] == "demo.tiers.loyalty_tier")
    assert tier["status"] == "changed", tier
    assert (steps["materialize"], steps["analyze"]) == (1, 1), steps
    assert reads == {"specs/tiers.yml": 1, "specs/other.yml": 1}, reads
    assert report["diff"]["functions"] == 1


def test_the_diff_fork_asks_git_nothing_the_run_knows(tmp_path: Path) -> None:
    """Where the repository is and what HEAD names are asked once per ``check --staged``
    (#36): the diff's fork takes them from the run instead of three git runs of its own."""
    repo = _staged_change(tmp_path)
    log, bin_ = tmp_path / "git.log", tmp_path / "bin"
    bin_.mkdir()
    real = shutil.which("git")
    assert real is not None
    (bin_ / "git").write_text(f'#!/bin/sh\necho "$*" >> "{log}"\nexec "{real}" "$@"\n')
    (bin_ / "git").chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(
        [sys.executable, "-m", "codemode", "check", "--staged", "--format", "json"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode in (0, 1), done.stderr
    tier = next(
        f for f in json.loads(done.stdout)["functions"] if f["id"] == "demo.tiers.loyalty_tier"
    )
    assert tier["status"] == "changed", tier  # the diff ran, on the old side from git
    runs = log.read_text().splitlines()
    assert sum(" rev-parse " in f" {r} " for r in runs) == 1, runs
