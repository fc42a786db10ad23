"""The runner environment: event payloads, outputs, summary, shallow checkouts, commit: true."""

from __future__ import annotations

from pathlib import Path

import pytest
from ghfake import git, payload

from codemode.change.git import commit_and_push, ensure_base
from codemode.errors import FatalError
from codemode.github.action import BOT_EMAIL, BOT_NAME
from codemode.github.event import (
    Event,
    append_summary,
    format_outputs,
    read_event,
    write_outputs,
)

BOT = {
    "GIT_AUTHOR_NAME": BOT_NAME,
    "GIT_AUTHOR_EMAIL": BOT_EMAIL,
    "GIT_COMMITTER_NAME": BOT_NAME,
    "GIT_COMMITTER_EMAIL": BOT_EMAIL,
}


def _event(name: str, event: str, tmp_path: Path) -> Event:
    path = payload(name, tmp_path, HEAD_SHA="h" * 40, BASE_SHA="b" * 40)
    return read_event(
        {
            "GITHUB_EVENT_NAME": event,
            "GITHUB_EVENT_PATH": str(path),
            "GITHUB_REPOSITORY": "octo/shop",
        }
    )


def test_pull_request_from_the_same_repository(tmp_path: Path) -> None:
    assert _event("pull_request", "pull_request", tmp_path) == Event(
        "pull_request", repo="octo/shop", base="b" * 40, head="h" * 40, pr=7, head_ref="feature"
    )


def test_pull_request_from_a_fork(tmp_path: Path) -> None:
    event = _event("pull_request_fork", "pull_request", tmp_path)
    assert event.is_fork and event.pr == 7


def test_push_compares_before_and_after(tmp_path: Path) -> None:
    path = payload("push", tmp_path, BEFORE_SHA="1" * 40, AFTER_SHA="2" * 40)
    event = read_event({"GITHUB_EVENT_NAME": "push", "GITHUB_EVENT_PATH": str(path)})
    assert (event.base, event.head) == ("1" * 40, "2" * 40)


def test_initial_push_has_no_base(tmp_path: Path) -> None:
    path = payload("push_initial", tmp_path, AFTER_SHA="2" * 40)
    event = read_event({"GITHUB_EVENT_NAME": "push", "GITHUB_EVENT_PATH": str(path)})
    assert (event.base, event.head) == (None, "2" * 40)


def test_workflow_run_from_a_fork_has_no_pr_number(tmp_path: Path) -> None:
    event = _event("workflow_run_fork", "workflow_run", tmp_path)
    assert (event.pr, event.run_head_sha) == (None, "h" * 40)


def test_workflow_dispatch_and_no_actions() -> None:
    assert read_event({"GITHUB_EVENT_NAME": "workflow_dispatch", "GITHUB_SHA": "c" * 40}).head
    assert read_event({}) == Event("")


def test_unreadable_payload_is_a_fatal_error(tmp_path: Path) -> None:
    with pytest.raises(FatalError, match="GITHUB_EVENT_PATH"):
        read_event({"GITHUB_EVENT_NAME": "push", "GITHUB_EVENT_PATH": str(tmp_path / "nope")})


