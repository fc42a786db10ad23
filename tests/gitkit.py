"""The tests' one git: a hermetic identity and no user or system config (the root conftest puts
GIT_ENV into the environment of the whole run, so the CLI's own git calls see it too)."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from pathlib import Path

GIT_ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.com",
    # pinned dates give the same commit ids every run (the docs' example comment links them)
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_TERMINAL_PROMPT": "0",
}
# Set by a git hook or an outer repository, these would point a test's git at another repo.
GIT_LEAKS = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY")


def git(root: Path, *args: str, env: Mapping[str, str] | None = None) -> str:
    """``git ARGS`` in ``root``; its output. A failure raises with git's own message."""
    done = subprocess.run(
        ["git", *args],
        cwd=root,
        env={**os.environ, **GIT_ENV, **(env or {})},
        capture_output=True,
        text=True,
    )
    if done.returncode:
        raise AssertionError(f"git {' '.join(args)} failed in {root}: {done.stderr.strip()}")
    return done.stdout


def committed(root: object, files: dict[str, str]) -> None:
    """Write ``files`` (repo-relative path -> text) under ``root`` and commit them as the first
    commit of a new repository."""
    base = Path(str(root))
    for rel, text in files.items():
        (base / rel).parent.mkdir(parents=True, exist_ok=True)
        (base / rel).write_text(text)
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "init"]):
        git(base, *args)
