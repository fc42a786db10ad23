"""The Action's regen mode and the CLI's ``regen --base`` are one flow (#34): on a pull request
whose head changes a function's behaviour, both write the generated cases and the behaviour
diff's witnesses, with the same spec edits and the same results, each function once.

Before, the Action called only regen's exploration (1 spec edit) while the CLI combined it
with the witnesses itself (2 edits, and the function listed twice in its report)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from ghfake import FakeGitHub, git, pr_env, run_codemode, tiers_pull_request

pytestmark = pytest.mark.slow


def _outcome(report: dict[str, Any]) -> tuple[list[Any], list[Any]]:
    """What the two deliveries must agree on: each function's result and each spec edit."""
    functions = [(f["id"], f["status"], f["spec"], f["message"]) for f in report["functions"]]
    edits = [(e["file"], e["diff"], e["applied"], e["summary"]) for e in report["edits"]]
    return functions, edits


def test_the_action_in_regen_mode_gives_the_cli_s_edits_and_report(
    tmp_path: Path, fake_github: FakeGitHub
) -> None:
    root, base, head = tiers_pull_request(tmp_path)
    by_hand = tmp_path / "by-hand"
    shutil.copytree(root, by_hand)

    env = pr_env(tmp_path, fake_github, base, head, mode="regen", fail_on="none")
    done = run_codemode(["action"], root, env)
    assert done.returncode == 0, done.stdout + done.stderr
    action = json.loads((root / "codemode-report.json").read_text())

    # the Action writes no spec on a PR without `commit: true`: the CLI's dry run is its twin
    command = ["regen", "--base", base, "--dry-run", "--format", "json"]
    cli = subprocess.run(
        [str(Path(sys.executable).parent / "codemode"), *command],
        cwd=by_hand,
        env={**env, "CODEMODE_MODEL": ""},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert cli.returncode == 0, cli.stderr
    by_cli = json.loads(cli.stdout)

    assert _outcome(action) == _outcome(by_cli)
    functions, edits = _outcome(action)
    ids = [f[0] for f in functions]
    assert ids == ["shop.tiers.loyalty_tier"]  # explored and recorded: one result
    assert "recorded 1 behaviour change as cases" in functions[0][3]
    # the generated cases, then the witness recorded with its new outcome
    assert len(edits) == 2, edits
    assert edits[0][3].endswith("generated case(s) for shop.tiers.loyalty_tier")
    assert edits[1][3] == "recorded behaviour changes"
    assert "loyalty_tier" in edits[1][1] and "silver" in edits[1][1]
    assert git(root, "status", "--porcelain") == ""  # a dry run: nothing written
