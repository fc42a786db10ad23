"""``codemode comment``: deliver a report to GitHub (sticky comment, summary, annotations, outputs).

This is the second half of the fork-safe pattern: a ``workflow_run`` job that never checks
out the PR's code downloads the report artifact and runs ``codemode comment --report
report.json`` with a token that can write (see codemode.github.delivery).
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from codemode.config import DEFAULT_FAIL_ON

EXAMPLES = """\
examples:
  # in a workflow_run job, after downloading the report artifact
  codemode comment --report report.json
  codemode comment --report merged.json --comment-id backend --pr 42 --repo octo/shop
"""


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
        help="comma-separated verdicts that make the exit code 1 (default: "
        f"{','.join(DEFAULT_FAIL_ON)}); 'none' to always exit 0",
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from codemode.github.delivery import run_comment

    return run_comment(
        args.report,
        comment_id=args.comment_id,
        pr=args.pr,
        repo=args.repo,
        fail_on=args.fail_on,
        env=os.environ,
    )