def test_outputs_are_heredocs_safe_for_newlines(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert write_outputs({"drifted": "2", "note": "a\nb"}, {"GITHUB_OUTPUT": str(out)})
    lines = out.read_text().splitlines()
    assert lines[0].startswith("drifted<<ghadelimiter_") and lines[1] == "2"
    assert lines[2] == lines[0].split("<<")[1]
    assert lines[4:6] == ["a", "b"]
    assert format_outputs({}) == ""
    assert not write_outputs({"x": "1"}, {})


def test_summary_appends(tmp_path: Path) -> None:
    path = tmp_path / "summary.md"
    env = {"GITHUB_STEP_SUMMARY": str(path)}
    append_summary("# one", env)
    append_summary("# two\n", env)
    assert path.read_text() == "# one\n# two\n"


@pytest.fixture
def origin(tmp_path: Path) -> tuple[Path, list[str]]:
    """An origin with a base branch of 5 commits and a feature branch of 2 more."""
    repo = tmp_path / "origin"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "uploadpack.allowAnySHA1InWant", "true")
    shas = []
    for i in range(5):
        (repo / "f.txt").write_text(f"{i}\n")
        git(repo, "add", "f.txt")
        git(repo, "commit", "-qm", f"c{i}")
        shas.append(git(repo, "rev-parse", "HEAD").strip())
    git(repo, "checkout", "-qb", "feature")
    for i in range(2):
        (repo / "g.txt").write_text(f"{i}\n")
        git(repo, "add", "g.txt")
        git(repo, "commit", "-qm", f"g{i}")
    shas.append(git(repo, "rev-parse", "HEAD").strip())
    return repo, shas


def test_shallow_checkout_gets_the_base_fetched(
    origin: tuple[Path, list[str]], tmp_path: Path
) -> None:
    repo, shas = origin
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--depth=1", "-b", "feature", f"file://{repo}", str(clone))
    base = shas[3]
    assert git(clone, "rev-parse", "--is-shallow-repository").strip() == "true"
    notes = ensure_base(clone, base)  # HEAD: the checkout, as the action calls it
    assert notes and "--depth=50" in notes[0]
    assert git(clone, "merge-base", base, "HEAD").strip() == base
    assert ensure_base(clone, base, shas[-1]) == []  # already there: no fetch


def test_shallow_checkout_gets_a_named_head_fetched(
    origin: tuple[Path, list[str]], tmp_path: Path
) -> None:
    repo, shas = origin
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--depth=1", "-b", "main", f"file://{repo}", str(clone))
    assert ensure_base(clone, shas[2], shas[-1])
    assert git(clone, "merge-base", shas[2], shas[-1]).strip() == shas[2]


def test_unreachable_base_names_fetch_depth(origin: tuple[Path, list[str]], tmp_path: Path) -> None:
    repo, _ = origin
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--depth=1", f"file://{repo}", str(clone))
    with pytest.raises(FatalError, match="fetch-depth: 0"):
        ensure_base(clone, "d" * 40)


def test_commit_and_push_to_the_pr_branch(origin: tuple[Path, list[str]], tmp_path: Path) -> None:
    repo, shas = origin
    git(
        repo, "checkout", "-q", "main"
    )  # a non-bare origin refuses pushes to its checked-out branch
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "-b", "feature", f"file://{repo}", str(clone))
    (clone / "g.txt").write_text("regenerated\n")
    with pytest.raises(FatalError, match="check out the PR branch"):
        commit_and_push(clone, ["g.txt"], "feature", "0" * 40, "codemode: regen", env=BOT)
    new = commit_and_push(clone, ["g.txt"], "feature", shas[-1], "codemode: regen", env=BOT)
    assert git(repo, "rev-parse", "feature").strip() == new
    assert (
        git(repo, "log", "-1", "--format=%an %s", "feature").strip()
        == "github-actions[bot] codemode: regen"
    )


def test_a_base_input_is_never_an_option_to_git_fetch(
    origin: tuple[Path, list[str]], tmp_path: Path
) -> None:
    """`base` comes from a workflow input: `--upload-pack=CMD` would run CMD (#11)."""
    repo, _ = origin
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--depth=1", "-b", "feature", f"file://{repo}", str(clone))
    planted = tmp_path / "PWNED"
    with pytest.raises(FatalError, match="fetch-depth: 0"):
        ensure_base(clone, f"--upload-pack=touch {planted};git-upload-pack")
    assert not planted.exists()
    # The attack is real: as an option, git runs it.
    import subprocess

    subprocess.run(
        ["git", "fetch", f"--upload-pack=touch {planted};git-upload-pack", "origin"],
        cwd=clone,
        capture_output=True,
    )
    assert planted.exists()
