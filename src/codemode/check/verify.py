"""Run each case in the worker and judge it against its spec: a verdict per case and function.

A verdict is data, not an exception: timeouts, crashes, import errors and bad specs all
become ``error`` results naming the file, the line and the cause, and the run goes on.
"""

from __future__ import annotations

import base64
from collections import deque
from collections.abc import Generator, Iterable, Iterator, Sequence
from typing import Any, Generic, NamedTuple, TypeVar

from codemode.check.assertions import AssertionRow, AssertionSandbox, SandboxAnswer
from codemode.check.judge import (
    NOT_GIVEN,
    Evaluation,
    Judge,
    assertion_evaluation,
    case_status,
    function_status,
    type_requests,
)
from codemode.compare import Tolerance, describe
from codemode.config import Config
from codemode.report.call import format_call
from codemode.report.model import (
    CASE_DRIFTED,
    CASE_ERROR,
    FAILING_CASE_ORDER,
    CaseResult,
    Check,
    FunctionResult,
    Problem,
)
from codemode.shard import in_shard
from codemode.specs.types import CaseSpec, EvaluatorSpec, FunctionSpec, SpecFile
from codemode.worker.canonical import canonical
from codemode.worker.pool import Block, Outcome, Worker
from codemode.worker.tags import BYTES_TAG

K = TypeVar("K")


class VerifyResult:
    """What a verification found; pieces of it (lanes', units') are merged into one. A plain
    class, not a dataclass: dataclasses (with inspect) cost ~7 ms of every check (#36)."""

    def __init__(self) -> None:
        self.functions: list[FunctionResult] = []
        self.problems: list[Problem] = []
        # function id -> lines of the target that its cases executed (when traced)
        self.lines: dict[str, set[int]] = {}


def _wire_case(
    case: CaseSpec, evaluators: tuple[EvaluatorSpec, ...], trace: bool, serialized: bool
) -> dict[str, Any]:
    wire: dict[str, Any] = {"id": case.id, "args": list(case.args), "kwargs": case.kwargs}
    # What the worker reads only for a serializer (the input as written) or when asked: a
    # request of 2,000 cases carried every input twice, encoded and decoded each time.
    if serialized:
        wire["form"], wire["input"] = case.input_form, case.input_value
    if case.type:  # else the function's, which the block carries once (Block.types)
        wire["types"] = type_requests(case, evaluators)
    if trace:
        wire["trace"] = True
    return wire


_NO_TYPE = CaseSpec("", None)  # a case with no type check of its own (type_requests)


def _observed(outcome: Outcome) -> Any:
    if outcome.kind == "returned":
        return outcome.value
    if outcome.kind == "raised" and outcome.exc:
        return {"raised": outcome.exc.get("type"), "message": outcome.exc.get("message", "")}
    return None


class _Slot(NamedTuple):
    """Where one assertion of one case waits for its answer: ``expr``'s batch, at ``index``."""

    name: str
    expr: str
    at: int


class _Pending(NamedTuple):
    """A case judged except for its assertions, which are evaluated in batches in Monty."""

    at: int  # its place among the function's cases
    case: CaseSpec
    outcome: Outcome
    evaluations: list[Evaluation]
    slots: list[_Slot]
    expected: Any  # canonical(case.expected), converted once (None without ``expected``)


