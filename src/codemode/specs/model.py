"""The on-disk spec format as pydantic models (``extra='forbid'``).

These models validate what a user wrote and publish the JSON schema for editors
(``codemode schema``); the runtime works on the frozen records in ``types.py``.
The format is vowel 0.4.0's, stricter where vowel is loose (docs/architecture.md, "Spec semantics").
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

FixtureScope = Literal["case", "eval", "file", "function", "module", "session"]  # see SCOPE_ALIASES


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class CaseModel(_Strict):
    """One case. ``input`` is one positional argument; ``inputs`` a list (positional) or dict (keyword)."""

    id: str | None = Field(None, description="Unique id within the function (defaults to case_N).")
    input: Any = Field(None, description="The one positional argument.")
    inputs: list[Any] | dict[str, Any] | None = Field(
        None, description="A list of positional arguments, or a mapping of keyword arguments."
    )
    expected: Any = Field(None, description="The expected output; null means the output is None.")
    raises: str | None = Field(
        None, description="Expected exception class name; 'X?' optional, 'any' any exception."
    )
    match: str | None = Field(None, description="Regex searched in the exception message.")
    duration: float | None = Field(None, gt=0, description="Max duration of this case in ms.")
    contains: Any = Field(None, description="A value the output must contain.")
    assertion: str | None = Field(
        None, description="Python expression over input, output, expected, duration."
    )
    pattern: str | None = Field(None, description="Regex searched in str(output).")
    case_sensitive: bool = True
    type: str | None = Field(None, description="Expected output type, e.g. 'list[int] | None'.")
    strict_type: bool = False

    @model_validator(mode="after")
    def _rules(self) -> CaseModel:
        fields = self.model_fields_set
        if "input" in fields and "inputs" in fields:
            raise ValueError("use either 'input' or 'inputs', not both")
        if "match" in fields and not self.raises:
            raise ValueError("'match' needs 'raises' (it is matched against the exception message)")
        if self.raises is not None and "expected" in fields:
            raise ValueError("a case cannot have both 'raises' and 'expected'")
        return self


class DatasetItem(_Strict):
    case: CaseModel


class TypeEval(_Strict):
    type: str
    strict: bool | None = None


class AssertionEval(_Strict):
    assertion: str


class DurationEval(_Strict):
    duration: float = Field(gt=0, description="Max duration in seconds (as in vowel).")


class ContainsInputEval(_Strict):
    contains_input: bool = True
    case_sensitive: bool = True
    as_strings: bool = False


class PatternEval(_Strict):
    pattern: str
    case_sensitive: bool = True


class RubricEval(_Strict):
    rubric: str
    include: list[Literal["input", "expected_output"]] = Field(default_factory=list)
    config: dict[str, Any] = Field(default_factory=dict)


Evaluator = TypeEval | AssertionEval | DurationEval | ContainsInputEval | PatternEval | RubricEval
EVALUATOR_KINDS: dict[str, type[BaseModel]] = {
    "type": TypeEval,
    "assertion": AssertionEval,
    "duration": DurationEval,
    "contains_input": ContainsInputEval,
    "pattern": PatternEval,
    "rubric": RubricEval,
}


class FunctionBlock(_Strict):
    """The block under a function id (its import path)."""

    fixture: list[str] | str = Field(default_factory=list)
    serializer: str | None = None
    evals: dict[str, Evaluator] = Field(default_factory=dict)
    dataset: list[DatasetItem]


class FixtureModel(_Strict):
    setup: str | None = Field(
        None, description="Import path of a setup callable (generator = teardown)."
    )
    cls: str | None = Field(None, description="Import path of a class to instantiate.")
    args: list[Any] = Field(default_factory=list)
    kwargs: dict[str, Any] = Field(default_factory=dict)
    teardown: str | None = Field(
        None, description="Import path, or 'Class.method' on the instance."
    )
    scope: FixtureScope = "case"

    @model_validator(mode="after")
    def _one_of(self) -> FixtureModel:
        if bool(self.setup) == bool(self.cls):
            raise ValueError("a fixture needs exactly one of 'setup' or 'cls'")
        return self


class SerializerModel(_Strict):
    schema_: str | dict[str, str] | None = Field(None, alias="schema")
    serializer: str | None = None

    @model_validator(mode="after")
    def _one_of(self) -> SerializerModel:
        if (self.schema_ is None) == (self.serializer is None):
            raise ValueError("a serializer needs exactly one of 'schema' or 'serializer'")
        return self


class FunctionMeta(_Strict):
    fingerprint: str | None = None
    generated: list[str] = Field(default_factory=list)
    explored_by: str | None = None
    nondeterministic: list[str] = Field(default_factory=list)
    deleted: list[str] = Field(default_factory=list)
    sources: list[str] = Field(default_factory=list)
    mutants: int | None = None
    mutation_score: float | None = None


class CodemodeMeta(_Strict):
    version: int = 1
    functions: dict[str, FunctionMeta] = Field(default_factory=dict)


class SpecFileModel(BaseModel):
    """A whole spec file: reserved keys plus one block per function id (for the JSON schema)."""

    model_config = ConfigDict(extra="allow")
    codemode: CodemodeMeta | None = None
    fixtures: dict[str, FixtureModel] = Field(default_factory=dict)
    serializers: dict[str, SerializerModel] = Field(default_factory=dict)


def json_schema() -> dict[str, Any]:
    schema = SpecFileModel.model_json_schema()
    schema["additionalProperties"] = {"$ref": "#/$defs/FunctionBlock"}
    schema.setdefault("$defs", {})["FunctionBlock"] = FunctionBlock.model_json_schema(
        ref_template="#/$defs/{model}"
    )
    defs = schema["$defs"]["FunctionBlock"].pop("$defs", {})
    schema["$defs"].update(defs)
    schema["title"] = "codemode eval spec"
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    return schema
