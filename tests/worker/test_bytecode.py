"""The project's bytecode kept in codemode's private cache (worker/bytecode.py, #20): compiled once,
keyed by content (never served stale), never written into the project's tree."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from codemode.cli.main import main
from codemode.worker import bytecode

MODULE = """\
def bump(x):
    return x + 1


def same_file(x):
    # compiled in another tree, the code must still name this file (tracebacks, coverage)
    return same_file.__code__.co_filename == __file__
"""
SPEC = """\
app.mod.bump:
  dataset:
    - case: {id: bump, input: 1, expected: 2}
app.mod.same_file:
  dataset:
    - case: {id: same_file, input: 1, expected: true}
"""


def _project(root: Path) -> Path:
    (root / "app").mkdir(parents=True)
    (root / "app" / "__init__.py").write_text("")
    (root / "app" / "mod.py").write_text(MODULE)
    (root / "specs").mkdir()
    (root / "specs" / "mod.yml").write_text(SPEC)
    (root / "pyproject.toml").write_text('[project]\nname = "app"\n')
    (root / ".git").mkdir()  # the cache's home: <git-dir>/codemode-cache
    return root


def _check(root: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, tuple[str, object]]:
    main(["check", "--root", str(root), "--jobs", "1", "--all", "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    return {
        c["id"]: (c["status"], c.get("observed")) for f in report["functions"] for c in f["cases"]
    }


def test_compiled_once_into_the_private_cache_never_into_the_tree(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _project(tmp_path / "proj")
    assert _check(root, capsys)["bump"][0] == "passed"
    folder = root / ".git" / "codemode-cache" / "bytecode"
    entries = sorted(folder.iterdir())
    assert len(entries) == 2  # app/__init__.py and app/mod.py
    assert folder.stat().st_mode & 0o077 == 0
    assert not list(root.rglob("__pycache__"))
    stamps = [e.stat().st_mtime_ns for e in entries]
    assert _check(root, capsys)["bump"][0] == "passed"
    assert [e.stat().st_mtime_ns for e in sorted(folder.iterdir())] == stamps  # read, not rewritten


def test_an_edit_with_the_same_size_and_time_is_never_served_the_old_code(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A timestamp .pyc holds the source's mtime in seconds and its size: this edit matches
    # both, and a cache keyed by them would run the old `x + 1`.
    root = _project(tmp_path / "proj")
    mod = root / "app" / "mod.py"
    assert _check(root, capsys)["bump"] == ("passed", 2)
    st = mod.stat()
    mod.write_text(MODULE.replace("x + 1", "x + 2"))
    os.utime(mod, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert _check(root, capsys)["bump"] == ("drifted", 3)


def test_code_compiled_in_another_tree_names_its_own_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    one = _project(tmp_path / "one")
    assert _check(one, capsys)["same_file"][0] == "passed"
    two = tmp_path / "two"
    shutil.copytree(one, two)  # the same sources, and the same cache entries
    assert _check(two, capsys)["same_file"] == ("passed", True)


def test_a_cache_folder_others_may_enter_is_not_used(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _project(tmp_path / "proj")
    folder = root / ".git" / "codemode-cache" / "bytecode"
    folder.mkdir(parents=True, mode=0o755)
    folder.chmod(0o755)
    assert _check(root, capsys)["bump"][0] == "passed"
    assert list(folder.iterdir()) == []


def test_pruning_drops_the_entries_read_least_recently(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for i in range(6):
        entry = tmp_path / f"{i}.bin"
        entry.write_bytes(b"x" * 100)
        os.utime(entry, (1000 + i, 1000 + i))
    monkeypatch.setattr(bytecode, "MAX_BYTES", 500)
    monkeypatch.setattr(bytecode, "KEEP_BYTES", 300)
    monkeypatch.setattr(bytecode._State, "folder", str(tmp_path))
    monkeypatch.setattr(bytecode._State, "written", 0)
    bytecode.prune()  # this run wrote nothing: nothing to prune
    assert len(list(tmp_path.iterdir())) == 6
    monkeypatch.setattr(bytecode._State, "written", 1)
    bytecode.prune()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["3.bin", "4.bin", "5.bin"]


@pytest.mark.parametrize("where", ["no_git", "turned_off"])
def test_no_cache_outside_git_or_when_turned_off(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    root = _project(tmp_path / "proj")
    if where == "no_git":
        (root / ".git").rmdir()
    else:
        monkeypatch.setenv("CODEMODE_BYTECODE_CACHE", "0")
    assert _check(root, capsys)["bump"][0] == "passed"
    assert not list(root.rglob("bytecode")) and not list(root.rglob("__pycache__"))


def test_a_zip_archive_in_the_project_is_left_to_zipimport(tmp_path: Path) -> None:
    import sys
    import zipfile

    archive = tmp_path / "vendor.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("zipped.py", "VALUE = 7\n")
    hooks, cache = list(sys.path_hooks), dict(sys.path_importer_cache)
    try:
        bytecode.install(str(tmp_path / "cache"), lambda p: str(p).startswith(str(tmp_path)))
        hook = next(h for h in sys.path_hooks if getattr(h, "codemode", False))
        with pytest.raises(ImportError):
            hook(str(archive))
        assert type(hook(str(tmp_path))).__name__ == "FileFinder"
        sys.path.insert(0, str(archive))
        import zipped  # type: ignore[import-not-found]

        assert zipped.VALUE == 7
    finally:
        sys.path[:] = [p for p in sys.path if p != str(archive)]
        sys.modules.pop("zipped", None)
        sys.path_hooks[:] = hooks
        sys.path_importer_cache.clear()
        sys.path_importer_cache.update(cache)
