"""Processes a worker leaves behind: codemode is their reaper, and kills them at exit (#11)."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time

_ADOPTING = False


def adopt_orphans() -> None:
    """Make codemode the reaper of what its workers leave behind, and kill it all at exit (#11).

    A worker runs in its own session and process group, and the group is killed with it; but a
    function that forks twice and calls ``setsid`` leaves that group. On Linux, codemode marks
    itself a child subreaper (``prctl(PR_SET_CHILD_SUBREAPER)``): such an orphan becomes its
    child instead of init's, and every descendant still alive when codemode exits is killed.
    """
    global _ADOPTING
    if _ADOPTING or not sys.platform.startswith("linux"):
        return
    _ADOPTING = True
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(36, 1, 0, 0, 0) != 0:  # 36: PR_SET_CHILD_SUBREAPER
            return
    except (OSError, AttributeError):
        return
    import atexit

    atexit.register(kill_descendants)


def _tree() -> dict[int, list[int]]:
    """Each process's children, from one scan of /proc (a pid's own ``children`` file needs a
    kernel option not every kernel has)."""
    children: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as f:
                ppid = int(f.read().rsplit(b")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(entry.name))
    return children


def descendants(pid: int, tree: dict[int, list[int]] | None = None) -> list[int]:
    children = _tree() if tree is None else tree
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


# Processes this one started that are meant to outlive it: the warm worker (warm_client.py).
SPARED: set[int] = set()


def _warm_worker(pid: int) -> bool:
    """A warm worker another process of this run started (a ``--jobs`` lane, forked): it runs
    ``runtime.py --serve FOLDER`` and its folder's pid file names it."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            argv = f.read().split(b"\0")
        at = argv.index(b"--serve")
        with open(os.path.join(os.fsdecode(argv[at + 1]), "pid"), "rb") as f:
            return (
                at >= 2 and argv[at - 1].endswith(b"runtime.py") and f.read().strip() == b"%d" % pid
            )
    except (OSError, ValueError, IndexError):
        return False


def _has_children() -> bool:
    """Whether any child of this process is alive (zombies reaped on the way). As a child
    subreaper, every descendant still alive has a living ancestor among our children: an
    orphan is reparented to us before its parent can be reaped. None alive, nothing to kill,
    and no scan of /proc (~2 ms on a quiet machine, 10-20 ms with hundreds of processes)."""
    try:
        while True:
            pid, _ = os.waitpid(-1, os.WNOHANG)
            if pid == 0:
                return True
    except ChildProcessError:
        return False


def kill_descendants(wait: float = 2.0) -> None:
    """SIGKILL every process below this one, and reap the children among them, until none is
    left (or ``wait`` seconds): one killed a moment ago is not a zombie yet, and one left
    unreaped at exit goes to PID 1, which in a container may never reap it. A process in
    SPARED (and what runs under it) is left alone."""
    if not _has_children():
        return
    deadline = time.monotonic() + wait
    while True:
        tree = _tree()  # one scan per round (~2 ms at 70 processes), not one per question
        below = descendants(os.getpid(), tree)
        kept = SPARED | {p for p in below if _warm_worker(p)}
        spared = {p for s in kept for p in (s, *descendants(s, tree))}
        pids = [p for p in below if p not in spared]
        for pid in pids:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            while os.waitpid(-1, os.WNOHANG)[0] > 0:
                pass
        if not pids or time.monotonic() > deadline:
            return
        time.sleep(0.005)
