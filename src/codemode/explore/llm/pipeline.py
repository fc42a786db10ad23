"""Exploring one function with a model that sees what its snippets did.

One pydantic-ai conversation per function. The model calls the ``run_snippets`` tool; each
snippet runs in Monty with the target delegated to the worker, and the tool returns, per
snippet, every call of the target (numbered, with its result or exception), what it printed,
its last expression and its error with the line, then the source lines not reached yet. The
model's own code stays in the conversation. After at most ``1 + rounds`` tool rounds the tool
is withdrawn and the model must answer with the calls to keep (``Answer``): at most
``rounds + 2`` requests, 3 by default. Expected values come from the record, never from the
answer. What the model sees is capped (``MAX_VISIBLE`` bytes of tool output per function) and
counted.

Replay: the snippets and the choice are the cache; an unchanged function replays them
against the real code without a request. A budget stop keeps the calls already recorded and
chooses cases from them offline.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from codemode.explore.llm import prompts
from codemode.explore.llm.budget import BudgetExceeded, ModelBudget
from codemode.explore.llm.snippets import SnippetResult, SnippetRunner
from codemode.explore.record import CallRecord, Recorder, wire_call
from codemode.explore.selection.cases import (
    auto_id,
    build_cases,
    describe_call,
    inputs_of,
    refusal,
    safe_id,
    usable,
)
from codemode.explore.target import TargetInfo
from codemode.report.model import Refusal

if TYPE_CHECKING:  # pydantic-ai loads when a model explores, not when this module does
    from pydantic_ai import Agent
    from pydantic_ai.models import Model

MAX_VISIBLE = 24_000  # bytes of tool output one function's conversation may carry
MAX_CALL_LINES = 24  # recorded calls listed per snippet; the rest are summarised
MAX_SNIPPETS = 8  # per tool call


@dataclass
class Exploration:
    cases: list[dict[str, Any]] = field(default_factory=list)
    evaluators: dict[str, dict[str, Any]] = field(default_factory=dict)
    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    visible_bytes: int = 0  # prompt + tool output the model was shown
    sandbox_errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    answers: dict[str, Any] = field(default_factory=dict)  # what the cache keeps
    cached: bool = False
    stopped: str = ""  # why the model stopped early (a budget, a failure), when it did
    budget_stop: bool = False  # a budget cap stopped it
    failed: str = ""  # the model failed (an HTTP error, an answer it could not give)
    refused: list[Refusal] = field(default_factory=list)  # chosen calls not written, and why
    mutants: int = 0  # the function's mutants that ran (when cases were added next to the model's)
    killed: int = 0  # of them, killed by the cases written


def context_prompt(info: TargetInfo, spec_summary: str, changed_lines: Sequence[int]) -> str:
    call = f"{info.name}(...)"
    if info.is_method:
        cls = info.qualname.rsplit(".", 1)[0]
        call = f"`{cls}(...).{info.name}(...)` or `{info.name}(...)` on a default instance"
    parts = [
        f"Function `{info.id}` ({info.rel}:{info.lineno}); import it with `from "
        f"{info.module} import {info.qualname.split('.')[0]}`; call it as {call}."
    ]
    if info.context:
        ctx = info.context if len(info.context) <= 1500 else info.context[:1500] + "\n..."
        parts.append(f"Module context:\n{ctx}")
    parts.append(f"Source:\n{info.numbered()}")
    if changed_lines:
        parts.append("Changed lines: " + ", ".join(str(n) for n in changed_lines[:30]))
    if spec_summary:
        parts.append(f"Current spec cases:\n{spec_summary}")
    return "\n\n".join(parts)


def _snippet_report(
    r: SnippetResult,
    number: int,
    by_n: dict[int, CallRecord],
    info: TargetInfo,
    seen: set[int],
) -> list[str]:
    name = info.name
    out = [f"snippet {number}:" + ("" if r.calls else " (no call of the function)")]
    calls = list(dict.fromkeys(r.calls))
    for n in calls[:MAX_CALL_LINES]:
        again = " (seen before)" if n in seen else ""
        rec = by_n[n]
        why = refusal(rec, info) if n not in seen and rec.kind != "error" else None
        mark = f" [not writable: {str(why)[:140]}]" if why else ""
        if why and rec.clock:  # the clock rule is applied before the choice (clock_free)
            mark = f" [read the clock ({rec.clock}): a case only if the date changes nothing]"
        out.append("  " + describe_call(by_n[n], name) + again + mark)
    if len(calls) > MAX_CALL_LINES:
        out.append(
            f"  ... {len(calls) - MAX_CALL_LINES} more calls, #{calls[MAX_CALL_LINES]}-#{calls[-1]}"
        )
    seen.update(calls)
    if r.printed:
        out.append("  printed: " + r.printed.replace("\n", "\n           "))
    if r.value is not None:
        out.append(f"  last expression: {r.value}")
    if r.error:
        out.append(f"  error: {r.error}")
    return out


@dataclass
class _Session:
    """The state one conversation's tool works on."""

    info: TargetInfo
    recorder: Recorder
    runner: SnippetRunner
    ex: Exploration
    rounds: int
    batches: list[list[str]] = field(default_factory=list)
    seen: set[int] = field(default_factory=set)

    async def run(self, codes: list[str]) -> list[SnippetResult]:
        self.batches.append(list(codes))
        self.recorder.round = len(self.batches)
        names = [self.info.name, "target"]
        results = await asyncio.to_thread(self.runner.run, codes, self.recorder, names, self.info)
        start = sum(len(b) for b in self.batches[:-1])
        self.ex.sandbox_errors += [
            f"snippet {start + r.index}: {r.error}" for r in results if r.error
        ]
        return results

    async def tool(self, snippets: list[str]) -> str:
        results = await self.run(snippets[:MAX_SNIPPETS])
        start = sum(len(b) for b in self.batches[:-1])
        by_n = {r.n: r for r in self.recorder.records}
        lines: list[str] = []
        for r in results:
            lines += _snippet_report(r, start + r.index, by_n, self.info, self.seen)
        unreached = sorted(self.info.body_lines() - self.recorder.lines())
        src = self.info.source.splitlines()
        if unreached:
            lines.append("Lines not reached yet:")
            lines += [f"  {n}: {src[n - self.info.lineno].strip()}"[:120] for n in unreached[:15]]
        else:
            lines.append("Every line of the function has run.")
        last = len(self.batches) > self.rounds
        lines.append("Now answer with the cases." if last else "Run more snippets, or answer.")
        text = "\n".join(lines)
        room = MAX_VISIBLE - self.ex.visible_bytes
        if len(text.encode()) > room:
            text = text.encode()[: max(0, room - 80)].decode(errors="ignore")
            text += "\n[output cut: this conversation's output cap is reached; answer now]"
        self.ex.visible_bytes += len(text.encode())
        return text


