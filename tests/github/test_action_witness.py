"""The PR comment shows a behaviour change with its call (#18): the real `codemode action`
on a pull request whose head changes a function no spec covers, against the loopback GitHub."""

from __future__ import annotations

from pathlib import Path

import pytest
from ghfake import (
    FakeGitHub,
    pr_env,
    read_outputs,
    run_codemode,
    tiers_pull_request,
)

from codemode.report.markdown import marker

pytestmark = pytest.mark.slow


def test_the_pr_comment_shows_each_witness_call_and_how_to_accept(
    tmp_path: Path, fake_github: FakeGitHub
) -> None:
    root, base, head = tiers_pull_request(tmp_path)
    env = pr_env(tmp_path, fake_github, base, head)
    done = run_codemode(["action"], root, env)
    assert done.returncode == 1, done.stdout + done.stderr  # `changed` fails by default
    ours = [c for c in fake_github.pr_comments(7) if marker("default") in str(c["body"])]
    body = str(ours[0]["body"])
    assert "### Behaviour changes" in body
    assert "🔀 **`shop.tiers.loyalty_tier`** · 1 call differs" in body
    assert "- `loyalty_tier(5000)`: `'gold'` → `'silver'`" in body
    assert "codemode accept shop.tiers.loyalty_tier --base" in body
    assert "::error file=src/shop/tiers.py,title=codemode%3A shop.tiers.loyalty_tier" in done.stdout
    assert read_outputs(tmp_path / "github_output.txt")["changed"] == "1"
