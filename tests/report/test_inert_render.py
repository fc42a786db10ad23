"""The terminal report escapes data's control characters in every case it prints (#33), and
walks no passed case it does not print (#36: 2,000 passed cases were most of its time)."""

from __future__ import annotations

from codemode.report.inert import inert_report
from codemode.report.model import CaseResult, Check, FunctionResult, Report
from codemode.report.terminal import render

HOSTILE = "\x1b]0;pwned\x07\x1b[2J"


def _report() -> Report:
    passed = CaseResult(f"ok{HOSTILE}", "passed", 3, True, HOSTILE, HOSTILE)
    drifted = CaseResult(
        f"bad{HOSTILE}",
        "drifted",
        4,
        True,
        "a",
        HOSTILE,
        f"expected 'a', observed {HOSTILE}",
        checks=(Check("expected", False, HOSTILE),),
    )
    function = FunctionResult("shop.f", "drifted", "specs/s.yml", 1, (passed, drifted))
    return Report(functions=(function,))


def test_passed_cases_are_left_as_they_are_and_the_rest_escaped() -> None:
    report = _report()
    out = inert_report(report, passed_as_is=True)
    passed, drifted = out.functions[0].cases
    assert passed is report.functions[0].cases[0]
    assert "\x1b" not in repr(drifted).replace("\\x1b", "")
    assert drifted.observed == "\\x1b]0;pwned\\x07\\x1b[2J"


def test_a_record_with_nothing_to_escape_is_not_copied() -> None:
    case = CaseResult("plain", "drifted", 1, True, {"k": ["v"]}, 2, "expected 'v'")
    assert inert_report(case) is case


def test_no_control_character_reaches_the_terminal_verbose_or_not() -> None:
    for verbose in (False, True):
        out = render(_report(), verbose=verbose)
        assert "\x1b" not in out and "\x07" not in out
        assert "bad\\x1b]0;pwned" in out
        assert ("ok\\x1b]0;pwned" in out) is verbose
