"""Which recorded calls are run against the mutants (#12): when there are more calls than
the worker runs, a call that reaches the same output by another route still gets in."""

from __future__ import annotations

from codemode.explore.record import CallRecord
from codemode.explore.selection.by_mutation import MAX_CANDIDATES, shortlist


def test_a_call_by_a_route_no_other_call_takes_is_run_against_the_mutants() -> None:
    # many calls print 'Hello' through lines 1-3; one reaches it through line 9 (a truncation
    # at a word): a mutant of line 9 is killed only by that call
    same = [
        CallRecord(n, ("Hello",), {"limit": n}, "returned", "Hello", lines=(1, 2, 3))
        for n in range(1, MAX_CANDIDATES + 50)
    ]
    other = CallRecord(999, ("Hello World",), {"limit": 5}, "returned", "Hello", lines=(1, 9))
    picked = shortlist([*same, other], [])
    assert len(picked) == MAX_CANDIDATES
    assert other in picked
