"""The diff's calls on both sides, under one deadline on the wall clock (#33).

``diff_budget.seconds`` was checked between requests of 100 calls: with 0.2 s calls a 2 s
budget took 12 s, and with 2.8 s calls (a 3 s timeout) a hook took a minute. Here every reply
waits at most until the deadline (the per-call timeout given to the worker is
``min(timeout, time left)``, set again before each reply is read), so a call that would cross
the deadline is cut there: its outcome is not compared, and a worker cut mid-request is
replaced (its unread replies would put the stream out of step).

The budget counts the calls, not the fixed start-up before them (#32): each side imports the
function's module first (``Loading``), while the parent builds its pool, each under a bound
of its own (``START_LIMIT``). At load 5-11 a large library's import and pool took the whole
2 s on their own, and seven of nineteen changes were reported "after 0 of N inputs".
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from codemode.worker.pool import Outcome, Worker

# The most a side's start-up (its interpreter, then the function's module imported) may
# take before the function is reported not compared: the start-up's own bound, apart from
# the budget's.
START_LIMIT = 20.0
# The most a function's pool of inputs (the tests' calls harvested, their files parsed) is
# waited for, once its diff asks for it: a pool later than that gives the function the note
# "not compared", as a side that starts too slowly does (#32). The calls' budget and the
# start-up's bound left it the one step of the diff with no bound of its own.
POOL_LIMIT = 20.0
# The least a reply is waited for, past the deadline too: the ``done`` that follows a
# request's last reply is written with it, and missing it would cost the worker.
MIN_WAIT = 0.02


class Side(NamedTuple):
    worker: Worker
    target: str
    root: str


class Ran(NamedTuple):
    """One side's share of a request: the outcomes in time, each call's wall time (seconds,
    from the reply before it), and whether the deadline cut the request."""

    outcomes: dict[str, Outcome]
    took: dict[str, float]
    cut: bool


def run_until(side: Side, cases: list[dict[str, Any]], until: float) -> Ran:
    """``cases`` in the side's worker itself, not a forked child per request (but for a
    returned callable's follow-ups): both sides run the same calls in the same order, so what
    one call leaves in module state reaches both alike. Replies that come after ``until``
    (time.monotonic) are dropped."""
    worker = side.worker
    full = worker.timeout
    out: dict[str, Outcome] = {}
    took: dict[str, float] = {}
    got, late = 0, False
    try:
        before = time.monotonic()
        worker.timeout = _wait(full, until, before)
        # a returned callable called on the pool's values (``then``) may be a decorator that
        # files them in a table: such requests run in a forked child, whose state dies with
        # it, or a registry left holding a text hid the next function's change (#32)
        isolate = any("then" in c for c in cases)
        replies = worker.run(side.target, cases, isolate=isolate)
        for o in replies:
            now = time.monotonic()
            got += 1
            late = now >= until
            if late and got < len(cases):
                replies.close()
                worker.kill()  # it still runs the rest: replaced before its next request
                break
            if not late:
                out[o.case], took[o.case] = o, now - before
            before = now
            worker.timeout = _wait(full, until, now)
    finally:
        worker.timeout = full
    return Ran(out, took, late or got < len(cases))


def _wait(full: float, until: float, now: float) -> float:
    return max(MIN_WAIT, min(full, until - now))


def both(old: Side, new: Side, cases: list[dict[str, Any]], until: float) -> tuple[Ran, Ran]:
    """The cases on both sides at once: two processes, two cores."""
    got: list[Ran] = []
    thread = threading.Thread(target=_into, args=(got, run_until, old, cases, until), daemon=True)
    thread.start()
    mine = run_until(new, cases, until)
    thread.join()
    # a side whose worker could not even start answers nothing: no call compared, none cut
    return (got[0] if got else Ran({}, {}, False)), mine


def _into(got: list[Ran], run: Callable[..., Ran], *args: Any) -> None:
    got.append(run(*args))


class Loading:
    """Each side importing its target's module and running nothing (an empty request), in a
    thread of its own: the workers import in their processes, at once, while this one builds
    the pool or runs other calls. ``wait()`` is the start-up's end; ``why`` says what kept a
    side from starting in time ("": nothing)."""

    def __init__(self, *sides: Side) -> None:
        self.why = ""
        self.threads = [threading.Thread(target=self._load, args=(s,), daemon=True) for s in sides]
        for t in self.threads:
            t.start()

    def _load(self, side: Side) -> None:
        msg = {"op": "run", "target": side.target, "cases": [], "isolate": False}
        try:
            for reply in side.worker.stream(msg, START_LIMIT):
                # an import that fails is the calls' to report (``not_compared``), as before
                if reply.get("fatal") == "timeout":
                    self.why = f"{side.target}'s module took over {START_LIMIT:g} s to import"
        except Exception:  # a worker that cannot start: its calls say so, as before
            pass

    def wait(self) -> float:
        """Seconds this waited for the start-up to end: not the budget's to pay."""
        before = time.monotonic()
        for t in self.threads:
            t.join()
        return time.monotonic() - before
