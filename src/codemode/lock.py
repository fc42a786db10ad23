"""One writer at a time per spec file, so two runs that edit it both land (#11).

``regen`` and ``accept`` read a spec, compute their edit and write the whole file back; two
of them at once would each write over the other's edit. Under ``locked(path)`` a writer
re-reads the file, applies its edit to what is there now and writes, while the next waits.

The lock is ``flock`` on the spec file itself (no sidecar file to clean up or commit). The
writer replaces the file by a rename, so a waiter may wake up holding the lock of a file that
is no longer there: it checks that the inode it locked is still the path's, and otherwise
locks again. A file that does not exist yet is locked through the nearest folder that does.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator
from pathlib import Path

from codemode.errors import FatalError

WAIT_SECONDS = 120.0


class OutsideRepository(FatalError):
    """A spec whose path resolves outside the repository: never written (#21)."""


def inside(path: Path, root: Path) -> Path:
    """``path`` resolved (through every symlink), which must lie inside ``root``: a spec
    linked to ``/elsewhere/t.yml``, or a dangling link whose folders regen would create,
    would let a pull request's spec files make the tool write anywhere the user can."""
    target = path.resolve()
    if not target.is_relative_to(root.resolve()):
        raise OutsideRepository(
            f"{path}: resolves to {target}, outside the repository ({root}); codemode writes "
            "specs only inside it: replace the link with the file, or point it inside"
        )
    return target


def _same(fd: int, target: Path, is_dir: bool) -> bool:
    """Whether what ``fd`` locked is still what ``target`` names (or, for a directory lock,
    whether ``target`` still does not exist)."""
    try:
        now = os.stat(target)
    except FileNotFoundError:
        return is_dir
    if is_dir:
        return False
    held = os.fstat(fd)
    return (held.st_dev, held.st_ino) == (now.st_dev, now.st_ino)


@contextlib.contextmanager
def locked(path: Path, root: Path, wait: float = WAIT_SECONDS) -> Iterator[Path]:
    """Hold the write lock of the spec at ``path``; yields the file to read and write
    (a symlink's target, so the link and the target's mode are kept), which must lie
    inside the repository at ``root`` (``OutsideRepository`` otherwise)."""
    target = inside(path, root)
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX: no lock, the write is still atomic
        yield target
        return
    deadline = time.monotonic() + wait
    while True:
        is_dir = not target.exists()
        holder = target
        if is_dir:  # a new spec: lock the nearest folder that exists (a dry run creates none)
            holder = next(d for d in target.parents if d.is_dir())
        fd = os.open(holder, os.O_RDONLY)
        try:
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() > deadline:
                        raise FatalError(
                            f"{path}: another codemode run has been writing this spec for "
                            f"over {wait:g} s; wait for it to finish (or stop it) and run again"
                        ) from None
                    time.sleep(0.02)
            if _same(fd, target, is_dir):
                yield target
                return
        finally:
            os.close(fd)  # closing the descriptor releases the lock
