"""Shared by the benchmark scripts (run as `python benchmarks/NAME.py`, so this folder is on
sys.path): hermetic git identity and dates, so repositories build the same every run."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

GIT_ENV = {
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@example.com",
    "GIT_AUTHOR_DATE": "2024-01-01T00:00:00Z",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@example.com",
    "GIT_COMMITTER_DATE": "2024-01-01T00:00:00Z",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}


def user_env(drop: tuple[str, ...] = ("CODEMODE_", "VIRTUAL_ENV")) -> dict[str, str]:
    """This process's environment as a user's shell would have it: without codemode's own
    settings (and any variable starting with ``drop``), and without PYTHONDONTWRITEBYTECODE,
    which a test runner or CI shell may set: with it, every run compiles the modules whose
    bytecode is not cached yet, a cost no user pays twice."""
    return {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(drop) and k != "PYTHONDONTWRITEBYTECODE"
    }


def git(repo: Path, *args: str) -> str:
    """``git ARGS`` in ``repo`` with the hermetic identity; its output. Fails loudly."""
    env = {**os.environ, **GIT_ENV}
    return subprocess.run(
        ["git", *args], cwd=repo, env=env, check=True, capture_output=True, text=True
    ).stdout
