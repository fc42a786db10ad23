"""The temporary folders a run writes (a change's old side, a staged tree): named after the
process that made them, removed on every way out, and swept by the next run when a process
was killed before it could remove its own (#33). Stdlib only.

Each folder is ``$TMPDIR/codemode-<uid>/<kind>-<pid>-<random>``: one private parent per user
(0700, as the caches: the worker imports code from these folders), so a sweep lists a few
entries, not the whole of TMPDIR. A folder whose process is gone belongs to nobody: a run
killed by SIGKILL, or a fork of this process that its parent killed (``behaviour.ahead``).
Ctrl-C, SIGTERM and SIGHUP unwind the main process (``codemode.signals``), so the ``finally``
blocks that remove a folder run.
"""

from __future__ import annotations

import os
from pathlib import Path

from codemode.cachedir import private


def parent() -> Path:
    import tempfile  # only here: a hook with nothing to diff never writes a folder

    uid = os.getuid() if hasattr(os, "getuid") else 0
    return Path(tempfile.gettempdir()) / f"codemode-{uid}"


def make(kind: str) -> Path:
    """A new empty folder for ``kind`` (``old``, ``staged``), after sweeping what dead
    processes left. The caller removes it (``remove``)."""
    import tempfile

    home = parent()
    if not private(home):
        # someone else's folder of that name, or a symlink: a folder of our own, unswept
        return Path(tempfile.mkdtemp(prefix=f"codemode-{kind}-"))
    sweep(home)
    return Path(tempfile.mkdtemp(prefix=f"{kind}-{os.getpid()}-", dir=home))


def remove(path: Path | None) -> None:
    if path is None:
        return
    import shutil  # bz2, lzma: only when a folder was written

    shutil.rmtree(path, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process of that id: not ours to judge
        return True
    try:  # a zombie is gone too: a container's init may never reap a killed run's fork
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rpartition(b")")[2].split()[0] != b"Z"
    except (OSError, IndexError):
        return True


def sweep(home: Path | None = None) -> list[Path]:
    """Remove the folders whose process is gone; returns them."""
    gone: list[Path] = []
    try:
        entries = list(os.scandir(home or parent()))
    except OSError:
        return gone
    for e in entries:
        _, _, rest = e.name.partition("-")
        pid = rest.partition("-")[0]
        if pid.isdigit() and int(pid) != os.getpid() and not _alive(int(pid)):
            remove(Path(e.path))
            gone.append(Path(e.path))
    return gone
