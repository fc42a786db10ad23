"""End to end: the real `codemode action` and `codemode comment` CLIs in subprocesses, in a
simulated Actions environment (event payload, step summary, outputs) talking to the loopback
GitHub API. The project is a real git repository whose head commit drifts one case.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from ghfake import (
    FakeGitHub,
    actions_env,
    git,
    make_project,
    payload,
    pr_env,
    read_outputs,
    run_codemode,
)

from codemode.report.markdown import marker

# end to end: seconds each (deselect with -m "not slow")
pytestmark = pytest.mark.slow


@pytest.fixture
def project(tmp_path: Path) -> tuple[Path, str, str]:
    root = tmp_path / "repo"
    base, head = make_project(root)
    return root, base, head


def _ours(fake: FakeGitHub) -> list[dict[str, object]]:
    return [c for c in fake.pr_comments(7) if marker("default") in str(c["body"])]


def test_first_run_creates_the_comment_second_updates_it(
    project: tuple[Path, str, str], tmp_path: Path, fake_github: FakeGitHub
) -> None:
    root, base, head = project
    fake_github.add_comment(7, "unrelated review comment")
    # args: the scope is not what this test is about (see test_pull_request_scope_...)
    env = pr_env(tmp_path, fake_github, base, head, args="--all")
    first = run_codemode(["action"], root, env)
    assert first.returncode == 1, first.stderr  # drifted is in the default fail-on
    ours = _ours(fake_github)
    assert len(ours) == 1
    body = str(ours[0]["body"])
    assert "calc.ops.double[big]" in body and "`40` → `41`" in body
    assert "codemode accept 'calc.ops.double[big]'" in body
    assert "::error file=specs/ops.yml,line=4," in first.stdout

    (root / "specs" / "ops.yml").write_text(
        (root / "specs" / "ops.yml").read_text().replace("expected: 40", "expected: 41")
    )
    second = run_codemode(["action"], root, env)
    assert second.returncode == 0, second.stderr
    ours_after = _ours(fake_github)
    assert len(ours_after) == 1 and ours_after[0]["id"] == ours[0]["id"]
    assert "all 1 function(s) verified" in str(ours_after[0]["body"])
    assert ("PATCH", f"/repos/octo/shop/issues/comments/{ours[0]['id']}") in fake_github.requests
    assert len(fake_github.pr_comments(7)) == 2  # the unrelated one is untouched

    outputs = read_outputs(tmp_path / "github_output.txt")
    assert outputs["drifted"] == "0" and outputs["ok"] == "1"
    assert outputs["comment-url"].endswith(f"#issuecomment-{ours[0]['id']}")
    assert outputs["report-path"] == str(root / "codemode-report.json")
    report = json.loads((root / "codemode-report.json").read_text())
    assert report["github"]["pr"] == 7 and report["counts"]["ok"] == 1
    summary = (tmp_path / "step_summary.md").read_text()
    assert summary.count("## codemode check") == 2


def test_forbidden_token_warns_and_exits_by_verdict(
    project: tuple[Path, str, str], tmp_path: Path, fake_github: FakeGitHub
) -> None:
    root, base, head = project
    fake_github.fail("POST", r"/comments$", 403, times=5)
    done = run_codemode(["action"], root, pr_env(tmp_path, fake_github, base, head, args="--all"))
    assert done.returncode == 1, done.stderr  # by verdict (drifted), not by the API failure
    assert "::warning title=codemode::PR comment not posted: HTTP 403" in done.stdout
    summary = (tmp_path / "step_summary.md").read_text()
    assert "calc.ops.double[big]" in summary and "HTTP 403" in summary
    assert (root / "codemode-report.json").is_file()
    assert read_outputs(tmp_path / "github_output.txt")["drifted"] == "1"


def test_server_error_is_retried(
    project: tuple[Path, str, str], tmp_path: Path, fake_github: FakeGitHub
) -> None:
    root, base, head = project
    fake_github.fail("GET", r"/pulls/7$", 500, times=2)
    done = run_codemode(
        ["action"], root, pr_env(tmp_path, fake_github, base, head, args="--all", fail_on="none")
    )
    assert done.returncode == 0, done.stderr
    assert [m for m, p in fake_github.requests if p.endswith("/pulls/7")] == ["GET"] * 3
    assert len(_ours(fake_github)) == 1
    assert "::warning" not in done.stdout


def test_fork_pull_request_gets_no_comment_but_a_report(
    project: tuple[Path, str, str], tmp_path: Path, fake_github: FakeGitHub
) -> None:
    root, base, head = project
    env = pr_env(tmp_path, fake_github, base, head, name="pull_request_fork", args="--all")
    done = run_codemode(["action"], root, env)
    assert done.returncode == 1
    assert fake_github.requests == []
    assert "from a fork" in done.stderr
    assert "from a fork" in (tmp_path / "step_summary.md").read_text()
    report = json.loads((root / "codemode-report.json").read_text())
    assert report["github"]["pr"] == 7


def test_pull_request_scope_is_the_pr_range(
    project: tuple[Path, str, str], tmp_path: Path, fake_github: FakeGitHub
) -> None:
    root, base, head = project
    done = run_codemode(["action"], root, pr_env(tmp_path, fake_github, base, head))
    assert done.returncode == 1, done.stderr
    report = json.loads((root / "codemode-report.json").read_text())
    assert report["scope"].startswith(base)
    assert [f["status"] for f in report["functions"]] == ["drifted"]


# --- the fork-safe second half: codemode comment in a workflow_run job -------------------------


def _report_file(tmp_path: Path, pr: object) -> Path:
    from ghfake import sample_report

    from codemode.github.delivery import GITHUB_KEY, write_report

    path = tmp_path / "artifact" / "report.json"
    write_report(path, sample_report(), None)
    # As a fork's code could write it: any JSON value where the PR number goes.
    data = json.loads(path.read_text())
    path.write_text(json.dumps({**data, GITHUB_KEY: {"pr": pr, "repo": "octo/shop"}}))
    return path


def test_workflow_run_comment_from_a_fork_report(tmp_path: Path, fake_github: FakeGitHub) -> None:
    from ghfake import HEAD_SHA

    report = _report_file(tmp_path, 7)
    event = payload("workflow_run_fork", tmp_path, HEAD_SHA=HEAD_SHA)
    env = actions_env(tmp_path, fake_github, "workflow_run", event)
    env["GITHUB_TOKEN"] = "test-token"
    done = run_codemode(["comment", "--report", str(report), "--fail-on", "none"], tmp_path, env)
    assert done.returncode == 0, done.stderr
    assert len(_ours(fake_github)) == 1
    assert "::error file=specs/pricing.yml,line=12," in done.stdout
    again = run_codemode(["comment", "--report", str(report)], tmp_path, env)
    assert again.returncode == 1  # drifted and error are in the default fail-on
    assert len(_ours(fake_github)) == 1


def test_workflow_run_refuses_a_pr_whose_head_moved(
    tmp_path: Path, fake_github: FakeGitHub
) -> None:
    report = _report_file(tmp_path, 7)
    event = payload("workflow_run_fork", tmp_path, HEAD_SHA="e" * 40)
    env = actions_env(tmp_path, fake_github, "workflow_run", event)
    env["GITHUB_TOKEN"] = "test-token"
    done = run_codemode(["comment", "--report", str(report), "--fail-on", "none"], tmp_path, env)
    assert done.returncode == 0
    assert "not the checked commit" in done.stdout
    assert fake_github.pr_comments(7) == []


def test_a_pr_number_that_is_not_a_number_is_ignored(
    tmp_path: Path, fake_github: FakeGitHub
) -> None:
    report = _report_file(tmp_path, "7; rm -rf /")
    env = actions_env(tmp_path, fake_github, "workflow_run", None)
    env["GITHUB_TOKEN"] = "test-token"
    done = run_codemode(["comment", "--report", str(report), "--fail-on", "none"], tmp_path, env)
    assert done.returncode == 0 and "no pull request number" in done.stderr
    assert fake_github.requests == []
    assert (tmp_path / "step_summary.md").is_file()


def test_merge_shards_then_comment(tmp_path: Path, fake_github: FakeGitHub) -> None:
    from ghfake import sample_report

    from codemode.github.delivery import Origin, write_report
    from codemode.report.model import Report

    full = sample_report()
    halves = [full.functions[::2], full.functions[1::2]]
    paths = []
    for k, funcs in enumerate(halves, 1):
        path = tmp_path / f"report-{k}.json"
        write_report(path, Report(functions=funcs, scope=full.scope), Origin(pr=7))
        paths.append(str(path))
    env = actions_env(tmp_path, fake_github, "workflow_run", None)
    env["GITHUB_TOKEN"] = "test-token"
    merged = tmp_path / "merged.json"
    done = run_codemode(["merge", *paths, "--out", str(merged)], tmp_path, env)
    assert done.returncode == 0, done.stderr
    data = json.loads(merged.read_text())
    assert data["counts"] == full.counts() and data["github"]["pr"] == 7
    done = run_codemode(["comment", "--report", str(merged), "--fail-on", "none"], tmp_path, env)
    assert done.returncode == 0, done.stderr
    body = str(_ours(fake_github)[0]["body"])
    assert "shop.tax.rate_for" in body and "shop.pricing.round_price" in body


def test_merge_refuses_missing_files(tmp_path: Path) -> None:
    done = run_codemode(["merge", "nope.json", "--out", "m.json"], tmp_path, {**_base_env()})
    assert done.returncode == 2 and "no such report: nope.json" in done.stderr


def _base_env() -> dict[str, str]:
    import os

    return {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "INPUT_"))}


def test_git_helper_is_hermetic(tmp_path: Path) -> None:
    base, head = make_project(tmp_path / "p")
    assert git(tmp_path / "p", "log", "--format=%an", "-1").strip() == "t" and base != head


def test_shallow_checkout_gets_the_base_fetched(
    project: tuple[Path, str, str], tmp_path: Path, fake_github: FakeGitHub
) -> None:
    origin, base, head = project
    git(origin, "config", "uploadpack.allowAnySHA1InWant", "true")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--depth=1", "-b", "feature", f"file://{origin}", str(clone))
    done = run_codemode(["action"], clone, pr_env(tmp_path, fake_github, base, head))
    assert done.returncode == 1, done.stderr
    report = json.loads((clone / "codemode-report.json").read_text())
    assert any("--depth=50" in n for n in report["notes"])
    assert [f["status"] for f in report["functions"]] == ["drifted"]


def test_unreachable_base_asks_for_fetch_depth_0(
    project: tuple[Path, str, str], tmp_path: Path, fake_github: FakeGitHub
) -> None:
    root, _, head = project
    done = run_codemode(["action"], root, pr_env(tmp_path, fake_github, "d" * 40, head))
    assert done.returncode == 2
    assert "fetch-depth: 0" in done.stderr


# --- regen mode -----------------------------------------------------------------------------------

NEW_FUNCTION = "\n\ndef triple(x):\n    return x * 3\n"


def _regen_project(tmp_path: Path) -> tuple[Path, Path, str, str]:
    """origin (bare) <- clone on the PR branch, whose head adds a function without a spec."""
    work = tmp_path / "work"
    base, _ = make_project(work)
    with (work / "src" / "calc" / "ops.py").open("a") as f:
        f.write(NEW_FUNCTION)
    git(work, "commit", "-qam", "add triple")
    origin = tmp_path / "origin.git"
    git(tmp_path, "clone", "-q", "--bare", str(work), str(origin))
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "-b", "feature", str(origin), str(clone))
    return origin, clone, base, git(clone, "rev-parse", "HEAD").strip()


def test_regen_commit_pushes_to_a_same_repository_pr(
    tmp_path: Path, fake_github: FakeGitHub
) -> None:
    origin, clone, base, head = _regen_project(tmp_path)
    env = pr_env(tmp_path, fake_github, base, head, mode="regen", commit="true", fail_on="none")
    done = run_codemode(["action"], clone, env)
    assert done.returncode == 0, done.stderr
    report = json.loads((clone / "codemode-report.json").read_text())
    applied = [e["file"] for e in report["edits"] if e["applied"]]
    assert applied, report
    assert git(origin, "log", "-1", "--format=%an", "feature").strip() == "github-actions[bot]"
    assert git(origin, "rev-parse", "feature").strip() != head
    assert "Spec edits committed" in str(_ours(fake_github)[0]["body"])


def test_regen_never_commits_for_a_fork(tmp_path: Path, fake_github: FakeGitHub) -> None:
    origin, clone, base, head = _regen_project(tmp_path)
    env = pr_env(
        tmp_path,
        fake_github,
        base,
        head,
        name="pull_request_fork",
        mode="regen",
        commit="true",
        fail_on="none",
    )
    done = run_codemode(["action"], clone, env)
    assert done.returncode == 0, done.stderr
    assert git(origin, "rev-parse", "feature").strip() == head
    report = json.loads((clone / "codemode-report.json").read_text())
    assert not any(e["applied"] for e in report["edits"])
    assert any("commit: true ignored" in n for n in report["notes"])


def test_push_checks_before_to_after_without_a_comment(
    project: tuple[Path, str, str], tmp_path: Path, fake_github: FakeGitHub
) -> None:
    root, base, head = project
    event = payload("push", tmp_path, BEFORE_SHA=base, AFTER_SHA=head)
    env = actions_env(tmp_path, fake_github, "push", event, python=sys.executable)
    done = run_codemode(["action"], root, env)
    assert done.returncode == 1, done.stderr
    assert fake_github.requests == []
    assert "calc.ops.double[big]" in done.stdout  # the text report, in the job log
    outputs = read_outputs(tmp_path / "github_output.txt")
    assert (outputs["drifted"], outputs["comment-url"]) == ("1", "")
    report = json.loads((root / "codemode-report.json").read_text())
    assert report["scope"].startswith(base) and report["github"]["pr"] is None


def test_action_yml_regen_pushes_from_the_deliver_step(
    tmp_path: Path, fake_github: FakeGitHub
) -> None:
    """Verify writes the specs without a token; deliver, with it, commits and pushes them."""
    from ghfake import run_action_yml

    origin, clone, base, head = _regen_project(tmp_path)
    event = payload("pull_request", tmp_path, BASE_SHA=base, HEAD_SHA=head)
    env = actions_env(tmp_path, fake_github, "pull_request", event)
    steps = run_action_yml(
        clone,
        env,
        tmp_path,
        github_token="test-token",
        python=sys.executable,
        mode="regen",
        commit="true",
        fail_on="none",
    )
    verify, deliver = steps["codemode"].done, steps["comment"].done
    assert verify is not None and verify.returncode == 0, verify.stderr
    assert "pushed" not in verify.stderr  # the step without the token wrote, never pushed
    assert deliver is not None and deliver.returncode == 0, deliver.stderr
    assert "codemode: pushed" in deliver.stderr
    assert git(origin, "log", "-1", "--format=%an", "feature").strip() == "github-actions[bot]"
    body = str(_ours(fake_github)[0]["body"])
    assert "Spec edits committed" in body and "pushed the regenerated specs" in body
