"""A function nested in a function is part of the enclosing one, in diff, check and regen alike:
not listed on its own (``outer.<locals>.inner`` cannot be imported by an id), its edit is an edit
of the enclosing function, and regen --function on it says which function to name instead."""

from __future__ import annotations

from pathlib import Path

import pytest

from codemode.cli.main import main
from gitkit import git

SOURCE = """\
def outer(x):
    def inner(y):
        return y + 1

    class Local:
        def twice(self, v):
            return 2 * v

    return Local().twice(inner(x))
"""
SPEC = "m.outer:\n  dataset:\n    - case: {id: one, input: 1, expected: 4}\n"


@pytest.fixture
def staged_inner_edit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "m.py").write_text(SOURCE)
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "m.yml").write_text(SPEC)

    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "base")
    (tmp_path / "m.py").write_text(SOURCE.replace("return y + 1", "return y + 2"))
    git(tmp_path, "add", "-A")
    return tmp_path


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_diff_lists_only_the_enclosing_function(
    staged_inner_edit: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, out, _ = _run(capsys, "diff", "--staged", "--root", str(staged_inner_edit))
    assert "m.outer.inner" not in out and "Local" not in out
    assert out.split() == ["modified", "m.outer", "m.py:1", "specs:", "specs/m.yml"]


def test_check_counts_the_edit_as_a_change_of_the_enclosing_function(
    staged_inner_edit: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _run(
        capsys, "check", "--staged", "--root", str(staged_inner_edit), "--color", "never"
    )
    assert code == 1
    assert "specs/m.yml:3: m.outer[one]: drifted: expected 4, observed 6" in out
    assert "missing" not in out and "inner" not in out


def test_regen_of_a_nested_id_names_the_enclosing_function_once(
    staged_inner_edit: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _run(
        capsys,
        "regen",
        "--root",
        str(staged_inner_edit),
        "--function",
        "m.outer.inner",
        "--dry-run",
    )
    assert code == 1
    assert out.splitlines()[0] == (
        "error    m.outer.inner: nested in the function outer, so not importable by its id; "
        "explore the enclosing function: --function m.outer"
    )
