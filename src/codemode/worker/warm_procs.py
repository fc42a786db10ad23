"""The warm workers of a repository found by their processes, whatever state their folder is
in (#33): ``codemode worker stop`` asks each one over its socket, which is found and trusted
only in a private folder; a folder made readable by others (which runs rightly refuse), made
unreadable, or removed, left its warm worker beyond reach until its idle time ran out. These
are found in ``/proc`` instead: a process of this user whose command line serves a folder of
this repository's cache. SIGTERM stops one as ``stop`` does (``warm._terminated``).
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path


def serving(warm: Path) -> dict[int, str]:
    """pid -> folder, for this user's warm workers of folders under ``warm`` (Linux only:
    elsewhere there are no warm workers)."""
    base = os.path.realpath(warm) + os.sep
    out: dict[int, str] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return out
    me = os.getuid()
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            if os.stat(f"/proc/{entry}").st_uid != me:
                continue
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                argv = f.read().decode("utf-8", "replace").split("\0")
        except OSError:
            continue
        folder = _served(argv)
        if folder is not None and os.path.realpath(folder).startswith(base):
            out[int(entry)] = folder
    # a run's worker is a fork of its warm worker, with the same command line: not one
    return {pid: folder for pid, folder in out.items() if _parent(pid) not in out}


def _parent(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return int(f.read().rsplit(b")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return 0


def _served(argv: list[str]) -> str | None:
    """The folder of ``python runtime.py --serve FOLDER ...``, or None for any other command."""
    if len(argv) < 4 or not argv[1].endswith("runtime.py") or argv[2] != "--serve":
        return None
    return argv[3]


def stop(pids: list[int], seconds: float = 5.0) -> list[int]:
    """SIGTERM each of ``pids``; the ones that were gone within ``seconds``."""
    sent = []
    for pid in pids:
        try:
            os.kill(pid, signal.SIGTERM)
            sent.append(pid)
        except OSError:
            continue
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and not all(_gone(p) for p in sent):
        time.sleep(0.01)
    return [p for p in sent if _gone(p)]


def _gone(pid: int) -> bool:
    """Exited (a zombie its parent has not reaped yet counts: it serves nothing)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0] == b"Z"
    except (OSError, IndexError):
        return True
