"""Each target's pool of inputs (``explore.offline.input_pool.pool_for``), built one ahead
in a thread of the process that diffs them (``check_change.run_part``), each waited for at
most ``bounded.POOL_LIMIT`` seconds: a pool later than that is None, its function said not
compared, and the build goes on to the next function's (#32)."""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

from codemode.behaviour import bounded

if TYPE_CHECKING:
    from typing import TypeAlias

    from codemode.behaviour.parallel import Part
    from codemode.explore.offline.input_pool import PoolCall

    # (the target's place in the part, its pool), or the exception that stopped the build
    _Item: TypeAlias = tuple[int, list[PoolCall]] | BaseException


class Pools:
    """Each target's pool, built one ahead in a thread: the parent reads sources while the
    two workers run the previous function's calls (they wait on pipes, not on the parent)."""

    def __init__(self, part: Part) -> None:
        self.part = part
        self.ready: queue.Queue[_Item] = queue.Queue(maxsize=1)
        self.stopped = False
        self.thread = threading.Thread(target=self._build, daemon=True)
        self.thread.start()

    def _build(self) -> None:
        from codemode.explore.offline.input_pool import pool_for

        part = self.part
        for i, (f, spec_inputs) in enumerate(zip(part.targets, part.spec_inputs)):
            if self.stopped:
                return
            try:
                pool = pool_for(
                    part.config,
                    f.id,
                    old_root=part.old_root,
                    new_root=part.new_root,
                    old_id=f.renamed_from or f.id,
                    spec_inputs=spec_inputs,
                    old_files=part.old_files,
                )
            except BaseException as exc:  # re-raised in the caller's thread
                self._put(exc)
                return
            self._put((i, pool))

    def _put(self, item: _Item) -> None:
        # never blocked for good: a caller that stopped reads nothing more
        while not self.stopped:
            try:
                self.ready.put(item, timeout=0.05)
                return
            except queue.Full:
                continue

    def __iter__(self) -> Iterator[list[PoolCall] | None]:
        """Each target's pool in order; None for one not built within ``POOL_LIMIT`` seconds
        of being asked for (it is dropped when it comes)."""
        for i in range(len(self.part.targets)):
            yield self._wait(i, time.monotonic() + bounded.POOL_LIMIT)

    def _wait(self, i: int, until: float) -> list[PoolCall] | None:
        while True:
            try:
                item = self.ready.get(timeout=max(until - time.monotonic(), 0.001))
            except queue.Empty:
                return None
            if isinstance(item, BaseException):
                raise item
            if item[0] == i:
                return item[1]
            # an earlier target's pool, come after its function was said not compared

    def stop(self) -> None:
        """The build stops at its next pool, and waits for no one: a build past its bound
        may still be reading."""
        self.stopped = True
