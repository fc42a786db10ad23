"""How many bytes of requests may wait unread in a worker's pipe (#20, #36). Parent side only.

``Worker.run_blocks`` sends a block's request while the worker still runs the one before, so
the worker runs the next block while its caller judges this one; it may do so only when both
requests fit in the pipe unread, or a write could wait on a worker that waits for its replies
to be read.
"""

from __future__ import annotations

# Two requests this size fit unread in a pipe on every system codemode runs on (16 KB on
# macOS before it grows, 64 KB on Linux).
AHEAD_BYTES = 12_288
# Where the system lets a pipe grow (Linux's F_SETPIPE_SZ, up to fs/pipe-max-size: 1 MB by
# default), the request pipe is made this big: a block of 250 flow-style cases is a request of
# 20-30 KB, too big to go ahead in 12 KB, so the worker waited while its caller judged each
# block, and the caller while the worker ran the next (#36).
PIPE_BYTES = 1 << 20


def grow(fd: int) -> int | None:
    """Make the pipe ``fd`` hold ``PIPE_BYTES`` where the system allows; its capacity, or
    None where it cannot be asked (not Linux)."""
    try:
        import fcntl

        try:
            return fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, PIPE_BYTES)
        except OSError:  # past the user's share of pipe pages: as it is
            return fcntl.fcntl(fd, fcntl.F_GETPIPE_SZ)
    except (ImportError, AttributeError, OSError, ValueError):  # not Linux, not a pipe
        return None


def request_room(fd: int) -> int:
    """How many bytes of requests may wait unread in the pipe ``fd`` (the worker's stdin)
    without a write to it waiting: its capacity, grown to ``PIPE_BYTES`` where the system
    allows, less a quarter (a pipe's capacity is counted in pages, each write filling its
    own); ``AHEAD_BYTES`` where it cannot be asked."""
    size = grow(fd)
    return AHEAD_BYTES if size is None else max(AHEAD_BYTES, size * 3 // 4)
