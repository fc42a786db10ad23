"""Run each case in the worker and judge it against its spec: a verdict per case and function.

A verdict is data, not an exception: timeouts, crashes, import errors and bad specs all
become ``error`` results naming the file, the line and the cause, and the run goes on.
"""

from __future__ import annotations

import base64
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from codemode import saferegex
from codemode.check.assertions import SANDBOX_ERROR, AssertionSandbox
from codemode.compare import describe, render, short, values_equal, window
from codemode.config import Config
from codemode.report.model import (
    CASE_DRIFTED,
    CASE_EMPTY,
    CASE_ERROR,
    CASE_FAILED,
    CASE_PASSED,
    CASE_SKIPPED,
    CaseResult,
    Check,
    FunctionResult,
    Problem,
)
from codemode.shard import in_shard
from codemode.specs.types import CaseSpec, EvaluatorSpec, FunctionSpec, SpecFile
from codemode.worker.pool import Outcome, Worker
from codemode.worker.runtime import BYTES_TAG, canonical, has_faithful_form


@dataclass
class VerifyResult:
    functions: list[FunctionResult] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    # function id -> lines of the target that its cases executed (when traced)
    lines: dict[str, set[int]] = field(default_factory=dict)


def _wire_case(
    case: CaseSpec, evaluators: tuple[EvaluatorSpec, ...], trace: bool
) -> dict[str, Any]:
    types = []
    if case.type:
        types.append({"expr": case.type, "strict": case.strict_type})
    for ev in evaluators:
        if ev.kind == "type":
            types.append({"expr": ev.params["type"], "strict": bool(ev.params.get("strict"))})
    return {
        "id": case.id,
        "args": list(case.args),
        "kwargs": case.kwargs,
        "form": case.input_form,
        "input": case.input_value,
        "types": types,
        "trace": trace,
    }


def _observed(outcome: Outcome) -> Any:
    if outcome.kind == "returned":
        return outcome.value
    if outcome.kind == "raised" and outcome.exc:
        return {"raised": outcome.exc.get("type"), "message": outcome.exc.get("message", "")}
    return None


def _raises_ok(expected: str, exc: dict[str, Any]) -> bool:
    """``raises: LookupError`` is satisfied by a KeyError: compare along the class hierarchy."""
    if expected.strip().lower() == "any":
        return True
    names = set(exc.get("mro", []))
    return expected.strip() in names


@dataclass
class _Pending:
    """A case judged except for its assertions, which are evaluated in batches in Monty."""

    case: CaseSpec
    outcome: Outcome
    checks: list[Check]
    assertion_slots: list[tuple[str, str, int]]  # (check name, expr, index in expr's batch)


