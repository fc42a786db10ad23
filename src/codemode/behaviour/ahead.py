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

# In the fork: what waits until its value is sent (``after_reply``); None elsewhere.
_after: list[Callable[[], object]] | None = None


def after_reply(*steps: Callable[[], object]) -> None:
    """Run ``steps`` now; in the fork, once its value has been sent instead. Closing the diff's
    workers and removing its old side (40-55 ms at load 7) need not delay the caller, which
    merges the value meanwhile and reaps the fork only at its own exit."""
    for step in steps:
        if _after is not None:
            _after.append(step)
        else:
            step()


def can_fork() -> bool:
    """``os.fork`` exists and no other thread runs (its locks would be copied mid-use), the
    threads counted by the OS as check's lanes count them: one started with ``_thread`` or by
    a C extension is no ``threading`` thread, and a fork beside it can hang (#20)."""
    from codemode.check.lanes import can_fork as no_other_thread

    return no_other_thread()


def at_once(*closes: Callable[[], None]) -> None:
    """Each worker told to exit and waited for at once, not one after the other: each exit
    is an interpreter's teardown (~20 ms under load)."""
    import threading

    threads = [threading.Thread(target=close) for close in closes[1:]]
    for t in threads:
        t.start()
    try:
        closes[0]()
    finally:
        for t in threads:
            t.join()


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
        workers, orphaned to this process, die at its exit. One that sent its value is only
        tidying up (``after_reply``): reaped at this process's exit, which the caller's
        report does not wait for (the resident server's child runs ``atexit`` too)."""
        if self.done:
            import atexit

            os.close(self.read)
            atexit.register(_reap, self.pid)
            return
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


def _reap(pid: int) -> None:
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)


def _run(fd: int, work: Callable[[], object]) -> None:
    import pickle

    from codemode.signals import contain

    global _after
    contain()  # its workers' parent: a signal a function sends it is noted, not the end (#33)
    _after = []
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
        for step in _after:  # the value is sent: what it waited for, in the order asked
            try:
                step()
            except BaseException:
                code = code or 3
        os._exit(code)
