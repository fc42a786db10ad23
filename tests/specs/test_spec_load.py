"""Loading spec files into runtime records: every key, with the line of everything."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import jsonschema
import pytest
import yaml

from codemode.specs.load import parse_spec_text
from codemode.specs.model import json_schema
from codemode.specs.spec_files import load_spec_file
from codemode.specs.types import CaseSpec, EvaluatorSpec, FixtureSpec, SerializerSpec, SpecFile

LEDGER_SPECS = Path(__file__).parents[1] / "data" / "ledger" / "specs"

FULL = """\
codemode:
  version: 1
  functions:
    shop.pricing.apply_discount:
      fingerprint: "sha256:6f1c"
      generated: [basic]
      explored_by: offline
      nondeterministic: [kwargs]
fixtures:
  db: {setup: shop.testing.make_db, scope: eval}
  cart: {cls: shop.cart.Cart, args: [EUR], kwargs: {vat: 0.2}, teardown: Cart.close}
  legacy: {setup: shop.testing.make_db, scope: module}
serializers:
  order: {schema: shop.orders.Order}
  parts: {schema: {order: shop.orders.Order, address: shop.orders.Address}}
  custom: {serializer: shop.orders.from_yaml}
shop.pricing.apply_discount:
  fixture: [db, cart]
  serializer: order
  evals:
    IsFloat: {type: float, strict: true}
    NonNegative: {assertion: "output >= 0"}
    Fast: {duration: 0.5}
    Echo: {contains_input: true, case_sensitive: false, as_strings: true}
    Money: {pattern: '^\\d+', case_sensitive: false}
    Judge: {rubric: "sensible", include: [input, expected_output]}
  dataset:
    - case: {id: basic, inputs: [100.0, 0.1], expected: 90.0}
    - case: {id: kwargs, inputs: {price: 100.0, rate: 0.5}, expected: 50.0}
    - case: {id: one, input: 5.0, expected: null}
    - case: {id: neg, inputs: [-1.0, 0.1], raises: ValueError, match: "negative"}
    - case: {id: opt, input: 1, raises: "KeyError?"}
    - case:
        id: many
        input: 2024-03-01
        contains: 3
        assertion: "output > 0"
        pattern: "^a"
        case_sensitive: false
        type: "list[int] | None"
        strict_type: true
        duration: 15
    - case: {input: 7, expected: 7}
