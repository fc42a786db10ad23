"""Run one function's pool on the old and the new version, side by side, and keep the
witnesses: calls whose outcome differs, the same on two runs of each side, and that read no
clock.

Each side is a worker of the project's interpreter rooted at that side's tree (the old tree
is written from git's objects; codemode never imports it). Both workers get the same
``PYTHONHASHSEED``, so a set's order is the same on both sides when the code is. The first
run of the pool is plain; only the calls whose outcomes differ run a second time on both
sides, with the clock watched, so the cost of stability is paid for the few that matter.
That second run is in two other workers, started with another hash seed when a first
difference is found: an outcome that follows the process's seed (a list made from a set of
strings) is the same on two runs of one process and differs in the next, so it is never a
witness (emoji 1.7's distinct_emoji_list drifted so, #18).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from codemode.behaviour.outcomes import Seen, difference, same, seen
from codemode.explore.offline.input_pool import PoolCall
from codemode.report.model import Witness
from codemode.report.witness import witness_call
from codemode.worker.pool import Outcome, Worker

CHUNK = 100  # calls per worker request: the budget is checked between requests
MAX_WITNESSES = 20  # per function: past this, more of the same says nothing new


class Budget(NamedTuple):
    """``[tool.codemode] diff_budget``: per function, the seconds and the calls it may take."""

    seconds: float = 2.0
    calls: int = 300


class FunctionDiff(NamedTuple):
    id: str
    witnesses: tuple[Witness, ...] = ()
    ran: int = 0  # calls run on both sides
    pool: int = 0  # calls the pool held
    note: str = ""  # the budget cut the search, nothing could run, ...


class _Recipe:
    """A method's instance, built in the worker: ``Class(*args, **kwargs)``."""

    def __init__(self, recipe: dict[str, Any]) -> None:
        self.recipe = recipe

    def __codemode_wire__(self) -> tuple[str, dict[str, Any]]:
        return "new", {**self.recipe, "calls": []}


def wire(case_id: str, call: PoolCall, *, watch_clock: bool = False) -> dict[str, Any]:
    """One pool call as a worker case (``record.wire_call``'s shape, without tracing)."""
    by_name = bool(call.kwargs) and not call.args
    out: dict[str, Any] = {
        "id": case_id,
        "args": list(call.args),
        "kwargs": dict(call.kwargs),
        "form": "inputs_dict" if by_name else "inputs_list",
        "input": dict(call.kwargs) if by_name else list(call.args),
        "types": [],
        "trace": False,
        "watch_clock": watch_clock,
        "build": True,  # a receiver's recipe becomes the instance
        "self": _Recipe(call.receiver) if call.receiver else None,
    }
    if call.exprs:
        out["exprs"] = call.exprs
    return out


class _Side(NamedTuple):
    worker: Worker
    target: str
    root: str


# Workers for the second run of the suspects, (old, new), with a hash seed the first run's
# workers do not have; started by the caller when first asked for.
Again = Callable[[], tuple[Worker, Worker]]


def _run(side: _Side, cases: list[dict[str, Any]], out: dict[str, Outcome]) -> None:
    # in the worker itself, not a forked child per request: both sides run the same calls in
    # the same order, so what one call leaves in module state reaches both alike
    for o in side.worker.run(side.target, cases, isolate=False):
        out[o.case] = o


def _both(
    old: _Side, new: _Side, cases: list[dict[str, Any]]
) -> tuple[dict[str, Outcome], dict[str, Outcome]]:
    """The cases on both sides at once: two processes, two cores."""
    got_old: dict[str, Outcome] = {}
    got_new: dict[str, Outcome] = {}
    thread = threading.Thread(target=_run, args=(old, cases, got_old), daemon=True)
    thread.start()
    _run(new, cases, got_new)
    thread.join()
    return got_old, got_new


