"""The behaviour diff end to end: real git, the old tree written from git's objects, two
workers of the project's interpreter, ``codemode check`` in a change scope (#18)."""

from __future__ import annotations

from pathlib import Path

import pytest
from diffkit import TIERS, check, functions, git, project, write

TEST_TIERS = """\
from demo.tiers import loyalty_tier


def test_gold():
    assert loyalty_tier(6000) == "gold"
"""


def _tiers_repo(tmp_path: Path) -> Path:
    return project(tmp_path, {"src/demo/tiers.py": TIERS, "tests/test_tiers.py": TEST_TIERS})


def test_a_change_reached_only_by_a_new_tests_input_is_a_witness(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = _tiers_repo(tmp_path)
    # The new release moves the gold threshold down and adds a test at the new edge: the
    # old test (6000) sees no change; only the new test's input (4999) shows it.
    write(repo, {"src/demo/tiers.py": TIERS.replace("points >= 5000", "points >= 4999")})
    write(
        repo,
        {
            "tests/test_tiers.py": TEST_TIERS
            + '\n\ndef test_edge():\n    assert loyalty_tier(4999) == "gold"\n'
        },
    )
    git(repo, "add", "-A")
    rc, report = check(repo, "--staged", capsys=capsys, monkeypatch=monkeypatch)
    f = functions(report)["demo.tiers.loyalty_tier"]
    assert f["status"] == "changed"
    assert rc == 1
    calls = {w["call"]: w for w in f["witnesses"]}
    assert "loyalty_tier(4999)" in calls
    w = calls["loyalty_tier(4999)"]
    assert w["old"] == {"returned": "silver"}
    assert w["new"] == {"returned": "gold"}
    assert w["kind"] == "value"


def test_a_refactor_gives_no_witness(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = _tiers_repo(tmp_path)
    refactor = '''\
def loyalty_tier(points: int) -> str:
    """The tier a customer's points earn."""
    for floor, name in ((5000, "gold"), (1000, "silver")):
        if points >= floor:
            return name
    return "bronze"
'''
    write(repo, {"src/demo/tiers.py": refactor})
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "refactor")
    rc, report = check(repo, "--base", "HEAD~1", capsys=capsys, monkeypatch=monkeypatch)
    f = functions(report).get("demo.tiers.loyalty_tier")
    assert f is None or (f["status"] != "changed" and not f["witnesses"]), f
    assert rc == 0