class Verifier:
    def __init__(
        self, config: Config, worker: Worker, sandbox: AssertionSandbox | None = None
    ) -> None:
        self.config = config
        self.worker = worker
        self.sandbox = sandbox or AssertionSandbox()
        self._own_sandbox = sandbox is None  # then verify() stops its process when done
        self.rel_tol = config.float_tolerance

    # --- one case, everything but assertions --------------------------------------------

    def _judge(self, case: CaseSpec, func: FunctionSpec, outcome: Outcome) -> list[Check]:
        checks: list[Check] = []
        exc = outcome.exc or {}
        if case.raises:
            if outcome.kind == "raised":
                ok = _raises_ok(case.raises, exc)
                msg = (
                    ""
                    if ok
                    else f"expected {case.raises}, raised {exc.get('type')}: {exc.get('message', '')}"
                )
                checks.append(Check("raises", ok, msg))
                if ok and case.match:
                    try:
                        m = saferegex.search(case.match, str(exc.get("message", "")))
                    except saferegex.RegexError as err:  # invalid or too slow: never hang the run
                        checks.append(
                            Check("match", False, f"{INVALID_REGEX} {short(case.match)}: {err}")
                        )
                    else:
                        checks.append(
                            Check(
                                "match",
                                bool(m),
                                ""
                                if m
                                else f"message {exc.get('message', '')!r} does not match {case.match!r}",
                            )
                        )
            elif case.raises_optional:
                # `raises: X?` allows a normal return: the case held (no other exception).
                checks.append(
                    Check(
                        "raises",
                        True,
                        f"returned {short(outcome.value)} ({case.raises} is optional)",
                    )
                )
            else:
                checks.append(
                    Check(
                        "raises", False, f"expected {case.raises}, returned {short(outcome.value)}"
                    )
                )
            return checks  # raises and expected are exclusive; evaluators judge outputs only
        if outcome.kind == "raised":
            msg = f"raised {exc.get('type')}: {exc.get('message', '')}"
            if exc.get("where"):
                msg += f" (at {exc['where']})"
            checks.append(Check("exception", False, "unexpected exception: " + msg))
            return checks
        value = outcome.value
        if case.has_expected:
            exp = canonical(case.expected)
            if not has_faithful_form(value):
                checks.append(
                    Check(
                        "expected",
                        False,
                        f"the output has no faithful form to compare ({render(value)})",
                    )
                )
            else:
                ok = values_equal(exp, value, self.rel_tol)
                shown = window(exp, value)  # the differing characters, however long the values
                checks.append(
                    Check("expected", ok, "" if ok else f"expected {shown[0]}, observed {shown[1]}")
                )
        type_results = iter(outcome.types)
        if case.type:
            type_err = next(type_results, None)
            checks.append(Check("type", type_err is None, type_err or ""))
        if case.has_contains:
            checks.append(self._contains(canonical(case.contains), value))
        if case.pattern is not None:
            checks.append(self._pattern(case.pattern, case.case_sensitive, value))
        if case.duration_ms is not None and outcome.duration_ms is not None:
            ok = outcome.duration_ms <= case.duration_ms
            checks.append(
                Check(
                    "duration",
                    ok,
                    "" if ok else f"took {outcome.duration_ms:.3g} ms > {case.duration_ms:g} ms",
                )
            )
        for ev in func.evaluators:
            if ev.kind == "type":
                type_err = next(type_results, None)
                checks.append(Check(ev.name, type_err is None, type_err or ""))
            elif ev.kind == "pattern":
                checks.append(
                    self._pattern(
                        ev.params["pattern"], ev.params.get("case_sensitive", True), value, ev.name
                    )
                )
            elif ev.kind == "duration" and outcome.duration_ms is not None:
                limit = float(ev.params["duration"]) * 1000.0
                ok = outcome.duration_ms <= limit
                checks.append(
                    Check(
                        ev.name,
                        ok,
                        "" if ok else f"took {outcome.duration_ms:.3g} ms > {limit:g} ms",
                    )
                )
            elif ev.kind == "contains_input":
                checks.append(self._contains_input(ev, case, value))
            elif ev.kind == "rubric":
                checks.append(
                    Check(ev.name, None, "LLM judge skipped: `check` never calls a model")
                )
        return checks

    def _contains(self, needle: Any, value: Any, name: str = "contains") -> Check:
        if isinstance(value, str) and isinstance(needle, str):
            ok = needle in value
        elif isinstance(value, list):
            ok = any(values_equal(needle, v, self.rel_tol) for v in value)
        elif isinstance(value, dict):
            ok = needle in value
        else:
            return Check(name, False, f"cannot look for {short(needle)} in {short(value)}")
        return Check(name, ok, "" if ok else f"{short(value)} does not contain {short(needle)}")

    def _contains_input(self, ev: EvaluatorSpec, case: CaseSpec, value: Any) -> Check:
        needle = canonical(case.input_value)
        if ev.params.get("as_strings"):
            needle, value = render(needle).strip('"'), render(value).strip('"')
        if (
            not ev.params.get("case_sensitive", True)
            and isinstance(needle, str)
            and isinstance(value, str)
        ):
            needle, value = needle.lower(), value.lower()
        return self._contains(needle, value, ev.name)

    @staticmethod
    def _pattern(pattern: str, case_sensitive: bool, value: Any, name: str = "pattern") -> Check:
        text = value if isinstance(value, str) else render(value)
        try:
            ok = saferegex.search(pattern, text, ignore_case=not case_sensitive)
        except saferegex.RegexError as exc:
            return Check(name, False, f"{INVALID_REGEX} {short(pattern)}: {exc}")
        return Check(name, ok, "" if ok else f"{short(text)} does not match {pattern!r}")

    # --- one function -------------------------------------------------------------------

    def verify_function(
        self, spec: SpecFile, func: FunctionSpec, trace: bool = False
    ) -> tuple[FunctionResult, set[int]]:
        if func.error:
            return FunctionResult(func.id, "error", spec.rel, func.line, message=func.error), set()
        runnable = [c for c in func.cases if c.error is None]
        outcomes: dict[str, Outcome] = {}
        if runnable:
            fixtures = [spec.fixtures[n].to_wire() for n in func.fixtures]
            serializer = spec.serializers[func.serializer].to_wire() if func.serializer else None
            for o in self.worker.run(
                func.id,
                [_wire_case(c, func.evaluators, trace) for c in runnable],
                fixtures=fixtures,
                fixture_names=list(func.fixtures),
                serializer=serializer,
                file_key=spec.rel,
            ):
                outcomes[o.case] = o
        lines: set[int] = set()
        pending: list[_Pending] = []
        batches: dict[str, list[tuple[Any, ...]]] = {}
        # Keyed by the case object, not its id: a duplicate id (reported as that case's
        # error) must not overwrite the verdict of the first case of that id.
        results: dict[int, CaseResult] = {}
        for case in func.cases:
            if case.error:
                results[id(case)] = CaseResult(
                    case.id, CASE_ERROR, case.line, message=case.error, generated=case.generated
                )
                continue
            outcome = outcomes.get(case.id) or Outcome(
                case.id, "error", message="no result from the worker"
            )
            if outcome.kind == "error":
                results[id(case)] = CaseResult(
                    case.id,
                    CASE_ERROR,
                    case.line,
                    case.has_expected,
                    _expected(case),
                    None,
                    message=outcome.message,
                    generated=case.generated,
                )
                continue
            if outcome.lines:
                lines.update(outcome.lines)
            checks = self._judge(case, func, outcome)
            slots: list[tuple[str, str, int]] = []
            if outcome.kind == "returned":
                exprs = [("assertion", case.assertion)] if case.assertion else []
                exprs += [
                    (ev.name, ev.params["assertion"])
                    for ev in func.evaluators
                    if ev.kind == "assertion"
                ]
                if exprs:
                    row = (
                        _for_sandbox(canonical(case.input_value)),
                        _for_sandbox(outcome.value),
                        _for_sandbox(canonical(case.expected)) if case.has_expected else None,
                        (outcome.duration_ms or 0.0) / 1000.0,
                        None,
                    )
                for name, expr in exprs:
                    batch = batches.setdefault(expr, [])
                    slots.append((name, expr, len(batch)))
                    batch.append(row)
            pending.append(_Pending(case, outcome, checks, slots))
        answers = {expr: self.sandbox.evaluate(expr, rows) for expr, rows in batches.items()}
        for p in pending:
            for name, expr, idx in p.assertion_slots:
                r = answers[expr][idx]
                if r is True:
                    p.checks.append(Check(name, True))
                elif r is False:
                    p.checks.append(Check(name, False, f"assertion failed: {expr}"))
                elif r.startswith(SPEC_ERRORS):
                    p.checks.append(Check(name, False, f"{r} [assertion {expr!r}]"))
                else:
                    p.checks.append(Check(name, False, f"assertion {expr!r} raised {r}"))
            results[id(p.case)] = self._case_result(p)
        cases = tuple(results[id(c)] for c in func.cases)
        return FunctionResult(func.id, _function_status(cases), spec.rel, func.line, cases), lines

    def _case_result(self, p: _Pending) -> CaseResult:
        case, outcome, checks = p.case, p.outcome, p.checks
        observed = _observed(outcome)
        failed = [c for c in checks if c.passed is False]
        expected = _expected(case)
        drift_checks = {"expected", "raises", "match", "exception"}
        spec_errors = [c for c in failed if c.message.startswith(SPEC_ERRORS)]
        if spec_errors:
            # The spec itself is wrong (bad type, bad regex, an assertion the sandbox refused):
            # an error to fix, not a drift of the function.
            status, message = CASE_ERROR, spec_errors[0].message
        elif not checks or all(c.passed is None for c in checks):
            status = CASE_SKIPPED if checks else CASE_EMPTY
            message = (
                "the case asserts nothing (add expected, raises or an evaluator)"
                if not checks
                else checks[0].message
            )
        elif not failed:
            status, message = CASE_PASSED, ""
        else:
            status = CASE_DRIFTED if any(c.name in drift_checks for c in failed) else CASE_FAILED
            message = failed[0].message
        diff = ""
        if status == CASE_DRIFTED and case.has_expected and outcome.kind == "returned":
            diff = describe(canonical(case.expected), outcome.value, self.rel_tol)
        return CaseResult(
            case.id,
            status,
            case.line,
            case.has_expected or bool(case.raises),
            expected,
            observed,
            message,
            diff,
            outcome.duration_ms,
            tuple(checks),
            case.generated,
        )

    def verify(
        self,
        specs: Iterable[SpecFile],
        only: set[str] | None = None,
        trace: bool = False,
        shard: tuple[int, int] | None = None,
    ) -> VerifyResult:
        result = VerifyResult()
        specs = list(specs)
        if any(_has_assertions(f) for spec in specs for f in spec.functions):
            self.sandbox.warm_up()
        try:
            self._verify(specs, result, only, trace, shard)
        finally:
            if self._own_sandbox:
                self.sandbox.close()
        return result

    def _verify(
        self,
        specs: list[SpecFile],
        result: VerifyResult,
        only: set[str] | None,
        trace: bool,
        shard: tuple[int, int] | None,
    ) -> None:
        for spec in specs:
            for prob in spec.problems:
                result.problems.append(Problem(spec.rel, prob.line, prob.message))
            ran = False
            for func in spec.functions:
                if only is not None and func.id not in only:
                    continue
                if not in_shard(func.id, shard):
                    continue
                fr, lines = self.verify_function(spec, func, trace)
                result.functions.append(fr)
                result.lines.setdefault(func.id, set()).update(lines)
                ran = True
            if ran and any(f.scope == "file" for f in spec.fixtures.values()):
                for err in self.worker.end_file(spec.rel):
                    result.problems.append(
                        Problem(spec.rel, None, f"fixture teardown failed: {err}")
                    )


