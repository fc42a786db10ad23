"""The tests' calls a function's pool left out, counted by reason and said in the report (#32).

A harvested call that cannot carry what its arguments need from its test file (a fixture's
value, a name bound nowhere the file says) is dropped with a reason
(explore/offline/test_names.py). Those counts are a measure of how much of the tests the
diff could not use: the report says them, never leaves them out silently.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from codemode.behaviour.engine import FunctionDiff
    from codemode.explore.offline.input_pool import PoolCall


def dropped(pool: Sequence[PoolCall]) -> tuple[tuple[str, int], ...]:
    """The pool's left-out test calls by reason, most first (``input_pool.Pool.dropped``)."""
    counts = getattr(pool, "dropped", None) or {}
    return tuple(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def dropped_notes(diffs: Sequence[FunctionDiff]) -> list[str]:
    """One line for the tests' calls the pools left out, by reason: a pool that could not
    carry a call says so, never silently (#32): in the terminal and among the JSON's notes."""
    total: dict[str, int] = {}
    for d in diffs:
        for reason, n in d.dropped:
            total[reason] = total.get(reason, 0) + n
    if not total:
        return []
    n = sum(total.values())
    calls = "call" if n == 1 else "calls"
    why = "; ".join(f"{k}: {v}" for k, v in sorted(total.items(), key=lambda kv: (-kv[1], kv[0])))
    return [f"behaviour diff: {n} test {calls} could not be carried into the pools ({why})"]


def no_inputs(left_out: Sequence[tuple[str, int]]) -> str:
    """The note of a function whose pool is empty, saying why: the tests' calls of it that
    could not be carried, by reason, or that no source gave one (#32)."""
    note = "no inputs to compare the versions on: "
    n = sum(count for _, count in left_out)
    if not n:
        return note + (
            "no test, docstring or caller of the project calls it, and its parameters' "
            "annotations and names suggest no value"
        )
    why = "; ".join(f"{reason}: {count}" for reason, count in left_out)
    calls = "call of it" if n == 1 else "calls of it"
    return note + f"the tests' {n} {calls} could not be carried ({why})"
