"""``codemode diff``: the functions a change touched or impacts, and the specs that cover them."""

from __future__ import annotations

import argparse
import gc
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from codemode.change.listing import json_output, text_document
from codemode.config import Config, load_config
from codemode.errors import FatalError
from codemode.scope import Scope

EXAMPLES = """\
examples:
  codemode diff                       the work tree against HEAD
  codemode diff --staged              the staged change (what a pre-commit hook sees)
  codemode diff --base origin/main    a pull request: merge base of origin/main and HEAD
  codemode diff --all --format json   every function, with its fingerprint
"""


def register(sub: Any) -> None:
    p = sub.add_parser(
        "diff",
        help="list the functions a change touched or impacts",
        description="List the functions that a change added, modified, removed or renamed, "
        "the functions it may impact through their callees and constants, and their specs.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    g = p.add_mutually_exclusive_group()
    g.add_argument("--staged", action="store_true", help="the index against HEAD")
    g.add_argument("--base", metavar="REF", help="the merge base of REF and --head, against --head")
    g.add_argument("--worktree", action="store_true", help="the work tree against HEAD (default)")
    g.add_argument("--all", action="store_true", help="every function in the work tree")
    p.add_argument("--head", metavar="REF", help="with --base: the head ref (default HEAD)")
    p.add_argument("--format", choices=("text", "json"), default="text", help="output format")
    p.add_argument(
        "--root", type=Path, help="the project root (default: found from the current dir)"
    )
    p.add_argument(
        "--tests",
        action="store_true",
        help="list the impacted test functions too, apart (default: left out)",
    )
    p.add_argument("--depth", type=int, metavar="N", help="impact depth (default: impact_depth, 3)")
    p.set_defaults(run=run)


def scope_of(args: argparse.Namespace) -> Scope:
    if args.head and not args.base:
        raise FatalError("--head needs --base (the pull request's base branch or commit)")
    if args.base:
        return Scope("range", base=args.base, head=args.head or "HEAD")
    if args.staged:
        return Scope("staged")
    if args.all:
        return Scope("all")
    return Scope("worktree")


def spec_lookup(config: Config) -> Callable[[str], list[str]]:
    """function id -> spec files; the spec stack (yaml, pydantic) loads only if specs exist."""
    try:
        from codemode.specs.discover import find_spec_files

        if not find_spec_files(config):
            return _no_specs
        from codemode.specs.index import build_index
    except ImportError:  # the spec index is not built yet
        return _no_specs
    return build_index(config).files_for


def _no_specs(_id: str) -> list[str]:
    return []


def run(args: argparse.Namespace) -> int:
    # The analysis allocates hundreds of thousands of short-lived, acyclic objects (ASTs,
    # chunks, strings); the cyclic collector ran ~150 times and took ~7% of a cold run on
    # the benchmark repository for nothing. Off for the command, back on after it.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _run(args)
    finally:
        if collecting:
            gc.enable()


def _run(args: argparse.Namespace) -> int:
    overrides = {"impact_depth": args.depth} if args.depth is not None else {}
    config = load_config(args.root, overrides)
    scope = scope_of(args)
    if args.format == "json":

        def specs_or_none() -> Callable[[str], list[str]] | None:
            found = spec_lookup(config)
            return None if found is _no_specs else found

        document, problems = json_output(config, scope, specs_or_none, args.tests)
        sys.stdout.write(document)
    else:
        from codemode.background import in_background

        # the spec files are found (a walk of the project) while git answers the analysis
        specs = in_background(lambda: spec_lookup(config))
        text, problems = text_document(config, scope, specs, args.tests)
        sys.stdout.write(text)
    for problem in problems:
        print(f"codemode: {problem}", file=sys.stderr)
    return 0
