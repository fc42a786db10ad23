"""Each speed copy on the hook's path agrees with the original it stands in for (issue #14).

``benchmarks/speed_copies.py`` measures what each copy saves a hook run; these check, on
values Hypothesis makes up, that the copy gives the original's answer whenever it gives one
(a copy may decline, returning None, and then the original runs). They import no worker and
start no process.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from codemode import config as config_mod
from codemode.check.fastpath import spec_keys
from codemode.cli.main import terminal_columns
from codemode.specs import RESERVED_KEYS, model, validate

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# --- spec_keys: a spec file's function ids, read without YAML ----------------------------

ident = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,8}", fullmatch=True)
function_id = st.lists(ident, min_size=1, max_size=4).map(".".join)
scalar = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=12)
)
value = st.recursive(
    scalar,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(ident, inner, max_size=3),
    max_leaves=8,
)
spec_like = st.dictionaries(
    function_id | st.sampled_from(sorted(RESERVED_KEYS)), value, min_size=1, max_size=5
)


@SETTINGS
@given(spec_like, st.booleans())
def test_spec_keys_reads_the_top_level_keys_yaml_reads(doc: dict[str, Any], flow: bool) -> None:
    text = yaml.safe_dump(doc, default_flow_style=flow or None, sort_keys=False, width=60)
    keys = spec_keys(text)
    parsed = yaml.safe_load(text)
    if keys is None:  # declined: the loader reads it (flow style, a key it cannot read...)
        return
    assert isinstance(parsed, dict)
    assert set(keys) == {str(k) for k in parsed} - set(RESERVED_KEYS)
    lines = text.splitlines()
    for key, n in keys.items():
        assert lines[n - 1].lstrip("'\"").startswith(key)


def test_spec_keys_reads_a_block_spec_file() -> None:
    text = "# header\nfixtures:\n  db: {setup: m.db}\nshop.a.f:\n  dataset: []\n'shop.b': {}\n"
    assert spec_keys(text) == {"shop.a.f": 4, "shop.b": 6}


# --- specs.validate._quick: case and evaluator mappings checked as specs.model would ---------

MODELS = [
    "CaseModel",
    "TypeEval",
    "AssertionEval",
    "DurationEval",
    "ContainsInputEval",
    "PatternEval",
    "RubricEval",
    "FixtureModel",
    "SerializerModel",
    "FunctionMeta",
]


@pytest.mark.parametrize("name", MODELS)
def test_the_quick_validator_knows_every_key_of_the_model(name: str) -> None:
    """A key added to specs/model.py that _quick does not know makes every spec using it
    take the slow path; one _quick knows and the model does not would let it through."""
    cls = getattr(model, name)
    keys = {f.alias or n for n, f in cls.model_fields.items()}
    assert set(validate._FIELDS[name]) == keys


short = st.text(max_size=6)
# Values of the right shape for each key (so the copy answers), beside any value at all.
SHAPES: dict[str, st.SearchStrategy[Any]] = {
    **dict.fromkeys(
        ["id", "raises", "match", "assertion", "pattern", "setup", "cls", "teardown"],
        st.none() | short,
    ),
    **dict.fromkeys(["fingerprint", "explored_by", "serializer", "type"], st.none() | short),
    **dict.fromkeys(
        ["case_sensitive", "strict_type", "contains_input", "as_strings"], st.booleans()
    ),
    "strict": st.none() | st.booleans(),
    "rubric": short,
    "inputs": st.none() | st.lists(scalar, max_size=2) | st.dictionaries(ident, scalar, max_size=2),
    "duration": st.floats(min_value=-1, max_value=1000, allow_nan=False) | st.integers(-1, 1000),
    "include": st.lists(st.sampled_from(["input", "expected_output", "output"]), max_size=2),
    "config": st.dictionaries(ident, scalar, max_size=2),
    "args": st.lists(scalar, max_size=2),
    "kwargs": st.dictionaries(ident, scalar, max_size=2),
    "scope": st.sampled_from(["case", "eval", "file", "module", "session"]),
    "schema": st.none() | short | st.dictionaries(short, short, max_size=2),
    "generated": st.lists(short, max_size=2),
    "nondeterministic": st.lists(short, max_size=2),
}


def _mapping(name: str) -> st.SearchStrategy[dict[str, Any]]:
    keys = sorted(validate._FIELDS[name])
    shaped = st.fixed_dictionaries({}, optional={k: SHAPES.get(k, value) for k in keys})
    anything = st.dictionaries(st.sampled_from([*keys, "unknown_key"]), value, max_size=4)
    return st.one_of(shaped, shaped, shaped, anything)


@SETTINGS
@given(st.sampled_from(MODELS).flatmap(lambda n: st.tuples(st.just(n), _mapping(n))))
@example(("RubricEval", {"include": [[]]}))  # once a TypeError in the copy: an internal error
def test_the_quick_validator_agrees_with_the_model(case: tuple[str, dict[str, Any]]) -> None:
    name, data = case
    quick = validate._quick(name, data)
    if quick is None:  # declined: the model decides (and words the error)
        return
    parsed = getattr(model, name).model_validate(data)
    assert quick == parsed.model_dump(by_alias=True)


# --- config: [tool.codemode] from the marshal cache -------------------------------------

table_value = st.one_of(
    st.booleans(),
    st.integers(min_value=-(2**31), max_value=2**31),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")), max_size=10),
    st.lists(st.text(alphabet="abc/._", max_size=6), max_size=3),
)


def _toml(table: dict[str, Any]) -> str:
    import json

    def lit(v: Any) -> str:
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, list):
            return "[" + ", ".join(lit(x) for x in v) + "]"
        if isinstance(v, float):
            return repr(v)
        return json.dumps(v, ensure_ascii=False)  # ints, and strings as TOML basic strings

    body = "".join(f"{k} = {lit(v)}\n" for k, v in table.items())
    return f'[project]\nname = "p"\n\n[tool.codemode]\n{body}'


@SETTINGS
@given(st.dictionaries(ident, table_value, max_size=6))
def test_the_cached_table_is_the_parsed_table(table: dict[str, Any]) -> None:
    import tomllib

    text = _toml(table)
    parsed = (tomllib.loads(text)["tool"]["codemode"], ("tests", "it"))  # and pytest's testpaths
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / ".git").mkdir()
        assert config_mod._cached_table(root, text) is None  # nothing cached yet
        config_mod._cache_table(root, text, parsed)
        assert config_mod._cached_table(root, text) == parsed
        assert config_mod._cached_table(root, text + "\n# edited\n") is None


# --- cli.main._columns: the terminal width argparse wraps help to ------------------------

env_size = st.one_of(
    st.none(), st.integers(min_value=-5, max_value=400).map(str), st.sampled_from(["", "x", "8O"])
)


@SETTINGS
@given(env_size, env_size)
def test_columns_is_what_shutil_says(columns: str | None, lines: str | None) -> None:
    saved = {k: os.environ.get(k) for k in ("COLUMNS", "LINES")}
    try:
        for k, v in (("COLUMNS", columns), ("LINES", lines)):
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        assert terminal_columns() == shutil.get_terminal_size().columns
    finally:
        for k, old in saved.items():
            if old is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = old
