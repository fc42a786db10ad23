"""The default ``--jobs``: this process verifies, and lanes stand by to help (#36).

One lane is already two processes at work at once: its worker runs the next function block
while the lane judges the one before (``Worker.run_blocks``). On cheap functions (microseconds
a case) one lane keeps two cores busy, and a second lane's interpreter, sandbox and fork
(~60 ms of CPU on the 2,000-case benchmark) bought nothing on two cores: the second worker
shared the cores the first already used. On costly functions the worker is the bottleneck,
and a second lane halves the time. Which it is shows after the first unit: the time its calls
took (the cases' durations) against the time this process took to judge them.

So the lanes are forked first (before this process has a thread, which a fork cannot copy) and
wait: each reads one byte from a shared pipe before it draws a unit from the queue (or an end
of file, and then it leaves having started nothing). This process draws units from the same
queue and verifies them itself, and after each unit wakes one lane when that unit's calls took
longer than judging them, or at once for the cores a lane cannot use by itself (four cores and
more). It reads the lanes' pieces as they come, between its units, so none waits on a full
pipe; the pieces are put back in the serial order, and the report is the one ``--jobs 1``
gives.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from codemode.check import lanes
from codemode.worker.pipe_room import grow

if TYPE_CHECKING:
    from codemode.check.verify import VerifyResult


class _Waiting:
    """A lane's units: none until a byte arrives on ``go`` (an end of file: none at all)."""

    def __init__(self, go: int, drawn: Iterable[lanes.Unit]) -> None:
        self.go, self.drawn = go, drawn

    def __iter__(self) -> Iterator[lanes.Unit]:
        try:
            woken = os.read(self.go, 1)
        except OSError:
            woken = b""
        os.close(self.go)
        if woken:
            yield from self.drawn


class Standby:
    """``count`` lanes forked now, each running ``work(units, send)`` once woken; this
    process draws from the same queue (``mine``)."""

    def __init__(self, units: list[lanes.Unit], count: int, work: lanes.Work[VerifyResult]) -> None:
        import pickle  # noqa: F401  (before the forks: each lane sends with it)

        from codemode.worker.pool import adopt_orphans

        adopt_orphans()  # a lane killed mid-run leaves its worker to us, not to init
        queue, write = os.pipe()
        os.write(write, b"".join(n.to_bytes(4, "little") for n in range(len(units))))
        os.close(write)
        self.queue = queue
        self.mine: Iterable[lanes.Unit] = lanes._Drawn(queue, units)
        self.woken = 0
        self.started: list[tuple[int, int]] = []
        go, self.go = os.pipe()
        try:
            for _ in range(count):
                read, write = os.pipe()
                grow(write)  # a piece waits there while this process verifies a unit
                pid = os.fork()
                if pid == 0:  # the lane: never returns into the caller's code
                    os.close(read)
                    os.close(self.go)
                    lanes._lane(write, _Waiting(go, self.mine), work)
                os.close(write)
                self.started.append((pid, read))
        except BaseException:
            self.end()
            raise
        finally:
            os.close(go)
        self.pipes: lanes.Collector[VerifyResult] = lanes.Collector(self.started)

    def wake(self) -> None:
        """One more lane begins (none when all have)."""
        if self.woken < len(self.started):
            self.woken += 1
            with contextlib.suppress(OSError):
                os.write(self.go, b"g")

    def drain(self) -> None:
        """The pieces the lanes sent so far, taken without waiting."""
        self.pipes.pump(0)

    def finish(self) -> list[tuple[Any, VerifyResult]]:
        """Every piece the lanes sent, once all have ended (the ones never woken end now)."""
        self._close_go()
        while self.pipes.open:
            self.pipes.pump(None)
        return self.pipes.finished()

    def _close_go(self) -> None:
        if self.go >= 0:
            os.close(self.go)
            self.go = -1

    def end(self) -> None:
        """Reap the lanes (killed if still at work: this process is leaving on an error)."""
        self._close_go()
        for pid, read in self.started:
            lanes._end(pid, read)
        self.started = []
        if self.queue >= 0:
            os.close(self.queue)
            self.queue = -1


def at_once(cores: int) -> int:
    """Lanes woken before the first unit: those a lane beside this process's cannot keep
    busy (a lane keeps about two cores busy on cheap functions)."""
    return max(0, cores // 2 - 1)


def calls_outweigh_judging(result: VerifyResult, judged: float) -> bool:
    """Whether a unit's calls took longer (the cases' durations, in the worker) than this
    process took to judge them (``judged``: seconds of its CPU). By the median call, times
    the calls: one slow call (a first call that fills a cache, a pause for the CPU on a busy
    machine) is not the function's cost."""
    took = sorted(c.duration_ms or 0.0 for f in result.functions for c in f.cases)
    return bool(took) and took[len(took) // 2] * len(took) / 1000.0 > judged
