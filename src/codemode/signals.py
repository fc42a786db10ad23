"""Signals that would end codemode: named on the way out, or contained (#33).

The code under test runs in workers whose parent is a codemode process, so a function that
signals its parent (``os.kill(os.getppid(), SIGTERM)``) or its parent's process group reached
codemode itself, which died with rc 143 and not a word. Each worker has a session of its own
(a signal to its group or session stays there), and what is left is handled here:

- ``stop_on_signals`` (the CLI's ``main``): SIGTERM and SIGHUP raise ``Stopped`` in the main
  thread, so every ``finally`` runs (workers killed, temporary trees removed) and ``main``
  says in one line what stopped it, with the exit code a shell shows for that signal.
- ``contain`` (a process of codemode's own that the main one waits for: the diff's fork, its
  second process): a SIGTERM or SIGHUP there comes from the workers it started, whose parent
  it is (a stop of the whole group reaches the main process too, which then ends this one);
  it is counted and ignored, and the diff notes it (``received``).
"""

from __future__ import annotations

import signal
from collections.abc import Callable
from typing import Any

STOPS = (signal.SIGTERM, signal.SIGHUP)
_RECEIVED = [0]  # signals a contained process ignored


class Stopped(BaseException):
    """A stop signal reached codemode (a BaseException, as KeyboardInterrupt: no ``except
    Exception`` on the way takes it for an error of its own)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum

    @property
    def name(self) -> str:
        return signal.Signals(self.signum).name

    @property
    def exit_code(self) -> int:
        return 128 + self.signum  # as a shell reports a process the signal ended

    def line(self) -> str:
        return (
            f"codemode: stopped by {self.name} (sent by another process: a cancelled job, a "
            "`kill`, or code under test that signals its parent or its process group)"
        )


def _stop(signum: int, frame: Any) -> None:
    for s in STOPS:  # the way out runs once: a second signal does not cut its cleanup short
        signal.signal(s, signal.SIG_IGN)
    raise Stopped(signum)


def stop_on_signals() -> Callable[[], None]:
    """Raise ``Stopped`` on SIGTERM and SIGHUP (those not ignored already, as under nohup);
    returns what puts the handlers before back. Only the main thread may set handlers: from
    another, nothing changes."""
    before: dict[int, Any] = {}
    try:
        for s in STOPS:
            current = signal.getsignal(s)
            if current in (signal.SIG_DFL, None):
                before[s] = signal.signal(s, _stop)
    except ValueError:  # not the main thread
        pass

    def restore() -> None:
        for s, handler in before.items():
            signal.signal(s, handler if handler is not None else signal.SIG_DFL)

    return restore


def _count(signum: int, frame: Any) -> None:
    _RECEIVED[0] += 1


def contain() -> None:
    """In a process of codemode's own that the main process waits for: stop signals are
    counted and ignored (see the module's docstring)."""
    for s in STOPS:
        signal.signal(s, _count)


def received() -> int:
    """How many stop signals this process ignored so far (``contain``)."""
    return _RECEIVED[0]
