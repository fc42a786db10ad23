"""Validating a spec file's mappings: the quick validator (a few lines per key) that decides
alone when it is sure, and the pydantic models of ``model.py`` when it is not (they word
every error, and importing pydantic costs ~150-250 ms of a hook run).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pydantic import BaseModel, ValidationError


from codemode.specs.types import (
    SCOPE_ALIASES,
)

EVALUATOR_MODELS = {
    "type": "TypeEval",
    "assertion": "AssertionEval",
    "duration": "DurationEval",
    "contains_input": "ContainsInputEval",
    "pattern": "PatternEval",
    "rubric": "RubricEval",
}


EVALUATOR_KINDS = tuple(EVALUATOR_MODELS)


_SCOPES = ("case", "eval", "file", *SCOPE_ALIASES)


_REQUIRED = object()


Field = tuple[Callable[[Any], bool], Any]


def _is_str(v: Any) -> bool:
    return type(v) is str


def _opt_str(v: Any) -> bool:
    return v is None or type(v) is str


def _is_bool(v: Any) -> bool:
    return type(v) is bool


def _positive(v: Any) -> bool:
    return type(v) in (int, float) and v > 0


def _str_list(v: Any) -> bool:
    return type(v) is list and all(type(x) is str for x in v)


_FIELDS: dict[str, dict[str, Field]] = {
    "CaseModel": {
        "id": (_opt_str, None),
        "input": (lambda v: True, None),
        "inputs": (lambda v: v is None or type(v) in (list, dict), None),
        "expected": (lambda v: True, None),
        "raises": (_opt_str, None),
        "match": (_opt_str, None),
        "duration": (lambda v: v is None or _positive(v), None),
        "contains": (lambda v: True, None),
        "assertion": (_opt_str, None),
        "pattern": (_opt_str, None),
        "case_sensitive": (_is_bool, True),
        "type": (_opt_str, None),
        "strict_type": (_is_bool, False),
    },
    "TypeEval": {
        "type": (_is_str, _REQUIRED),
        "strict": (lambda v: v is None or _is_bool(v), None),
    },
    "AssertionEval": {"assertion": (_is_str, _REQUIRED)},
    "DurationEval": {"duration": (_positive, _REQUIRED)},
    "ContainsInputEval": {
        "contains_input": (_is_bool, True),
        "case_sensitive": (_is_bool, True),
        "as_strings": (_is_bool, False),
    },
    "PatternEval": {"pattern": (_is_str, _REQUIRED), "case_sensitive": (_is_bool, True)},
    "RubricEval": {
        "rubric": (_is_str, _REQUIRED),
        "include": (lambda v: _str_list(v) and set(v) <= {"input", "expected_output"}, list),
        "config": (lambda v: type(v) is dict and all(type(k) is str for k in v), dict),
    },
    "FixtureModel": {
        "setup": (_opt_str, None),
        "cls": (_opt_str, None),
        "args": (lambda v: type(v) is list, list),
        "kwargs": (lambda v: type(v) is dict and all(type(k) is str for k in v), dict),
        "teardown": (_opt_str, None),
        "scope": (lambda v: v in _SCOPES, "case"),
    },
    "SerializerModel": {
        "schema": (
            lambda v: (
                _opt_str(v)
                or (type(v) is dict and all(_is_str(k) and _is_str(x) for k, x in v.items()))
            ),
            None,
        ),
        "serializer": (_opt_str, None),
    },
    "FunctionMeta": {
        "fingerprint": (_opt_str, None),
        "generated": (_str_list, list),
        "explored_by": (_opt_str, None),
        "nondeterministic": (_str_list, list),
        "deleted": (_str_list, list),
        "sources": (_str_list, list),
        "mutants": (lambda v: v is None or type(v) is int, None),
        "mutation_score": (lambda v: v is None or type(v) in (int, float), None),
    },
}


_FLOATS = ("duration",)


def _rules_hold(name: str, v: dict[str, Any], given: set[str]) -> bool:
    """model.py's model validators, for the fast path (a False sends the data to the model)."""
    if name == "CaseModel":
        return not (
            ("input" in given and "inputs" in given)
            or ("match" in given and not v["raises"])
            or (v["raises"] is not None and "expected" in given)
        )
    if name == "FixtureModel":
        return bool(v["setup"]) != bool(v["cls"])
    if name == "SerializerModel":
        return (v["schema"] is None) != (v["serializer"] is None)
    return True


def _quick(name: str, data: Any) -> dict[str, Any] | None:
    fields = _FIELDS[name]
    if type(data) is not dict:
        return None
    for k, v in data.items():
        f = fields.get(k) if type(k) is str else None
        if f is None or not f[0](v):
            return None
    out: dict[str, Any] = {}
    for k, (_, default) in fields.items():
        if k in data:
            out[k] = float(data[k]) if k in _FLOATS and data[k] is not None else data[k]
        elif default is _REQUIRED:
            return None
        else:
            out[k] = default() if default in (list, dict) else default
    return out if _rules_hold(name, out, set(data)) else None


class Invalid(Exception):
    def __init__(self, error: ValidationError, model: type[BaseModel]) -> None:
        super().__init__(str(error))
        self.error = error
        self.model = model


def validate_as(name: str, data: Any) -> tuple[dict[str, Any], set[str]]:
    """(values with defaults, keys given), as the model would validate them; or _Invalid."""
    values = _quick(name, data)
    if values is not None:
        return values, set(data)
    from pydantic import ValidationError

    from codemode.specs import model

    cls: type[BaseModel] = getattr(model, name)
    try:
        parsed = cls.model_validate(data)
    except ValidationError as exc:
        raise Invalid(exc, cls) from None
    given = {cls.model_fields[f].alias or f for f in parsed.model_fields_set}
    return parsed.model_dump(by_alias=True), given


def validate_meta(data: Any) -> dict[str, dict[str, Any]]:
    """The ``codemode:`` block's functions, validated as model.CodemodeMeta would."""
    if (
        type(data) is dict
        and set(data) <= {"version", "functions"}
        and type(data.get("version", 1)) is int
        and type(data.get("functions", {})) is dict
    ):
        quick = {f: _quick("FunctionMeta", m) for f, m in data.get("functions", {}).items()}
        if all(type(f) is str and m is not None for f, m in quick.items()):
            return quick  # type: ignore[return-value]
    from pydantic import ValidationError

    from codemode.specs import model

    try:
        parsed = model.CodemodeMeta.model_validate(data)
    except ValidationError as exc:
        raise Invalid(exc, model.CodemodeMeta) from None
    return {f: m.model_dump() for f, m in parsed.functions.items()}


def format_validation(
    exc: ValidationError, lines: dict[str, int | None], default: int | None
) -> tuple[int | None, str]:
    """First pydantic error as (line, one-line message naming the key)."""
    err = exc.errors()[0]
    loc = [str(p) for p in err["loc"]]
    key = loc[0] if loc else ""
    line = lines.get(key, default)
    msg = err["msg"].removeprefix("Value error, ")
    if err["type"] == "extra_forbidden":
        return line, f"unknown key {key!r}"
    where = ".".join(loc)
    return line, f"{where}: {msg}" if where else msg


def model_fields(cls: type[BaseModel]) -> list[str]:
    return [f.alias or name for name, f in cls.model_fields.items()]


def did_you_mean(key: str, known: Iterable[str]) -> str:
    import difflib

    close = difflib.get_close_matches(key, list(known), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def hint_unknown(key: str, known: Iterable[str]) -> str:
    return did_you_mean(key, known) or f"; known keys: {', '.join(known)}"
