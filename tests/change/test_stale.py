from __future__ import annotations

from codemode.change.stale import unexecuted_changes

SOURCE = '''\
def initials(name):
    """Docstring."""
    if not name.strip():
        return "?"
    else:
        pass
    total = (
        1 +
        2
    )
    return "".join(p[0] for p in name.split())
'''


def test_a_new_branch_that_no_case_runs_is_reported() -> None:
    # lines 3-4 changed; the `if` ran, its body did not
    assert unexecuted_changes(SOURCE, 1, [3, 4], executed={1, 3, 7, 11}) == [4]


def test_continuation_lines_map_to_their_statement() -> None:
    assert unexecuted_changes(SOURCE, 1, [8, 9], executed={7}) == []
    assert unexecuted_changes(SOURCE, 1, [8, 9], executed=set()) == [7]


def test_else_and_docstring_lines_need_nothing() -> None:
    assert unexecuted_changes(SOURCE, 1, [2, 5], executed=set()) == []


def test_unparsable_source_is_not_stale() -> None:
    assert unexecuted_changes("def f(:\n", 1, [1], set()) == []
