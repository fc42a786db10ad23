"""``codemode hook-regen``: the ``codemode-regen`` pre-commit hook.

It runs ``codemode regen --staged`` and then behaves like a formatter: when the run wrote or
deleted files it fails with a message that says to review and stage them, so the commit never
goes through with specs that nobody looked at. pre-commit would notice modified files by itself,
but the same command run by hand (or by another hook runner) must give the same verdict.

What "wrote files" means is decided from git's own view of the work tree (``git status`` plus a
hash of each dirty file), before and after, so it does not depend on what regen reports.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from codemode.errors import FatalError

MODIFIED_MESSAGE = "files were modified by this hook; review and stage them"

Snapshot = dict[str, str]


def register(sub: Any) -> None:
    p = sub.add_parser(
        "hook-regen",
        help="the codemode-regen pre-commit hook: regen --staged, fail when files were written",
        description="Run `codemode regen --staged`, then exit 1 when it wrote files "
        "(as formatters do), so the new specs are reviewed and staged before the commit.",
    )
    p.add_argument("regen_args", nargs=argparse.REMAINDER, help="passed on to `codemode regen`")
    p.set_defaults(run=run)


def _toplevel() -> Path:
    from codemode.change import git

    try:
        return git.repo_root(Path.cwd())
    except FatalError:
        return Path.cwd()


def snapshot(root: Path) -> Snapshot:
    """Every path git sees as changed or untracked, with a hash of its current content.

    Hashing matters: a spec that was already dirty before the hook and is rewritten by it keeps
    the same status letter, and must still count as modified.
    """
    out: Snapshot = {}
    from codemode.change import git

    raw = git.run(root, "status", "--porcelain=v1", "-z", "--untracked-files=all")
    entries = raw.split(b"\0")
    i = 0
    while i < len(entries):
        entry = entries[i].decode("utf-8", "surrogateescape")
        i += 1
        if len(entry) < 4:
            continue
        status, path = entry[:2], entry[3:]
        if status[0] in "RC":
            i += 1  # a rename's source path follows as its own field
        p = root / path
        digest = hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "-"
        out[path] = f"{status}:{digest}"
    return out


def modified_paths(before: Snapshot, after: Snapshot) -> list[str]:
    return sorted(p for p in before.keys() | after.keys() if before.get(p) != after.get(p))


def hook_regen(regen_args: Sequence[str]) -> int:
    from codemode.cli.main import main as codemode_main

    root = _toplevel()
    before = snapshot(root)
    rc = codemode_main(["regen", "--staged", *regen_args])
    changed = modified_paths(before, snapshot(root))
    if changed:
        sys.stdout.flush()
        print(f"codemode: {MODIFIED_MESSAGE}:", file=sys.stderr)
        for path in changed:
            print(f"  {path}", file=sys.stderr)
        print("then commit again (git add the files above).", file=sys.stderr)
        # A usage or internal error (2, 3) says more than "modified"; keep it.
        return rc if rc > 1 else 1
    return rc


def run(args: argparse.Namespace) -> int:
    extra = list(args.regen_args)
    if extra[:1] == ["--"]:
        extra = extra[1:]
    return hook_regen(extra)
