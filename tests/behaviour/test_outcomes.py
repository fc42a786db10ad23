"""The rules that decide whether two outcomes of one call differ, and how (#18): pure, no
process."""

from __future__ import annotations

from codemode.behaviour.outcomes import Seen, difference, same, seen


def test_values_compare_as_check_compares() -> None:
    assert difference(Seen("returned", 0.1 + 0.2), Seen("returned", 0.3)) is None
    assert difference(Seen("returned", [1, 2]), Seen("returned", [2, 1])) == "value"
    assert difference(Seen("returned", 1), Seen("returned", True)) == "value"


def test_returned_against_raised_is_a_change_of_value() -> None:
    raised = Seen("raised", exc_type="ValueError", message="bad")
    assert difference(Seen("returned", 3.0), raised) == "value"


def test_exception_type_and_message_changes_are_told_apart() -> None:
    a = Seen("raised", exc_type="ValueError", message="bad")
    assert difference(a, Seen("raised", exc_type="KeyError", message="bad")) == "exception"
    assert difference(a, Seen("raised", exc_type="ValueError", message="worse")) == "message"


def test_an_outcome_with_no_faithful_form_on_both_sides_is_no_difference() -> None:
    gen = {"$unrepresentable": "generator"}
    assert difference(Seen("returned", gen), Seen("returned", dict(gen))) is None
    assert difference(Seen("returned", gen), Seen("returned", [1])) == "value"


def test_a_side_that_did_not_run_is_no_difference() -> None:
    assert difference(Seen("error"), Seen("returned", 1)) is None


def test_addresses_and_the_sides_directories_are_not_a_change_of_message() -> None:
    old = seen(
        "raised",
        None,
        {"type": "E", "message": "<X at 0x7f00aa> in /tmp/old/m.py"},
        None,
        ["/tmp/old"],
    )
    new = seen(
        "raised",
        None,
        {"type": "E", "message": "<X at 0x7f11bb> in /tmp/new/m.py"},
        None,
        ["/tmp/new"],
    )
    assert difference(old, new) is None
    assert same(old, new)
