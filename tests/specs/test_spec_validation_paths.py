"""The loader accepts plainly valid data without pydantic; the models decide everything else.

The fast path must give exactly what ``Model.model_validate(d).model_dump(by_alias=True)``
gives, and must send to the model whatever it is not sure of.
"""

from __future__ import annotations

import datetime as dt
import subprocess
import sys
from typing import Any, get_args

import pytest

from codemode.specs import model, validate

VALID: list[tuple[str, dict[str, Any]]] = [
    ("CaseModel", {"id": "a", "inputs": [1, 2], "expected": 3}),
    ("CaseModel", {"input": dt.date(2024, 1, 1), "expected": None}),
    ("CaseModel", {"inputs": {"x": 1}, "raises": "KeyError?", "match": "x", "duration": 5}),
    (
        "CaseModel",
        {
            "contains": [1],
            "assertion": "output",
            "pattern": "a",
            "case_sensitive": False,
            "type": "int",
            "strict_type": True,
            "duration": 1.5,
        },
    ),
    ("TypeEval", {"type": "int"}),
    ("TypeEval", {"type": "int", "strict": False}),
    ("AssertionEval", {"assertion": "output > 0"}),
    ("DurationEval", {"duration": 2}),
    ("ContainsInputEval", {"contains_input": True, "as_strings": True}),
    ("PatternEval", {"pattern": "^a", "case_sensitive": False}),
    ("RubricEval", {"rubric": "ok", "include": ["input"], "config": {"k": 1}}),
    ("FixtureModel", {"setup": "a.b", "scope": "module"}),
    ("FixtureModel", {"cls": "a.B", "args": [1], "kwargs": {"k": 2}, "teardown": "B.close"}),
    ("SerializerModel", {"schema": "a.B"}),
    ("SerializerModel", {"schema": {"x": "a.B"}}),
    ("SerializerModel", {"serializer": "a.f"}),
    ("FunctionMeta", {"fingerprint": "sha256:1", "generated": ["a"], "explored_by": "offline"}),
]


@pytest.mark.parametrize(("name", "data"), VALID)
def test_fast_path_equals_the_model(name: str, data: dict[str, Any]) -> None:
    quick = validate._quick(name, data)
    assert quick is not None
    cls = getattr(model, name)
    assert quick == cls.model_validate(data).model_dump(by_alias=True)
    assert validate.validate_as(name, data) == (quick, set(data))


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("CaseModel", {"id": 1}),  # pydantic says whether an int id is fine
        ("CaseModel", {"expectd": 1}),
        ("CaseModel", {"input": 1, "inputs": [1]}),
        ("CaseModel", {"match": "x"}),
        ("CaseModel", {"raises": "X", "expected": 1}),
        ("CaseModel", {"duration": 0}),
        ("CaseModel", {"duration": True}),
        ("CaseModel", {"case_sensitive": "yes"}),
        ("TypeEval", {}),
        ("DurationEval", {"duration": -1}),
        ("RubricEval", {"rubric": "x", "include": ["output"]}),
        ("FixtureModel", {"setup": "a.b", "cls": "a.B"}),
        ("FixtureModel", {"setup": "a.b", "scope": "forever"}),
        ("SerializerModel", {}),
        ("SerializerModel", {"schema": {"x": 1}}),
    ],
)
def test_anything_unsure_goes_to_the_model(name: str, data: dict[str, Any]) -> None:
    assert validate._quick(name, data) is None


def test_constants_match_the_models() -> None:
    assert tuple(model.EVALUATOR_KINDS) == validate.EVALUATOR_KINDS
    assert {validate.EVALUATOR_MODELS[k] for k in validate.EVALUATOR_KINDS} == {
        m.__name__ for m in model.EVALUATOR_KINDS.values()
    }
    assert set(validate._SCOPES) == set(get_args(model.FixtureScope))
    for name, fields in validate._FIELDS.items():
        cls = getattr(model, name)
        assert set(fields) == {f.alias or n for n, f in cls.model_fields.items()}, name


def test_loading_a_valid_spec_does_not_import_pydantic() -> None:
    code = (
        "import sys; from pathlib import Path; from codemode.specs.load import parse_spec_text\n"
        's = parse_spec_text("fixtures: {db: {setup: a.b}}\\nm.f:\\n  fixture: [db]\\n'
        '  evals: {T: {type: int}}\\n  dataset:\\n    - case: {input: 1, expected: 1}\\n",'
        " Path('x.yml'), 'x.yml')\n"
        "assert not s.problems and not s.functions[0].error, s\n"
        "print('pydantic' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
