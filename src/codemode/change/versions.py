"""Both sides of the files a change touched, as bytes: what the review of spec edits compares.

The old side comes from git's objects (the merge base of a pull request, or HEAD), the new side
from them too or from the work tree; every git call goes through ``change.git``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from codemode.change import git
from codemode.scope import Scope


class Versions(NamedTuple):
    """One changed file at both sides of a change; None where it does not exist."""

    change: git.FileChange
    old: bytes | None
    new: bytes | None


def changed_versions(
    root: Path,
    scope: Scope,
    wanted: Callable[[str], bool],
    staged: git.StagedChange | None = None,
) -> list[Versions]:
    """Both sides of each file of ``scope``'s change that ``wanted`` accepts (by either side's
    path relative to ``root``): the old side from git's objects, the new side from them too,
    or from the work tree for a work-tree scope. Paths in the result are relative to ``root``;
    files outside it are left out. ``staged``: the staged change, when the caller has it."""
    if staged is not None and scope.kind == "staged":
        repo, changes = staged.repo, staged.changes
    else:
        repo, _, head = git.locate_at_head(root)
        changes, _ = git.raw_diff(repo, git.resolve(repo, scope, head))
    try:
        prefix = root.resolve().relative_to(repo.resolve()).as_posix()
    except ValueError:
        prefix = "."
    under = "" if prefix == "." else prefix + "/"

    def rel(path: str | None) -> str | None:
        return path[len(under) :] if path and path.startswith(under) else None

    picked = [
        c._replace(old_path=rel(c.old_path), new_path=rel(c.new_path))
        for c in changes
        if any(p and wanted(p) for p in (rel(c.old_path), rel(c.new_path)))
    ]
    blobs = dict(git.cat_blobs(repo, [s for c in picked for s in (c.old_sha, c.new_sha) if s]))
    out = []
    for c in picked:
        old = blobs.get(c.old_sha) if c.old_sha else None
        if c.new_sha:
            new = blobs.get(c.new_sha)
        else:
            new = git.read_worktree(root, c.new_path) if c.new_path else None
        out.append(Versions(c, old, new))
    return out