def _agent(
    session: _Session, model: Model, budget: ModelBudget, retry_delay: float | None
) -> Agent[None, prompts.Answer]:
    from pydantic_ai import Agent, RunContext, Tool, ToolOutput
    from pydantic_ai.tools import ToolDefinition

    from codemode.explore.llm.client import retrying

    async def run_snippets(snippets: list[str]) -> str:
        """Run snippets."""
        return await session.tool(snippets)

    async def prepare(ctx: RunContext[None], tool: ToolDefinition) -> ToolDefinition | None:
        # After the last snippet round only the answer is left to give.
        return tool if len(session.batches) <= session.rounds else None

    return Agent(
        retrying(model, budget, retry_delay),
        output_type=ToolOutput(prompts.Answer, name="answer", description="Calls to keep"),
        instructions=prompts.INSTRUCTIONS,
        tools=[Tool(run_snippets, prepare=prepare, max_retries=1)],
        retries=1,
    )


async def _converse(
    session: _Session, prompt: str, model: Model, budget: ModelBudget, delay: float | None
) -> prompts.SpecChoice | None:
    """The conversation; returns the choice, or None when a budget stopped it (noted)."""
    from pydantic_ai import UsageLimits
    from pydantic_ai.exceptions import UnexpectedModelBehavior, UsageLimitExceeded

    from codemode.explore.llm.client import ModelFailed, Tally, current_tally

    tally = Tally()
    token = current_tally.set(tally)
    ex = session.ex
    try:
        limits = UsageLimits(request_limit=session.rounds + 3, tool_calls_limit=session.rounds + 2)
        result = await _agent(session, model, budget, delay).run(prompt, usage_limits=limits)
        return result.output.choice()
    except (BudgetExceeded, UsageLimitExceeded) as exc:
        ex.stopped = str(exc)
        ex.budget_stop = isinstance(exc, BudgetExceeded)
        ex.notes.append(
            f"stopped early ({exc}); cases chosen offline from the {len(session.recorder.records)} calls recorded"
        )
        return None
    except (ModelFailed, UnexpectedModelBehavior) as exc:
        # Prose, bad JSON, too many cases, a malformed or failed response: the calls the
        # snippets already made are kept and chosen from offline (#22).
        why = (
            str(exc) if isinstance(exc, ModelFailed) else f"the model gave no usable answer ({exc})"
        )
        ex.stopped = ex.failed = why
        ex.notes.append(
            f"{why}; cases chosen offline from the {len(session.recorder.records)} calls recorded"
        )
        return None
    finally:
        current_tally.reset(token)
        ex.requests, ex.input_tokens, ex.output_tokens = (
            tally.requests,
            tally.input_tokens,
            tally.output_tokens,
        )


