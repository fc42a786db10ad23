"""Prompts (module constants) and the structured outputs the model must return.

Kept short on purpose: the function's own source carries most of the information, and
every character here is paid for on every request (vowel sends about 39,000 characters of
instructions per spec call; these are under 2,000). ``PROMPT_VERSION`` is part of the cache
key: change it whenever a prompt or an output model changes meaning.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

PROMPT_VERSION = "1"

MONTY_SUBSET = """\
Snippets run in Monty, a sandboxed Python subset: no files, network, environment, \
subprocesses or host imports (only stdlib-like `math`, `re`, `datetime`, `json`, `random`, \
`time`); no `class` statements; sleeps return at once. Call the target by its name (or \
`target`) with plain data arguments (numbers, str, bytes, list, dict, tuple, set, date, \
datetime). Results come back as data (a custom object arrives as a dict). Exceptions of the \
target propagate and can be caught. Every call is recorded; what the snippet returns or \
prints does not matter."""

PLAN_INSTRUCTIONS = f"""\
You write exploration snippets for one Python function. Goal: observe its behaviour on \
typical inputs, edge cases (empty, zero, negative, large, unicode, boundaries of every \
comparison) and every error path, so that each line and branch runs at least once. \
Prefer loops over many inputs in one snippet to many small snippets. 3-8 snippets.
{MONTY_SUBSET}"""

COVERAGE_INSTRUCTIONS = f"""\
Some lines of the function were not reached by the calls so far (marked >>), or some \
snippets failed. Write new snippets that reach the marked lines and fix the failures. 1-5 snippets.
{MONTY_SUBSET}"""

SPEC_INSTRUCTIONS = """\
Choose which recorded calls become test cases for the function's spec. Pick 4-12 calls \
that together cover each behaviour and error path once; skip near-duplicates. Give each \
a short snake_case id that says what it shows and a one-line reason. Refer to calls only \
by their number: expected values are copied from the record. Optionally propose global \
evaluators that hold for every call: a `type` (e.g. "int", "list[str]") or an `assertion` \
(a Python expression over `input` (the argument list) and `output`)."""


class Snippet(BaseModel):
    purpose: str = Field(description="What the snippet explores, in a few words.")
    code: str = Field(description="Python code for the Monty sandbox.")


class Plan(BaseModel):
    snippets: list[Snippet] = Field(max_length=12)


class ChosenCase(BaseModel):
    call: int = Field(description="The number of a recorded call, e.g. 3 for #3.")
    id: str = Field(description="snake_case case id.")
    reason: str = ""


class ProposedEvaluator(BaseModel):
    name: str
    type: str | None = None
    assertion: str | None = None


class SpecChoice(BaseModel):
    cases: list[ChosenCase] = Field(max_length=30)
    evaluators: list[ProposedEvaluator] = Field(default_factory=list, max_length=5)