def diff_function(
    function_id: str,
    pool: Sequence[PoolCall],
    old: _Side,
    new: _Side,
    budget: Budget,
    rel_tol: float = 1e-9,
    again: Again | None = None,
) -> FunctionDiff:
    started = time.monotonic()
    todo = list(pool[: budget.calls])
    roots = (old.root, new.root)
    look = _Looker(roots, rel_tol)
    ran = 0
    cut = ""
    for start in range(0, len(todo), CHUNK):
        if look.full():
            break  # enough differences to show: the rest would say the same
        if time.monotonic() - started > budget.seconds:
            cut = f"the diff budget ({budget.seconds:g} s) cut the search after {ran} of "
            cut += f"{len(pool)} inputs"
            break
        chunk = todo[start : start + CHUNK]
        cases = [wire(f"c{start + i}", c) for i, c in enumerate(chunk)]
        first_old, first_new = _both(old, new, cases)
        ran += len(chunk)
        look.first(chunk, cases, first_old, first_new)
    if not cut and len(pool) > budget.calls:
        cut = f"the diff budget ({budget.calls} calls) cut the search: {budget.calls} of "
        cut += f"{len(pool)} inputs run"
    if look.suspects and again is not None:
        old_again, new_again = again()
        old, new = old._replace(worker=old_again), new._replace(worker=new_again)
    witnesses = look.confirm(old, new, function_id)
    return FunctionDiff(function_id, tuple(witnesses), ran, len(pool), cut)


class _Looker:
    """The calls whose first outcomes differ, then those that stay so on a second run."""

    def __init__(self, roots: tuple[str, str], rel_tol: float) -> None:
        self.roots = roots
        self.rel_tol = rel_tol
        # case id -> (call, old outcome, new outcome, old Seen, new Seen)
        self.suspects: dict[str, tuple[PoolCall, Outcome, Seen, Seen]] = {}

    def full(self) -> bool:
        return len(self.suspects) >= 2 * MAX_WITNESSES

    def _seen(self, o: Outcome | None) -> Seen:
        if o is None:
            return Seen("error")
        return seen(o.kind, o.value, o.exc, o.clock, self.roots)

    def first(
        self,
        calls: Sequence[PoolCall],
        cases: Sequence[dict[str, Any]],
        got_old: dict[str, Outcome],
        got_new: dict[str, Outcome],
    ) -> None:
        for call, case in zip(calls, cases):
            cid = case["id"]
            if self.full():
                return
            a, b = self._seen(got_old.get(cid)), self._seen(got_new.get(cid))
            if difference(a, b, self.rel_tol) is not None:
                self.suspects[cid] = (call, got_new[cid], a, b)

    def confirm(self, old: _Side, new: _Side, function_id: str) -> list[Witness]:
        if not self.suspects:
            return []
        cases = [
            wire(cid, call, watch_clock=True) for cid, (call, _, _, _) in self.suspects.items()
        ]
        again_old, again_new = _both(old, new, cases)
        out: list[Witness] = []
        for cid, (call, new_outcome, a, b) in self.suspects.items():
            a2, b2 = self._seen(again_old.get(cid)), self._seen(again_new.get(cid))
            if a2.clock or b2.clock or a.clock or b.clock:
                continue  # the outcome may follow the day, not the change
            if not (same(a, a2, self.rel_tol) and same(b, b2, self.rel_tol)):
                continue  # nondeterministic on a side: its difference proves nothing
            kind = difference(a, b, self.rel_tol)
            if kind is None:
                continue
            out.append(_witness(function_id, call, new_outcome, a, b, kind))
            if len(out) >= MAX_WITNESSES:
                break
        return out


def _witness(
    function_id: str, call: PoolCall, new_outcome: Outcome, a: Seen, b: Seen, kind: Any
) -> Witness:
    # Expressions (a test's `parse(date(2024, 1, 31))`) were evaluated by the new side's
    # worker: the witness shows, and accept writes, the values it built.
    args: Sequence[Any] = call.args
    kwargs: dict[str, Any] = call.kwargs
    if call.exprs and new_outcome.args is not None:
        args, kwargs = new_outcome.args, new_outcome.kwargs or {}
    shown = witness_call(function_id, list(args), kwargs, call.receiver)
    return Witness(
        call=shown,
        old=a.shown(),
        new=b.shown(),
        kind=kind,
        args=tuple(args),
        kwargs=dict(kwargs) or None,
        receiver=call.receiver,
        source=call.source,
    )


def sides(old: Worker, new: Worker, old_id: str, new_id: str) -> tuple[_Side, _Side]:
    return _Side(old, old_id, str(old.root)), _Side(new, new_id, str(new.root))