class _Assertions:
    """Every assertion of one function, batched by expression: one Monty feed each."""

    def __init__(self) -> None:
        self.batches: dict[str, list[AssertionRow]] = {}

    def add(
        self, case: CaseSpec, shared: list[tuple[str, str]], outcome: Outcome, expected: Any
    ) -> list[_Slot]:
        """``shared``: the function's ``assertion`` evaluators, (name, expression)."""
        if outcome.kind != "returned" or not (case.assertion or shared):
            return []
        exprs = [("assertion", case.assertion), *shared] if case.assertion else shared
        row = AssertionRow(
            _for_sandbox(canonical(case.input_value)),
            _for_sandbox(outcome.value),
            _for_sandbox(expected) if case.has_expected else None,
            (outcome.duration_ms or 0.0) / 1000.0,
        )
        slots = []
        for name, expr in exprs:
            batch = self.batches.setdefault(expr, [])
            slots.append(_Slot(name, expr, len(batch)))
            batch.append(row)
        return slots

    def answer(self, sandbox: AssertionSandbox) -> dict[str, list[bool | SandboxAnswer]]:
        return {expr: sandbox.evaluate(expr, rows) for expr, rows in self.batches.items()}


class Verifier:
    def __init__(
        self, config: Config, worker: Worker, sandbox: AssertionSandbox | None = None
    ) -> None:
        self.config = config
        self.worker = worker
        self.sandbox = sandbox or AssertionSandbox()
        self._own_sandbox = sandbox is None  # then verify() stops its process when done
        self.tol = Tolerance(config.float_tolerance, config.float_abs_tolerance)
        # The last function's outcomes by case id: accept writes `raises:` only for a real
        # exception, never for a returned dict that looks like one (#21).
        self.outcomes: dict[str, Outcome] = {}
        self._seen_checks: dict[tuple[Evaluation, ...], tuple[Check, ...]] = {}

    # --- one function -------------------------------------------------------------------

    def _block(self, spec: SpecFile, func: FunctionSpec, trace: bool) -> Block | None:
        """The worker's request for ``func``'s runnable cases; None when none can run."""
        runnable = [c for c in func.cases if c.error is None]
        if func.error or not runnable:
            return None
        serializer = spec.serializers[func.serializer].to_wire() if func.serializer else None
        return Block(
            func.id,
            [_wire_case(c, func.evaluators, trace, serializer is not None) for c in runnable],
            [spec.fixtures[n].to_wire() for n in func.fixtures],
            list(func.fixtures),
            serializer,
            spec.rel,
            types=type_requests(_NO_TYPE, func.evaluators) or None,
        )

    def _run_cases(self, spec: SpecFile, func: FunctionSpec, trace: bool) -> dict[str, Outcome]:
        block = self._block(spec, func, trace)
        if block is None:
            return {}
        outcomes = self.worker.run(
            block.target,
            block.cases,
            fixtures=block.fixtures,
            fixture_names=block.fixture_names,
            serializer=block.serializer,
            file_key=block.file_key,
        )
        return {o.case: o for o in outcomes}

    def verify_function(
        self,
        spec: SpecFile,
        func: FunctionSpec,
        trace: bool = False,
        outcomes: dict[str, Outcome] | None = None,
    ) -> tuple[FunctionResult, set[int]]:
        """The verdict of ``func``; ``outcomes``: its cases' outcomes, when they were run already."""
        if func.error:
            return FunctionResult(func.id, "error", spec.rel, func.line, message=func.error), set()
        if outcomes is None:
            outcomes = self._run_cases(spec, func, trace)
        self.outcomes = outcomes
        lines: set[int] = set()
        pending: list[_Pending] = []
        assertions = _Assertions()
        # By the case's place, not its id: a duplicate id (reported as that case's error)
        # must not overwrite the verdict of the first case of that id.
        results: list[CaseResult | None] = [None] * len(func.cases)
        shared = [(e.name, e.params["assertion"]) for e in func.evaluators if e.kind == "assertion"]
        judge = Judge(func.evaluators, self.tol)
        for at, case in enumerate(func.cases):
            outcome = outcomes.get(case.id) or Outcome(
                case.id, "error", message="no result from the worker"
            )
            if case.error or outcome.kind == "error":
                results[at] = _error_result(case, outcome)
                continue
            if outcome.lines:
                lines.update(outcome.lines)
            expected = canonical(case.expected) if case.has_expected else None
            evaluations = judge(case, outcome, expected)
            slots = assertions.add(case, shared, outcome, expected)
            pending.append(_Pending(at, case, outcome, evaluations, slots, expected))
        answers = assertions.answer(self.sandbox)
        for p in pending:
            for slot in p.slots:
                answer = answers[slot.expr][slot.at]
                p.evaluations.append(assertion_evaluation(slot.name, slot.expr, answer))
            results[p.at] = self._case_result(p)
        cases = tuple(
            r if r.status not in FAILING_CASE_ORDER else _with_call(r, func.id, c)
            for r, c in zip(results, func.cases)
            if r is not None
        )
        status = function_status(cases)
        message = _message_only(cases) if status == "message_changed" else ""
        return FunctionResult(func.id, status, spec.rel, func.line, cases, message), lines

    def _case_result(self, p: _Pending) -> CaseResult:
        case, outcome = p.case, p.outcome
        status, message = case_status(p.evaluations)
        diff = ""
        if status == CASE_DRIFTED and case.has_expected and outcome.kind == "returned":
            diff = describe(p.expected, outcome.value, self.tol)
        return CaseResult(
            case.id,
            status,
            case.line,
            case.has_expected or bool(case.raises),
            _expected(case, p.expected),
            _observed(outcome),
            message,
            diff,
            outcome.duration_ms,
            self._checks(p.evaluations),
            case.generated,
        )

    def _checks(self, evaluations: list[Evaluation]) -> tuple[Check, ...]:
        """The report's checks of a case: one tuple for the cases whose evaluations are the
        same (most cases of a function pass the same checks), not new ones for each (#36)."""
        key = tuple(evaluations)
        found = self._seen_checks.get(key)
        if found is None:
            if len(self._seen_checks) > 4096:  # failures each say something else
                self._seen_checks.clear()
            found = tuple([Check(e.name, e.passed, e.message) for e in evaluations])
            self._seen_checks[key] = found
        return found

    def verify(
        self,
        specs: Iterable[SpecFile],
        only: set[str] | None = None,
        trace: bool = False,
        shard: tuple[int, int] | None = None,
    ) -> VerifyResult:
        result = VerifyResult()
        try:
            for _, piece in self.verify_pieces(((None, s) for s in specs), only, trace, shard):
                result.functions += piece.functions
                result.problems += piece.problems
                for fid, lines in piece.lines.items():
                    result.lines.setdefault(fid, set()).update(lines)
        finally:
            if self._own_sandbox:
                self.sandbox.close()
        return result

    def verify_pieces(
        self,
        pieces: Iterable[tuple[K, SpecFile]],
        only: set[str] | None = None,
        trace: bool = False,
        shard: tuple[int, int] | None = None,
    ) -> Iterator[tuple[K, VerifyResult]]:
        """Each piece's result, in order, as it is judged. The pieces' function blocks go to
        the worker as one stream (``Worker.run_blocks``): the next piece is drawn and its first
        block sent while the last of the one before is judged, so neither the worker nor this
        process waits for the other between pieces (a check's units, #36). A spec file with a
        ``scope: file`` fixture ends with its teardown, before anything else is sent."""
        source = iter(pieces)
        plans: deque[_Plan[K]] = deque()
        queue: deque[Block | None] = deque()

        def draw() -> bool:
            item = next(source, None)
            if item is None:
                return False
            plan = self._plan(item[0], item[1], only, trace, shard)
            plans.append(plan)
            queue.extend(b for b in plan.blocks if b is not None)
            if plan.shared:
                queue.append(None)  # a barrier: its end_file goes before any other request
            return True

        def blocks() -> Iterator[Block | None]:
            while queue or draw():
                if queue:
                    yield queue.popleft()

        runs = self.worker.run_blocks(blocks())
        try:
            while plans or draw():
                plan = plans.popleft()
                yield plan.key, self._judge_plan(plan, runs, trace)
        finally:
            runs.close()

    def _plan(
        self,
        key: K,
        spec: SpecFile,
        only: set[str] | None,
        trace: bool,
        shard: tuple[int, int] | None,
    ) -> _Plan[K]:
        funcs = [
            f for f in spec.functions if (only is None or f.id in only) and in_shard(f.id, shard)
        ]
        if any(_has_assertions(f) for f in funcs):
            self.sandbox.warm_up()
        shared = bool(funcs) and any(f.scope == "file" for f in spec.fixtures.values())
        return _Plan(key, spec, funcs, [self._block(spec, f, trace) for f in funcs], shared)

    def _judge_plan(
        self, plan: _Plan[K], runs: Generator[list[Outcome], None, None], trace: bool
    ) -> VerifyResult:
        spec, result = plan.spec, VerifyResult()
        for prob in spec.problems:
            result.problems.append(Problem(spec.rel, prob.line, prob.message))
        for func, block in zip(plan.funcs, plan.blocks):
            outcomes = {} if block is None else {o.case: o for o in next(runs)}
            fr, lines = self.verify_function(spec, func, trace, outcomes)
            result.functions.append(fr)
            result.lines.setdefault(func.id, set()).update(lines)
        if plan.shared:
            for err in self.worker.end_file(spec.rel):
                result.problems.append(Problem(spec.rel, None, f"fixture teardown failed: {err}"))
        return result


