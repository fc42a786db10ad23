"""Every case key and semantic rule of the spec format (docs/architecture.md), judged on tests/data/ledger.

Each spec case whose id starts with ``bad_`` is wrong on purpose; the tests below say
which verdict each one must get, and why.
"""

from __future__ import annotations

import re

import pytest
from ledger_report import Ledger


@pytest.mark.parametrize(
    "ref",
    [
        "money.to_cents[whole]",
        "money.to_cents[half_up]",
        "money.with_vat[default_rate]",  # input: one positional argument
        "money.with_vat[positional_list]",  # inputs: list -> positional
        "money.with_vat[kwargs]",  # inputs: dict -> keyword arguments
        "text.greeting[as_strings]",
    ],
)
def test_expected_with_input_and_inputs_forms(ledger: Ledger, ref: str) -> None:
    assert ledger.status(ref) == "passed"


def test_expected_value_differs_is_drifted_with_both_values(ledger: Ledger) -> None:
    case = ledger.case("money.to_cents[bad_expected]")
    assert (case.status, case.expected, case.observed) == ("drifted", 1234, 1235)
    assert case.message == "expected 1234, observed 1235"


def test_expected_null_means_the_output_must_be_none(ledger: Ledger) -> None:
    assert ledger.status("parsing.maybe_int[expected_null]") == "passed"
    bad = ledger.case("parsing.maybe_int[bad_expected_null]")
    assert (bad.status, bad.has_expected, bad.expected, bad.observed) == ("drifted", True, None, 4)


def test_raises_exact_class_and_match_is_a_regex_search(ledger: Ledger) -> None:
    assert ledger.status("money.to_cents[garbage_raises]") == "passed"
    assert ledger.status("money.to_cents[match_is_search]") == "passed"  # not anchored
    assert ledger.status("money.convert[zero_rate]") == "passed"  # \d is a regex
    bad = ledger.case("money.to_cents[bad_match]")
    assert bad.status == "drifted"
    assert "does not match '^twelve'" in bad.message


def test_raises_follows_the_class_hierarchy(ledger: Ledger) -> None:
    # KeyError is a LookupError: a spec written against the base class holds.
    assert ledger.status("money.parse_money[lookup_error_by_hierarchy]") == "passed"
    assert ledger.status("parsing.lookup[missing_is_lookup_error]") == "passed"
    assert ledger.status("accounts.balance[unknown_is_lookup_error]") == "passed"
    assert ledger.status("money.parse_money[key_error_exact]") == "passed"
    # IndexError is a sibling of KeyError, not a base: drifted.
    assert ledger.status("money.parse_money[bad_sibling_class]") == "drifted"


def test_raises_any_and_optional(ledger: Ledger) -> None:
    assert ledger.status("money.parse_money[any_exception]") == "passed"
    assert ledger.status("money.parse_money[optional_raise_raises]") == "passed"
    returned = ledger.case("money.parse_money[optional_raise_returns]")
    assert returned.status == "passed"  # 'ValueError?' allows a normal return
    assert returned.observed == {"cents": 100, "currency": "USD"}


def test_raises_but_returned_and_wrong_exception_drift(ledger: Ledger) -> None:
    returned = ledger.case("money.to_cents[bad_raises_but_returned]")
    assert (returned.status, returned.message) == ("drifted", "expected ValueError, returned 100")
    wrong = ledger.case("money.to_cents[bad_wrong_exception]")
    assert wrong.status == "drifted"
    assert wrong.observed == {"raised": "ValueError", "message": "not an amount: '1e'"}


def test_an_unexpected_exception_fails_the_case(ledger: Ledger) -> None:
    case = ledger.case("money.to_cents[bad_unexpected_exception]")
    assert case.status == "drifted"
    assert case.message.startswith("unexpected exception: raised ValueError: not an amount")
    assert case.observed == {"raised": "ValueError", "message": "not an amount: 'abc'"}


def test_contains_on_strings_lists_and_dict_keys(ledger: Ledger) -> None:
    assert ledger.status("parsing.parse_kv[contains_key]") == "passed"  # dict: a key
    assert ledger.status("parsing.parse_row[contains_cell]") == "passed"  # tuple -> list
    assert ledger.status("parsing.tags[contains_tag]") == "passed"  # set -> list
    assert ledger.status("groups.unique_sorted[contains_member]") == "passed"
    assert ledger.status("dates.month_ends[leap_year]") == "passed"  # a YAML date
    bad = ledger.case("parsing.parse_kv[bad_contains]")
    assert (bad.status, bad.message) == ("failed", '{"a": "1"} does not contain "z"')


