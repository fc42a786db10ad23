"""check with change scopes on real git repositories: which specs run, and the verdicts
missing, stale and orphaned; the staged content is what runs."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gitkit import git

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "shop"


def codemode(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    return subprocess.run(
        [sys.executable, "-m", "codemode", *args], cwd=repo, capture_output=True, text=True, env=env
    )


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new), encoding="utf-8")


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    repo = tmp_path / "shop"
    shutil.copytree(EXAMPLE, repo)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "init")
    return repo


def verdicts(repo: Path, *args: str) -> dict[str, str]:
    out = codemode(repo, "check", *args, "--format", "json")
    assert out.returncode in (0, 1), out.stderr
    return {f["id"]: f["status"] for f in json.loads(out.stdout)["functions"]}


def test_nothing_staged_checks_nothing(shop: Path) -> None:
    result = codemode(shop, "check", "--staged")
    assert result.returncode == 0
    assert "0 functions" in result.stdout


def test_staged_drift_is_found_and_an_unstaged_fix_does_not_hide_it(shop: Path) -> None:
    pricing = shop / "src/shop/pricing.py"
    edit(pricing, "round(price * (1 - rate), 2)", "round(price * (1 - rate) + 0.01, 2)")
    git(shop, "add", "-A")
    assert verdicts(shop, "--staged") == {"shop.pricing.apply_discount": "drifted"}
    edit(pricing, "+ 0.01, 2)", ", 2)")  # fixed in the work tree only: not staged
    result = codemode(shop, "check", "--staged")
    assert result.returncode == 1
    assert "specs/pricing.yml:8: shop.pricing.apply_discount[basic]: drifted" in result.stdout
    # and the work tree is left as it was
    assert "+ 0.01" not in pricing.read_text(encoding="utf-8")


def test_unstaged_drift_does_not_leak_into_a_clean_staged_change(shop: Path) -> None:
    edit(
        shop / "src/shop/text.py",
        "def initials(name: str) -> str:",
        "def initials(name: str) -> str:  # staged",
    )
    git(shop, "add", "-A")
    edit(shop / "src/shop/text.py", "part[0].upper()", "part[0].lower()")  # unstaged drift
    assert verdicts(shop, "--staged") == {}
    assert verdicts(shop, "--worktree") == {"shop.text.initials": "drifted"}


def test_stale_missing_and_orphaned(shop: Path) -> None:
    text = shop / "src/shop/text.py"
    edit(
        text,
        "def initials(name: str) -> str:\n",
        'def initials(name: str) -> str:\n    if not name.strip():\n        return "?"\n',
    )
    edit(text, "def parse_line(", "def parse_qty_line(")
    text.write_text(
        text.read_text(encoding="utf-8") + "\n\ndef shout(s: str) -> str:\n    return s.upper()\n",
        encoding="utf-8",
    )
    git(shop, "add", "-A")
    assert verdicts(shop, "--staged", "--no-diff") == {
        "shop.text.initials": "stale",
        "shop.text.shout": "missing",
        "shop.text.parse_line": "orphaned",
    }
    # the behaviour diff finds the call the new branch answers: more than stale (#18)
    assert verdicts(shop, "--staged")["shop.text.initials"] == "changed"
    report = json.loads(codemode(shop, "check", "--staged", "--format", "json").stdout)
    orphan = next(f for f in report["functions"] if f["status"] == "orphaned")
    assert orphan["renamed_to"] == "shop.text.parse_qty_line"
    strict = codemode(shop, "check", "--staged", "--fail-on", "stale", "--no-diff")
    assert strict.returncode == 1
    assert "no case runs the changed line(s) src/shop/text.py:" in strict.stdout


def test_a_pull_request_range_and_an_edited_spec(shop: Path) -> None:
    git(shop, "checkout", "-q", "-b", "feature")
    edit(shop / "specs/text_dates.yml", 'expected: "AL"', 'expected: "AX"')
    git(shop, "commit", "-qam", "edit a spec")
    assert verdicts(shop, "--base", "main") == {
        "shop.text.slugify": "ok",
        "shop.text.parse_line": "ok",
        "shop.text.initials": "drifted",
        "shop.dates.add_business_days": "ok",
        "shop.dates.quarter": "ok",
    }


def test_an_impacted_caller_is_verified(shop: Path) -> None:
    edit(shop / "src/shop/pricing.py", "VAT_RATE = 0.2", "VAT_RATE = 0.25")
    git(shop, "add", "-A")
    result = codemode(shop, "check", "--staged", "--format", "json")
    report = json.loads(result.stdout)
    assert [(f["id"], f["status"]) for f in report["functions"]] == [
        ("shop.pricing.with_vat", "drifted")
    ]
