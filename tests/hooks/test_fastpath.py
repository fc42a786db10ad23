"""The hook's fast path: only a change that certainly affects no spec skips the full check."""

from __future__ import annotations

from pathlib import Path

import pytest
from hookkit import REPO_ROOT, Project

from codemode.change import git
from codemode.check.fastpath import (
    NOTHING_TO_VERIFY,
    could_affect_specs,
    nothing_staged_to_check,
    quick_report,
    spec_keys,
    staged_change,
    staged_paths,
)
from codemode.cli.main import main
from codemode.config import DEFAULT_SPEC_GLOBS, load_config
from codemode.errors import FatalError
from codemode.report.terminal import render
from codemode.specs.discover import glob_regex
from codemode.specs.spec_files import load_spec_file


def _new_repo(tmp_path: Path, hook_env: dict[str, str]) -> Project:
    p = Project(tmp_path / "r", hook_env)
    p.root.mkdir()
    p.git("init", "-q")
    return p


def _commit_all(p: Project) -> None:
    p.git("add", ".")
    p.git("commit", "-q", "--no-verify", "-m", "init")


@pytest.mark.parametrize(
    ("pattern", "path", "want"),
    [
        ("specs/**/*.yml", "specs/a.yml", True),
        ("specs/**/*.yml", "specs/x/y/a.yml", True),
        ("specs/**/*.yml", "other/specs/a.yml", False),
        ("**/*.evals.yml", "a.evals.yml", True),
        ("**/*.evals.yml", "pkg/sub/a.evals.yml", True),
        ("**/*.evals.yml", "pkg/a.yml", False),
        ("specs/*.yml", "specs/x/a.yml", False),
        ("spec?.yml", "specs.yml", True),
    ],
)
def test_glob_regex_agrees_with_pathlib_glob(
    tmp_path: Path, pattern: str, path: str, want: bool
) -> None:
    (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / path).write_text("")
    globbed = {p.relative_to(tmp_path).as_posix() for p in tmp_path.glob(pattern)}
    assert (path in globbed) is want
    assert bool(glob_regex(pattern).match(path)) is want


@pytest.mark.parametrize(
    ("paths", "want"),
    [
        ([".github/workflows/ci.yml", ".pre-commit-config.yaml", "mkdocs.yml"], False),
        ([], False),
        (["docs/index.md", "tests/x.py"], True),  # any Python file: the full check decides
        (["specs/pricing.yml"], True),
        (["pkg/thing.evals.yaml"], True),
        (["pyproject.toml"], True),  # the configuration itself
    ],
)
def test_what_could_affect_specs(paths: list[str], want: bool) -> None:
    assert could_affect_specs(paths, DEFAULT_SPEC_GLOBS) is want


def test_decides_from_the_index_not_the_work_tree(tmp_path: Path, hook_env: dict[str, str]) -> None:
    p = _new_repo(tmp_path, hook_env)
    p.write("src/m.py", "x = 1\n")
    _commit_all(p)
    globs = ("specs/**/*.yml",)

    p.write(".github/workflows/ci.yml", "on: push\n")
    p.git("add", ".github")
    p.write("src/m.py", "x = 2\n")  # unstaged: not part of the change
    assert nothing_staged_to_check(_staged(p.root), p.root, globs)

    p.git("add", "src/m.py")
    assert not nothing_staged_to_check(_staged(p.root), p.root, globs)


def _staged(root: Path) -> git.StagedChange:
    change = staged_change(root)
    assert change is not None
    return change


def test_not_a_repository_means_run_the_full_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert staged_change(tmp_path) is None  # no fast answer: the full check says what is wrong
    assert main(["check", "--staged", "--root", str(tmp_path)]) == 2
    assert "not a git repository" in capsys.readouterr().err


