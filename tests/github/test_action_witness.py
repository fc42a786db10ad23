"""The PR comment shows a behaviour change with its call (#18): the real `codemode action`
on a pull request whose head changes a function no spec covers, against the loopback GitHub."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from ghfake import FakeGitHub, actions_env, base_and_feature, payload, read_outputs, run_codemode

from codemode.report.markdown import marker

pytestmark = pytest.mark.slow

TIERS = """\
def loyalty_tier(points: int) -> str:
    if points >= 5000:
        return "gold"
    return "silver"
"""


def test_the_pr_comment_shows_each_witness_call_and_how_to_accept(
    tmp_path: Path, fake_github: FakeGitHub
) -> None:
    root = tmp_path / "repo"
    (root / "src" / "shop").mkdir(parents=True)
    (root / "pyproject.toml").write_text(
        '[project]\nname = "shop"\nversion = "0"\n\n[tool.codemode]\nsource_roots = ["src"]\n'
    )
    (root / "src" / "shop" / "__init__.py").write_text("")
    tiers = root / "src" / "shop" / "tiers.py"
    tiers.write_text(TIERS)
    base, head = base_and_feature(
        root, tiers, TIERS.replace("points >= 5000", "points > 5000"), "gold from 5001"
    )
    event = payload("pull_request", tmp_path, BASE_SHA=base, HEAD_SHA=head)
    env = actions_env(
        tmp_path,
        fake_github,
        "pull_request",
        event,
        github_token="test-token",
        python=sys.executable,
    )
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
