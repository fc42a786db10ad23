"""Each target's pool of inputs (``explore.offline.input_pool.pool_for``), built one ahead
in a thread of the process that diffs them (``check_change.run_part``)."""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from codemode.behaviour.parallel import Part
    from codemode.explore.offline.input_pool import PoolCall


class Pools:
    """Each target's pool, built one ahead in a thread: the parent reads sources while the
    two workers run the previous function's calls (they wait on pipes, not on the parent)."""

    def __init__(self, part: Part) -> None:
        self.part = part
        self.ready: queue.Queue[list[PoolCall] | BaseException] = queue.Queue(maxsize=1)
        self.stopped = False
        self.thread = threading.Thread(target=self._build, daemon=True)
        self.thread.start()

    def _build(self) -> None:
        from codemode.explore.offline.input_pool import pool_for

        part = self.part
        for f, spec_inputs in zip(part.targets, part.spec_inputs):
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
                self.ready.put(exc)
                return
            self.ready.put(pool)

    def __iter__(self) -> Iterator[list[PoolCall]]:
        for _ in self.part.targets:
            item = self.ready.get()
            if isinstance(item, BaseException):
                raise item
            yield item

    def stop(self) -> None:
        self.stopped = True
        while self.thread.is_alive():  # let a blocked put finish
            try:
                self.ready.get(timeout=0.05)
            except Exception:
                pass
