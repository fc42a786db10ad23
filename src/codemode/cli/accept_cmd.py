"""``codemode accept ID[CASE]...``: re-run named drifted cases and take what they return now."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from codemode.cli.common import add_common_args, config_from_args

EXAMPLES = """\
examples:
  codemode accept 'shop.pricing.to_cents[rounding_half_up]'
  codemode accept 'shop.cart.top_skus[ties_by_name]' 'shop.text.slugify[accents]' --dry-run
"""


def register(sub: Any) -> None:
    p = sub.add_parser(
        "accept",
        help="take the observed outputs of named drifted cases as their new expectations",
        description="Run the named cases again and, for those that drifted, write the observed "
        "output (or exception) as the new expectation. Other cases are never touched.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("refs", nargs="+", metavar="ID[CASE]", help="function id and case id")
    p.add_argument("--dry-run", action="store_true", help="show the edits as a diff, write nothing")
    add_common_args(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from codemode.explore.writing.accept import run_accept

    config = config_from_args(args)
    report = run_accept(config, args.refs, dry_run=args.dry_run)
    if args.format == "json":
        sys.stdout.write(report.to_json() + "\n")
    else:
        for e in report.edits:
            sys.stdout.write(e.diff)
        for f in report.functions:
            sys.stdout.write(f"{f.id}: {f.message}\n")
        for n in report.notes:
            sys.stdout.write(f"note: {n}\n")
    # A named case that could not be accepted (it errs, or an evaluator fails) leaves its
    # function drifted or in error; a case that already passes is nothing to do.
    return report.exit_code(("drifted", "error"))
