"""``codemode diff``: the functions a change touched or impacts, and the specs that cover them."""

from __future__ import annotations

import argparse
import gc
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from codemode.background import in_background
from codemode.config import Config, load_config
from codemode.errors import FatalError
from codemode.scope import Scope

if TYPE_CHECKING:
    from codemode.change.cache import PinnedRange

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
    # the spec files are found (a walk of the project) while git answers the analysis
    specs = in_background(lambda: spec_lookup(config))
    if args.format == "json":
        ids, heads, problems, renames = json_rows(config, scope)
        specs_for = specs()
        if specs_for is _no_specs:
            lines = ",\n".join(f'  {head}, "specs": []}}' for head in heads)
        else:
            lines = ",\n".join(
                f'  {head}, "specs": {_strs(specs_for(i))}}}' for i, head in zip(ids, heads)
            )
        # one function per line: readable, diffable, and far cheaper than indent=2
        renamed = ", ".join(f"{_str(k)}: {_str(v)}" for k, v in renames.items())
        sys.stdout.write(
            '{"functions": [\n' + lines + ("\n" if heads else "") + "],\n"
            f' "renames": {{{renamed}}},\n'
            f' "problems": {_strs(problems)}}}\n'
        )
    else:
        functions, problems, renames = analysis(config, scope)
        specs_for = specs()
        _print_text([row(f, specs_for(f[0])) for f in functions])
    for problem in problems:
        print(f"codemode: {problem}", file=sys.stderr)
    return 0


def analysis(
    config: Config, scope: Scope, pinned: PinnedRange | None = None
) -> tuple[Sequence[Sequence[Any]], Sequence[str], Mapping[str, str]]:
    """(functions, problems, renames); functions as ``ChangedFunction`` or, for a cached
    range, plain tuples of its fields: the cache hit (one git run, one file read) needs
    neither ``codemode.change.diff`` nor ``codemode.change.git``."""
    from codemode.change.cache import pin_range

    pinned = pinned or pin_range(config, scope)
    cached = pinned.result() if pinned is not None else None
    if cached is not None:
        functions, problems, renames, _changed_files = cached
        return functions, problems, renames
    from codemode.change.diff import analyze

    result = analyze(config, scope, pinned=pinned)
    return result.functions, result.problems, result.renames


def json_rows(
    config: Config, scope: Scope
) -> tuple[Sequence[str], Sequence[str], Sequence[str], Mapping[str, str]]:
    """(ids, each function's JSON row up to its specs, problems, renames). For a range, the
    rows are kept in the cache next to the result they render (the specs are not: they are
    looked up on every run), so a repeat renders nothing."""
    from codemode.change.cache import pin_range

    pinned = pin_range(config, scope)
    key = f"{pinned.key}-json" if pinned is not None else ""
    if pinned is not None:
        hit = pinned.cache.result(key)
        if hit is not None:
            return cast(tuple[Sequence[str], Sequence[str], Sequence[str], Mapping[str, str]], hit)
    functions, problems, renames = analysis(config, scope, pinned)
    value = (
        tuple(f[0] for f in functions),
        tuple(map(_row_head, functions)),
        tuple(problems),
        dict(renames),
    )
    if pinned is not None:
        pinned.cache.put_result(key, value)
    return value


def row(f: Sequence[Any], specs: list[str]) -> dict[str, Any]:
    """One function (a ``ChangedFunction``, or its fields in order) as ``--format json``
    shows it."""
    return {
        "id": f[0],
        "path": f[1],
        "status": f[2],
        "renamed_from": f[3],
        "impacted_by": list(f[4]),
        "via": list(f[5]),
        "lineno": f[6],
        "end_lineno": f[7],
        "changed_lines": list(f[8]),
        "fingerprint": f[9],
        "specs": specs,
    }


def _row_json(f: Sequence[Any], specs: list[str]) -> str:
    """``json.dumps(row(f, specs))``, written directly (a test holds the two equal)."""
    return f'{_row_head(f)}, "specs": {_strs(specs)}}}'


def _row_head(f: Sequence[Any]) -> str:
    """A function's JSON row up to (not including) its ``, "specs": [...]}``."""
    enc = _encode_str
    fid, path, status, renamed_from, impacted_by, via, lineno, end, lines, fp = f
    return (
        f'{{"id": {enc(fid)}, "path": {enc(path)}, "status": {enc(status)}, '
        f'"renamed_from": {"null" if renamed_from is None else enc(renamed_from)}, '
        f'"impacted_by": [{", ".join(map(enc, impacted_by))}], '
        f'"via": [{", ".join(map(enc, via))}], '
        f'"lineno": {"null" if lineno is None else int.__repr__(lineno)}, '
        f'"end_lineno": {"null" if end is None else int.__repr__(end)}, '
        f'"changed_lines": [{", ".join(map(int.__repr__, lines))}], '
        f'"fingerprint": {"null" if fp is None else enc(fp)}'
    )


def _str(value: str | None) -> str:
    """``json.dumps`` of a str or None. The C encoder directly: ``json.dumps`` builds an
    encoder per call, a third of a cached run's output time on thousands of rows."""
    return "null" if value is None else _encode_str(value)


def _strs(values: Iterable[str]) -> str:
    return "[" + ", ".join(map(_str, values)) + "]"


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
