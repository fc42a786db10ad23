"""The Action against hostile projects and reports, through the real CLI and action.yml's own
steps (issue #11): the step that runs the project's code holds no token, a yaml.py in the
checkout is never imported into codemode, nothing from data becomes a workflow command, a
planted marker comment is never edited, a hostile comment id is refused, and the job summary
stays under GitHub's 1 MiB in bytes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from ghfake import (
    FakeGitHub,
    actions_env,
    git,
    make_project,
    payload,
    run_action_yml,
    run_codemode,
)

from codemode.github.delivery import GITHUB_KEY, Origin, write_report
from codemode.report.markdown import SUMMARY_BYTES_LIMIT, marker
from codemode.report.model import CaseResult, FunctionResult, Report

# end to end: seconds each (deselect with -m "not slow")
pytestmark = pytest.mark.slow

TOKEN = "test-token"

# Reads every environment it can reach: its own, and each ancestor's /proc/<pid>/environ
# (what same-user code can read of the processes that started it). The spec passes the token
# in two parts: a failing case shows its call, and the whole token in the log would be a leak.
PROBE = """\
import os


def token_visible(parts):
    token = "".join(parts)
    found = any(token in v for v in os.environ.values())
    pid = os.getpid()
    while pid > 1:
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                found = found or token.encode() in f.read()
            with open(f"/proc/{pid}/stat") as f:
                pid = int(f.read().rsplit(")", 1)[1].split()[1])
        except OSError:
            break
    return found


def shout(text):
    raise ValueError(text)
"""
PROBE_SPEC = """\
calc.probe.token_visible:
  dataset:
    - case: {id: no_token, input: [test-, token], expected: false}
calc.probe.shout:
  dataset:
    - case: {id: hostile, input: "x\\n::error::forged\\n::add-mask::secret\\n##[warning]old", expected: 1}
"""


@pytest.fixture
def hostile(tmp_path: Path) -> tuple[Path, str, str]:
    root = tmp_path / "repo"
    base, _ = make_project(root)
    (root / "src" / "calc" / "probe.py").write_text(PROBE)
    (root / "specs" / "probe.yml").write_text(PROBE_SPEC)
    # A module named like one codemode imports: `python -m codemode` in the checkout runs it.
    (root / "yaml.py").write_text(
        "import pathlib, sys\npathlib.Path('PWNED').write_text(' '.join(sys.argv))\n"
    )
    git(root, "add", ".")
    git(root, "commit", "-qm", "probe")
    return root, base, git(root, "rev-parse", "HEAD").strip()


def _env(tmp_path: Path, fake: FakeGitHub, base: str, head: str) -> dict[str, str]:
    event = payload("pull_request", tmp_path, BASE_SHA=base, HEAD_SHA=head)
    return actions_env(tmp_path, fake, "pull_request", event)


def _commands(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.lstrip().startswith("::") or "##[" in line]


def test_the_verify_step_holds_no_token_and_the_comment_is_posted(
    hostile: tuple[Path, str, str], tmp_path: Path, fake_github: FakeGitHub
) -> None:
    root, base, head = hostile
    env = _env(tmp_path, fake_github, base, head)
    steps = run_action_yml(
        root, env, tmp_path, github_token=TOKEN, python=sys.executable, args="--all"
    )
    verify, comment = steps["codemode"], steps["comment"]
    assert verify.done is not None and comment.done is not None
    assert TOKEN not in json.dumps(verify.env)
    report = json.loads((root / "codemode-report.json").read_text())
    probe = next(f for f in report["functions"] if f["id"] == "calc.probe.token_visible")
    assert probe["status"] == "ok", probe  # the function saw no token, even in /proc
    assert verify.done.returncode == 1, verify.done.stderr  # `big` drifted, shout errors
    assert comment.done.returncode == 0, comment.done.stderr
    assert comment.outputs["comment-url"].startswith("https://github.example/")
    assert [c["user"]["login"] for c in fake_github.pr_comments(7)] == ["github-actions[bot]"]


def test_the_probe_sees_a_token_in_the_process_that_holds_it(
    hostile: tuple[Path, str, str], tmp_path: Path, fake_github: FakeGitHub
) -> None:
    """The probe can fail: with the token in the step (`--step all`), it finds it."""
    root, base, head = hostile
    env = {**_env(tmp_path, fake_github, base, head), "INPUT_GITHUB_TOKEN": TOKEN}
    env.update(INPUT_PYTHON=sys.executable, INPUT_ARGS="specs/probe.yml")
    done = run_codemode(["action", "--step", "all"], root, env)
    assert done.returncode == 1, done.stderr
    report = json.loads((root / "codemode-report.json").read_text())
    probe = next(f for f in report["functions"] if f["id"] == "calc.probe.token_visible")
    assert probe["status"] == "drifted"


def test_a_yaml_py_in_the_checkout_is_never_imported_by_the_action(
    hostile: tuple[Path, str, str], tmp_path: Path, fake_github: FakeGitHub
) -> None:
    root, base, head = hostile
    env = _env(tmp_path, fake_github, base, head)
    steps = run_action_yml(
        root, env, tmp_path, github_token=TOKEN, python=sys.executable, args="--all"
    )
    assert all(s.done is not None for s in steps.values())
    assert not (root / "PWNED").exists()
    # The attack is real: `python -m codemode` in the checkout imports it.
    subprocess.run(
        [sys.executable, "-m", "codemode", "action", "--step", "verify"],
        cwd=root,
        env={**env, "INPUT_ARGS": "--all"},
        capture_output=True,
        timeout=60,
    )
    assert "codemode" in (root / "PWNED").read_text()


def test_nothing_from_data_becomes_a_workflow_command(
    hostile: tuple[Path, str, str], tmp_path: Path, fake_github: FakeGitHub
) -> None:
    root, base, head = hostile
    env = _env(tmp_path, fake_github, base, head)
    steps = run_action_yml(
        root, env, tmp_path, github_token=TOKEN, python=sys.executable, args="--all"
    )
    for step in steps.values():
        assert step.done is not None
        for line in _commands(step.done.stdout + "\n" + step.done.stderr):
            # only codemode's own annotations and warnings, their data escaped
            assert line.startswith(("::error file=", "::warning ", "::notice::")), line
    log = steps["codemode"].done.stdout  # type: ignore[union-attr]
    assert "::error::forged" in log.replace("\u200b", "")  # shown, neutralised


def test_an_exception_message_never_forges_a_command(tmp_path: Path) -> None:
    """FatalError's message names a path from the command line: one with line breaks."""
    env = {k: v for k, v in actions_env(tmp_path, FakeGitHub(), "workflow_run", None).items()}
    hostile = "r\n::error::forged\r::add-mask::secret\n##[warning]old.json"
    done = run_codemode(["comment", "--report", hostile], tmp_path, env)
    assert done.returncode == 2
    assert _commands(done.stdout + done.stderr) == []
    assert "forged" in done.stderr