async def explore_with_model(
    info: TargetInfo,
    recorder: Recorder,
    runner: SnippetRunner,
    model: Model,
    budget: ModelBudget,
    *,
    rounds: int = 1,
    spec_summary: str = "",
    changed_lines: Sequence[int] = (),
    taken_ids: set[str] | None = None,
    cached: dict[str, Any] | None = None,
    retry_delay: float | None = None,
    max_added: int = 0,
) -> Exploration:
    """Explore ``info``; ``cached`` answers (from an unchanged function) replace the requests.
    ``max_added``: cases next to the model's calls that kill mutants its cases leave alive."""
    ex = Exploration(cached=cached is not None)
    session = _Session(info, recorder, runner, ex, max(0, rounds))
    if cached is not None:
        for batch in cached.get("snippets", []):
            await session.run(list(batch))
        choice: prompts.SpecChoice | None = prompts.SpecChoice.model_validate(cached["choice"])
    else:
        prompt = context_prompt(info, spec_summary, changed_lines)
        ex.visible_bytes = len((prompts.INSTRUCTIONS + prompt).encode())
        choice = await _converse(session, prompt, model, budget, retry_delay)
    ex.answers = {"snippets": session.batches}
    # a clock read whose value never shows is no bar to a case (as offline)
    await asyncio.to_thread(session.recorder.clock_free, list(session.recorder.records))
    taken = set(taken_ids or ())
    chosen = _choose(ex, session, choice, taken)
    if chosen and max_added > 0:
        await asyncio.to_thread(_add_neighbours, ex, session, chosen, taken, max_added)
    if choice is not None:  # cached even when nothing could be written: a re-run costs nothing
        ex.answers["choice"] = choice.model_dump()
    if choice is not None and ex.cases:
        ex.evaluators = await asyncio.to_thread(
            validate_evaluators, recorder, info, choice.evaluators
        )
    return ex


def _choose(
    ex: Exploration, session: _Session, choice: prompts.SpecChoice | None, taken: set[str]
) -> list[CallRecord]:
    """The cases from the model's choice (or the offline selection); the records they came from."""
    from codemode.explore.offline.explorer import select

    info, records = session.info, session.recorder.records
    unreached = info.body_lines() - session.recorder.lines()
    if unreached:
        ex.notes.append(f"lines never reached: {', '.join(str(n) for n in sorted(unreached)[:12])}")
    if not any(usable(r, info) for r in records):
        ex.notes.append("no call of the target could become a case")
        return []
    chosen: list[tuple[CallRecord, str]] = []
    if choice is not None:
        by_n = {r.n: r for r in records}
        chosen = [(by_n[c.call], c.id) for c in choice.cases if c.call in by_n]
        ignored = [c.call for c in choice.cases if c.call not in by_n]
        if ignored:
            ex.notes.append(f"the model named calls that do not exist: {ignored[:5]}")
        ex.cases = build_cases(chosen, info, set(taken), ex.refused)
        if not ex.cases:
            ex.notes.append(
                "the model chose no usable call; the offline selection was used instead"
            )
    if not ex.cases:
        chosen = select(records, info)
        ex.cases = build_cases(chosen, info, set(taken))
    _judge(ex, info, records)
    if not ex.cases:  # the judge found they protect nothing
        return []
    return list({r.n: r for r, _ in chosen if refusal(r, info) is None}.values())


def _add_neighbours(
    ex: Exploration, session: _Session, chosen: list[CallRecord], taken: set[str], limit: int
) -> None:
    from codemode.explore.llm.neighbours import next_to_model

    info = session.info
    added = next_to_model(session.recorder, info, chosen, limit)
    if added.note:
        ex.notes.append(added.note)
    ex.mutants, ex.killed = added.mutants, added.killed
    if not added.records:
        return
    used = taken | {str(c["id"]) for c in ex.cases}
    more = build_cases([(r, label or auto_id(r, info)) for r, label in added.records], info, used)
    ex.cases += more
    ex.notes.append(
        f"{len(more)} case(s) added next to the model's calls: each kills a mutant its cases "
        "left alive"
    )


def _judge(ex: Exploration, info: TargetInfo, records: Sequence[CallRecord]) -> None:
    """Kept cases that reach none of the body protect nothing: then nothing is written."""
    body = info.body_lines()
    by_inputs: dict[str, set[int]] = {}
    for r in records:
        by_inputs.setdefault(repr(inputs_of(r, info)), set()).update(r.lines)
    reached: set[int] = set()
    for c in ex.cases:
        reached |= by_inputs.get(repr(c.get("inputs")), set(body))
    if body and ex.cases and not reached & body:
        ex.notes.append("no kept case reaches the function's body; nothing was written")
        ex.cases = []


def validate_evaluators(
    recorder: Recorder, info: TargetInfo, proposals: Sequence[prompts.ProposedEvaluator]
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
    from codemode.explore.target import AST_LOCK

    with AST_LOCK:  # validate_evaluators runs in a thread (target.py says why)
        return _vacuous(assertion, type_expr)


def _vacuous(assertion: str | None, type_expr: str | None) -> bool:
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
