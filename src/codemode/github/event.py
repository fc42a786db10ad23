"""The GitHub Actions runner environment: the event payload, step summary, outputs, checkout.

Reads ``GITHUB_EVENT_NAME`` / ``GITHUB_EVENT_PATH`` into an ``Event``; appends to
``$GITHUB_STEP_SUMMARY`` and ``$GITHUB_OUTPUT``; makes sure a shallow checkout holds the PR's
base (``actions/checkout`` fetches one commit by default); and, for ``commit: true`` in regen
mode, commits and pushes the regenerated specs to the PR branch.
"""

from __future__ import annotations

import json
import os
import subprocess
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from codemode.errors import FatalError

ZERO_SHA = "0" * 40
BOT_NAME = "github-actions[bot]"
BOT_EMAIL = "41898282+github-actions[bot]@users.noreply.github.com"
FETCH_DEPTHS = (50, 1000)


@dataclass(frozen=True)
class Event:
    name: str  # "pull_request", "push", "workflow_dispatch", "workflow_run", "" outside Actions
    repo: str | None = None  # owner/name of the repository the workflow runs in
    base: str | None = None  # commit to compare against
    head: str | None = None  # commit under review
    pr: int | None = None
    is_fork: bool = False  # the PR's head lives in another repository
    head_ref: str | None = None  # the PR's branch name, where `commit: true` pushes
    # workflow_run: the commit the triggering run checked, so the comment lands on the
    # PR only if that commit is still its head.
    run_head_sha: str | None = None


def read_event(env: Mapping[str, str] | None = None) -> Event:
    env = os.environ if env is None else env
    name = env.get("GITHUB_EVENT_NAME", "")
    repo = env.get("GITHUB_REPOSITORY") or None
    payload = _payload(env.get("GITHUB_EVENT_PATH"))
    if name in ("pull_request", "pull_request_target"):
        pr = payload.get("pull_request") or {}
        base, head = pr.get("base") or {}, pr.get("head") or {}
        base_repo = (base.get("repo") or {}).get("full_name") or repo
        head_repo = (head.get("repo") or {}).get("full_name")  # None: the fork was deleted
        return Event(
            name,
            repo=repo or base_repo,
            base=base.get("sha"),
            head=head.get("sha"),
            pr=parse_pr(pr.get("number") or payload.get("number")),
            is_fork=head_repo != base_repo,
            head_ref=head.get("ref"),
        )
    if name == "push":
        before, after = payload.get("before"), payload.get("after")
        # A new branch's first push has no "before" commit: base None.
        return Event(
            name,
            repo=repo,
            base=None if not before or before == ZERO_SHA else before,
            head=after or env.get("GITHUB_SHA"),
        )
    if name == "workflow_run":
        run = payload.get("workflow_run") or {}
        prs = run.get("pull_requests") or []
        # pull_requests is empty when the PR comes from a fork; the report carries it then.
        number = parse_pr(prs[0].get("number")) if prs else None
        return Event(name, repo=repo, pr=number, run_head_sha=run.get("head_sha"))
    return Event(name, repo=repo, head=env.get("GITHUB_SHA"))


def _payload(path: str | None) -> dict[str, Any]:
    if not path:
        return {}
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise FatalError(f"cannot read the event payload GITHUB_EVENT_PATH={path}: {exc}") from exc
    return data if isinstance(data, dict) else {}


