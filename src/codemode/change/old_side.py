"""The behaviour diff's old side, built from the changed files only (#33).

The old side is the work tree as the base commit had it. Most of it is the work tree itself:
every file the change did not touch, and everything git does not track (a generated,
gitignored ``_version.py``, build outputs, a submodule's checkout, a vendored folder), which
the change cannot have touched either. So only the tracked Python files whose content differs
from the base are written, at their old content, into a small folder; the old side's worker
runs in the work tree and imports those modules from the folder (``worker/old_imports.py``),
and does not find the modules the change added. The pool of inputs reads the old side's
tests and callers from the same folder (the files it lacks are the work tree's, which the
new side reads). A one-line change writes one file, whatever the repository tracks beside it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import NamedTuple

from codemode.change import git

# The manifest the worker reads, at the top of the folder: what to serve, what to hide.
MANIFEST = ".codemode-old-side.json"


class OldSide(NamedTuple):
    folder: Path  # the old content of the changed modules at their paths, and the manifest
    root: Path  # the project root's place in ``folder``: where the pool reads the old files
    written: int  # bytes of old content written


def build(repo: Path, project_root: Path, base: str, folder: Path) -> OldSide:
    """Write into ``folder`` (empty) the old side of the change from commit ``base`` to the
    work tree of ``repo`` (its top): each changed or deleted Python file's content at
    ``base``, and a manifest naming those files and the ones the change added (which the old
    side must not import). ``project_root``: the project's folder in the repository."""
    wanted: dict[str, list[str]] = {}
    added: list[str] = []
    for c in git.worktree_changes(repo, base):
        path = c.old_path or c.new_path or ""
        if not path.endswith(".py"):
            continue  # what the old side imports; a data file is read where it lies
        if c.status == "A":
            added.append(path)
        elif c.old_sha is not None and c.old_mode in git.REGULAR_MODES:
            wanted.setdefault(c.old_sha, []).append(path)
    written = 0
    served = []
    for sha, data in git.cat_blobs(repo, wanted):
        for rel in wanted[sha]:
            dest = folder / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(data)
            written += len(data)
            served.append(rel)
    manifest = {"repo": str(repo), "files": sorted(served), "hidden": sorted(added)}
    (folder / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
    sub = project_root.resolve().relative_to(repo.resolve())
    return OldSide(folder, folder / sub, written)
