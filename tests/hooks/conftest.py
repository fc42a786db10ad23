"""Fixtures: a hook repository copied from this checkout, its virtualenv built once, projects.

The hook repository is a fresh git repo holding a copy of this checkout's packaging files and
``src/`` (the work tree, so uncommitted edits are what gets tested). pre-commit installs it by
local path at its commit sha, into a session-wide ``PRE_COMMIT_HOME``: the hook virtualenv (pip
from the package index) is built once per test session and shared by every project.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hookkit import (
    HOOK_REPO_FILES,
    LEAKY,
    PINNED,
    REPO_ROOT,
    Project,
    git,
    make_project,
    pre_commit_config,
)


def _clean_env(tmp: Path, pre_commit_home: Path) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in LEAKY and not k.startswith(("CODEMODE_", "PRE_COMMIT", "FORCE_COLOR"))
    }
    gitconfig = tmp / "gitconfig"
    gitconfig.write_text("[init]\n\tdefaultBranch = main\n[commit]\n\tgpgsign = false\n")
    env.update(PINNED)
    env["GIT_CONFIG_GLOBAL"] = str(gitconfig)
    env["CODEMODE_WARM"] = "0"  # no warm worker outliving a test (tests/worker/test_warm.py)
    env["PRE_COMMIT_HOME"] = str(pre_commit_home)
    # pytest may run from an activated venv; a hook must find the project's interpreter itself.
    env.pop("VIRTUAL_ENV", None)
    return env


@pytest.fixture(scope="session")
def hook_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    tmp = tmp_path_factory.mktemp("hook-session")
    return _clean_env(tmp, tmp / "pre-commit-home")


@pytest.fixture(scope="session")
def hook_repo(
    tmp_path_factory: pytest.TempPathFactory, hook_env: dict[str, str]
) -> tuple[Path, str]:
    """A committed copy of this checkout that pre-commit can install by path: (path, sha)."""
    dest = tmp_path_factory.mktemp("codemode-hook-repo")
    for name in HOOK_REPO_FILES:
        if (REPO_ROOT / name).exists():
            shutil.copy2(REPO_ROOT / name, dest / name)
    shutil.copytree(
        REPO_ROOT / "src",
        dest / "src",
        ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "*.pyc"),
    )
    git(dest, "init", "-q", env=hook_env)
    git(dest, "add", ".", env=hook_env)
    git(dest, "commit", "-q", "--no-verify", "-m", "hook repo snapshot", env=hook_env)
    return dest, git(dest, "rev-parse", "HEAD", env=hook_env).strip()


@pytest.fixture(scope="session")
def hook_installed(
    tmp_path_factory: pytest.TempPathFactory, hook_env: dict[str, str], hook_repo: tuple[Path, str]
) -> None:
    """Build the hook virtualenv once, up front (the slow part: pip from the package index)."""
    scratch = tmp_path_factory.mktemp("install-hooks")
    git(scratch, "init", "-q", env=hook_env)
    (scratch / ".pre-commit-config.yaml").write_text(pre_commit_config(hook_repo))
    proc = subprocess.run(
        [sys.executable, "-m", "pre_commit", "install-hooks"],
        cwd=scratch,
        env=hook_env,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.fixture
def project(
    tmp_path: Path,
    hook_env: dict[str, str],
    hook_repo: tuple[Path, str],
    hook_installed: None,
) -> Iterator[Project]:
    yield make_project(tmp_path / "shop", hook_env, hook_repo)
