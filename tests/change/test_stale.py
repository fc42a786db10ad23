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


METHOD = """\
import os


class Shop:
    @staticmethod
    def price(x):
        if x > 1:
            return 2
        return 3

    def other(self):
        return os.sep
"""


def test_a_method_is_parsed_alone_at_its_own_line_numbers() -> None:
    # lines 5-9 (the decorator to the last return); line 7 changed, only line 6 ran
    assert unexecuted_changes(METHOD, 5, [7], executed={6}, end_lineno=9) == [7]
    assert unexecuted_changes(METHOD, 5, [7], executed={6, 7}, end_lineno=9) == []
    # a span that does not parse alone falls back to the file
    assert unexecuted_changes(METHOD, 5, [7], executed={6}, end_lineno=7) == [7]
