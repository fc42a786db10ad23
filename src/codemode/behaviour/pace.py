"""How many calls the diff's next request to the workers holds, at the pace seen so far."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from codemode.behaviour.bounded import Ran

CHUNK = 100  # calls per worker request, at most
FIRST = 4  # calls in the first request, before the function's pace is known


class Steps:
    """How many calls the next request holds: a few first, then as many as fit in a quarter of
    the time left at the pace seen so far (at least 50 ms of them), up to CHUNK; none when
    the next call would not end before the deadline."""

    def __init__(self) -> None:
        self.pace: float | None = None  # seconds per call, the slower side's
        # a request's own cost, beyond its calls' (sending it, the worker's reply reaching
        # this process): the most a request's first reply took over the pace, the start-up
        # request's aside. Unreserved, a pool that ran to the deadline's margin left its
        # differences no time for their second run on a loaded machine (w3lib 2.0.1's
        # safe_download_url: 11 found, none run again, so not flagged; #32)
        self.latency = 0.0
        self.requests = 0

    def took(self, *sides: Ran) -> None:
        paces = [_pace(list(r.took.values())) for r in sides if r.took]
        if not paces:
            return
        self.requests += 1
        if self.requests > 1 and self.pace is not None:
            first = [next(iter(r.took.values())) for r in sides if r.took]
            self.latency = max(self.latency, max(first) - self.pace)
        self.pace = max(paces)

    def size(self, left: float) -> int:
        if left <= 0 or (self.pace is not None and left < self.pace):
            return 0
        if self.pace is None:
            return FIRST
        return max(1, min(CHUNK, int(max(left / 4, 0.05) / max(self.pace, 1e-6))))


def _pace(took: list[float]) -> float:
    """Seconds per call: the first reply of a request also waited for the worker to start
    and import the function, so it counts only when it is the only one."""
    rest = took[1:] or took
    return sum(rest) / len(rest)
