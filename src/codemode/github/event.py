"""The GitHub Actions runner environment: the event payload, step summary and outputs.

Reads ``GITHUB_EVENT_NAME`` / ``GITHUB_EVENT_PATH`` into an ``Event``; appends to
``$GITHUB_STEP_SUMMARY`` and ``$GITHUB_OUTPUT``. The checkout's git (fetching a shallow
clone's base, pushing regenerated specs) is ``codemode.change.git``'s.
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from codemode.errors import FatalError

ZERO_SHA = "0" * 40


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