def test_quick_report_only_for_a_staged_change_with_nothing_to_verify(
    tmp_path: Path, hook_env: dict[str, str]
) -> None:
    p = _new_repo(tmp_path, hook_env)
    p.write("pyproject.toml", "[tool.codemode]\nspecs = ['specs/**/*.yml']\n")
    _commit_all(p)
    p.write(".pre-commit-config.yaml", "repos: []\n")
    p.git("add", ".pre-commit-config.yaml")
    config = load_config(p.root, env={})

    report = quick_report(config, _staged(p.root))

    assert report is not None
    assert report.functions == () and not report.failing(config.fail_on)
    assert NOTHING_TO_VERIFY in render(report)
    p.write("specs/a.yml", "m.f:\n  dataset: []\n")
    p.git("add", "specs/a.yml")
    assert quick_report(config, _staged(p.root)) is None


SPEC_FILES = sorted(
    p for base in ("examples", "specs", "tests/data") for p in (REPO_ROOT / base).rglob("*.yml")
)


@pytest.mark.parametrize("path", SPEC_FILES, ids=lambda p: p.relative_to(REPO_ROOT).as_posix())
def test_spec_keys_agree_with_the_loader(path: Path) -> None:
    light = spec_keys(path.read_text(encoding="utf-8"))
    spec = load_spec_file(path)
    # None is always safe for the caller (it loads the file properly), but a copy that gave up
    # on every shipped spec would pass here while comparing nothing (#23): these are plain YAML
    assert light is not None
    assert light == {f.id: f.line for f in spec.functions}


@pytest.mark.parametrize(
    "text",
    [
        "{m.f: {dataset: []}}\n",  # flow style
        "base: &b\n  m.f: {dataset: []}\n<<: *b\n",  # a merge key adds keys the scan cannot see
        "m.f:\n  dataset: []\nm.f:\n  dataset: []\n",  # duplicate: the loader reports it
        "m.f:\n  dataset: []\n---\nm.g:\n  dataset: []\n",  # a second document
        "? m.f\n: {dataset: []}\n",  # explicit key
    ],
)
def test_spec_keys_gives_up_on_unusual_yaml(text: str) -> None:
    assert spec_keys(text) is None


def test_spec_keys_reads_ids_and_lines() -> None:
    text = (
        "# generated\n---\nfixtures:\n  db: {setup: m.db}\n\n"
        '"m.f":\n  dataset: []\nm.C.g:  # a method\n  dataset: []\ncodemode: {version: 1}\n'
    )
    assert spec_keys(text) == {"m.f": 6, "m.C.g": 8}


def test_locate_at_head_before_and_after_the_first_commit(
    tmp_path: Path, hook_env: dict[str, str]
) -> None:
    p = _new_repo(tmp_path, hook_env)
    (p.root / "sub").mkdir()

    top, git_dir, head = git.locate_at_head(p.root / "sub")
    assert (top, git_dir, head) == (p.root.resolve(), (p.root / ".git").resolve(), None)

    p.write("a.txt", "a\n")
    _commit_all(p)
    assert git.locate_at_head(p.root)[2] == p.git("rev-parse", "HEAD").strip()

    with pytest.raises(FatalError, match="not a git repository"):
        git.locate_at_head(tmp_path)


def test_staged_paths_are_relative_to_the_project_root_with_both_sides_of_a_rename(
    tmp_path: Path, hook_env: dict[str, str]
) -> None:
    p = _new_repo(tmp_path, hook_env)
    p.write("app/src/old_name.py", "def f():\n    return 1\n" * 20)
    p.write("other/m.py", "x = 1\n")
    _commit_all(p)
    p.git("mv", "app/src/old_name.py", "app/src/new_name.py")
    p.write("other/m.py", "x = 2\n")  # outside the project root app/: left out
    p.git("add", ".")

    change = _staged(p.root / "app")
    assert sorted(staged_paths(change, p.root / "app")) == ["src/new_name.py", "src/old_name.py"]
    assert sorted(staged_paths(change, p.root)) == [
        "app/src/new_name.py",
        "app/src/old_name.py",
        "other/m.py",
    ]
