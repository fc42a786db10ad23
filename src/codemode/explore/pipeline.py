"""Exploring one function with a model: plan, run, (cover), choose. At most 3 requests.

1. Plan: the model sees the source, its module context and the current spec, and returns
   snippets; they run in Monty with the target delegated to the worker.
2. Coverage round (``rounds`` times, default 1): only when lines stay unreached or snippets
   failed; the model sees which lines (marked) and the one-line errors.
3. Choose: the model sees the numbered record and names calls. Expected values come from
   the record; anything else the answer says about outputs is ignored.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from codemode.explore import prompts
from codemode.explore.budget import Budget
from codemode.explore.cases import (
    build_cases,
    describe_call,
    inputs_of,
    representative,
    safe_id,
    usable,
)
from codemode.explore.llm import ask
from codemode.explore.offline import select
from codemode.explore.record import CallRecord, Recorder, wire_call
from codemode.explore.snippets import SnippetResult, SnippetRunner
from codemode.explore.target import TargetInfo


@dataclass
class Exploration:
    cases: list[dict[str, Any]] = field(default_factory=list)
    evaluators: dict[str, dict[str, Any]] = field(default_factory=dict)
    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    sandbox_errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    answers: dict[str, Any] = field(default_factory=dict)  # what the cache keeps
    cached: bool = False


def _context_prompt(info: TargetInfo, spec_summary: str, changed_lines: Sequence[int]) -> str:
    parts = [f"Function `{info.id}` ({info.rel}:{info.lineno}). Call it as `{info.name}(...)`."]
    if info.is_method:
        parts.append(
            "It is a method: the instance is supplied for you; pass only the other arguments."
        )
    if info.context:
        ctx = info.context if len(info.context) <= 1500 else info.context[:1500] + "\n..."
        parts.append(f"Module context:\n{ctx}")
    parts.append(f"Source:\n{info.numbered()}")
    if changed_lines:
        parts.append("Changed lines: " + ", ".join(str(n) for n in changed_lines[:30]))
    if spec_summary:
        parts.append(f"Current spec cases:\n{spec_summary}")
    return "\n\n".join(parts)


def _coverage_prompt(
    info: TargetInfo, unreached: set[int], errors: list[str], records: Sequence[CallRecord]
) -> str:
    outcomes: dict[str, int] = {}
    for r in records:
        key = r.kind if r.kind != "raised" else f"raised {(r.exc or {}).get('type')}"
        outcomes[key] = outcomes.get(key, 0) + 1
    summary = ", ".join(f"{n} {k}" for k, n in sorted(outcomes.items()))
    parts = [
        f"Function `{info.id}`; call it as `{info.name}(...)`.",
        f"Source (>> = not reached yet):\n{info.numbered(unreached)}",
        f"Calls so far: {len(records)} ({summary or 'none'}).",
    ]
    if errors:
        parts.append("Snippet errors:\n" + "\n".join(errors[:8]))
    return "\n\n".join(parts)


def _spec_prompt(info: TargetInfo, shown: Sequence[CallRecord], taken: set[str]) -> str:
    lines = [describe_call(r, info.name) for r in shown]
    parts = [f"Function `{info.id}`: {info.signature}", "Recorded calls:\n" + "\n".join(lines)]
    if taken:
        parts.append("Ids already used by hand-written cases: " + ", ".join(sorted(taken)))
    return "\n\n".join(parts)


async def _run(
    runner: SnippetRunner, codes: list[str], recorder: Recorder, names: list[str]
) -> list[SnippetResult]:
    return await asyncio.to_thread(runner.run, codes, recorder, names)


def _errors(results: Sequence[SnippetResult], offset: int = 0) -> list[str]:
    return [f"snippet {r.index + offset}: {r.error}" for r in results if r.error]


class _Answers:
    """The model's answers for one exploration: asked (and counted), or replayed from the cache."""

    def __init__(
        self,
        ex: Exploration,
        model: Any,
        budget: Budget,
        cached: dict[str, Any] | None,
        retry_delay: float | None,
    ) -> None:
        self.ex, self.model, self.budget = ex, model, budget
        self.cached, self.retry_delay = cached, retry_delay

    async def get(
        self, instructions: str, prompt: str, out: type[Any], key: str, index: int | None = None
    ) -> Any:
        if self.cached is not None:
            value = self.cached[key] if index is None else self.cached[key][index]
            return out.model_validate(value) if isinstance(value, dict) else value
        a = await ask(
            self.model, instructions, prompt, out, self.budget, base_delay=self.retry_delay
        )
        self.ex.requests += a.requests
        self.ex.input_tokens += a.input_tokens
        self.ex.output_tokens += a.output_tokens
        return a.output


async def explore_with_model(
    info: TargetInfo,
    recorder: Recorder,
    runner: SnippetRunner,
    model: Any,
    budget: Budget,
    *,
    rounds: int = 1,
    spec_summary: str = "",
    changed_lines: Sequence[int] = (),
    taken_ids: set[str] | None = None,
    cached: dict[str, Any] | None = None,
    retry_delay: float | None = None,
) -> Exploration:
    """Explore ``info``; ``cached`` answers (from an unchanged function) replace the requests."""
    ex = Exploration(cached=cached is not None)
    answers = _Answers(ex, model, budget, cached, retry_delay)
    n_rounds = len(cached.get("coverage", [])) if cached is not None else rounds
    plans = await _explore(answers, info, recorder, runner, n_rounds, spec_summary, changed_lines)
    ex.answers = {"plan": _dump_plan(plans[0]), "coverage": [_dump_plan(p) for p in plans[1:]]}
    if not any(usable(r, info) for r in recorder.records):
        ex.notes.append("no call of the target could become a case")
        return ex
    await _choose(answers, info, recorder, set(taken_ids or ()))
    return ex