class _Plan(Generic[K]):
    """One piece of ``verify_pieces``: its functions to verify and their worker requests."""

    __slots__ = ("blocks", "funcs", "key", "shared", "spec")

    def __init__(
        self,
        key: K,
        spec: SpecFile,
        funcs: list[FunctionSpec],
        blocks: list[Block | None],
        shared: bool,
    ) -> None:
        self.key, self.spec, self.funcs, self.blocks = key, spec, funcs, blocks
        self.shared = shared  # a ``scope: file`` fixture: the worker's end_file follows


def _message_only(cases: Sequence[CaseResult]) -> str:
    n = sum(c.status == CASE_DRIFTED for c in cases)
    return (
        f"only the exception message changed ({n} case{'s' if n != 1 else ''}: the same "
        "exception type, another message); fails only with --fail-on message_changed"
    )


def _with_call(result: CaseResult, function_id: str, case: CaseSpec) -> CaseResult:
    """A failing case names its call, so a reader sees which call without opening the spec
    (only failing ones: formatting every passing case's arguments costs a large spec time)."""
    if result.status not in FAILING_CASE_ORDER or case.error:
        return result
    return result._replace(call=format_call(function_id, list(case.args), case.kwargs))


_SCALARS = frozenset({str, int, float, bool, type(None)})


def _for_sandbox(value: Any) -> Any:
    """Canonical values as assertions expect them: bytes as bytes, not their tagged form."""
    if type(value) in _SCALARS or (type(value) is list and all(type(v) in _SCALARS for v in value)):
        return value  # no tagged form inside: as it is (#36)
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


def _expected(case: CaseSpec, value: Any = NOT_GIVEN) -> Any:
    """What the report shows as expected; ``value``: canonical(case.expected), if known."""
    if case.raises:
        return {
            "raises": case.raises + ("?" if case.raises_optional else ""),
            **({"match": case.match} if case.match else {}),
        }
    if not case.has_expected:
        return None
    return canonical(case.expected) if value is NOT_GIVEN else value


def _error_result(case: CaseSpec, outcome: Outcome) -> CaseResult:
    """A case that could not be judged: invalid as written, or the worker gave no answer."""
    if case.error:
        return CaseResult(
            case.id, CASE_ERROR, case.line, message=case.error, generated=case.generated
        )
    return CaseResult(
        case.id,
        CASE_ERROR,
        case.line,
        case.has_expected,
        _expected(case),
        None,
        message=outcome.message,
        generated=case.generated,
    )
