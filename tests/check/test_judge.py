"""The verdict rules on their own: evaluators, a case's status, a function's verdict and what a
change means for its specs. Values in, values out: no worker, no sandbox, no git (issue #14)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from codemode.change.diff import ChangedFunction, DiffResult
from codemode.check.assertions import SandboxAnswer
from codemode.check.classify import classify_change, to_verify
from codemode.check.judge import (
    NOTHING_ASSERTED,
    Evaluation,
    assertion_evaluation,
    case_status,
    function_status,
    judge,
)
from codemode.compare import DEFAULT_TOLERANCE
from codemode.report.model import CaseResult, FunctionResult
from codemode.specs.index import index_specs
from codemode.specs.types import CaseSpec, EvaluatorSpec, FunctionSpec, SpecFile
from codemode.worker.canonical import canonical
from codemode.worker.pool import Outcome, TypeMismatch


def returned(value: Any, **kw: Any) -> Outcome:
    return Outcome("c", "returned", value=value, **kw)


def raised(kind: str, message: str, mro: tuple[str, ...] = ()) -> Outcome:
    exc = {"type": kind, "message": message, "mro": [kind, *mro, "Exception"]}
    return Outcome("c", "raised", exc=exc)


def case(**kw: Any) -> CaseSpec:
    return CaseSpec("c", 1, **kw)


def test_expected_holds_within_the_float_tolerance_and_drifts_outside_it() -> None:
    spec = case(has_expected=True, expected=0.3)
    assert judge(spec, returned(0.1 + 0.2)) == [Evaluation("expected", True)]
    [drift] = judge(spec, returned(0.4))
    assert drift == Evaluation("expected", False, "expected 0.3, observed 0.4")
    assert case_status([drift]) == ("drifted", "expected 0.3, observed 0.4")


def test_raises_follows_the_class_hierarchy_and_match_is_a_search() -> None:
    spec = case(raises="LookupError", match=r"no \w+")
    outcome = raised("KeyError", "no such key", ("LookupError",))
    assert judge(spec, outcome) == [Evaluation("raises", True), Evaluation("match", True)]
    sibling = judge(spec, raised("IndexError", "no such key", ("LookupError",)))
    assert [e.passed for e in sibling] == [True, True]
    [wrong] = judge(spec, raised("ValueError", "bad"))
    assert wrong == Evaluation("raises", False, "expected LookupError, raised ValueError: bad")


def test_an_optional_raise_allows_a_return_and_a_missing_raise_is_drift() -> None:
    assert judge(case(raises="ValueError", raises_optional=True), returned(1))[0].passed is True
    [missing] = judge(case(raises="ValueError"), returned(1))
    assert (missing.passed, missing.message) == (False, "expected ValueError, returned 1")
    assert case_status([missing]).status == "drifted"


def test_an_unexpected_exception_fails_the_case_with_where_it_came_from() -> None:
    outcome = Outcome(
        "c", "raised", exc={"type": "ZeroDivisionError", "message": "x", "where": "m.py:3"}
    )
    [ev] = judge(case(has_expected=True, expected=1), outcome)
    assert ev == Evaluation(
        "exception", False, "unexpected exception: raised ZeroDivisionError: x (at m.py:3)"
    )


def test_a_bad_regex_is_a_spec_error_not_a_drift() -> None:
    [ev] = judge(case(pattern="(unclosed"), returned("text"))
    assert ev.spec_error and ev.message.startswith('invalid regex "(unclosed"')
    assert case_status([Evaluation("expected", False, "x"), ev]).status == "error"


def test_type_answers_come_in_request_order_case_first_then_evals() -> None:
    evals = (EvaluatorSpec("IsInt", "type", {"type": "int"}),)
    spec = case(type="str")
    outcome = returned(1, types=[TypeMismatch("expected type str, got int"), None])
    assert judge(spec, outcome, evals) == [
        Evaluation("type", False, "expected type str, got int"),
        Evaluation("IsInt", True),
    ]
    assert case_status(judge(spec, outcome, evals)).status == "failed"
    bad = returned(1, types=[TypeMismatch("cannot check type 'Nope'", spec_error=True)])
    assert case_status(judge(spec, bad)).status == "error"


def test_evaluators_judge_outputs_in_the_order_they_are_written() -> None:
    evals = (
        EvaluatorSpec("Short", "duration", {"duration": 0.001}),
        EvaluatorSpec("HasInput", "contains_input", {"case_sensitive": False}),
        EvaluatorSpec("Judge", "rubric", {"rubric": "is polite"}),
    )
    spec = case(input_value="Bob", contains="Hello", has_contains=True)
    got = judge(spec, returned("hello bob", duration_ms=5.0), evals)
    assert [(e.name, e.passed) for e in got] == [
        ("contains", False),
        ("Short", False),
        ("HasInput", True),
        ("Judge", None),
    ]
    assert got[1].message == "took 5 ms > 1 ms"


@pytest.mark.parametrize(
    ("answer", "passed", "spec_error", "message"),
    [
        (True, True, False, ""),
        (False, False, False, "assertion failed: output > 0"),
        (
            SandboxAnswer("ValueError: v"),
            False,
            False,
            "assertion 'output > 0' raised ValueError: v",
        ),
        (
            SandboxAnswer("sandbox error: no open", spec_error=True),
            False,
            True,
            "sandbox error: no open [assertion 'output > 0']",
        ),
    ],
)
def test_an_assertion_answer_becomes_an_evaluation(
    answer: bool | SandboxAnswer, passed: bool, spec_error: bool, message: str
) -> None:
    got = assertion_evaluation("Positive", "output > 0", answer)
    assert got == Evaluation("Positive", passed, message, spec_error)


def test_nothing_asserted_is_empty_and_only_skipped_is_skipped() -> None:
    assert case_status([]).status == "empty"
    assert case_status([Evaluation("Judge", None, "skipped")]) == ("skipped", "skipped")
    assert case_status([Evaluation("Judge", None), Evaluation("t", True)]).status == "passed"


def _status_by_the_rules(evaluations: list[Evaluation]) -> tuple[str, str]:
    """The status rules in the order the docs give them, written plainly."""
    failed = [e for e in evaluations if e.passed is False]
    spec_errors = [e for e in failed if e.spec_error]
    if spec_errors:
        return ("error", spec_errors[0].message)
    if not evaluations:
        return ("empty", NOTHING_ASSERTED)
    if all(e.passed is None for e in evaluations):
        return ("skipped", evaluations[0].message)
    if not failed:
        return ("passed", "")
    drifted = any(e.name in ("expected", "raises", "match", "exception") for e in failed)
    return ("drifted" if drifted else "failed", failed[0].message)


EVALUATIONS = st.lists(
    st.builds(
        Evaluation,
        st.sampled_from(["expected", "raises", "type", "pattern", "Judge"]),
        st.sampled_from([True, False, None]),
        st.sampled_from(["", "why", "other"]),
        st.booleans(),
    ),
    max_size=4,
)


@given(EVALUATIONS)
def test_a_case_status_follows_the_rules_in_their_order(evaluations: list[Evaluation]) -> None:
    # case_status answers the common case (nothing failed) first: the same statuses (#20).
    assert tuple(case_status(evaluations)) == _status_by_the_rules(evaluations)


@pytest.mark.parametrize("value", [3, 4, [1, 2], {"a": (1, 2)}, 0.30000000000000004, None])
def test_an_expected_value_converted_once_judges_as_before(value: Any) -> None:
    spec = case(has_expected=True, expected=(1, 2) if value == {"a": (1, 2)} else 3)
    outcome = returned(value)
    given_once = judge(spec, outcome, (), DEFAULT_TOLERANCE, canonical(spec.expected))
    assert given_once == judge(spec, outcome)


def test_a_function_is_an_error_before_it_is_drifted() -> None:
    def results(*statuses: Any) -> list[CaseResult]:
        return [CaseResult(str(i), s) for i, s in enumerate(statuses)]

    assert function_status(results("passed", "skipped", "empty")) == "ok"
    assert function_status(results("passed", "failed")) == "drifted"
    assert function_status(results("drifted", "error")) == "error"


# --- what a change means for its specs ---------------------------------------------------


def spec_file(rel: str, *ids: str) -> SpecFile:
    return SpecFile(Path(rel), rel, tuple(FunctionSpec(i, 3) for i in ids))


def diff(*functions: ChangedFunction, renames: dict[str, str] | None = None) -> DiffResult:
    head = {f.id for f in functions if f.status != "removed"}
    return DiffResult(tuple(functions), head, renames=renames or {})


def test_a_change_verifies_spec_d_functions_and_reports_the_rest_as_missing() -> None:
    index = index_specs([spec_file("specs/a.yaml", "m.f")])
    change = diff(
        ChangedFunction("m.f", "m.py", "modified"), ChangedFunction("m.g", "m.py", "added")
    )
    assert to_verify(change, index) == {"m.f"}
    got = classify_change(change, index, [FunctionResult("m.f", "ok", "specs/a.yaml", 3)])
    assert [(f.id, f.status, f.path) for f in got] == [
        ("m.f", "ok", "m.py"),
        ("m.g", "missing", "m.py"),
    ]


def test_a_passing_spec_that_runs_no_changed_line_is_stale() -> None:
    source = "def f(x):\n    if x:\n        return 1\n    return 2\n"
    change = diff(ChangedFunction("m.f", "m.py", "modified", lineno=1, changed_lines=(3,)))
    index = index_specs([spec_file("specs/a.yaml", "m.f")])
    ok = [FunctionResult("m.f", "ok", "specs/a.yaml", 3)]
    stale = classify_change(change, index, ok, {"m.f": {1, 2, 4}}, source={"m.py": source}.get)
    assert stale[0].status == "stale" and "m.py:3" in stale[0].message
    covered = classify_change(change, index, ok, {"m.f": {2, 3}}, source={"m.py": source}.get)
    assert covered[0].status == "ok"


def test_a_renamed_function_orphans_its_old_spec_once() -> None:
    change = diff(
        ChangedFunction("m.old", "m.py", "removed"),
        ChangedFunction("m.new", "m.py", "renamed", renamed_from="m.old"),
        renames={"m.old": "m.new"},
    )
    index = index_specs([spec_file("specs/a.yaml", "m.old")])
    got = classify_change(change, index, [])
    assert [(f.id, f.status, f.renamed_to, f.spec) for f in got] == [
        ("m.old", "orphaned", "m.new", "specs/a.yaml")
    ]


def test_shards_split_the_missing_functions_too() -> None:
    change = diff(*(ChangedFunction(f"m.f{i}", "m.py", "added") for i in range(20)))
    index = index_specs([])
    shards = [classify_change(change, index, [], shard=(k, 3)) for k in (1, 2, 3)]
    ids = sorted(f.id for s in shards for f in s)
    assert ids == sorted(f"m.f{i}" for i in range(20)) and all(shards)
