"""codemode.github.api against the loopback server: create, update, paginate, degrade to warnings."""

from __future__ import annotations

import time

from ghfake import HEAD_SHA, REPO, FakeGitHub

from codemode.github.api import CommentResult, upsert_comment
from codemode.report.markdown import marker

FAST = {"CODEMODE_GITHUB_BACKOFF": "0.01"}


def _post(fake: FakeGitHub, body: str, expect_head_sha: str | None = None) -> CommentResult:
    return upsert_comment(
        REPO,
        7,
        body,
        comment_id="main",
        token="test-token",
        base_url=fake.url,
        env=FAST,
        expect_head_sha=expect_head_sha,
    )


def test_first_call_creates_second_updates_the_same_comment(fake_github: FakeGitHub) -> None:
    for i in range(3):  # other people's comments, spread over two pages
        fake_github.add_comment(7, f"looks good {i}")
    first = _post(fake_github, "first body")
    assert (first.ok, first.action) == (True, "created")
    second = _post(fake_github, "second body")
    assert (second.ok, second.action, second.url) == (True, "updated", first.url)
    ours = [c for c in fake_github.pr_comments(7) if marker("main") in c["body"]]
    assert len(ours) == 1
    assert ours[0]["body"] == f"{marker('main')}\nsecond body"
    assert _post(fake_github, "second body").action == "unchanged"


def test_comment_ids_keep_separate_comments(fake_github: FakeGitHub) -> None:
    _post(fake_github, "main")
    other = upsert_comment(
        REPO, 7, "docs", comment_id="docs", token="test-token", base_url=fake_github.url, env=FAST
    )
    assert other.action == "created"
    assert len(fake_github.pr_comments(7)) == 2


def test_server_error_is_retried(fake_github: FakeGitHub) -> None:
    fake_github.fail("GET", r"/comments$", 500, times=2)
    result = _post(fake_github, "body")
    assert (result.ok, result.action) == (True, "created")
    gets = [p for m, p in fake_github.requests if m == "GET" and "/comments" in p]
    assert len(gets) == 3


def test_repeated_server_errors_become_a_failed_result(fake_github: FakeGitHub) -> None:
    fake_github.fail("GET", r"/pulls/7$", 503, times=10)
    start = time.monotonic()
    result = _post(fake_github, "body")
    assert (result.ok, result.action) == (False, "failed")
    assert "HTTP 503" in result.message
    assert time.monotonic() - start < 10
    assert fake_github.pr_comments(7) == []


def test_forbidden_is_not_retried_and_explains(fake_github: FakeGitHub) -> None:
    fake_github.fail("POST", r"/comments$", 403, times=5)
    result = _post(fake_github, "body")
    assert (result.ok, result.action) == (False, "failed")
    assert "HTTP 403" in result.message and "workflow_run" in result.message
    assert [m for m, _ in fake_github.requests].count("POST") == 1


def test_missing_pull_request_is_a_failed_result(fake_github: FakeGitHub) -> None:
    result = upsert_comment(
        REPO, 99, "b", comment_id="x", token="test-token", base_url=fake_github.url, env=FAST
    )
    assert not result.ok and "HTTP 404" in result.message


def test_head_mismatch_refuses_to_comment(fake_github: FakeGitHub) -> None:
    result = _post(fake_github, "body", expect_head_sha="c" * 40)
    assert (result.ok, result.action) == (False, "refused")
    assert fake_github.pr_comments(7) == []
    assert _post(fake_github, "body", expect_head_sha=HEAD_SHA).action == "created"


def test_no_token_is_refused_without_a_request(fake_github: FakeGitHub) -> None:
    result = upsert_comment(REPO, 7, "b", comment_id="x", token="", base_url=fake_github.url)
    assert result.action == "refused" and fake_github.requests == []


# --- the sticky comment is found by marker AND author (issue #11) ------------------------------


def test_a_planted_marker_comment_from_another_author_is_never_edited(
    fake_github: FakeGitHub,
) -> None:
    planted = fake_github.add_comment(7, f"{marker('main')}\nlooks official", user="mallory")
    first = _post(fake_github, "first body")
    assert (first.ok, first.action) == (True, "created")
    second = _post(fake_github, "second body")
    assert (second.action, second.url) == ("updated", first.url)
    assert fake_github.comments[planted]["body"] == f"{marker('main')}\nlooks official"
    assert [cid for cid, _ in fake_github.edits] == [int(first.url.rsplit("-", 1)[1])]
    assert ("GET", "/user") in fake_github.requests  # asked who the token is


def test_a_personal_token_finds_its_own_comment_by_login(fake_github: FakeGitHub) -> None:
    """GET /user answers for a personal token: its login, not the Actions bot, is the author."""
    bot_comment = _post(fake_github, "from the workflow token")

    def post(body: str) -> CommentResult:
        return upsert_comment(
            REPO, 7, body, comment_id="main", token="pat-token", base_url=fake_github.url, env=FAST
        )

    mine = post("from a personal token")
    assert mine.action == "created" and mine.url != bot_comment.url
    assert post("again").url == mine.url
    assert fake_github.edits == [(int(mine.url.rsplit("-", 1)[1]), "octo-bot")]


def test_the_author_can_be_named_for_another_apps_token(fake_github: FakeGitHub) -> None:
    planted = fake_github.add_comment(7, f"{marker('main')}\nold", user="my-app[bot]")
    result = upsert_comment(
        REPO,
        7,
        "new",
        comment_id="main",
        token="test-token",
        base_url=fake_github.url,
        env={**FAST, "CODEMODE_COMMENT_AUTHOR": "my-app[bot]"},
    )
    assert (result.action, fake_github.edits) == ("updated", [(planted, "github-actions[bot]")])
