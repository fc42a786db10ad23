"""The hook through the real ``pre-commit`` program calls side-effecting functions (the
behaviour diff of a change to each) and changes nothing: the work tree (ignored ``cache/``
included), the index, ``.git`` and ``$HOME`` hash the same before and after, no scratch folder
is left, and the hook's output names each stopped operation (#31)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hookkit import Project

from wallkit import BLOCKED, EFFECTS, change_every_function, leftovers, state

pytestmark = pytest.mark.slow


def test_the_hook_calls_side_effects_and_changes_nothing(project: Project, tmp_path: Path) -> None:
    root = project.root
    project.write("src/hz/__init__.py", "")
    project.write("src/hz/effects.py", EFFECTS)
    project.write(".gitignore", "cache/\n__pycache__/\n")
    project.git("add", ".")
    project.git("commit", "-q", "--no-verify", "-m", "effects")
    (root / "cache").mkdir()
    (root / "cache" / "entry.bin").write_bytes(b"precious")
    project.write("events.log", "first\n")
    change_every_function(root)
    project.git("add", "src/hz/effects.py")
    home, tmpdir = tmp_path / "home", tmp_path / "tmpdir"
    home.mkdir()
    tmpdir.mkdir()
    env = {"HOME": str(home), "TMPDIR": str(tmpdir)}
    before = state(root, home)
    # --verbose: pre-commit hides a passing hook's output (no function has a spec: `missing`)
    done = project.run(
        sys.executable, "-m", "pre_commit", "run", "--verbose", "codemode-check", env=env
    )
    after = state(root, home)
    # pre-commit itself runs `git write-tree` (new tree objects) and refreshes the index's
    # stat data; the index's entries are compared as git lists them. `codemode check
    # --staged` alone leaves .git byte-identical (tests/security/test_wall.py).
    for side in (before, after):
        side["git"] = {
            k: v
            for k, v in side["git"].items()  # type: ignore[attr-defined]
            if not k.startswith("objects/") and k != "index"
        }
    assert after == before, done.output[-2000:]
    assert leftovers({"TMPDIR": str(tmpdir)}) == []
    lines = done.output.splitlines()
    for function in BLOCKED:  # each function's line, then its note: not compared, and why
        at = next(i for i, ln in enumerate(lines) if f"hz.effects.{function}:" in ln)
        assert "not compared" in lines[at + 1] and "blocked: " in lines[at + 1], lines[at : at + 2]
