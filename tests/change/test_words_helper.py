"""The forked identifiers helper: same answers as reading identifiers in-process, and a
helper that fails is replaced by the in-process reading."""

from __future__ import annotations

import pytest

import codemode.change.diff
import codemode.change.impact
import codemode.change.words
from codemode.scope import Scope


def _project(repo):
    repo.write("src/pkg/__init__.py", "from pkg.base import *\n")
    repo.write(
        "src/pkg/base.py",
        """
        LIMIT = 3


        class Base:
            def run(self):
                return LIMIT


        def helper(x):
            return x + 1
        """,
    )
    for i in range(12):
        repo.write(
            f"src/pkg/m{i}.py",
            f"""
            from pkg import helper
            from pkg.base import Base


            class Sub{i}(Base):
                def go(self):
                    return self.run() + helper({i})


            def call{i}(x):
                def inner():
                    from pkg.base import LIMIT
                    return LIMIT
                return helper(x) + inner()


            def unrelated{i}(run):
                return run
            """,
        )
    base = repo.commit("base")
    repo.write(
        "src/pkg/base.py",
        """
        LIMIT = 4


        class Base:
            def run(self):
                return LIMIT + 1


        def helper(x):
            return x + 2
        """,
    )
    repo.write("src/pkg/m3.py", "def call3(x):\n    return 0\n")
    (repo.root / "src/pkg/m5.py").unlink()
    return base


def _force(monkeypatch, on: bool) -> None:
    monkeypatch.setattr(codemode.change.diff, "_HELPER_MIN_CHANGES", 0 if on else 10**9)
    monkeypatch.setattr(codemode.change.impact, "_HELPER_MIN_MODULES", 0 if on else 10**9)


class _Select:
    """select.select as the helper sees it when a request is already waiting."""

    @staticmethod
    def select(r, w, x, timeout=None):
        return r, [], []


@pytest.mark.parametrize("answers", ["index", "sets"])
@pytest.mark.parametrize("kind", ["range", "staged", "worktree"])
def test_the_helper_answers_as_the_process_does(repo, monkeypatch, kind, answers):
    if answers == "sets":  # a request before the index is built: answered from the sets
        monkeypatch.setattr(codemode.change.words, "select", _Select)
    base = _project(repo)
    if kind == "range":
        repo.commit("change")
        scope = Scope("range", base=base, head="HEAD")
    elif kind == "staged":
        repo.git("add", "-A")
        repo.write("src/pkg/m7.py", "def unstaged():\n    return 1\n")
        scope = Scope("staged")
    else:
        scope = Scope("worktree")
    results = []
    for on in (False, True):
        _force(monkeypatch, on)
        result = codemode.change.diff.analyze(repo.config(), scope, cache=False)
        results.append((result.functions, result.problems, dict(result.renames)))
    assert results[0] == results[1]
    impacted = {f.id for f in results[1][0] if f.status == "impacted"}
    assert "pkg.m1.call1" in impacted and "pkg.m1.Sub1.go" in impacted


def test_a_failing_helper_is_replaced(repo, monkeypatch):
    base = _project(repo)
    repo.commit("change")
    scope = Scope("range", base=base, head="HEAD")
    _force(monkeypatch, False)
    expected = codemode.change.diff.analyze(repo.config(), scope, cache=False)

    def broken(*args: object) -> None:
        raise RuntimeError("the helper fails")

    _force(monkeypatch, True)
    monkeypatch.setattr(codemode.change.words, "_serve_words", broken)
    got = codemode.change.diff.analyze(repo.config(), scope, cache=False)
    assert got.functions == expected.functions and got.problems == expected.problems


def test_the_helper_fills_the_identifiers_cache(repo, monkeypatch):
    base = _project(repo)
    repo.commit("change")
    scope = Scope("range", base=base, head="HEAD")
    _force(monkeypatch, True)
    first = codemode.change.diff.analyze(repo.config(), scope)
    git_dir = repo.root / ".git"
    cache = codemode.change.impact.AnalysisCache(git_dir)
    blobs = repo.git("ls-tree", "-r", "HEAD", "--", "src/pkg").split("\n")
    shas = [line.split()[2] for line in blobs if line.endswith(".py")]
    assert set(cache.words(shas)) == set(shas)
    _force(monkeypatch, False)
    again = codemode.change.diff.analyze(
        repo.config(), Scope("range", base=base, head="HEAD"), cache=False
    )
    assert again.functions == first.functions
