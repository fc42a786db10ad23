"""Prompts (module constants) and the structured outputs the model must return.

Kept short on purpose: the function's own source carries most of the information, and
every character here is paid for on every request (vowel sends about 39,000 characters of
instructions per spec call; these are under 2,500). ``PROMPT_VERSION`` is part of the cache
key: change it whenever a prompt, a tool or an output model changes meaning.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

PROMPT_VERSION = "2"

MONTY_SUBSET = """\
Snippets run in Monty, a sandboxed Python subset: no files, network, environment or \
subprocesses; sleeps return at once. `datetime`, `decimal`, `math`, `re`, `json`, `random` \
import as usual. `class` statements work, but without base classes (no Enum, NamedTuple or \
pydantic subclasses of your own). The function's module imports as in the project \
(`from pkg.mod import Cls`): its classes build the real objects (read their fields, call \
their methods in sequence on one instance), Enum members are `Cls.NAME`, its exception \
classes can be caught (by their nearest builtin base). Call the function by its name (or \
`target`); for a method, call it on an instance, or by name to use a default instance. \
Results keep their type when Monty has it (int, float, str, bytes, tuple, list, dict, set, \
Decimal, date, datetime, timedelta); a custom object comes back as a dict of its fields, \
an Enum member as its value."""

INSTRUCTIONS = f"""\
You test one Python function by running snippets against the real code, then choose which \
recorded calls become the test cases of its spec.
1. Call `run_snippets` with 2-6 snippets that call the function on typical inputs, edge \
cases (empty, zero, negative, large, unicode, both sides of every comparison) and every \
error path. Loops over many inputs in one snippet are cheap; catch expected exceptions.
2. Each call of the function is numbered (#n) with its result or exception; you also see \
what the snippets printed, their last expression, their errors, and the lines not reached \
yet. Run more snippets only to reach those lines or to fix failures.
3. Answer with 4-12 calls that together show each behaviour and error path once, each with \
a short snake_case id. Expected values are copied from the record: give only call numbers. \
Optionally propose global evaluators that hold for every call: a `type` (e.g. "int", \
"list[str]") or an `assertion` (a Python expression over `input` and `output`).
{MONTY_SUBSET}"""


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
