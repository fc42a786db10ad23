"""The worker's stderr, capped: the newest bytes it wrote, never more than ``MAX_BYTES``.

The worker's stdout goes nowhere (fd 1 is /dev/null in it); its stderr is kept for one
purpose, the last line of a worker that died ("MemoryError", a native crash's message). It
went to a temporary file with no bound: a function printing to fd 2 for its whole timeout
filled about 1 GB of temporary disk in one case (#21). Now a thread of the parent drains a
pipe into a buffer that keeps only the tail; the worker never waits on a full pipe.
"""

from __future__ import annotations

import os
import threading

MAX_BYTES = 64 * 1024  # far more than the last lines a message quotes


class ErrTail:
    """Drains ``fd`` (which it owns and closes at EOF) and keeps its last ``MAX_BYTES``."""

    def __init__(self, fd: int, limit: int = MAX_BYTES) -> None:
        self.limit = limit
        self.buf = bytearray()
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self._pump, args=(fd,), daemon=True)
        self.thread.start()

    def _pump(self, fd: int) -> None:
        try:
            while True:
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    break
                with self.lock:
                    self.buf += chunk
                    if len(self.buf) > 2 * self.limit:  # trimmed in steps, not per chunk
                        del self.buf[: -self.limit]
        except OSError:
            pass
        finally:
            os.close(fd)

    def tail(self, limit: int, settle: float = 0.0) -> str:
        """The last ``limit`` bytes as text; ``settle``: seconds to wait for the pipe's end
        (a worker that just died may have bytes in flight)."""
        if settle:
            self.thread.join(settle)
        with self.lock:
            return bytes(self.buf[-limit:]).decode("utf-8", "replace")