def parse_pr(value: Any) -> int | None:
    """A PR number, or None. It can come from an artifact a fork's code wrote: accept
    only a plain positive integer."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if value > 0 else None
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip()) or None
    return None


# --- step summary and outputs ----------------------------------------------------------------


def append_summary(markdown: str, env: Mapping[str, str] | None = None) -> bool:
    """Append to ``$GITHUB_STEP_SUMMARY``; False outside Actions."""
    path = (os.environ if env is None else env).get("GITHUB_STEP_SUMMARY")
    if not path:
        return False
    with open(path, "a", encoding="utf-8") as f:
        f.write(markdown if markdown.endswith("\n") else markdown + "\n")
    return True


def format_outputs(values: Mapping[str, str]) -> str:
    """``name<<DELIM`` heredocs: safe for values with newlines, which ``name=value`` is not."""
    out = []
    for name, value in values.items():
        delim = f"ghadelimiter_{uuid.uuid4()}"
        if delim in value or delim in name:  # pragma: no cover - 122 random bits
            raise ValueError("output delimiter collision")
        out.append(f"{name}<<{delim}\n{value}\n{delim}\n")
    return "".join(out)


def write_outputs(values: Mapping[str, str], env: Mapping[str, str] | None = None) -> bool:
    path = (os.environ if env is None else env).get("GITHUB_OUTPUT")
    if not path:
        return False
    with open(path, "a", encoding="utf-8") as f:
        f.write(format_outputs(values))
    return True


# --- checkout --------------------------------------------------------------------------------
# These few git calls are about the runner's checkout, not the analysis (that is codemode.change.git).


def _git(
    root: Path, *args: str, env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", *args],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **env} if env else None,
    )


def _has_commit(root: Path, rev: str) -> bool:
    return _git(root, "cat-file", "-e", f"{rev}^{{commit}}").returncode == 0


def _has_merge_base(root: Path, base: str, head: str) -> bool:
    return _git(root, "merge-base", base, head).returncode == 0


def ensure_base(root: Path, base: str, head: str | None = None) -> list[str]:
    """Fetch ``base`` (and enough history for a merge base) into a shallow checkout.

    Returns notes on what was fetched; raises FatalError naming ``fetch-depth: 0`` when the
    history cannot be had.
    """
    head = head or "HEAD"

    def ready() -> bool:
        return _has_commit(root, base) and _has_merge_base(root, base, head)

    if ready():
        return []
    # Deepen both sides: a depth-1 checkout has the head but none of its parents, so the
    # merge base is out of reach until the head's history is fetched too.
    head_sha = _git(root, "rev-parse", "--verify", "--quiet", f"{head}^{{commit}}").stdout.strip()
    wanted = [base, head_sha or head]
    for depth in FETCH_DEPTHS:
        _git(root, "fetch", "--no-tags", f"--depth={depth}", "origin", *wanted)
        if ready():
            return [f"fetched {base[:12]} with --depth={depth} (shallow checkout)"]
    shallow = _git(root, "rev-parse", "--is-shallow-repository").stdout.strip() == "true"
    if shallow:
        _git(root, "fetch", "--no-tags", "--unshallow", "origin")
        if ready():
            return [f"fetched the full history to reach {base[:12]}"]
    raise FatalError(
        f"the base commit {base[:12]} (or its merge base with {head[:12]}) is not in this "
        "checkout and could not be fetched from origin; set `fetch-depth: 0` on "
        "actions/checkout, or pass the `base` input"
    )


def commit_and_push(
    root: Path, files: Iterable[str], branch: str, expect_head: str | None, message: str
) -> str:
    """Commit ``files`` on the checked-out PR head and push to ``branch``; returns the new sha.

    Refuses unless HEAD is the PR's head commit: on a pull_request event actions/checkout
    checks out a merge commit by default, and pushing that would put the base's changes on
    the PR branch.
    """
    files = [f for f in files if f]
    if not files:
        raise FatalError("nothing to commit: regen applied no spec edits")
    head = _git(root, "rev-parse", "HEAD").stdout.strip()
    if expect_head and head != expect_head:
        raise FatalError(
            f"HEAD is {head[:12]}, not the PR head {expect_head[:12]}; check out the PR branch "
            "(actions/checkout with `ref: ${{ github.event.pull_request.head.ref }}`) "
            "to use `commit: true`"
        )
    # The environment beats git config (GIT_AUTHOR_NAME over user.name): set both sides.
    bot = {
        "GIT_AUTHOR_NAME": BOT_NAME,
        "GIT_AUTHOR_EMAIL": BOT_EMAIL,
        "GIT_COMMITTER_NAME": BOT_NAME,
        "GIT_COMMITTER_EMAIL": BOT_EMAIL,
    }
    steps = (
        ("add", ["add", "--", *files]),
        ("commit", ["commit", "--no-verify", "-m", message, "--", *files]),
        ("push", ["push", "origin", f"HEAD:refs/heads/{branch}"]),
    )
    for label, args in steps:
        done = _git(root, *args, env=bot)
        if done.returncode != 0:
            detail = (done.stderr or done.stdout).strip()
            raise FatalError(f"git {label} failed: {detail}")
    return _git(root, "rev-parse", "HEAD").stdout.strip()
