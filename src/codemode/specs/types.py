"""Runtime records of a loaded spec file: frozen, typed, with the line of everything.

Frozen records of ``codemode.records``, not dataclasses: every check that loads a spec file
imports them, and ``dataclasses`` cost 13-15 ms of it (#36)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypeVar

from codemode.records import field, record

T = TypeVar("T")


def built(cls: type[T], **fields: Any) -> T:
    """A record from every one of its fields, without its ``__init__``: a frozen dataclass's
    sets each field through ``object.__setattr__``, 7 us of a case's 12 us to load (#36)."""
    obj = object.__new__(cls)
    obj.__dict__.update(fields)
    return obj


# vowel's legacy fixture scope names, accepted for compatibility.
SCOPE_ALIASES = {"function": "case", "module": "eval", "session": "file"}


@record
class EvaluatorSpec:
    name: str
    kind: str  # type | assertion | duration | contains_input | pattern | rubric
    params: dict[str, Any]
    line: int | None = None


@record
class CaseSpec:
    id: str
    line: int | None
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = field(default_factory=dict)
    # What ``input`` means inside assertions: the one value, or the inputs list/dict (vowel's rule).
    input_value: Any = None
    input_form: str = "none"  # none | input | inputs_list | inputs_dict
    has_expected: bool = False
    expected: Any = None
    raises: str | None = None
    raises_optional: bool = False
    match: str | None = None
    duration_ms: float | None = None
    has_contains: bool = False
    contains: Any = None
    assertion: str | None = None
    pattern: str | None = None
    case_sensitive: bool = True
    type: str | None = None
    strict_type: bool = False
    error: str | None = None  # validation error: the case is reported, not run
    generated: bool = False


@record
class FixtureSpec:
    name: str
    setup: str | None
    cls: str | None
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    teardown: str | None
    scope: str  # case | eval | file
    line: int | None = None

    def to_wire(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "setup": self.setup,
            "cls": self.cls,
            "args": list(self.args),
            "kwargs": self.kwargs,
            "teardown": self.teardown,
            "scope": self.scope,
        }


@record
class SerializerSpec:
    name: str
    schema: str | dict[str, str] | None
    serializer: str | None

    def to_wire(self) -> dict[str, Any]:
        return {"schema": self.schema, "serializer": self.serializer}


@record
class FunctionMetaSpec:
    fingerprint: str | None = None
    generated: tuple[str, ...] = ()
    explored_by: str | None = None
    nondeterministic: tuple[str, ...] = ()
    # Generated cases a reviewer deleted by hand: never generated again (README says how to
    # bring one back). Written by regen; see FunctionSpec.deleted_ids for the live set.
    deleted: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()  # where the offline explorer found the inputs
    mutants: int | None = None  # in-memory mutants the cases were chosen against
    mutation_score: float | None = None  # the share of them the cases kill


@record
class FunctionSpec:
    id: str
    line: int | None
    fixtures: tuple[str, ...] = ()
    serializer: str | None = None
    evaluators: tuple[EvaluatorSpec, ...] = ()
    cases: tuple[CaseSpec, ...] = ()
    error: str | None = None  # the whole block is invalid: reported as the function's error
    meta: FunctionMetaSpec = field(default_factory=FunctionMetaSpec)

    @property
    def deleted_ids(self) -> frozenset[str]:
        """Generated cases a reviewer deleted: those recorded under ``deleted:``, and those
        ``generated:`` still lists that the dataset no longer holds."""
        present = {c.id for c in self.cases}
        return frozenset(self.meta.deleted) | {g for g in self.meta.generated if g not in present}


@record
class SpecProblem:
    line: int | None
    message: str


@record
class SpecFile:
    path: Path
    rel: str  # repo-relative posix path, for messages
    functions: tuple[FunctionSpec, ...] = ()
    fixtures: dict[str, FixtureSpec] = field(default_factory=dict)
    serializers: dict[str, SerializerSpec] = field(default_factory=dict)
    problems: tuple[SpecProblem, ...] = ()  # file-level: bad YAML, unknown top-level key...

    def function(self, function_id: str) -> FunctionSpec | None:
        return next((f for f in self.functions if f.id == function_id), None)
