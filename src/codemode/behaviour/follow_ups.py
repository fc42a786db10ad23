"""The calls that follow a returned callable up (#32).

A call whose outcome, on either side, is a callable (a key a factory returns, a wrapper, an
instance with ``__call__``) shows nothing by itself: the worker marks it (``Outcome.callable``)
and the diff runs, right after it, the same call with a ``then`` of the pool's
(``explore/offline/returned_probes.py``: the callable called on what the tests hand it, or a
list sorted with it as the key). Their outcomes are compared as any call's, and a witness shows
the whole (``natsort_keygen()(float('nan'))``). Bounded: ``PER_CALL`` follow-ups for each call
that returned one, ``MAX_FOLLOW_UPS`` for the function; the probes are read once, when the
first callable comes back.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from codemode.explore.offline.input_pool import PoolCall
    from codemode.worker.pool import Outcome

PER_CALL = 12  # follow-ups of one call that returned a callable
MAX_FOLLOW_UPS = 120  # for one function, over all its calls


class FollowUps:
    """The follow-ups still to run, read from ``probes`` when first needed."""

    def __init__(self, probes: Callable[[], list[dict[str, Any]]] | None) -> None:
        self.source = probes
        self.probes: list[dict[str, Any]] | None = None
        self.left = MAX_FOLLOW_UPS
        self.done: set[str] = set()  # the calls already followed up, by key

    def ups(
        self,
        calls: Sequence[PoolCall],
        cases: Sequence[dict[str, Any]],
        old: dict[str, Outcome],
        new: dict[str, Outcome],
    ) -> list[PoolCall]:
        """The follow-ups of ``calls`` whose outcome on a side is a callable."""
        out: list[PoolCall] = []
        for call, case in zip(calls, cases):
            if self.left <= 0 or self.source is None:
                break
            if call.then is not None or call.key() in self.done:
                continue
            got = [o for o in (old.get(case["id"]), new.get(case["id"])) if o is not None]
            if not any(getattr(o, "callable", False) for o in got):
                continue
            self.done.add(call.key())
            if self.probes is None:
                self.probes = self.source()
            taken = self.probes[: min(PER_CALL, self.left)]
            out += [call._replace(then=then) for then in taken]
            self.left -= len(taken)
        return out