async def _explore(
    answers: _Answers,
    info: TargetInfo,
    recorder: Recorder,
    runner: SnippetRunner,
    n_rounds: int,
    spec_summary: str,
    changed_lines: Sequence[int],
) -> list[list[str]]:
    """Phase 1: a plan of snippets, then rounds aimed at the lines no call reached yet."""
    ex, names = answers.ex, [info.name, "target"]
    plan = await answers.get(
        prompts.PLAN_INSTRUCTIONS,
        _context_prompt(info, spec_summary, changed_lines),
        prompts.Plan,
        "plan",
    )
    plans = [[s.code for s in plan.snippets]]
    recorder.round = 1
    errors = _errors(await _run(runner, plans[0], recorder, names))
    ex.sandbox_errors += errors
    body = info.body_lines()
    for r in range(n_rounds):
        unreached = body - recorder.lines()
        if answers.cached is None and not unreached and not errors:
            break
        more = await answers.get(
            prompts.COVERAGE_INSTRUCTIONS,
            _coverage_prompt(info, unreached, errors, recorder.records),
            prompts.Plan,
            "coverage",
            r,
        )
        codes = [s.code for s in more.snippets]
        plans.append(codes)
        recorder.round = 2 + r
        offset = sum(len(p) for p in plans[:-1])
        errors = _errors(await _run(runner, codes, recorder, names), offset)
        ex.sandbox_errors += errors
    unreached = body - recorder.lines()
    if unreached:
        ex.notes.append(f"lines never reached: {', '.join(str(n) for n in sorted(unreached)[:12])}")
    return plans


async def _choose(answers: _Answers, info: TargetInfo, recorder: Recorder, taken: set[str]) -> None:
    """Phase 2: the model picks recorded calls; their values, never its text, become cases."""
    ex = answers.ex
    shown = representative(recorder.records, info)
    choice = await answers.get(
        prompts.SPEC_INSTRUCTIONS, _spec_prompt(info, shown, taken), prompts.SpecChoice, "choice"
    )
    by_n = {r.n: r for r in recorder.records}
    chosen = [(by_n[c.call], c.id) for c in choice.cases if c.call in by_n]
    ignored = [c.call for c in choice.cases if c.call not in by_n]
    if ignored:
        ex.notes.append(f"the model named calls that do not exist: {ignored[:5]}")
    ex.cases = build_cases(chosen, info, taken)
    if not ex.cases:
        ex.notes.append("the model chose no usable call; the offline selection was used instead")
        ex.cases = build_cases(select(recorder.records, info), info, taken)
    ex.evaluators = await asyncio.to_thread(validate_evaluators, recorder, info, choice.evaluators)
    ex.answers["choice"] = choice.model_dump()


def _dump_plan(codes: list[str]) -> dict[str, Any]:
    return {"snippets": [{"purpose": "", "code": c} for c in codes]}


def validate_evaluators(
    recorder: Recorder, info: TargetInfo, proposals: Sequence[Any]
) -> dict[str, dict[str, Any]]:
    """Global evaluators that hold on every recorded call that returned; the rest are dropped."""
    returned = [r for r in recorder.records if r.kind == "returned" and usable(r, info)]
    kept: dict[str, dict[str, Any]] = {}
    if not returned:
        return kept
    for p in proposals:
        name = safe_id(p.name).title().replace("_", "") or "Check"
        if vacuous(p.assertion, p.type):
            continue
        if p.type and not p.assertion:
            types = [{"expr": p.type, "strict": False}]
            wire = [wire_call(str(r.n), r.args, r.kwargs, types=types) for r in returned]
            outcomes = list(recorder.run_wire(wire))
            if outcomes and all(o.kind == "returned" and o.types == [None] for o in outcomes):
                kept[name] = {"type": p.type}
        elif p.assertion and not p.type:
            from codemode.check.assertions import AssertionRow, AssertionSandbox

            sandbox = AssertionSandbox()
            try:
                rows = [AssertionRow(inputs_of(r, info), r.value) for r in returned]
                # An assertion that also holds for outputs the function never gave states
                # nothing about it (``True``, ``output == output``): it protects nobody.
                probes = [AssertionRow(rows[0].input, probe) for probe in _PROBES]
                results = sandbox.evaluate(p.assertion, rows + probes)
                holds = all(v is True for v in results[: len(rows)])
                if holds and not all(v is True for v in results[len(rows) :]):
                    kept[name] = {"assertion": p.assertion}
            finally:
                sandbox.close()
    return kept


# Outputs no real function returns: an assertion true of all of them holds no property.
_PROBES = (None, "\u0000codemode probe", -7.25e-300, [[["\u0000"]]])
_VACUOUS_TYPES = frozenset({"object", "Any", "typing.Any"})


def vacuous(assertion: str | None, type_expr: str | None) -> bool:
    """A proposed evaluator that prints or names a type everything has: never written (#11).

    An assertion runs on every later ``check``; one that calls ``print`` would print there
    (the sandbox discards it, but a spec should not try), and ``type: object`` checks nothing.
    """
    import ast

    if type_expr is not None and not assertion:
        try:
            names = {
                ast.unparse(n)
                for n in ast.walk(ast.parse(type_expr, mode="eval"))
                if isinstance(n, (ast.Name, ast.Attribute))
            }
        except (SyntaxError, RecursionError, ValueError):
            return True
        return bool(names & _VACUOUS_TYPES)
    if assertion is None:
        return False
    try:
        tree = ast.parse(assertion, mode="eval")
    except (SyntaxError, RecursionError, ValueError):
        return True
    uses = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    return "print" in uses or "output" not in uses
