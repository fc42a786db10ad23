"""Where a repository's caches live, and whether a folder there can be trusted. Stdlib only.

Every cache (the diff analyzer's, the model's answers, parsed spec files, the warm worker)
sits in ``<git-dir>/codemode-cache``: never committed, so nothing a pull request carries can
plant a file there, and one per linked work tree. A folder a cache *reads from* must be a
real folder of this user that nobody else may enter (0700): a cache read loads data this
process trusts.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path


def cache_folder(root: Path) -> Path:
    """``<git-dir>/codemode-cache`` (a linked work tree's own git dir), without running git;
    ``.codemode-cache`` outside a repository."""
    dot = root / ".git"
    if dot.is_dir():
        return dot / "codemode-cache"
    if dot.is_file():
        with contextlib.suppress(OSError, UnicodeDecodeError):
            line = dot.read_text(encoding="utf-8").strip()
            if line.startswith("gitdir:"):
                git_dir = Path(line[len("gitdir:") :].strip())
                return (root / git_dir if not git_dir.is_absolute() else git_dir) / (
                    "codemode-cache"
                )
    return root / ".codemode-cache"


def private(path: Path, create: bool = True) -> bool:
    """``path`` is (made, if absent) a real folder of this user that only this user enters."""
    if create:
        with contextlib.suppress(FileExistsError, OSError):
            path.mkdir(mode=0o700, parents=True)
    try:
        st = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid() and st.st_mode & 0o077 == 0


def digest(data: bytes) -> str:
    """A 256-bit hex digest of ``data`` for cache keys. BLAKE2 from its built-in module:
    ``hashlib`` loads OpenSSL first, ~4 ms of a cached run's ~60."""
    try:
        from _blake2 import blake2b
    except ImportError:  # pragma: no cover - an interpreter built without it
        from hashlib import blake2b
    return blake2b(data, digest_size=32).hexdigest()
