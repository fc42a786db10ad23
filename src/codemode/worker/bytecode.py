"""The project's modules compiled once, their bytecode kept out of the project's tree (#20).
Stdlib only: runs in the worker.

The worker runs with ``PYTHONDONTWRITEBYTECODE`` (codemode leaves no ``__pycache__`` in the
user's tree or in a staged tree's copy), so a project whose modules Python had not compiled
before (a fresh clone, a project only codemode runs) compiled every one of them on every run:
0.4 s of CPU in the 100-module scale benchmark, and every module a hook run imports. This
loader keeps the project's bytecode in codemode's private cache instead
(``<git-dir>/codemode-cache/bytecode``, 0700, as every cache there), under a digest of the
source, the interpreter's magic number and its optimization level:

- by content, not by modification time: an edit within the same second as the last run is
  never served the old bytecode (a timestamp ``.pyc`` holds seconds and the size), and a
  staged tree's copy of a file reuses what the work tree compiled;
- for the project's own files only (``policy.in_project``): the standard library and the
  dependencies load from their own ``__pycache__`` as ever.

The folder is pruned when a run wrote to it and it passed MAX_BYTES: the entries read least
recently go first.
"""

from __future__ import annotations

import marshal
import os
import sys
import types
from importlib.machinery import (
    BYTECODE_SUFFIXES,
    EXTENSION_SUFFIXES,
    SOURCE_SUFFIXES,
    ExtensionFileLoader,
    FileFinder,
    SourceFileLoader,
    SourcelessFileLoader,
)
from importlib.util import MAGIC_NUMBER

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

MAX_BYTES = 64 * 1024 * 1024  # the folder's size past which a run that wrote to it prunes it
KEEP_BYTES = 48 * 1024 * 1024  # what pruning leaves
_DAY = 86_400.0  # an entry read is marked so (its mtime) at most once a day: a write per hit
# would cost more than it tells


class _State:
    folder = ""
    written = 0  # entries this process wrote (pruning runs only after a run that wrote)
    salt = MAGIC_NUMBER + bytes([sys.flags.optimize])


def _digest(data: bytes) -> str:
    try:
        from _blake2 import blake2b
    except ImportError:  # an interpreter built without it
        from hashlib import blake2b
    return blake2b(data, digest_size=20).hexdigest()


class ProjectLoader(SourceFileLoader):
    """A project file's code: from the private cache when its source was compiled before."""

    def get_code(self, fullname: str) -> Any:
        path = self.get_filename(fullname)
        source = self.get_data(path)
        entry = os.path.join(_State.folder, _digest(_State.salt + source) + ".bin")
        try:
            with open(entry, "rb") as f:
                code = marshal.loads(f.read())
                read = os.fstat(f.fileno()).st_mtime
            if type(code) is not types.CodeType:  # not an entry this module wrote
                raise ValueError(entry)
            if read < _now() - _DAY:
                os.utime(entry)
        except (OSError, ValueError, EOFError, TypeError):
            code = self.source_to_code(source, path)
            _write(entry, marshal.dumps(code))
        else:
            import _imp

            _imp._fix_co_filename(code, path)  # type: ignore[attr-defined]  # compiled at another path (a staged copy)
        return code


def _now() -> float:
    import time

    return time.time()


def _write(entry: str, data: bytes) -> None:
    """Atomically (a reader never sees half an entry); a folder that refuses is no error."""
    tmp = f"{entry}.{os.getpid()}.tmp"
    try:
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, entry)
        _State.written += 1
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass


def install(folder: str, in_project: Callable[[str | None], bool]) -> None:
    """Project files found on sys.path from now on load through ``ProjectLoader``."""
    _State.folder = folder
    details = (
        (ExtensionFileLoader, EXTENSION_SUFFIXES),
        (ProjectLoader, SOURCE_SUFFIXES),
        (SourcelessFileLoader, BYTECODE_SUFFIXES),
    )

    def hook(path: str) -> Any:
        if not in_project(path or ".") or not os.path.isdir(path or "."):
            # the next hook: zipimport for an archive, the standard finder for the rest
            raise ImportError("not a folder of the project's")
        return FileFinder(path, *details)

    hook.codemode = True  # type: ignore[attr-defined]  # (tests find it so)
    sys.path_hooks.insert(0, hook)
    for path in [p for p in sys.path_importer_cache if in_project(p or ".")]:
        # found again through the hook; the others' finders keep their cached listings
        del sys.path_importer_cache[path]


def prune() -> None:
    """After a run that wrote entries: past MAX_BYTES, the least recently read go."""
    if not _State.written or not _State.folder:
        return
    try:
        entries = [(e.stat().st_mtime, e.stat().st_size, e.path) for e in os.scandir(_State.folder)]
    except OSError:
        return
    total = sum(size for _, size, _ in entries)
    if total <= MAX_BYTES:
        return
    for _, size, path in sorted(entries):
        if total <= KEEP_BYTES:
            break
        try:
            os.unlink(path)
            total -= size
        except OSError:
            pass
