"""The files a change scope is judged on, when the work tree does not hold them.

``--staged`` judges what will be committed and ``--base`` the head commit (#21): specs and
modules alike. When the work tree's tracked files equal that side (the common case: a hook
with nothing unstaged, a CI checkout), it stands in for it, tracked files only; otherwise the
side is written to a temporary directory. Git runs through ``change.git`` (its only runner).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from codemode import probe
from codemode.change.git import commit_or_none, run, run_all
from codemode.errors import FatalError
from codemode.scope import Scope

_SAME = ("--no-ext-diff", "--ignore-submodules=all", "--name-only", "-z")


def new_side(root: Path, scope: Scope) -> Path | None:
    """The new side of a change scope, where the work tree is not it: ``--staged`` verifies
    the staged content even when the work tree has unstaged edits, and ``--base`` the head
    commit's, specs and code alike (#21). None: the work tree is that side. A run
    materializes it once and hands it to the check and the behaviour diff (#34); the caller
    removes it (``tempdirs.remove``)."""
    if scope.kind == "staged":
        return materialize_staged(root)
    if scope.kind == "range":
        return materialize_commit(root, scope.head or "HEAD")
    return None


# The Python modules the work tree holds that git does not track (and does not ignore):
# staged code that imports one would pass in the work tree and fail once committed (#11).
_UNTRACKED = ("ls-files", "--others", "--exclude-standard", "-z", "--", "*.py", "*.so", "*.pyd")


def materialize_staged(root: Path) -> Path | None:
    """None when the tracked files in the work tree equal the index; else a new temporary
    directory holding the index's content, for the worker to import from (the caller removes
    it). With ``--staged`` what is verified is what will be committed, not the work tree."""
    return _materialize(root, None)


def materialize_commit(root: Path, ref: str) -> Path | None:
    """The same for a range's head: None when the tracked work tree equals commit ``ref``,
    else a temporary directory holding that commit's files."""
    commit = commit_or_none(root, ref)
    if commit is None:
        raise FatalError(f"unknown revision {ref!r}; check the name passed to --head")
    return _materialize(root, commit)


def _materialize(root: Path, commit: str | None) -> Path | None:
    probe.count("materialize", commit or "index")
    # Both asked at once: the work tree stands in when neither finds anything (a hook with
    # nothing unstaged: the common case, which then waits for one git run, not two).
    differs, untracked = run_all(root, ("diff", *_SAME, *([commit] if commit else [])), _UNTRACKED)
    if not differs.strip(b"\0") and not untracked.strip(b"\0"):
        return None
    from codemode import tempdirs  # only here: a hook's every run should not pay for it

    tmp = tempdirs.make("staged")  # removed by the caller, or swept by a later run (#33)
    prefix = f"--prefix={tmp}{os.sep}"
    if commit is None:
        run(root, "checkout-index", "--all", "--force", prefix)
        return tmp
    # The commit through an index of its own: the user's index is never touched.
    index = tmp.with_name(tmp.name + ".index")
    env = {"GIT_INDEX_FILE": str(index)}
    try:
        run(root, "read-tree", commit, env=env)
        run(root, "checkout-index", "--all", "--force", prefix, env=env)
    finally:
        index.unlink(missing_ok=True)
    return tmp


def tracked(root: Path, paths: Sequence[Path]) -> set[Path]:
    """Those of ``paths`` (files under ``root``) that the index holds: with the work tree
    standing in for the index, an untracked or ``git rm --cached`` file is not staged (#21)."""
    if not paths:
        return set()
    rel = [p.relative_to(root).as_posix() for p in paths]
    out = run(root, "ls-files", "-z", "--full-name", "--", *(f":(literal){r}" for r in rel))
    names = {n for n in out.decode("utf-8", "surrogateescape").split("\0") if n}
    return {p for p, r in zip(paths, rel) if r in names}
