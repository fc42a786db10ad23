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
A changed data file (not Python: a table the code loads) is written too, bounded in size, and
the old side's worker opens it from the folder (#32).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import NamedTuple

from codemode.change import git

# The manifest the worker reads, at the top of the folder: what to serve, what to hide.
MANIFEST = ".codemode-old-side.json"
# A changed data file (not Python) is written at its old content too, and the old side's
# worker opens it from here (#32), up to these sizes (bytes): a table, not an asset.
MAX_DATA_FILE = 4_000_000
MAX_DATA = 32_000_000


class OldSide(NamedTuple):
    folder: Path  # the old content of the changed modules at their paths, and the manifest
    root: Path  # the project root's place in ``folder``: where the pool reads the old files
    written: int  # bytes of old content written


def build(repo: Path, project_root: Path, base: str, folder: Path) -> OldSide:
    """Write into ``folder`` (empty) the old side of the change from commit ``base`` to the
    work tree of ``repo`` (its top): each changed or deleted Python file's content at
    ``base`` (and each changed data file's, bounded), and a manifest naming those files and
    the Python files the change added (which the old side must not import).
    ``project_root``: the project's folder in the repository."""
    wanted: dict[str, list[str]] = {}
    added: list[str] = []
    data_files: set[str] = set()
    for c in git.worktree_changes(repo, base):
        path = c.old_path or c.new_path or ""
        if c.status == "A":
            added += [path] if path.endswith(".py") else []
        elif c.old_sha is not None and c.old_mode in git.REGULAR_MODES:
            wanted.setdefault(c.old_sha, []).append(path)
            if not path.endswith(".py"):
                data_files.add(path)  # a table the code reads: opened from here (#32)
    written = 0
    served, data = [], []
    for sha, blob in git.cat_blobs(repo, wanted):
        for rel in wanted[sha]:
            if rel in data_files and (len(blob) > MAX_DATA_FILE or written > MAX_DATA):
                continue  # an asset too large to be a table: read where it lies
            dest = folder / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(blob)
            written += len(blob)
            (data if rel in data_files else served).append(rel)
    manifest = {
        "repo": str(repo),
        "files": sorted(served),
        "hidden": sorted(added),
        "data": sorted(data),
    }
    (folder / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
    sub = project_root.resolve().relative_to(repo.resolve())
    return OldSide(folder, folder / sub, written)
