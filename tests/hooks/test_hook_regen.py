"""``hook-regen`` decides "files were modified" from git's view of the work tree."""

from __future__ import annotations

from pathlib import Path

from hookkit import Project

from codemode.cli.hook_cmd import modified_paths, snapshot


def _repo(tmp_path: Path, hook_env: dict[str, str]) -> Project:
    p = Project(tmp_path / "r", hook_env)
    p.root.mkdir()
    p.git("init", "-q")
    p.write("specs/a.yml", "a: 1\n")
    p.write("src/m.py", "x = 1\n")
    p.git("add", ".")
    p.git("commit", "-q", "--no-verify", "-m", "init")
    return p


def test_nothing_written_means_nothing_modified(tmp_path: Path, hook_env: dict[str, str]) -> None:
    p = _repo(tmp_path, hook_env)
    p.write("src/m.py", "x = 2\n")
    p.git("add", "src/m.py")
    assert modified_paths(snapshot(p.root), snapshot(p.root)) == []


def test_new_and_rewritten_specs_are_modified(tmp_path: Path, hook_env: dict[str, str]) -> None:
    p = _repo(tmp_path, hook_env)
    p.write("specs/a.yml", "a: 2\n")  # already dirty before the hook ran
    before = snapshot(p.root)
    p.write("specs/a.yml", "a: 3\n")  # same status letter, new content
    p.write("specs/new dir/b.yml", "b: 1\n")  # untracked, with a space in the path
    assert modified_paths(before, snapshot(p.root)) == ["specs/a.yml", "specs/new dir/b.yml"]


def test_a_deleted_file_is_modified(tmp_path: Path, hook_env: dict[str, str]) -> None:
    p = _repo(tmp_path, hook_env)
    before = snapshot(p.root)
    (p.root / "specs/a.yml").unlink()
    assert modified_paths(before, snapshot(p.root)) == ["specs/a.yml"]
