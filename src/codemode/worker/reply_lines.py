"""Reading the worker's replies: newline-terminated lines from a pipe, each with a deadline,
and a bound on a line's size (#11). Parent side only."""

from __future__ import annotations

import os
import selectors
import time

from codemode.worker.canonical import MAX_REPLY_CHARS


class WorkerDied(Exception):
    pass


# A reply line longer than this is not read into memory: the worker caps one case's reply at
# canonical.MAX_REPLY_CHARS, so only code that writes to the protocol itself gets here (#11).
MAX_REPLY_BYTES = 8 * MAX_REPLY_CHARS


class ReplyTooBig(WorkerDied):
    """A reply line past MAX_REPLY_BYTES: the worker is replaced, the case is an error."""


class ReplyLines:
    """Reads newline-terminated replies from a pipe, with a deadline per line."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buf = bytearray()
        self.sel = selectors.DefaultSelector()
        self.sel.register(fd, selectors.EVENT_READ)

    def readline(self, timeout: float | None) -> bytes | None:
        """A line, or None on timeout; raises WorkerDied at EOF."""
        nl = self.buf.find(b"\n")
        if nl >= 0:  # a block's replies come in one write: most lines are here already
            line = bytes(self.buf[: nl + 1])
            del self.buf[: nl + 1]
            return line
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            nl = self.buf.find(b"\n")
            if nl >= 0:
                line = bytes(self.buf[: nl + 1])
                del self.buf[: nl + 1]
                return line
            remaining = None if deadline is None else deadline - time.monotonic()
            if remaining is not None and remaining <= 0:
                return None
            if not self.sel.select(remaining):
                return None
            chunk = os.read(self.fd, 1 << 16)
            if not chunk:
                raise WorkerDied()
            self.buf += chunk
            if len(self.buf) > MAX_REPLY_BYTES and b"\n" not in chunk:
                self.buf.clear()
                raise ReplyTooBig(
                    f"the worker sent a reply of more than {MAX_REPLY_BYTES / 1e6:g} MB (the "
                    "function wrote to the worker's own output?); it was restarted"
                )

    def close(self) -> None:
        self.sel.close()
