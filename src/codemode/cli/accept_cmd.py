"""``codemode accept ID[CASE]... | ID... | --all``: take what the code does now as the spec.

``ID[CASE]`` re-runs a named drifted case and takes its observed output; a bare function id
accepts all of that function's drifted cases and writes its behaviour-diff witnesses as new
cases (#18); ``--all`` does so for every function the change drifted or changed.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from codemode.cli.common import add_common_args, config_from_args
from codemode.errors import FatalError
from codemode.scope import Scope

EXAMPLES = """\
examples:
  codemode accept 'shop.pricing.to_cents[rounding_half_up]'
  codemode accept 'shop.cart.top_skus[ties_by_name]' 'shop.text.slugify[accents]' --dry-run
  codemode accept shop.loyalty.tier --staged        its drifted cases and behaviour changes
  codemode accept --all --base origin/main          everything a pull request changed
"""


def register(sub: Any) -> None:
    p = sub.add_parser(
        "accept",
        help="take the observed outputs of drifted cases, and behaviour changes, as the spec",
        description="Run the named cases again and, for those that drifted, write the observed "
        "output (or exception) as the new expectation. A function id (no [CASE]) accepts all "
        "its drifted cases and records each behaviour change the diff finds (a call whose "
        "outcome the change altered) as a new case with its new outcome. Other cases are "
        "never touched.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "refs", nargs="*", metavar="ID[CASE] | ID", help="a case, or a function id (all of it)"
    )
    p.add_argument(
        "--all", action="store_true", help="every function the change drifted or changed"
    )
    g = p.add_argument_group("the change a function id or --all refers to (default --worktree)")
    g.add_argument("--staged", action="store_true", help="the staged change (index vs HEAD)")
    g.add_argument("--worktree", action="store_true", help="the work tree against HEAD")
    g.add_argument("--base", metavar="REF", help="a pull request: since the merge base of REF")
    g.add_argument("--head", metavar="REF", help="with --base: the head ref (default HEAD)")
    p.add_argument("--dry-run", action="store_true", help="show the edits as a diff, write nothing")
    add_common_args(p)
    p.set_defaults(run=run)


def _scope(args: argparse.Namespace) -> Scope:
    chosen = [n for n in ("staged", "worktree") if getattr(args, n)] + (
        ["base"] if args.base else []
    )
    if len(chosen) > 1:
        raise FatalError(f"choose one scope, not {' and '.join('--' + c for c in chosen)}")
    if args.head and not args.base:
        raise FatalError("--head needs --base (the pull request's base branch or commit)")
    if args.base:
        return Scope("range", base=args.base, head=args.head or "HEAD")
    return Scope("staged") if args.staged else Scope("worktree")


def run(args: argparse.Namespace) -> int:
    if not args.refs and not args.all:
        raise FatalError("name what to accept: ID[CASE], a function ID, or --all")
    config = config_from_args(args)
    if args.all or any("[" not in r for r in args.refs):
        from codemode.behaviour.witness_cases import run_accept_functions

        report = run_accept_functions(
            config, args.refs, scope=_scope(args), accept_all=args.all, dry_run=args.dry_run
        )
    else:
        from codemode.explore.writing.accept import run_accept

        report = run_accept(config, args.refs, dry_run=args.dry_run)
    if args.format == "json":
        sys.stdout.write(report.to_json() + "\n")
    else:
        from codemode.report.inert import inert_report

        report = inert_report(report)
        for e in report.edits:
            sys.stdout.write(e.diff)
        for f in report.functions:
            sys.stdout.write(f"{f.id}: {f.message}\n")
        for n in report.notes:
            sys.stdout.write(f"note: {n}\n")
    # A named case that could not be accepted (it errs, or an evaluator fails) leaves its
    # function drifted or in error; a case that already passes is nothing to do.
    return report.exit_code(("drifted", "error"))
