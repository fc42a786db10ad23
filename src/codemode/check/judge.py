"""The judging core: what one case's outcome means against its spec. Pure: no process, no file.

One evaluator per check (as pydantic-evals gives each evaluator its class), each returning an
``Evaluation``: passed, failed or skipped, with a one-line message and a flag that says the
spec itself cannot be judged as written (a bad regex, a type the worker cannot resolve, an
assertion the sandbox refused). ``judge`` applies them to one case; ``case_status`` turns
the evaluations into the case's status, ``function_status`` the cases into the verdict.
The worker and the Monty sandbox stay at the edges (``check.verify``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple, Protocol

from codemode import saferegex
from codemode.check.assertions import SandboxAnswer
from codemode.compare import DEFAULT_TOLERANCE, Tolerance, render, short, values_equal, window
from codemode.report.model import (
    CASE_DRIFTED,
    CASE_EMPTY,
    CASE_ERROR,
    CASE_FAILED,
    CASE_PASSED,
    CASE_SKIPPED,
    CaseResult,
    CaseStatus,
    Verdict,
)
from codemode.specs.types import CaseSpec, EvaluatorSpec
from codemode.worker.canonical import canonical, has_faithful_form
from codemode.worker.pool import Outcome

INVALID_REGEX = "invalid regex"
# A failed check by one of these names means the function's behaviour moved (drifted), not
# that an evaluator (type, pattern, assertion ...) did not hold (failed).
DRIFT_CHECKS = frozenset({"expected", "raises", "match", "exception"})
NOTHING_ASSERTED = "the case asserts nothing (add expected, raises or an evaluator)"
NOT_GIVEN: Any = object()  # ``judge``'s ``expected`` when the caller has not computed it


class Evaluation(NamedTuple):
    """One evaluator applied to one case."""

    name: str
    passed: bool | None  # None = skipped
    message: str = ""
    spec_error: bool = False  # the spec cannot be judged as written: the case is an error


class Evaluator(Protocol):
    """Judges a case that returned normally; None when it does not apply to this outcome."""

    def evaluate(self, case: CaseSpec, outcome: Outcome) -> Evaluation | None: ...


def _held(name: str, ok: bool, why: str) -> Evaluation:
    return Evaluation(name, ok, "" if ok else why)


def _search(name: str, pattern: str, text: str, ignore_case: bool = False) -> Evaluation | bool:
    try:
        return saferegex.search(pattern, text, ignore_case=ignore_case)
    except saferegex.RegexError as err:  # invalid or too slow: never hang the run
        return Evaluation(name, False, f"{INVALID_REGEX} {short(pattern)}: {err}", spec_error=True)


class Expected(NamedTuple):
    tol: Tolerance
    value: Any = NOT_GIVEN  # canonical(case.expected), when the caller has it already

    def evaluate(self, case: CaseSpec, outcome: Outcome) -> Evaluation | None:
        value = outcome.value
        if not has_faithful_form(value):
            why = f"the output has no faithful form to compare ({render(value)})"
            return Evaluation("expected", False, why)
        exp = canonical(case.expected) if self.value is NOT_GIVEN else self.value
        if values_equal(exp, value, self.tol):
            return Evaluation("expected", True)
        shown = window(exp, value)  # the differing characters, however long the values
        return Evaluation("expected", False, f"expected {shown[0]}, observed {shown[1]}")


class TypeIs(NamedTuple):
    """``type:``: the worker checked it (it holds the user's types); ``index`` into its answers."""

    name: str
    at: int

    def evaluate(self, case: CaseSpec, outcome: Outcome) -> Evaluation | None:
        answer = outcome.types[self.at] if self.at < len(outcome.types) else None
        if answer is None:
            return Evaluation(self.name, True)
        return Evaluation(self.name, False, answer.message, answer.spec_error)


class Contains(NamedTuple):
    needle: Any
    tol: Tolerance
    name: str = "contains"

    def evaluate(self, case: CaseSpec, outcome: Outcome) -> Evaluation | None:
        return contains(self.name, self.needle, outcome.value, self.tol)


class ContainsInput(NamedTuple):
    name: str
    as_strings: bool
    case_sensitive: bool
    tol: Tolerance

    def evaluate(self, case: CaseSpec, outcome: Outcome) -> Evaluation | None:
        needle, value = canonical(case.input_value), outcome.value
        if self.as_strings:
            needle, value = render(needle).strip('"'), render(value).strip('"')
        if not self.case_sensitive and isinstance(needle, str) and isinstance(value, str):
            needle, value = needle.lower(), value.lower()
        return contains(self.name, needle, value, self.tol)


class Pattern(NamedTuple):
    name: str
    pattern: str
    case_sensitive: bool = True

    def evaluate(self, case: CaseSpec, outcome: Outcome) -> Evaluation | None:
        value = outcome.value
        text = value if isinstance(value, str) else render(value)
        found = _search(self.name, self.pattern, text, ignore_case=not self.case_sensitive)
        if isinstance(found, Evaluation):
            return found
        return _held(self.name, found, f"{short(text)} does not match {self.pattern!r}")


class Duration(NamedTuple):
    name: str
    limit_ms: float

    def evaluate(self, case: CaseSpec, outcome: Outcome) -> Evaluation | None:
        took = outcome.duration_ms
        if took is None:
            return None
        return _held(self.name, took <= self.limit_ms, f"took {took:.3g} ms > {self.limit_ms:g} ms")


class Rubric(NamedTuple):
    name: str

    def evaluate(self, case: CaseSpec, outcome: Outcome) -> Evaluation | None:
        return Evaluation(self.name, None, "LLM judge skipped: `check` never calls a model")


def contains(name: str, needle: Any, value: Any, tol: Tolerance) -> Evaluation:
    if isinstance(value, str) and isinstance(needle, str):
        ok = needle in value
    elif isinstance(value, list):
        ok = any(values_equal(needle, v, tol) for v in value)
    elif isinstance(value, dict):
        ok = needle in value
    else:
        return Evaluation(name, False, f"cannot look for {short(needle)} in {short(value)}")
    return _held(name, ok, f"{short(value)} does not contain {short(needle)}")


def evaluators_for(
    case: CaseSpec, evals: Sequence[EvaluatorSpec], tol: Tolerance, expected: Any = NOT_GIVEN
) -> list[Evaluator]:
    """The case's own keys first, then the function's ``evals:``, in the order they are shown.

    Type checks take their answers in the order ``type_requests`` sent them to the worker.
    """
    return _own_evaluators(case, tol, expected) + function_evaluators(
        evals, tol, 1 if case.type else 0
    )


def _own_evaluators(case: CaseSpec, tol: Tolerance, expected: Any) -> list[Evaluator]:
    """The evaluators of the case's own keys (its ``type`` is the worker's first answer)."""
    out: list[Evaluator] = []
    if case.has_expected:
        out.append(Expected(tol, expected))
    if case.type:
        out.append(TypeIs("type", 0))
    if case.has_contains:
        out.append(Contains(canonical(case.contains), tol))
    if case.pattern is not None:
        out.append(Pattern("pattern", case.pattern, case.case_sensitive))
    if case.duration_ms is not None:
        out.append(Duration("duration", case.duration_ms))
    return out


def function_evaluators(
    evals: Sequence[EvaluatorSpec], tol: Tolerance, types: int = 0
) -> list[Evaluator]:
    """The evaluators of a function's ``evals:``, the same for each of its cases; ``types``:
    the worker's answers to type checks that come before theirs (a case's own ``type``)."""
    out: list[Evaluator] = []
    for ev in evals:
        if ev.kind == "type":
            out.append(TypeIs(ev.name, types))
            types += 1
        elif ev.kind == "pattern":
            p = ev.params
            out.append(Pattern(ev.name, p["pattern"], p.get("case_sensitive", True)))
        elif ev.kind == "duration":
            out.append(Duration(ev.name, float(ev.params["duration"]) * 1000.0))
        elif ev.kind == "contains_input":
            p = ev.params
            sens = p.get("case_sensitive", True)
            out.append(ContainsInput(ev.name, bool(p.get("as_strings")), sens, tol))
        elif ev.kind == "rubric":
            out.append(Rubric(ev.name))
    return out


def type_requests(case: CaseSpec, evals: Sequence[EvaluatorSpec]) -> list[dict[str, Any]]:
    """What the worker checks for ``TypeIs``: the case's ``type`` first, then ``evals:``."""
    types = []
    if case.type:
        types.append({"expr": case.type, "strict": case.strict_type})
    for ev in evals:
        if ev.kind == "type":
            types.append({"expr": ev.params["type"], "strict": bool(ev.params.get("strict"))})
    return types


def raises_ok(expected: str, exc: dict[str, Any]) -> bool:
    """``raises: LookupError`` is satisfied by a KeyError: compare along the class hierarchy."""
    if expected.strip().lower() == "any":
        return True
    return expected.strip() in set(exc.get("mro", []))


def judge_raises(case: CaseSpec, outcome: Outcome) -> list[Evaluation]:
    """``raises:`` (and ``match:``): exclusive with ``expected``; evaluators judge outputs only."""
    assert case.raises is not None
    exc = outcome.exc or {}
    message = exc.get("message", "")
    if outcome.kind != "raised":
        if case.raises_optional:  # `raises: X?` allows a normal return (no other exception)
            why = f"returned {short(outcome.value)} ({case.raises} is optional)"
            return [Evaluation("raises", True, why)]
        return [
            Evaluation("raises", False, f"expected {case.raises}, returned {short(outcome.value)}")
        ]
    if not raises_ok(case.raises, exc):
        why = f"expected {case.raises}, raised {exc.get('type')}: {message}"
        return [Evaluation("raises", False, why)]
    out = [Evaluation("raises", True)]
    if case.match:
        found = _search("match", case.match, str(message))
        if isinstance(found, Evaluation):
            out.append(found)
        else:
            why = f"message {message!r} does not match {case.match!r}"
            out.append(_held("match", found, why))
    return out


def judge(
    case: CaseSpec,
    outcome: Outcome,
    evals: Sequence[EvaluatorSpec] = (),
    tol: Tolerance = DEFAULT_TOLERANCE,
    expected: Any = NOT_GIVEN,
) -> list[Evaluation]:
    """Every check of one case that ran, except ``assertion:`` (Monty evaluates those in batches).

    ``expected``: ``canonical(case.expected)``, when the caller needs it too (one conversion of
    the expected value per case, not one per use)."""
    return Judge(evals, tol)(case, outcome, expected)


class Judge:
    """``judge`` for the cases of one function: its ``evals:`` made into evaluators once, not
    once for each case (#36)."""

    def __init__(self, evals: Sequence[EvaluatorSpec] = (), tol: Tolerance = DEFAULT_TOLERANCE):
        self.tol = tol
        self.shared = (function_evaluators(evals, tol, 0), function_evaluators(evals, tol, 1))

    def __call__(
        self, case: CaseSpec, outcome: Outcome, expected: Any = NOT_GIVEN
    ) -> list[Evaluation]:
        if case.raises:
            return judge_raises(case, outcome)
        if outcome.kind == "raised":
            exc = outcome.exc or {}
            msg = f"raised {exc.get('type')}: {exc.get('message', '')}"
            if exc.get("where"):
                msg += f" (at {exc['where']})"
            return [Evaluation("exception", False, "unexpected exception: " + msg)]
        out = []
        for evaluator in (
            *_own_evaluators(case, self.tol, expected),
            *self.shared[bool(case.type)],
        ):
            found = evaluator.evaluate(case, outcome)
            if found is not None:
                out.append(found)
        return out


def assertion_evaluation(name: str, expr: str, answer: bool | SandboxAnswer) -> Evaluation:
    if answer is True:
        return Evaluation(name, True)
    if answer is False:
        return Evaluation(name, False, f"assertion failed: {expr}")
    if answer.spec_error:
        return Evaluation(name, False, f"{answer.message} [assertion {expr!r}]", spec_error=True)
    return Evaluation(name, False, f"assertion {expr!r} raised {answer.message}")


class CaseJudgement(NamedTuple):
    status: CaseStatus
    message: str


_PASSED = CaseJudgement(CASE_PASSED, "")


def case_status(evaluations: Sequence[Evaluation]) -> CaseJudgement:
    """One case's status from its evaluations: a spec error first, then nothing judged, then drift."""
    failed = [e for e in evaluations if e.passed is False]
    if not failed:  # so no spec error either; the common case, answered first (#20)
        if not evaluations:
            return CaseJudgement(CASE_EMPTY, NOTHING_ASSERTED)
        for e in evaluations:
            if e.passed is not None:
                return _PASSED
        return CaseJudgement(CASE_SKIPPED, evaluations[0].message)
    spec_errors = [e for e in failed if e.spec_error]
    if spec_errors:
        # The spec itself is wrong (bad type, bad regex, an assertion the sandbox refused):
        # an error to fix, not a drift of the function.
        return CaseJudgement(CASE_ERROR, spec_errors[0].message)
    drifted = any(e.name in DRIFT_CHECKS for e in failed)
    return CaseJudgement(CASE_DRIFTED if drifted else CASE_FAILED, failed[0].message)


def function_status(cases: Sequence[CaseResult]) -> Verdict:
    statuses = {c.status for c in cases}
    if CASE_ERROR in statuses:
        return "error"
    if CASE_DRIFTED in statuses or CASE_FAILED in statuses:
        failing = [c for c in cases if c.status in (CASE_DRIFTED, CASE_FAILED)]
        return "message_changed" if all(map(message_only, failing)) else "drifted"
    return "ok"


def message_only(case: CaseResult) -> bool:
    """A drifted case whose only failed check is ``match``: the expected exception type was
    raised, with another message. Its function gets ``message_changed``, as a witness of
    that kind does (outside the default fail_on, #32: a bare ``except:`` narrowed should not
    block a commit for a message); the case stays drifted, shown with both messages."""
    failed = [c.name for c in case.checks if c.passed is False]
    return case.status == CASE_DRIFTED and bool(failed) and set(failed) == {"match"}
