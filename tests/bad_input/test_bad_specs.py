"""Bad spec files: each gives one error naming the file, the line and the fix; the rest runs."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hazard_run import Run

Check = Callable[..., Run]


def test_malformed_yaml(check: Check) -> None:
    run = check("hazards.good.add:\n  dataset: [\n    - case: {id: a\n", good_inline=False)
    (run.root / "specs" / "good.yml").write_text("")  # keep the shipped good.yml
    err = run.errors()
    assert [(e.file, e.where) for e in err] == [("specs/bad.yml", "problem")]
    assert err[0].line == 3
    assert err[0].message.startswith("invalid YAML: ")
    assert run.status("hazards.good.add") == "ok"  # from specs/good.yml
    assert "specs/bad.yml:3: error: invalid YAML" in run.text


def test_unknown_case_key_with_a_suggestion(check: Check) -> None:
    run = check(
        "hazards.good.add:\n  dataset:\n    - case: {id: x, inputs: [1, 2], expectd: 3}\n"
        "    - case: {id: y, inputs: [2, 2], expected: 4}\n",
        good_inline=False,
    )
    [err] = run.errors()
    assert (err.file, err.line, err.where) == ("specs/bad.yml", 3, "hazards.good.add[x]")
    assert err.message == "unknown key 'expectd' (did you mean 'expected'?)"
    # the other case of the same function still ran
    f = next(f for f in run.report["functions"] if f["id"] == "hazards.good.add")
    assert {c["id"]: c["status"] for c in f["cases"]} == {"x": "error", "y": "passed"}


def test_unknown_function_key(check: Check) -> None:
    run = check("hazards.runaway.recurse:\n  evaluators: {}\n  dataset:\n    - case: {input: 1}\n")
    err = run.one_error()
    assert (err.file, err.line, err.where) == ("specs/bad.yml", 2, "hazards.runaway.recurse")
    assert err.message == "unknown key 'evaluators' (did you mean 'evals'?)"


def test_unknown_top_level_key(check: Check) -> None:
    run = check("fixture:\n  db: {setup: hazards.good.add}\n")
    err = run.one_error()
    assert (err.file, err.line) == ("specs/bad.yml", 1)
    assert err.message.startswith("unknown top-level key 'fixture' (did you mean 'fixtures'?)")


def test_duplicate_case_id(check: Check) -> None:
    run = check(
        "hazards.runaway.token:\n  dataset:\n    - case: {id: same, inputs: [], expected: null}\n"
        "    - case: {id: same, inputs: [], expected: null}\n"
    )
    err = run.one_error()
    assert (err.line, err.where) == (4, "hazards.runaway.token[same]")
    assert err.message == "duplicate case id 'same' (first at line 3); ids must be unique"


def test_duplicate_yaml_key(check: Check) -> None:
    run = check(
        "hazards.runaway.token:\n  dataset:\n    - case: {inputs: [], expected: null}\n"
        "  dataset:\n    - case: {inputs: [], expected: 1}\n"
    )
    err = run.one_error()
    assert (err.line, err.where) == (4, "problem")
    assert err.message.startswith("duplicate key 'dataset' (first at line 2)")


def test_input_with_inputs(check: Check) -> None:
    run = check(
        "hazards.runaway.token:\n  dataset:\n    - case: {id: both, input: 1, inputs: [1], "
        "expected: null}\n"
    )
    err = run.one_error()
    assert (err.line, err.where) == (3, "hazards.runaway.token[both]")
    assert err.message == "use either 'input' or 'inputs', not both"


def test_match_without_raises(check: Check) -> None:
    run = check("hazards.runaway.token:\n  dataset:\n    - case: {id: m, inputs: [], match: x}\n")
    err = run.one_error()
    assert err.where == "hazards.runaway.token[m]"
    assert err.message == "'match' needs 'raises' (it is matched against the exception message)"


def test_raises_with_expected(check: Check) -> None:
    run = check(
        "hazards.runaway.token:\n  dataset:\n    - case: {id: r, inputs: [], raises: KeyError, "
        "expected: 1}\n"
    )
    err = run.one_error()
    assert err.message == "a case cannot have both 'raises' and 'expected'"


def test_empty_dataset(check: Check) -> None:
    run = check("hazards.runaway.token:\n  dataset: []\n")
    err = run.one_error()
    assert (err.line, err.message) == (2, "`dataset:` is empty; add at least one case")


def test_non_utf8_spec(check: Check) -> None:
    run = check(
        b"hazards.runaway.token:\n  dataset:\n    - case: {id: caf\xe9, inputs: [], expected: null}\n"
    )
    err = run.one_error()  # the shipped specs/good.yml still runs
    assert (err.file, err.line, err.where) == ("specs/bad.yml", 3, "problem")
    assert err.message == "not UTF-8 (byte 0xe9 at offset 54); re-save the file as UTF-8"


def test_python_tags_are_not_constructed(check: Check) -> None:
    sentinel = "hazards-python-tag-sentinel"
    run = check(
        f"hazards.runaway.token: !!python/object/apply:os.system ['touch {sentinel}']\n",
    )
    err = run.one_error()
    assert err.where in ("problem", "hazards.runaway.token")
    assert not (run.root / sentinel).exists()


def test_unknown_fixture(check: Check) -> None:
    run = check(
        "fixtures:\n  db: {setup: hazards.good.add}\nhazards.runaway.token:\n  fixture: [dbb]\n"
        "  dataset:\n    - case: {inputs: [], expected: null}\n"
    )
    err = run.one_error()
    assert (err.line, err.where) == (3, "hazards.runaway.token")
    assert err.message == (
        "unknown fixture 'dbb'; define it under top-level `fixtures:` (defined: db)"
    )


def test_fixture_setup_that_raises(check: Check) -> None:
    run = check(
        "fixtures:\n  conn: {setup: hazards.broken_import.connect}\n"
        "hazards.runaway.token:\n  fixture: [conn]\n"
        "  dataset:\n    - case: {id: c, inputs: [], expected: null}\n"
    )
    err = run.one_error()
    assert err.where == "hazards.runaway.token[c]"
    assert err.message.startswith("cannot import hazards.broken_import: KeyError")


def test_bad_type_expression_syntax(check: Check) -> None:
    run = check(
        "hazards.runaway.token:\n  dataset:\n    - case: {id: t, inputs: [], type: 'list[int'}\n"
    )
    err = run.one_error()
    assert (err.line, err.where) == (3, "hazards.runaway.token[t]")
    assert err.message.startswith("invalid type expression 'list[int' (")
    assert "write a Python type such as 'int'" in err.message


def test_unknown_type_name(check: Check) -> None:
    run = check(
        "hazards.runaway.token:\n  dataset:\n    - case: {id: t, inputs: [], type: Strng}\n"
    )
    err = run.one_error()
    assert err.message == "cannot check type 'Strng': unknown type name 'Strng'"


@pytest.mark.parametrize(
    ("case", "key"),
    [
        ("{id: r, input: 0, raises: RecursionError, match: 'depth ['}", "match"),
        ("{id: r, inputs: [], pattern: '(unclosed'}", "pattern"),
    ],
)
def test_bad_regex(check: Check, case: str, key: str) -> None:
    fn = "recurse" if key == "match" else "token"
    run = check(f"hazards.runaway.{fn}:\n  dataset:\n    - case: {case}\n")
    err = run.one_error()
    assert (err.line, err.where) == (3, f"hazards.runaway.{fn}[r]")
    assert err.message.startswith(f"invalid regex in {key!r}: ")
    assert "escape special characters with a backslash" in err.message


def test_bad_regex_in_an_evaluator(check: Check) -> None:
    run = check(
        "hazards.runaway.token:\n  evals:\n    P: {pattern: '[a-'}\n"
        "  dataset:\n    - case: {inputs: [], expected: null}\n"
    )
    err = run.one_error()
    assert (err.line, err.where) == (3, "hazards.runaway.token")
    assert err.message.startswith("evaluator 'P': invalid regex in 'pattern'")