INVALID_REGEX = "invalid regex"
# Check messages that mean the spec cannot be judged as written: the case is an error.
SPEC_ERRORS = (
    SANDBOX_ERROR,
    "assertion is not a Python expression",
    "cannot check type",
    INVALID_REGEX,
)


def _for_sandbox(value: Any) -> Any:
    """Canonical values as assertions expect them: bytes as bytes, not their tagged form."""
    if isinstance(value, dict):
        if len(value) == 1 and BYTES_TAG in value:
            return base64.b64decode(value[BYTES_TAG])
        return {k: _for_sandbox(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_for_sandbox(v) for v in value]
    return value


def _has_assertions(func: FunctionSpec) -> bool:
    return any(ev.kind == "assertion" for ev in func.evaluators) or any(
        c.assertion for c in func.cases
    )


def _expected(case: CaseSpec) -> Any:
    if case.raises:
        return {
            "raises": case.raises + ("?" if case.raises_optional else ""),
            **({"match": case.match} if case.match else {}),
        }
    return canonical(case.expected) if case.has_expected else None


def _function_status(cases: tuple[CaseResult, ...]) -> str:
    statuses = {c.status for c in cases}
    if CASE_ERROR in statuses:
        return "error"
    if CASE_DRIFTED in statuses or CASE_FAILED in statuses:
        return "drifted"
    return "ok"