def test_a_planted_marker_comment_is_never_edited(
    hostile: tuple[Path, str, str], tmp_path: Path, fake_github: FakeGitHub
) -> None:
    root, base, head = hostile
    planted_body = f"{marker('default')}\nAll specs pass, merge away!"
    planted = fake_github.add_comment(7, planted_body, user="mallory")
    env = _env(tmp_path, fake_github, base, head)
    run_action_yml(root, env, tmp_path, github_token=TOKEN, python=sys.executable)  # create
    # Make our comment stale, so the second run must edit it: an identical report (same
    # elapsed time once rounded) is left "unchanged" and would not show which comment is ours.
    (own,) = [c for c in fake_github.pr_comments(7) if c["id"] != planted]
    fake_github.comments[own["id"]]["body"] = f"{marker('default')}\nstale"
    run_action_yml(root, env, tmp_path, github_token=TOKEN, python=sys.executable)  # update
    assert fake_github.comments[planted]["body"] == planted_body
    assert planted not in [cid for cid, _ in fake_github.edits]
    ours = [c for c in fake_github.pr_comments(7) if c["id"] != planted]
    assert len(ours) == 1 and ours[0]["user"]["login"] == "github-actions[bot]"
    assert fake_github.edits == [(ours[0]["id"], "github-actions[bot]")]


@pytest.mark.parametrize("bad", ["x -->\n<img src=x onerror=alert(1)>", "a b", "-->"])
def test_a_hostile_comment_id_is_refused(
    bad: str, hostile: tuple[Path, str, str], tmp_path: Path, fake_github: FakeGitHub
) -> None:
    root, base, head = hostile
    env = _env(tmp_path, fake_github, base, head)
    steps = run_action_yml(root, env, tmp_path, github_token=TOKEN, comment_id=bad)
    verify = steps["codemode"].done
    assert verify is not None and verify.returncode == 2
    assert "input `comment-id` must match" in verify.stderr
    assert steps["comment"].done is None and fake_github.requests == []


def test_a_hostile_comment_id_in_a_report_is_refused(
    tmp_path: Path, fake_github: FakeGitHub
) -> None:
    """In a workflow_run job the report was written by the PR's code."""
    path = tmp_path / "report.json"
    write_report(path, Report(), Origin(pr=7))
    data = json.loads(path.read_text())
    data[GITHUB_KEY]["comment_id"] = "x --> <img src=x>"
    path.write_text(json.dumps(data))
    env = {**actions_env(tmp_path, fake_github, "workflow_run", None), "GITHUB_TOKEN": TOKEN}
    done = run_codemode(["comment", "--report", str(path)], tmp_path, env)
    assert done.returncode == 2 and "comment id must match" in done.stderr
    assert fake_github.requests == []