"""


def parse(text: str) -> SpecFile:
    return parse_spec_text(text, Path("spec.yml"), "spec.yml")


@pytest.fixture(scope="module")
def full() -> SpecFile:
    return parse(FULL)


def test_the_full_spec_has_no_problem(full: SpecFile) -> None:
    assert full.problems == ()
    [fn] = full.functions
    assert (fn.id, fn.line, fn.error) == ("shop.pricing.apply_discount", 17, None)
    assert all(c.error is None for c in fn.cases)


def test_case_forms_of_input(full: SpecFile) -> None:
    cases = {c.id: c for c in full.functions[0].cases}
    assert (cases["basic"].args, cases["basic"].kwargs, cases["basic"].input_form) == (
        (100.0, 0.1),
        {},
        "inputs_list",
    )
    assert (cases["kwargs"].args, cases["kwargs"].kwargs, cases["kwargs"].input_form) == (
        (),
        {"price": 100.0, "rate": 0.5},
        "inputs_dict",
    )
    assert (cases["one"].args, cases["one"].input_value, cases["one"].input_form) == (
        (5.0,),
        5.0,
        "input",
    )
    # a YAML date reaches the function as a date
    assert cases["many"].args == (dt.date(2024, 3, 1),)


def test_expected_null_is_an_expectation(full: SpecFile) -> None:
    one = full.functions[0].cases[2]
    assert (one.has_expected, one.expected, one.raises) == (True, None, None)


def test_raises_match_and_optional(full: SpecFile) -> None:
    cases = {c.id: c for c in full.functions[0].cases}
    assert (cases["neg"].raises, cases["neg"].match, cases["neg"].raises_optional) == (
        "ValueError",
        "negative",
        False,
    )
    assert (cases["opt"].raises, cases["opt"].raises_optional) == ("KeyError", True)


def test_every_evaluator_key(full: SpecFile) -> None:
    many = {c.id: c for c in full.functions[0].cases}["many"]
    assert many == CaseSpec(
        id="many",
        line=many.line,
        args=(dt.date(2024, 3, 1),),
        input_value=dt.date(2024, 3, 1),
        input_form="input",
        has_contains=True,
        contains=3,
        assertion="output > 0",
        pattern="^a",
        case_sensitive=False,
        type="list[int] | None",
        strict_type=True,
        duration_ms=15,
    )


def test_default_case_id_is_its_position(full: SpecFile) -> None:
    assert full.functions[0].cases[-1].id == "case_7"


def test_function_keys(full: SpecFile) -> None:
    fn = full.functions[0]
    assert fn.fixtures == ("db", "cart")
    assert fn.serializer == "order"
    assert [(e.name, e.kind) for e in fn.evaluators] == [
        ("IsFloat", "type"),
        ("NonNegative", "assertion"),
        ("Fast", "duration"),
        ("Echo", "contains_input"),
        ("Money", "pattern"),
        ("Judge", "rubric"),
    ]
    assert fn.evaluators[0] == EvaluatorSpec(
        "IsFloat", "type", {"type": "float", "strict": True}, 21
    )
    assert fn.evaluators[2].params == {"duration": 0.5}


def test_top_level_fixtures_and_scope_aliases(full: SpecFile) -> None:
    assert full.fixtures["db"] == FixtureSpec(
        "db", "shop.testing.make_db", None, (), {}, None, "eval", 10
    )
    assert full.fixtures["cart"] == FixtureSpec(
        "cart", None, "shop.cart.Cart", ("EUR",), {"vat": 0.2}, "Cart.close", "case", 11
    )
    assert full.fixtures["legacy"].scope == "eval"  # vowel's 'module'


def test_top_level_serializers(full: SpecFile) -> None:
    assert full.serializers == {
        "order": SerializerSpec("order", "shop.orders.Order", None),
        "parts": SerializerSpec(
            "parts", {"order": "shop.orders.Order", "address": "shop.orders.Address"}, None
        ),
        "custom": SerializerSpec("custom", None, "shop.orders.from_yaml"),
    }


def test_codemode_metadata(full: SpecFile) -> None:
    fn = full.functions[0]
    assert fn.meta.fingerprint == "sha256:6f1c"
    assert (fn.meta.generated, fn.meta.explored_by, fn.meta.nondeterministic) == (
        ("basic",),
        "offline",
        ("kwargs",),
    )
    assert [c.generated for c in fn.cases][:2] == [True, False]


def test_non_utf8_spec_is_a_file_problem(tmp_path: Path) -> None:
    path = tmp_path / "latin1.yml"
    path.write_bytes(
        "m.f:\n  dataset:\n    - case: {input: 'caf\xe9', expected: 1}\n".encode("latin-1")
    )
    spec = load_spec_file(path, tmp_path)
    assert spec.rel == "latin1.yml"
    assert [(p.line, p.message.split(";")[0]) for p in spec.problems] == [
        (3, "not UTF-8 (byte 0xe9 at offset 40)")
    ]


def test_utf8_bom_is_accepted(tmp_path: Path) -> None:
    path = tmp_path / "bom.yml"
    path.write_bytes(b"\xef\xbb\xbfm.f:\n  dataset:\n    - case: {input: 1, expected: 1}\n")
    assert load_spec_file(path).problems == ()


# --- codemode schema ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def schema() -> dict[str, object]:
    s = json_schema()
    jsonschema.Draft202012Validator.check_schema(s)
    return s


@pytest.mark.parametrize("name", sorted(p.name for p in LEDGER_SPECS.glob("*.yml")))
def test_every_ledger_spec_validates_against_the_schema(
    schema: dict[str, object], name: str
) -> None:
    data = yaml.safe_load((LEDGER_SPECS / name).read_text(encoding="utf-8"))
    # JSON has no dates: the schema sees YAML dates as the strings an editor sees
    jsonschema.validate(json.loads(json.dumps(data, default=str)), schema)


def test_the_full_spec_validates_against_the_schema(schema: dict[str, object]) -> None:
    jsonschema.validate(json.loads(json.dumps(yaml.safe_load(FULL), default=str)), schema)


@pytest.mark.parametrize(
    "bad",
    [
        {"m.f": {"dataset": [{"case": {"id": "a", "expectd": 1}}]}},  # unknown case key
        {"m.f": {"dataset": [{"case": {"id": "a"}}], "evalz": {}}},  # unknown function key
        {"m.f": {"evals": {}}},  # no dataset
        {"fixtures": {"db": {"setup": "m.db", "scope": "forever"}}},
        {"m.f": {"dataset": [{"case": {"duration": -1}}]}},
    ],
)
def test_the_schema_rejects_what_the_loader_rejects(
    schema: dict[str, object], bad: dict[str, object]
) -> None:
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, schema)
    assert parse(yaml.safe_dump(bad)).problems or any(
        f.error or any(c.error for c in f.cases) for f in parse(yaml.safe_dump(bad)).functions
    )
