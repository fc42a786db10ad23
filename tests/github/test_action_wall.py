"""The Action on a pull request that changes side-effecting functions (#31): the real
``codemode action`` against the loopback GitHub calls them on both sides of the behaviour
diff and changes nothing of the checkout, ``.git`` or ``$HOME``; the comment names each
stopped operation."""

from __future__ import annotations

from pathlib import Path

import pytest
from ghfake import FakeGitHub, pr_env, run_codemode

from codemode.report.markdown import marker
from wallkit import BLOCKED, change_every_function, git, leftovers, make, state

pytestmark = pytest.mark.slow


def test_the_action_calls_side_effects_and_changes_nothing(
    tmp_path: Path, fake_github: FakeGitHub
) -> None:
    root = make(tmp_path / "repo", ignore="codemode-report.json\n")
    base = git(root, "rev-parse", "HEAD").strip()
    git(root, "checkout", "-qb", "feature")
    change_every_function(root)
    git(root, "commit", "-qam", "change")
    head = git(root, "rev-parse", "HEAD").strip()
    home, tmpdir = tmp_path / "home", tmp_path / "tmpdir"
    home.mkdir()
    tmpdir.mkdir()
    env = pr_env(tmp_path, fake_github, base, head)
    env.update(HOME=str(home), TMPDIR=str(tmpdir), CODEMODE_WARM="0")
    before = state(root, home)
    done = run_codemode(["action"], root, env)
    after = state(root, home)
    report = after["tree"].pop("codemode-report.json", None)  # type: ignore[union-attr]
    assert report is not None, done.stdout + done.stderr  # the Action's documented file
    assert after == before, done.stdout + done.stderr
    assert leftovers({"TMPDIR": str(tmpdir)}) == []
    ours = [c for c in fake_github.pr_comments(7) if marker("default") in str(c["body"])]
    assert ours, done.stdout + done.stderr
    body = str(ours[0]["body"])
    # each function the diff could not compare is named with what the wall stopped
    changes = body[body.index("### Behaviour changes") :]
    for function in BLOCKED:
        rows = [ln for ln in changes.splitlines() if f"hz.effects.{function}`" in ln]
        assert rows and "blocked: " in rows[0], (function, changes)
