"""Waiting for a worker process to end. Split from pool.py, which holds the protocol."""

from __future__ import annotations

import contextlib
import os
import selectors
import subprocess
from typing import Any


def wait_exit(proc: Any, timeout: float) -> None:
    """``proc.wait(timeout)``, woken by the exit itself: Popen.wait with a timeout sleeps in
    doubling steps between polls, which adds up to ~15 ms at the end of every hook run."""
    if not isinstance(proc, subprocess.Popen):  # forked by the warm worker: it tells the end
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=timeout)
        return
    try:
        fd = os.pidfd_open(proc.pid)
    except (AttributeError, OSError):  # not Linux 5.3+, or the process is gone already
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=timeout)
        return
    try:
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_READ)
            sel.select(timeout)
    finally:
        os.close(fd)
    proc.poll()
