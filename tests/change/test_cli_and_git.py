"""``codemode diff`` end to end, and the git helpers the rest of codemode calls."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from codemode.change.git import repo_root
from codemode.change.side_tree import materialize_staged
from codemode.cli.main import main
from codemode.errors import FatalError
from codemode.scope import Scope

SRC = "def helper(x):\n    return x + 1\n\n\ndef caller(x):\n    return helper(x) * 2\n"


def test_diff_json_names_functions_statuses_and_impact(repo, capsys):
    base = repo.commit_change("src/pkg/a.py", SRC, SRC.replace("x + 1", "x + 2"))
    assert main(["diff", "--base", base, "--format", "json", "--root", str(repo.root)]) == 0
    doc = json.loads(capsys.readouterr().out)
    rows = {r["id"]: r for r in doc["functions"]}
    assert rows["pkg.a.helper"]["status"] == "modified"
    assert rows["pkg.a.caller"] == {
        **rows["pkg.a.caller"],
        "status": "impacted",
        "path": "src/pkg/a.py",
        "renamed_from": None,
        "impacted_by": ["pkg.a.helper"],
        "via": ["pkg.a.helper", "pkg.a.caller"],
        "specs": [],
    }


def test_diff_text_and_default_worktree_scope(repo, capsys):
    repo.write("src/pkg/a.py", SRC)
    repo.commit()
    assert main(["diff", "--root", str(repo.root)]) == 0
    assert capsys.readouterr().out == "no function changed\n"
    repo.write("src/pkg/a.py", SRC.replace("def caller", "def renamed_caller"))
    assert main(["diff", "--root", str(repo.root)]) == 0
    assert capsys.readouterr().out.split() == [
        "renamed",
        "pkg.a.renamed_caller",
        "src/pkg/a.py:5",
        "(was",
        "pkg.a.caller)",
    ]


def test_diff_outside_a_repository_is_a_usage_error(tmp_path: Path, capsys):
    assert main(["diff", "--staged", "--root", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "not a git repository" in err and "git init" in err and "--root" not in err


def test_head_without_base_is_a_usage_error(repo, capsys):
    assert main(["diff", "--head", "HEAD", "--root", str(repo.root)]) == 2
    assert "--head needs --base" in capsys.readouterr().err


def test_materialize_staged_holds_the_index_only_when_it_differs(repo):
    repo.write("src/pkg/a.py", SRC)
    repo.commit()
    assert materialize_staged(repo.root) is None
    repo.write("src/pkg/a.py", SRC.replace("x + 1", "x + 2"))
    repo.git("add", "-A")
    assert materialize_staged(repo.root) is None  # staged == work tree
    repo.write("src/pkg/a.py", SRC.replace("x + 1", "x + 3"))  # an unstaged edit on top
    staged = materialize_staged(repo.root)
    try:
        assert staged is not None
        assert (staged / "src/pkg/a.py").read_text() == SRC.replace("x + 1", "x + 2")
    finally:
        if staged:
            shutil.rmtree(staged)


def test_repo_root_from_a_subdirectory_and_outside(repo, tmp_path: Path):
    sub = repo.root / "src" / "pkg"
    sub.mkdir(parents=True)
    assert repo_root(sub) == repo.root.resolve()
    with pytest.raises(FatalError, match=r"not a git repository.*run `git init`"):
        repo_root(tmp_path)


def test_config_root_in_a_subdirectory_of_the_repository(repo):
    repo.write("proj/src/pkg/a.py", SRC)
    repo.write("other/x.py", "def y(): return 1\n")
    base = repo.commit()
    repo.write("proj/src/pkg/a.py", SRC.replace("x + 1", "x + 2"))
    repo.commit()
    from codemode.change.diff import analyze
    from codemode.config import Config

    result = analyze(Config(root=repo.root / "proj"), Scope("range", base=base, head="HEAD"))
    assert repo.statuses(result) == {"pkg.a.helper": "modified", "pkg.a.caller": "impacted"}
