"""``codemode diff``: the functions a change touched or impacts, and the specs that cover them."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from codemode.config import Config, load_config
from codemode.errors import FatalError
from codemode.scope import Scope

try:  # the json package's C string encoder, without importing the json package
    from _json import encode_basestring_ascii as _encode_str
except ImportError:  # pragma: no cover - an interpreter without the C accelerator
    from json.encoder import py_encode_basestring_ascii as _encode_str

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
            return lambda _id: []
        from codemode.specs.index import build_index
    except ImportError:  # the spec index is not built yet
        return lambda _id: []
    return build_index(config).files_for


def run(args: argparse.Namespace) -> int:
    from codemode.diff import analyze

    overrides = {"impact_depth": args.depth} if args.depth is not None else {}
    config = load_config(args.root, overrides)
    result = analyze(config, scope_of(args))
    specs_for = spec_lookup(config)
    rows = [
        {
            "id": f.id,
            "path": f.path,
            "status": f.status,
            "renamed_from": f.renamed_from,
            "impacted_by": list(f.impacted_by),
            "via": list(f.via),
            "lineno": f.lineno,
            "end_lineno": f.end_lineno,
            "changed_lines": list(f.changed_lines),
            "fingerprint": f.fingerprint,
            "specs": specs_for(f.id),
        }
        for f in result.functions
    ]
    if args.format == "json":
        # one function per line: readable, diffable, and far cheaper than indent=2
        lines = ",\n".join(f"  {_row_json(row)}" for row in rows)
        renames = ", ".join(f"{_str(k)}: {_str(v)}" for k, v in result.renames.items())
        sys.stdout.write(
            '{"functions": [\n' + lines + ("\n" if rows else "") + "],\n"
            f' "renames": {{{renames}}},\n'
            f' "problems": {_strs(result.problems)}}}\n'
        )
    else:
        _print_text(rows)
    for problem in result.problems:
        print(f"codemode: {problem}", file=sys.stderr)
    return 0


def _str(value: str | None) -> str:
    """``json.dumps`` of a str or None. The C encoder directly: ``json.dumps`` builds an
    encoder per call, a third of a cached run's output time on thousands of rows."""
    return "null" if value is None else _encode_str(value)


def _int(value: int | None) -> str:
    return "null" if value is None else int.__repr__(value)


def _strs(values: Iterable[str]) -> str:
    return "[" + ", ".join(map(_str, values)) + "]"


def _row_json(r: dict[str, Any]) -> str:
    """``json.dumps(r)`` of one row (same keys, order and spelling; a test holds them equal)."""
    return (
        f'{{"id": {_str(r["id"])}, "path": {_str(r["path"])}, "status": {_str(r["status"])}, '
        f'"renamed_from": {_str(r["renamed_from"])}, "impacted_by": {_strs(r["impacted_by"])}, '
        f'"via": {_strs(r["via"])}, "lineno": {_int(r["lineno"])}, '
        f'"end_lineno": {_int(r["end_lineno"])}, '
        f'"changed_lines": [{", ".join(map(_int, r["changed_lines"]))}], '
        f'"fingerprint": {_str(r["fingerprint"])}, "specs": {_strs(r["specs"])}}}'
    )


def _print_text(rows: list[dict[str, Any]]) -> None:
    if not rows:
        print("no function changed")
        return
    width = max(len(r["id"]) for r in rows)
    for r in rows:
        where = r["path"] + (f":{r['lineno']}" if r["lineno"] else "")
        extra = ""
        if r["renamed_from"]:
            extra = f"  (was {r['renamed_from']})"
        elif r["via"]:
            extra = "  via " + " -> ".join(r["via"])
        specs = "  specs: " + ", ".join(r["specs"]) if r["specs"] else ""
        print(f"{r['status']:<9} {r['id']:<{width}}  {where}{extra}{specs}")
