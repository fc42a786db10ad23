"""Real git repositories in temp dirs, hermetic: no user or system config, pinned identities
and dates, so a test sees the same hashes and the same behaviour on every machine."""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from codemode.change.diff import ChangedFunction, DiffResult, analyze
from codemode.config import Config
from codemode.scope import Scope
from gitkit import git


@dataclass
class GitRepo:
    root: Path

    def git(self, *args: str) -> str:
        return git(self.root, *args).strip()

    def write(self, rel: str, content: str | bytes) -> Path:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(textwrap.dedent(content).lstrip("\n"), encoding="utf-8")
        return path

    def commit(self, message: str = "change") -> str:
        self.git("add", "-A")
        self.git("commit", "-q", "--allow-empty", "-m", message)
        return self.git("rev-parse", "HEAD")

    def commit_change(self, rel: str, before: str | bytes, after: str | bytes) -> str:
        """``rel`` committed as ``before``, then as ``after``: the first commit (a range's base)."""
        self.write(rel, before)
        base = self.commit()
        self.write(rel, after)
        self.commit()
        return base

    def config(self, **overrides: Any) -> Config:
        return Config(root=self.root, **overrides)

    def analyze(self, scope: Scope, **overrides: Any) -> DiffResult:
        return analyze(self.config(**overrides), scope)

    def range(self, base: str, head: str = "HEAD", **overrides: Any) -> DiffResult:
        return self.analyze(Scope("range", base=base, head=head), **overrides)

    def staged(self, **overrides: Any) -> DiffResult:
        return self.analyze(Scope("staged"), **overrides)

    @staticmethod
    def statuses(result: DiffResult) -> dict[str, str]:
        """id -> status, the shape most assertions compare."""
        return {f.id: f.status for f in result.functions}

    @staticmethod
    def by_id(result: DiffResult) -> dict[str, ChangedFunction]:
        return {f.id: f for f in result.functions}


def make_repo(path: Path) -> GitRepo:
    path.mkdir(parents=True, exist_ok=True)
    repo = GitRepo(path)
    repo.git("init", "-q", "-b", "main")
    return repo


@pytest.fixture
def repo(tmp_path: Path) -> Iterator[GitRepo]:
    yield make_repo(tmp_path / "repo")


@pytest.fixture
def new_repo() -> Callable[[Path], GitRepo]:
    """Another repository (a submodule's, say); a fixture because conftest is not importable
    by name when the whole suite runs."""
    return make_repo
