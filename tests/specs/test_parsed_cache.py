"""Spec files parsed before are read back from ``<git-dir>/codemode-cache/specs`` (#20): the
records are the parse's, an edit is never served stale, and a folder or entry that cannot be
trusted is not read."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from codemode.cli.main import main
from codemode.specs.parsed_cache import ParsedSpecs, flatten, unflatten
from codemode.specs.spec_files import load_spec_file, load_spec_files

SHOP = Path(__file__).resolve().parents[2] / "examples" / "shop"

RICH = """\
codemode:
  version: 1
fixtures:
  db:
    setup: shop.store.make_store
    scope: file
shop.pricing.apply_discount:
  fixture: [db]
  evals:
    Kind: {type: float}
  dataset:
    - case: {id: a, inputs: [100.0, 10], expected: 90.0}
    - case: {id: b, inputs: {price: 1, percent: 200}, raises: ValueError, match: "percent"}
    - case: {id: c, input: [1, 2], expected: [1, 2], duration: 50}
    - case: {id: c, input: 1, expected: 1}
shop.pricing.bad: 3
"unknown": {}
"""


def _repo(tmp_path: Path) -> Path:
    root = tmp_path / "shop"
    shutil.copytree(SHOP, root, ignore=shutil.ignore_patterns("__pycache__"))
    env = dict(os.environ)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True, env=env)
    return root


def _entries(root: Path) -> list[Path]:
    folder = root / ".git" / "codemode-cache" / "specs"
    return sorted(folder.iterdir()) if folder.is_dir() else []


def _report(root: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    capsys.readouterr()
    main(["check", "--root", str(root), "--all", "--format", "json"])
    data = json.loads(capsys.readouterr().out)
    for f in data["functions"]:
        f.pop("duration_ms", None)
        for c in f.get("cases", []):
            c.pop("duration_ms", None)
    data.pop("duration_s", None)
    data.pop("notes", None)
    data.pop("elapsed", None)
    return data


def test_records_read_back_equal_the_parse(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    (root / "specs" / "rich.yml").write_text(RICH)
    for path in sorted((root / "specs").iterdir()):
        parsed = load_spec_file(path, root)
        assert unflatten(flatten(parsed), path) == parsed
    first = load_spec_files(sorted((root / "specs").iterdir()), root)
    assert len(_entries(root)) == 3  # text_dates.yml holds dates: marshal cannot (below)
    again = load_spec_files(sorted((root / "specs").iterdir()), root)
    assert again == first
    rich = next(s for s in again if s.rel == "specs/rich.yml")
    # what the reader is told survives the round trip: a file's problems, a function's
    # error, a case's error, evaluators, fixtures
    assert rich.problems and rich.fixtures["db"].scope == "file"
    discount, bad = rich.functions
    assert bad.error and discount.evaluators[0].params["type"] == "float"
    assert [c.error is None for c in discount.cases] == [True, True, True, False]


def test_check_reads_the_cache_and_never_serves_an_edit_stale(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _repo(tmp_path)
    cold = _report(root, capsys)
    entries = _entries(root)
    assert len(entries) == 2  # text_dates.yml holds dates, parsed every run
    assert _report(root, capsys) == cold
    assert _entries(root) == entries  # read, not written again
    pricing = root / "specs" / "pricing.yml"
    text = pricing.read_text()
    edited = text.replace("expected: 90.0", "expected: 91.0", 1)
    assert edited != text
    pricing.write_text(edited)
    after = _report(root, capsys)
    assert after != cold and after["counts"] != cold["counts"]
    assert len(_entries(root)) == 3
    pricing.write_text(text)
    assert _report(root, capsys) == cold


def test_an_untrusted_folder_or_a_corrupt_entry_is_not_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _repo(tmp_path)
    cold = _report(root, capsys)
    for entry in _entries(root):
        entry.write_bytes(b"\xffnot marshal")
    assert _report(root, capsys) == cold  # parsed afresh
    folder = root / ".git" / "codemode-cache" / "specs"
    os.chmod(folder, 0o755)  # others may enter: someone else could have written it
    assert ParsedSpecs(root).folder is None
    assert _report(root, capsys) == cold


def test_off_outside_git_and_when_asked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    plain = tmp_path / "plain"
    shutil.copytree(SHOP, plain, ignore=shutil.ignore_patterns("__pycache__"))
    assert ParsedSpecs(plain).folder is None
    assert not (plain / ".codemode-cache").exists()
    root = _repo(tmp_path)
    monkeypatch.setenv("CODEMODE_SPEC_CACHE", "0")
    load_spec_files(sorted((root / "specs").iterdir()), root)
    assert _entries(root) == []


def test_a_value_marshal_cannot_hold_leaves_the_file_uncached(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    spec = root / "specs" / "dates.yml"
    spec.write_text(
        "shop.pricing.apply_discount:\n  dataset:\n"
        "    - case: {id: t, input: 2024-01-02, expected: 1}\n"
    )
    first = load_spec_files([spec], root)
    assert first[0].functions[0].cases[0].error is None
    assert _entries(root) == []
    assert load_spec_files([spec], root) == first


def test_an_entry_of_another_shape_is_parsed_afresh(tmp_path: Path) -> None:
    """A well-formed marshal entry whose records have other fields (another codemode's, or
    edited by hand) is never built into records with fields missing."""
    import marshal

    root = _repo(tmp_path)
    spec = root / "specs" / "pricing.yml"
    first = load_spec_files([spec], root)
    (entry,) = _entries(root)
    rel, functions, fixtures, serializers, problems = marshal.loads(entry.read_bytes())
    fid, line, fx, ser, evs, cases, error, meta = functions[0]
    short = ((fid, line, fx, ser, evs, tuple(c[:3] for c in cases), error, meta),)
    entry.write_bytes(marshal.dumps((rel, short, fixtures, serializers, problems)))
    assert load_spec_files([spec], root) == first


def test_a_staged_check_reads_the_index_tree_through_the_project_cache(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--staged`` reads spec files from a tree of the index in a new temporary folder each
    run: the cache is the project's and its key is the content and the name, not the path."""
    root = _repo(tmp_path)
    env = dict(os.environ)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True, env=env)
    subprocess.run(["git", "commit", "-qm", "base"], cwd=root, check=True, env=env)
    pricing = root / "specs" / "pricing.yml"
    pricing.write_text(pricing.read_text().replace("expected: 90.0", "expected: 91.0", 1))
    subprocess.run(["git", "add", "-A"], cwd=root, check=True, env=env)

    def staged() -> tuple[int, str]:
        capsys.readouterr()
        code = main(["check", "--root", str(root), "--staged", "--no-diff", "--color", "never"])
        out = capsys.readouterr().out
        return code, re.sub(r" \(\d+\.\d+ s\)", "", out)  # the elapsed time aside

    first = staged()
    entries = _entries(root)
    assert first[0] == 1 and "drifted" in first[1] and entries
    assert staged() == first
    assert _entries(root) == entries
