from __future__ import annotations

from codemode.report.model import (
    CaseResult,
    Check,
    Cost,
    FunctionResult,
    Problem,
    Report,
    SpecEdit,
    SpecReview,
    merge_reports,
)
from codemode.scope import Scope


def sample() -> Report:
    case = CaseResult(
        "basic",
        "drifted",
        12,
        True,
        90.0,
        91.0,
        "expected 90.0, observed 91.0",
        "",
        0.5,
        (Check("expected", False, "expected 90.0, observed 91.0"),),
        True,
    )
    return Report(
        functions=(
            FunctionResult("shop.pricing.f", "drifted", "specs/p.yml", 10, (case,)),
            FunctionResult("shop.pricing.g", "ok", "specs/p.yml", 20),
            FunctionResult("shop.old", "orphaned", "specs/p.yml", 30, renamed_to="shop.new"),
        ),
        problems=(Problem("specs/bad.yml", 3, "unknown key 'x'"),),
        edits=(SpecEdit("specs/p.yml", "--- a\n+++ b\n", False, "2 cases"),),
        reviews=(SpecReview("specs/p.yml", ("a",), ("b",), ("c",)),),
        cost=Cost(2, 1000, 200, 0.01, "openai:gpt-4.1-mini"),
        notes=("a note",),
        mode="check",
        scope=Scope("staged"),
    )


def test_json_round_trip_is_lossless() -> None:
    report = sample()
    assert Report.from_json(report.to_json()) == report


def test_counts_and_failing() -> None:
    report = sample()
    assert report.counts()["drifted"] == 1
    assert report.counts()["orphaned"] == 1
    assert report.failing(("drifted",))
    assert report.failing(("error",))  # a spec problem is an error
    assert not Report(functions=report.functions[1:2]).failing(("drifted", "error"))


def test_sorted_functions_puts_the_most_important_first() -> None:
    assert [f.status for f in sample().sorted_functions()] == ["drifted", "orphaned", "ok"]


def test_merge_combines_shards_and_costs() -> None:
    a = Report(functions=(FunctionResult("m.a", "ok"),), cost=Cost(1, 10, 1, 0.5))
    b = Report(functions=(FunctionResult("m.b", "drifted"),), cost=Cost(2, 20, 2, None))
    merged = merge_reports([a, b])
    assert [f.id for f in merged.functions] == ["m.a", "m.b"]
    assert merged.cost == Cost(3, 30, 3, 0.5, None)


def test_merge_keeps_the_worse_verdict_for_a_function_seen_twice() -> None:
    a = Report(functions=(FunctionResult("m.a", "ok"),))
    b = Report(functions=(FunctionResult("m.a", "error", message="boom"),))
    assert merge_reports([a, b]).functions == (FunctionResult("m.a", "error", message="boom"),)


def test_the_verdict_words_are_one_list() -> None:
    """codemode.verdicts' Literals are the definition; config (the core, which may not import
    the report stage) parses --fail-on and [tool.codemode] fail_on with the same objects."""
    from typing import get_args

    from codemode import config, verdicts
    from codemode.report import model

    assert get_args(verdicts.Verdict) == verdicts.VERDICTS
    assert get_args(verdicts.ReviewVerdict) == verdicts.REVIEW_VERDICTS
    assert config.FAIL_ON_WORDS is verdicts.FAIL_ON_WORDS
    assert verdicts.FAIL_ON_WORDS == verdicts.VERDICTS + verdicts.REVIEW_VERDICTS
    assert set(verdicts.DEFAULT_FAIL_ON) <= set(verdicts.FAIL_ON_WORDS)
    assert get_args(model.CaseStatus) == model.CASE_STATUSES
