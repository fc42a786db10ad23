"""Pinning a range from the refs' files names what git names, or declines.

Each pin is checked against git itself: ``git rev-parse PIN^{commit}`` must give the commit
``git rev-parse REV^{commit}`` gives. And a repeat ``codemode diff --base`` answers from the
cache without starting git at all.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from codemode.change.refs import pin_revisions
from codemode.cli.main import main

SRC = "def helper(x):\n    return x + 1\n\n\ndef caller(x):\n    return helper(x) * 2\n"


def _history(repo):
    """main: three commits and a merge of a side branch; tags, a remote branch, a detached
    HEAD elsewhere is left to each test."""
    repo.write("src/pkg/a.py", SRC)
    repo.commit("one")
    repo.git("tag", "light")
    repo.git("tag", "-a", "annotated", "-m", "an annotated tag")
    repo.write("src/pkg/a.py", SRC.replace("x + 1", "x + 2"))
    repo.commit("two")
    repo.git("checkout", "-q", "-b", "side", "HEAD~1")
    repo.write("src/pkg/b.py", SRC)
    repo.commit("side")
    repo.git("checkout", "-q", "main")
    repo.git("merge", "-q", "--no-edit", "side")
    repo.git("update-ref", "refs/remotes/origin/main", "HEAD~1")
    repo.git("symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/main")


PLAIN = (
    "HEAD",
    "HEAD~1",
    "HEAD^",
    "HEAD^2",
    "HEAD~1^1~0",
    "main",
    "main~2",
    "refs/heads/side",
    "side^",
    "light",
    "annotated",
    "annotated~0",
    "origin/main",
    "origin",  # refs/remotes/origin/HEAD, a symbolic ref
    "remotes/origin/main",
)


def _check_pins(repo, where: Path, revisions=PLAIN) -> None:
    found = pin_revisions(where, revisions)
    assert found is not None
    top, git_dir, pins = found
    assert Path(top).resolve() == Path(repo.git("rev-parse", "--show-toplevel")).resolve()
    assert Path(git_dir).resolve() == Path(repo.git("rev-parse", "--absolute-git-dir")).resolve()
    for revision, pin in zip(revisions, pins, strict=True):
        assert repo.git("rev-parse", f"{pin}^{{commit}}") == repo.git(
            "rev-parse", f"{revision}^{{commit}}"
        ), revision


def test_pins_name_the_commits_git_names_with_loose_refs(repo):
    _history(repo)
    _check_pins(repo, repo.root)
    _check_pins(repo, repo.root / "src" / "pkg")  # from a subdirectory


def test_pins_name_the_commits_git_names_with_packed_refs(repo):
    _history(repo)
    repo.git("pack-refs", "--all")
    assert not (repo.root / ".git" / "refs" / "heads" / "main").exists()
    _check_pins(repo, repo.root)
    # a loose ref written after packing wins over its packed copy, as in git
    repo.git("update-ref", "refs/heads/side", "HEAD~1")
    _check_pins(repo, repo.root)


def test_a_tag_wins_over_a_branch_of_the_same_name_as_in_git(repo):
    _history(repo)
    repo.git("tag", "side", "HEAD~1")  # git warns "refname is ambiguous" and takes the tag
    _check_pins(repo, repo.root, ("side", "side~1"))


def test_a_detached_head_and_a_full_object_id(repo):
    _history(repo)
    commit = repo.git("rev-parse", "HEAD~1")
    repo.git("checkout", "-q", "--detach", "HEAD~1")
    _check_pins(repo, repo.root, ("HEAD", "HEAD~1", commit, f"{commit}^"))


def test_a_linked_work_tree_has_its_own_head(repo, tmp_path: Path):
    _history(repo)
    other = tmp_path / "other"
    repo.git("worktree", "add", "-q", "--detach", str(other), "HEAD~1")
    from_other = type(repo)(other)
    _check_pins(from_other, other, ("HEAD", "HEAD~1", "main", "side", "origin/main"))
    found = pin_revisions(other, ["HEAD"])
    assert found is not None and found[2] == (repo.git("rev-parse", "HEAD~1"),)


@pytest.mark.parametrize(
    "revision",
    [
        "HEAD@{1}",  # the reflog
        "main@{upstream}",
        "HEAD^{tree}",
        "HEAD:src/pkg/a.py",
        ":/two",  # a commit by its message
        "HEAD~1..HEAD",
        "FETCH_HEAD",  # pseudorefs have formats of their own
        "ORIG_HEAD",
        "no-such-branch",
        "abc1234",  # an abbreviated id: only git's object store can expand it
        "a..b",
        "refs/heads/main.lock",
    ],
)
def test_anything_less_plain_is_declined(repo, revision):
    _history(repo)
    repo.git("rev-parse", "HEAD")  # ORIG_HEAD exists after the merge
    assert pin_revisions(repo.root, ["HEAD", revision]) is None


@pytest.mark.parametrize(
    "variable", ["GIT_DIR", "GIT_WORK_TREE", "GIT_NAMESPACE", "GIT_CONFIG_PARAMETERS"]
)
def test_a_variable_that_moves_git_elsewhere_is_declined(repo, variable):
    _history(repo)
    env = {variable: str(repo.root / ".git")}
    assert pin_revisions(repo.root, ["HEAD"], env=env) is None
    assert pin_revisions(repo.root, ["HEAD"], env={}) is not None


def test_repositories_git_would_read_differently_are_declined(repo, tmp_path: Path):
    _history(repo)
    head = repo.git("rev-parse", "HEAD")
    repo.git("replace", head, "HEAD~1")  # refs/replace: a commit's parents are not its own
    assert pin_revisions(repo.root, ["HEAD~1"]) is None
    repo.git("replace", "-d", head)
    assert pin_revisions(repo.root, ["HEAD~1"]) is not None
    repo.git("config", "core.worktree", str(repo.root))
    assert pin_revisions(repo.root, ["HEAD"]) is None
    repo.git("config", "--unset", "core.worktree")
    assert pin_revisions(tmp_path / "not-a-repo-at-all", ["HEAD"]) is None


def test_an_unborn_branch_is_declined(repo):
    assert pin_revisions(repo.root, ["HEAD"]) is None


def test_a_repeat_diff_starts_no_git(repo, capsys, tmp_path: Path, monkeypatch):
    repo.commit_change("src/pkg/a.py", SRC, SRC.replace("x + 1", "x + 2"))
    args = ["diff", "--base", "HEAD~1", "--format", "json", "--root", str(repo.root)]
    assert main(args) == 0
    first = capsys.readouterr().out
    assert json.loads(first)["functions"]
    # every git run fails from here on: the answer must come from the refs and the cache
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "git"
    fake.write_text("#!/bin/sh\necho 'git was started' >&2\nexit 99\n")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    assert main(args) == 0
    captured = capsys.readouterr()
    assert captured.out == first
    assert "git was started" not in captured.err


def test_a_new_commit_changes_the_pin(repo):
    repo.write("src/pkg/a.py", SRC)
    repo.commit()
    repo.write("src/pkg/a.py", SRC.replace("x + 1", "x + 2"))
    repo.commit()
    before = pin_revisions(repo.root, ["HEAD~1", "HEAD"])
    repo.write("src/pkg/a.py", SRC.replace("x + 1", "x + 3"))
    repo.commit()
    after = pin_revisions(repo.root, ["HEAD~1", "HEAD"])
    assert before is not None and after is not None and before[2] != after[2]


WARM_PROBE = """
import os, sys
from codemode.cli.main import main
out = os.dup(1)
os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
code = main(["diff", "--base", "HEAD~1", "--format", "json", "--root", sys.argv[1]])
sys.stdout.flush()
os.dup2(out, 1)
print(code, ",".join(m for m in ("subprocess", "threading") if m in sys.modules))
"""


def test_a_repeat_json_diff_imports_neither_subprocess_nor_threads(repo):
    """A cached range needs no git process and no thread: their imports were a tenth of it."""
    import subprocess
    import sys

    repo.commit_change("src/pkg/a.py", SRC, SRC.replace("x + 1", "x + 2"))
    runs = [
        subprocess.run(
            [sys.executable, "-c", WARM_PROBE, str(repo.root)],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
        for _ in range(2)
    ]
    assert runs[0][0] == "0" and "subprocess" in runs[0][1]  # the first run asks git
    assert runs[1] == ["0"]  # the repeat: nothing of either
