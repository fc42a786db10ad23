"""The behaviour diff run ahead, in a fork of this process, while the check verifies (#18).

The check and the diff of a change do not need each other until their verdicts merge: the
check runs the specs' cases in its worker, the diff runs each changed function's old and new
version on its pool in two workers of its own. One after the other, a hook paid for both in
turn, and most of the diff's own time is Python in this process (its pool, its replies)
while the other core waits. So where this process can fork (``os.fork``, no other thread
running: a fork copies only the calling thread), the diff runs in a fork started before the
check, and its result comes back pickled through a pipe once the check is done. When the fork
cannot start, or fails, the caller runs the diff itself afterwards: slower, never lost.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
import sys
from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

T = TypeVar("T")


def can_fork() -> bool:
    """``os.fork`` exists and no other thread runs (its locks would be copied mid-use), the
    threads counted by the OS as check's lanes count them: one started with ``_thread`` or by
    a C extension is no ``threading`` thread, and a fork beside it can hang (#20)."""
    from codemode.check.lanes import can_fork as no_other_thread

    return no_other_thread()


class Ahead(Generic[T]):
    """``work()`` running in a fork; ``result()`` waits for its value (None if it failed)."""

    def __init__(self, pid: int, read: int) -> None:
        self.pid, self.read = pid, read
        self.done = False

    @classmethod
    def start(cls, work: Callable[[], T], shared: Sequence[str] = ()) -> Ahead[T] | None:
        """``work()`` in a fork; ``shared``: modules both sides will import, imported here
        first so that the fork inherits them instead of importing its own copy."""
        if not can_fork():
            return None
        import gc
        import importlib
        import pickle  # noqa: F401 - both sides use it: the fork to send, this side to read

        from codemode.worker.orphans import adopt_orphans

        for name in shared:
            importlib.import_module(name)
        adopt_orphans()  # what the fork's workers leave, if it is killed, comes to us
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()  # written once, not once more by the fork
        read, write = os.pipe()
        # The fork's collector would walk (and so copy) every object it inherits: frozen.
        me = os.getpid()
        gc.freeze()
        try:
            pid = os.fork()
        except OSError:
            os.close(read)
            os.close(write)
            return None
        finally:
            if os.getpid() == me:
                gc.unfreeze()
        if pid == 0:  # the fork: never returns into the caller's code
            os.close(read)
            _run(write, work)
        os.close(write)
        return cls(pid, read)

    def result(self) -> T | None:
        """The fork's value, once it has sent it; None when it failed or died."""
        import pickle

        data = bytearray()
        with selectors.DefaultSelector() as sel:
            sel.register(self.read, selectors.EVENT_READ)
            while True:
                sel.select()
                chunk = os.read(self.read, 1 << 20)
                if not chunk:
                    break
                data += chunk
        self.done = True
        try:
            kind, value = pickle.loads(bytes(data))
        except Exception:  # cut short: killed, out of memory
            return None
        if kind != "ok":
            return None  # the caller runs it again here, where an error has its traceback
        return value  # type: ignore[no-any-return]

    def __enter__(self) -> Ahead[T]:
        return self

    def __exit__(self, *exc: object) -> None:
        """Reap the fork; one not done (the check failed, Ctrl-C) is killed first: its
        workers, orphaned to this process, die at its exit."""
        with contextlib.suppress(ProcessLookupError):
            if not self.done:
                os.kill(self.pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(self.pid, 0)
        with contextlib.suppress(OSError):
            os.close(self.read)
        if not self.done:  # killed: the folders it wrote (its old side) are ours to remove
            from codemode.tempdirs import sweep

            sweep()


def _run(fd: int, work: Callable[[], object]) -> None:
    import pickle

    from codemode.signals import contain

    contain()  # its workers' parent: a signal a function sends it is noted, not the end (#33)
    code = 0
    try:
        try:
            payload = pickle.dumps(("ok", work()), pickle.HIGHEST_PROTOCOL)
        except BaseException:
            payload = pickle.dumps(("failed", None))
        with os.fdopen(fd, "wb") as out:
            out.write(payload)
    except BaseException:
        code = 3
    finally:
        os._exit(code)
