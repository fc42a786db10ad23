"""A hermetic git for tests that build repositories: a pinned identity and no user or system config."""

from __future__ import annotations

import os

GIT_ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.com",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}


def committed(root: object, files: dict[str, str]) -> None:
    """Write ``files`` (repo-relative path -> text) under ``root`` and commit them as the first
    commit of a new repository."""
    import subprocess
    from pathlib import Path

    base = Path(str(root))
    for rel, text in files.items():
        (base / rel).parent.mkdir(parents=True, exist_ok=True)
        (base / rel).write_text(text)
    env = {**os.environ, **GIT_ENV}
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "init"]):
        subprocess.run(["git", *args], cwd=base, env=env, check=True, capture_output=True)
