"""``codemode check``: verify specs against the real code; never calls a model."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from codemode.cli.common import (
    add_common_args,
    add_jobs_arg,
    add_scope_args,
    config_from_args,
    jobs_from_args,
    parse_shard,
    scope_from_args,
    write_output,
)
from codemode.config import DEFAULT_FAIL_ON

EXAMPLES = """\
examples:
  codemode check                      every spec in the project
  codemode check specs/pricing.yml    one spec file
  codemode check --staged             specs affected by the staged change (the pre-commit hook)
  codemode check --base origin/main   specs affected by a pull request, and the calls
                                      whose outcome it changed (the behaviour diff)
  codemode check --format json --report-out report.json --fail-on drifted,error,stale
"""


FAIL_ON_HELP = (
    f"verdicts that fail the run (default: {','.join(DEFAULT_FAIL_ON)}; also stale, missing, "
    "orphaned, skipped, message_changed and the spec review's weakened, loosened; 'none')"
)


def register(sub: Any) -> None:
    p = sub.add_parser(
        "check",
        help="verify specs by running the real functions",
        description="Run each case against the real function and report drift. "
        "Exit 0 when clean, 1 when a verdict in --fail-on occurs, 2 on a usage error, "
        "3 on an internal error.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_scope_args(p)
    add_common_args(p)
    p.add_argument(
        "--fail-on",
        metavar="LIST",
        help=FAIL_ON_HELP,
    )
    p.add_argument(
        "--report-out", type=Path, metavar="FILE", help="also write the JSON report to FILE"
    )
    p.add_argument("--junit-out", type=Path, metavar="FILE", help="also write JUnit XML to FILE")
    p.add_argument(
        "--shard", metavar="K/N", help="check only the K-th of N shares of the functions"
    )
    add_jobs_arg(p, "verify function blocks in N lanes at once, each with a worker of its own")
    p.add_argument(
        "--no-diff",
        action="store_true",
        help="in a change scope, skip the behaviour diff (running the old and the new version "
        "of each changed function on the same inputs); `diff = false` under [tool.codemode]",
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from codemode.flows.checking import check

    scope = scope_from_args(args)
    config = config_from_args(args, jobs=jobs_from_args(args))
    if args.no_diff:
        config = config.replace(diff=False)
    report = check(config, scope, shard=parse_shard(args.shard))
    # After the check: its worker starts the sooner, and imports while this does (#36).
    from codemode.report.terminal import render, use_color

    as_json = report.to_json() if args.report_out or args.format == "json" else ""
    if args.report_out:
        write_output(args.report_out, as_json, "--report-out")
    if args.junit_out:
        from codemode.report.junit import render_junit

        write_output(args.junit_out, render_junit(report), "--junit-out")
    if args.format == "json":
        sys.stdout.write(as_json + "\n")
    else:
        sys.stdout.write(
            render(
                report,
                color=use_color(sys.stdout, args.color),
                verbose=args.verbose,
                quiet=args.quiet,
            )
        )
    return report.exit_code(config.fail_on)
