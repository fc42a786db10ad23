"""How much a worker's request pipe holds unread: the room for a request sent ahead (#20, #36).

``Worker.run_blocks`` writes the next block's request while the worker still reads or runs
the one before, so the worker runs it while the caller judges the replies it has. The write
must never wait: the worker may itself be waiting to write replies nobody reads yet, and
both would wait forever. So a request goes ahead only when it fits, with what the worker has
not read of the one before, in what the pipe holds unread. That was 12 KB on every system
(a pipe holds 16 KB on macOS before it grows), and a block of a few hundred cases (~20 KB for
250) never went ahead: its worker sat idle while the lane judged the block before. On Linux a process
may grow its own pipes without privilege: the worker's request pipe is grown to 256 KB (a
block of ~3,000 cases; not more, as a user's pipe pages past ``pipe-user-pages-soft`` leave
every new pipe of that user one page), and the room is what the kernel granted, a page
short; where the size cannot be read, 12 KB as before.
"""

from __future__ import annotations

import contextlib
from typing import IO

ROOM = 12_288  # two requests this size fit unread in a pipe on every system codemode runs on
WANTED = 1 << 18


def room_ahead(pipe: IO[bytes] | None) -> int:
    """The bytes of requests that may wait unread in ``pipe`` (a worker's stdin), after
    growing it where the system lets this process."""
    if pipe is None:
        return ROOM
    with contextlib.suppress(ImportError, AttributeError, OSError, ValueError):
        import fcntl

        fd = pipe.fileno()
        with contextlib.suppress(OSError):  # over pipe-max-size: keep the size it has
            fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, WANTED)
        size = int(fcntl.fcntl(fd, fcntl.F_GETPIPE_SZ))
        return max(0, size - 4096)  # a page short: what the worker has half read
    return ROOM
