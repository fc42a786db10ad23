"""Canonical data end to end: what the worker returns is compared by meaning, not by repr."""

from __future__ import annotations

import pytest
from ledger_report import Ledger


@pytest.mark.parametrize(
    ("ref", "observed"),
    [
        ("parsing.parse_version[tuple_equals_list]", [1, 2, 3]),
        ("parsing.tags[set_sorted]", ["rent", "tax"]),
        ("groups.unique_sorted[frozenset_sorted]", [1, 2, 3]),
        ("groups.chunk[pairs]", [[1, 2], [3, 4], [5]]),
        ("money.parse_money[dataclass_enum_as_data]", {"cents": 1250, "currency": "EUR"}),
        (
            "money.split_bill[namedtuple_as_data]",
            [
                {"person": "ann", "cents": 334},
                {"person": "bob", "cents": 334},
                {"person": "cy", "cents": 333},
            ],
        ),
        ("money.total[decimal_as_string]", "10.51"),
        ("groups.frequencies[counter_is_dict]", {"a": 2, "b": 1}),
        ("groups.lru_order[ordered_dict]", {"x": 0, "y": 1}),
        ("dates.next_business_day[friday_to_monday]", "2024-03-04"),
        ("dates.parse_timestamp[datetime_yaml]", "2024-05-06T07:08:09"),
        ("dates.grace_period[timedelta_seconds]", 172800.0),
        ("parsing.compile_rule[pattern_repr_is_faithful]", {"$repr": "re.compile('a+b')"}),
        (
            "models.promote[model_as_data]",
            {"name": "ann", "vip": True, "tags": ["early", "promoted"]},
        ),
    ],
)
def test_observed_values_are_canonical_data(ledger: Ledger, ref: str, observed: object) -> None:
    case = ledger.case(ref)
    assert (case.status, case.observed) == ("passed", observed)


def test_yaml_dates_reach_the_function_as_dates(ledger: Ledger) -> None:
    # days_between subtracts them: strings would raise TypeError.
    assert ledger.status("dates.days_between[leap_february]") == "passed"
    assert ledger.status("dates.days_between[kwargs_dates]") == "passed"
    assert ledger.status("dates.next_business_day[iso_string_expected]") == "passed"


def test_floats_compare_with_a_relative_tolerance(ledger: Ledger) -> None:
    case = ledger.case("money.convert[float_tolerance]")
    assert case.status == "passed"
    assert case.observed == pytest.approx(0.30000000000000004)
    assert ledger.status("money.convert[int_expected_float_observed]") == "passed"
    assert ledger.status("money.convert[bad_float_far]") == "drifted"


def test_nan_equals_nan_but_not_a_number(ledger: Ledger) -> None:
    assert ledger.status("money.average_price[nan_equals_nan]") == "passed"
    assert ledger.status("money.average_price[bad_nan_vs_number]") == "drifted"


def test_bool_is_never_equal_to_int(ledger: Ledger) -> None:
    assert ledger.status("money.is_refund[bool_true]") == "passed"
    assert ledger.status("money.is_refund[bad_bool_vs_int]") == "drifted"
    assert ledger.status("money.cents_or_flag[int_one]") == "passed"
    assert ledger.status("money.cents_or_flag[bad_int_vs_bool]") == "drifted"


def test_a_value_with_no_faithful_form_is_never_compared_by_its_repr(ledger: Ledger) -> None:
    case = ledger.case("parsing.make_parser[bad_no_faithful_form]")
    assert case.status == "drifted"
    assert case.observed == {"$unrepresentable": "ledger.parsing.make_parser.<locals>._Parser"}
    assert "no faithful form" in case.message
    assert "0x" not in case.message
