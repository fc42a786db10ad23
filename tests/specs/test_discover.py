from __future__ import annotations

from pathlib import Path

import pytest

from codemode.config import Config
from codemode.errors import FatalError
from codemode.specs.discover import find_spec_files


def tree(root: Path, *files: str) -> None:
    for f in files:
        (root / f).parent.mkdir(parents=True, exist_ok=True)
        (root / f).write_text("x: 1\n", encoding="utf-8")


def rel(root: Path, paths: list[Path]) -> list[str]:
    return [p.relative_to(root).as_posix() for p in paths]


def test_default_globs_skip_virtualenvs_and_hidden_folders(tmp_path: Path) -> None:
    tree(
        tmp_path,
        "specs/a.yml",
        "specs/deep/b.yaml",
        "pkg/c.evals.yml",
        ".venv/lib/site-packages/d.evals.yml",
        "node_modules/e.evals.yml",
        ".hidden/f.evals.yml",
        "specs/notes.md",
        "other/g.yml",
    )
    found = find_spec_files(Config(root=tmp_path))
    assert rel(tmp_path, found) == ["pkg/c.evals.yml", "specs/a.yml", "specs/deep/b.yaml"]


def test_configured_glob_without_recursion(tmp_path: Path) -> None:
    tree(tmp_path, "evals/a.yml", "evals/sub/b.yml")
    found = find_spec_files(Config(root=tmp_path, specs=("evals/*.yml",)))
    assert rel(tmp_path, found) == ["evals/a.yml"]


def test_explicit_paths_files_and_folders(tmp_path: Path) -> None:
    tree(tmp_path, "x/a.yml", "x/b.yaml", "y.yml")
    found = find_spec_files(Config(root=tmp_path), ("x", "y.yml"), root=tmp_path)
    assert rel(tmp_path, found) == ["x/a.yml", "x/b.yaml", "y.yml"]


def test_a_missing_path_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(FatalError, match=r"nope\.yml: no such file or directory"):
        find_spec_files(Config(root=tmp_path), ("nope.yml",), root=tmp_path)
