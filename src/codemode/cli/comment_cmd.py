"""``codemode comment``: deliver a report to GitHub (sticky comment, summary, annotations, outputs).

This is the second half of the fork-safe pattern: a ``workflow_run`` job that never checks
out the PR's code downloads the report artifact and runs ``codemode comment --report
report.json`` with a token that can write. ``codemode action`` delivers through the same
``deliver`` function.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from codemode.config import DEFAULT_FAIL_ON, parse_fail_on
from codemode.errors import FatalError
from codemode.github.event import append_summary, parse_pr, read_event, write_outputs
from codemode.report.annotations import escape_data, render_annotations
from codemode.report.markdown import (
    COMMENT_LIMIT,
    DEFAULT_COMMENT_ID,
    SUMMARY_LIMIT,
    render_markdown,
)
from codemode.report.model import Report

EXAMPLES = """\
examples:
  # in a workflow_run job, after downloading the report artifact
  codemode comment --report report.json
  codemode comment --report merged.json --comment-id backend --pr 42 --repo octo/shop
"""
GITHUB_KEY = "github"  # extra top-level key in report.json: where the report came from


@dataclass(frozen=True)
class Target:
    """Where the comment goes; ``pr`` None means no comment."""

    repo: str | None
    pr: int | None
    comment_id: str = DEFAULT_COMMENT_ID
    token: str = ""
    expect_head_sha: str | None = None
    skip_reason: str = ""  # why no comment is posted, shown in the log and the summary


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "comment",
        help="post or update the sticky PR comment from a report.json",
        description="Post or update the sticky PR comment from a JSON report, and write the "
        "job summary, annotations and step outputs. The token comes from GITHUB_TOKEN.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--report", required=True, type=Path, help="report.json to deliver")
    p.add_argument("--comment-id", default=None, help="marker id, to keep several comments apart")
    p.add_argument("--pr", default=None, help="pull request number (default: from the event)")
    p.add_argument("--repo", default=None, help="owner/name (default: GITHUB_REPOSITORY)")
    p.add_argument(
        "--fail-on",
        default=None,
        help="comma-separated verdicts that make the exit code 1 (default: drifted,error); "
        "'none' to always exit 0",
    )
    p.set_defaults(run=run)


def read_report(path: Path) -> tuple[Report, dict[str, Any]]:
    """The report and its ``github`` block (PR number, repo, head sha when it was written)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        report = Report.from_dict(data)
    except (OSError, ValueError, TypeError, KeyError) as exc:
        raise FatalError(f"{path}: cannot read the report: {exc}") from exc
    ctx = data.get(GITHUB_KEY)
    return report, ctx if isinstance(ctx, dict) else {}


def write_report(path: Path, report: Report, ctx: Mapping[str, Any]) -> None:
    from codemode.atomic import write_atomic

    write_atomic(path, report.to_json(extra={GITHUB_KEY: dict(ctx)} if ctx else None) + "\n")


def run(args: argparse.Namespace) -> int:
    env = os.environ
    report, ctx = read_report(args.report)
    event = read_event(env)
    pr = parse_pr(args.pr) if args.pr is not None else None
    if args.pr is not None and pr is None:
        raise FatalError(f"--pr must be a pull request number, got {args.pr!r}")
    # The report's PR number is a fallback only: on a fork it was written by the PR's code.
    pr = pr or event.pr or parse_pr(ctx.get("pr"))
    comment_id = args.comment_id or ctx.get("comment_id") or DEFAULT_COMMENT_ID
    target = Target(
        repo=args.repo or env.get("GITHUB_REPOSITORY") or ctx.get("repo"),
        pr=pr,
        comment_id=str(comment_id),
        token=env.get("GITHUB_TOKEN", ""),
        expect_head_sha=event.run_head_sha,
        skip_reason="" if pr else "no pull request number (--pr, the event, or the report)",
    )
    fail_on = parse_fail_on(args.fail_on) if args.fail_on is not None else DEFAULT_FAIL_ON
    return deliver(report, target, fail_on, report_path=args.report, env=env)


def deliver(
    report: Report,
    target: Target,
    fail_on: tuple[str, ...],
    *,
    report_path: Path | None,
    env: Mapping[str, str],
) -> int:
    """Annotations, job summary, comment, outputs, in that order, then the exit code.

    The summary is written before GitHub is called, so an API failure cannot lose it; a
    failed comment is a ``::warning::`` and a line in the summary, never an exit code.
    """
    sys.stdout.write(render_annotations(report))
    summary = render_markdown(
        report,
        comment_id=target.comment_id,
        limit=SUMMARY_LIMIT,
        overflow=f"see the report artifact ({report_path.name})" if report_path else "",
        in_bytes=True,  # GitHub counts the summary's 1 MiB in bytes
    )
    append_summary(summary, env)
    url = ""
    if target.pr and target.repo and not target.skip_reason:
        from codemode.github.api import upsert_comment  # PyGithub only when a comment is posted

        body = render_markdown(report, comment_id=target.comment_id, limit=COMMENT_LIMIT)
        result = upsert_comment(
            target.repo,
            target.pr,
            body,
            comment_id=target.comment_id,
            token=target.token,
            expect_head_sha=target.expect_head_sha,
            env=env,
        )
        if result.ok:
            url = result.url or ""
            print(f"codemode: comment {result.action}: {url}", file=sys.stderr)
        else:
            _warn(f"PR comment not posted: {result.message}", env)
    elif target.skip_reason:
        print(f"codemode: no PR comment: {target.skip_reason}", file=sys.stderr)
        if target.pr:  # a PR that gets no comment (a fork, comment: false): say so
            append_summary(f"> [!NOTE]\n> codemode: no PR comment: {target.skip_reason}\n", env)
    outputs = {**{k: str(v) for k, v in report.counts().items()}, "comment-url": url}
    outputs["report-path"] = str(report_path) if report_path else ""
    write_outputs(outputs, env)
    return 1 if report.failing(fail_on) else 0


def _warn(message: str, env: Mapping[str, str]) -> None:
    print(f"::warning title=codemode::{escape_data(message)}")
    append_summary(f"> [!WARNING]\n> codemode: {message}\n", env)