def test_the_job_summary_stays_under_one_mib_in_bytes(
    tmp_path: Path, fake_github: FakeGitHub
) -> None:
    wide = "€漢😀" * 400  # 1,200 characters, 3,600 bytes
    funcs = tuple(
        FunctionResult(
            id=f"pkg.mod{i:04d}.f",
            status="drifted",
            spec=f"specs/m{i:04d}.yml",
            line=1,
            cases=(
                CaseResult(
                    id="c",
                    status="drifted",
                    line=2,
                    has_expected=True,
                    expected="a\nx",  # lines: the comment shows their diff
                    observed="b\nx",
                    diff=wide,
                ),
            ),
        )
        for i in range(1500)
    )
    path = tmp_path / "report.json"
    write_report(path, Report(functions=funcs), Origin(pr=7))
    env = actions_env(tmp_path, fake_github, "workflow_run", None)  # no token: no comment
    done = run_codemode(["comment", "--report", str(path), "--fail-on", "none"], tmp_path, env)
    assert done.returncode == 0, done.stderr
    summary = (tmp_path / "step_summary.md").read_bytes()
    assert len(summary) <= SUMMARY_BYTES_LIMIT
    assert len(summary.decode("utf-8")) < 1_000_000 < len(summary) * 2  # bytes, not chars, bound
    assert "more case(s), see the report artifact" in summary.decode("utf-8")


def test_pull_request_target_never_runs_the_pull_requests_code(
    hostile: tuple[Path, str, str], tmp_path: Path, fake_github: FakeGitHub
) -> None:
    root, base, head = hostile
    event = payload("pull_request", tmp_path, BASE_SHA=base, HEAD_SHA=head)
    env = actions_env(tmp_path, fake_github, "pull_request_target", event)
    env.update(GITHUB_SHA=base, INPUT_PYTHON=sys.executable)  # the checkout is the PR's head
    done = run_codemode(["action", "--step", "verify"], root, env)
    assert done.returncode == 2 and "pull_request_target" in done.stderr
    assert not (root / "codemode-report.json").exists()
    # the base branch's own commit checked out: it runs, and says what it did not check
    git(root, "checkout", "-q", base)
    done = run_codemode(["action", "--step", "verify"], root, {**env, "GITHUB_SHA": base})
    assert done.returncode == 0, done.stderr
    assert "::warning title=codemode::pull_request_target runs with" in done.stdout


def test_a_token_left_in_the_verify_steps_environment_is_named(
    hostile: tuple[Path, str, str], tmp_path: Path, fake_github: FakeGitHub
) -> None:
    root, base, head = hostile
    env = {**_env(tmp_path, fake_github, base, head), "GITHUB_TOKEN": TOKEN}
    env.update(INPUT_PYTHON=sys.executable, INPUT_ARGS="specs/probe.yml")
    done = run_codemode(["action", "--step", "verify"], root, env)
    assert "::warning title=codemode::GITHUB_TOKEN is set in the step" in done.stdout
    assert TOKEN not in done.stdout + done.stderr


def test_a_hostile_report_posts_an_inert_comment_and_summary(
    tmp_path: Path, fake_github: FakeGitHub
) -> None:
    """`codemode comment` in a workflow_run job: the report is the fork's, every field hostile."""
    from inert import live_parts
    from test_hostile_render import hostile_report

    path = tmp_path / "report.json"
    write_report(path, hostile_report(status="missing"), Origin(pr=7, repo="octo/shop"))
    env = {**actions_env(tmp_path, fake_github, "workflow_run", None), "GITHUB_TOKEN": TOKEN}
    done = run_codemode(["comment", "--report", str(path), "--fail-on", "none"], tmp_path, env)
    assert done.returncode == 0, done.stderr
    (comment,) = fake_github.pr_comments(7)
    assert live_parts(comment["body"]) == []
    assert live_parts((tmp_path / "step_summary.md").read_text()) == []
    for line in _commands(done.stdout + done.stderr):
        assert line.startswith(("::error file=", "::warning ", "::notice::")), line
    # merged with another shard's report, the counts line is inert in the log too
    merged = run_codemode(["merge", str(path), str(path), "--out", "m.json"], tmp_path, env)
    assert merged.returncode == 0 and _commands(merged.stdout) == []


@pytest.mark.parametrize(
    ("functions", "where"),
    [
        ([{"id": 5, "status": "drifted"}], "report.functions[0].id"),
        ([{"id": "a", "status": "@admin"}], "report.functions[0].status"),
        ([{"id": "a", "status": "ok", "cases": [{"id": "c", "status": "ok"}]}], "cases[0].status"),
        ([{"id": "a", "status": "ok", "line": "1"}], "report.functions[0].line"),
    ],
)
def test_a_report_with_wrong_types_is_one_clear_error(
    functions: list[object], where: str, tmp_path: Path, fake_github: FakeGitHub
) -> None:
    """Not an internal error (exit 3) in the renderer: the file and the field, exit 2."""
    path = tmp_path / "report.json"
    path.write_text(json.dumps({"functions": functions, GITHUB_KEY: {"pr": 7}}))
    env = {**actions_env(tmp_path, fake_github, "workflow_run", None), "GITHUB_TOKEN": TOKEN}
    done = run_codemode(["comment", "--report", str(path)], tmp_path, env)
    assert done.returncode == 2, done.stderr
    assert f"{path}: cannot read the report: " in done.stderr and where in done.stderr
    assert fake_github.requests == []
