"""Prompts (module constants) and the structured outputs the model must return.

Kept short on purpose: the function's own source carries most of the information, and
every character here is paid for on every request (vowel sends about 39,000 characters of
instructions per spec call; these are under 1,000). ``PROMPT_VERSION`` is part of the cache
key: change it whenever a prompt, a tool or an output model changes meaning.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, model_validator

PROMPT_VERSION = "3"

# Every byte here is sent with every request: the fixed part (these instructions and the two
# tool schemas) was 59% of a typical request on a 14-function project, now under 40% (#22,
# benchmarks/llm_cost.py measures it). What the model needs stays: the steps, the edges to
# try, the answer's form, and what the sandbox can and cannot do.
MONTY_SUBSET = """\
Snippets run in Monty, a Python subset (no files, network or environment). Import the \
module as in the project: its classes build real objects (methods in sequence on one \
instance), Enum members are `Cls.NAME`, its exceptions can be caught. Results keep their \
types; objects come back as dicts of fields."""

INSTRUCTIONS = f"""\
Test one Python function: run snippets on the real code, then choose the recorded calls \
that become its spec's cases.
1. Call `run_snippets` with 2-6 snippets: typical inputs, edges (empty, zero, negative, both \
sides of each comparison), each error path; catch expected exceptions. Run more only to reach \
lines not reached or fix failures.
2. Answer `cases`: snake_case id -> call number (#n), 4-12 calls, each behaviour once. \
Optional `evaluators` true of every call: name -> "type: int" or an assertion on `output`.
{MONTY_SUBSET}"""


class ChosenCase(BaseModel):
    call: int
    id: str
    reason: str = ""


class ProposedEvaluator(BaseModel):
    name: str
    type: str | None = None
    assertion: str | None = None


class SpecChoice(BaseModel):
    """The choice as the pipeline and the cache hold it."""

    cases: list[ChosenCase] = Field(max_length=30)
    evaluators: list[ProposedEvaluator] = Field(default_factory=list, max_length=5)


class Answer(BaseModel):
    # The model's answer. No docstring: it would be sent with every request, as the schema is.

    # No length caps in the schema: a longer answer keeps its first 30 cases and 5 evaluators
    # (it used to fail validation and lose the function's work, #22).
    cases: dict[str, int]
    evaluators: dict[str, str] = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _lists(cls, data: Any) -> Any:
        """The long form (a list of {call, id}, of {name, type|assertion}) is read too."""
        if not isinstance(data, dict):
            return data
        out = dict(data)
        if isinstance(out.get("cases"), list):
            out["cases"] = {
                str(c.get("id")): c.get("call") for c in out["cases"] if isinstance(c, dict)
            }
        if isinstance(out.get("evaluators"), list):
            out["evaluators"] = {
                str(e.get("name")): f"type: {e['type']}" if e.get("type") else e.get("assertion")
                for e in out["evaluators"]
                if isinstance(e, dict)
            }
        return out

    def choice(self) -> SpecChoice:
        evaluators = []
        for name, text in list(self.evaluators.items())[:5]:
            if text.startswith("type:"):
                evaluators.append(ProposedEvaluator(name=name, type=text[5:].strip()))
            else:
                evaluators.append(ProposedEvaluator(name=name, assertion=text))
        return SpecChoice(
            cases=[ChosenCase(call=n, id=i) for i, n in list(self.cases.items())[:30]],
            evaluators=evaluators,
        )