def test_pattern_and_case_sensitive(ledger: Ledger) -> None:
    assert ledger.status("text.initials[pattern_case_sensitive]") == "passed"
    assert ledger.status("text.initials[pattern_insensitive]") == "passed"
    assert ledger.status("text.initials[bad_pattern_sensitive]") == "failed"
    assert ledger.status("dates.quarter[q4]") == "passed"


def test_assertion_sees_input_output_expected(ledger: Ledger) -> None:
    assert ledger.status("text.initials[assertion_input]") == "passed"
    assert ledger.status("text.initials[assertion_expected]") == "passed"
    assert ledger.status("dates.month_ends[count]") == "passed"  # dates as ISO strings
    assert ledger.status("parsing.parse_bytes[bytes_type]") == "passed"  # bytes stay bytes
    assert ledger.status("groups.index_by_pair[tuple_keys]") == "passed"
    bad = ledger.case("text.initials[bad_assertion]")
    assert (bad.status, bad.message) == ("failed", "assertion failed: output == 'B'")


def test_duration_in_milliseconds_per_case(ledger: Ledger) -> None:
    assert ledger.status("text.slugify[spaces]") == "passed"  # duration: 2000 (ms)
    slow = ledger.case("text.slugify[bad_duration_ms]")
    assert slow.status == "failed"
    assert re.fullmatch(r"took [0-9.e-]+ ms > 1e-06 ms", slow.message), slow.message
    assert not slow.message.startswith("took 0.0 ms")


@pytest.mark.parametrize(
    "ref",
    [
        "parsing.parse_version[tuple_type]",  # tuple[int, int, int]
        "parsing.parse_version[tuple_ellipsis]",  # tuple[int, ...]
        "parsing.tags[set_type]",  # set[str]
        "parsing.maybe_int[optional_type_none]",  # Optional[int]
        "parsing.maybe_int[union_type_int]",  # int | None
        "groups.group_by[by_currency]",  # dict[str, list[dict]]
        "groups.frequencies[counter_is_dict]",  # a Counter is a dict[str, int]
        "groups.chunk[pairs]",  # list[tuple[int, ...]]
        "groups.unique_sorted[frozenset_sorted]",
        "groups.first_over[found]",
        "groups.first_over[none_found]",
        "groups.lru_order[ordered_dict]",  # typing.OrderedDict[str, int]
        "dates.parse_timestamp[datetime_iso]",  # type: datetime
        "dates.grace_period[timedelta_seconds]",
        "parsing.make_parser[type_only]",  # object
    ],
)
def test_type_accepts(ledger: Ledger, ref: str) -> None:
    case = ledger.case(ref)
    assert case.status == "passed", case.message


@pytest.mark.parametrize(
    ("ref", "message"),
    [
        ("parsing.parse_version[bad_tuple_type]", "expected type tuple[int, int], got tuple"),
        ("parsing.maybe_int[bad_union_type]", "expected type str | None, got int"),
        ("groups.chunk[bad_generic_type]", "expected type list[list[int]], got list"),
        ("groups.first_over[bad_float_type_for_int]", "expected type float, got int"),
    ],
)
def test_type_rejects(ledger: Ledger, ref: str, message: str) -> None:
    case = ledger.case(ref)
    assert (case.status, case.message) == ("failed", message)


def test_strict_type_wants_the_exact_class(ledger: Ledger) -> None:
    bad = ledger.case("groups.frequencies[strict_counter_is_not_dict]")
    assert (bad.status, bad.message) == ("failed", "expected type dict (strict), got Counter")
    assert ledger.status("groups.frequencies[strict_counter]") == "passed"


def test_a_case_that_asserts_nothing_is_empty(ledger: Ledger) -> None:
    case = ledger.case("text.initials[nothing_asserted]")
    assert case.status == "empty"
    assert "asserts nothing" in case.message
    assert ledger.function("text.initials").status == "drifted"  # its other bad_ cases


def test_prints_of_the_function_do_not_reach_the_result(ledger: Ledger) -> None:
    case = ledger.case("text.shout[prints_are_kept_off]")
    assert (case.status, case.observed) == ("passed", "QUIET!")


def test_function_verdicts(ledger: Ledger) -> None:
    ok = ["money.with_vat", "money.split_bill", "dates.days_between", "text.emails"]
    assert {fid: ledger.function(fid).status for fid in ok} == dict.fromkeys(ok, "ok")
    drifted = ["money.to_cents", "money.convert", "parsing.maybe_int", "text.slugify"]
    assert {fid: ledger.function(fid).status for fid in drifted} == dict.fromkeys(
        drifted, "drifted"
    )
    assert ledger.report.problems == ()
