"""Arguments shared by the subcommands: scope, root, output, config overrides."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from codemode.config import Config, load_config, misspelt_tables, parse_fail_on
from codemode.errors import FatalError
from codemode.scope import Scope
from codemode.shard import parse_shard

__all__ = [
    "add_common_args",
    "add_jobs_arg",
    "add_scope_args",
    "config_from_args",
    "jobs_from_args",
    "parse_shard",
    "scope_from_args",
    "write_output",
]

# What each scope means to each command (check verifies specs; regen explores functions).
SCOPE_HELP = {
    "check": {
        "title": "scope (default: the spec files named, else every spec)",
        "paths": "spec files or folders to check",
        "staged": "the specs the staged change affects (the index against HEAD)",
        "base": "a pull request: the specs affected since the merge base of REF and --head",
        "worktree": "the specs the work tree's change affects (against HEAD)",
        "all": "every spec in the project",
    },
    "regen": {
        "title": "scope (default: --all)",
        "paths": "spec files (their functions), or modules and package folders (every "
        "function in them)",
        "staged": "the functions the staged change added or modified",
        "base": "the functions a pull request changed since the merge base of REF and --head",
        "worktree": "the functions the work tree changed (against HEAD)",
        "all": "every function in the source roots: a first spec for those without one "
        "(the bootstrap), generated cases refreshed for the others",
    },
}


def add_scope_args(p: argparse.ArgumentParser, command: str = "check") -> None:
    h = SCOPE_HELP[command]
    g = p.add_argument_group(h["title"])
    g.add_argument("paths", nargs="*", metavar="PATH", help=h["paths"])
    g.add_argument("--staged", action="store_true", help=h["staged"])
    g.add_argument("--base", metavar="REF", help=h["base"])
    g.add_argument("--head", metavar="REF", help="with --base: the head ref (default HEAD)")
    g.add_argument("--worktree", action="store_true", help=h["worktree"])
    g.add_argument("--all", action="store_true", help=h["all"])


def add_common_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--root", type=Path, help="the project root (default: found from the current dir)"
    )
    p.add_argument("--python", help="the project's interpreter that runs the functions")
    p.add_argument("--timeout", type=float, help="seconds per call (default 10)")
    p.add_argument("--format", choices=("text", "json"), default="text", help="output format")
    p.add_argument(
        "--color",
        choices=("auto", "always", "never"),
        default="auto",
        help="colour the text output (default auto: on a terminal, unless NO_COLOR is set)",
    )
    v = p.add_mutually_exclusive_group()
    v.add_argument("-q", "--quiet", action="store_true", help="only failures and the summary")
    v.add_argument("-v", "--verbose", action="store_true", help="every case, passed ones too")


def add_jobs_arg(p: argparse.ArgumentParser, what: str) -> None:
    """``-j/--jobs N``, the same for ``check`` and ``regen`` (``jobs`` under [tool.codemode])."""
    p.add_argument(
        "-j",
        "--jobs",
        metavar="N",
        help=f"{what} (default: the cores available, `jobs` under [tool.codemode]; 'auto' the "
        "same; 1: one worker); the report is the same whatever N",
    )


def parse_jobs(value: str) -> int:
    """``--jobs N`` (N >= 1), or ``auto``: 0, the cores available."""
    text = value.strip().lower()
    if text == "auto":
        return 0
    if not text.isdigit() or not 1 <= int(text) <= 1024:
        raise FatalError(f"--jobs {value!r}: write a number of lanes from 1 to 1024, or auto")
    return int(text)


def jobs_from_args(args: argparse.Namespace) -> int | None:
    """The ``--jobs`` given, as a config override (None: the config's ``jobs``)."""
    value = getattr(args, "jobs", None)
    return None if value is None else parse_jobs(value)


def scope_from_args(args: argparse.Namespace) -> Scope:
    chosen = [n for n in ("staged", "worktree", "all") if getattr(args, n, False)]
    if getattr(args, "base", None):
        chosen.append("range")
    if getattr(args, "head", None) and not getattr(args, "base", None):
        raise FatalError("--head needs --base (the pull request's base branch or commit)")
    if len(chosen) > 1:
        raise FatalError(f"choose one scope, not {' and '.join('--' + c for c in chosen)}")
    if chosen and args.paths:
        raise FatalError(f"spec paths cannot be combined with --{chosen[0]}")
    if chosen == ["range"]:
        return Scope("range", base=args.base, head=args.head or "HEAD")
    if chosen:
        return Scope(chosen[0])  # type: ignore[arg-type]
    if args.paths:
        return Scope("paths", paths=tuple(args.paths))
    return Scope("all")


def write_output(path: Path, data: str, option: str) -> None:
    """A file the user named (``--report-out``, ``--junit-out``): one that cannot be written is
    the user's mistake, said in one line (exit 2), not an internal error."""
    from codemode.atomic import write_atomic

    try:
        write_atomic(path, data)
    except OSError as exc:
        why = exc.strerror or type(exc).__name__
        raise FatalError(
            f"{option} {path}: cannot write it ({why}); name a file in a folder you can write to"
        ) from None


def config_from_args(args: argparse.Namespace, **extra: Any) -> Config:
    overrides: dict[str, Any] = {
        "python": getattr(args, "python", None),
        "timeout": getattr(args, "timeout", None),
        **extra,
    }
    fail_on = getattr(args, "fail_on", None)
    if fail_on is not None:
        overrides["fail_on"] = parse_fail_on(fail_on)
    config = load_config(getattr(args, "root", None), overrides)
    for warning in misspelt_tables(config.root / "pyproject.toml"):
        print(f"codemode: warning: {warning}", file=sys.stderr)
    return config
