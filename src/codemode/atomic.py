"""Files written whole or not at all: a reader, or a run that dies midway, sees the old
content or the new, never half of it. Stdlib only and cheap to import (the hook's caches
write through it)."""

from __future__ import annotations

import os
from pathlib import Path


def write_atomic(path: Path, data: str | bytes) -> None:
    """Write ``data`` (text as UTF-8) to a temp file beside ``path``, then rename it over.

    A symlink is written through (the link stays a link), and an existing file keeps its
    mode: the rename would otherwise leave the temp file's umask-made mode in its place (#11).
    """
    if path.is_symlink():
        path = path.resolve()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.codemode.tmp")
    try:
        mode = os.stat(path).st_mode & 0o7777
    except OSError:
        mode = None
    try:
        if isinstance(data, bytes):
            tmp.write_bytes(data)
        else:
            tmp.write_text(data, encoding="utf-8")
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()
