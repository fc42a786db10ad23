"""``codemode merge``: combine the JSON reports of sharded jobs into one report."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

EXAMPLES = """\
examples:
  codemode merge reports/report-*.json --out merged.json
  codemode comment --report merged.json
"""


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "merge",
        help="merge the JSON reports of --shard K/N jobs into one",
        description="Merge the JSON reports of sharded jobs (codemode check --shard K/N) into "
        "one report, for one PR comment.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("reports", nargs="+", type=Path, metavar="REPORT", help="report JSON files")
    p.add_argument("--out", required=True, type=Path, help="where to write the merged report")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from codemode.github.delivery import merge_files
    from codemode.logsafe import log_safe

    merged = merge_files(args.reports, args.out)
    counts = ", ".join(f"{n} {v}" for v, n in merged.counts().items() if n)
    n = len(args.reports)
    # the verdict names come from the shards' reports: data, for the job log
    print(log_safe(f"codemode: merged {n} report(s) into {args.out}: {counts or 'no functions'}"))
    return 0
