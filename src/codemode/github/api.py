"""The only module that talks to the GitHub REST API (through PyGithub): the sticky PR comment.

Every failure here becomes a ``CommentResult`` with ``ok=False`` and a message, never an
exception: a read-only token on a fork (403), a deleted PR (404) or an outage (5xx after
retries) must not lose the report, the job summary or the exit code that follows the verdicts.
PyGithub is imported inside the functions so that ``codemode check`` never pays for it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from codemode.report.markdown import marker

DEFAULT_API_URL = "https://api.github.com"
# Who writes with the workflow's GITHUB_TOKEN: an installation token, which GET /user refuses.
ACTIONS_BOT = "github-actions[bot]"
# For another GitHub App's token (whose login GET /user cannot tell either): "<app-slug>[bot]".
AUTHOR_ENV = "CODEMODE_COMMENT_AUTHOR"
# Server errors worth retrying; 403/404 are answers, not outages.
RETRY_STATUSES = (500, 502, 503, 504)


@dataclass(frozen=True)
class CommentResult:
    ok: bool
    action: str  # "created" | "updated" | "unchanged" | "failed" | "refused"
    url: str | None = None
    message: str = ""


def api_url(env: Mapping[str, str] | None = None) -> str:
    """``GITHUB_API_URL`` (set by the runner, e.g. ``https://ghe.example/api/v3`` on GHES)."""
    env = os.environ if env is None else env
    return (env.get("GITHUB_API_URL") or DEFAULT_API_URL).rstrip("/")


def _client(token: str, base_url: str, backoff: float) -> Any:
    from github import Auth, Github

    return Github(
        base_url=base_url,
        auth=Auth.Token(token),
        retry=_retry(backoff),
        timeout=30,
        lazy=True,
        per_page=100,
        # PyGithub spaces requests (0.25 s, 1 s per write) for bulk scripts; a run makes a
        # handful of requests and one write, so the spacing would only slow every job down.
        seconds_between_requests=None,
        seconds_between_writes=None,
    )


def _retry(backoff: float) -> Any:
    from urllib3.util.retry import Retry

    return Retry(
        total=3,
        backoff_factor=backoff,
        status_forcelist=RETRY_STATUSES,
        # POST is not retried: a 5xx after the server stored the comment would post it twice.
        allowed_methods=frozenset({"GET", "PATCH"}),
        # Hand the last 5xx back to PyGithub so it raises GithubException (caught below)
        # instead of urllib3's MaxRetryError.
        raise_on_status=False,
        respect_retry_after_header=True,
    )


def _backoff(env: Mapping[str, str]) -> float:
    # Tests shorten the waits between retries; a real outage deserves real backoff.
    try:
        return float(env.get("CODEMODE_GITHUB_BACKOFF", "1.0"))
    except ValueError:
        return 1.0


def upsert_comment(
    repo: str,
    pr: int,
    body: str,
    *,
    comment_id: str,
    token: str,
    base_url: str | None = None,
    expect_head_sha: str | None = None,
    env: Mapping[str, str] | None = None,
) -> CommentResult:
    """Create the sticky comment on PR ``pr`` of ``repo``, or update the one holding our marker.

    Only a comment that holds the marker AND was written by the token's own identity is ours:
    anyone can write the marker into a comment of their own, and the bot must never edit it.

    ``expect_head_sha``: in a ``workflow_run`` job the PR number comes from an artifact that
    the PR's own code could have written; the comment is only posted when the PR's head is
    the commit the triggering run checked.
    """
    env = os.environ if env is None else env
    if not token:
        return CommentResult(False, "refused", message="no GitHub token; set `github-token`")
    try:
        from github import GithubException
    except ImportError:  # pragma: no cover - depends on the install
        hint = "PyGithub is not installed: pip install 'codemode-action[github]'"
        return CommentResult(False, "failed", message=hint)
    mark = marker(comment_id)
    if mark not in body:
        body = f"{mark}\n{body}"
    try:
        gh = _client(token, base_url or api_url(env), _backoff(env))
        pull = gh.get_repo(repo).get_pull(pr)
        if expect_head_sha and pull.head.sha != expect_head_sha:
            return CommentResult(
                False,
                "refused",
                message=f"PR #{pr} head is {pull.head.sha}, not the checked commit "
                f"{expect_head_sha}; not commenting",
            )
        me = _own_login(gh, env)
        for comment in pull.get_issue_comments():
            author = comment.user.login if comment.user else ""
            if mark in (comment.body or "") and author.lower() == me.lower():
                if comment.body == body:
                    return CommentResult(True, "unchanged", comment.html_url)
                comment.edit(body)
                return CommentResult(True, "updated", comment.html_url)
        created = pull.create_issue_comment(body)
        return CommentResult(True, "created", created.html_url)
    except GithubException as exc:
        return CommentResult(False, "failed", message=_describe(exc.status, exc.data))
    except OSError as exc:  # requests' ConnectionError, Timeout... are OSErrors
        return CommentResult(False, "failed", message=f"GitHub API unreachable: {exc}")


def _own_login(gh: Any, env: Mapping[str, str]) -> str:
    """The login the token writes as: GET /user, else (an installation token) the bot's."""
    from github import GithubException

    if env.get(AUTHOR_ENV):
        return env[AUTHOR_ENV]
    try:
        return str(gh.get_user().login)
    except GithubException as exc:
        if exc.status in (403, 404):  # "Resource not accessible by integration"
            return ACTIONS_BOT
        raise


def _describe(status: int, data: Any) -> str:
    detail = data.get("message", "") if isinstance(data, dict) else str(data or "")
    hint = {
        403: "the token cannot write comments (a fork's read-only token?); "
        "use the workflow_run pattern or grant `pull-requests: write`",
        404: "repository or pull request not found, or the token cannot see it",
    }.get(status, "GitHub API error after retries" if status >= 500 else "GitHub API error")
    return f"HTTP {status}: {hint}" + (f" ({detail})" if detail else "")
