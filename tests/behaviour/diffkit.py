"""A small project in a real git repository, for behaviour-diff tests: write files, commit,
stage, and run ``codemode`` through ``main([...])``."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

from gitkit import git

PYPROJECT = """\
[project]
name = "demo"
version = "0"

[tool.codemode]
source_roots = ["src"]
"""


# Sources more than one test diffs: a tier rule, a version comparison.
TIERS = '''\
def loyalty_tier(points: int) -> str:
    """The tier a customer's points earn."""
    if points >= 5000:
        return "gold"
    if points >= 1000:
        return "silver"
    return "bronze"
'''

SEMVER = """\
def compare(left, right):
    a, b = _key(left), _key(right)
    return (a > b) - (a < b)


def _key(text):
    core, _, pre = text.partition("-")
    return [int(p) for p in core.split(".")] + [0 if pre else 1]
"""


def write(repo: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = repo / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")


def project(tmp: Path, files: dict[str, str]) -> Path:
    """A repository whose first commit holds ``files`` (and a pyproject.toml)."""
    repo = tmp / "demo"
    repo.mkdir()
    write(repo, {"pyproject.toml": PYPROJECT, "src/demo/__init__.py": "", **files})
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "old")
    return repo


def check(repo: Path, *args: str, capsys: Any, monkeypatch: Any) -> tuple[int, dict[str, Any]]:
    """``codemode check ARGS --format json`` in ``repo``: (exit code, the JSON report)."""
    from codemode.cli.main import main

    monkeypatch.chdir(repo)
    capsys.readouterr()
    rc = main(["check", *args, "--format", "json"])
    out = capsys.readouterr().out
    return rc, json.loads(out)


def functions(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {f["id"]: f for f in report["functions"]}


def assert_reaches(
    tmp: Path, lib: str, test: str, kind: tuple[Any, ...], capsys: Any, monkeypatch: Any
) -> None:
    """One reach kind (#32): ``lib`` (``src/demo/lib.py``) edited by ``kind``'s (old, new),
    staged and checked; its function is diffed, its witness call has the new outcome, and
    its report names the way (``kind``: the edit, the function, the call, the outcome, the
    way first to last)."""
    (old, new), fid, call, outcome, via = kind
    assert lib.count(old) == 1, old
    repo = project(tmp, {"src/demo/lib.py": lib, "tests/test_lib.py": test})
    write(repo, {"src/demo/lib.py": lib.replace(old, new)})
    git(repo, "add", "-A")
    rc, report = check(repo, "--staged", capsys=capsys, monkeypatch=monkeypatch)
    f = functions(report).get(fid)
    assert f is not None, sorted(functions(report))  # in scope: re-checked and diffed
    assert f["status"] == "changed" and rc == 1, f
    calls = {w["call"]: w for w in f["witnesses"]}
    assert calls[call]["new"] == {"returned": outcome}, list(calls)
    assert f["via"] == via


def witness_calls(
    tmp: Path, old: dict[str, str], new: dict[str, str], fid: str, capsys: Any, monkeypatch: Any
) -> set[str]:
    """``check --base`` of the commit from ``old`` to ``new`` (files of ``project``): the calls
    of ``fid``'s witnesses, the function asserted ``changed`` with exit code 1."""
    repo = project(tmp, old)
    write(repo, new)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "new")
    rc, report = check(repo, "--base", "HEAD~1", capsys=capsys, monkeypatch=monkeypatch)
    f = functions(report).get(fid)
    assert f is not None and f["status"] == "changed", f
    assert rc == 1
    return {w["call"] for w in f["witnesses"]}
